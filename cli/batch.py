"""``solve2048 batch``: many games, and the statistics the field publishes."""

from __future__ import annotations

import json
import sys
import time
from typing import Any

import click

from solve2048 import results as results_file
from solve2048 import stats
from solve2048.batch import (
    ADDRESS_FORMS,
    LOOK_AT,
    BatchError,
    ResultsKey,
    Settings,
    check_address,
    default_jobs,
    other_engine,
    other_tables,
    run_cluster,
    run_local,
    settings_of,
    stopped_rows,
)
from solve2048.board import Board
from solve2048.cli.exits import EXIT_BATCH_FAILED, EXIT_INTERRUPTED
from solve2048.cli.interrupt import terminate_as_interrupt
from solve2048.cli.params import BOARD, OUTPUT, SEED, TILE, InputError, close_quietly, game_settings_options
from solve2048.cli.plot import plot_option_callback, write_plot
from solve2048.cli.render import extras_text
from solve2048.cli.stats import load_results
from solve2048.cli.summary import summary_text
from solve2048.engine import ENGINE_ID, check_tt_mb
from solve2048.rng import MAX_SEED
from solve2048.settings import SearchSettings


class Progress:
    """A one-line progress bar on stderr, only when stderr is a terminal."""

    def __init__(self, total: int) -> None:
        self.total = total
        self.done = 0
        self.score_sum = 0
        self.start = time.perf_counter()
        self.enabled = sys.stderr.isatty() and total > 0

    def add(self, rows: list[dict[str, Any]]) -> None:
        self.done += len(rows)
        self.score_sum += sum(r["score"] for r in rows)
        if not self.enabled:
            return
        elapsed = time.perf_counter() - self.start
        eta = elapsed / self.done * (self.total - self.done)
        filled = int(30 * self.done / self.total)
        sys.stderr.write(
            f"\r[{'#' * filled}{'.' * (30 - filled)}] {self.done:,}/{self.total:,} games"
            f" · ETA {_clock(eta)} · mean score {self.score_sum / self.done:,.0f}\x1b[K"
        )
        sys.stderr.flush()

    def close(self) -> None:
        """Ends the bar's line, once: later calls do nothing."""
        if self.enabled:
            sys.stderr.write("\n")
            self.enabled = False


def _clock(seconds: float) -> str:
    seconds = int(seconds)
    return f"{seconds // 3600}h{seconds // 60 % 60:02d}m" if seconds >= 3600 else f"{seconds // 60}m{seconds % 60:02d}s"


def _settings_text(settings: ResultsKey) -> str:
    (depth, prune, tt_mb, tables, time_ms, start, danger, quiescence, late, table_set, table_trust, stop_at, on,
     weights) = settings
    # Each table with the threshold it was played from: chain-10:512@0 entry-11:32@0.9 ...
    played = " ".join(f"{label}@{p:g}" for label, p in zip(table_set or (), table_trust or (), strict=True))
    tables_text = "no tables" if tables is None else f"tables at {tables} ({played})"
    time_text = "" if time_ms is None else f", {time_ms:g} ms per move"
    start_text = "" if start is None else f", from {Board.parse(start).notation()}"
    stop_text = ("" if stop_at is None else f", stopping at {stop_at}") + (", played on stopped games" if on else "")
    weights_text = "" if weights is None else ", weights given from Python"
    return (f"depth {depth}{extras_text(danger, quiescence, late)}, prune {prune}, tt-mb {tt_mb}, "
            f"{tables_text}{time_text}{start_text}{stop_text}{weights_text}")


def _look_hint(played: ResultsKey, wanted: ResultsKey) -> str:
    """Where a file differs from this run in its look alone (a file played
    before the default look, most likely), the options that go on with it."""
    if played[:LOOK_AT] + played[LOOK_AT + 2:] != wanted[:LOOK_AT] + wanted[LOOK_AT + 2:]:
        return ""
    quiescence, late = played[LOOK_AT], played[LOOK_AT + 1]
    options = f"--quiescence {'off' if quiescence is None else quiescence}"
    if late is not None:
        options += f" --late-quiescence {late}"
    return f" ({options} goes on with it)"


