"""Endgame tables: the C builder against the Python oracle, look-ups under every
symmetry, the files (torn, damaged, missing), and games that use them."""

from __future__ import annotations

import json
import os
from functools import lru_cache

import numpy as np
import pytest

from solve2048 import Board, reference
from solve2048.selfplay import Game
from solve2048.reference_tables import (PATH, backup, chain_ready, entry_ready, free_caps, frozen_tiles,
                                        index_of, solve)
from solve2048.engine import Weights
from solve2048.tables import (DEFAULT_MIN_BY_SHAPE, DEFAULT_MIN_PROBABILITY, TableError, TableSet, TableSpec, load,
                               open_table, search_weights)
from solve2048.tables_build import build_all, compute, save

# Tiny formations the oracle solves in about a second each: (frozen, goal, shape).
TINY = [(13, 3, 0), (13, 4, 0), (13, 5, 0), (12, 3, 0), (12, 4, 0), (11, 4, 0), (10, 3, 0),
        (9, 3, 1), (9, 4, 1), (6, 4, 2), (5, 3, 3)]
CHAIN = 2
ENTRY = 3


@lru_cache(maxsize=None)
def _built(spec: TableSpec):
    """A table built once for every test that reads it; read-only."""
    table = compute(spec, jobs=2)
    table.flags.writeable = False
    return table


@pytest.mark.parametrize("frozen, goal, shape", TINY)
def test_builder_matches_the_oracle_entry_for_entry(frozen, goal, shape):
    built = compute(TableSpec(frozen, goal, shape), jobs=2)
    assert built.tolist() == solve(frozen, goal, shape)


def test_the_tiny_tables_hold_probabilities_strictly_between_0_and_1():
    # So that the comparison above checks the arithmetic, not only 0s and 1s.
    for frozen, goal, shape in [(12, 4, 0), (11, 4, 0), (9, 4, 1), (6, 4, CHAIN), (5, 3, ENTRY)]:
        assert any(0 < entry >> 2 < 16383 for entry in solve(frozen, goal, shape))


def test_two_threads_build_the_same_table_as_one():
    spec = TableSpec(9, 5)
    assert np.array_equal(compute(spec, jobs=1), compute(spec, jobs=2))


def _cells(frozen: int, goal: int, free: dict[int, int], shape: int = 0) -> list[int]:
    """A real board: distinct tiles falling to the anchor on the frozen cells, then free tiles."""
    cells = [0] * 16
    for cell, tile in frozen_tiles(frozen, goal, shape).items():
        cells[cell] = tile
    for cell, tile in free.items():
        cells[cell] = tile
    return cells


def _index(frozen: int, goal: int, cells: list[int], shape: int = 0) -> int:
    return index_of(frozen, goal, shape, cells)


def test_known_answers_from_the_rules():
    # Frozen 13: the free cells are the bottom row's first three, the target is
    # (3,2) beside the anchor (3,3). Two 2**(goal-1) slide right and merge on it.
    goal = 4
    table = compute(TableSpec(13, goal))
    sure = _cells(13, goal, {12: 8, 13: 8})
    entry = int(table[_index(13, goal, sure)])
    assert entry >> 2 == 16383 and entry & 3 == 3          # right, probability 1
    nothing_moves = _cells(13, goal, {})
    assert int(table[_index(13, goal, nothing_moves)]) == 0   # no allowed move
    # Goal 8 from 4 . 4: right merges the two 4s onto the target (probability
    # 1); left would make the 8 on the wrong cell (0), so right is the move.
    table = compute(TableSpec(13, 3))
    entry = int(table[_index(13, 3, _cells(13, 3, {12: 4, 14: 4}))])
    assert entry >> 2 == 16383 and entry & 3 == 3


