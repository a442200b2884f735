"""The pass: from a board holding 16384 on, a search at depth 5 beside the
tables makes a leaf of every line that reads below twice its top tile's chain
weight. The C search against the oracle (one thread and split), its known
answers, and where it does not apply: before 16384, at other depths, timed."""

from __future__ import annotations

import functools
import math
import random
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from solve2048 import Board, Move, SearchSettings, Weights, analyze
from solve2048.engine import LOOK_MAX_DEPTH, Searcher, evaluator
from solve2048.reference_search import OracleResult, expectimax, heuristic, pass_lost, pass_score

PASSING = Weights.for_tables(5)
NO_PASS = replace(PASSING, pass_from=0.0)
LINES = 8 * PASSING.lost_penalty   # what the eight lines of a live board add: 131,072
REL = 1e-9
# A sound chain: the root reads far above its pass (589,824 for 16384).
SOUND = "16384 8192 4096 2048 / 128 256 512 1024 / 64 32 16 8 / 2 4 . ."


def searcher(threads: int = 1) -> Searcher:
    return Searcher(tt_mb=0, threads=threads)  # no table: node counts comparable with the oracle


@functools.lru_cache(maxsize=64)
def oracle(cells: tuple[int, ...], depth: int, weights: Weights = PASSING) -> OracleResult:
    """The oracle with the look analyze makes by default at this depth (kept:
    the split search is held to it on 1 and 2 threads)."""
    look = (3, 2) if depth <= LOOK_MAX_DEPTH else (None, None)
    return expectimax(list(cells), depth, "auto", weights, *look)


def assert_agrees(cells: list[int], depth: int, threads: int = 1, weights: Weights = PASSING) -> OracleResult:
    """The C search's values and node count are the oracle's; returns the oracle's result."""
    c = analyze(Board.from_cells(cells), depth=depth, searcher=searcher(threads), weights=weights)
    o = oracle(tuple(cells), depth, weights)
    for move in Move:
        expected, got = o.values[str(move)], c.values[move]
        assert (expected is None) == (got is None), (cells, move)
        assert expected is None or math.isclose(got, expected, rel_tol=REL), (cells, depth, move, got, expected)
    assert c.nodes == o.nodes, (cells, depth, threads)
    return o


def chain_boards(seed: int, n: int) -> list[list[int]]:
    """Boards holding 16384 with a chain falling from it along the top row,
    the rest small tiles and gaps: most read above their pass, some do not."""
    rng = random.Random(seed)
    boards = []
    for _ in range(n):
        top = [16384, 8192, 4096, rng.choice([2048, 1024, 512, 2])]
        rest = [rng.choice([0, 0, 0, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024]) for _ in range(12)]
        cells = top + rest
        boards.append(cells[::-1] if rng.random() < 0.5 else cells)  # the other corner too
    return boards


def root_of(cells: list[int]) -> list[int]:
    """The board as the search reads it: in its best corner."""
    from solve2048 import reference
    from solve2048.reference_search import search_symmetry
    from solve2048.reference_tables import symmetry

    board, _ = reference.downgrade(cells)
    return symmetry(board, search_symmetry(board, PASSING))


def test_the_pass_is_twice_the_top_tiles_chain_weight_above_the_lines():
    board = Board.parse(SOUND)
    assert pass_score(list(board.cells), PASSING) == LINES + 2 * 14 * 2**14 == 589_824
    assert pass_lost(589_824, PASSING) == LINES - 2 * 14 * 2**14 == -327_680   # not 2^22 below
    assert pass_score(list(board.cells), NO_PASS) is None
    below = [8192 if v == 16384 else v for v in board.cells]
    assert pass_score(below, PASSING) is None      # before the first 16384: no pass
    assert pass_score([32768] + list(board.cells)[1:], PASSING) == LINES + 2 * 15 * 2**15


