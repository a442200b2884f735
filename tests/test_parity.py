"""Parity: the C engine against the Python oracle on many random boards."""

from __future__ import annotations

import numpy as np
from helpers import pack, random_exponents
from hypothesis import given, settings
from hypothesis import strategies as st

from solve2048 import Board, move_batch, reference
from solve2048.errors import InvalidArgumentError
from solve2048.reference import DIRECTIONS

N_BOARDS = 20_000


def check_one(bits: int) -> None:
    board = Board.from_int(bits)
    cells = list(board.cells)
    for index, direction in enumerate(DIRECTIONS):
        expected, gain = reference.move(cells, direction)
        assert (board.legal_moves().count(index) == 1) == (expected != cells), (board, direction)
        after, points = board.move(direction)  # 65536 included (tests/test_ladder.py goes further)
        assert (list(after.cells), points) == (expected, gain), (board, direction)
    assert board.is_game_over() == reference.is_game_over(cells), board


def test_engine_matches_oracle_on_random_boards(rng: np.random.Generator) -> None:
    boards = pack(random_exponents(rng, N_BOARDS))
    # The generator must produce the hard cases often, or the check is weak.
    dense = sum(Board.from_int(int(b)).empty_count <= 2 for b in boards[:2000])
    assert dense > 400
    for bits in boards.tolist():
        check_one(bits)


def test_batch_matches_single_moves(rng: np.random.Generator) -> None:
    exps = random_exponents(rng, N_BOARDS)
    exps[exps == 15] = 14  # keep the batch free of overflows here
    boards = pack(exps)
    for index, direction in enumerate(DIRECTIONS):
        out, gains = move_batch(boards, direction)
        assert out.dtype == np.uint64 and gains.dtype == np.uint32
        for bits, moved, gain in zip(boards.tolist()[:3000], out.tolist(), gains.tolist(), strict=False):
            assert Board.from_int(bits).move(direction) == (Board.from_int(moved), gain)
        # Batch by Move value and by name agree.
        again, _ = move_batch(boards, index)
        assert np.array_equal(out, again)


def test_batch_reports_overflowing_board() -> None:
    ok = int(Board.parse("2 2 . . / . . . . / . . . . / . . . ."))
    bad = int(Board.parse("32768 32768 . . / . . . . / . . . . / . . . ."))
    try:
        move_batch(np.array([ok, ok, bad], dtype=np.uint64), "left")
    except InvalidArgumentError as error:
        assert "board 2 (flat index)" in str(error)
    else:
        raise AssertionError("expected the board that needs a fifth bit to be named")


@settings(max_examples=1500, deadline=None)
@given(st.lists(st.sampled_from([0, 0, 2, 2, 4, 4, 8, 16, 1024, 16384, 32768]), min_size=16, max_size=16))
def test_engine_matches_oracle_hypothesis(cells: list[int]) -> None:
    check_one(int(Board.from_cells(cells)))