def test_a_chain_table_plays_for_a_ready_chain():
    # Anchor 16 (the block's lower row is 64 32 16): the goal is 8 4 2 and a
    # second 2 beside the last, along row 2 or down column 3.
    a = 4
    table = compute(TableSpec(6, a, CHAIN))
    # Row 2 holds 8 4 2; up lifts the 2 of (3,3) onto (2,3) beside it.
    along_row = _cells(6, a, {8: 8, 9: 4, 10: 2, 15: 2, 3: 2, 7: 4}, shape=CHAIN)
    # Column 3 holds 8 4 . 2 and (2,2) a 2: up closes the gap, 2 beside 2.
    down_column = _cells(6, a, {3: 8, 7: 4, 15: 2, 10: 2}, shape=CHAIN)
    for cells in (along_row, down_column):
        entry = int(table[_index(6, a, cells, CHAIN)])
        assert entry >> 2 == 16383 and entry & 3 == 0, cells
    # Two 2s in the corner under the block: left would merge them into a 4
    # where only a 2 may stand, which breaks the formation; up keeps it.
    corner = _cells(6, a, {12: 2, 13: 2}, shape=CHAIN)
    entry = int(table[_index(6, a, corner, CHAIN)])
    assert entry & 3 == 0 and entry >> 2 > 0


def test_an_entry_table_plays_for_its_goal_with_a_ready_pair():
    # Goal 16 on (1,2) (the block is 512 256 128 / 64 32): 16 there, and
    # beside it two 8s side by side, one merge from 32 on (1,2).
    g = 4
    table = compute(TableSpec(5, g, ENTRY))
    # 16 on (1,2), 8 on (0,3), and 4 4 lower in column 3: up merges them
    # into the 8 on (1,3), beside both the 16 and the other 8.
    sure = _cells(5, g, {6: 16, 3: 8, 11: 4, 15: 4}, shape=ENTRY)
    entry = int(table[_index(5, g, sure, ENTRY)])
    assert entry >> 2 == 16383 and entry & 3 == 0
    assert entry_ready(reference.move(sure, "up")[0], g)


@pytest.mark.parametrize("frozen, goal, shape", [(6, 6, CHAIN), (6, 7, CHAIN), (5, 4, ENTRY), (5, 5, ENTRY)])
def test_big_tables_agree_with_the_rules_one_step_at_a_time(frozen, goal, shape):
    # Too big for the oracle to solve whole (3.7, 27.6, 1.7 and 24 million entries):
    # every entry must be what one step of the rules makes of the C
    # table's own entries after each spawn, on random boards within the caps.
    table = _built(TableSpec(frozen, goal, shape))

    def known(cells: list[int]) -> int:
        return int(table[_index(frozen, goal, cells, shape)])

    rng = np.random.default_rng(1)
    strictly_between = 0
    for _ in range(300):
        fill = rng.uniform(0.2, 0.9)
        free = {cell: 1 << int(rng.integers(1, cap + 1)) if rng.random() < fill else 0
                for cell, cap in free_caps(frozen, goal, shape).items()}
        cells = _cells(frozen, goal, free, shape)
        entry = backup(frozen, goal, shape, cells, known)
        assert entry == known(cells), cells
        strictly_between += 0 < entry >> 2 < 16383
    assert strictly_between > 50


def _symmetry(cells: list[int], s: int) -> list[int]:
    grid = [cells[4 * r:4 * r + 4] for r in range(4)]
    if s & 1:
        grid = [row[::-1] for row in grid]
    if s & 2:
        grid = grid[::-1]
    if s & 4:
        grid = [list(col) for col in zip(*grid)]
    return [v for row in grid for v in row]


def test_a_block_counts_the_goal_on_either_target():
    # 3x3 block, anchor (2,2) = 16: a 16 made right of it or below it is the goal.
    goal = 4
    table = compute(TableSpec(9, goal, 1))
    right = _cells(9, goal, {3: 2, 7: 4, 11: 8, 15: 8}, shape=1)    # up merges onto (2,3)
    below = _cells(9, goal, {12: 2, 13: 4, 14: 8, 15: 8}, shape=1)  # left merges onto (3,2)
    for cells, direction in ((right, 0), (below, 2)):
        entry = int(table[_index(9, goal, cells, shape=1)])
        assert entry >> 2 == 16383 and entry & 3 == direction


