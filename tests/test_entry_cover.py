"""bench/entry_cover.py: the cover conditions it asks of a board for entry
tables that are not built (goal 256 and goal 512), on boards whose answer
follows from docs/endgame-tables.md."""

from __future__ import annotations

import pytest
from helpers import bench_module

from solve2048 import Board


@pytest.fixture(scope="module")
def cover():
    return bench_module("entry_cover")


# The block 32768 16384 8192 / 4096 2048: its own goal is one below the smaller
# of 2048 and 8192, so 1024 >= 512; a 256 in row 2 and a 128 in row 3 are within
# goal 512's caps (256 and 128), not within those of its smaller variants.
GOAL_512 = "32768 16384 8192 . / 4096 2048 . . / 256 . . . / 128 . . ."


def held(cover, text: str) -> set[str]:
    grids = cover.orientations(Board.parse(text))
    return {name for name, caps in cover.FORMATIONS.items() if any(cover.holds(g, *caps) for g in grids)}


def test_a_goal_512_block_with_its_caps_full(cover) -> None:
    assert held(cover, GOAL_512) == {"goal512"}
    assert held(cover, GOAL_512.replace("/ 128 . . .", "/ 64 . . .")) == {"goal512", "goal512-row3-64"}
    small = GOAL_512.replace("/ 128 . . .", "/ 16 . . .").replace("/ 256 . . .", "/ 128 . . .")
    assert held(cover, small) == set(cover.FORMATIONS)   # within every table's caps
    every_512 = {name for name in cover.FORMATIONS if name.startswith("goal512")}
    assert held(cover, "32768 16384 8192 . / 4096 2048 512 . / 128 . . . / 64 . . .") == {
        "goal512", "goal512-row3-64", "goal512-row2-128"}   # 64 on the bottom row: over 32 and 16
    assert held(cover, "32768 16384 8192 . / 4096 2048 . . / . . . . / . . . .") == every_512 | {"goal256"}


def test_each_orientation_is_found(cover) -> None:
    rows = [row.split() for row in GOAL_512.split("/")]
    mirrored = " / ".join(" ".join(reversed(row)) for row in rows)
    flipped = " / ".join(" ".join(row) for row in reversed(rows))
    transposed = " / ".join(" ".join(column) for column in zip(*rows, strict=True))
    for text in (mirrored, flipped, transposed):
        assert held(cover, text) == {"goal512"}, text


def test_boards_outside_the_formation(cover) -> None:
    # Row 1 rising toward the corner; a hole in the block; two equal frozen
    # neighbours; a 512 on (1,2) over goal 256's cap; the block's own goal
    # (one below 512) too small for goal 512.
    assert held(cover, "32768 16384 8192 . / 2048 4096 . . / . . . . / . . . .") == set()
    assert held(cover, "32768 . 8192 . / 4096 2048 . . / . . . . / . . . .") == set()
    assert held(cover, "32768 16384 16384 . / 4096 2048 . . / . . . . / . . . .") == set()
    assert held(cover, "32768 16384 8192 . / 4096 2048 512 . / . . . . / . . . .") == {
        name for name in cover.FORMATIONS if name.startswith("goal512")}
    assert held(cover, "32768 16384 8192 . / 4096 512 . . / 64 . . . / 32 . . .") == {"goal256"}
