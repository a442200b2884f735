"""The endgame table builder: the C tables against the Python oracle, entry for
entry on tiny formations and one step of the rules at a time on big ones, and
known answers from the rules."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import formation_cells, formation_index

from solve2048 import reference
from solve2048.errors import InvalidArgumentError
from solve2048.reference_tables import STORED_ONE, backup, entry_ready, free_caps, solve, stored
from solve2048.tables import CHAIN, ENTRY, PROBABILITY_STEP, TableSpec
from solve2048.tables_build import compute, compute_stored, store, widest_layer

# Tiny formations the oracle solves in about a second each: (frozen, goal, shape).
TINY = [(13, 3, 0), (13, 4, 0), (13, 5, 0), (12, 3, 0), (12, 4, 0), (11, 4, 0), (10, 3, 0),
        (9, 3, 1), (9, 4, 1), (6, 4, 2), (5, 3, 3)]


@pytest.mark.parametrize("frozen, goal, shape", TINY)
def test_builder_matches_the_oracle_entry_for_entry(frozen, goal, shape):
    built = compute(TableSpec(frozen, goal, shape), jobs=2)
    assert built.tolist() == solve(frozen, goal, shape)


def test_the_tiny_tables_hold_probabilities_strictly_between_0_and_1():
    # So that the comparison above checks the arithmetic, not only 0s and 1s.
    for frozen, goal, shape in [(12, 4, 0), (11, 4, 0), (9, 4, 1), (6, 4, CHAIN), (5, 3, ENTRY)]:
        assert any(0 < entry >> 2 < 16383 for entry in solve(frozen, goal, shape))


def test_storing_an_entry_agrees_with_the_oracle_for_every_16_bit_value():
    every = np.arange(1 << 16, dtype=np.uint16)
    assert store(every).tolist() == [stored(int(entry)) for entry in every]


def test_a_stored_entry_keeps_the_move_and_every_threshold_on_the_grid():
    # Rounded down to steps of 1/60, so "at least k/60" (0.1, 0.8, 0.9, 0.95
    # among them) answers as the exact probability q / 16383 does, for k >= 2;
    # above 0 stays above 0, and 1 stays 1.
    every = np.arange(1 << 16, dtype=np.int64)
    kept = store(every.astype(np.uint16)).astype(np.int64)
    q, steps = every >> 2, kept >> 2
    assert np.array_equal(kept & 3, every & 3)
    assert np.array_equal(steps > 0, q > 0)
    assert steps.max() == STORED_ONE and np.all(steps[q == 16383] == STORED_ONE)
    assert PROBABILITY_STEP == 1 / STORED_ONE   # the step the commands show a probability with
    for k in range(2, STORED_ONE + 1):
        assert np.array_equal(steps >= k, q * STORED_ONE >= k * 16383), k


@pytest.mark.parametrize("spec", [TableSpec(9, 5), TableSpec(13, 5), TableSpec(6, 5, CHAIN)])
def test_threads_build_the_same_table_as_one(spec):
    # A layer is dealt to the threads by the values of its top five free cells
    # (three free cells: by every arrangement); every split writes each entry once.
    one = compute(spec, jobs=1)
    for jobs in (2, 3):
        assert np.array_equal(compute(spec, jobs=jobs), one), jobs


@pytest.mark.parametrize("spec", [TableSpec(9, 5), TableSpec(9, 5, 1), TableSpec(6, 6, CHAIN), TableSpec(5, 5, ENTRY)])
def test_a_build_for_the_file_writes_the_stored_form_of_every_built_entry(spec):
    # A build for a file writes 8-bit entries straight from the three layers it
    # holds at 16 bits; they are the stored form of the 16-bit table, whatever
    # the number of threads.
    expected = store(compute(spec, jobs=1))
    for jobs in (1, 2, 3):
        assert np.array_equal(compute_stored(spec, jobs=jobs), expected), jobs


@pytest.mark.parametrize("spec", [TableSpec(12, 4), TableSpec(9, 4, 1), TableSpec(6, 5, CHAIN), TableSpec(5, 4, ENTRY)])
def test_the_builder_holds_three_of_the_widest_layer(spec):
    # The widest layer, counted arrangement by arrangement: the builder's
    # three windows are sized by it, and every layer must fit.
    caps = list(free_caps(spec.frozen, spec.goal, spec.shape).values())
    ranks = np.indices([cap + 1 for cap in caps]).reshape(len(caps), -1)
    sums = np.where(ranks > 0, 1 << ranks, 0).sum(axis=0)
    assert sums.size == spec.entries
    assert widest_layer(spec) == np.bincount(sums).max()


def test_the_builder_refuses_a_formation_it_has_no_table_for():
    with pytest.raises(InvalidArgumentError, match="refused table"):
        compute_stored(TableSpec(7, 6, 1))   # a block of 9 frozen cells and goal 64: no such table
    with pytest.raises(InvalidArgumentError, match="refused table"):
        widest_layer(TableSpec(7, 6, 1))


def test_known_answers_from_the_rules():
    # Frozen 13: the free cells are the bottom row's first three, the target is
    # (3,2) beside the anchor (3,3). Two 2**(goal-1) slide right and merge on it.
    goal = 4
    table = compute(TableSpec(13, goal))
    sure = formation_cells(13, goal, {12: 8, 13: 8})
    entry = int(table[formation_index(13, goal, sure)])
    assert entry >> 2 == 16383 and entry & 3 == 3          # right, probability 1
    nothing_moves = formation_cells(13, goal, {})
    assert int(table[formation_index(13, goal, nothing_moves)]) == 0   # no allowed move
    # Goal 8 from 4 . 4: right merges the two 4s onto the target (probability
    # 1); left would make the 8 on the wrong cell (0), so right is the move.
    table = compute(TableSpec(13, 3))
    entry = int(table[formation_index(13, 3, formation_cells(13, 3, {12: 4, 14: 4}))])
    assert entry >> 2 == 16383 and entry & 3 == 3


def test_a_chain_table_plays_for_a_ready_chain():
    # Anchor 16 (the block's lower row is 64 32 16): the goal is 8 4 2 and a
    # second 2 beside the last, along row 2 or down column 3.
    a = 4
    table = compute(TableSpec(6, a, CHAIN))
    # Row 2 holds 8 4 2; up lifts the 2 of (3,3) onto (2,3) beside it.
    along_row = formation_cells(6, a, {8: 8, 9: 4, 10: 2, 15: 2, 3: 2, 7: 4}, shape=CHAIN)
    # Column 3 holds 8 4 . 2 and (2,2) a 2: up closes the gap, 2 beside 2.
    down_column = formation_cells(6, a, {3: 8, 7: 4, 15: 2, 10: 2}, shape=CHAIN)
    for cells in (along_row, down_column):
        entry = int(table[formation_index(6, a, cells, CHAIN)])
        assert entry >> 2 == 16383 and entry & 3 == 0, cells
    # Two 2s in the corner under the block: left would merge them into a 4
    # where only a 2 may stand, which breaks the formation; up keeps it.
    corner = formation_cells(6, a, {12: 2, 13: 2}, shape=CHAIN)
    entry = int(table[formation_index(6, a, corner, CHAIN)])
    assert entry & 3 == 0 and entry >> 2 > 0


def test_an_entry_table_plays_for_its_goal_with_a_ready_pair():
    # Goal 16 on (1,2) (the block is 512 256 128 / 64 32): 16 there, and
    # beside it two 8s side by side, one merge from 32 on (1,2).
    g = 4
    table = compute(TableSpec(5, g, ENTRY))
    # 16 on (1,2), 8 on (0,3), and 4 4 lower in column 3: up merges them
    # into the 8 on (1,3), beside both the 16 and the other 8.
    sure = formation_cells(5, g, {6: 16, 3: 8, 11: 4, 15: 4}, shape=ENTRY)
    entry = int(table[formation_index(5, g, sure, ENTRY)])
    assert entry >> 2 == 16383 and entry & 3 == 0
    assert entry_ready(reference.move(sure, "up")[0], g)


@pytest.mark.parametrize("frozen, goal, shape", [(6, 6, CHAIN), (6, 7, CHAIN), (5, 4, ENTRY), (5, 5, ENTRY)])
def test_big_tables_agree_with_the_rules_one_step_at_a_time(built_table, frozen, goal, shape):
    # Too big for the oracle to solve whole (3.7, 27.6, 1.7 and 24 million entries):
    # every entry must be what one step of the rules makes of the C
    # table's own entries after each spawn, on random boards within the caps.
    table = built_table(TableSpec(frozen, goal, shape))

    def known(cells: list[int]) -> int:
        return int(table[formation_index(frozen, goal, cells, shape)])

    rng = np.random.default_rng(1)
    strictly_between = 0
    for _ in range(300):
        fill = rng.uniform(0.2, 0.9)
        free = {cell: 1 << int(rng.integers(1, cap + 1)) if rng.random() < fill else 0
                for cell, cap in free_caps(frozen, goal, shape).items()}
        cells = formation_cells(frozen, goal, free, shape)
        entry = backup(frozen, goal, shape, cells, known)
        assert entry == known(cells), cells
        strictly_between += 0 < entry >> 2 < 16383
    assert strictly_between > 50


def test_a_block_counts_the_goal_on_either_target():
    # 3x3 block, anchor (2,2) = 16: a 16 made right of it or below it is the goal.
    goal = 4
    table = compute(TableSpec(9, goal, 1))
    right = formation_cells(9, goal, {3: 2, 7: 4, 11: 8, 15: 8}, shape=1)    # up merges onto (2,3)
    below = formation_cells(9, goal, {12: 2, 13: 4, 14: 8, 15: 8}, shape=1)  # left merges onto (3,2)
    for cells, direction in ((right, 0), (below, 2)):
        entry = int(table[formation_index(9, goal, cells, shape=1)])
        assert entry >> 2 == 16383 and entry & 3 == direction


@pytest.mark.parametrize("goal", range(3, 10))
def test_the_entry_caps_are_the_oracles_up_to_goal_512(goal):
    # From goal 512 on the bottom row is capped at 32 (csrc/formations.h): the
    # goal-512 table has 6.9 billion entries instead of the 21.8 billion that
    # 128 on the bottom row would need. C and the oracle must agree on every cap.
    from solve2048.engine import lib

    caps = free_caps(5, goal, ENTRY)
    assert TableSpec(5, goal, ENTRY).entries == int(np.prod([cap + 1 for cap in caps.values()], dtype=object))
    assert lib.s2048_table_max_sum(ENTRY, 5, goal) == sum(1 << cap for cap in caps.values())
    bottom = {caps[cell] for cell in (12, 13, 14, 15)}
    assert bottom == ({5} if goal >= 9 else {goal - 2})
    assert caps[6] == goal and {caps[c] for c in (3, 7, 8, 9, 10, 11)} == {goal - 1}


# The checksums of the entries BUILDER_REVISION's builder solves: the first is
# the default set's entry-11:32, as every results file since 2026-12-05
# records it (table_sums). A builder change that fails this has changed what
# installed tables hold: raise BUILDER_REVISION in solver/tables.py, so that
# `tables build` builds them again, and write the new sums here.
BUILT_SUMS = {TableSpec(5, 5, ENTRY): 0x7BCFBFA7AA70B0D5, TableSpec(6, 6, CHAIN): 0xF95FFB5D1D2DCB58}


@pytest.mark.parametrize("spec", BUILT_SUMS, ids=str)
def test_the_builder_solves_the_entries_of_its_revision(spec):
    from solve2048.tables import BUILDER_REVISION, checksum

    assert BUILDER_REVISION == 0, "new sums for a new builder revision: see BUILT_SUMS"
    assert checksum(compute_stored(spec, jobs=2)) == BUILT_SUMS[spec]
