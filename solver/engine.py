"""Thin typed wrapper over the compiled C engine (``solve2048._engine``).

Works on raw boards (ints: 64 bits, and above them the fifth bits of tiles past
32768; see ``split``); the ``Board`` value and the public API sit
on top of it. Every C status is checked here and turned into an exception.
"""

from __future__ import annotations

import functools
import math
import os
import struct
import threading
from dataclasses import dataclass, fields
from typing import TYPE_CHECKING, Any, NamedTuple

# Re-exported: the other modules take ffi and lib from here, so that
# s2048_init below has run before their first C call.
from solve2048._engine import ffi as ffi
from solve2048._engine import lib as lib
from solve2048.errors import InvalidArgumentError, OutOfMemoryError
from solve2048.moves import Move

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

lib.s2048_init()

# Which engine this is: a digest of the C sources it was built from. A results
# line records it, and a batch resumes only lines of its own engine.
ENGINE_ID: str = ffi.string(lib.s2048_engine_id()).decode("ascii")

MAX_DEPTH = 16
# Pruning: a chance node reached with a probability below the threshold is
# scored by the heuristic. "auto" scales it with the depth d searched, 2^-(d+4):
# at depths 4 and 5 that played 2.6 and 4.2 times faster than the fixed 1e-4
# used before, with mean scores unchanged within noise (bench/RESULTS.md,
# "Pruning: automatic against fixed").
PRUNE_AUTO = "auto"
Prune = float | str   # a threshold in 0..1, or PRUNE_AUTO
DEFAULT_PRUNE: Prune = PRUNE_AUTO
# What a results line recorded before pruning became automatic.
LEGACY_PRUNE = 1e-4
# Small enough to stay in the last-level cache: 4-8 MB searched depths 4-6 5-10%
# faster than 64 MB, with node counts within 0.1% (an A/B of the C search).
DEFAULT_TT_MB = 8

Bitboard = int
# Threads of one search: every core by default (SearchSettings.threads), at
# most S2048_MAX_THREADS (csrc/api.h).
MAX_THREADS = 64
DEFAULT_THREADS = max(1, min(MAX_THREADS, os.cpu_count() or 1))
# The tasks of a split search (csrc/search.c, MAX_TASKS): it uses no more
# threads than that, and no more tables of tt_mb.
SPLIT_TASKS = 8


def thread_tables(threads: int) -> int:
    """The transposition tables a searcher on ``threads`` threads may make."""
    return min(threads, SPLIT_TASKS)


@functools.cache
def physical_memory_mb() -> int | None:
    """This machine's memory in MB, or None where the system does not say.
    Asked once: two system calls on every SearchSettings cost 0.7 us."""
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") // (1 << 20)
    except (AttributeError, ValueError, OSError):
        return None


