"""Many games at once: local worker processes or a Dask cluster, streamed back.

Game i of a batch uses seed S + i, so any game can be replayed alone with
``solve2048 play --seed S+i``. Games are sent out in chunks sized to take about
CHUNK_SECONDS each (one game a chunk when games are slow), results come back as
chunks finish, and the caller writes each one before the next arrives.
"""

from __future__ import annotations

import asyncio
import concurrent.futures as cf
import ipaddress
import math
import multiprocessing
import multiprocessing.context
import os
import re
import signal
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from pathlib import Path
from types import FrameType
from typing import Any, TypeVar

from solve2048.board import Board
from solve2048.engine import (
    DEFAULT_PRUNE,
    DEFAULT_TT_MB,
    ENGINE_ID,
    LEGACY_PRUNE,
    Prune,
    Weights,
    check_prune,
    check_tt_mb,
)
from solve2048.errors import InvalidArgumentError, Solve2048Error
from solve2048.selfplay import Game, GameResult, GameState, check_seed, check_stop_tile
from solve2048.settings import (
    NOT_GIVEN,
    Depth,
    SearchSettings,
    check_deepening,
    check_depth,
    check_time,
    settle_look,
)
from solve2048.tables import DEFAULT_MIN_PROBABILITY, TableSet
from solve2048.tables import load as load_tables

CHUNK_SECONDS = 0.25
MAX_CHUNK = 1024
# How often a local worker checks that the batch that started it is still there.
PARENT_POLL_SECONDS = 0.5
# How often a batch looks for a Ctrl-C or SIGTERM it holds (_held_stop_signals).
SIGNAL_POLL_SECONDS = 0.1
# Dask's own timeout covers connecting, not the scheduler's answer: a port that
# accepts and stays silent would hang forever, so the caller stops waiting at
# CONNECT_SECONDS plus a little.
CONNECT_SECONDS = 10
CONNECT_GRACE = 2
# A scheduler with no worker would hold every game forever: a batch waits this
# long for a first worker to join, then says so.
WORKER_WAIT_SECONDS = 30.0
# What a results line records of its settings, as settings_of reads it: the
# depth as text, prune, tt_mb, the tables' threshold (None: off), time_ms, the
# start board, danger, quiescence, late quiescence, the labels of the tables
# played with (None: off), each one's threshold (None: off), the tile the
# games stop at (None: none), whether they play on stopped games, and the
# heuristic's weights given from Python (None: those the search chooses).
ResultsKey = tuple[str, Prune, float, float | None, float | None, str | None, int | None, int | None, int | None,
                   tuple[str, ...] | None, tuple[float, ...] | None, int | None, bool,
                   tuple[tuple[str, float], ...] | None]
LOOK_AT = 7  # where a ResultsKey holds the quiescence, the late quiescence next
# The tables a line that names none was played with: the default set until
# the chain table of anchor 1024 joined it (2026-12-01), in TableSet.specs order.
LEGACY_TABLE_SET = ("entry-11:32", "entry-11:64", "entry-11:128", "chain-10:512")
# The thresholds of a line that records none (before 2026-12-02): by shape,
# chain tables from 0, entry tables from 0.9, the others from the line's "tables".
LEGACY_MIN_BY_SHAPE = {"chain": 0.0, "entry": 0.9}


