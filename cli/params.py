"""click parameter types: every check of user input lives here, raising a
one-line click error (exit code 2)."""

from __future__ import annotations

import functools
import math
import os
import sys
from collections.abc import Callable
from contextlib import suppress
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, TypeVar, cast

import click

from solve2048 import Board, InvalidBoardError, engine
from solve2048.cli.exits import EXIT_BAD_INPUT
from solve2048.engine import (
    DEFAULT_LATE_QUIESCENCE,
    DEFAULT_PRUNE,
    DEFAULT_QUIESCENCE,
    DEFAULT_THREADS,
    DEFAULT_TT_MB,
    LOOK_MAX_DEPTH,
    MAX_DEPTH,
    MAX_THREADS,
    PRUNE_AUTO,
    Prune,
    check_prune,
    check_threads,
    check_tt_mb,
)
from solve2048.rng import MAX_SEED
from solve2048.selfplay import check_stop_tile
from solve2048.settings import MAX_TIME_MS, NOT_GIVEN, Depth, SearchSettings, check_deepening
from solve2048.tables import DEFAULT_MIN_PROBABILITY, ENV_DIR, TableSet
from solve2048.tables import load as load_tables

# A command's function (or a click Command) that an option decorator returns as it took it.
F = TypeVar("F", bound=Callable[..., Any])

if TYPE_CHECKING:
    ParamType = click.ParamType
else:
    class ParamType(click.ParamType):
        """click.ParamType, subscriptable at run time: click 8.4 made it generic in
        what convert returns, and ParamType[X] fails on the click 8.1 to 8.3 that
        pyproject accepts, so the subscript is for the type checker alone."""

        def __class_getitem__(cls, item):
            return cls


class InputError(click.ClickException):
    """Bad input that is not an option value (a results file, a record): exit code 2."""

    exit_code = EXIT_BAD_INPUT


class BoardParam(ParamType[Board]):
    """A board in any notation Board.parse reads; "-" reads it from standard input."""

    name = "BOARD"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Board:
        if isinstance(value, Board):
            return value
        text = _read_board_text() if value == "-" else value
        try:
            return Board.parse(text)
        except InvalidBoardError as error:
            self.fail(str(error), param, ctx)


MAX_BOARD_TEXT = 1 << 16  # a board is a few dozen characters; a JSON grid a few hundred


def _read_board_text() -> str:
    """A board from standard input, read with a bound (stdin may be /dev/zero)."""
    text = sys.stdin.read(MAX_BOARD_TEXT + 1)
    if len(text) > MAX_BOARD_TEXT:
        raise click.BadParameter(f"the board on standard input is longer than {MAX_BOARD_TEXT:,} "
                                 "characters; a board is 16 cells", param_hint="'BOARD'")
    return text


class DepthParam(ParamType[Depth]):
    """'auto' or a whole number of moves from 1 to MAX_DEPTH."""

    name = "N|auto"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Depth:
        if value == "auto":
            return "auto"
        if isinstance(value, int):
            depth = value
        else:
            try:
                depth = int(str(value).strip())
            except ValueError:
                self.fail(f"expected 'auto' or a depth from 1 to {MAX_DEPTH}, got {value!r}", param, ctx)
        if not 1 <= depth <= MAX_DEPTH:
            self.fail(f"expected 'auto' or a depth from 1 to {MAX_DEPTH}, got {value!r}", param, ctx)
        return depth


class OutputPath(ParamType[str]):
    """A file to write: checked before any work starts, so a long run never fails
    at its end because the folder is missing or read-only."""

    name = "FILE"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> str:
        path: str = os.fspath(value)
        folder = os.path.dirname(os.path.abspath(path))
        if os.path.isdir(path):
            self.fail(f"{path!r} is a folder, not a file", param, ctx)
        if not os.path.isdir(folder):
            problem = "is a file, not a folder" if os.path.exists(folder) else "does not exist"
            self.fail(f"folder {folder!r} {problem}", param, ctx)
        if not os.access(folder, os.W_OK) or (os.path.exists(path) and not os.access(path, os.W_OK)):
            self.fail(f"{path!r} is not writable", param, ctx)
        return path


class FiniteFloatRange(click.FloatRange):
    """click's FloatRange, refusing NaN and infinities: NaN passes every
    comparison of a range check, so FloatRange alone lets it through."""

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> float:
        number = super().convert(value, param, ctx)
        if not math.isfinite(number):
            self.fail(f"{value!r} is not a finite number", param, ctx)
        return number


class TableSizeParam(ParamType[int]):
    """A transposition table size in MB that this machine can hold."""

    name = "MB"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> int:
        if isinstance(value, int) and not isinstance(value, bool):
            size = value
        else:
            try:
                size = int(str(value).strip())
            except ValueError:
                self.fail(f"expected a whole number of MB, got {value!r}", param, ctx)
        try:
            return int(check_tt_mb(size))
        except ValueError as error:
            self.fail(str(error), param, ctx)


