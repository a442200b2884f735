"""The bench: the fixed positions searched at one depth, for a node-count
signature of the search (the same on every machine) and its speed.

``solve2048 bench`` prints it; ``bench/`` measures speed with it.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from importlib import resources
from typing import Any

from solve2048.board import Board
from solve2048.engine import DEFAULT_PRUNE, DEFAULT_TT_MB, Prune, Searcher
from solve2048.search import analyze
from solve2048.settings import NOT_GIVEN, SearchSettings


def load_positions() -> list[Board]:
    """The ~50 fixed positions shipped with the package (early to late game)."""
    text = resources.files("solve2048").joinpath("data/positions.txt").read_text(encoding="utf-8")
    return [Board.parse(line) for line in text.splitlines() if line.strip() and not line.startswith("#")]


def run_bench(depth: int, prune: Prune = DEFAULT_PRUNE, tt_mb: float = DEFAULT_TT_MB,
              on_position: Callable[[int, int, float], None] | None = None, *,
              danger: int | None = None, quiescence: int | None = NOT_GIVEN) -> dict[str, Any]:
    """Searches every position at ``depth`` (with ``danger`` and ``quiescence``
    as in SearchSettings: the default look unless told) with a cleared table;
    returns the figures. No position holds 32768, so none plays the late look.
    ``on_position(done, total, seconds)`` is called after each one."""
    positions = load_positions()
    settings = SearchSettings(depth=depth, prune=prune, tt_mb=tt_mb, threads=1, danger=danger,
                              quiescence=quiescence)
    searcher = Searcher(tt_mb)
    nodes = 0
    times = []
    start = time.perf_counter()
    for board in positions:
        result = analyze(board, settings, searcher=searcher)
        nodes += result.nodes
        times.append(result.seconds)
        if on_position:
            on_position(len(times), len(positions), time.perf_counter() - start)
    seconds = time.perf_counter() - start
    search_seconds = sum(times)
    return {
        "positions": len(positions),
        "depth": depth,
        "prune": prune,
        "tt_mb": tt_mb,
        "danger": danger,
        "quiescence": settings.quiescence,
        "nodes": nodes,
        "seconds": seconds,
        "nodes_per_second": nodes / search_seconds if search_seconds else 0.0,
        "ms_per_move_median": statistics.median(times) * 1e3,
    }
