"""Moves per second: the C batch API, one Board.move per call, and the Python oracle.

Run: pytest bench/bench_moves.py --benchmark-columns=median,ops
Each benchmark moves the same boards left; the figure to read is boards moved
per second = len(boards) / median time, printed in the test's extra_info.
"""

from __future__ import annotations

import numpy as np

from solve2048 import Board, move_batch, reference

ORACLE_BOARDS = 2_000
SINGLE_BOARDS = 20_000


def _rate(benchmark, n: int) -> float:
    rate = n / benchmark.stats.stats.median
    benchmark.extra_info["moves_per_second"] = round(rate)
    return rate


def test_batch_api(benchmark, boards: np.ndarray) -> None:
    out, _ = benchmark(move_batch, boards, "left")
    assert out.shape == boards.shape
    _rate(benchmark, boards.size)


def test_board_move_per_call(benchmark, boards: np.ndarray) -> None:
    sample = [Board.from_int(b) for b in boards[:SINGLE_BOARDS].tolist()]

    def run() -> None:
        for board in sample:
            board.move("left")

    benchmark(run)
    _rate(benchmark, len(sample))


def test_python_oracle(benchmark, boards: np.ndarray) -> None:
    sample = [list(Board.from_int(b).cells) for b in boards[:ORACLE_BOARDS].tolist()]

    def run() -> None:
        for cells in sample:
            reference.move(cells, "left")

    benchmark(run)
    _rate(benchmark, len(sample))
