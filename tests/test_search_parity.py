"""The C search against the Python oracle of the search, and the cache on its own."""

from __future__ import annotations

import math

import numpy as np
import pytest
from helpers import ALMOST_LOST, pack

from solve2048 import Board, Move, Weights, analyze, auto_depth
from solve2048.engine import AUTO_MAX_DEPTH, DEFAULT_LATE_QUIESCENCE, DEFAULT_QUIESCENCE, Evaluator, Searcher
from solve2048.reference_search import (
    OracleResult,
    direction_back,
    expectimax,
    heuristic,
    search_symmetry,
    searched_depth,
)
from solve2048.reference_tables import symmetry

NO_CACHE = Searcher(tt_mb=0)
DEFAULT_WEIGHTS = Weights()
REL = 1e-9


def game_like_boards(seed: int, n: int, empty_rate: float) -> list[Board]:
    """Boards shaped like real play: a few large tiles, many small ones, some empty cells."""
    rng = np.random.default_rng(seed)
    exps = rng.choice(np.arange(1, 12), size=(n, 16), p=_tile_weights()).astype(np.uint64)
    exps[rng.random((n, 16)) < empty_rate] = 0
    return [Board.from_int(b) for b in pack(exps).tolist()]


def _tile_weights() -> np.ndarray:
    w = 0.6 ** np.arange(11)
    return w / w.sum()


def oracle_of(board: Board, depth: int, prune: float | str, weights: Weights = DEFAULT_WEIGHTS) -> OracleResult:
    """The oracle's search with the default look, as analyze searches by default."""
    return expectimax(list(board.cells), depth, prune, weights, DEFAULT_QUIESCENCE, DEFAULT_LATE_QUIESCENCE)


def assert_same_values(board: Board, depth: int, prune: float, searcher: Searcher,
                       weights: Weights = DEFAULT_WEIGHTS) -> None:
    c = analyze(board, depth=depth, prune=prune, searcher=searcher, weights=weights)
    oracle = oracle_of(board, depth, prune, weights)
    for move in Move:
        expected = oracle.values[str(move)]
        got = c.values[move]
        if expected is None:
            assert got is None, (board, move)
        else:
            assert got is not None and math.isclose(got, expected, rel_tol=REL), (board, move, got, expected)
    if searcher is NO_CACHE:
        assert c.nodes == oracle.nodes, board


def test_heuristic_matches_oracle_on_random_boards() -> None:
    ev = Evaluator()
    for board in game_like_boards(1, 3000, 0.4):
        assert ev.board(int(board)) == heuristic(list(board.cells)), board


@pytest.mark.parametrize("weights", [
    Weights(empty_weight=1000.0, sum_power=3.0),
    Weights(mono_power=2.7, sum_power=1.25, merges_weight=0.0),  # libm pow path
    Weights(corner_weight=30.0, corner_power=3.5),
    Weights(chain_weight=0.5, chain_penalty=12.0, lost_penalty=1e6),
])
def test_heuristic_weights_are_overridable(weights: Weights) -> None:
    ev = Evaluator(weights)
    for board in game_like_boards(2, 200, 0.4):
        assert ev.board(int(board)) == heuristic(list(board.cells), weights)
    board = game_like_boards(3, 1, 0.5)[0]
    assert analyze(board, depth=1, weights=weights).values != analyze(board, depth=1).values


@pytest.mark.parametrize("depth, count, empty_rate", [(1, 300, 0.4), (2, 300, 0.55)])
def test_search_matches_oracle(depth: int, count: int, empty_rate: float) -> None:
    for board in game_like_boards(10 + depth, count, empty_rate):
        assert_same_values(board, depth, 1e-4, NO_CACHE)


def test_search_matches_oracle_at_depth_3() -> None:
    # Depth 3 in Python is slow: a few crowded boards (few empty cells).
    for board in game_like_boards(33, 8, 0.2):
        assert_same_values(board, 3, 1e-4, NO_CACHE)


def test_automatic_pruning_matches_oracle_and_scales_with_depth() -> None:
    # "auto" is 2^-(d+4): at depth 3 the same search as an explicit 1/128.
    for board in game_like_boards(35, 8, 0.2):
        assert_same_values(board, 3, "auto", NO_CACHE)
        auto = analyze(board, depth=3, prune="auto", searcher=NO_CACHE)
        explicit = analyze(board, depth=3, prune=1 / 128, searcher=NO_CACHE)
        assert (auto.values, auto.nodes) == (explicit.values, explicit.nodes)
    board = game_like_boards(36, 1, 0.5)[0]
    assert analyze(board, depth=4, prune="auto", searcher=NO_CACHE).nodes == \
        analyze(board, depth=4, prune=1 / 256, searcher=NO_CACHE).nodes
    with pytest.raises(ValueError, match="auto"):
        analyze(board, depth=2, prune="sometimes")