def max_tt_mb() -> int:
    """The largest transposition table allowed: half this machine's memory.
    The table is touched in full when it is made, so a size past what the
    machine holds would not fail cleanly: the kernel would kill the process."""
    memory = physical_memory_mb()
    return max(1, memory // 2) if memory else 1 << 20


def check_tt_mb(tt_mb: float, copies: int = 1) -> float:
    """Returns tt_mb, or raises ValueError unless ``copies`` tables of it (one
    per worker of a batch) fit in half of this machine's memory."""
    if isinstance(tt_mb, bool) or not isinstance(tt_mb, (int, float)) or not math.isfinite(tt_mb) \
            or tt_mb < 0:
        raise InvalidArgumentError(f"expected a transposition table size >= 0 MB, got {tt_mb!r}")
    limit = max_tt_mb()
    if tt_mb * copies > limit:
        each = f"{copies} tables of {tt_mb:g} MB" if copies > 1 else f"a table of {tt_mb:g} MB"
        raise InvalidArgumentError(f"{each} would not fit: this machine allows at most {limit:,} MB "
                         "(half its memory)")
    return tt_mb


def check_threads(threads: int) -> int:
    """Returns threads, or raises ValueError unless it is a whole number in 1..MAX_THREADS."""
    if isinstance(threads, bool) or not isinstance(threads, int) or not 1 <= threads <= MAX_THREADS:
        raise InvalidArgumentError(f"expected a thread count from 1 to {MAX_THREADS}, got {threads!r}")
    return threads


def check_prune(prune: Prune) -> Prune:
    """Returns prune, or raises ValueError unless it is "auto" or in 0..1."""
    if prune == PRUNE_AUTO:
        return prune
    if isinstance(prune, bool) or not isinstance(prune, (int, float)) or not 0.0 <= prune <= 1.0:
        raise InvalidArgumentError(f"expected a pruning threshold in 0..1 or 'auto', got {prune!r}")
    return float(prune)


def prune_threshold(prune: Prune, depth: int) -> float:
    """The threshold a search to ``depth`` uses."""
    return 2.0 ** -(depth + 4) if check_prune(prune) == PRUNE_AUTO else float(prune)


def engine_prune(prune: Prune) -> float:
    """prune as the C engine takes it (S2048_PRUNE_AUTO is -1)."""
    return -1.0 if check_prune(prune) == PRUNE_AUTO else float(prune)


def _check_cells(name: str, cells: int | None, low: int, high: int) -> int | None:
    """Returns cells, or raises ValueError unless it is None or a count of empty cells, low..high."""
    if cells is not None and (isinstance(cells, bool) or not isinstance(cells, int) or not low <= cells <= high):
        raise InvalidArgumentError(f"expected a number of empty cells from {low} to {high} for {name}, got {cells!r}")
    return cells


def check_danger(danger: int | None) -> int | None:
    """Returns danger, or raises ValueError unless it is None or a count of empty cells, 0..16."""
    return _check_cells("danger", danger, 0, 16)


def _engine_cells(cells: int | None) -> int:
    """A checked setting in empty cells as the C engine takes it: -1 for off (None)."""
    return -1 if cells is None else cells


def engine_danger(danger: int | None) -> int:
    """danger as the C engine takes it (-1: never deeper)."""
    return _engine_cells(check_danger(danger))


def check_quiescence(quiescence: int | None) -> int | None:
    """Returns quiescence, or raises ValueError unless it is None or a count of
    empty cells, 1..15: a leaf, a board after a move, holds a tile and has an
    empty cell, so 0 would look at none."""
    return _check_cells("quiescence", quiescence, 1, 15)


def engine_quiescence(quiescence: int | None) -> int:
    """quiescence as the C engine takes it (-1: no leaf looks further)."""
    return _engine_cells(check_quiescence(quiescence))


def check_late_quiescence(late_quiescence: int | None) -> int | None:
    """Returns late_quiescence (the quiescence of a board holding 32768 or
    more), or raises ValueError unless it is None or a count of empty cells,
    1..15, as quiescence."""
    return _check_cells("late quiescence", late_quiescence, 1, 15)


def engine_late_quiescence(late_quiescence: int | None) -> int:
    """late_quiescence as the C game loop takes it (-1: quiescence throughout)."""
    return _engine_cells(check_late_quiescence(late_quiescence))


# The look past crowded leaves that a search at a fixed depth up to
# LOOK_MAX_DEPTH, or at depth "auto", makes unless told otherwise
# (settings.given_look): quiescence 3 until the board holds 32768, 2 from
# then on. Over 1,000 paired games it gained at every depth from 1 to 5 (at
# 32768: 20.7 points at depth 3, 8.9 at depth 4, 4.4 at depth 5), at 0.3 to
# 0.7 of their moves/s; at depth 6, -4.0 ± 5.1 over 100 games, no gain for
# its cost (bench/RESULTS.md, "The default look"). Depth "auto", which
# searches 3 to 5, was measured with it (bench/RESULTS.md, "A stronger auto").
DEFAULT_QUIESCENCE = 3
DEFAULT_LATE_QUIESCENCE = 2
LOOK_MAX_DEPTH = 5
# The deepest depth "auto" picks (csrc/search.c, s2048_auto_depth); a server
# bounds an "auto" request by it.
AUTO_MAX_DEPTH = 5


# ---- rules -----------------------------------------------------------------


# A board of the whole ladder is one int: the 64-bit board of ranks modulo 16
# (one nibble a cell, see board.h) and, from bit 64 up, the 16-bit word of each
# cell's fifth bit (csrc/ladder.c). Below 65536 the word is 0 and the int is
# the 64-bit board itself; those boards keep the 64-bit fast paths.
LOW_BITS = 64
LOW_MASK = (1 << LOW_BITS) - 1


def split(board: Bitboard) -> tuple[int, int]:
    """(the 64-bit board of ranks modulo 16, the word of fifth bits)."""
    return board & LOW_MASK, board >> LOW_BITS


def join(low: int, high: int) -> Bitboard:
    return low | high << LOW_BITS


# s2048_move_full's gain when the move would merge two 32768s (csrc/api.h).
MOVE_OVERFLOWS = 0xFFFF_FFFF
_move_full = lib.s2048_move_full


def move(board: Bitboard, direction: int) -> tuple[Bitboard, int]:
    """Returns (board after the slide, points gained), tiles past 32768 included."""
    if board <= LOW_MASK:
        # One C call, whose struct is read twice: Board.move's cost is mostly
        # the calls across cffi (about 0.1 us each), so the 64-bit path makes one.
        moved = _move_full(board, direction)
        gain = moved.gain
        if gain != MOVE_OVERFLOWS:
            return moved.board, gain
    low, high = split(board)
    out_low, out_high, gain = ffi.new("uint64_t *"), ffi.new("uint16_t *"), ffi.new("uint32_t *")
    if lib.s2048_wide_move(low, high, direction, out_low, out_high, gain) < 0:
        raise InvalidArgumentError("this move would make a tile past 131072, which no 16-cell game holds")
    return join(int(out_low[0]), int(out_high[0])), int(gain[0])


def legal_mask(board: Bitboard) -> int:
    low, high = split(board)
    return int(lib.s2048_wide_legal_mask(low, high))


def best_direction(values: tuple[float, float, float, float], legal: int) -> int:
    """The best of the directions set in ``legal`` by ``values`` (up, down,
    left, right; first of equals), as the search chooses; -1 for none."""
    return int(lib.s2048_best_direction(values, legal))


def is_game_over(board: Bitboard) -> bool:
    low, high = split(board)
    return bool(lib.s2048_wide_is_game_over(low, high))


def count_empty(board: Bitboard) -> int:
    low, high = split(board)
    return int(lib.s2048_wide_count_empty(low, high))


_CELL_LOW_BITS = 0x1111_1111_1111_1111


def search_board(board: Bitboard) -> Bitboard:
    """The 64-bit board the search plays on: downgrade(board)[0], found
    without a C call for a board of 64 bits holding at most one 32768 (rank 15,
    the nibble 0xf), which is its own copy."""
    if board <= LOW_MASK:
        maxed = _maxed_cells(board)
        if not maxed & (maxed - 1):
            return board
    return downgrade(board)[0]


def _maxed_cells(board: Bitboard) -> int:
    """Bit 4i set where cell i of the 64-bit part is the nibble 0xf (32768)."""
    return board & board >> 1 & board >> 2 & board >> 3 & _CELL_LOW_BITS


def holds_32768(board: Bitboard) -> bool:
    """Whether the board holds a tile of 32768 or more: past 64 bits (65536
    and up), or a nibble of 15. The last phase of a game, where
    SearchSettings.late_quiescence replaces quiescence."""
    return board > LOW_MASK or _maxed_cells(board) != 0


def downgrade(board: Bitboard) -> tuple[Bitboard, bool]:
    """The 64-bit copy the search and the tables play on (the board itself below
    65536), and whether it is lossless: whether it keeps every merge without
    taking out the spawn ranks (see s2048_downgrade in csrc/ladder.c)."""
    low, high = split(board)
    lossless = _flag()
    copy = int(lib.s2048_downgrade(low, high, lossless))
    return copy, bool(lossless[0])


def _flag() -> Any:
    """This thread's int out-parameter (one allocation a thread, not one a call)."""
    flag = getattr(_local_flags, "flag", None)
    if flag is None:
        flag = _local_flags.flag = ffi.new("int *")
    return flag


_local_flags = threading.local()


def move_batch(boards: npt.ArrayLike, direction: int | str) -> tuple[npt.NDArray[np.uint64], npt.NDArray[np.uint32]]:
    """Moves every board of a uint64 array in one C call: (boards, gains as uint32).

    The array holds 64-bit boards, so a move that merges two 32768 tiles into
    65536, which needs a fifth bit, is refused: InvalidArgumentError names the
    first such board (``Board.move`` plays it)."""
    # numpy is imported here, not at module load: its import starts BLAS threads
    # that the search and the CLI have no use for.
    import numpy as np

    direction = int(Move.parse(direction)) if isinstance(direction, str) else int(direction)
    src = np.ascontiguousarray(boards, dtype=np.uint64)
    out = np.empty_like(src)
    gains = np.empty(src.shape, dtype=np.uint32)
    first = lib.s2048_move_batch(
        ffi.from_buffer("uint64_t[]", src),
        src.size,
        direction,
        ffi.from_buffer("uint64_t[]", out),
        ffi.from_buffer("uint32_t[]", gains),
    )
    if first >= 0:
        raise InvalidArgumentError(
            f"board {first} (flat index) would merge two 32768 tiles into 65536, which a 64-bit "
            "board cannot hold; move it with Board.move"
        )
    return out, gains


# ---- heuristic ---------------------------------------------------------------


_WEIGHT_NAMES = ("lost_penalty", "lost_value", "empty_weight", "merges_weight", "mono_power", "mono_weight",
                 "sum_power", "sum_weight", "corner_power", "corner_weight", "chain_weight", "chain_penalty",
                 "pass_from")


def _c_weights(depth: int | None = None) -> dict[str, float]:
    """The weights kept in csrc/evaluate.c, where the engine id covers them: the
    default (``depth`` None), or those beside the tables at ``depth`` (0 for
    one without its own)."""
    w = ffi.new("s2048_weights *")
    if depth is None:
        lib.s2048_default_weights(w)
    else:
        lib.s2048_tables_weights(depth, w)
    return {name: float(getattr(w, name)) for name in _WEIGHT_NAMES}


_C_WEIGHTS = _c_weights()


@dataclass(frozen=True)
class Weights:
    """The heuristic's weights: the terms published with nneonneo/2048-ai, with
    empty_weight (was 270) and mono_weight (was 47) retuned on paired seeds by
    bench/tune_weights.py, and a corner term (weight 3, not in the published set)
    that keeps big tiles in the formations of the endgame tables. The chain
    term (rank * 2**rank tile weights read from the top-left corner) is off
    unless ``chain_weight`` is set; ``Weights.for_tables()`` is that term alone,
    the heuristic beside endgame tables (at depth 2 with the sum term). ``Weights.published()`` gives the
    original set."""

    lost_penalty: float = _C_WEIGHTS["lost_penalty"]
    lost_value: float = _C_WEIGHTS["lost_value"]
    empty_weight: float = _C_WEIGHTS["empty_weight"]
    merges_weight: float = _C_WEIGHTS["merges_weight"]
    mono_power: float = _C_WEIGHTS["mono_power"]
    mono_weight: float = _C_WEIGHTS["mono_weight"]
    sum_power: float = _C_WEIGHTS["sum_power"]
    sum_weight: float = _C_WEIGHTS["sum_weight"]
    corner_power: float = _C_WEIGHTS["corner_power"]
    corner_weight: float = _C_WEIGHTS["corner_weight"]
    chain_weight: float = _C_WEIGHTS["chain_weight"]
    chain_penalty: float = _C_WEIGHTS["chain_penalty"]
    # Not a term of the heuristic but a cut in its units: from a board holding
    # this tile on, an untimed search whose root reads well treats a line that
    # reads below twice its top tile's chain weight as a leaf (0: never; see
    # pass_score in csrc/search.c). Beside the tables at depths 4 and 5: 16384.
    pass_from: float = _C_WEIGHTS["pass_from"]

    @classmethod
    def published(cls) -> Weights:
        """The weights as nneonneo/2048-ai publishes them."""
        return cls(empty_weight=270.0, mono_weight=47.0, corner_weight=0.0)

    @classmethod
    def for_tables(cls, depth: int | str | None = None) -> Weights:
        """The heuristic of a search that plays beside the endgame tables at
        ``depth`` (csrc/evaluate.c, s2048_tables_weights, says why each weight
        is what it is): the chain term alone, which keeps the big tiles in the
        tables' corner block and the next ones falling along the row below, a
        live board 16,384 a line above a lost one, and at depth 2 the sum term
        beside it. The search uses it beside tables at depth 2 and more
        (SearchSettings.search_weights)."""
        return cls(**_c_weights(depth if isinstance(depth, int) else 0))

    def __post_init__(self) -> None:
        # A NaN or infinite weight would make every value of the search NaN.
        for field in fields(self):
            value = getattr(self, field.name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
                raise InvalidArgumentError(f"weight {field.name} must be a finite number, got {value!r}")


class Evaluator:
    """A heuristic row table built in C from a set of weights (512 KiB)."""

    def __init__(self, weights: Weights = Weights()) -> None:
        c_weights = ffi.new("s2048_weights *")
        for name, value in vars(weights).items():
            setattr(c_weights, name, float(value))
        handle = lib.s2048_eval_new(c_weights)
        if handle == ffi.NULL:
            raise OutOfMemoryError("could not allocate the heuristic table")
        self.weights = weights
        self._handle = ffi.gc(handle, lib.s2048_eval_free)

    def row(self, row: int) -> float:
        return float(lib.s2048_eval_row(self._handle, row))

    def board(self, board: Bitboard) -> float:
        return float(lib.s2048_eval_board(self._handle, board))


_default_evaluators: dict[Weights, Evaluator] = {}
_evaluator_lock = threading.Lock()


def evaluator(weights: Weights | None = None) -> Evaluator:
    """Returns the shared evaluator for these weights, building it once."""
    if weights is None:
        return _default_evaluator
    with _evaluator_lock:
        if weights not in _default_evaluators:
            _default_evaluators[weights] = Evaluator(weights)
        return _default_evaluators[weights]


_default_evaluator = Evaluator()
_default_evaluators[Weights()] = _default_evaluator


# ---- search --------------------------------------------------------------------


def _result_format() -> struct.Struct:
    """s2048_result as struct reads it, padding taken from the compiled
    layout: one unpack reads the whole result, where ten cffi field reads
    cost 0.3 us a call."""
    fields = (("values", "4d"), ("legal", "i"), ("best", "i"), ("depth", "i"),
              ("nodes", "Q"), ("cache_hits", "Q"), ("seconds", "d"))
    layout, at = "=", 0
    for name, code in fields:
        offset = ffi.offsetof("s2048_result", name)
        layout += f"{offset - at}x{code}" if offset > at else code
        at = offset + struct.calcsize("=" + code)
    layout += f"{ffi.sizeof('s2048_result') - at}x"
    return struct.Struct(layout)


_RESULT = _result_format()
# (value up, down, left, right, legal mask, best, depth, nodes, cache hits, seconds)
Found = tuple[float, float, float, float, int, int, int, int, int, float]


class RawResult(NamedTuple):
    values: tuple[float, ...]
    legal: int
    best: int
    depth: int
    nodes: int
    cache_hits: int
    seconds: float


class Searcher:
    """A search context: owns a transposition table. Use one per thread.

    ``reuse_deeper`` (the default) lets the table answer with a value searched
    deeper than asked, which plays stronger; False keeps only same-depth values,
    which never change a result of a search without pruning.

    ``threads``: a search from depth 6 on runs on that many threads, each with
    a table of ``tt_mb`` of its own (made at the first such search), and gives
    the same result with any number of them (docs/search.md).
    """

    def __init__(self, tt_mb: float = DEFAULT_TT_MB, reuse_deeper: bool = True, threads: int = 1) -> None:
        check_tt_mb(tt_mb, copies=thread_tables(check_threads(threads)))
        handle = lib.s2048_searcher_new_threads(int(tt_mb * 1024 * 1024), threads)
        if handle == ffi.NULL:
            raise OutOfMemoryError(f"could not allocate a {tt_mb} MB transposition table")
        self.threads = threads
        self._handle = ffi.gc(handle, lib.s2048_searcher_free)
        self._result = ffi.new("s2048_result *")
        self._result_bytes = ffi.buffer(self._result)
        lib.s2048_searcher_set_reuse_deeper(self._handle, int(reuse_deeper))
        self.reuse_deeper = reuse_deeper

    @property
    def tt_entries(self) -> int:
        return int(lib.s2048_searcher_tt_entries(self._handle))

    def clear(self) -> None:
        lib.s2048_searcher_clear(self._handle)

    def analyze(
        self,
        board: Bitboard,
        depth: int = 0,
        time_ms: float = 0.0,
        prune: Prune = DEFAULT_PRUNE,
        keep_cache: bool = False,
        evaluator_: Evaluator | None = None,
        danger: int | None = None,
        quiescence: int | None = None,
    ) -> RawResult:
        """Runs the C expectimax (the GIL is released while it runs); with
        ``danger``, a fixed depth one move deeper on a board with at most that
        many empty cells; with ``quiescence``, a leaf with at most that many empty
        cells worth one more spawn and move."""
        found = self.search(board, depth, engine_danger(danger), engine_quiescence(quiescence), time_ms,
                            engine_prune(prune), keep_cache, evaluator_ or evaluator())
        return RawResult(found[:4], *found[4:])

    def search(self, board: Bitboard, depth: int, danger: int, quiescence: int, time_ms: float, prune: float,
               keep_cache: bool, evaluator_: Evaluator) -> Found:
        """analyze with the settings as C takes them (``engine_danger``'s
        danger, ``engine_quiescence``'s quiescence, ``engine_prune``'s prune), checked by C alone: the call of
        ``search.analyze``, whose settings were checked once, when they were
        made. Returns the result as one tuple."""
        if lib.s2048_analyze(self._handle, evaluator_._handle, board, depth, danger, quiescence, time_ms, prune,
                             keep_cache, self._result) != 0:
            raise InvalidArgumentError(
                f"bad search settings: depth={depth} (0..{MAX_DEPTH}), danger={danger} (-1..16, with a fixed "
                f"depth and no time limit), quiescence={quiescence} (-1..15), time_ms={time_ms} (>= 0), "
                f"prune={prune} (0..1, or -1 for 'auto')"
            )
        found: Found = _RESULT.unpack_from(self._result_bytes)
        return found


def auto_depth(board: Bitboard) -> int:
    return int(lib.s2048_auto_depth(board))


_local = threading.local()


def thread_searcher(tt_mb: float = DEFAULT_TT_MB, threads: int = 1) -> Searcher:
    """Returns this thread's searcher with tables of tt_mb on ``threads``
    threads, made on first use (one per size and thread count, so that one
    asked for once does not evict the default)."""
    searchers: dict[tuple[float, int], Searcher] | None = getattr(_local, "searchers", None)
    if searchers is None:
        searchers = _local.searchers = {}
    key = (tt_mb, threads)
    searcher = searchers.get(key)
    if searcher is None:
        searcher = searchers[key] = Searcher(tt_mb, threads=threads)
    return searcher