@dataclass(frozen=True)
class Settings:
    """What every game of a batch is played with: a SearchSettings as it
    travels to a worker process, which loads the tables again from their
    folder (loaded tables are memory maps, and stay in the process that has them)."""

    depth: Depth = "auto"
    time_ms: float | None = None
    prune: Prune = DEFAULT_PRUNE
    tt_mb: float = DEFAULT_TT_MB
    tables_dir: str | None = None   # None: search every move
    table_min_prob: float = DEFAULT_MIN_PROBABILITY
    table_set: tuple[str, ...] = ()  # the caller's tables (TableSpec.label), in TableSet.specs order:
                                     # every worker must find the same ones
    table_trust: tuple[float, ...] = ()  # each one's threshold (TableSet.thresholds)
    table_sums: tuple[str, ...] = ()  # each one's checksum (TableSet.sums); () when not known
    weights: Weights | None = None  # None: as SearchSettings chooses beside the tables
    start: str | None = None        # every game from this board (its hex), else a new game
    danger: int | None = None       # as SearchSettings.danger
    quiescence: int | None = NOT_GIVEN   # as SearchSettings.quiescence
    late_quiescence: int | None = NOT_GIVEN  # as SearchSettings.late_quiescence
    stop_at: int | None = None      # every game stops at the first move that makes this tile (Game's stop_at)
    continues: bool = False         # every game plays on a stopped game (play_seeds' stopped)

    @classmethod
    def of(cls, search: SearchSettings, start: Board | None = None, stop_at: int | None = None,
           continues: bool = False) -> Settings:
        """The batch settings of ``search``, whose tables (if any) came from a
        folder; with ``start``, every game is played from that board; with
        ``stop_at``, it stops at that tile; with ``continues``, it plays on
        from where a stopped game of its seed stopped."""
        tables = search.tables
        if tables is not None and tables.directory is None:
            raise InvalidArgumentError("a batch needs tables loaded from a folder (solve2048.tables.load)")
        return cls(depth=search.depth, time_ms=search.time_ms, prune=search.prune, tt_mb=search.tt_mb,
                   tables_dir=str(tables.directory) if tables is not None else None,
                   table_min_prob=tables.min_probability if tables is not None else DEFAULT_MIN_PROBABILITY,
                   table_set=tuple(spec.label for spec in tables.specs) if tables is not None else (),
                   table_trust=tables.thresholds if tables is not None else (),
                   table_sums=(tables.sums or ()) if tables is not None else (),
                   weights=search.weights,
                   start=start.hex() if start is not None else None, danger=search.danger, quiescence=search.quiescence,
                   late_quiescence=search.late_quiescence, stop_at=stop_at, continues=continues)

    @property
    def results_key(self) -> ResultsKey:
        """What ``settings_of`` reads from the lines these settings write."""
        return (str(self.depth), self.prune, self.tt_mb, self.tables_tag, self.time_ms, self.start, self.danger,
                self.quiescence, self.late_quiescence, self.table_set_tag, self.table_trust_tag, self.stop_at,
                self.continues, weights_tag(weights_json(self.weights)))

    def search_settings(self, tables: TableSet | None) -> SearchSettings:
        # One thread a game: a batch plays as many games at once as it has cores.
        return SearchSettings(depth=self.depth, time_ms=self.time_ms, prune=self.prune, tt_mb=self.tt_mb,
                              weights=self.weights, tables=tables, threads=1, danger=self.danger,
                              quiescence=self.quiescence, late_quiescence=self.late_quiescence)

    def __post_init__(self) -> None:
        # Checked here, in the caller's process: a bad setting found by a worker
        # would come back as a remote traceback, once per chunk.
        check_depth(self.depth)
        check_time(self.time_ms)
        check_deepening(self.danger, self.depth, self.time_ms)
        settle_look(self)
        check_prune(self.prune)
        # One table per worker; the workers of a cluster have memory of their
        # own, so the caller checks how many share this machine (check_tt_mb).
        check_tt_mb(self.tt_mb)
        if not (_is_real(self.table_min_prob) and 0 <= self.table_min_prob <= 1):
            raise InvalidArgumentError(f"expected a table threshold from 0 to 1, got {self.table_min_prob!r}")
        if not isinstance(self.table_set, tuple) or not all(isinstance(label, str) for label in self.table_set):
            raise InvalidArgumentError(f"expected the tables' labels as a tuple of text, got {self.table_set!r}")
        if (not isinstance(self.table_trust, tuple) or len(self.table_trust) != len(self.table_set)
                or not all(_is_real(p) and 0 <= p <= 1 for p in self.table_trust)):
            raise InvalidArgumentError(f"expected a threshold from 0 to 1 for each of the {len(self.table_set)} "
                                       f"tables, got {self.table_trust!r}")
        if (not isinstance(self.table_sums, tuple) or len(self.table_sums) not in (0, len(self.table_set))
                or not all(isinstance(s, str) and _SUM.fullmatch(s) for s in self.table_sums)):
            raise InvalidArgumentError(f"expected a checksum of 16 hex digits for each of the {len(self.table_set)} "
                                       f"tables, or none, got {self.table_sums!r}")
        if self.start is not None and (not isinstance(self.start, str) or not any(Board.parse(self.start).cells)):
            raise InvalidArgumentError(f"expected a start board in hex with a tile on it, got {self.start!r}")
        if self.stop_at is not None:
            check_stop_tile(self.stop_at)
        if self.start is not None and self.stop_at is not None and Board.parse(self.start).max_tile >= self.stop_at:
            raise InvalidArgumentError(f"the start board holds {Board.parse(self.start).max_tile} already, "
                                       f"so its games would never stop at {self.stop_at}")
        if self.continues and self.start is not None:
            raise InvalidArgumentError("games either start from a board or play on stopped games")

    @property
    def tables_tag(self) -> float | None:
        """What a results line records of the tables: the threshold, or None when off."""
        return self.table_min_prob if self.tables_dir else None

    @property
    def table_set_tag(self) -> tuple[str, ...] | None:
        """Which tables a results line was played with: their labels, or None when off."""
        return self.table_set if self.tables_dir else None

    @property
    def table_trust_tag(self) -> tuple[float, ...] | None:
        """Each table's threshold, as a results line records it, or None when off."""
        return self.table_trust if self.tables_dir else None

    @property
    def table_sums_tag(self) -> tuple[str, ...] | None:
        """Each table's checksum, as a results line records it, or None when off or not known."""
        return self.table_sums if self.tables_dir and self.table_sums else None


