"""``solve2048 play``: the solver plays a whole game, live on a terminal."""

from __future__ import annotations

import json
import os
import secrets
import signal
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType
from typing import IO, Any

import click

from solve2048.board import Board
from solve2048.cli.exits import EXIT_INTERRUPTED, EXIT_WRITE_FAILED
from solve2048.cli.params import BOARD, OUTPUT, SEED, close_quietly, settings_options
from solve2048.cli.render import board_text, duration, extras_text
from solve2048.errors import InvalidArgumentError
from solve2048.record import RecordWriter
from solve2048.selfplay import CHUNK, Game, GameResult
from solve2048.settings import SearchSettings

REDRAW_SECONDS = 1 / 30     # at most 30 redraws a second, whatever the speed
TARGET_CALL_SECONDS = 0.05  # chunks of moves sized to return to Python this often
# On a terminal a game is watched: ten moves a second can be followed by eye
# (at full speed a depth-3 game is over in a tenth of a second, leaving only
# its last board). Off a terminal, or asked for, it runs at full speed.
WATCH_DELAY_MS = 100
FULL_SPEED_KEYS = "f "      # toggle full speed while watching
QUIT_KEYS = "q"             # stop the game, as Ctrl-C does
KEYS_HELP = "f: full speed · q: stop"


@contextmanager
def sigint_flag() -> Iterator[dict[str, bool]]:
    """Turns Ctrl-C into a flag checked between chunks, so a chunk of moves that
    the engine has already played is always written before the game stops."""
    hit = {"flag": False}

    def handler(signum: int, frame: FrameType | None) -> None:
        hit["flag"] = True

    try:
        previous = signal.signal(signal.SIGINT, handler)
    except ValueError:  # not the main thread: leave Ctrl-C alone
        yield hit
        return
    try:
        yield hit
    finally:
        signal.signal(signal.SIGINT, previous)


class KeyReader:
    """Keys pressed on the controlling terminal while a game is watched, read
    without waiting and without echo; does nothing when stdin is no terminal."""

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled and sys.stdin.isatty()
        self._saved: list[Any] | None = None  # the terminal's attributes, restored on exit

    def __enter__(self) -> KeyReader:
        if self.enabled:
            import termios
            import tty

            try:
                self._saved = termios.tcgetattr(sys.stdin.fileno())
                tty.setcbreak(sys.stdin.fileno())
            except (termios.error, OSError):
                self.enabled = False
        return self

    def __exit__(self, *exc: object) -> None:
        if self._saved is not None:
            import termios

            termios.tcsetattr(sys.stdin.fileno(), termios.TCSADRAIN, self._saved)

    def wait(self, seconds: float) -> str:
        """The keys pressed within ``seconds`` (returns at the first one)."""
        if not self.enabled:
            if seconds > 0:
                time.sleep(seconds)
            return ""
        import os
        import select

        ready, _, _ = select.select([sys.stdin], [], [], max(0.0, seconds))
        return os.read(sys.stdin.fileno(), 64).decode("utf-8", "replace") if ready else ""


class LiveView:
    """Redraws the board in place on a terminal, at a capped rate."""

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled
        self.lines = 0
        self.last = 0.0
        self.keys_help = ""

    def draw(self, game: Game, force: bool = False) -> None:
        now = time.perf_counter()
        if not self.enabled or (not force and now - self.last < REDRAW_SECONDS):
            return
        self.last = now
        speed = game.moves / game.seconds if game.seconds else 0.0
        text = board_text(game.board, colour=True) + "\n" + (
            f"score {game.score:,} · moves {game.moves:,} · {speed:,.0f} moves/s"
            f" · depth {game.last_depth}" + (" (auto)" if game.depth == "auto" else "")
        ) + (f"\n{self.keys_help}" if self.keys_help else "")
        rows = text.split("\n")
        out = sys.stdout
        if self.lines:
            out.write(f"\x1b[{self.lines}F")  # back to the first line of the last frame
        out.write("".join(row + "\x1b[K\n" for row in rows))
        out.flush()
        self.lines = len(rows)


def summary_lines(game: Game, interrupted: bool) -> list[str]:
    r = game.result()
    head = "interrupted" if interrupted else "game over" if game.board.is_game_over() else "stopped"
    won = f" · won at move {r.won_at_move:,}" if r.won else ""
    return [
        f"{head}: score {r.score:,} · max tile {r.max_tile} · {r.moves:,} moves{won}",
        f"seed {r.seed} · {_effort_text(r)} · {duration(r.seconds)} · {r.moves_per_second:,.0f} moves/s"
        + (f" · {r.table_moves:,} moves from endgame tables" if game.tables else ""),
    ]


def _effort_text(r: GameResult) -> str:
    """How hard the search was told to think: a depth, or a time per move."""
    if r.time_ms is None:
        return f"depth {r.depth}{extras_text(r.danger, r.quiescence, r.late_quiescence)}"
    cap = "" if r.depth_setting is None else f", depth at most {r.depth_setting}"
    return f"{r.time_ms:g} ms per move{cap}"


@click.command()
@click.option("-s", "--seed", type=SEED, default=None,
              help="Seed of the game (0..2**64-1); without it a seed is picked and printed.")
@click.option("-r", "--record", "record_path", type=OUTPUT,
              help="Write the game to this JSON Lines file as it goes (a file already there is "
                   "refused, unless --overwrite).")
