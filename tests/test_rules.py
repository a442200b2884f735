"""Known-answer cases from the rules (docs/rules.md), run against both the C engine and the oracle."""

from __future__ import annotations

import pytest
from helpers import load_kat

from solve2048 import Board, Move, reference

CASES = load_kat("moves.kat")


def test_known_answer_file_covers_every_direction() -> None:
    assert {direction for _, direction, _, _ in CASES} == {"up", "down", "left", "right"}
    assert len(CASES) >= 25


@pytest.mark.parametrize("board, direction, expected, gain", CASES)
def test_oracle_matches_known_answer(board, direction, expected, gain) -> None:
    assert reference.move(board, direction) == (expected, gain)


@pytest.mark.parametrize("board, direction, expected, gain", CASES)
def test_engine_matches_known_answer(board, direction, expected, gain) -> None:
    start = Board.from_cells(board)
    after, points = start.move(direction)  # merges past 32768 included
    assert (list(after.cells), points) == (expected, gain)
    assert (Move.parse(direction) in start.legal_moves()) == (expected != board)


def test_invalid_move_returns_same_board_and_zero() -> None:
    board = Board.parse("2 4 8 16 / . . . . / . . . . / . . . .")
    assert board.move(Move.UP) == (board, 0)
    assert board.move("left") == (board, 0)


GAME_OVER = [
    ("2 4 2 4 / 4 2 4 2 / 2 4 2 4 / 4 2 4 2", True),
    ("2 4 2 4 / 4 2 4 2 / 2 4 2 4 / 4 2 4 4", False),  # full, one horizontal pair
    ("2 4 2 4 / 4 2 4 2 / 2 4 2 4 / 4 2 4 4".replace("4 2 4 4", "2 2 4 2"), False),  # vertical pair
    ("2 4 2 4 / 4 2 4 2 / 2 4 2 4 / 4 2 4 .", False),  # one empty cell
    ("32768 16384 32768 16384 / 16384 32768 16384 32768 / 2 4 2 4 / 4 2 4 2", True),
    ("32768 32768 2 4 / 4 2 4 2 / 2 4 2 4 / 4 2 4 2", False),  # two 32768s make 65536
    ("65536 32768 65536 2 / 4 2 4 8 / 2 4 2 4 / 4 2 4 2", True),
    ("65536 65536 2 4 / 4 2 4 2 / 2 4 2 4 / 4 2 4 2", False),  # two 65536s make 131072
]


@pytest.mark.parametrize("text, over", GAME_OVER)
def test_game_over_needs_full_board_and_no_pair(text: str, over: bool) -> None:
    board = Board.parse(text)
    assert board.is_game_over() is over
    assert reference.is_game_over(list(board.cells)) is over
    assert (board.legal_moves() == []) is over


def test_spawns_split_probability_evenly() -> None:
    board = Board.parse("2 4 8 16 / 32 64 128 256 / 2 4 8 16 / 32 . . 2")
    spawns = board.spawns()
    assert {s.cell for s in spawns} == {13, 14}
    assert sum(s.probability for s in spawns) == pytest.approx(1.0)
    assert {(s.value, s.probability) for s in spawns} == {(2, 0.45), (4, 0.05)}
    assert Board.parse("2 4 2 4 / 4 2 4 2 / 2 4 2 4 / 4 2 4 2").spawns() == []


def test_with_tile_places_a_spawn() -> None:
    board = Board().with_tile(5, 4)
    assert board.cells[5] == 4 and board.empty_count == 15