@pytest.mark.parametrize("depth", [2, 3])
def test_the_tables_heuristic_matches_oracle_on_boards_it_scores_below_0(depth: int) -> None:
    # The tables' heuristic charges a big tile away from the top-left corner
    # far more than the constant of its lines: such boards score below 0, and
    # a max node must keep their values, not read them as lost.
    weights = Weights.for_tables()
    evaluator = Evaluator(weights)
    boards = [b for b in game_like_boards(77, 400, 0.25) if evaluator.board(int(b)) < 0][:6]
    assert len(boards) == 6
    for board in boards:
        assert_same_values(board, depth, 1e-3, NO_CACHE, weights)


def test_a_move_into_a_lost_board_is_worth_the_lost_value() -> None:
    for weights in (Weights(), Weights.for_tables()):
        for depth in (2, 3):
            values = analyze(ALMOST_LOST, depth=depth, weights=weights, searcher=NO_CACHE).values
            # Every spawn leaves no move: the mean of lost values (to rounding).
            assert math.isclose(values[Move.LEFT], weights.lost_value, rel_tol=1e-12, abs_tol=1e-9)
            assert values[Move.RIGHT] is not None and values[Move.RIGHT] > weights.lost_value
    assert Weights.for_tables().lost_value < -4e6 < 0 == Weights().lost_value


def test_a_board_whose_every_move_scores_below_0_still_orders_its_moves() -> None:
    # Max nodes used to start from 0: here, every direction read 0 beside the
    # tables and the first legal one was played.
    board = Board.parse("2 4 8 16 / 4096 . 4 8 / 32 64 128 2 / 2 4 2 4")
    weights = Weights.for_tables()
    values = [v for v in analyze(board, depth=3, weights=weights).values.values() if v is not None]
    assert len(values) == 4 and len(set(values)) == 4
    assert weights.lost_value < min(values) and max(values) < 0
    assert_same_values(board, 3, "auto", NO_CACHE, weights)


def _symmetric(board: Board, s: int) -> Board:
    return Board.from_cells(symmetry(list(board.cells), s))


def _values_back(board: Board, s: int, depth: int, weights: Weights) -> dict[str, float | None]:
    """The search's values of board's symmetry s, in board's directions."""
    values = analyze(_symmetric(board, s), depth=depth, weights=weights, searcher=NO_CACHE).values
    return {direction_back(s, str(move)): value for move, value in values.items()}


def _assert_the_same_hint_in_every_corner(top_left: Board, weights: Weights) -> None:
    """Each image of top_left in the other corners gets top_left's values, in
    its own directions, and the oracle's."""
    values = {str(m): v for m, v in analyze(top_left, depth=3, weights=weights, searcher=NO_CACHE).values.items()}
    for s in (1, 2, 3):
        assert values == _values_back(top_left, s, 3, weights)
        assert_same_values(_symmetric(top_left, s), 3, "auto", NO_CACHE, weights)


def test_a_board_built_in_any_corner_gets_the_same_hint_beside_the_tables() -> None:
    # A person may build in any corner. The tables' heuristic reads such a
    # board below 0; the search reads it in the corner where it reads best.
    weights = Weights.for_tables()
    evaluator = Evaluator(weights)
    top_left = Board.parse("2048 512 128 16 / 1024 64 8 4 / 32 4 2 . / 2 . . .")
    assert evaluator.board(int(top_left)) >= 0
    assert all(evaluator.board(int(_symmetric(top_left, s))) < 0 for s in (1, 2, 3))
    _assert_the_same_hint_in_every_corner(top_left, weights)


def test_a_board_built_in_any_corner_that_reads_0_or_more_gets_the_same_hint() -> None:
    # A person's board whose big tiles are still small reads 0 or more in any
    # corner (110,004, 106,460 and 74,564 here, against 141,900 at the top
    # left); until every root was read in its best corner, such a board was
    # searched as it was and steered toward the top left.
    weights = Weights.for_tables()
    evaluator = Evaluator(weights)
    top_left = Board.parse("256 64 16 4 / 32 8 4 2 / 4 2 . . / 2 . . .")
    assert all(0 <= evaluator.board(int(_symmetric(top_left, s))) < evaluator.board(int(top_left))
               for s in (1, 2, 3))
    _assert_the_same_hint_in_every_corner(top_left, weights)


