"""Replaying a record as untrusted input: bounded lines, the seed's generator, and
garbage in every field, through the library and the command."""

from __future__ import annotations

import io
import json
import time
from pathlib import Path

import pytest
from click.testing import CliRunner
from helpers import solver_record
from hypothesis import given, settings
from hypothesis import strategies as st

from solve2048 import reference
from solve2048.cli.main import cli
from solve2048.engine import MAX_DEPTH
from solve2048.record import MAX_LINE_BYTES, RecordError, RecordWriter, read_lines, replay
from solve2048.rng import Rng


@pytest.fixture(scope="module")
def record() -> list[str]:
    return solver_record(4, 2)


def invoke(*args: str, code: int | None = None):
    """Runs the command; with ``code``, checks it exited so, without a traceback."""
    result = CliRunner().invoke(cli, list(args))
    if code is not None:
        assert result.exit_code == code, result.output
        assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result


def write(path: Path, lines: list[str]) -> Path:
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def with_spawn(lines: list[str], index: int, cell: int, value: int) -> list[str]:
    obj = json.loads(lines[index])
    obj["spawn"] = {"cell": cell, "value": value}
    return lines[:index] + [json.dumps(obj)] + lines[index + 1:]


def board_before_spawn(lines: list[str], index: int) -> list[int]:
    """The board after the move on line ``index + 1``, before that move's spawn."""
    cells = json.loads(lines[0])["board"]
    for i in range(1, index + 1):
        obj = json.loads(lines[i])
        cells, _ = reference.move(cells, obj["dir"])
        if i < index:
            cells[obj["spawn"]["cell"]] = obj["spawn"]["value"]
    return cells


def other_empty_cell(lines: list[str], index: int) -> int:
    """An empty cell for the spawn on line ``index + 1`` other than the one recorded."""
    recorded = json.loads(lines[index])["spawn"]["cell"]
    return next(i for i, v in enumerate(board_before_spawn(lines, index)) if v == 0 and i != recorded)


# ---- bounded lines --------------------------------------------------------------------

def test_read_lines_bound_is_on_the_line_without_its_newline() -> None:
    assert list(read_lines(io.BytesIO(b"0123456789\n0123456789"), max_bytes=10)) == [
        "0123456789\n", "0123456789"]
    with pytest.raises(RecordError, match=r"^line 2: longer than 10 bytes"):
        list(read_lines(io.BytesIO(b"short\n0123456789A\n"), max_bytes=10))
    assert list(read_lines(io.BytesIO(b"\xffx\n"))) == ["\ufffdx\n"]


def test_an_enormous_line_is_refused_at_its_number_quickly(record: list[str], tmp_path: Path) -> None:
    path = write(tmp_path / "long.jsonl", record[:2])
    with path.open("ab") as stream:
        stream.write(b"x" * (3 * MAX_LINE_BYTES) + b"\n")  # the bound stops it, not the size
    result = invoke("replay", str(path), code=1)
    assert result.stderr.strip() == (f"solve2048: illegal record {path}: "
                                     f"line 3: longer than {MAX_LINE_BYTES:,} bytes; record lines are short")


def test_a_200_mb_single_line_stops_within_a_second(tmp_path: Path) -> None:
    path = tmp_path / "huge.jsonl"
    with path.open("wb") as stream:
        stream.truncate(200 << 20)  # sparse: 200 MB of NUL bytes and no newline, written at once
    start = time.perf_counter()
    result = invoke("replay", str(path), code=1)
    assert time.perf_counter() - start < 1.0
    assert f"line 1: longer than {MAX_LINE_BYTES:,} bytes" in result.stderr


def test_dev_zero_is_refused_as_not_a_file_and_bounded_anyway() -> None:
    start = time.perf_counter()
    result = invoke("replay", "/dev/zero", code=2)
    assert result.stderr == ("solve2048: error: /dev/zero is not a regular file; "
                             "a record is a file of JSON lines\n")
    with open("/dev/zero", "rb") as stream, pytest.raises(RecordError, match="line 1: longer than"):
        replay(read_lines(stream))  # the library alone is bounded too
    assert time.perf_counter() - start < 1.0


# ---- the seed's generator -------------------------------------------------------------

