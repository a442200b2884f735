"""The public search API: ``analyze`` and ``best_move``.

Depth D = D player moves looked ahead, the first included; the leaf is the board
right after the D-th move, before its spawn, scored by the heuristic. Depth 1 is
greedy. ``depth="auto"`` picks the depth from the board (see ``auto_depth``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

from solve2048 import engine
from solve2048.board import Board
from solve2048.engine import DEFAULT_PRUNE, MAX_DEPTH, Prune, Weights, check_prune
from solve2048.moves import ALL_MOVES, Move

Depth = int | Literal["auto"]
MAX_TIME_MS = 24 * 3600 * 1000  # a day per move: past any use, and still a finite wait


@dataclass(frozen=True, slots=True)
class Analysis:
    """What the search found for one board."""

    board: Board
    best: Move | None                  # None when no move is legal
    values: dict[Move, float | None]   # expected heuristic value; None if illegal
    depth: int                         # depth of the search the values come from
    nodes: int
    cache_hits: int
    seconds: float

    def ranked(self) -> list[tuple[Move, float | None]]:
        """Every direction, best first, illegal ones last (in up/down/left/right order)."""
        legal = sorted(
            ((m, v) for m, v in self.values.items() if v is not None),
            key=lambda item: (-item[1], item[0]),  # type: ignore[operator]
        )
        return legal + [(m, v) for m, v in self.values.items() if v is None]

    def to_json(self) -> dict:
        """The stable JSON shape of ``solve2048 hint --json``."""
        return {
            "board": list(self.board.cells),
            "best": str(self.best) if self.best is not None else None,
            "values": {str(m): v for m, v in self.values.items()},
            "depth": self.depth,
            "nodes": self.nodes,
            "seconds": self.seconds,
        }


def check_depth(depth: Depth) -> int:
    """Returns the engine's depth number (0 = auto) or raises ValueError."""
    if depth == "auto":
        return 0
    if isinstance(depth, bool) or not isinstance(depth, int) or not 1 <= depth <= MAX_DEPTH:
        raise ValueError(f"expected depth 'auto' or 1..{MAX_DEPTH}, got {depth!r}")
    return depth


def check_limits(time_ms: float | None, prune: Prune) -> float:
    """Returns the engine's time limit in ms (0 = none) or raises ValueError."""
    if time_ms is not None and (isinstance(time_ms, bool) or not isinstance(time_ms, (int, float))
                                or not math.isfinite(time_ms) or not 0 < time_ms <= MAX_TIME_MS):
        raise ValueError(f"expected a time limit from 0 to {MAX_TIME_MS:,} ms (a day), got {time_ms!r}")
    check_prune(prune)
    return float(time_ms or 0.0)


def auto_depth(board: Board | str) -> int:
    """The depth that "auto" means for this board: 2 up to 6 distinct tiles, 3 up
    to 8, 4 up to 10, 5 beyond; one more (at most 6) with 3 or fewer empty cells."""
    return engine.auto_depth(int(_board(board)))


def _board(board: Board | str | int) -> Board:
    if isinstance(board, Board):
        return board
    if isinstance(board, str):
        return Board.parse(board)
    return Board.from_int(board)


def analyze(
    board: Board | str,
    depth: Depth = "auto",
    time_ms: float | None = None,
    prune: Prune = DEFAULT_PRUNE,
    weights: Weights | None = None,
    searcher: engine.Searcher | None = None,
    tt_mb: float = engine.DEFAULT_TT_MB,
) -> Analysis:
    """Searches every direction of ``board`` by expectimax in C.

    ``time_ms`` switches to iterative deepening that keeps the deepest depth
    completed in time (``depth`` is then a cap, "auto" meaning none). ``prune`` is
    the cumulative probability below which a branch is scored by the heuristic;
    "auto" is 2**-(d + 4) for a search to depth d.
    ``tt_mb`` sizes the transposition table of this thread's searcher (0 = none),
    unless ``searcher`` is given. The GIL is released during the search, so
    threads can search in parallel.
    """
    position = _board(board)
    depth_number = check_depth(depth)
    limit_ms = check_limits(time_ms, prune)
    searcher = searcher or engine.thread_searcher(tt_mb)
    raw = searcher.analyze(
        int(position),
        depth=depth_number,
        time_ms=limit_ms,
        prune=prune,
        evaluator_=engine.evaluator(weights),
    )
    values = {m: (raw.values[m] if raw.legal >> m & 1 else None) for m in ALL_MOVES}
    return Analysis(
        board=position,
        best=Move(raw.best) if raw.best >= 0 else None,
        values=values,
        depth=raw.depth,
        nodes=raw.nodes,
        cache_hits=raw.cache_hits,
        seconds=raw.seconds,
    )


def best_move(board: Board | str, depth: Depth = "auto", time_ms: float | None = None) -> Move | None:
    """The best direction for ``board``, or None when no move is legal."""
    return analyze(board, depth=depth, time_ms=time_ms).best
