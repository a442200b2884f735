"""Property: whatever the options and the board text, every command ends with
exit code 0, 1, 2 or 130, never a traceback, and touches no file outside the
folder it was given."""

from __future__ import annotations

import functools
import json
import os
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from itertools import pairwise
from pathlib import Path

from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from solve2048.cli.main import cli

ALLOWED_EXIT_CODES = {0, 1, 2, 130}

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


TABLE_AND_PRUNE = [option("--prune", st.one_of(NUMBERS, st.sampled_from(["0.5", "1e-9"]))),
                   option("--tt-mb", NUMBERS), option("--table-min-prob", NUMBERS), option("--tables-dir", PATHS)]
SEARCH = [*TABLE_AND_PRUNE, option("--time", st.one_of(NUMBERS, st.just("0.5")))]
# A whole game searches many moves: a valid --time of a second a move (1e3)
# would make one draw take an hour, so the games' time values stop at 2 ms.
GAME_SEARCH = [*TABLE_AND_PRUNE, option("--time", st.one_of(NUMBERS.filter(lambda v: v != "1e3"), st.just("0.5")))]
SMALL_DEPTH = option("--depth", st.one_of(st.sampled_from(["1", "2"]), st.sampled_from(
    ["0", "17", "-1", "nan", "", "x", "1e3"])))
FLAGS = st.sampled_from(["--json", "--quiet", "--no-tables", "--stop-at-win", "--fast", "--bogus"])

# Each command with options whose valid values keep it short (a depth of 1 or
# 2, a few games), so that the property is about input, not about patience.
COMMANDS = {
    "hint": (True, [option("--depth", st.one_of(NUMBERS, st.sampled_from(["1", "3"]))), *SEARCH]),
    "play": (False, [SMALL_DEPTH, option("--seed", NUMBERS), option("--record", PATHS), ("--overwrite", None),
                     option("--delay", NUMBERS), *GAME_SEARCH]),
    "batch": (False, [SMALL_DEPTH, option("--games", st.sampled_from(["0", "1", "2", "-5", "x", "1e3"])),
                      option("--seed", NUMBERS), option("--jobs", st.sampled_from(["0", "1", "x", "-1"])),
                      option("--out", PATHS), option("--plot", PATHS),
                      option("--scheduler", st.one_of(HOSTILE_TEXT, st.sampled_from(
                          ["notaurl", "ftp://x:1", "tcp://", "tcp://h:99999", "inproc://x"]))), *GAME_SEARCH]),
    "replay": (False, [("--json", None)]),
    "stats": (False, [option("--plot", PATHS), ("--json", None), ("--deaths", None)]),
    "review": (False, [SMALL_DEPTH, option("--threshold", NUMBERS), option("--worst", NUMBERS),
                       option("--plot", PATHS), ("--json", None), *GAME_SEARCH]),
    "bench": (False, [option("--depth", st.sampled_from(["0", "1", "17", "x", "nan"])),
                      option("--prune", NUMBERS), option("--tt-mb", NUMBERS),
                      option("--danger", NUMBERS), option("--quiescence", NUMBERS)]),
    "game": (False, [option("--seed", NUMBERS), option("--tables-dir", PATHS)]),
}
POSITIONAL = {"replay": PATHS, "stats": PATHS, "review": PATHS}
PLAYS_GAMES = {"play", "batch", "review"}


@st.composite
def command_lines(draw) -> list[str]:
    name = draw(st.sampled_from(sorted(COMMANDS)))
    takes_board, options = COMMANDS[name]
    # A whole game at the default depth takes seconds: the commands that play
    # one start from depth 2, which a --depth drawn below overrides.
    args = [name, "--depth", "2"] if name in PLAYS_GAMES else [name]
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


def records_asked_for(args: list[str]) -> set[str]:
    """The files ``play --record`` may replace: none without ``--overwrite``,
    which refuses a file already there; with it, the one the user named."""
    if args[0] != "play" or "--overwrite" not in args:
        return set()
    return {value for option, value in pairwise(args) if option == "--record"}


# A command's file writes, seen from inside the process: Python raises an audit
# event for every open for writing and every rename, removal or new folder,
# whoever asks, so the writes seen are the command's own however many other
# processes (or editors) change the repository meanwhile.
WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND
CHANGING_EVENTS = {"os.rename": 2, "os.remove": 1, "os.mkdir": 1, "os.rmdir": 1, "os.truncate": 1,
                   "os.utime": 1, "os.chmod": 1, "os.link": 2, "os.symlink": 2, "shutil.rmtree": 1}
_writes: list[tuple[str, object]] | None = None