class ThreadsParam(ParamType[int]):
    """The threads of one search: a whole number from 1 to MAX_THREADS."""

    name = "N"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> int:
        try:
            return check_threads(value if isinstance(value, int) else int(str(value).strip()))
        except ValueError:
            self.fail(f"expected a thread count from 1 to {MAX_THREADS}, got {value!r}", param, ctx)


class TileParam(ParamType[int]):
    """A tile of the ladder: a power of two from 2 to 131072."""

    name = "TILE"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> int:
        try:
            return check_stop_tile(value if isinstance(value, int) else int(str(value).strip()))
        except ValueError:
            self.fail(f"expected a tile from 2 to 131072 (a power of two), got {value!r}", param, ctx)


def close_quietly(stream: IO[str]) -> None:
    """Closes an output after a failed write: the stream still holds what it
    could not write, and closing would try again; what is on disk is what counts."""
    with suppress(OSError):
        stream.close()


BOARD = BoardParam()
OUTPUT = OutputPath()
TILE = TileParam()
DEPTH = DepthParam()
TIME_MS = FiniteFloatRange(min=0, min_open=True, max=MAX_TIME_MS)
PROBABILITY = FiniteFloatRange(0, 1)


SEED = click.IntRange(0, MAX_SEED)


class PruneParam(ParamType[Prune]):
    """A pruning threshold in 0..1, or "auto"."""

    name = "auto|0..1"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Prune:
        if value == PRUNE_AUTO:
            return PRUNE_AUTO
        try:
            return check_prune(float(value))
        except ValueError:
            self.fail(f"{value!r} is neither 'auto' nor a number in 0..1", param, ctx)


def search_options(command: F) -> F:
    """--prune and --tt-mb, the search settings every searching command shares."""
    command = click.option(
        "--prune", type=PruneParam(), default=DEFAULT_PRUNE, show_default=True,
        help="Score a branch by the heuristic once its probability falls below this "
             "(0 = never; auto = 2^-(depth+4)).",
    )(command)
    return click.option(
        "--tt-mb", type=TableSizeParam(), default=DEFAULT_TT_MB, show_default=True,
        help="Size of the transposition table in MB (0 = none).",
    )(command)


def table_options(command: F) -> F:
    """--no-tables, --tables-dir and --table-min-prob, shared by every command that plays."""
    command = click.option(
        "--no-tables", is_flag=True,
        help="Search every move, even where an installed endgame table covers the board.",
    )(command)
    command = click.option(
        "--tables-dir", type=click.Path(file_okay=False, path_type=Path), default=None,
        help=f"Where the endgame tables are (default: ${ENV_DIR}, else the user cache directory).",
    )(command)
    return click.option(
        "--table-min-prob", type=PROBABILITY, default=DEFAULT_MIN_PROBABILITY,
        show_default=True,
        help="Take an optional block table's move only when its success probability is at "
             "least this (chain tables are trusted at any probability, entry tables from 0.9, "
             "the goal-512 entry table from 0.1).",
    )(command)


def settings_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """The search settings every searching command shares, --depth, --danger,
    --quiescence, --late-quiescence, --time, --prune, --tt-mb, --threads and the
    tables' options, declared once; the command gets them as one SearchSettings,
    ``settings``, its tables loaded."""
    return _settings_options(command, with_threads=True)


def game_settings_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """settings_options without --threads, for batch: it plays each game on one
    thread and as many games at once as it has workers."""
    return _settings_options(command, with_threads=False)


def threads_option(command: F) -> F:
    """--threads: how many threads one search may use."""
    return click.option(
        "--threads", type=ThreadsParam(), default=DEFAULT_THREADS, show_default="every core",
        help=f"Threads of one search from depth 6 on, each with a --tt-mb table of its own "
             f"(1..{MAX_THREADS}); any number gives the same move, values and node count.",
    )(command)


LOOK_OFF = "off"


class LookParam(ParamType[int | str]):
    """A look past crowded leaves: a number of empty cells, 1..15, or "off".
    Left out, the option is None, and given_look says what that becomes."""

    name = "CELLS|off"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> int | str:
        if isinstance(value, str) and value.strip().lower() == LOOK_OFF:
            return LOOK_OFF
        try:
            cells = value if isinstance(value, int) else int(str(value).strip())
        except ValueError:
            self.fail(f"{value!r} is neither 'off' nor a number of empty cells", param, ctx)
        return click.IntRange(1, 15).convert(cells, param, ctx)


LOOK = LookParam()


def given(look: int | str | None) -> int | None:
    """A --quiescence or --late-quiescence as SearchSettings takes it: left
    out, NOT_GIVEN; "off" (--quiescence only), None."""
    if look is None:
        return cast(int | None, NOT_GIVEN)
    return None if look == LOOK_OFF else int(look)