def test_a_played_record_follows_its_seed(record: list[str], tmp_path: Path) -> None:
    result = replay(record)
    assert result.spawns_follow_seed is True and result.spawn_mismatch is None and result.seed == 4
    output = invoke("replay", str(write(tmp_path / "g.jsonl", record)), code=0)
    assert output.stdout.splitlines()[-1].endswith("· game_over · spawns follow seed 4")
    data = json.loads(invoke("replay", "--json", str(tmp_path / "g.jsonl")).stdout)
    assert {"seed", "score", "moves", "won_at_move", "reason", "game_over", "final_board"} < set(data)
    assert data["spawns_follow_seed"] is True and data["spawn_mismatch"] is None


@pytest.mark.parametrize("start", [
    {"type": "start", "seed": None, "depth": None},
    {"type": "start"},  # a person's game from a web page: no seed, no depth
])
def test_without_a_seed_the_spawns_are_not_checked(record: list[str], tmp_path: Path, start: dict) -> None:
    lines = [json.dumps({**start, "board": json.loads(record[0])["board"]}), *record[1:]]
    index = 5
    # A spawn no generator drew (for seed 4 at least), cut there as later moves may turn illegal.
    lines = with_spawn(lines, index, other_empty_cell(lines, index), 4)[:index + 1]
    result = replay(lines)
    assert result.seed is None and result.depth is None
    assert result.spawns_follow_seed is None and result.spawn_mismatch is None
    output = invoke("replay", str(write(tmp_path / "person.jsonl", lines)), code=0)
    assert output.stdout.splitlines()[-1].endswith(
        "no seed, so the spawns were not checked against a generator")


def test_record_writer_writes_a_null_seed() -> None:
    stream = io.StringIO()
    RecordWriter(stream).start(None, "auto", [2] + [0] * 14 + [4])
    assert json.loads(stream.getvalue())["seed"] is None
    assert replay(stream.getvalue().splitlines()).spawns_follow_seed is None


def test_a_spawn_off_the_generator_is_its_own_verdict(record: list[str], tmp_path: Path) -> None:
    index = 6  # line 7, move 6
    drawn = json.loads(record[index])["spawn"]  # the record follows its seed, so this is the draw
    other = other_empty_cell(record, index)
    lines = with_spawn(record, index, other, 2)[:index + 1]  # cut there: later moves may turn illegal
    result = replay(lines)
    assert result.spawns_follow_seed is False
    mismatch = result.spawn_mismatch
    assert (mismatch.line, mismatch.move) == (7, 6)
    assert mismatch.record == ((other, 2),) and mismatch.generator == ((drawn["cell"], drawn["value"]),)
    path = write(tmp_path / "off.jsonl", lines)
    output = invoke("replay", str(path), code=1)
    assert output.stdout.splitlines()[-1].startswith(
        f"legal moves, but the spawns do not follow seed 4's generator from line 7 (move 6: cell {other} "
        f"value 2, the generator gives cell {drawn['cell']} value {drawn['value']}): score ")
    data = json.loads(invoke("replay", "--json", str(path), code=1).stdout)
    assert data["spawns_follow_seed"] is False
    assert data["spawn_mismatch"] == {"line": 7, "move": 6, "record": [{"cell": other, "value": 2}],
                                      "generator": [drawn]}


def test_a_changed_value_alone_is_off_the_generator(record: list[str]) -> None:
    drawn = json.loads(record[3])["spawn"]
    lines = with_spawn(record, 3, drawn["cell"], 6 - drawn["value"])[:4]
    assert replay(lines).spawn_mismatch.generator == ((drawn["cell"], drawn["value"]),)
    assert replay(record[:4]).spawns_follow_seed is True


def test_a_start_board_off_the_generator(record: list[str]) -> None:
    board, rng = [0] * 16, Rng(5)
    for _ in range(2):
        cell, value = rng.spawn(board)
        board[cell] = value
    lines = [record[0].replace('"seed": 4', '"seed": 5'), *record[1:]]
    recorded = json.loads(record[0])["board"]
    assert board != recorded  # else seed 5 is no test of the start board
    mismatch = replay(lines).spawn_mismatch
    assert (mismatch.line, mismatch.move) == (1, 0)
    assert mismatch.record == tuple((i, v) for i, v in enumerate(recorded) if v)
    assert mismatch.generator == tuple((i, v) for i, v in enumerate(board) if v)
    assert mismatch.describe().startswith("start board: cell ")


def test_a_5000_move_game_replays_with_its_generator_in_well_under_a_second() -> None:
    lines = next((r for r in (solver_record(seed, 3) for seed in range(10)) if len(r) > 5002), None)
    assert lines is not None, "no depth-3 game of 5,000 moves among seeds 0-9"
    start = time.perf_counter()
    result = replay(lines)
    elapsed = time.perf_counter() - start
    assert result.spawns_follow_seed is True and result.moves >= 5000
    assert elapsed < 1.0, f"{result.moves:,} moves took {elapsed:.2f} s"


