"""Table look-ups: the probe under every symmetry, which boards a formation
covers, and which table answers when several could (thresholds per shape)."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import formation_cells, formation_index

from solve2048 import Board, reference
from solve2048.moves import Move
from solve2048.reference_tables import PATH, chain_ready, entry_ready, free_caps, stored_probability, symmetry
from solve2048.tables import CHAIN, DEFAULT_MIN_BY_GOAL, DEFAULT_MIN_BY_SHAPE, ENTRY, TableSet, TableSpec
from solve2048.tables_build import compute, store


def _table_answer(table, frozen: int, goal: int, shape: int, cells: list[int]) -> list[int]:
    """The board after the table's move on a board in the formation's own orientation."""
    entry = int(table[formation_index(frozen, goal, cells, shape)])
    return reference.move(cells, reference.DIRECTIONS[entry & 3])[0]


@pytest.mark.parametrize("frozen, goal, shape", [(11, 4, 0), (9, 4, 1), (6, 3, 1), (6, 5, CHAIN), (5, 4, ENTRY)])
def test_probe_agrees_with_the_table_under_all_eight_symmetries(frozen, goal, shape):
    spec = TableSpec(frozen, goal, shape)
    table = store(compute(spec))
    tables = TableSet({spec: table}, min_probability=0.0)
    rng = np.random.default_rng(7)
    caps = free_caps(frozen, goal, shape)
    checked = 0
    for _ in range(200):
        free = {cell: int(rng.choice([0, 0] + [1 << r for r in range(1, cap + 1)]))
                for cell, cap in caps.items()}
        cells = formation_cells(frozen, goal, free, shape)
        entry = int(table[formation_index(frozen, goal, cells, shape)])
        ready = {CHAIN: chain_ready, ENTRY: entry_ready}.get(shape)
        if entry >> 2 == 0 or (ready and ready(cells, goal)):
            continue   # no move worth playing, or the goal already made
        answers = [_table_answer(table, frozen, goal, shape, cells)]
        if (frozen, shape) == (9, 1):
            # The 3x3 block is its own transpose: the board matches it twice,
            # with equal probabilities, and either best move may be played.
            transposed = symmetry(cells, 4)
            answers.append(symmetry(_table_answer(table, frozen, goal, shape, transposed), 4))
        for s in range(8):
            image = symmetry(cells, s)
            found = tables.probe(Board.from_cells(image))
            assert found is not None and found.spec == spec
            assert found.probability == pytest.approx(stored_probability(entry), abs=0)
            moved, _ = reference.move(image, found.move.name.lower())
            assert moved in [symmetry(after, s) for after in answers]
        checked += 1
    assert checked > 50


def test_a_board_outside_every_formation_is_not_covered():
    spec = TableSpec(11, 4)
    tables = TableSet({spec: store(compute(spec))}, min_probability=0.0)
    # The same snake with a free tile as big as the anchor: not covered.
    cells = formation_cells(11, 4, {PATH[12]: 16})
    assert tables.probe(Board.from_cells(cells)) is None
    # Two equal frozen neighbours could merge: not covered either.
    cells = formation_cells(11, 4, {PATH[12]: 2})
    cells[PATH[1]] = cells[PATH[0]]
    assert tables.probe(Board.from_cells(cells)) is None


def test_a_board_outside_the_block_is_not_covered():
    spec = TableSpec(9, 4, 1)
    tables = TableSet({spec: store(compute(spec))}, min_probability=0.0)
    covered = formation_cells(9, 4, {15: 2, 14: 4}, shape=1)
    assert tables.probe(Board.from_cells(covered)) is not None
    big_free = formation_cells(9, 4, {15: 2, 14: 16}, shape=1)         # as big as the anchor
    equal_neighbours = formation_cells(9, 4, {15: 2}, shape=1)
    equal_neighbours[1] = equal_neighbours[0]
    low_block_tile = formation_cells(9, 4, {15: 2}, shape=1)
    low_block_tile[0] = 8                                      # below the anchor's 16
    for cells in (big_free, equal_neighbours, low_block_tile):
        assert tables.probe(Board.from_cells(cells)) is None, cells


def test_a_chain_table_plays_the_smaller_anchors_within_their_caps(stored_table):
    # The anchor-64 table covers a block whose anchor is 32, with the free
    # tiles within the caps of 32 (so none can merge into the block), and
    # with no ready chain to 32 yet.
    spec = TableSpec(6, 6, CHAIN)
    tables = TableSet({spec: stored_table(spec)}, min_probability=0.0)
    covered = formation_cells(6, 5, {15: 2, 14: 4, 3: 16}, shape=CHAIN)
    assert tables.probe(Board.from_cells(covered)).spec == spec
    over_small_cap = formation_cells(6, 5, {15: 8, 3: 16}, shape=CHAIN)   # (3,3) may hold 4 below 32
    ready_for_32 = formation_cells(6, 5, {8: 16, 9: 8, 10: 4, 11: 4}, shape=CHAIN)
    for cells in (over_small_cap, ready_for_32):
        assert tables.probe(Board.from_cells(cells)) is None, cells
    # A bigger anchor than any table's: not covered.
    assert TableSet({TableSpec(6, 5, CHAIN): stored_table(TableSpec(6, 5, CHAIN))}, 0.0).probe(
        Board.from_cells(formation_cells(6, 6, {15: 2}, shape=CHAIN))) is None


def test_a_board_outside_the_chain_formation_is_not_covered():
    spec = TableSpec(6, 5, CHAIN)   # block 1024 512 256 / 128 64 32: anchor 32
    tables = TableSet({spec: store(compute(spec))}, min_probability=0.0)
    covered = formation_cells(6, 5, {15: 2, 14: 4, 3: 16}, shape=CHAIN)
    assert tables.probe(Board.from_cells(covered)) is not None
    over_cap = formation_cells(6, 5, {15: 2, 7: 16}, shape=CHAIN)       # (1,3) may hold 8 at most
    equal_neighbours = list(covered)
    equal_neighbours[1] = equal_neighbours[0]
    hole = list(covered)
    hole[0] = 0
    ready = formation_cells(6, 5, {8: 16, 9: 8, 10: 4, 11: 4}, shape=CHAIN)
    for cells in (over_cap, equal_neighbours, hole, ready):
        assert tables.probe(Board.from_cells(cells)) is None, cells


def test_a_top_row_tile_fallen_below_the_anchor_is_played_as_if_frozen():
    # As the tables AI's big build covers it: (0,2) need only be above the
    # free (0,3), and the table answers as for the block it stands for.
    spec = TableSpec(6, 5, CHAIN)   # block 1024 512 256 / 128 64 32: anchor 32
    tables = TableSet({spec: store(compute(spec))}, min_probability=0.0)
    standing = formation_cells(6, 5, {3: 4, 15: 2, 10: 4}, shape=CHAIN)
    fallen = list(standing)
    fallen[2] = 8                                              # below the anchor, above (0,3)'s 4
    expected = tables.probe(Board.from_cells(standing))
    found = tables.probe(Board.from_cells(fallen))
    assert expected is not None and found is not None
    assert (found.spec, found.move, found.probability) == (expected.spec, expected.move, expected.probability)
    # Not above (0,3): equal (they could merge) or below it.
    for right in (8, 16):
        beside = list(fallen)
        beside[3] = right
        assert tables.probe(Board.from_cells(beside)) is None, beside


def test_the_entry_table_covers_its_block_and_nothing_else(stored_table):
    spec = TableSpec(5, 4, ENTRY)   # block 512 256 128 / 64 32: goal 16 on (1,2)
    tables = TableSet({spec: stored_table(spec)}, min_probability=0.0)
    covered = formation_cells(5, 4, {6: 4, 15: 2, 3: 8}, shape=ENTRY)
    assert tables.probe(Board.from_cells(covered)).spec == spec
    # A bigger block still plays for 16, the highest goal built.
    bigger = list(covered)
    bigger[:3], bigger[4:6] = [8192, 4096, 2048], [1024, 512]
    assert tables.probe(Board.from_cells(bigger)).spec == spec
    over_cap = formation_cells(5, 4, {6: 4, 12: 8}, shape=ENTRY)          # the bottom row holds 4 at most
    rising = list(covered)
    rising[4] = 16                                               # (1,0) below (1,1)
    diagonal = list(covered)
    diagonal[2] = diagonal[5] = 64                               # (0,2) equal to (1,1)
    diagonal[0], diagonal[1], diagonal[4] = 1024, 512, 128
    hole = list(covered)
    hole[1] = 0
    ready = formation_cells(5, 4, {6: 16, 7: 8, 3: 8}, shape=ENTRY)
    for cells in (over_cap, rising, diagonal, hole, ready):
        assert tables.probe(Board.from_cells(cells)) is None, cells


def test_the_entry_table_one_goal_up_covers_free_tiles_over_the_caps(stored_table):
    # Block 256 128 64 / 32 16: goal 8 on (1,2), free tiles capped at 4 (2 on
    # the bottom row). A free 8 beside the block is over that cap but below
    # every frozen tile: the goal-16 table, with caps one rank higher, plays.
    small, big = TableSpec(5, 3, ENTRY), TableSpec(5, 4, ENTRY)
    both = TableSet({small: stored_table(small), big: stored_table(big)}, 0.0, {ENTRY: 0.0})
    only_small = TableSet({small: stored_table(small)}, 0.0, {ENTRY: 0.0})
    over = Board.from_cells(formation_cells(5, 3, {3: 8, 15: 2}, shape=ENTRY))
    assert only_small.probe(over) is None
    assert both.probe(over).spec == big
    within = Board.from_cells(formation_cells(5, 3, {3: 4, 15: 2}, shape=ENTRY))
    assert both.probe(within).spec == small
    # Not covered: 16 on the goal cell (it could merge into the block's 16),
    # a free 16, an 8 on the bottom row.
    for free in ({6: 16, 15: 2}, {3: 16}, {12: 8}):
        assert both.probe(Board.from_cells(formation_cells(5, 3, free, shape=ENTRY))) is None, free


def test_a_goal_tile_on_its_cell_with_a_second_one_beside_the_block_is_left_to_the_search(stored_table):
    # Block 256 128 64 / 32 16: goal 8 on (1,2). With an 8 there and a second
    # 8 on (0,3), (1,3) or row 2, the goal-16 table's caps hold the board, but
    # the two 8s are a merge or two from a 16 that joins the block: no table
    # answers, so the search plays. Without the second 8 the table still does.
    small, big = TableSpec(5, 3, ENTRY), TableSpec(5, 4, ENTRY)
    both = TableSet({small: stored_table(small), big: stored_table(big)}, 0.0, {ENTRY: 0.0})
    for second in (3, 7, 8, 9, 10, 11):   # (0,3), (1,3), then row 2
        cells = formation_cells(5, 3, {6: 8, second: 8, 15: 2}, shape=ENTRY)
        for s in range(8):   # symmetry 0 is the board itself
            assert both.probe(Board.from_cells(symmetry(cells, s))) is None, (second, s)
    alone = formation_cells(5, 3, {6: 8, 15: 2}, shape=ENTRY)
    assert both.probe(Board.from_cells(alone)).spec == small
    # The second 8 with a 4 on (1,2): the goal-16 table plays it as before.
    beside = formation_cells(5, 3, {6: 4, 10: 8, 15: 2}, shape=ENTRY)
    assert both.probe(Board.from_cells(beside)).spec == big


def test_a_trusted_table_answer_comes_before_a_likelier_untrusted_one(stored_table):
    # One board in two formations: the entry block (goal 16 on (1,2)) and
    # the chain block with anchor (1,2) = 16. Whichever threshold lets its
    # shape through decides which answer the probe, and a game, takes.
    entry_spec, chain_spec = TableSpec(5, 4, ENTRY), TableSpec(6, 4, CHAIN)
    cells = formation_cells(5, 4, {6: 16, 15: 2}, shape=ENTRY)
    tables = {entry_spec: stored_table(entry_spec), chain_spec: stored_table(chain_spec)}
    answers = {}
    for trusted in (ENTRY, CHAIN):
        other = CHAIN if trusted == ENTRY else ENTRY
        found = TableSet(tables, 0.0, {trusted: 0.0, other: 1.0}).probe(Board.from_cells(cells))
        assert found is not None
        answers[trusted] = found.spec.shape
    assert answers == {ENTRY: ENTRY, CHAIN: CHAIN}


def test_chain_and_entry_tables_keep_thresholds_of_their_own():
    tables = TableSet({}, min_probability=0.5)
    assert tables.min_by_shape == {0: 0.5, 1: 0.5, **DEFAULT_MIN_BY_SHAPE}
    assert TableSet({}, 0.5, {}).min_by_shape == {0: 0.5, 1: 0.5, 2: 0.5, 3: 0.5}
    with pytest.raises(ValueError):
        TableSet({}, 0.5, {CHAIN: 1.5})


def test_one_goals_table_keeps_a_threshold_of_its_own(stored_table):
    # Two entry tables, goals 8 and 16: the goal-16 table trusted from 0.1, the
    # goal-8 table from its shape's 0.9. Boards each table answers with a
    # probability from 0.1 to 0.9 are trusted from the one and not the other.
    low, high = TableSpec(5, 3, ENTRY), TableSpec(5, 4, ENTRY)
    tables = TableSet({low: stored_table(low), high: stored_table(high)}, 0.5, {ENTRY: 0.9},
                      min_by_goal={(ENTRY, 4): 0.1})
    assert (tables.threshold(low), tables.threshold(high)) == (0.9, 0.1)
    assert tables.thresholds == (0.9, 0.1)
    rng = np.random.default_rng(11)
    trusted_by_goal = {3: set(), 4: set()}
    for _ in range(3000):
        goal = int(rng.choice([3, 4]))
        free = {cell: int(rng.choice([0, 0] + [1 << r for r in range(1, cap + 1)]))
                for cell, cap in free_caps(5, goal, ENTRY).items()}
        found = tables.probe(Board.from_cells(formation_cells(5, goal, free, shape=ENTRY)))
        if found is not None and 0.1 <= found.probability < 0.9:
            trusted_by_goal[found.spec.goal].add(found.trusted)
    assert trusted_by_goal == {3: {False}, 4: {True}}


def test_the_goal_512_entry_table_is_trusted_from_0_1_and_the_other_entry_tables_from_0_9():
    tables = TableSet({}, min_probability=0.5)
    assert DEFAULT_MIN_BY_GOAL == {(ENTRY, 9): 0.1}
    assert [tables.threshold(TableSpec(5, goal, ENTRY)) for goal in (5, 7, 8, 9)] == [0.9, 0.9, 0.9, 0.1]
    assert tables.threshold(TableSpec(6, 9, CHAIN)) == 0.0 and tables.threshold(TableSpec(9, 9, 1)) == 0.5
    assert TableSet({}, 0.5, min_by_goal={}).threshold(TableSpec(5, 9, ENTRY)) == 0.9
    for bad in (-0.1, 1.5, float("nan")):
        with pytest.raises(ValueError, match="a table threshold must be between 0 and 1"):
            TableSet({}, 0.5, min_by_goal={(ENTRY, 9): bad})


def test_an_entry_board_is_played_toward_the_highest_goal_built_up_to_its_own(stored_table):
    # Tables of goals 8 and 32, none of 16: the block 512 256 128 / 64 32 has
    # goal 16 of its own, so the goal-8 table plays it (the goal-32 table
    # could let its goal tile merge into the block's 32).
    low, high = TableSpec(5, 3, ENTRY), TableSpec(5, 5, ENTRY)
    tables = TableSet({low: stored_table(low), high: stored_table(high)}, 0.0, {ENTRY: 0.0})
    board = Board.from_cells(formation_cells(5, 4, {6: 4, 3: 2, 15: 2}, shape=ENTRY))
    assert tables.probe(board).spec == low
    only_high = TableSet({high: stored_table(high)}, 0.0, {ENTRY: 0.0})
    assert only_high.probe(board) is None


def test_a_board_over_the_goal_512_tables_bottom_caps_falls_to_the_goal_256_table(tmp_path):
    # The goal-512 table caps its bottom row at 32, the optional goal-256 table
    # at 64: a 64 there leaves the board to the goal-256 table. The two tables
    # are sparse files of zeros (6.9 and 5.7 GB on disk, a few pages in memory)
    # with one answer written where each board stands.
    top, lower = TableSpec(5, 9, ENTRY), TableSpec(5, 8, ENTRY)
    arrays = {}
    for spec in (top, lower):
        path = tmp_path / spec.filename
        with open(path, "wb") as file:
            file.truncate(spec.entries)
        arrays[spec] = np.memmap(path, dtype=np.uint8, mode="r+", shape=(spec.entries,))
    within = formation_cells(5, 9, {6: 128, 3: 64, 12: 32}, shape=ENTRY)
    over = formation_cells(5, 9, {6: 128, 3: 64, 12: 64}, shape=ENTRY)
    sure_right = (60 << 2) | int(Move.RIGHT)   # a move that changes both boards
    arrays[top][formation_index(5, 9, within, ENTRY)] = sure_right
    arrays[lower][formation_index(5, 8, over, ENTRY)] = sure_right
    tables = TableSet(dict(arrays), 0.0, {ENTRY: 0.0})
    assert tables.probe(Board.from_cells(within)).spec == top
    assert tables.probe(Board.from_cells(over)).spec == lower
    only_top = TableSet({top: arrays[top]}, 0.0, {ENTRY: 0.0})
    assert only_top.probe(Board.from_cells(over)) is None