@pytest.mark.parametrize("depth", [2, 3])
def test_the_search_with_the_pass_matches_the_oracle(depth):
    cut = again = 0
    for cells in chain_boards(depth, 40):
        o = assert_agrees(cells, depth)
        root = root_of(cells)
        cut += heuristic(root, PASSING) >= pass_score(root, PASSING)
        again += max(v for v in o.values.values() if v is not None) < LINES
    # The boards exercise the cut and the search made again without it.
    assert cut >= 30 and again >= 1, (cut, again)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from([0, 0, 0, 2, 4, 8, 64, 512, 2048, 8192, 16384, 32768]), min_size=16, max_size=16))
def test_the_search_with_the_pass_matches_the_oracle_on_any_board_holding_16384(cells):
    if 16384 not in cells or all(cells):
        cells = [16384] + cells[1:]
    assert_agrees(cells, 2)


@pytest.mark.parametrize("threads", [1, 2])
def test_the_split_search_passes_as_the_oracle_does(threads):
    # From depth 6 the root is split into tasks: a root move the pass is over
    # is a leaf there too, and the tasks search with the pass and its lost value.
    rng = random.Random(6)
    for _ in range(2):
        cells = [16384, 8192, 4096, 2048, 1024, 512, 256, 2] + [rng.choice([0, 0, 2, 4, 8, 16, 32]) for _ in range(8)]
        assert_agrees(cells, 6, threads)


def test_a_line_the_pass_is_over_is_worth_its_heuristic():
    # Down drops the 4096 and 2048 out of the top row: that line reads below
    # the pass, so it is a leaf worth its own reading, where the full search
    # looks on; right keeps the chain and is searched.
    board = Board.parse(SOUND)
    ev = evaluator(PASSING)
    values = analyze(board, depth=3, searcher=searcher(), weights=PASSING).values
    full = analyze(board, depth=3, searcher=searcher(), weights=NO_PASS).values
    down, right = board.move(Move.DOWN)[0], board.move(Move.RIGHT)[0]
    assert values[Move.DOWN] == ev.board(int(down)) < pass_score(list(board.cells), PASSING) <= ev.board(int(right))
    assert full[Move.DOWN] != values[Move.DOWN]
    assert values[Move.RIGHT] != ev.board(int(right)) and values[Move.UP] is None


def test_before_the_first_16384_the_search_is_the_full_one():
    # The games up to their first 16384 are depth 5's own, move for move.
    for cells in chain_boards(7, 20):
        cells = [8192 if v == 16384 else v for v in cells]
        board = Board.from_cells(cells)
        with_pass = analyze(board, depth=3, searcher=searcher(), weights=PASSING)
        without = analyze(board, depth=3, searcher=searcher(), weights=NO_PASS)
        assert (with_pass.values, with_pass.nodes) == (without.values, without.nodes), cells


def test_a_timed_search_makes_no_pass():
    # Its depth depends on the clock, and the pass was measured at depths 4 and 5 alone.
    board = Board.parse(SOUND)
    timed = analyze(board, depth=2, time_ms=60_000, searcher=searcher(), weights=PASSING)
    full = analyze(board, depth=2, quiescence=None, searcher=searcher(), weights=NO_PASS)  # timed: no look
    assert timed.depth == 2 and timed.values == full.values


def test_the_pass_makes_the_search_smaller():
    # What it is for: lines that broke the chain are not searched on.
    board = Board.parse(SOUND)
    passing = analyze(board, depth=4, searcher=searcher(), weights=PASSING)
    full = analyze(board, depth=4, searcher=searcher(), weights=NO_PASS)
    assert passing.best == full.best and passing.nodes < full.nodes, (passing.nodes, full.nodes)
    boards = [Board.from_cells(cells) for cells in chain_boards(8, 20)]
    nodes = [sum(analyze(b, depth=3, searcher=searcher(), weights=w).nodes for b in boards) for w in (PASSING, NO_PASS)]
    assert nodes[0] < 0.75 * nodes[1], nodes   # 51% when written
    # Beside the tables it is depths 4 and 5's alone (test_tables_games),
    # and without them the default weights make none.
    assert SearchSettings(depth=5).search_weights is None and Weights().pass_from == 0.0