def _table_answer(table, frozen: int, goal: int, shape: int, cells: list[int]) -> list[int]:
    """The board after the table's move on a board in the formation's own orientation."""
    entry = int(table[_index(frozen, goal, cells, shape)])
    return reference.move(cells, reference.DIRECTIONS[entry & 3])[0]


@pytest.mark.parametrize("frozen, goal, shape", [(11, 4, 0), (9, 4, 1), (6, 3, 1), (6, 5, CHAIN), (5, 4, ENTRY)])
def test_probe_agrees_with_the_table_under_all_eight_symmetries(frozen, goal, shape):
    spec = TableSpec(frozen, goal, shape)
    table = compute(spec)
    tables = TableSet({spec: table}, min_probability=0.0)
    rng = np.random.default_rng(7)
    caps = free_caps(frozen, goal, shape)
    checked = 0
    for _ in range(200):
        free = {cell: int(rng.choice([0, 0] + [1 << r for r in range(1, cap + 1)]))
                for cell, cap in caps.items()}
        cells = _cells(frozen, goal, free, shape)
        entry = int(table[_index(frozen, goal, cells, shape)])
        ready = {CHAIN: chain_ready, ENTRY: entry_ready}.get(shape)
        if entry >> 2 == 0 or (ready and ready(cells, goal)):
            continue   # no move worth playing, or the goal already made
        answers = [_table_answer(table, frozen, goal, shape, cells)]
        if (frozen, shape) == (9, 1):
            # The 3x3 block is its own transpose: the board matches it twice,
            # with equal probabilities, and either best move may be played.
            transposed = _symmetry(cells, 4)
            answers.append(_symmetry(_table_answer(table, frozen, goal, shape, transposed), 4))
        for s in range(8):
            image = _symmetry(cells, s)
            found = tables.probe(Board.from_cells(image))
            assert found is not None and found.spec == spec
            assert found.probability == pytest.approx((entry >> 2) / 16383, abs=0)
            moved, _ = reference.move(image, found.move.name.lower())
            assert moved in [_symmetry(after, s) for after in answers]
        checked += 1
    assert checked > 50


def test_a_board_outside_every_formation_is_not_covered():
    spec = TableSpec(11, 4)
    tables = TableSet({spec: compute(spec)}, min_probability=0.0)
    # The same snake with a free tile as big as the anchor: not covered.
    cells = _cells(11, 4, {PATH[12]: 16})
    assert tables.probe(Board.from_cells(cells)) is None
    # Two equal frozen neighbours could merge: not covered either.
    cells = _cells(11, 4, {PATH[12]: 2})
    cells[PATH[1]] = cells[PATH[0]]
    assert tables.probe(Board.from_cells(cells)) is None


def test_a_board_outside_the_block_is_not_covered():
    spec = TableSpec(9, 4, 1)
    tables = TableSet({spec: compute(spec)}, min_probability=0.0)
    covered = _cells(9, 4, {15: 2, 14: 4}, shape=1)
    assert tables.probe(Board.from_cells(covered)) is not None
    big_free = _cells(9, 4, {15: 2, 14: 16}, shape=1)         # as big as the anchor
    equal_neighbours = _cells(9, 4, {15: 2}, shape=1)
    equal_neighbours[1] = equal_neighbours[0]
    low_block_tile = _cells(9, 4, {15: 2}, shape=1)
    low_block_tile[0] = 8                                      # below the anchor's 16
    for cells in (big_free, equal_neighbours, low_block_tile):
        assert tables.probe(Board.from_cells(cells)) is None, cells


def test_a_chain_table_plays_the_smaller_anchors_within_their_caps():
    # The anchor-64 table covers a block whose anchor is 32, with the free
    # tiles within the caps of 32 (so none can merge into the block), and
    # with no ready chain to 32 yet.
    spec = TableSpec(6, 6, CHAIN)
    tables = TableSet({spec: _built(spec)}, min_probability=0.0)
    covered = _cells(6, 5, {15: 2, 14: 4, 3: 16}, shape=CHAIN)
    assert tables.probe(Board.from_cells(covered)).spec == spec
    over_small_cap = _cells(6, 5, {15: 8, 3: 16}, shape=CHAIN)   # (3,3) may hold 4 below 32
    ready_for_32 = _cells(6, 5, {8: 16, 9: 8, 10: 4, 11: 4}, shape=CHAIN)
    for cells in (over_small_cap, ready_for_32):
        assert tables.probe(Board.from_cells(cells)) is None, cells
    # A bigger anchor than any table's: not covered.
    assert TableSet({TableSpec(6, 5, CHAIN): _built(TableSpec(6, 5, CHAIN))}, 0.0).probe(
        Board.from_cells(_cells(6, 6, {15: 2}, shape=CHAIN))) is None