_SUM = re.compile(r"[0-9a-f]{16}")  # a table's checksum, as TableSet.sums writes it


def _is_real(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


class BatchError(Solve2048Error, RuntimeError):
    """The batch could not go on (a worker died, the cluster failed)."""


def game_row(result: GameResult, settings: Settings | None = None) -> dict[str, Any]:
    """One line of a results file."""
    settings = settings or Settings(depth=result.depth, time_ms=result.time_ms, danger=result.danger,
                                    quiescence=result.quiescence, late_quiescence=result.late_quiescence)
    return {
        "seed": result.seed,
        "depth": result.depth,
        "score": result.score,
        "max_tile": result.max_tile,
        "moves": result.moves,
        "won": result.won,
        "won_at_move": result.won_at_move,
        "seconds": result.seconds,
        "prune": settings.prune,
        "tt_mb": settings.tt_mb,
        "tables": settings.tables_tag,
        "table_set": list(settings.table_set_tag) if settings.table_set_tag is not None else None,
        "table_trust": list(settings.table_trust_tag) if settings.table_trust_tag is not None else None,
        "table_sums": list(settings.table_sums_tag) if settings.table_sums_tag is not None else None,
        "table_moves": result.table_moves,
        "time_ms": settings.time_ms,
        "danger": settings.danger,
        "quiescence": settings.quiescence,
        "late_quiescence": settings.late_quiescence,
        "start": settings.start,
        "final_board": result.final_board.hex(),
        "uncovered_moves": result.uncovered_moves,
        "last_covered": result.last_covered,
        "last_probability": result.last_probability,
        "last_table": result.last_table,
        "last_trusted": result.last_trusted,
        "stretch_start": result.stretch_start,
        "stretch_probability": result.stretch_probability,
        "engine": ENGINE_ID,
        "stop_at": settings.stop_at,
        "state": result.state.to_json() if result.state is not None else None,
        "continued_at": result.continued_at,
        "continued_at_seconds": result.continued_at_seconds,
        "weights": weights_json(settings.weights),
    }


def _batch_settings(settings: Settings | SearchSettings) -> Settings:
    return Settings.of(settings) if isinstance(settings, SearchSettings) else settings


def settings_of(row: dict[str, Any]) -> ResultsKey:
    """The settings a results line was played with (lines without prune, tt_mb,
    tables, time_ms, danger, table_set, table_trust, quiescence or late_quiescence were
    played with the defaults of their time: prune 1e-4, no tables, no time limit, never
    deeper, the 4-table set, the thresholds by shape, plain leaves, one quiescence for the
    whole game)."""
    table_set, table_trust = row.get("table_set"), row.get("table_trust")
    if row.get("tables") is None:
        table_set = table_trust = None
    else:
        if table_set is None:
            table_set = LEGACY_TABLE_SET
        if table_trust is None:
            table_trust = [legacy_threshold(label, row["tables"]) for label in table_set]
    return (str(row.get("depth")), row.get("prune", LEGACY_PRUNE), row.get("tt_mb", DEFAULT_TT_MB),
            row.get("tables"), row.get("time_ms"), row.get("start"), row.get("danger"), row.get("quiescence"),
            row.get("late_quiescence"), tuple(table_set) if table_set is not None else None,
            tuple(table_trust) if table_trust is not None else None, row.get("stop_at"),
            row.get("continued_at") is not None, weights_tag(row.get("weights")))


def weights_json(weights: Weights | None) -> dict[str, float] | None:
    """The weights a results line records: each by name, or None for the
    weights the search chooses (SearchSettings.search_weights)."""
    return None if weights is None else {name: float(value) for name, value in asdict(weights).items()}


def weights_tag(weights: dict[str, float] | None) -> tuple[tuple[str, float], ...] | None:
    """The recorded weights as a ResultsKey holds them."""
    return None if weights is None else tuple(sorted(weights.items()))


def other_engine(rows: Iterable[dict[str, Any]]) -> str | None:
    """The first engine id among ``rows`` that is not this one's (ENGINE_ID), or
    None. Lines written before lines recorded it say nothing, and are taken
    for this engine's when their settings match."""
    return next((row["engine"] for row in rows if row.get("engine") not in (None, ENGINE_ID)), None)


def other_tables(rows: Iterable[dict[str, Any]], settings: Settings) -> str | None:
    """Which table of ``settings`` the first line played with other entries
    than these (its label, then both checksums), or None. Lines that record no
    checksums (before 2026-12-05, or without tables) say nothing, and are taken
    for these tables' when their settings match."""
    wanted = settings.table_sums_tag
    if wanted is None:
        return None
    expected = list(wanted)   # as a line holds it
    found = next((row["table_sums"] for row in rows if row.get("table_sums") not in (None, expected)), None)
    if found is None:
        return None
    label, there, here = _first_difference(settings.table_set, found, wanted)
    return f"{label} (checksum {there} in the file, {here} here)"


def _first_difference(labels: Iterable[str], these: Iterable[object],
                      those: Iterable[object]) -> tuple[str, object, object]:
    """The first label whose two values differ, with both ("the set" when
    the two lists differ only in length)."""
    return next(((label, a, b) for label, a, b in zip(labels, these, those, strict=False) if a != b),
                ("the set", None, None))


def legacy_threshold(label: str, min_probability: float) -> float:
    """The threshold a table of ``label`` was played from before lines recorded one."""
    shape = label.split("-")[0] if "-" in label else "snake"
    return LEGACY_MIN_BY_SHAPE.get(shape, min_probability)


def play_seeds(seeds: list[int], settings: Settings,
               stopped: dict[int, dict[str, Any]] | None = None) -> list[dict[str, Any]]:
    """Plays one game per seed; the unit of work sent to a worker. With
    ``settings.continues``, each plays on the stopped game of its seed in
    ``stopped`` (its results line)."""
    search = settings.search_settings(_worker_tables(settings))
    if settings.continues and (stopped is None or any(seed not in stopped for seed in seeds)):
        raise InvalidArgumentError("games played on need the stopped game of every seed")
    return [game_row(Game(seed, search, start=settings.start, stop_at=settings.stop_at,
                          resume=stopped_game(stopped[seed]) if settings.continues and stopped else None).run(),
                     settings)
            for seed in seeds]


def stopped_rows(rows: Iterable[dict[str, Any]]) -> dict[int, dict[str, Any]]:
    """The stopped games among results lines, by seed: those a run can play on."""
    return {row["seed"]: row for row in rows if row.get("state") is not None}


def stopped_game(row: dict[str, Any]) -> GameResult:
    """The stopped game a results line (checked by results.check_game) records,
    ready for Game(resume=...)."""
    if row.get("state") is None:
        raise InvalidArgumentError(f"game {row['seed']} ended; only a stopped game can be played on")
    return GameResult(
        seed=row["seed"], depth=row["depth"], score=row["score"], max_tile=row["max_tile"], moves=row["moves"],
        won=row.get("won_at_move") is not None, won_at_move=row.get("won_at_move"), seconds=row["seconds"],
        final_board=Board.parse(row["final_board"]), table_moves=row.get("table_moves") or 0,
        uncovered_moves=row.get("uncovered_moves") or 0, last_covered=row.get("last_covered") or 0,
        last_probability=row.get("last_probability"), stretch_start=row.get("stretch_start") or 0,
        stretch_probability=row.get("stretch_probability"), stop_at=row["stop_at"],
        state=GameState.from_json(row["state"]), continued_at=row.get("continued_at"),
        continued_at_seconds=row.get("continued_at_seconds"))


_loaded_tables: dict[tuple[str, float], TableSet] = {}


def _worker_tables(settings: Settings) -> TableSet | None:
    """The tables of a worker process, loaded once (memory-mapped, so the
    processes share one copy). A worker that finds fewer tables (another
    machine of a cluster) stops the batch rather than play weaker games under
    the caller's settings. It checks its files' entries itself: on another
    machine they are other files than the ones the caller checked, and a
    damaged one may keep a sound header, whose checksum ``table_sums``
    compares. On the caller's machine the stamps its check left make this free."""
    if settings.tables_dir is None:
        return None
    key = (settings.tables_dir, settings.table_min_prob)
    if key not in _loaded_tables:
        installed = load_tables(Path(settings.tables_dir), min_probability=settings.table_min_prob)
        if installed.problems:
            raise BatchError(f"a worker cannot play its tables: {installed.problems[0]}")
        tables = installed.tables
        found = tuple(spec.label for spec in tables.specs)
        if len(tables) != len(settings.table_set):
            raise BatchError(f"a worker found {len(tables)} of the {len(settings.table_set)} endgame "
                             f"tables in {settings.tables_dir}; install the same tables on every "
                             "worker, or play without tables")
        if found != settings.table_set:
            raise BatchError(f"a worker found the tables {' '.join(found)} in {settings.tables_dir}, not "
                             f"{' '.join(settings.table_set)}; install the same tables on every worker")
        if tables.thresholds != settings.table_trust:  # another solve2048, with other thresholds
            raise BatchError(f"a worker plays its tables from {tables.thresholds}, not {settings.table_trust}: "
                             "does every machine run this solve2048?")
        if settings.table_sums and tables.sums != settings.table_sums:  # the same labels, other entries
            label = _first_difference(found, tables.sums or (), settings.table_sums)[0]
            raise BatchError(f"a worker's table {label} in {settings.tables_dir} holds other entries than the "
                             "caller's (another checksum); install the same tables on every worker")
        _loaded_tables[key] = tables
    return _loaded_tables[key]


def _start_worker(batch: int) -> None:
    """A local worker's first step; ``batch`` is the pid of the batch that started it."""
    # Workers leave Ctrl-C to the parent, which stops them and keeps what is done.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    threading.Thread(target=_end_with_batch, args=(batch,), name="solve2048-batch-watch", daemon=True).start()


def _end_with_batch(batch: int) -> None:
    """Ends the worker once its batch is gone. A batch killed outright
    (SIGKILL) cannot stop its workers, which would play on, unseen, through
    their game and the chunks queued for them. (Their parent is the fork
    server, which outlives the batch, so the batch itself is watched.) The
    games run in C without the GIL, so this thread is woken in time."""
    while _alive(batch):
        time.sleep(PARENT_POLL_SECONDS)
    os._exit(1)


def _alive(pid: int) -> bool:
    """Whether process ``pid`` runs: it exists and, where /proc tells, is not a zombie."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0]
    except (OSError, IndexError):
        return True
    return state not in ("Z", "X")


class _ChunkPlanner:
    """Hands out seeds in chunks sized from the average time of finished games."""

    def __init__(self, seeds: Iterable[int]) -> None:
        self.pending = [check_seed(seed) for seed in seeds]
        self.games = 0
        self.seconds = 0.0

    def record(self, rows: list[dict[str, Any]]) -> None:
        self.games += len(rows)
        self.seconds += sum(r["seconds"] for r in rows)

    def next_chunk(self) -> list[int]:
        if self.games == 0:
            size = 1
        else:
            per_game = max(self.seconds / self.games, 1e-6)
            size = max(1, min(MAX_CHUNK, int(CHUNK_SECONDS / per_game)))
        chunk, self.pending = self.pending[:size], self.pending[size:]
        return chunk


def _stopped_of(chunk: list[int], stopped: dict[int, dict[str, Any]] | None) -> dict[int, dict[str, Any]] | None:
    """The stopped games a chunk of seeds plays on (play_seeds' ``stopped``)."""
    return None if stopped is None else {seed: stopped[seed] for seed in chunk}


def run_local(seeds: Iterable[int], settings: Settings | SearchSettings, jobs: int,
              on_rows: Callable[[list[dict[str, Any]]], None],
              stopped: dict[int, dict[str, Any]] | None = None) -> None:
    """Plays the seeds on ``jobs`` local worker processes; calls ``on_rows`` with
    each finished chunk, in the parent, as soon as it is back. ``stopped``: the
    results line of each seed's stopped game, when the games play on them."""
    settings = _batch_settings(settings)
    if isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 1:
        raise InvalidArgumentError(f"expected 1 or more worker processes, got {jobs!r}")
    planner = _ChunkPlanner(seeds)
    executor = cf.ProcessPoolExecutor(max_workers=jobs, initializer=_start_worker, initargs=(os.getpid(),),
                                      mp_context=_worker_context())
    in_flight: set[cf.Future[list[dict[str, Any]]]] = set()
    with _held_stop_signals() as deliver_held_signal:
        try:
            while planner.pending or in_flight:
                while planner.pending and len(in_flight) < 2 * jobs:
                    chunk = planner.next_chunk()
                    try:
                        future = executor.submit(play_seeds, chunk, settings, _stopped_of(chunk, stopped))
                    except cf.process.BrokenProcessPool:
                        # A worker died since the last wait: the pool refuses new
                        # work, and what finished before is kept.
                        _keep_finished(in_flight, planner, on_rows)
                        raise _worker_died() from None
                    in_flight.add(future)
                done, in_flight = cf.wait(in_flight, timeout=SIGNAL_POLL_SECONDS, return_when=cf.FIRST_COMPLETED)
                _keep_finished(done, planner, on_rows)
                deliver_held_signal()
        except BaseException:
            _stop_workers(executor)
            raise
        executor.shutdown(wait=True)
    deliver_held_signal()


@contextmanager
def _held_stop_signals() -> Iterator[Callable[[], None]]:
    """Holds Ctrl-C and SIGTERM, where the caller handles them in Python, until
    the batch calls the function it yields, between two waits on the pool
    (or the cluster), where no game's rows are half handed on.

    Python raises a handler's KeyboardInterrupt at whatever line the main
    thread is on. Inside concurrent.futures' wait that can be between taking
    one future's lock and the next: the pool's manager thread then waits on
    that lock for ever, and so does the interpreter's exit, which joins it
    (the batch printed its summary and never ended). Here the handler only
    notes the signal, and the caller's own handler runs where the batch holds
    no lock of the pool. Signals left to the system (the default SIGTERM) or
    ignored are not touched, nor is anything outside the main thread, where
    no handler can be set."""
    held: list[tuple[int, FrameType | None]] = []
    handlers: dict[int, Callable[[int, FrameType | None], Any]] = {}

    def deliver() -> None:
        if held:
            number, frame = held[0]
            held.clear()
            handlers[number](number, frame)

    if threading.current_thread() is not threading.main_thread():
        yield deliver
        return
    for number in (signal.SIGINT, signal.SIGTERM):
        handler = signal.getsignal(number)
        if callable(handler):
            handlers[number] = handler
            signal.signal(number, lambda number, frame: held.append((number, frame)))
    try:
        yield deliver
    finally:
        for held_number, handler in handlers.items():
            signal.signal(held_number, handler)


def _worker_died() -> BatchError:
    return BatchError("a worker process died; the finished games are saved, "
                      "run the same command again to play the rest")


def _keep_finished(futures: Iterable[cf.Future[list[dict[str, Any]]]], planner: _ChunkPlanner,
                   on_rows: Callable[[list[dict[str, Any]]], None]) -> None:
    """Hands on the rows of every future that finished with them, then raises
    a BatchError for the first that failed: a dead worker, or a game's error
    as one line."""
    failure: BaseException | None = None
    for future in futures:
        if not future.done():
            continue
        error = future.exception()
        if error is None:
            rows = future.result()
            planner.record(rows)
            on_rows(rows)
        elif failure is None:
            failure = error
    if failure is None:
        return
    if isinstance(failure, cf.process.BrokenProcessPool):
        raise _worker_died() from None
    if isinstance(failure, BatchError):
        raise failure
    raise BatchError(f"a game failed in a worker: {_describe(failure)}") from None


def _worker_context() -> multiprocessing.context.BaseContext:
    # Workers are never forked from the caller, which may have threads (a forked
    # child of a threaded process can deadlock): a fork server where there is
    # one, else fresh interpreters.
    methods = multiprocessing.get_all_start_methods()
    return multiprocessing.get_context("forkserver" if "forkserver" in methods else "spawn")


def _stop_workers(executor: cf.ProcessPoolExecutor) -> None:
    """Stops a local pool at once: its games in progress are abandoned."""
    processes = list(getattr(executor, "_processes", {}).values())
    manager = getattr(executor, "_executor_manager_thread", None)  # shutdown() forgets it
    executor.shutdown(wait=False, cancel_futures=True)
    for process in processes:
        if process.is_alive():
            process.terminate()
    for process in processes:
        process.join(timeout=5)
    # The pool's manager thread closes its wake-up pipe once it sees the
    # workers gone. Were it still at that when the interpreter exits,
    # concurrent.futures' exit hook could write to the pipe as it closes
    # (CPython 3.11 checks, then writes, without a lock) and print a
    # traceback under the batch's one-line error. Waiting for the thread
    # here leaves the hook a closed pipe, which it skips.
    if manager is not None:
        manager.join(timeout=5)


# Labels as RFC 1123 has them, and the underscores of container service names.
_HOST_LABEL = r"[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?"
_ADDRESS = re.compile(
    r"(?:(?P<scheme>tcp|tls)://)?"
    rf"(?:\[(?P<ipv6>[0-9A-Fa-f:.]+)\]|(?P<host>{_HOST_LABEL}(?:\.{_HOST_LABEL})*))"
    r":(?P<port>[0-9]{1,5})"
)
ADDRESS_FORMS = "tcp://HOST:PORT, tls://HOST:PORT or HOST:PORT"


def check_address(address: str) -> str:
    """Returns a Dask scheduler address if it has the shape of one, else raises
    ValueError. Accepted: tcp://HOST:PORT, tls://HOST:PORT and HOST:PORT (tcp),
    HOST a name, an IPv4 address or a bracketed IPv6 one, PORT 1-65535. Dask's
    other schemes (inproc, ucx, ws) cannot be reached from a command line or
    need extras this package does not set up."""
    match = _ADDRESS.fullmatch(address) if isinstance(address, str) else None
    if match is None:
        raise InvalidArgumentError(f"expected {ADDRESS_FORMS}, got {address!r}")
    if not 1 <= int(match["port"]) <= 65535:
        raise InvalidArgumentError(f"expected a port from 1 to 65535, got {match['port']} in {address!r}")
    if match["ipv6"] is not None:
        try:
            ipaddress.IPv6Address(match["ipv6"])
        except ValueError:
            raise InvalidArgumentError(f"{match['ipv6']!r} is not an IPv6 address, in {address!r}") from None
    if match["host"] is not None and len(match["host"]) > 253:
        raise InvalidArgumentError(f"the host name is longer than 253 characters, in {address!r}")
    return address


def _describe(error: BaseException) -> str:
    text = str(error).strip().splitlines()
    return f"{type(error).__name__}: {text[0]}" if text else type(error).__name__


_Client = TypeVar("_Client")


def _connect(client_class: Callable[..., _Client], address: str) -> _Client:
    """A Dask client connected to ``address``, or BatchError within
    CONNECT_SECONDS + CONNECT_GRACE. Connecting runs in a daemon thread, so that
    a scheduler that never answers is left behind instead of waited on."""
    outcome: dict[str, Any] = {}

    def attempt() -> None:
        try:
            outcome["client"] = client_class(address, timeout=f"{CONNECT_SECONDS}s")
        except BaseException as error:  # handed to the caller's thread
            outcome["error"] = error

    thread = threading.Thread(target=attempt, name="solve2048-dask-connect", daemon=True)
    thread.start()
    thread.join(CONNECT_SECONDS + CONNECT_GRACE)
    if "client" in outcome:
        client: _Client = outcome["client"]
        return client
    if thread.is_alive():
        reason = f"no answer in {CONNECT_SECONDS + CONNECT_GRACE} s (is it a Dask scheduler?)"
    else:
        reason = _describe(outcome["error"])
    raise BatchError(f"cannot reach the Dask scheduler at {address}: {reason}")


def run_cluster(seeds: Iterable[int], settings: Settings | SearchSettings, address: str,
                on_rows: Callable[[list[dict[str, Any]]], None],
                stopped: dict[int, dict[str, Any]] | None = None) -> None:
    """Plays the seeds on an existing Dask distributed cluster at ``address``
    (``stopped`` as for run_local). Workers must have solve2048 installed.
    Needs the ``cluster`` extra."""
    settings = _batch_settings(settings)
    check_address(address)
    planner = _ChunkPlanner(seeds)
    try:
        from distributed import Client, as_completed
    except ImportError:
        raise BatchError("a Dask cluster needs the cluster extra: pip install 'solve2048[cluster]'") from None
    client = _connect(Client, address)
    try:
        _wait_for_a_worker(client, address)
        workers = max(1, sum(client.nthreads().values()))
        futures = as_completed()
        def submit() -> None:
            chunk = planner.next_chunk()
            futures.add(client.submit(play_seeds, chunk, settings, _stopped_of(chunk, stopped), pure=False))

        for _ in range(2 * workers):
            if planner.pending:
                submit()
        with _held_stop_signals() as deliver_held_signal:
            idle = _IdleWait()
            while not futures.is_empty():
                finished = futures.next_batch(block=False)
                if finished:
                    idle.reset()
                for future in finished:
                    try:
                        rows = future.result()
                    except BatchError:
                        raise
                    except (Exception, asyncio.CancelledError) as error:  # a game, a worker or the scheduler
                        raise BatchError(f"a game failed on the cluster: {_describe(error)}") from None
                    planner.record(rows)
                    on_rows(rows)
                    if planner.pending:
                        submit()
                deliver_held_signal()
                if not futures.has_ready():
                    time.sleep(idle.next())
        deliver_held_signal()
    finally:
        client.close()


class _IdleWait:
    """How long the cluster loop sleeps before it looks for finished chunks
    again: FIRST_SECONDS after a chunk came back, doubling while none does, up
    to SIGNAL_POLL_SECONDS, so a held Ctrl-C still waits at most that. A
    fixed 0.1 s sleep kept a short batch's workers waiting for their next
    chunk: 300 games at depth 2 on two workers kept 1.66 of them busy against
    1.87 with 1 ms (bench/RESULTS.md, "The cluster loop's poll")."""

    FIRST_SECONDS = 0.001

    def __init__(self) -> None:
        self.seconds = self.FIRST_SECONDS

    def reset(self) -> None:
        self.seconds = self.FIRST_SECONDS

    def next(self) -> float:
        seconds = self.seconds
        self.seconds = min(2 * seconds, SIGNAL_POLL_SECONDS)
        return seconds


def _wait_for_a_worker(client: Any, address: str) -> None:
    try:
        client.wait_for_workers(1, timeout=WORKER_WAIT_SECONDS)
    except (TimeoutError, asyncio.TimeoutError):
        raise BatchError(f"the Dask scheduler at {address} has no worker (waited {WORKER_WAIT_SECONDS:g} s): "
                         f"start one with `dask worker {address}`") from None


def default_jobs() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
