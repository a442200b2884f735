"""Quiescence: a crowded leaf worth one more spawn and move. The C search against
the oracle, the known answer of a look at every leaf, and every path the setting
takes from the CLI, a batch's lines, a record and the page's API to the game loop."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from click.testing import CliRunner
from helpers import (
    assert_a_batch_keeps,
    assert_a_server_takes_a_look,
    assert_lines_without_it_were_played_without,
    one_error_line,
)
from hypothesis import given, settings
from hypothesis import strategies as st
from test_search_parity import NO_CACHE, game_like_boards

from solve2048 import Board, Move, SearchSettings, analyze, play_game
from solve2048.batch import Settings
from solve2048.cli.main import cli
from solve2048.engine import Searcher, evaluator
from solve2048.errors import InvalidArgumentError
from solve2048.reference_search import expectimax
from solve2048.web.api import ApiError, Limits
from solve2048.web.api import settings_of as request_settings

CROWDED = "2 4 8 16 / 32 64 128 256 / 512 1024 2 4 / 8 . . 2"  # 2 empty cells
REL = 1e-9


def invoke(*args: str):
    return CliRunner().invoke(cli, list(args))


def assert_oracle_agrees(board: Board, depth: int, prune: float | str, quiescence: int | None) -> None:
    """Values and node count of the C search (no table) and of the oracle."""
    c = analyze(board, depth=depth, prune=prune, quiescence=quiescence, searcher=NO_CACHE)
    oracle = expectimax(list(board.cells), depth, prune, quiescence=quiescence)
    for move in Move:
        expected, got = oracle.values[str(move)], c.values[move]
        assert (expected is None) == (got is None), (board, move)
        assert expected is None or math.isclose(got, expected, rel_tol=REL), (board, move, got, expected)
    assert c.nodes == oracle.nodes, (board, depth, quiescence)


@pytest.mark.parametrize("depth, count, empty_rate", [(1, 60, 0.2), (2, 60, 0.3), (3, 4, 0.15)])
@pytest.mark.parametrize("quiescence", [1, 2, 4, 15])
def test_the_search_matches_the_oracle_on_game_like_boards(depth: int, count: int, empty_rate: float,
                                                           quiescence: int) -> None:
    for board in game_like_boards(40 + depth, count, empty_rate):
        assert_oracle_agrees(board, depth, 1e-3, quiescence)


def test_the_search_matches_the_oracle_where_branches_are_pruned() -> None:
    # At 0.05 a 4 is pruned on the second spawn and a 2 on a board of many
    # empty cells: the leaves under them are plain, on both sides.
    for board in game_like_boards(45, 4, 0.35):
        assert_oracle_agrees(board, 3, 0.05, 15)


def test_no_leaf_looks_past_a_move_from_a_board_with_two_32768s() -> None:
    # Left or right merges the 16384s into a second 32768; up and down do not.
    board = Board.parse("32768 . 16384 16384 / 2 4 8 16 / 4 8 . 2 / . . . 4")
    for depth in (1, 2):
        assert_oracle_agrees(board, depth, 0.0, 15)
    looked = analyze(board, depth=2, prune=0.0, quiescence=15, searcher=NO_CACHE).values
    plain = analyze(board, depth=2, prune=0.0, searcher=NO_CACHE).values
    deeper = analyze(board, depth=3, prune=0.0, searcher=NO_CACHE).values
    assert looked[Move.LEFT] == plain[Move.LEFT] and looked[Move.RIGHT] == plain[Move.RIGHT]
    assert looked[Move.UP] == deeper[Move.UP] != plain[Move.UP]
    assert looked[Move.DOWN] == deeper[Move.DOWN] != plain[Move.DOWN]


@given(exponents=st.lists(st.integers(0, 15), min_size=16, max_size=16), quiescence=st.integers(1, 15),
       prune=st.sampled_from([0.0, 1e-2, 0.05, "auto"]))
@settings(max_examples=150, deadline=None)
def test_the_search_matches_the_oracle_on_any_board(exponents: list[int], quiescence: int,
                                                    prune: float | str) -> None:
    board = Board.from_cells([1 << e if e else 0 for e in exponents])
    assert_oracle_agrees(board, 2, prune, quiescence)  # tiles to 32768: two of them happen


@pytest.mark.parametrize("depth, prune", [(1, 0.0), (2, 0.0), (2, 0.01), (3, 0.004)])
def test_a_look_at_every_leaf_is_the_search_one_move_deeper(depth: int, prune: float) -> None:
    # A board after a move has at most 15 empty cells: with 15, every leaf not
    # pruned is a chance node with one move left, as in the deeper search,
    # whose own nodes there are pruned by the same threshold.
    for board in game_like_boards(50 + depth, 12 if depth < 3 else 3, 0.3):
        looked = analyze(board, depth=depth, prune=prune, quiescence=15, searcher=NO_CACHE)
        deeper = analyze(board, depth=depth + 1, prune=prune, quiescence=None, searcher=NO_CACHE)
        assert (looked.values, looked.nodes, looked.best) == (deeper.values, deeper.nodes, deeper.best)
        assert looked.depth == depth


def test_only_a_crowded_leaf_looks_further() -> None:
    roomy = "2 4 8 16 / 32 64 128 256 / 512 . . . / . . . 2"  # 6 empty cells
    plain = analyze(roomy, depth=2, prune=0.0, quiescence=None, searcher=NO_CACHE)
    # A move never fills a cell: a leaf of depth 2 here has at least the 6
    # empty cells of the board less its one spawn.
    same = analyze(roomy, depth=2, prune=0.0, quiescence=4, searcher=NO_CACHE)
    assert (same.values, same.nodes) == (plain.values, plain.nodes)
    looked = analyze(roomy, depth=2, prune=0.0, quiescence=5, searcher=NO_CACHE)
    assert looked.values != plain.values and looked.nodes > plain.nodes
    # A pruned branch never looks: a threshold above every spawn's probability
    # leaves depth 2 at its own first spawns, searched or not alike.
    assert analyze(CROWDED, depth=2, prune=0.9, quiescence=15, searcher=NO_CACHE).values == \
        analyze(CROWDED, depth=2, prune=0.9, quiescence=None, searcher=NO_CACHE).values


def test_a_split_search_looks_alike_on_any_number_of_threads() -> None:
    # From depth 6 on the root is split into tasks: each must look as one search does.
    one = analyze(CROWDED, depth=6, quiescence=4, threads=1)
    two = analyze(CROWDED, depth=6, quiescence=4, threads=2)
    assert (one.values, one.nodes) == (two.values, two.nodes)
    plain = analyze(CROWDED, depth=6, threads=1, quiescence=None)
    assert one.values != plain.values and one.nodes > plain.nodes


def test_a_split_search_looking_at_every_leaf_is_the_search_one_move_deeper() -> None:
    # The split tasks' own pruned children (prune 0.06 prunes a 4 at once) stay plain.
    no_table = Searcher(tt_mb=0, threads=2)
    looked = analyze(CROWDED, depth=6, prune=0.06, quiescence=15, searcher=no_table)
    deeper = analyze(CROWDED, depth=7, prune=0.06, quiescence=None, searcher=no_table)
    assert (looked.values, looked.nodes) == (deeper.values, deeper.nodes)


def test_a_timed_search_looks_too() -> None:
    # Without pruning, and with a table that reads only values of the same
    # depth, the deepest depth the clock allowed has that depth's values.
    exact = Searcher(reuse_deeper=False)  # a value stored at another depth is not read
    timed = analyze(CROWDED, time_ms=30, prune=0.0, quiescence=2, searcher=exact)
    alone = analyze(CROWDED, depth=timed.depth, prune=0.0, quiescence=2, searcher=exact)
    assert timed.values == alone.values != analyze(CROWDED, depth=timed.depth, prune=0.0, quiescence=None).values


@pytest.mark.parametrize("bad", [16, 0, -1, True, 2.0, "2"])
def test_settings_refuse_a_quiescence_that_is_not_a_count_of_empty_cells(bad: object) -> None:
    for make in (SearchSettings, Settings):
        with pytest.raises(InvalidArgumentError, match="from 1 to 15 for quiescence"):
            make(depth=3, quiescence=bad)


def test_the_engine_itself_refuses_a_quiescence_it_cannot_keep() -> None:
    searcher, board = Searcher(tt_mb=1), int(Board.parse(CROWDED))
    for bad in (16, -2):
        with pytest.raises(InvalidArgumentError, match=f"quiescence={bad}"):
            searcher.search(board, 2, -1, bad, 0.0, 0.0, False, evaluator())


def test_a_game_records_its_quiescence_and_plays_otherwise() -> None:
    looked, plain = play_game(3, depth=2, quiescence=3), play_game(3, depth=2, quiescence=None)
    assert looked.quiescence == 3 and looked.to_json()["quiescence"] == 3
    assert plain.to_json()["quiescence"] is None
    assert (looked.score, looked.moves) != (plain.score, plain.moves)
    assert play_game(3, depth=2, quiescence=3).to_json() | {"seconds": 0, "moves_per_second": 0} == \
        looked.to_json() | {"seconds": 0, "moves_per_second": 0}


def test_hint_and_play_take_quiescence() -> None:
    hint = json.loads(invoke("hint", CROWDED, "-d", "2", "--quiescence", "3", "--json", "--no-tables").output)
    values = analyze(CROWDED, depth=2, quiescence=3).values
    assert hint["values"] == {str(move): value for move, value in values.items()}
    played = invoke("play", "-d", "2", "--quiescence", "3", "--seed", "3", "--json", "--quiet", "--no-tables")
    assert played.exit_code == 0
    answer = json.loads(played.output)
    assert answer["quiescence"] == 3 and answer["score"] == play_game(3, depth=2, quiescence=3).score


@pytest.mark.parametrize("value, message", [("16", "16 is not in the range 1<=x<=15"),
                                            ("0", "0 is not in the range 1<=x<=15"),
                                            ("few", "'few' is neither 'off' nor a number of empty cells")])
def test_the_cli_refuses_a_bad_quiescence_in_one_line(value: str, message: str) -> None:
    result = invoke("hint", CROWDED, "--quiescence", value)
    assert result.exit_code == 2
    assert message in one_error_line(result) and "Traceback" not in result.output


def test_a_batch_line_records_quiescence_and_a_resume_must_keep_it(tmp_path: Path) -> None:
    out = tmp_path / "r.jsonl"
    assert_a_batch_keeps("quiescence", 2, 3, out)
    summary = json.loads(invoke("stats", str(out), "--json").output)
    assert summary["quiescences"] == [2]


def test_lines_without_quiescence_had_plain_leaves_and_a_bad_one_is_refused() -> None:
    assert_lines_without_it_were_played_without("quiescence")


def test_a_record_and_its_review_say_quiescence(tmp_path: Path) -> None:
    record = tmp_path / "g.jsonl"
    played = invoke("play", "-d", "1", "--quiescence", "2", "--seed", "3", "--no-tables", "--record", str(record))
    assert played.exit_code == 0 and "depth 1, quiescence 2" in played.output
    start = json.loads(record.read_text().splitlines()[0])
    assert start["quiescence"] == 2
    assert invoke("replay", str(record)).exit_code == 0
    reviewed = invoke("review", str(record), "-d", "1", "--quiescence", "2", "--no-tables", "--json")
    assert reviewed.exit_code == 0 and json.loads(reviewed.output)["quiescence"] == 2
    text = invoke("review", str(record), "-d", "1", "--danger", "1", "--quiescence", "2", "--no-tables").output
    assert "reviewed (depth 1, danger 1, quiescence 2, no tables)" in text


def test_the_page_takes_quiescence_within_the_deepest_depth() -> None:
    base, limits = SearchSettings(depth=4, quiescence=2), Limits(max_depth=6)
    assert request_settings({}, base, limits).quiescence == 2
    assert request_settings({"depth": "auto"}, base, limits).quiescence == 2
    assert request_settings({"depth": 2, "time_ms": 50}, base, limits).quiescence == 2
    assert request_settings({"quiescence": None}, base, limits).quiescence is None
    assert request_settings({"quiescence": 5}, SearchSettings(depth=3), limits).quiescence == 5
    # What the server adds never makes a depth fail: it is left out where it
    # would go past the deepest, its quiescence before its danger.
    assert request_settings({"depth": 6}, base, limits) == base.replace(depth=6, quiescence=None)
    assert request_settings({"depth": 5, "danger": 3}, base, limits).quiescence is None
    both = SearchSettings(depth=4, danger=3, quiescence=2)
    assert request_settings({"depth": 5}, both, limits) == both.replace(depth=5, quiescence=None)
    assert request_settings({"depth": 5, "quiescence": 1}, both, limits) == \
        both.replace(depth=5, danger=None, quiescence=1)
    for body, message in [({"quiescence": "x"}, "from 1 to 15"), ({"quiescence": 16}, "from 1 to 15"),
                          ({"depth": 6, "quiescence": 1}, "depth 6 with quiescence searches deeper"),
                          ({"depth": 5, "danger": 2, "quiescence": 1},
                           "depth 5 with danger and quiescence searches deeper")]:
        with pytest.raises(ApiError, match=message):
            request_settings(body, base, limits)


def test_a_server_whose_own_look_its_limits_refuse_does_not_start() -> None:
    from solve2048.web.app import create_app

    with pytest.raises(ApiError, match=r"depth 6 with quiescence searches deeper than --max-depth allows \(6\)"):
        create_app(SearchSettings(depth=6, quiescence=2), Limits(max_depth=6))
    result = invoke("serve", "-d", "10", "--quiescence", "2", "--no-open")
    assert result.exit_code == 2
    assert one_error_line(result) == \
        "solve2048: error: depth 10 with quiescence searches deeper than --max-depth allows (10)"


def test_the_server_takes_quiescence_in_its_requests_and_says_its_own() -> None:
    assert_a_server_takes_a_look("quiescence", CROWDED, "from 1 to 15")


def test_the_bench_measures_a_look_at_every_leaf_as_one_move_deeper() -> None:
    # Without pruning or a table (whose hits would differ: looks are not kept
    # in it), a look at every leaf is the search one move deeper, node for node;
    # so is danger on every root.
    from solve2048.benchmark import run_bench

    deeper = run_bench(3, prune=0.0, tt_mb=0, quiescence=None)["nodes"]
    assert run_bench(2, prune=0.0, tt_mb=0, quiescence=15)["nodes"] == deeper
    assert run_bench(2, prune=0.0, tt_mb=0, danger=16, quiescence=None)["nodes"] == deeper
    looked = json.loads(invoke("bench", "-d", "2", "--quiescence", "2", "--json").output)
    plain = json.loads(invoke("bench", "-d", "2", "--quiescence", "off", "--json").output)
    assert looked["quiescence"] == 2 and looked["danger"] is None
    assert deeper > looked["nodes"] > plain["nodes"]  # the bench's late boards are crowded
    text = invoke("bench", "-d", "2", "--quiescence", "2").output
    assert "Quiescence:        2 empty cells" in text and "Danger:            off" in text
    result = invoke("bench", "--quiescence", "16")
    assert result.exit_code == 2 and "'--quiescence': 16 is not in the range 1<=x<=15" in one_error_line(result)