def test_a_board_outside_the_chain_formation_is_not_covered():
    spec = TableSpec(6, 5, CHAIN)   # block 1024 512 256 / 128 64 32: anchor 32
    tables = TableSet({spec: compute(spec)}, min_probability=0.0)
    covered = _cells(6, 5, {15: 2, 14: 4, 3: 16}, shape=CHAIN)
    assert tables.probe(Board.from_cells(covered)) is not None
    over_cap = _cells(6, 5, {15: 2, 7: 16}, shape=CHAIN)       # (1,3) may hold 8 at most
    equal_neighbours = list(covered)
    equal_neighbours[1] = equal_neighbours[0]
    hole = list(covered)
    hole[0] = 0
    ready = _cells(6, 5, {8: 16, 9: 8, 10: 4, 11: 4}, shape=CHAIN)
    for cells in (over_cap, equal_neighbours, hole, ready):
        assert tables.probe(Board.from_cells(cells)) is None, cells


def test_the_entry_table_covers_its_block_and_nothing_else():
    spec = TableSpec(5, 4, ENTRY)   # block 512 256 128 / 64 32: goal 16 on (1,2)
    tables = TableSet({spec: _built(spec)}, min_probability=0.0)
    covered = _cells(5, 4, {6: 4, 15: 2, 3: 8}, shape=ENTRY)
    assert tables.probe(Board.from_cells(covered)).spec == spec
    # A bigger block still plays for 16, the highest goal built.
    bigger = list(covered)
    bigger[:3], bigger[4:6] = [8192, 4096, 2048], [1024, 512]
    assert tables.probe(Board.from_cells(bigger)).spec == spec
    over_cap = _cells(5, 4, {6: 4, 12: 8}, shape=ENTRY)          # the bottom row holds 4 at most
    rising = list(covered)
    rising[4] = 16                                               # (1,0) below (1,1)
    diagonal = list(covered)
    diagonal[2] = diagonal[5] = 64                               # (0,2) equal to (1,1)
    diagonal[0], diagonal[1], diagonal[4] = 1024, 512, 128
    hole = list(covered)
    hole[1] = 0
    ready = _cells(5, 4, {6: 16, 7: 8, 3: 8}, shape=ENTRY)
    for cells in (over_cap, rising, diagonal, hole, ready):
        assert tables.probe(Board.from_cells(cells)) is None, cells


def test_the_entry_table_one_goal_up_covers_free_tiles_over_the_caps():
    # Block 256 128 64 / 32 16: goal 8 on (1,2), free tiles capped at 4 (2 on
    # the bottom row). A free 8 beside the block is over that cap but below
    # every frozen tile: the goal-16 table, with caps one rank higher, plays.
    small, big = TableSpec(5, 3, ENTRY), TableSpec(5, 4, ENTRY)
    both = TableSet({small: _built(small), big: _built(big)}, 0.0, {ENTRY: 0.0})
    only_small = TableSet({small: _built(small)}, 0.0, {ENTRY: 0.0})
    over = Board.from_cells(_cells(5, 3, {3: 8, 15: 2}, shape=ENTRY))
    assert only_small.probe(over) is None
    assert both.probe(over).spec == big
    within = Board.from_cells(_cells(5, 3, {3: 4, 15: 2}, shape=ENTRY))
    assert both.probe(within).spec == small
    # Not covered: 16 on the goal cell (it could merge into the block's 16),
    # a free 16, an 8 on the bottom row.
    for free in ({6: 16, 15: 2}, {3: 16}, {12: 8}):
        assert both.probe(Board.from_cells(_cells(5, 3, free, shape=ENTRY))) is None, free


