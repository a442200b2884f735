"""A board in danger, searched one move deeper: the setting, and every path it takes
from the CLI, a batch's lines and the page's API down to the game loop. (That the
deeper search is the oracle's is in test_search_parity.)"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from helpers import assert_a_batch_keeps, one_error_line

from solve2048 import Board, SearchSettings, analyze, play_game
from solve2048.batch import Settings, game_row, settings_of
from solve2048.cli.main import cli
from solve2048.errors import InvalidArgumentError
from solve2048.results import check_game
from solve2048.web.api import ApiError, Limits
from solve2048.web.api import settings_of as request_settings

CROWDED = "2 4 8 16 / 32 64 128 256 / 512 1024 2 4 / 8 . . 2"  # 2 empty cells


def invoke(*args: str):
    return CliRunner().invoke(cli, list(args))


def test_only_a_board_with_at_most_danger_empty_cells_is_searched_deeper() -> None:
    assert analyze(CROWDED, depth=3).depth == 3
    assert analyze(CROWDED, depth=3, danger=2).depth == 4
    assert analyze(CROWDED, depth=3, danger=1).depth == 3
    deeper, four = analyze(CROWDED, depth=3, danger=2), analyze(CROWDED, depth=4)
    assert (deeper.best, deeper.values, deeper.nodes) == (four.best, four.values, four.nodes)


@pytest.mark.parametrize("fields, message", [
    ({"depth": "auto", "danger": 3}, "danger needs a fixed depth"),
    ({"depth": 4, "time_ms": 100, "danger": 3}, "no time limit"),
    ({"depth": 4, "danger": 17}, "from 0 to 16"),
    ({"depth": 4, "danger": -1}, "from 0 to 16"),
    ({"depth": 4, "danger": True}, "from 0 to 16"),
    ({"depth": 4, "danger": 2.0}, "from 0 to 16"),
])
def test_settings_refuse_a_danger_they_cannot_keep(fields: dict, message: str) -> None:
    with pytest.raises(InvalidArgumentError, match=message):
        SearchSettings(**fields)
    with pytest.raises(InvalidArgumentError, match=message):
        Settings(**fields)


def test_a_game_with_danger_at_every_board_is_the_game_one_move_deeper() -> None:
    # 16 empty cells or fewer is every board: each move searched to depth 2,
    # with depth 2's pruning, is depth 2's game, move for move.
    deeper = play_game(5, depth=1, danger=16)
    assert deeper.to_json() | {"seconds": 0, "moves_per_second": 0, "depth": 2, "danger": None} == \
        play_game(5, depth=2).to_json() | {"seconds": 0, "moves_per_second": 0}
    assert deeper.danger == 16 and deeper.to_json()["danger"] == 16
    assert play_game(5, depth=1, danger=0).score != deeper.score  # and a threshold that binds less plays otherwise


def test_play_and_hint_take_danger(tmp_path: Path) -> None:
    hint = json.loads(invoke("hint", CROWDED, "-d", "2", "--danger", "2", "--json").output)
    assert hint["depth"] == 3
    played = json.loads(invoke("play", "-d", "1", "--danger", "16", "--seed", "5", "--json", "--quiet").output)
    assert played["danger"] == 16 and played["score"] == play_game(5, depth=2).score


@pytest.mark.parametrize("options, message", [
    (["--danger", "3"], "danger needs a fixed depth"),
    (["-d", "3", "--time", "50", "--danger", "3"], "no time limit"),
    (["-d", "3", "--danger", "17"], "17 is not in the range 0<=x<=16"),
    (["-d", "3", "--danger", "many"], "'many' is not a valid integer"),
])
def test_the_cli_refuses_a_danger_it_cannot_keep_in_one_line(options: list[str], message: str) -> None:
    result = invoke("hint", CROWDED, *options)
    assert result.exit_code == 2
    assert message in result.stderr and "Traceback" not in result.output


def test_a_batch_line_records_danger_and_a_resume_must_keep_it(tmp_path: Path) -> None:
    assert_a_batch_keeps("danger", 3, 4, tmp_path / "r.jsonl")


def test_lines_without_danger_were_never_deeper_and_a_bad_danger_is_refused() -> None:
    row = game_row(play_game(0, depth=1), Settings(depth=1))
    assert row["danger"] is None
    old = {k: v for k, v in row.items() if k != "danger"}
    assert settings_of(old) == settings_of(row) == Settings(depth=1).results_key
    assert check_game(row) is row
    for bad in ("3", -1, 17, True, 2.5):
        with pytest.raises(ValueError, match="danger"):
            check_game(row | {"danger": bad})
    assert check_game(row | {"danger": 3})["danger"] == 3
    for impossible in ({"depth": "auto"}, {"time_ms": 20.0}):  # no run writes these
        with pytest.raises(ValueError, match="danger needs a fixed depth"):
            check_game(row | {"danger": 3} | impossible)


def test_a_batch_stops_at_a_line_played_with_other_settings(tmp_path: Path, monkeypatch) -> None:
    # As from a worker of a cluster that runs an older solve2048, which knows no danger.
    def older_worker(seeds, settings, jobs, on_rows, stopped=None) -> None:
        on_rows([game_row(play_game(seed, depth=1), Settings(depth=1)) for seed in seeds])

    monkeypatch.setattr("solve2048.cli.batch.run_local", older_worker)
    out = tmp_path / "r.jsonl"
    result = invoke("batch", "-n", "2", "-d", "1", "--danger", "3", "--no-tables", "-o", str(out))
    assert result.exit_code == 1
    assert one_error_line(result).startswith("solve2048: error: a worker played seed 0 at depth 1, quiescence 3, "
                                             "late quiescence 2, prune auto")
    assert "not depth 1, danger 3, quiescence 3," in result.stderr and out.read_bytes() == b""


def test_the_page_takes_danger_and_keeps_the_servers_where_it_can() -> None:
    base, limits = SearchSettings(depth=4, danger=3), Limits(max_depth=6)
    assert request_settings({}, base, limits).danger == 3
    assert request_settings({"depth": 5}, base, limits).danger == 3
    assert request_settings({"depth": "auto"}, base, limits).danger is None  # auto deepens by itself
    assert request_settings({"depth": 2, "time_ms": 50}, base, limits).danger is None
    assert request_settings({"danger": None}, base, limits).danger is None
    assert request_settings({"danger": 5}, SearchSettings(depth=3), limits).danger == 5
    # The page offers every depth up to the deepest and never names danger: the
    # server's holds where it can, and never makes the deepest depth fail.
    assert request_settings({"depth": 6}, base, limits) == base.replace(depth=6, danger=None, quiescence=None)
    for body, message in [({"depth": "auto", "danger": 3}, "fixed depth"), ({"danger": "x"}, "from 0 to 16"),
                          ({"depth": 6, "danger": 1}, "deeper than this server allows")]:
        with pytest.raises(ApiError, match=message):
            request_settings(body, base, limits)


def test_a_server_whose_own_depth_its_limits_refuse_does_not_start() -> None:
    from solve2048.web.app import create_app

    with pytest.raises(ApiError, match=r"depth 6 with danger searches deeper than --max-depth allows \(6\)"):
        create_app(SearchSettings(depth=6, danger=3, quiescence=None), Limits(max_depth=6))
    with pytest.raises(ApiError, match=r"depth 7 searches deeper"):
        create_app(SearchSettings(depth=7, quiescence=None), Limits(max_depth=6))
    result = invoke("serve", "-d", "10", "--danger", "3", "--no-open")
    assert result.exit_code == 2
    assert one_error_line(result) == \
        "solve2048: error: depth 10 with danger searches deeper than --max-depth allows (10)"


def test_a_board_past_32768_in_danger_is_searched_deeper_on_its_copy() -> None:
    board = Board.parse("65536 32768 16384 8192 / 256 512 1024 2048 / 128 64 32 16 / 2 4 . 8")
    assert analyze(board, depth=2, danger=1).depth == 3
    assert analyze(board, depth=2, danger=0).depth == 2


def test_the_server_takes_danger_in_its_requests_and_says_its_own() -> None:
    from live_server import post_json, request, serving

    from solve2048.web.app import create_app

    with serving(create_app(SearchSettings(depth=2, danger=2), Limits(max_depth=4))) as server:
        status, answer = post_json(server, "/api/hint", {"board": CROWDED})
        assert status == 200 and answer["depth"] == 3
        status, answer = post_json(server, "/api/hint", {"board": CROWDED, "danger": None})
        assert status == 200 and answer["depth"] == 2
        status, answer = post_json(server, "/api/review", {"board": CROWDED, "played": "left", "danger": 1})
        assert status == 200 and answer["depth"] == 2
        status, answer = post_json(server, "/api/hint", {"board": CROWDED, "depth": "auto", "danger": 2})
        assert status == 400 and "fixed depth" in answer["error"]
        status, _, info = request(server, "GET", "/api/info", b"", {})
        assert status == 200 and json.loads(info)["danger"] == 2


def test_a_record_and_its_review_say_danger(tmp_path: Path) -> None:
    record = tmp_path / "g.jsonl"
    played = invoke("play", "-d", "1", "--danger", "2", "--seed", "3", "--no-tables", "--record", str(record))
    assert played.exit_code == 0 and "depth 1, danger 2" in played.output
    start = json.loads(record.read_text().splitlines()[0])
    assert start["danger"] == 2 and start["depth"] == 1
    assert invoke("replay", str(record)).exit_code == 0
    reviewed = invoke("review", str(record), "-d", "1", "--danger", "2", "--no-tables", "--json")
    assert reviewed.exit_code == 0 and json.loads(reviewed.output)["danger"] == 2
    text = invoke("review", str(record), "-d", "1", "--danger", "2", "--no-tables").output
    assert "reviewed (depth 1, danger 2, quiescence 3, late quiescence 2, no tables)" in text


def test_the_engine_itself_refuses_a_danger_it_cannot_keep() -> None:
    from solve2048.engine import Searcher

    board = int(Board.parse(CROWDED))
    searcher = Searcher(tt_mb=1)
    assert searcher.analyze(board, depth=2, danger=2).depth == 3
    lost = int(Board.parse("2 4 2 4 / 4 2 4 2 / 2 4 2 4 / 4 2 4 2"))  # no move: searched at once, to any depth
    assert searcher.analyze(lost, depth=15, danger=0).depth == 16
    assert searcher.analyze(lost, depth=16, danger=0).depth == 16  # never past the deepest
    for bad in ({"depth": 0, "danger": 3}, {"depth": 3, "time_ms": 5.0, "danger": 3}):
        with pytest.raises(InvalidArgumentError, match="danger=3"):
            searcher.analyze(board, **bad)
    with pytest.raises(InvalidArgumentError, match="for danger"):
        searcher.analyze(board, depth=3, danger=17)
