"""The cheaper call and the search on every core (issue 21): the short paths of
analyze and Board.move give what the checked paths give, and a search gives
the same move, values and node count whatever the number of threads."""

from __future__ import annotations

import pickle

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from solve2048 import Board, SearchSettings, analyze
from solve2048.engine import LOW_MASK, downgrade, search_board
from solve2048.errors import InvalidArgumentError
from solve2048.moves import ALL_MOVES

# Boards of 64 bits whose cells lean to the top ranks, so that two or more
# 32768s (the nibble 0xf) are common, and boards past 32768 (fifth bits).
RANKS = st.sampled_from([0, 0, 1, 2, 11, 13, 14, 15, 15])
BOARDS_64 = st.lists(RANKS, min_size=16, max_size=16).map(
    lambda ranks: sum(rank << (4 * cell) for cell, rank in enumerate(ranks)))
FIFTH_BITS = st.integers(0, 0xFFFF).map(lambda high: high << 64)


@settings(max_examples=400, deadline=None)
@given(BOARDS_64)
def test_search_board_is_the_downgraded_copy(board: int) -> None:
    assert search_board(board) == downgrade(board)[0]


@settings(max_examples=200, deadline=None)
@given(BOARDS_64, FIFTH_BITS)
def test_search_board_of_a_wide_board_is_the_downgraded_copy(low: int, high: int) -> None:
    board = low | high
    try:
        Board.from_int(board)
    except ValueError:
        return  # a rank past 131072: no such board
    assert search_board(board) == downgrade(board)[0]
    assert search_board(board) <= LOW_MASK


def test_short_call_refuses_what_settings_refuse_even_after_a_good_one() -> None:
    board = Board.parse("2 2 . . / . . . . / . . . . / . . . .")
    assert analyze(board, depth=1).depth == 1
    with pytest.raises(InvalidArgumentError, match="depth"):
        analyze(board, depth=True)  # equal to 1, and still not a depth
    with pytest.raises(InvalidArgumentError, match="pruning"):
        analyze(board, depth=1, prune=-0.5)


def test_short_call_gives_what_the_settings_value_gives() -> None:
    board = Board.parse("2 4 8 16 / 32 64 . . / 2 . . . / . . 4 .")
    by_fields = analyze(board, depth=3, prune=0.0, tt_mb=1)
    by_settings = analyze(board, SearchSettings(depth=3, prune=0.0, tt_mb=1))
    assert (by_fields.best, by_fields.values, by_fields.nodes) == \
        (by_settings.best, by_settings.values, by_settings.nodes)
    assert by_fields.board is board
    assert set(by_fields.values) == set(ALL_MOVES)


def test_settings_with_their_engine_arguments_worked_out_still_pickle() -> None:
    made = SearchSettings(depth=4, prune=0.001)
    assert made.engine_args == (4, 0.0, 0.001, None)
    again = pickle.loads(pickle.dumps(made))
    assert again == made and again.engine_args == made.engine_args


def test_board_move_by_name_move_and_short_name_agree() -> None:
    board = Board.parse("2 2 4 . / . 4 . 4 / 8 . 8 . / . . . 2")
    for move in ALL_MOVES:
        expected = board.move(move)
        assert board.move(str(move)) == expected
        assert board.move(str(move)[0].upper()) == expected
    with pytest.raises(InvalidArgumentError, match="direction"):
        board.move(["left"])  # type: ignore[arg-type]