def test_a_trusted_table_answer_comes_before_a_likelier_untrusted_one():
    # One board in two formations: the entry block (goal 16 on (1,2)) and
    # the chain block with anchor (1,2) = 16. Whichever threshold lets its
    # shape through decides which answer the probe, and a game, takes.
    entry_spec, chain_spec = TableSpec(5, 4, ENTRY), TableSpec(6, 4, CHAIN)
    cells = _cells(5, 4, {6: 16, 15: 2}, shape=ENTRY)
    tables = {entry_spec: _built(entry_spec), chain_spec: _built(chain_spec)}
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


def test_files_round_trip_and_bad_files_are_refused(tmp_path):
    spec = TableSpec(11, 4)
    table = compute(spec)
    path = save(spec, table, tmp_path)
    assert np.array_equal(open_table(path, spec), table)
    assert not list(tmp_path.glob("*.partial"))

    data = bytearray(path.read_bytes())
    data[100] ^= 0xFF
    path.write_bytes(bytes(data))
    with pytest.raises(TableError, match="checksum"):
        open_table(path, spec, recheck=True)
    path.write_bytes(bytes(data[:-10]))
    with pytest.raises(TableError, match="torn"):
        open_table(path, spec)
    path.write_bytes(b"not a table at all, just some text of some length" * 4)
    with pytest.raises(TableError, match="not a table"):
        open_table(path, spec)


def test_a_checked_table_is_trusted_until_its_file_changes(tmp_path):
    spec = TableSpec(11, 4)
    path = save(spec, compute(spec), tmp_path)
    open_table(path, spec)                      # checks in full, leaves a stamp
    assert (tmp_path / (spec.filename + ".checked")).exists()
    data = bytearray(path.read_bytes())
    data[100] ^= 0xFF
    path.write_bytes(bytes(data))
    stat = path.stat()
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))
    with pytest.raises(TableError, match="checksum"):
        open_table(path, spec)                  # a new modification time: checked again


def test_load_reports_damaged_and_missing_tables_and_uses_the_rest(tmp_path):
    good, bad, absent = TableSpec(11, 4), TableSpec(12, 4), TableSpec(13, 4)
    build_all(tmp_path, (good, bad))
    (tmp_path / bad.filename).write_bytes(b"S2048EGT" + b"\0" * 10)
    installed = load(tmp_path, (good, bad, absent))
    assert installed.tables.specs == [good]
    assert len(installed.problems) == 1 and bad.filename in installed.problems[0]
    assert installed.missing == [absent]


def test_build_all_skips_finished_tables(tmp_path):
    spec = TableSpec(11, 4)
    first = build_all(tmp_path, (spec,))
    again = build_all(tmp_path, (spec,))
    assert first[0].built and not again[0].built


@pytest.fixture(scope="module")
def small_tables() -> TableSet:
    # Snakes, and the small chain and entry blocks that games at depth 1 reach
    # when the search plays the tables' heuristic.
    specs = ([TableSpec(8, g) for g in (5, 6, 7)] + [TableSpec(7, g) for g in (5, 6)]
             + [TableSpec(6, 6, CHAIN), TableSpec(5, 5, ENTRY)])
    return TableSet({s: compute(s, jobs=2) for s in specs}, min_probability=0.5)


def test_games_take_table_moves_exactly_when_the_tables_say_so(small_tables):
    total = 0
    for seed in range(3):
        game = Game(seed, depth=1, tables=small_tables)
        board, taken = game.board, 0
        while not game.over:
            for step in game.advance(512):
                choice = small_tables.choose(board)
                assert step.from_table == (choice is not None)
                if choice is not None:
                    assert step.move == choice.move and step.depth == 0
                    taken += 1
                board = step.board
        assert game.result().table_moves == taken
        total += taken
    assert total > 0


def test_games_with_tables_repeat_bit_for_bit(small_tables):
    first = next(r for r in (Game(seed, depth=1, tables=small_tables).run() for seed in range(10))
                 if r.table_moves > 0)
    second = Game(first.seed, depth=1, tables=small_tables).run()
    assert (first.score, first.moves, first.final_board, first.table_moves) == (
        second.score, second.moves, second.final_board, second.table_moves)


