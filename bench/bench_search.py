"""Search speed: the C search against the Python oracle at depth 2 (the ratio), and the
C search per move at depths 2-5, on the fixed bench positions: the plain search,
with no look past crowded leaves (--quiescence off), as the oracle's and the peer's.

Run: pytest bench/bench_search.py --benchmark-columns=median,rounds
extra_info holds ms per move (median over rounds of the whole set / positions).
"""

from __future__ import annotations

import pytest

from solve2048 import analyze
from solve2048.benchmark import load_positions
from solve2048.engine import Searcher
from solve2048.reference_search import expectimax

POSITIONS = load_positions()
ORACLE_POSITIONS = POSITIONS[::5]  # the oracle is slow: 10 positions


def _per_move(benchmark, count: int) -> None:
    benchmark.extra_info["ms_per_move"] = benchmark.stats.stats.median / count * 1e3


def test_oracle_depth2(benchmark) -> None:
    cells = [list(b.cells) for b in ORACLE_POSITIONS]
    benchmark.pedantic(lambda: [expectimax(c, 2) for c in cells], rounds=3, iterations=1)
    _per_move(benchmark, len(cells))


def test_c_depth2_same_boards(benchmark) -> None:
    searcher = Searcher(tt_mb=0)  # like the oracle: no table
    benchmark(lambda: [analyze(b, depth=2, quiescence=None, searcher=searcher) for b in ORACLE_POSITIONS])
    _per_move(benchmark, len(ORACLE_POSITIONS))


@pytest.mark.parametrize("depth", [2, 3, 4, 5])
def test_c_search_per_move(benchmark, depth: int) -> None:
    searcher = Searcher()
    benchmark.pedantic(
        lambda: [analyze(b, depth=depth, quiescence=None, searcher=searcher) for b in POSITIONS],
        rounds=5 if depth >= 5 else 20, iterations=1, warmup_rounds=1,
    )
    _per_move(benchmark, len(POSITIONS))