# ---- every field is checked -----------------------------------------------------------

HUGE = "9" * 5000  # more digits than Python reads as an int


def with_field(line: str, key: str, raw: str) -> str:
    """The line with ``key`` set to the JSON text ``raw`` (which json.dumps may not write)."""
    obj = json.loads(line)
    obj[key] = "@@"
    return json.dumps(obj).replace('"@@"', raw)


@pytest.mark.parametrize("index, key, raw, message", [
    (0, "seed", "-1", "line 1: seed must be null or a whole number from 0 to 2**64-1, got -1"),
    (0, "seed", str(2 ** 64), "line 1: seed must be null or a whole number"),
    (0, "seed", "4.0", "line 1: seed must be"),
    (0, "seed", '"4"', "line 1: seed must be"),
    (0, "seed", "true", "line 1: seed must be"),
    (0, "seed", "NaN", "line 1: seed must be"),
    (0, "seed", "[4]", "line 1: seed must be"),
    (0, "seed", HUGE, "line 1: not JSON (a number too long to read)"),
    (0, "depth", '{"d": 3}', f"line 1: depth must be null, 'auto' or 1..{MAX_DEPTH}, got {{'d': 3}}"),
    (0, "depth", "0", "line 1: depth must be"),
    (0, "depth", '"deep"', "line 1: depth must be"),
    (0, "board", "[65536, 2" + ", 0" * 14 + "]", "line 1: a game starts with two tiles of 2 or 4, got [65536, 2]"),
    (0, "board", "[2.0, 2" + ", 0" * 14 + "]", "line 1: a tile must be a whole number, got 2.0"),
    (0, "board", "[[2], 2" + ", 0" * 14 + "]", "line 1: a tile must be a whole number"),
    (0, "board", '{"0": 2}', "line 1: start board must be a list of 16 tile values"),
    (1, "gain", HUGE, "line 2: not JSON (a number too long to read)"),
    (1, "gain", str(10 ** 4000), "line 2: move 1: gain is 10000000000"),
    (1, "gain", "1e400", "line 2: move 1: gain must be a whole number, got inf"),
    (1, "gain", '{"a": {"b": []}}', "line 2: move 1: gain must be a whole number"),
    (1, "dir", '["left"]', "line 2: move 1: dir must be up, down, left or right, got ['left']"),
    (1, "dir", '"' + "x" * 1000 + '"', "line 2: move 1: dir must be up, down, left or right, got 'xxxx"),
    (1, "spawn", "[3, 2]", "line 2: move 1: spawn must be an object with cell and value"),
    (1, "spawn", '{"cell": 1e3, "value": 2}', "line 2: move 1: spawn cell must be a whole number"),
    (1, "spawn", '{"cell": ' + str(2 ** 70) + ', "value": 2}',
     "line 2: move 1: spawn cell 1180591620717411303424 is not"),
    (1, "spawn", '{"cell": -1, "value": 2}', "line 2: move 1: spawn cell -1 is not an empty cell"),
    (1, "spawn", '{"cell": 15}', "line 2: move 1: spawn value must be a whole number, got None"),
    (1, "type", '{"start": 1}', "line 2: expected an object with type start, move or end"),
    (-1, "score", "SCORE.0", "end line says score SCORE.0, the moves give SCORE"),
    (-1, "won", "1", "end line says won 1, the moves give"),
    (-1, "moves", "null", "end line says moves None"),
    (-1, "reason", '{"why": 1}', "reason must be one of game_over, stopped_at_win, interrupted, got {'why': 1}"),
])
def test_hostile_fields_are_one_line_errors(record: list[str], tmp_path: Path,
                                            index: int, key: str, raw: str, message: str) -> None:
    score = str(json.loads(record[-1])["score"])  # SCORE: the game's true score
    raw, message = raw.replace("SCORE", score), message.replace("SCORE", score)
    lines = list(record)
    lines[index] = with_field(lines[index], key, raw)
    with pytest.raises(RecordError) as error:
        replay(lines)
    assert message in str(error.value) and len(str(error.value)) < 200, str(error.value)
    output = invoke("replay", str(write(tmp_path / "bad.jsonl", lines)), code=1)
    assert output.stderr.count("\n") == 1 and message in output.stderr


# ---- garbage anywhere -----------------------------------------------------------------