def test_the_search_beside_tables_plays_the_tables_heuristic(small_tables):
    assert search_weights(small_tables) == Weights.for_tables()
    assert search_weights(None) is None and search_weights(TableSet({})) is None
    assert search_weights(small_tables, 1) is None       # greedy: the default weights
    greedy = Game(4, depth=1, tables=small_tables).run()
    greedy_default = Game(4, depth=1, tables=small_tables, weights=Weights()).run()
    assert (greedy.moves, greedy.final_board) == (greedy_default.moves, greedy_default.final_board)
    beside = Game(4, depth=2, tables=small_tables).run()
    told = Game(4, depth=2, tables=small_tables, weights=Weights.for_tables()).run()
    default = Game(4, depth=2, tables=small_tables, weights=Weights()).run()
    assert (beside.moves, beside.final_board) == (told.moves, told.final_board)
    assert (beside.moves, beside.final_board) != (default.moves, default.final_board)


# ---- the commands ----

def _run(*args: str):
    from click.testing import CliRunner

    from solve2048.cli.main import cli
    return CliRunner().invoke(cli, list(args))


def _json_of(result) -> dict:
    # The JSON line of stdout (click before 8.2 mixes stderr's warnings into it).
    return json.loads(next(line for line in result.stdout.splitlines() if line.startswith("{")))


def test_tables_build_info_and_a_damaged_file(tmp_path):
    result = _run("tables", "build", "--dir", str(tmp_path), "--only", "entry-11:32", "--only", "block-7:32")
    assert result.exit_code == 0, result.output
    result = _run("tables", "info", "--dir", str(tmp_path), "--json")
    status = {(t["shape"], t["free_cells"], t["goal"]): t["status"] for t in _json_of(result)["tables"]}
    assert status[("entry", 11, 32)] == status[("block", 7, 32)] == "ok"
    assert status[("entry", 11, 64)] == "missing"

    damaged = tmp_path / TableSpec(9, 5, 1).filename
    damaged.write_bytes(damaged.read_bytes()[:-2])
    result = _run("tables", "info", "--dir", str(tmp_path))
    assert "damaged" in result.output and "torn" in result.output
    # A command that plays says so in one line, and searches instead.
    board = "8 16 32 64 / 4 . . . / . . . . / . . . 2"
    result = _run("hint", board, "-d", "1", "--tables-dir", str(tmp_path), "--json")
    assert result.exit_code == 0
    assert "warning" in result.output and "torn" in result.output
    assert "endgame tables are missing" in result.output


def test_tables_build_refuses_an_unknown_table(tmp_path):
    result = _run("tables", "build", "--dir", str(tmp_path), "--only", "9:4096")
    assert result.exit_code == 2 and "no table '9:4096'" in result.output


def test_optional_block_tables_are_built_on_request_and_then_used(tmp_path):
    result = _run("tables", "build", "--dir", str(tmp_path), "--only", "block-7:32")
    assert result.exit_code == 0, result.output
    rows = _json_of(_run("tables", "info", "--dir", str(tmp_path), "--json"))["tables"]
    block = [t for t in rows if t["shape"] == "block"]
    assert [(t["free_cells"], t["goal"], t["status"]) for t in block] == [(7, 32, "ok")]
    assert {t["shape"] for t in rows if t["status"] == "missing"} == {"chain", "entry"}
    text = _run("tables", "info", "--dir", str(tmp_path), "--no-verify").output
    assert "block goal     32: ok" in text and "9 optional tables not built" in text
    tables = load(tmp_path, min_probability=0.0).tables
    assert tables.specs == [TableSpec(9, 5, 1)]
    # A 3x3 block down to the anchor 32; left merges 16 16 onto the cell below it.
    board = "2048 1024 512 . / 1024 512 256 . / 256 128 32 . / 2 4 16 16"
    found = tables.probe(Board(board))
    assert found is not None and found.spec == TableSpec(9, 5, 1)
    assert found.probability == 1.0 and str(found.move) == "left"