def quiescence_option(command: F) -> F:
    """--quiescence CELLS|off: how crowded a leaf must be to look one move further."""
    return click.option(
        "--quiescence", type=LOOK, default=None, metavar="CELLS|off",
        help="Look one more spawn and move past a leaf (a board after the last move looked at) "
             f"with at most this many empty cells, where the heuristic misjudges most. Default at "
             f"depths 1 to {LOOK_MAX_DEPTH} and auto, without --time: {DEFAULT_QUIESCENCE}, and "
             f"{DEFAULT_LATE_QUIESCENCE} once the board holds 32768 (none deeper or "
             "with --time); given alone, it holds throughout; 'off' looks at none.",
    )(command)


def danger_option(command: F) -> F:
    """--danger CELLS: how crowded a root must be to search one move deeper."""
    return click.option(
        "--danger", type=click.IntRange(0, 16), default=None, metavar="CELLS",
        help="With a fixed --depth, search one move deeper on a board with at most this many "
             "empty cells.",
    )(command)


def _settings_options(command: Callable[..., Any], with_threads: bool) -> Callable[..., Any]:
    @functools.wraps(command)
    def with_settings(*args: Any, depth: Depth, time_ms: float | None, prune: Prune, tt_mb: int,
                      no_tables: bool, tables_dir: Path | None, table_min_prob: float, danger: int | None,
                      quiescence: int | str | None, late_quiescence: int | None, threads: int = 1,
                      **kwargs: Any) -> Any:
        check_thread_tables(tt_mb, threads)
        try:
            check_deepening(danger, depth, time_ms)
        except ValueError as error:  # before the tables are opened: a mistake in the options costs nothing
            raise InputError(str(error)) from None
        tables = open_tables(no_tables, tables_dir, table_min_prob)
        try:
            settings = SearchSettings(depth=depth, time_ms=time_ms, prune=prune, tt_mb=tt_mb, tables=tables,
                                      threads=threads, danger=danger, quiescence=given(quiescence),
                                      late_quiescence=given(late_quiescence))
        except ValueError as error:  # each option was checked alone; this is what they say together
            raise InputError(str(error)) from None
        return command(*args, settings=settings, **kwargs)

    with_settings = click.option(
        "--late-quiescence", type=click.IntRange(1, 15), default=None, metavar="CELLS",
        help="Once the board holds 32768 or more, look past leaves with at most this many empty "
             f"cells instead of --quiescence's. Default {DEFAULT_LATE_QUIESCENCE} with the default "
             "--quiescence, else --quiescence's.",
    )(with_settings)
    with_settings = danger_option(quiescence_option(with_settings))
    with_settings = click.option(
        "-d", "--depth", type=DEPTH, default="auto", show_default=True,
        help="Moves to look ahead (the first included), or 'auto' by board difficulty.",
    )(with_settings)
    if with_threads:
        with_settings = threads_option(with_settings)
    with_settings = click.option(
        "-t", "--time", "time_ms", type=TIME_MS, default=None,
        help="Search by iterative deepening for at most this many ms per move (depth becomes a "
             "cap; the result then depends on the machine's speed).",
    )(with_settings)
    return table_options(search_options(with_settings))


def check_thread_tables(tt_mb: int, threads: int) -> None:
    """Refuses --tt-mb when one table fits but not one per thread; a size of
    which not even one fits is SearchSettings' to refuse, in its own words."""
    try:
        engine.check_tt_mb(tt_mb)
    except ValueError:
        return
    try:
        engine.check_tt_mb(tt_mb, copies=engine.thread_tables(threads))
    except ValueError as error:
        raise click.BadParameter(f"{error}, one per thread (--threads)", param_hint="'--tt-mb'") from None


def open_tables(no_tables: bool, tables_dir: Path | None, min_prob: float) -> TableSet | None:
    """The installed tables, or None (turned off, or none installed). A damaged
    table costs one warning line on stderr and is left out, never used."""
    if no_tables:
        return None
    installed = load_tables(tables_dir, min_probability=min_prob)
    for problem in installed.problems:
        click.echo(f"solve2048: warning: {problem}; searching instead", err=True)
    if installed.outdated:
        # Every table of an older release says the same: one line, not six.
        count = len(installed.outdated)
        what = "1 endgame table is" if count == 1 else f"{count} endgame tables are"
        click.echo(f"solve2048: warning: {what} of an earlier version; `solve2048 tables build` updates them "
                   "(16-bit files are converted in about a minute); searching without them", err=True)
    if installed.missing and len(installed.tables):
        # None at all is a fresh install, not worth a line on every command.
        missing = len(installed.missing)
        what = "1 endgame table is" if missing == 1 else f"{missing} endgame tables are"
        click.echo(f"solve2048: warning: {what} missing; `solve2048 tables build` adds them", err=True)
    return installed.tables if len(installed.tables) else None
