"""Late quiescence: another quiescence once the board holds 32768 or more. The
phase test itself, the search it chooses for a board, the C game loop and
decide() switching at the same move, and every path the setting takes from the
CLI, a batch's lines, a record and the page's API."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from helpers import (
    assert_a_batch_keeps,
    assert_a_server_takes_a_look,
    assert_lines_without_it_were_played_without,
    one_error_line,
)

from solve2048 import Board, SearchSettings, analyze, play_game
from solve2048.cli.main import cli
from solve2048.decide import decide
from solve2048.engine import holds_32768
from solve2048.selfplay import Game
from solve2048.web.api import ApiError, Limits
from solve2048.web.api import settings_of as request_settings

EARLY = "2 4 8 16 / 32 64 128 256 / 512 1024 2 4 / 8 . . 2"          # 2 empty cells, no 32768
LATE = "32768 4 8 16 / 32 64 128 256 / 512 1024 2 4 / 8 . . 2"       # the same, its corner 32768
# One move (left) makes the first 32768; the game goes on a while after it.
BEFORE = "16384 16384 8192 4096 / 2048 1024 512 256 / 2 4 . . / . . . 2"


def invoke(*args: str):
    return CliRunner().invoke(cli, list(args))


def same_search(a, b) -> bool:
    return (a.values, a.nodes) == (b.values, b.nodes)


@pytest.mark.parametrize("board, holds", [
    (EARLY, False), (LATE, True), (BEFORE, False),
    ("16384 . . . / . . . . / . . . . / . . . 2", False),
    ("65536 . . . / . . . . / . . . . / . . . 2", True),     # past 64 bits, no nibble of 15
    ("131072 32768 . . / . . . . / . . . . / . . . 2", True),
    (". . . . / . . . . / . . . . / . . . 32768", True),
])
def test_the_last_phase_starts_at_32768(board: str, holds: bool) -> None:
    assert holds_32768(int(Board.parse(board))) is holds


def test_a_board_holding_32768_is_searched_with_the_late_quiescence() -> None:
    assert same_search(analyze(LATE, depth=2, quiescence=1, late_quiescence=3), analyze(LATE, depth=2, quiescence=3))
    assert same_search(analyze(EARLY, depth=2, quiescence=1, late_quiescence=3), analyze(EARLY, depth=2, quiescence=1))
    # With no quiescence, only the last phase looks.
    assert same_search(analyze(LATE, depth=2, quiescence=None, late_quiescence=2), analyze(LATE, depth=2, quiescence=2))
    assert same_search(analyze(EARLY, depth=2, quiescence=None, late_quiescence=2),
                       analyze(EARLY, depth=2, quiescence=None))
    # The settings differ where it matters: a look at more leaves changes the values.
    assert not same_search(analyze(LATE, depth=2, quiescence=3), analyze(LATE, depth=2, quiescence=1))


def test_the_game_loop_switches_at_the_first_32768_as_decide_does() -> None:
    settings = SearchSettings(depth=1, quiescence=1, late_quiescence=15)
    early_only = SearchSettings(depth=1, quiescence=1)
    checked = late = changed = 0
    for seed in range(3):
        game = Game(seed, settings, start=BEFORE)
        board = game.board
        for step in game.advance(400):
            assert decide(board, settings, values=False).move == step.move, (seed, board)
            if holds_32768(int(board)):
                late += 1
                changed += decide(board, early_only, values=False).move != step.move
            checked += 1
            board = step.board
        assert game.result().max_tile >= 32768
    # Every game reached its last phase, where the late look changed some moves.
    assert checked > late > 0 and changed > 0


def test_a_game_records_its_late_quiescence_and_plays_otherwise() -> None:
    late = Game(0, SearchSettings(depth=1, quiescence=1, late_quiescence=15), start=BEFORE).run()
    plain = Game(0, SearchSettings(depth=1, quiescence=1), start=BEFORE).run()
    assert late.late_quiescence == 15 and late.to_json()["late_quiescence"] == 15
    assert plain.to_json()["late_quiescence"] is None
    assert (late.score, late.moves) != (plain.score, plain.moves)


def test_hint_and_play_take_late_quiescence() -> None:
    hint = json.loads(invoke("hint", LATE, "-d", "2", "--late-quiescence", "3", "--json", "--no-tables").output)
    values = analyze(LATE, depth=2, quiescence=3).values
    assert hint["values"] == {str(move): value for move, value in values.items()}
    played = invoke("play", "-d", "1", "--quiescence", "2", "--late-quiescence", "3", "--seed", "3", "--json",
                    "--quiet", "--no-tables")
    assert played.exit_code == 0
    answer = json.loads(played.output)
    assert answer["late_quiescence"] == 3
    assert answer["score"] == play_game(3, depth=1, quiescence=2, late_quiescence=3).score
    text = invoke("play", "-d", "1", "--quiescence", "2", "--late-quiescence", "3", "--seed", "3", "--quiet",
                  "--no-tables").output
    assert "depth 1, quiescence 2, late quiescence 3" in text


@pytest.mark.parametrize("value, message", [("16", "16 is not in the range 1<=x<=15"),
                                            ("0", "0 is not in the range 1<=x<=15"),
                                            ("few", "'few' is not a valid integer")])
def test_the_cli_refuses_a_bad_late_quiescence_in_one_line(value: str, message: str) -> None:
    result = invoke("hint", EARLY, "--late-quiescence", value)
    assert result.exit_code == 2
    assert "--late-quiescence" in one_error_line(result) and message in one_error_line(result)


@pytest.mark.parametrize("bad", [0, 16, -1, True, 2.5, "2"])
def test_settings_refuse_a_late_quiescence_that_is_not_a_count_of_empty_cells(bad: object) -> None:
    with pytest.raises(ValueError, match="for late quiescence"):
        SearchSettings(late_quiescence=bad)


def test_a_batch_line_records_late_quiescence_and_a_resume_must_keep_it(tmp_path: Path) -> None:
    out = tmp_path / "r.jsonl"
    assert_a_batch_keeps("late_quiescence", 1, 3, out)  # 2 is the default
    summary = json.loads(invoke("stats", str(out), "--json").output)
    assert summary["late_quiescences"] == [1] and summary["quiescences"] == [3]
    assert "depth 1, quiescence 3, late quiescence 1" in invoke("stats", str(out)).output


def test_lines_without_late_quiescence_had_one_quiescence_and_a_bad_one_is_refused() -> None:
    assert_lines_without_it_were_played_without("late_quiescence")


def test_a_record_and_its_review_say_late_quiescence(tmp_path: Path) -> None:
    record = tmp_path / "g.jsonl"
    played = invoke("play", "-d", "1", "--late-quiescence", "2", "--seed", "3", "--no-tables",
                    "--record", str(record))
    assert played.exit_code == 0
    assert json.loads(record.read_text().splitlines()[0])["late_quiescence"] == 2
    reviewed = invoke("review", str(record), "-d", "1", "--late-quiescence", "2", "--no-tables", "--json")
    assert reviewed.exit_code == 0 and json.loads(reviewed.output)["late_quiescence"] == 2
    text = invoke("review", str(record), "-d", "1", "--quiescence", "1", "--late-quiescence", "2",
                  "--no-tables").output
    assert "reviewed (depth 1, quiescence 1, late quiescence 2, no tables)" in text


def test_the_page_takes_late_quiescence_within_the_deepest_depth() -> None:
    base, limits = SearchSettings(depth=4, quiescence=3, late_quiescence=2), Limits(max_depth=5)
    assert request_settings({}, base, limits) == base
    assert request_settings({"late_quiescence": None}, base, limits).late_quiescence is None
    assert request_settings({"late_quiescence": 4}, SearchSettings(depth=3), limits).late_quiescence == 4
    # What the server adds is dropped where the depth would go past the deepest: both its looks.
    assert request_settings({"depth": 5}, base, limits) == base.replace(depth=5, quiescence=None,
                                                                       late_quiescence=None)
    assert request_settings({"depth": 5, "late_quiescence": None}, base, limits).quiescence is None
    for body, message in [({"late_quiescence": "x"}, "for late quiescence"),
                          ({"late_quiescence": 0}, "for late quiescence"),
                          ({"depth": 5, "late_quiescence": 1}, "depth 5 with late quiescence searches deeper")]:
        with pytest.raises(ApiError, match=message):
            request_settings(body, base, limits)


def test_the_server_takes_late_quiescence_in_its_requests_and_says_its_own() -> None:
    # On a board holding 32768, the server's late quiescence 3 is quiescence 3.
    assert_a_server_takes_a_look("late_quiescence", LATE, "for late quiescence")