def test_an_entry_table_is_built_by_name_and_then_used(tmp_path):
    result = _run("tables", "build", "--dir", str(tmp_path), "--only", "entry-11:32")
    assert result.exit_code == 0, result.output
    rows = _json_of(_run("tables", "info", "--dir", str(tmp_path), "--json"))["tables"]
    assert [(t["free_cells"], t["goal"], t["status"]) for t in rows if t["shape"] == "entry"] == [
        (11, 32, "ok"), (11, 64, "missing"), (11, 128, "missing")]
    assert "entry goal     32: ok" in _run("tables", "info", "--dir", str(tmp_path)).output
    assert load(tmp_path).tables.specs == [TableSpec(5, 5, ENTRY)]


def test_what_each_shape_plays_for():
    assert TableSpec(8, 9).goal_text == "build 512"
    assert TableSpec(6, 9, CHAIN).goal_text == "ready a chain to 512"
    assert TableSpec(5, 7, ENTRY).goal_text == "build 128 in the chain block"


def test_hint_json_says_when_a_table_chose_the_move(tmp_path):
    spec = TableSpec(9, 5, 1)   # optional, so read from any directory that holds it
    save(spec, compute(spec), tmp_path)
    # A 3x3 block down to the anchor 32; left merges 16 16 onto the cell below
    # it, for certain.
    board = "2048 1024 512 . / 1024 512 256 . / 256 128 32 . / 2 4 16 16"
    table = load(tmp_path, (spec,), min_probability=0.0).tables.probe(Board(board))
    assert table is not None and table.probability == 1.0 and str(table.move) == "left"
    result = _run("hint", board, "-d", "2", "--tables-dir", str(tmp_path), "--json",
                  "--table-min-prob", "0")
    data = _json_of(result)
    assert data["from_table"] is True and data["best"] == str(table.move)
    assert data["table_probability"] == table.probability
    result = _run("hint", board, "-d", "2", "--tables-dir", str(tmp_path), "--json", "--no-tables")
    data = _json_of(result)
    assert data["from_table"] is False and data["table_probability"] is None


def test_hint_says_what_an_entry_table_plays_for(tmp_path):
    spec = TableSpec(5, 5, ENTRY)
    save(spec, _built(spec), tmp_path)
    # Block 1024 512 256 / 128 64 (goal 32 on (1,2)); 32 there, 16 on (0,3),
    # and 8 8 lower in column 3: up merges them into a 16 beside both.
    board = "1024 512 256 16 / 128 64 32 . / . . . 8 / . . . 8"
    result = _run("hint", board, "-d", "2", "--tables-dir", str(tmp_path))
    assert result.exit_code == 0, result.output
    assert "best move: up  (endgame table: 100.0% to build 32 in the chain block)" in result.output


def test_a_batch_worker_without_the_tables_stops_the_batch(tmp_path):
    from solve2048.batch import BatchError, Settings, play_seeds

    settings = Settings(depth=1, tables_dir=str(tmp_path), tables_count=3)
    with pytest.raises(BatchError, match="found 0 of the 3 endgame tables"):
        play_seeds([0], settings)


def test_batch_with_tables_records_them_and_refuses_to_mix(tmp_path):
    tables_dir, out = tmp_path / "tables", tmp_path / "games.jsonl"
    build_all(tables_dir, (TableSpec(5, 5, ENTRY), TableSpec(9, 5, 1), TableSpec(9, 6, 1)))
    result = _run("batch", "-n", "4", "-d", "2", "-j", "1", "--tables-dir", str(tables_dir),
                  "-o", str(out), "--json")
    assert result.exit_code == 0, result.output
    summary = _json_of(result)
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert all(r["tables"] == DEFAULT_MIN_PROBABILITY for r in rows)
    moves = sum(r["moves"] for r in rows)
    assert summary["table_move_share"] == sum(r["table_moves"] for r in rows) / moves > 0
    result = _run("batch", "-n", "4", "-d", "1", "--no-tables", "-o", str(out))
    assert result.exit_code == 2 and "tables at 0.9" in result.output and "no tables" in result.output
