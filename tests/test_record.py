"""Game records: the play and replay commands, and every way a record can be wrong."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from solve2048 import reference
from solve2048.cli.main import cli
from solve2048.record import RecordError, replay


@pytest.fixture(scope="module")
def record(tmp_path_factory) -> list[str]:
    path = tmp_path_factory.mktemp("rec") / "game.jsonl"
    # --no-tables: a module fixture runs before conftest empties SOLVE2048_TABLES, and
    # the game must not depend on tables installed on this machine.
    result = CliRunner().invoke(cli, ["play", "-d", "2", "-s", "4", "--no-tables", "--record", str(path),
                                      "--json"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return path.read_text().splitlines()


def test_play_json_shape_and_record_agree(record: list[str], tmp_path: Path) -> None:
    result = CliRunner().invoke(cli, ["play", "-d", "2", "-s", "4", "--json"])
    data = json.loads(result.output)
    assert set(data) == {"seed", "depth", "score", "max_tile", "moves", "won", "won_at_move",
                         "seconds", "moves_per_second", "final_board",
                         "table_moves", "time_ms", "danger", "quiescence", "late_quiescence", "uncovered_moves",
                         "last_covered", "last_probability", "last_table", "last_trusted", "stretch_start",
                         "stretch_probability"}
    assert data["depth"] == 2 and data["time_ms"] is None
    start, end = json.loads(record[0]), json.loads(record[-1])
    assert start == {"type": "start", "seed": 4, "depth": 2, "quiescence": 3, "late_quiescence": 2,
                     "board": start["board"]}
    assert end["score"] == data["score"] and end["moves"] == data["moves"] == len(record) - 2
    assert end["reason"] == "game_over"


def test_a_game_played_by_time_says_so_not_depth_auto() -> None:
    data = json.loads(CliRunner().invoke(cli, ["play", "--time", "0.5", "-s", "1", "--stop-at-win",
                                               "--no-tables", "--json"]).output)
    assert data["depth"] is None and data["time_ms"] == 0.5
    text = CliRunner().invoke(cli, ["play", "--time", "0.5", "-d", "2", "-s", "1", "--stop-at-win",
                                    "--no-tables", "--quiet"]).output
    assert "0.5 ms per move, depth at most 2" in text and "depth auto" not in text


def test_play_human_summary_and_chosen_seed() -> None:
    result = CliRunner().invoke(cli, ["play", "-d", "1"])
    assert result.exit_code == 0
    assert "replay this game with --seed" in result.output
    assert "game over: score" in result.output


def test_replay_command_accepts_the_record(record: list[str], tmp_path: Path) -> None:
    path = tmp_path / "ok.jsonl"
    path.write_text("\n".join(record) + "\n")
    result = CliRunner().invoke(cli, ["replay", str(path)])
    assert result.exit_code == 0, result.output
    assert f"score {json.loads(record[-1])['score']:,}" in result.output


def edit(lines: list[str], index: int, **changes) -> list[str]:
    obj = json.loads(lines[index])
    obj.update(changes)
    return lines[:index] + [json.dumps(obj)] + lines[index + 1:]


def test_tampered_records_name_the_line(record: list[str]) -> None:
    first_move = json.loads(record[1])
    wrong_gain = edit(record, 1, gain=first_move["gain"] + 2)
    with pytest.raises(RecordError, match="line 2: move 1: gain"):
        replay(wrong_gain)
    after_first, _ = reference.move(json.loads(record[0])["board"], first_move["dir"])
    taken = next(i for i, v in enumerate(after_first) if v)  # occupied after move 1
    occupied = edit(record, 1, spawn={"cell": taken, "value": 2})
    with pytest.raises(RecordError, match="spawn cell"):
        replay(occupied)
    with pytest.raises(RecordError, match="line 3: move 2: spawn value must be 2 or 4"):
        replay(edit(record, 2, spawn={"cell": json.loads(record[2])["spawn"]["cell"], "value": 8}))
    with pytest.raises(RecordError, match="end line says score"):
        replay(edit(record, len(record) - 1, score=1))
    with pytest.raises(RecordError, match="line 2: not JSON"):
        replay([record[0], "{not json", *record[2:]])
    with pytest.raises(RecordError, match="begins with a start line"):
        replay(record[1:])
    with pytest.raises(RecordError, match="empty record"):
        replay([])
    early = replay(record[:10])  # a record cut short replays, without an end line
    assert early.reason is None and early.moves == 9
    early_end = {"type": "end", "score": early.score, "max_tile": max(early.board), "moves": 9,
                 "won": False, "reason": "game_over"}
    with pytest.raises(RecordError, match="line 11: the game ends here, but a legal move remains"):
        replay(record[:10] + [json.dumps(early_end)])
    replay(record[:10] + [json.dumps({**early_end, "reason": "interrupted"})])
    with pytest.raises(RecordError, match="two tiles of 2 or 4"):
        replay(edit(record, 0, board=[2] * 16))


def test_illegal_direction_is_named(record: list[str]) -> None:
    # Find a move with an illegal direction on its board: put that direction there.
    cells = json.loads(record[0])["board"]
    for index in range(1, len(record) - 1):
        obj = json.loads(record[index])
        for direction in reference.DIRECTIONS:
            if reference.move(cells, direction)[0] == cells:
                bad = edit(record, index, dir=direction)
                with pytest.raises(RecordError,
                                   match=f"line {index + 1}: move {index}: {direction} is not a legal move"):
                    replay(bad)
                return
        cells, _ = reference.move(cells, obj["dir"])
        cells[obj["spawn"]["cell"]] = obj["spawn"]["value"]
    raise AssertionError("no illegal direction found in the whole game")


def test_replay_command_exit_codes(record: list[str], tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text("\n".join(edit(record, 3, gain=12345)))
    result = CliRunner().invoke(cli, ["replay", str(bad)])
    assert result.exit_code == 1 and "line 4: move 3" in result.output
    result = CliRunner().invoke(cli, ["replay", str(tmp_path / "missing.jsonl")])
    assert result.exit_code == 2 and len(result.output.strip().splitlines()) == 1
    binary = tmp_path / "binary.jsonl"
    binary.write_bytes(b"\xff\xfe\x00garbage")
    result = CliRunner().invoke(cli, ["replay", str(binary)])
    assert result.exit_code == 1 and "not JSON" in result.output


def test_record_to_a_missing_folder_is_one_line_exit_2(tmp_path: Path) -> None:
    result = CliRunner().invoke(cli, ["play", "-d", "1", "-s", "1", "--record", str(tmp_path / "no" / "g.jsonl")])
    assert result.exit_code == 2
    assert len(result.output.strip().splitlines()) == 1 and "does not exist" in result.output


def test_play_refuses_a_record_that_is_already_there_and_keeps_it(record: list[str], tmp_path: Path) -> None:
    # Another game's record (seed 4, depth 2), which this game (seed 1, depth 1) would replace.
    path = tmp_path / "kept.jsonl"
    kept = ("\n".join(record) + "\n").encode()
    path.write_bytes(kept)
    # No --seed: the seed line that a chosen seed prints must not come before the refusal.
    result = CliRunner().invoke(cli, ["play", "-d", "1", "--no-tables", "--record", str(path), "--quiet"])
    assert result.exit_code == 2, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    assert result.stdout == "", result.output  # no move was played, no summary printed
    assert result.stderr.splitlines() == [
        f"solve2048: error: Invalid value for '--record': {str(path)!r} already exists; --overwrite replaces it"]
    assert path.read_bytes() == kept
    empty = tmp_path / "empty.jsonl"  # a file already there is refused, whatever it holds
    empty.touch()
    result = CliRunner().invoke(cli, ["play", "-d", "1", "-s", "1", "--no-tables", "--record", str(empty)])
    assert result.exit_code == 2 and "already exists" in result.stderr, result.output
    assert empty.read_bytes() == b""


def test_play_overwrite_replaces_the_record_with_one_that_replays(record: list[str], tmp_path: Path) -> None:
    path = tmp_path / "replaced.jsonl"
    path.write_text("\n".join(record) + "\n" + "left over\n" * 2000)  # longer than the new game's record
    result = CliRunner().invoke(cli, ["play", "-d", "1", "-s", "1", "--no-tables", "--record", str(path),
                                      "--overwrite", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    lines = path.read_text().splitlines()
    assert json.loads(lines[0])["seed"] == 1 and len(lines) == data["moves"] + 2  # nothing of the old file left
    result = CliRunner().invoke(cli, ["replay", str(path)])
    assert result.exit_code == 0, result.output
    assert f"legal game: score {data['score']:,} · {data['moves']:,} moves" in result.stdout
    assert "spawns follow seed 1" in result.stdout


def test_a_record_that_cannot_be_written_stops_the_game_in_one_line(tmp_path: Path) -> None:
    # /dev/full takes the open and fails every write, as a full disk does.
    result = CliRunner().invoke(cli, ["play", "-d", "1", "-s", "1", "--no-tables", "--record", "/dev/full"])
    assert result.exit_code == 1, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
    lines = result.output.strip().splitlines()
    assert lines[-1].startswith("solve2048: error: cannot write /dev/full: No space left on device")
    under_a_file = tmp_path / "file.txt"
    under_a_file.write_text("kept")
    result = CliRunner().invoke(cli, ["play", "-d", "1", "--record", str(under_a_file / "g.jsonl")])
    assert result.exit_code == 2 and "is a file, not a folder" in result.output
    assert under_a_file.read_text() == "kept"
