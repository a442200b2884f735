"""bench/uncovered_census.py: the reason it gives for a board no table covers,
on boards whose reason follows from the chain formation's conditions
(docs/endgame-tables.md, "Chain")."""

from __future__ import annotations

import pytest
from helpers import bench_module

from solve2048 import Board


@pytest.fixture(scope="module")
def census():
    return bench_module("uncovered_census")


CASES = {
    ". . . . / . . . . / . . 2 . / . . . 4": "a hole in the block",
    "4 . . . / . 8 . . / . . . . / . . . .": "largest tile out of the corner",
    "8192 4096 2048 . / 512 512 1024 . / . . . . / . . . .": "two equal neighbours in the block",
    "8192 4096 8 16 / 1024 512 32 . / 2 . . . / . . . .": "(0,2) not above (0,3)",
    "65536 32768 16384 . / 2048 4096 8192 . / 2 . . . / . . . .": "anchor above 1024",
    "8192 4096 2048 . / 512 1024 4096 . / 64 256 . . / 2 . . .": "over the caps on (2,1) (anchor 512)",
    "8192 4096 2048 . / 512 1024 4096 . / 256 128 64 . / . . 64 .": "a ready chain",
    "8192 4096 2048 . / 512 1024 4096 . / 256 128 32 . / 2 . . .": "covered",
}


@pytest.mark.parametrize(("text", "why"), CASES.items())
def test_the_first_condition_the_board_fails(census, text: str, why: str) -> None:
    assert census.reason(Board.parse(text).cells) == why


@pytest.mark.parametrize("text", CASES)
def test_the_reason_is_the_same_in_every_corner(census, text: str) -> None:
    board = Board.parse(text)
    images = {census.reason(tuple(census.symmetry(list(board.cells), s))) for s in range(8)}
    assert images == {census.reason(board.cells)}