def _scheduler_callback(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    # Checked before anything starts: Dask itself fails on a malformed address
    # with a traceback, or waits on a port that never answers.
    if value is None:
        return None
    try:
        return check_address(value)
    except ValueError as error:
        raise click.BadParameter(str(error), ctx, param) from None


def _stopped_games(path: str, seed: int, games: int,
                   stop_at: int | None) -> tuple[dict[int, dict[str, Any]], int]:
    """The stopped games of results file ``path`` among seeds seed..seed+games-1,
    by seed. Seeds it lacks are left out (a file of games played on holds
    only the seeds that stopped before), but it must hold one of them."""
    by_seed = {row["seed"]: row for row in load_results(path, repair=False)}
    held = [by_seed[s] for s in range(seed, seed + games) if s in by_seed]
    if not held:
        raise InputError(f"{path} has no game of seeds {seed:,} to {seed + games - 1:,}; "
                         "--seed and --games choose games it holds")
    stopped = stopped_rows(held)
    if any(row.get("start") is not None for row in stopped.values()):
        # Its lines would record no start, and be read as games from two tiles.
        raise InputError(f"the games of {path} were played from a given board (--start); only games "
                         "from a new game are played on")
    below = next((row for row in stopped.values() if stop_at is not None and row["stop_at"] >= stop_at), None)
    if below is not None:
        raise click.BadParameter(f"the games of {path} stopped at {below['stop_at']}; a game played on stops "
                                 "at a bigger tile", param_hint="'--stop-at'")
    return stopped, len(held)


def _from_text(path: str, stopped: dict[int, dict[str, Any]], held: int, games: int) -> str:
    """What --from found: how many games stopped, ended, or are not in the file."""
    tiles = " or ".join(str(t) for t in sorted({row["stop_at"] for row in stopped.values()})) or "their tile"
    text = (f"playing on the {len(stopped):,} games of {path} that stopped at {tiles}; "
            f"the other {held - len(stopped):,} ended before it")
    return text + (f", and {games - held:,} seeds are not in it" if held < games else "")


class WriteFailed(Exception):
    """A finished game could not be written to --out: the batch stops."""

    def __init__(self, error: OSError) -> None:
        super().__init__(error.strerror or str(error))


@click.command()
@click.option("-n", "--games", type=click.IntRange(1, 10**9), required=True, help="Number of games.")
@click.option("-s", "--seed", type=SEED, default=0, show_default=True, help="Game i uses seed SEED + i.")
@click.option("-j", "--jobs", type=click.IntRange(1, 4096), default=None, help="Worker processes [default: all cores].")
@click.option("-o", "--out", "out_path", type=OUTPUT, default=None,
              help="Append one line per finished game; an existing file is resumed.")
@click.option("--json", "as_json", is_flag=True, help="Print the summary as one JSON object.")
@click.option("--plot", "plot_path", type=OUTPUT, default=None, callback=plot_option_callback,
              help="Write reach rates and the score distribution to this file, in the format its "
                   "extension names (.png, .pdf, .svg, ...; needs matplotlib).")
@click.option("--scheduler", default=None, metavar="ADDRESS", callback=_scheduler_callback,
              help=f"Run on a Dask distributed cluster at {ADDRESS_FORMS}, e.g. tcp://10.0.0.5:8786 "
                   "(needs the cluster extra).")
@click.option("--start", "start", type=BOARD, default=None,
              help="Play every game from this board instead of a new game (game i's spawns from seed SEED + i).")
@click.option("--stop-at", "stop_at", type=TILE, default=None,
              help="Stop each game at the move that first makes this tile, keeping what playing it on needs "
                   "(see --from).")
@click.option("--from", "from_path", type=click.Path(dir_okay=False), default=None, metavar="FILE",
              help="Play on the games of this results file that stopped (--stop-at), each from where it "
                   "stopped, with its own spawns to come, under this run's settings; games that ended, and seeds "
                   "it lacks, are left out.")
@game_settings_options
def batch(games: int, seed: int, jobs: int | None, out_path: str | None, as_json: bool, plot_path: str | None,
          scheduler: str | None, start: Board | None, stop_at: int | None, from_path: str | None,
          settings: SearchSettings) -> None:
    """Play many seeded games and print the statistics the field publishes.

    With --out, every finished game is written at once; running the same command
    again resumes, playing only the seeds not yet in the file. Ctrl-C (or
    SIGTERM) keeps every finished game (exit code 130); so does a write to --out
    that fails (a full disk): the batch stops at once, exit code 1.
    """
    if seed + games - 1 > MAX_SEED:
        raise click.BadParameter("seed + games must stay below 2**64", param_hint="'--seed'")
    rows = load_results(out_path, repair=True) if out_path else []
    if start is not None and not any(start.cells):
        raise click.BadParameter("a game cannot start from the empty board", param_hint="'--start'")
    if start is not None and stop_at is not None and start.max_tile >= stop_at:
        raise click.BadParameter(f"the start board holds {start.max_tile} already", param_hint="'--stop-at'")
    if start is not None and from_path is not None:
        raise click.UsageError("--start and --from cannot go together: a game starts from one board or plays on "
                               "a stopped game")
    stopped, from_held = _stopped_games(from_path, seed, games, stop_at) if from_path else (None, 0)
    batch_settings = Settings.of(settings, start, stop_at, continues=from_path is not None)  # as sent to workers
    jobs = jobs or default_jobs()
    if not scheduler:
        try:  # every local worker makes a table of its own, all on this machine
            check_tt_mb(batch_settings.tt_mb, copies=min(jobs, games))
        except ValueError as error:
            raise click.BadParameter(str(error), param_hint="'--tt-mb'") from None
    wanted = batch_settings.results_key
    other = sorted({settings_of(r) for r in rows} - {wanted}, key=str)
    if other:
        raise InputError(f"{out_path} holds games at {_settings_text(other[0])}; "
                         f"this run is {_settings_text(wanted)}{_look_hint(other[0], wanted)}")
    engine = other_engine(rows)
    if engine is not None:
        raise InputError(f"{out_path} holds games played by another engine ({engine}; this one is {ENGINE_ID}): "
                         f"its games would not be this engine's, so play into another file")
    table = other_tables(rows, batch_settings)
    if table is not None:
        raise InputError(f"{out_path} holds games played with other entries in table {table}: "
                         f"its games would not be these tables', so play into another file")
    done = {r["seed"] for r in rows}
    todo = [s for s in range(seed, seed + games) if s not in done and (stopped is None or s in stopped)]
    if stopped is not None and not as_json:
        click.echo(_from_text(from_path or "", stopped, from_held, games), err=True)
    if done and not as_json:
        click.echo(f"resuming {out_path}: {len(done):,} games done, {len(todo):,} to play", err=True)

    try:
        # Closed by close_quietly in the finally below, not by a with: after a failed
        # write, closing would raise again over the error that ended the run.
        out = open(out_path, "a", encoding="utf-8") if out_path else None  # noqa: SIM115
    except OSError as error:
        raise InputError(f"cannot write {out_path}: {error.strerror or error}") from None
    progress = Progress(len(todo))
    new_rows: list[dict[str, Any]] = []

    def on_rows(chunk: list[dict[str, Any]]) -> None:
        for row in chunk:
            if settings_of(row) != wanted:  # a worker of a cluster running another solve2048
                raise BatchError(f"a worker played seed {row['seed']} at {_settings_text(settings_of(row))}, "
                                 f"not {_settings_text(wanted)}: does every machine run this solve2048?")
            if other_engine([row]) is not None:
                raise BatchError(f"a worker played seed {row['seed']} with engine {row['engine']}, not "
                                 f"{ENGINE_ID}: does every machine run this solve2048?")
            if out:
                try:
                    results_file.append_row(out, row)
                except OSError as error:
                    raise WriteFailed(error) from None
            new_rows.append(row)
        progress.add(chunk)

    interrupted = False
    failure = None
    try:
        with terminate_as_interrupt():
            if scheduler:
                run_cluster(todo, batch_settings, scheduler, on_rows, stopped)
            else:
                run_local(todo, batch_settings, jobs, on_rows, stopped)
    except KeyboardInterrupt:
        interrupted = True
    except BatchError as error:
        failure = str(error)
    except WriteFailed as error:
        # The workers are stopped already; every line written before is whole.
        failure = (f"cannot write {out_path}: {error}; the {len(rows) + len(new_rows):,} finished games "
                   f"written before it are kept ({len(new_rows):,} from this run)")
    finally:
        progress.close()
        if out:
            close_quietly(out)
    if failure:
        click.echo(f"solve2048: error: {failure}", err=True)
        sys.exit(EXIT_BATCH_FAILED)

    everything = rows + new_rows
    summary = stats.summarize(everything, depth=batch_settings.depth)
    if as_json:
        click.echo(json.dumps(summary))
    else:
        click.echo(summary_text(summary))
        if interrupted:
            click.echo(f"interrupted: {len(new_rows):,} new games kept" + (f" in {out_path}" if out_path else ""))
    if plot_path and everything:
        write_plot(plot_path, summary, [r["score"] for r in everything])
    if interrupted:
        sys.exit(EXIT_INTERRUPTED)
