"""Games that stop at a tile and are played on from there: the stop is the
move that first makes the tile, a game played on with the same settings is
the whole game, and batch --stop-at and --from write, check and refuse what
they should."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from solve2048 import deaths
from solve2048.batch import stopped_game
from solve2048.board import Board
from solve2048.cli.main import cli
from solve2048.engine import ffi, lib
from solve2048.errors import InvalidArgumentError
from solve2048.results import check_game, load
from solve2048.selfplay import Game, GameState

# What a line played on records of its own, beside the whole game's line.
OWN_FIELDS = ("seconds", "stop_at", "state", "continued_at", "continued_at_seconds")


def invoke(*args: str):
    return CliRunner().invoke(cli, ["batch", *args])


def lines(path: Path) -> dict[int, dict]:
    return {row["seed"]: row for row in load(str(path)).rows}


def _same_game(a: dict, b: dict) -> list[str]:
    """The fields in which two lines of one seed differ, but for OWN_FIELDS."""
    return [field for field in a if field not in OWN_FIELDS and a[field] != b[field]]


@pytest.mark.parametrize("seed", range(4))
def test_the_stop_is_the_move_that_first_makes_the_tile(seed: int) -> None:
    game, steps = Game(seed, depth=2, stop_at=256), []
    while not game.over:
        steps += game.advance(100)
    assert game.stopped and max(steps[-1].board.cells) == 256
    assert all(max(step.board.cells) < 256 for step in steps[:-1])
    result = game.result()
    assert result.stop_at == 256 and result.state is not None and result.moves == len(steps)
    assert not result.final_board.is_game_over()


@pytest.mark.parametrize("seed", range(3))
def test_a_game_played_on_with_the_same_settings_is_the_whole_game(seed: int) -> None:
    whole = Game(seed, depth=2).run()
    first = Game(seed, depth=2, stop_at=128).run()
    second = Game(seed, depth=2, stop_at=512, resume=first).run()
    rest = Game(seed, depth=2, resume=second).run()
    assert first.moves < second.moves < rest.moves and second.continued_at == first.moves
    assert (rest.score, rest.moves, rest.final_board, rest.won_at_move, rest.uncovered_moves) == (
        whole.score, whole.moves, whole.final_board, whole.won_at_move, whole.uncovered_moves)
    assert rest.state is None and rest.continued_at == second.moves
    assert first.seconds <= second.seconds <= rest.seconds  # each counts the time before it
    assert (second.continued_at_seconds, rest.continued_at_seconds) == (first.seconds, second.seconds)


def test_a_game_played_on_under_other_settings_differs_from_the_stop_on() -> None:
    first = Game(0, depth=1, stop_at=256).run()
    same = Game(0, depth=1, resume=first).run()
    other = Game(0, depth=3, resume=first).run()
    assert (same.score, same.moves) == (Game(0, depth=1).run().score, Game(0, depth=1).run().moves)
    assert other.moves > first.moves and (other.score, other.moves) != (same.score, same.moves)


def test_a_game_that_holds_its_stop_tile_from_the_start_never_stops_at_it() -> None:
    start = Board.parse("256 2 . . / . . . . / . . . . / . . . .")
    result = Game(0, depth=1, start=start, stop_at=256).run()
    assert result.state is None and result.final_board.is_game_over()


@pytest.mark.parametrize("tile", [0, 1, 3, 262144, True, 2.0, "256"])
def test_a_stop_tile_off_the_ladder_is_refused(tile: object) -> None:
    with pytest.raises(InvalidArgumentError, match="stop at"):
        Game(0, depth=1, stop_at=tile)  # type: ignore[arg-type]


def test_the_c_loop_refuses_a_stop_rank_off_the_ladder() -> None:
    game = Game(0, depth=1)
    steps = ffi.new("s2048_step[]", 1)
    for rank in (-1, 18):
        assert lib.s2048_game_play(game._state, game._searcher._handle, game._evaluator._handle, ffi.NULL,
                                   1, -1, -1, -1, 0.0, 0.0, rank, steps, 1) == -1
    assert game.moves == 0


def test_only_a_stopped_game_of_the_same_seed_is_played_on() -> None:
    ended = Game(0, depth=1).run()
    with pytest.raises(InvalidArgumentError, match="ended"):
        Game(0, depth=1, resume=ended)
    stopped = Game(0, depth=1, stop_at=64).run()
    with pytest.raises(InvalidArgumentError, match="seed 0, not 1"):
        Game(1, depth=1, resume=stopped)
    with pytest.raises(InvalidArgumentError, match="either"):
        Game(0, depth=1, resume=stopped, start=Board.parse("2 2 . . / . . . . / . . . . / . . . ."))


@pytest.mark.parametrize("state", [
    None, [], {"rng": "0" * 64}, {"rng": "0" * 64, "probe": None}, {"rng": "g" * 64, "probe": None},
    {"rng": "1" * 63, "probe": None}, {"rng": "1" * 64, "probe": [0, 1, 2]},
    {"rng": "1" * 64, "probe": [4, 2, 6, 9, True]}, {"rng": "1" * 64, "probe": [0, 2, 6, 9, 1]},
    {"rng": "1" * 64, "probe": None, "extra": 1},
])
def test_a_malformed_game_state_is_refused(state: object) -> None:
    with pytest.raises(InvalidArgumentError):
        GameState.from_json(state)


def test_a_game_state_reads_back_as_written() -> None:
    state = Game(3, depth=1, stop_at=128).run().state
    assert state is not None and GameState.from_json(json.loads(json.dumps(state.to_json()))) == state


# ---- batch --stop-at and --from ---------------------------------------------------------


@pytest.fixture(scope="module")
def stopped_batch(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("stop") / "stop.jsonl"
    result = invoke("-n", "8", "-d", "1", "-j", "2", "--stop-at", "512", "-o", str(out))
    assert result.exit_code == 0, result.output
    return out


def test_a_stopped_batch_keeps_each_game_where_it_stopped(stopped_batch: Path) -> None:
    rows = lines(stopped_batch)
    assert len(rows) == 8
    stopped = [r for r in rows.values() if r["state"] is not None]
    ended = [r for r in rows.values() if r["state"] is None]
    assert stopped and ended  # depth 1 makes 512 in some games, not all
    assert all(r["max_tile"] == 512 and not Board.parse(r["final_board"]).is_game_over() for r in stopped)
    assert all(r["max_tile"] < 512 and Board.parse(r["final_board"]).is_game_over() for r in ended)
    assert all(r["stop_at"] == 512 and r["continued_at"] is None for r in rows.values())
    summary = CliRunner().invoke(cli, ["stats", str(stopped_batch)]).output
    assert f"stopped      {len(stopped)} games at 512, alive; the other {len(ended)} ended" in summary


def test_a_batch_played_on_is_the_whole_batch_line_for_line(stopped_batch: Path, tmp_path: Path) -> None:
    whole, on = tmp_path / "whole.jsonl", tmp_path / "on.jsonl"
    assert invoke("-n", "8", "-d", "1", "-j", "2", "-o", str(whole)).exit_code == 0
    result = invoke("-n", "8", "-d", "1", "-j", "2", "--from", str(stopped_batch), "-o", str(on))
    assert result.exit_code == 0, result.output
    stopped = {s for s, r in lines(stopped_batch).items() if r["state"] is not None}
    played_on = lines(on)
    assert set(played_on) == stopped
    for seed, row in played_on.items():
        assert _same_game(lines(whole)[seed], row) == [], seed
        assert row["continued_at"] == lines(stopped_batch)[seed]["moves"]
        assert row["continued_at_seconds"] == lines(stopped_batch)[seed]["seconds"] <= row["seconds"]
    # The summary's phase is the moves and seconds after the stops alone.
    summary = json.loads(CliRunner().invoke(cli, ["stats", str(on), "--json"]).output)
    stopped_rows = [lines(stopped_batch)[seed] for seed in played_on]
    assert summary["moves_played_on"] == summary["moves"] - sum(r["moves"] for r in stopped_rows)
    assert summary["seconds_played_on"] == pytest.approx(summary["seconds"] - sum(r["seconds"] for r in stopped_rows))
    assert 0 < summary["moves_played_on"] < summary["moves"]
    assert f"played on    {len(played_on)} stopped games (--from); after the stops " in result.output
    assert f"({summary['moves_played_on']:,} moves)" in result.output
    # Run again, it resumes: nothing is left to play.
    again = invoke("-n", "8", "-d", "1", "-j", "2", "--from", str(stopped_batch), "-o", str(on))
    assert again.exit_code == 0 and "0 to play" in again.output


def test_games_played_on_twice_leave_out_the_seeds_that_ended_before(stopped_batch: Path, tmp_path: Path) -> None:
    # From 512 to 1024, then on: the second file holds only the seeds that stopped at 512.
    to_1024, rest = tmp_path / "to1024.jsonl", tmp_path / "rest.jsonl"
    assert invoke("-n", "8", "-d", "1", "-j", "1", "--from", str(stopped_batch), "--stop-at", "1024",
                  "-o", str(to_1024)).exit_code == 0
    result = invoke("-n", "8", "-d", "1", "-j", "1", "--from", str(to_1024), "-o", str(rest))
    assert result.exit_code == 0, result.output
    absent = 8 - len(lines(to_1024))
    assert absent > 0 and f"{absent} seeds are not in it" in result.output
    assert set(lines(rest)) == {s for s, r in lines(to_1024).items() if r["state"] is not None}


def test_a_file_of_whole_games_is_not_resumed_as_games_played_on(stopped_batch: Path, tmp_path: Path) -> None:
    whole = tmp_path / "whole.jsonl"
    assert invoke("-n", "8", "-d", "1", "-j", "1", "-o", str(whole)).exit_code == 0
    result = invoke("-n", "8", "-d", "1", "-j", "1", "--from", str(stopped_batch), "-o", str(whole))
    assert result.exit_code == 2 and "played on stopped games" in result.output


@pytest.mark.parametrize(("args", "message"), [
    (["-n", "2", "-s", "8"], "has no game of seeds 8 to 9"),
    (["-n", "8", "--stop-at", "512"], "stopped at 512; a game played on stops at a bigger tile"),
    (["-n", "8", "--stop-at", "256"], "stopped at 512"),
    (["-n", "8", "--start", "2 2 . . / . . . . / . . . . / . . . ."], "cannot go together"),
])
def test_bad_plays_on_are_refused_in_one_line(stopped_batch: Path, args: list[str], message: str) -> None:
    result = invoke(*args, "-d", "1", "-j", "1", "--from", str(stopped_batch))
    assert result.exit_code == 2 and message in result.output
    assert "Traceback" not in result.output


@pytest.mark.parametrize("tile", ["3", "0", "262144", "x", "-2"])
def test_a_stop_tile_off_the_ladder_is_one_line(tile: str) -> None:
    result = invoke("-n", "1", "-d", "1", "--stop-at", tile)
    assert result.exit_code == 2 and "expected a tile from 2 to 131072" in result.output


def test_games_from_a_given_board_are_not_played_on(tmp_path: Path) -> None:
    out = tmp_path / "from-board.jsonl"
    board = "2 2 4 8 / . . . . / . . . . / . . . ."
    assert invoke("-n", "2", "-d", "1", "--start", board, "--stop-at", "64", "-o", str(out)).exit_code == 0
    result = invoke("-n", "2", "-d", "1", "--from", str(out))
    assert result.exit_code == 2 and "played from a given board" in result.output


def test_a_start_board_holding_the_stop_tile_is_refused() -> None:
    result = invoke("-n", "1", "-d", "1", "--stop-at", "64", "--start", "64 2 . . / . . . . / . . . . / . . . .")
    assert result.exit_code == 2 and "holds 64 already" in result.output


def test_a_missing_or_hostile_from_file_is_one_line(stopped_batch: Path, tmp_path: Path) -> None:
    result = invoke("-n", "1", "-d", "1", "--from", str(tmp_path / "none.jsonl"))
    assert result.exit_code == 2 and len(result.output.strip().splitlines()) == 1
    row = next(r for r in lines(stopped_batch).values() if r["state"] is not None)
    hostile = tmp_path / "hostile.jsonl"
    hostile.write_text(json.dumps({**row, "state": {"rng": "z" * 64, "probe": None}}) + "\n")
    result = invoke("-n", "1", "-s", str(row["seed"]), "-d", "1", "--from", str(hostile))
    assert result.exit_code == 2 and "state" in result.output and "line 1" in result.output
    assert len(result.output.strip().splitlines()) == 1


def test_a_worker_refuses_to_play_on_without_the_stopped_game() -> None:
    from solve2048.batch import Settings, play_seeds

    with pytest.raises(InvalidArgumentError, match="every seed"):
        play_seeds([0], Settings(depth=1, continues=True), {})


def test_results_lines_of_stops_are_checked(stopped_batch: Path) -> None:
    row = next(r for r in lines(stopped_batch).values() if r["state"] is not None)
    assert check_game(dict(row)) and stopped_game(row).state is not None
    ended = next(r for r in lines(stopped_batch).values() if r["state"] is None)
    bad = [
        ({**row, "stop_at": None}, "stop_at names no tile"),
        ({**row, "stop_at": 1024}, "below stop_at"),
        ({**row, "stop_at": 3}, "stop_at 3 is not a power of two"),
        ({**row, "stop_at": 1 << 18}, "stop_at 262,144 is not from 2 to 131,072"),
        ({**row, "continued_at": row["moves"] + 1}, "continued_at"),
        ({**row, "continued_at_seconds": 0.0}, "continued_at names no move"),
        ({**row, "continued_at": 1, "continued_at_seconds": row["seconds"] + 1}, "continued_at_seconds"),
        ({**row, "continued_at": 1, "continued_at_seconds": float("nan")}, "continued_at_seconds nan"),
        ({**row, "continued_at": 1, "continued_at_seconds": -1}, "continued_at_seconds -1"),
        ({**row, "state": {"rng": "0" * 64, "probe": None}}, "all zeros"),
        ({**ended, "state": row["state"]}, "below stop_at"),
        ({**ended, "stop_at": 4, "state": row["state"]}, "no legal move"),
    ]
    for line, message in bad:
        with pytest.raises(ValueError, match=message):
            check_game(line)


def test_the_death_analysis_leaves_stopped_games_out(stopped_batch: Path) -> None:
    rows = list(lines(stopped_batch).values())
    ended = sum(r["state"] is None for r in rows)
    assert sum(group["games"] for group in deaths.summarize(rows)["by_max_tile"]) == ended
