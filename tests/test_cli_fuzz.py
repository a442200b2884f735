"""Property: whatever the options and the board text, every command ends with
exit code 0, 1, 2 or 130, never a traceback, and touches no file outside the
folder it was given."""

from __future__ import annotations

import json
import os
from pathlib import Path

from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from solve2048.cli.main import cli

ALLOWED_EXIT_CODES = {0, 1, 2, 130}
REPO = Path(__file__).resolve().parent.parent

# Values that break things: non-finite and huge numbers, signs, words, empty
# text, control characters, a NUL, paths that are devices or folders.
NUMBERS = st.sampled_from(["nan", "inf", "-inf", "-1", "0", "1", "2", "1e3", "1e400", "0x10",
                           str(2**64), str(-2**63), "99999999999999999999", "", " ", "auto", "½"])
HOSTILE_TEXT = st.text(st.characters(codec="utf-8"), max_size=40)
PATHS = st.sampled_from(["/dev/zero", "/dev/full", "/dev/null", ".", "missing/x.jsonl", "f.jsonl",
                         "a.png", "a.xyz", "noext", "dir", "bad.jsonl", "big.jsonl", "record.jsonl"])
VALID_BOARDS = st.sampled_from(["2 4 8 16 / . 2 . 4 / . . 2 . / . . . 2",
                                "2 4 2 4 / 4 2 4 2 / 2 4 2 4 / 4 2 4 2",
                                "32768 32768 . . / . . . . / . . . . / . . . 2",
                                "[2,0,0,0,0,0,0,0,0,0,0,0,0,0,0,4]", "0x1000000000003211"])
BOARDS = st.one_of(VALID_BOARDS, HOSTILE_TEXT, st.lists(st.integers(-3, 2**20), max_size=17).map(json.dumps),
                   st.lists(st.sampled_from(["2", "3", ".", "65536", "131072", "-", "x", "1e9"]),
                            min_size=15, max_size=17).map(" ".join))
ANY_VALUE = st.one_of(NUMBERS, HOSTILE_TEXT, PATHS)


def option(name: str, values=ANY_VALUE) -> tuple[str, st.SearchStrategy | None]:
    """An option and what its value is drawn from (None: a flag)."""
    return (name, values)


SEARCH = [option("--prune", st.one_of(NUMBERS, st.sampled_from(["0.5", "1e-9"]))),
          option("--tt-mb", NUMBERS), option("--time", st.one_of(NUMBERS, st.just("0.5"))),
          option("--table-min-prob", NUMBERS), option("--tables-dir", PATHS)]
SMALL_DEPTH = option("--depth", st.one_of(st.sampled_from(["1", "2"]), st.sampled_from(
    ["0", "17", "-1", "nan", "", "x", "1e3"])))
FLAGS = st.sampled_from(["--json", "--quiet", "--no-tables", "--stop-at-win", "--fast", "--bogus"])

# Each command with options whose valid values keep it short (a depth of 1 or
# 2, a few games), so that the property is about input, not about patience.
COMMANDS = {
    "hint": (True, [option("--depth", st.one_of(NUMBERS, st.sampled_from(["1", "3"]))), *SEARCH]),
    "play": (False, [SMALL_DEPTH, option("--seed", NUMBERS), option("--record", PATHS),
                     option("--delay", NUMBERS), *SEARCH]),
    "batch": (False, [SMALL_DEPTH, option("--games", st.sampled_from(["0", "1", "2", "-5", "x", "1e3"])),
                      option("--seed", NUMBERS), option("--jobs", st.sampled_from(["0", "1", "x", "-1"])),
                      option("--out", PATHS), option("--plot", PATHS),
                      option("--scheduler", st.one_of(HOSTILE_TEXT, st.sampled_from(
                          ["notaurl", "ftp://x:1", "tcp://", "tcp://h:99999", "inproc://x"]))), *SEARCH]),
    "replay": (False, [("--json", None)]),
    "stats": (False, [option("--plot", PATHS), ("--json", None)]),
    "bench": (False, [option("--depth", st.sampled_from(["0", "1", "17", "x", "nan"])),
                      option("--prune", NUMBERS), option("--tt-mb", NUMBERS)]),
    "game": (False, [option("--seed", NUMBERS), option("--tables-dir", PATHS)]),
}
POSITIONAL = {"replay": PATHS, "stats": PATHS}


@st.composite
def command_lines(draw) -> list[str]:
    name = draw(st.sampled_from(sorted(COMMANDS)))
    takes_board, options = COMMANDS[name]
    args = [name]
    if takes_board:
        args.append(draw(BOARDS))
    if name in POSITIONAL and draw(st.booleans()):
        args.append(draw(POSITIONAL[name]))
    for opt, value in draw(st.lists(st.sampled_from(options), max_size=4)):
        args.append(opt)
        if value is not None:
            args.append(draw(value))
    args += draw(st.lists(FLAGS, max_size=2))
    return args


def make_hostile_files(folder: Path) -> None:
    """What the paths above name, where they are not devices."""
    (folder / "dir").mkdir()
    (folder / "bad.jsonl").write_text('{"seed": 1, "score": "x"}\n{]\n')
    (folder / "big.jsonl").write_bytes(b"x" * (300 * 1024))
    (folder / "record.jsonl").write_text(
        '{"type": "start", "seed": null, "board": [2,0,0,0,0,0,0,0,0,0,0,0,0,0,0,2]}\n'
        '{"type": "move", "dir": "left", "gain": 4, "spawn": {"cell": 5, "value": 2}}\n')


def repo_snapshot() -> dict[str, int | None]:
    """The repository's top level: what is there, and when each file last changed
    (a folder's own time moves whenever Python caches a module inside it)."""
    return {p.name: None if p.is_dir() else p.stat().st_mtime_ns for p in REPO.iterdir()
            if p.name not in {".hypothesis", ".pytest_cache"}}


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                   HealthCheck.too_slow])
@given(args=command_lines())
def test_no_command_line_escapes_as_a_traceback(args: list[str], tmp_path_factory) -> None:
    folder = tmp_path_factory.mktemp("fuzz")
    make_hostile_files(folder)
    before_repo = repo_snapshot()
    before_folder = {p.name: p.read_bytes() for p in folder.iterdir() if p.is_file()}
    cwd = os.getcwd()
    os.chdir(folder)
    try:
        result = CliRunner().invoke(cli, args, catch_exceptions=True)
    finally:
        os.chdir(cwd)
    assert result.exit_code in ALLOWED_EXIT_CODES, (args, result.output)
    assert result.exception is None or isinstance(result.exception, SystemExit), (
        args, result.output, repr(result.exception))
    assert "Traceback" not in result.output, (args, result.output)
    if result.exit_code == 2:
        errors = [line for line in result.output.splitlines() if line.startswith("solve2048: error:")]
        assert len(errors) == 1, (args, result.output)
    assert repo_snapshot() == before_repo, args
    # Hostile inputs are read, never rewritten (a torn-line repair needs a batch file of games).
    for name, data in before_folder.items():
        assert (folder / name).read_bytes() == data, (args, name)