KEYS = ("type", "seed", "depth", "board", "dir", "gain", "spawn", "cell", "value",
        "score", "max_tile", "moves", "won", "reason")
LEAVES = (st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=6)
          | st.sampled_from([2 ** 64, -1, 10 ** 30, 65536, 16, 2, 4, "auto", "left", "up",
                             "start", "move", "end", "game_over", "stopped_at_win"]))
VALUES = st.recursive(LEAVES, lambda inner: st.lists(inner, max_size=17)
                      | st.dictionaries(st.sampled_from(KEYS) | st.text(max_size=4), inner, max_size=4),
                      max_leaves=20)
RAW_LINES = st.sampled_from([
    "", "   ", "{", "[]", "null", "[" * 100_000, '{"type": "move", "gain": ' + HUGE + "}",
    '{"type": "start", "seed": 1e999, "board": []}', '{"type": "move", "dir": NaN}',
    '{"type": "end", "score": -Infinity}', '"\\ud800"', '{"type": "move", "spawn": {"cell": "\\ud800"}}',
]) | st.text(max_size=40)


def as_object(text: str) -> dict:
    """The line's object, or {} for a line an earlier mutation made garbage."""
    try:
        obj = json.loads(text)
    except (ValueError, RecursionError):
        return {}
    return obj if isinstance(obj, dict) else {}


@st.composite
def mutated(draw, lines: list[str]) -> list[str]:
    """The first moves of a real record (and sometimes its end line), with a few
    fields, keys or whole lines replaced by garbage."""
    out = lines[:draw(st.integers(1, 25))] + draw(st.sampled_from([[], [lines[-1]]]))
    for _ in range(draw(st.integers(1, 3))):
        i = draw(st.integers(0, len(out) - 1))
        kind = draw(st.sampled_from(["set", "set_spawn", "drop", "raw", "object", "insert", "delete"]))
        obj = as_object(out[i])
        if kind == "set":
            obj[draw(st.sampled_from(KEYS))] = draw(VALUES)
        elif kind == "set_spawn" and isinstance(obj.get("spawn"), dict):
            obj["spawn"][draw(st.sampled_from(["cell", "value"]))] = draw(VALUES)
        elif kind == "drop" and obj:
            obj.pop(draw(st.sampled_from(sorted(obj))))
        if kind in ("set", "set_spawn", "drop"):
            out[i] = json.dumps(obj)
        elif kind == "raw":
            out[i] = draw(RAW_LINES)
        elif kind == "object":
            out[i] = json.dumps(draw(VALUES))
        elif kind == "insert":
            out.insert(i, draw(st.sampled_from(lines[:3] + [lines[-1]])))
        elif len(out) > 1:
            del out[i]
    return out


# Built once: hypothesis draws from a plain list (no per-test fixture inside @given).
SEED_4_GAME = solver_record(4, 2)


@settings(max_examples=400, deadline=None)
@given(mutated(SEED_4_GAME))
def test_replay_of_garbage_is_a_result_or_a_record_error(lines: list[str]) -> None:
    try:
        result = replay(lines)
    except RecordError as error:
        assert str(error).startswith(f"line {error.line}: ") and "\n" not in str(error)
        return
    assert result.spawns_follow_seed in (True, False, None)


@pytest.fixture(scope="module")
def fuzz_file(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("fuzz") / "record.jsonl"


@settings(max_examples=150, deadline=None)
@given(lines=mutated(SEED_4_GAME), as_json=st.booleans(), junk=st.binary(max_size=8))
def test_replay_command_on_garbage_exits_0_1_or_2_without_a_traceback(
        fuzz_file: Path, lines: list[str], as_json: bool, junk: bytes) -> None:
    fuzz_file.write_bytes("\n".join(lines).encode("utf-8", errors="surrogatepass") + junk)
    result = CliRunner().invoke(cli, ["replay", *(["--json"] if as_json else []), str(fuzz_file)])
    assert result.exit_code in (0, 1, 2), result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    assert "Traceback" not in result.output
    if result.stderr:  # refused: one line, nothing on stdout
        assert result.exit_code != 0 and result.stdout == ""
        assert result.stderr.count("\n") == 1 and result.stderr.startswith("solve2048: ")
    elif as_json:  # replayed: exit 1 exactly when the spawns leave the seed
        follows = json.loads(result.stdout)["spawns_follow_seed"]
        assert result.exit_code == (1 if follows is False else 0)
    else:
        verdict = result.stdout.splitlines()[-1]
        assert result.exit_code == (1 if "the spawns do not follow seed" in verdict else 0), verdict