def test_a_board_that_reads_0_or_more_is_read_in_its_best_corner_too() -> None:
    # An opening board: as it is it reads 131,014, mirrored 131,042, the
    # best of its four corners; it is searched mirrored.
    weights = Weights.for_tables()
    evaluator = Evaluator(weights)
    board = Board.from_int(0x100000001001)
    readings = [evaluator.board(int(_symmetric(board, s))) for s in range(4)]
    best = readings.index(max(readings))
    assert 0 <= readings[0] < readings[best] and best != 0
    values = analyze(board, depth=2, weights=weights, searcher=NO_CACHE).values
    assert {str(m): v for m, v in values.items()} == _values_back(board, best, 2, weights)
    assert_same_values(board, 2, "auto", NO_CACHE, weights)


def test_a_board_read_alike_in_every_corner_is_searched_as_it_is() -> None:
    # The first of equals is the board itself: a board that is its own mirror
    # image and its own flip reads the same in every corner.
    weights = Weights.for_tables()
    board = Board.parse("2 . . 2 / . 4 4 . / . 4 4 . / 2 . . 2")
    assert search_symmetry(list(board.cells), weights) == 0
    assert_same_values(board, 2, "auto", NO_CACHE, weights)


def test_search_matches_oracle_without_pruning() -> None:
    for board in game_like_boards(44, 40, 0.3):
        assert_same_values(board, 2, 0.0, NO_CACHE)


def test_cache_never_changes_values_without_pruning() -> None:
    cached = Searcher(tt_mb=8, reuse_deeper=False)
    hits = 0
    for board in game_like_boards(55, 40, 0.5):
        for depth in (2, 3, 4):
            with_cache = analyze(board, depth=depth, prune=0.0, searcher=cached)
            without = analyze(board, depth=depth, prune=0.0, searcher=NO_CACHE)
            assert with_cache.values == without.values, board
            assert with_cache.nodes <= without.nodes
            hits += with_cache.cache_hits
    assert hits > 0  # the table was really used


def test_tiny_cache_still_gives_same_values() -> None:
    # Constant replacement in a table of a few entries must not corrupt values.
    tiny = Searcher(tt_mb=0.001, reuse_deeper=False)
    assert tiny.tt_entries > 0
    for board in game_like_boards(66, 20, 0.5):
        a = analyze(board, depth=3, prune=0.0, searcher=tiny)
        b = analyze(board, depth=3, prune=0.0, searcher=NO_CACHE)
        assert a.values == b.values


def test_a_merge_of_two_32768s_is_searched_on_the_boards_copy() -> None:
    # Left and right make 65536: the search plays them on its 64-bit copy, and
    # the oracle (on the same copy, reference.downgrade) gives the same values.
    board = Board.parse("32768 32768 2 4 / 4 2 4 2 / 2 4 2 4 / 4 2 4 2")
    result = analyze(board, depth=2, prune=0.0, searcher=NO_CACHE)
    assert result.best in (Move.LEFT, Move.RIGHT)
    assert result.values[Move.UP] is None and result.values[Move.DOWN] is None
    oracle = oracle_of(board, 2, 0.0)
    assert {str(m): v for m, v in result.values.items()} == oracle.values
    assert result.nodes == oracle.nodes


def test_the_search_on_boards_past_32768_matches_the_oracle() -> None:
    for text in ("65536 32768 16384 . / 8192 4096 2 . / . . . . / . . . 2",
                 "131072 65536 32768 32768 / 2 4 8 16 / . . . . / . . . .",
                 "65536 65536 2 4 / 4 2 4 2 / 2 4 2 4 / 4 2 4 ."):
        board = Board.parse(text)
        result = analyze(board, depth=2, prune=0.0, searcher=NO_CACHE)
        oracle = oracle_of(board, 2, 0.0)
        assert {str(m): v for m, v in result.values.items()} == oracle.values, text
        assert result.nodes == oracle.nodes


