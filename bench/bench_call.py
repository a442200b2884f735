"""The cost of one call: the Python around a search (``analyze`` at depth 1,
no table, where the C search itself is a few dozen ns) and ``Board.move``
against the Python oracle's move.

Run: pytest bench/bench_call.py --benchmark-columns=median,rounds

The targets of issue 21 are checked by ``test_targets``, from medians of
interleaved timings (so that both sides of a ratio see the same load):
analyze at most 2 us over the bare C call, Board.move at least 10 times the
oracle's speed.
"""

from __future__ import annotations

import statistics
import timeit
from collections.abc import Callable

import pytest

from solve2048 import Board, SearchSettings, analyze, reference
from solve2048.engine import Searcher, evaluator, lib
from solve2048.moves import Move

BOARD = Board.parse("2 4 8 16 / 32 64 . . / 2 . . . / . . 4 .")
SETTINGS = SearchSettings(depth=1, tt_mb=0, quiescence=None)  # no look, as the bare call
SEARCHER = Searcher(tt_mb=0)
CELLS = list(BOARD.cells)
ANALYZE_TARGET_US = 2.0   # Python around the search, per call
MOVE_TARGET_RATIO = 10.0  # Board.move against reference.move, per call


def bare_search() -> int:
    """The C call analyze makes, with nothing around it."""
    return int(lib.s2048_analyze(SEARCHER._handle, evaluator()._handle, int(BOARD), 1, -1, -1, 0.0, -1.0, 0,
                                 SEARCHER._result))


def test_analyze_with_settings(benchmark) -> None:
    benchmark(lambda: analyze(BOARD, SETTINGS, searcher=SEARCHER))


def test_analyze_with_fields(benchmark) -> None:
    benchmark(lambda: analyze(BOARD, depth=1, tt_mb=0, quiescence=None))


def test_bare_c_search(benchmark) -> None:
    benchmark(bare_search)


def test_board_move(benchmark) -> None:
    benchmark(lambda: BOARD.move(Move.LEFT))


def test_board_move_by_name(benchmark) -> None:
    benchmark(lambda: BOARD.move("left"))


def test_oracle_move(benchmark) -> None:
    benchmark(lambda: reference.move(CELLS, "left"))


def _interleaved_us(calls: dict[str, Callable[[], object]], rounds: int = 15,
                    number: int = 20_000) -> dict[str, float]:
    """Median microseconds per call of each, timed in turn round after round."""
    times: dict[str, list[float]] = {name: [] for name in calls}
    for _ in range(rounds):
        for name, call in calls.items():
            times[name].append(timeit.timeit(call, number=number) / number * 1e6)
    return {name: statistics.median(t) for name, t in times.items()}


@pytest.mark.benchmark(disable_gc=True)
def test_targets(benchmark) -> None:
    us = _interleaved_us({
        "analyze": lambda: analyze(BOARD, SETTINGS, searcher=SEARCHER),
        "analyze_fields": lambda: analyze(BOARD, depth=1, tt_mb=0, quiescence=None),
        "bare": bare_search,
        "move": lambda: BOARD.move(Move.LEFT),
        "move_by_name": lambda: BOARD.move("left"),
        "oracle_move": lambda: reference.move(CELLS, "left"),
    })
    around = us["analyze"] - us["bare"]
    ratio = us["oracle_move"] / us["move"]
    benchmark.extra_info.update({f"{name}_us": round(value, 3) for name, value in us.items()})
    benchmark.extra_info.update(analyze_python_us=round(around, 3),
                                analyze_fields_python_us=round(us["analyze_fields"] - us["bare"], 3),
                                move_ratio=round(ratio, 2),
                                move_by_name_ratio=round(us["oracle_move"] / us["move_by_name"], 2))
    benchmark.pedantic(lambda: None, rounds=1, iterations=1)
    assert around <= ANALYZE_TARGET_US, f"analyze costs {around:.2f} us of Python around the search"
    assert ratio >= MOVE_TARGET_RATIO, f"Board.move is only {ratio:.1f} times the oracle's speed"
