"""Board notation: every accepted form, round trips, and every kind of bad input."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import pack, random_exponents

from solve2048 import Board, InvalidBoardError

CELLS = (2, 4, 0, 0, 0, 8, 0, 0, 0, 0, 16, 0, 32768, 0, 0, 2)

SAME_BOARD = [
    "2 4 . . / . 8 . . / . . 16 . / 32768 . . 2",
    "2 4 0 0 | 0 8 0 0 | 0 0 16 0 | 32768 0 0 2",
    "2,4,-,-; -,8,-,-; -,-,16,-; 32768,-,-,2",
    "2 4 _ _\n_ 8 _ _\n_ _ 16 _\n32768 _ _ 2\n",
    "2 4 . . . 8 . . . . 16 . 32768 . . 2",
    "[2,4,0,0,0,8,0,0,0,0,16,0,32768,0,0,2]",
    "[[2,4,0,0],[0,8,0,0],[0,0,16,0],[32768,0,0,2]]",
    "  2 4 . . /. 8 . ./ . . 16 . / 32768 . . 2  ",
]


@pytest.mark.parametrize("text", SAME_BOARD)
def test_every_notation_reads_the_same_board(text: str) -> None:
    assert Board.parse(text).cells == CELLS


def test_layout_matches_nneonneo_hex() -> None:
    board = Board.from_cells(CELLS)
    # Cell (0,0) is the lowest nibble: 2 -> exponent 1; cell (3,0) = 32768 -> f at nibble 12.
    assert int(board) & 0xF == 1
    assert (int(board) >> 48) & 0xF == 15
    assert Board.parse(board.hex()) == board
    assert board.hex() == "0x100f040000300021"


def test_views() -> None:
    board = Board.from_cells(CELLS)
    assert board.rows[3] == (32768, 0, 0, 2)
    assert board.max_tile == 32768
    assert board.empty_count == 10
    assert Board.from_rows(board.rows) == board
    assert Board.from_int(int(board)) == board
    assert hash(board) == hash(Board.from_cells(CELLS))
    assert board != Board()


def test_str_is_an_aligned_grid() -> None:
    assert str(Board.from_cells(CELLS)) == (
        "    2     4     .     .\n"
        "    .     8     .     .\n"
        "    .     .    16     .\n"
        "32768     .     .     2"
    )


def test_round_trips_on_random_boards() -> None:
    rng = np.random.default_rng(7)
    for bits in pack(random_exponents(rng, 500)).tolist():
        board = Board.from_int(bits)
        assert Board.parse(str(board)) == board
        assert eval(repr(board)) == board  # repr evaluates back by design
        assert Board.parse(board.hex()) == board
        assert Board.parse(str(list(board.cells))) == board
        assert Board.parse(str([list(r) for r in board.rows])) == board


BAD = [
    ("", "empty board"),
    ("   \n ", "empty board"),
    ("2 4 8", "expected 16 cells, got 3"),
    ("2 " * 17, "expected 16 cells, got 17"),
    ("2 4 . . / . . . / . . . . / . . . .", "row 2: expected 4 cells, got 3"),
    ("2 4 . . / . . . . / . . . .", "expected 4 rows, got 3"),
    ("2 4 . . / . . 3 . / . . . . / . . . .", "row 2, column 3: 3 is not a tile"),
    ("1 . . . . . . . . . . . . . . .", "row 1, column 1: 1 is not a tile"),
    (". 6 . . . . . . . . . . . . . .", "row 1, column 2: 6 is not a tile"),
    (". . -2 . . . . . . . . . . . . .", "row 1, column 3: '-2' is not a tile"),
    (". . . abc . . . . . . . . . . . .", "row 1, column 4: 'abc' is not a tile"),
    (". . . . 262144 . . . . . . . . . . .", "tile 262144 is too large: no 16-cell game makes a tile past 131072"),
    ("[2, 4]", "expected 16 cells, got 2"),
    ("[[2,4,0,0],[0,0,0]]", "expected 4 rows, got 2"),
    ("[[2,4,0,0],[0,0,0],[0,0,0,0],[0,0,0,0]]", "row 2: expected 4 cells, got 3"),
    ("[2, 4, 0", "malformed array"),
    ("[2.5,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0]", "expected a tile value, got 2.5"),
    ('{"a": 1}', "expected 16 cells, got 2"),
    ("0x1234567890abcdef012345", "expected a hex board of 1 to 16 hex digits after 0x (up to 20"),
    ("0x51234567890abcdef", "rank 31 (tile 2147483648) is past 131072"),  # a fifth bit over the nibble f
    ("0xg", "expected a hex board of 1 to 16 hex digits"),
]


@pytest.mark.parametrize("text, message", BAD)
def test_bad_input_names_the_problem_and_quotes_the_input(text: str, message: str) -> None:
    with pytest.raises(InvalidBoardError) as info:
        Board.parse(text)
    assert message in str(info.value)
    assert repr(text) in str(info.value)
    assert isinstance(info.value, ValueError)


def test_bad_values_from_python() -> None:
    with pytest.raises(InvalidBoardError, match="expected 16 cells, got 15"):
        Board.from_cells([0] * 15)
    with pytest.raises(InvalidBoardError, match="too large"):
        Board.from_cells([262144] + [0] * 15)
    with pytest.raises(InvalidBoardError, match="expected 4 rows of 4"):
        Board.from_rows([[0] * 4] * 3)
    assert Board.from_int(1 << 64).cells[0] == 65536  # bit 64: cell 0's fifth bit
    with pytest.raises(InvalidBoardError, match="64 bits"):
        Board.from_int(1 << 80)
    with pytest.raises(InvalidBoardError, match="64 bits"):
        Board.from_int(-1)
    with pytest.raises(InvalidBoardError, match="not empty"):
        Board.from_cells(CELLS).with_tile(0, 2)