def _record_writes(event: str, args: tuple) -> None:
    """The audit hook: notes (folder, path) of each write while a command runs.
    It never raises, since an exception here would abort the audited call."""
    if _writes is None:
        return
    with suppress(Exception):
        if event == "open":
            paths = [args[0]] if isinstance(args[2], int) and args[2] & WRITE_FLAGS else []
        else:
            paths = list(args[:CHANGING_EVENTS.get(event, 0)])
        _writes.extend((os.getcwd(), p) for p in paths if isinstance(p, (str, bytes, os.PathLike)))


@functools.cache
def _install_hook() -> None:
    sys.addaudithook(_record_writes)   # for the rest of the process: a hook cannot be removed


@contextmanager
def files_written() -> Iterator[list[str]]:
    """The paths the code in the block opens for writing, renames, removes or
    creates, made absolute once the block is over."""
    global _writes
    _install_hook()
    _writes, written = [], []
    try:
        yield written
    finally:
        seen, _writes = _writes, None
        written.extend(_absolute(folder, path) for folder, path in seen)


def _absolute(folder: str, path) -> str:
    path = os.path.join(folder, os.fsdecode(path))
    try:
        return os.path.realpath(path)
    except ValueError:  # a NUL in the name: nothing was written under it
        return os.path.abspath(path)


def caches() -> tuple[str, ...]:
    """Where libraries keep caches of their own, which are no file of the
    command's: matplotlib's font list in the (session's) user folders."""
    return tuple(os.path.realpath(os.path.join(os.environ[name], "matplotlib"))
                 for name in ("XDG_CACHE_HOME", "XDG_CONFIG_HOME"))


def outside(paths: list[str], folder: Path) -> list[str]:
    """The paths that are neither in the folder, nor a device, nor a cache of
    Python's own (``__pycache__``, for a module imported for the first time;
    multiprocessing's folder for the sockets of a batch's workers) or of a
    library's."""
    allowed = [os.path.realpath(folder), "/dev", *caches()]
    python_temp = os.path.join(os.path.realpath(tempfile.gettempdir()), "pymp-")
    return [p for p in paths if not any(p == top or p.startswith(top + os.sep) for top in allowed)
            and "__pycache__" not in Path(p).parts and not p.startswith(python_temp)]


def tree_snapshot(roots: list[Path], skip: Path) -> dict[str, tuple[int, int]]:
    """Every file under the roots but ``skip``, with its size and modification
    time: for what the command's worker processes, which no hook sees, might do."""
    files = {}
    for root in roots:
        for top, dirs, names in os.walk(root):
            dirs[:] = [d for d in dirs if Path(top, d) != skip and d != "__pycache__"]
            for name in names:
                with suppress(OSError):
                    stat = os.stat(os.path.join(top, name))
                    files[os.path.join(top, name)] = (stat.st_size, stat.st_mtime_ns)
    return files


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                   HealthCheck.too_slow])
@given(args=command_lines())
def test_no_command_line_escapes_as_a_traceback(args: list[str], tmp_path_factory) -> None:
    folder = tmp_path_factory.mktemp("fuzz")
    make_hostile_files(folder)
    # No other test runs while this one does: nothing else writes into the
    # session's temporary folders and its own user folders.
    watched = [tmp_path_factory.getbasetemp(), Path(os.environ["HOME"]).parent]
    before_tree = tree_snapshot(watched, skip=folder)
    before_folder = {p.name: p.read_bytes() for p in folder.iterdir() if p.is_file()}
    cwd = os.getcwd()
    os.chdir(folder)
    try:
        with files_written() as written:
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
    assert outside(written, folder) == [], args
    changed = {path for path, seen in tree_snapshot(watched, skip=folder).items() if before_tree.get(path) != seen}
    assert outside(sorted(changed), folder) == [], args
    # Hostile inputs are read, never rewritten (a torn-line repair needs a batch
    # file of games), unless a game record was asked to go there.
    for name, data in before_folder.items():
        if name not in records_asked_for(args):
            assert (folder / name).read_bytes() == data, (args, name)


def test_the_watch_sees_a_file_written_outside_the_folder(tmp_path: Path) -> None:
    # So that the property above cannot hold because the watch is blind.
    folder = tmp_path / "given"
    folder.mkdir()
    before = tree_snapshot([tmp_path], skip=folder)
    with files_written() as written:
        (folder / "inside.txt").write_text("kept")
        (tmp_path / "__pycache__").mkdir()
        (tmp_path / "__pycache__" / "module.pyc").write_bytes(b"")
        (tmp_path / "outside.txt").write_text("escaped")
    escaped = str(tmp_path / "outside.txt")
    assert outside(written, folder) == [escaped]
    changed = sorted(path for path, seen in tree_snapshot([tmp_path], skip=folder).items() if before.get(path) != seen)
    assert outside(changed, folder) == [escaped]