@click.option("--overwrite", is_flag=True, help="Replace the --record file if it already exists.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object to stdout at the end.")
@click.option("-q", "--quiet", is_flag=True, help="No live board; only the summary.")
@click.option("--delay", type=click.IntRange(0, 60_000), default=None,
              help=f"Pause this many ms after each move [default: {WATCH_DELAY_MS} on a terminal, "
                   "so the game can be followed; else 0].")
@click.option("--fast", is_flag=True, help="Full speed on a terminal too (as --delay 0; key f while watching).")
@click.option("--stop-at-win", is_flag=True, help="Stop once 2048 is made instead of playing on.")
@click.option("--start", "start", type=BOARD, default=None,
              help="Play from this board instead of a new game (the spawns still come from --seed).")
@settings_options
def play(seed: int | None, record_path: str | None, overwrite: bool, as_json: bool, quiet: bool,
         delay: int | None, fast: bool, stop_at_win: bool, start: Board | None, settings: SearchSettings) -> None:
    """Watch the solver play a whole game, reproducible by --seed.

    On a terminal the game is shown move by move at a pace that can be followed
    (f: full speed, q: stop); piped, with --quiet or --json it runs at full speed.
    Ctrl-C (or q) stops cleanly: the summary so far, the record closed, exit code 130.
    """
    chosen = seed is None
    seed = secrets.randbelow(1 << 32) if seed is None else seed
    try:
        game = Game(seed, settings, stop_at_win=stop_at_win, start=start)
    except InvalidArgumentError as error:
        raise click.BadParameter(str(error), param_hint="'--start'") from None
    # Closed by close_quietly in the finally below, not by a with: after a failed
    # write, closing would raise again over the error that ended the game.
    record = open_record(record_path, overwrite) if record_path else None
    if chosen and not as_json:  # said once the game can be played, so a refusal stays one line
        click.echo(f"seed {seed} (replay this game with --seed {seed})", err=True)
    view = LiveView(sys.stdout.isatty() and not quiet and not as_json)
    if delay is None:
        delay = 0 if fast or not view.enabled else WATCH_DELAY_MS
    writer = RecordWriter(record) if record else None
    try:
        if writer:
            writer.start(seed, settings.depth, game.start_board.cells, given=game.given_start,
                         danger=settings.danger, quiescence=settings.quiescence,
                         late_quiescence=settings.late_quiescence)
        with sigint_flag() as interrupt, KeyReader(view.enabled) as keys:
            if keys.enabled:
                view.keys_help = KEYS_HELP
            _run(game, view, writer, delay, interrupt, keys)
        interrupted = interrupt["flag"]
        if writer:
            r = game.result()
            reason = "interrupted" if interrupted else (
                "game_over" if r.final_board.is_game_over() else "stopped_at_win")
            writer.end(r.score, r.max_tile, r.moves, r.won, reason)
    except OSError as error:  # the record cannot be written (a full disk): stop the game here
        view.draw(game, force=True)
        click.echo(f"solve2048: error: cannot write {record_path}: {error.strerror or error}; "
                   f"the game stopped after {game.moves:,} moves, the lines written before are kept",
                   err=True)
        sys.exit(EXIT_WRITE_FAILED)
    finally:
        if record:
            close_quietly(record)
    view.draw(game, force=True)
    if as_json:
        click.echo(json.dumps(game.result().to_json()))
    else:
        for line in summary_lines(game, interrupted):
            click.echo(line)
    if interrupted:
        sys.exit(EXIT_INTERRUPTED)


def open_record(path: str, overwrite: bool) -> IO[str]:
    """The --record file, opened to write before any move is played. A file
    already there (a game record, perhaps a long one) is refused without
    --overwrite, as the shell's noclobber refuses it: only a regular file is,
    so a device such as /dev/null is written to. The exclusive create makes the
    check and the open one step, so a file made in between is refused too."""
    if overwrite:
        return open(path, "w", encoding="utf-8")
    try:
        return open(path, "x", encoding="utf-8")
    except FileExistsError:
        if os.path.isfile(path):
            raise click.BadParameter(f"{path!r} already exists; --overwrite replaces it",
                                     param_hint="'--record'") from None
    return open(path, "w", encoding="utf-8")  # a device, or a link to no file yet


def _run(game: Game, view: LiveView, writer: RecordWriter | None, delay_ms: int, interrupt: dict[str, bool],
         keys: KeyReader) -> None:
    """Plays a move at a time when paced, else in chunks sized to return about
    every TARGET_CALL_SECONDS; keys are read between them."""
    chunk = 1
    paced = delay_ms > 0
    while not game.over and not interrupt["flag"]:
        start = time.perf_counter()
        steps = game.advance(1 if paced else chunk, steps=writer is not None)
        if writer:
            writer.moves(steps)
        view.draw(game, force=paced)
        pressed = keys.wait(delay_ms / 1000 if paced else 0.0) if keys.enabled or paced else ""
        if any(k in QUIT_KEYS for k in pressed):
            interrupt["flag"] = True
        if sum(k in FULL_SPEED_KEYS for k in pressed) % 2:
            paced = not paced
            delay_ms = delay_ms or WATCH_DELAY_MS
        if paced:
            continue
        elapsed = time.perf_counter() - start
        if elapsed < TARGET_CALL_SECONDS / 2:
            chunk = min(chunk * 2, CHUNK)
        elif elapsed > TARGET_CALL_SECONDS * 2:
            chunk = max(1, chunk // 2)