def test_reuse_deeper_is_deterministic_and_uses_the_table_more() -> None:
    exact, deeper = Searcher(reuse_deeper=False), Searcher(reuse_deeper=True)
    hits_exact = hits_deeper = 0
    for board in game_like_boards(77, 30, 0.4):
        a = analyze(board, depth=4, searcher=deeper)
        b = analyze(board, depth=4, searcher=deeper)
        assert a.values == b.values and a.nodes == b.nodes
        hits_deeper += a.cache_hits
        hits_exact += analyze(board, depth=4, searcher=exact).cache_hits
    assert hits_deeper > hits_exact


def test_published_weights_are_available() -> None:
    published = Weights.published()
    assert (published.empty_weight, published.mono_weight, published.corner_weight) == (270.0, 47.0, 0.0)
    assert Evaluator(published).board(0) == heuristic([0] * 16, published)


def test_threads_search_in_parallel_with_the_same_results() -> None:
    # Each thread gets its own searcher (and table); the C search releases the GIL.
    from concurrent.futures import ThreadPoolExecutor

    boards = game_like_boards(88, 40, 0.4)
    serial = [analyze(b, depth=3).values for b in boards]
    with ThreadPoolExecutor(max_workers=4) as pool:
        parallel = list(pool.map(lambda b: analyze(b, depth=3).values, boards))
    assert parallel == serial


def boards_of_every_kind(seed: int, n: int) -> list[Board]:
    """Boards with 0 to 16 distinct tiles up to 32768 and 0 to 16 empty cells."""
    rng = np.random.default_rng(seed)
    exps = np.minimum(rng.integers(1, 16, size=(n, 16)), rng.integers(2, 16, size=(n, 1))).astype(np.uint64)
    exps[rng.random((n, 16)) < rng.random((n, 1)) * 0.6] = 0
    return [Board.from_int(b) for b in pack(exps).tolist()]


@pytest.mark.parametrize("danger", [0, 2, 4, 6])
def test_a_board_in_danger_is_searched_one_move_deeper_as_in_the_oracle(danger: int) -> None:
    deeper = 0
    for board in boards_of_every_kind(40 + danger, 120):
        c = analyze(board, depth=1, danger=danger, searcher=NO_CACHE)
        depth = searched_depth(list(board.cells), 1, danger)
        assert c.depth == depth, board
        oracle = oracle_of(board, depth, "auto")
        assert c.nodes == oracle.nodes, board
        assert all(c.values[move] == pytest.approx(oracle.values[str(move)], rel=REL)
                   if oracle.values[str(move)] is not None else c.values[move] is None for move in Move), board
        deeper += depth == 2
    assert 0 < deeper < 120  # both sides of the threshold were searched


def test_auto_depth_matches_the_oracles_rule() -> None:
    depths = set()
    for board in boards_of_every_kind(50, 600):
        depth = searched_depth(list(board.cells), "auto")
        assert auto_depth(board) == depth, board
        depths.add(depth)
    assert depths == {3, 4, 5} and max(depths) == AUTO_MAX_DEPTH   # what a server bounds auto by


@pytest.mark.parametrize("board, depth", [
    ("2 . . . / . . . . / . . . . / . . . .", 3),
    ("2 4 8 16 / 32 64 . . / . . . . / . . . .", 3),            # 6 distinct
    ("2 4 8 16 / 32 64 128 . / . . . . / . . . .", 4),          # 7
    ("2 4 8 16 / 32 64 128 256 / . . . . / . . . .", 4),        # 8
    ("2 4 8 16 / 32 64 128 256 / 512 . . . / . . . .", 5),      # 9
    ("2 4 2 4 / 4 2 4 2 / 2 4 2 4 / 4 2 4 .", 3),               # crowded, 2 distinct: no deeper
    ("2 4 8 16 / 32 64 128 256 / 512 1024 2048 4096 / 8192 16384 32768 .", 5),
])
def test_auto_depth_by_distinct_tiles(board: str, depth: int) -> None:
    # 3 up to 6 distinct tiles, 4 up to 8, 5 beyond; never deeper for a crowded board.
    assert auto_depth(Board.parse(board)) == depth == searched_depth(list(Board.parse(board).cells), "auto")


def test_danger_never_deepens_past_the_deepest_search() -> None:
    board = Board.parse("2 4 8 16 / 32 64 128 256 / 512 1024 2 4 / 8 16 32 .")
    assert searched_depth(list(board.cells), 16, 16) == 16
    assert searched_depth(list(board.cells), 15, 1) == 16
    assert searched_depth(list(board.cells), 15, 0) == 15
