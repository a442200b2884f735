"""Helpers the test files import (``from helpers import ...``): the known-answer
files, boards one move from the end, random boards, a damaged table file, a
solver's game as a record, a batch that must keep a setting, the lines
that lack one, a server that takes a look setting, a script of bench/
as a module, and the user-state variables the session isolates. Fixtures and
hooks live in conftest.py."""

from __future__ import annotations

import importlib.util
import signal
import sys
from pathlib import Path
from types import ModuleType

import numpy as np

DATA = Path(__file__).parent / "data"

# Boards one move from the end of a game, for the person's game tests.
ALMOST_WON = "1024 1024 . . / . . . . / . . . . / . . . 2"   # left makes 2048
ALMOST_LOST = "2 4 2 4 / 4 2 4 2 / 2 4 2 8 / 4 2 16 16"   # left ends the game, whatever spawns

# Where this machine keeps a user's tables, saves, caches and settings; conftest
# points each into the session's own empty folder.
USER_STATE_VARIABLES = ("HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME", "XDG_CONFIG_HOME",
                        "XDG_STATE_HOME", "SOLVE2048_TABLES", "SOLVE2048_DATA_DIR")


def parse_grid(text: str) -> list[int]:
    """Reads 'a b c d / …' into 16 ints, with no limit on tile size (for the oracle)."""
    return [0 if t == "." else int(t) for row in text.split("/") for t in row.split()]


def load_kat(name: str) -> list[tuple[list[int], str, list[int], int]]:
    cases = []
    for line in (DATA / name).read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        board, direction, expected, gain = line.split("\t")
        cases.append((parse_grid(board), direction, parse_grid(expected), int(gain)))
    return cases


def random_exponents(rng: np.random.Generator, n: int) -> np.ndarray:
    """n random boards as (n, 16) exponents, biased toward dense boards with many
    equal neighbours: each board draws its exponents from a small random window."""
    low = rng.integers(1, 15, size=(n, 1))
    width = rng.integers(1, 5, size=(n, 1))
    exps = low + rng.integers(0, width, size=(n, 16))
    exps = np.minimum(exps, 15)
    empty_rate = rng.choice([0.0, 0.1, 0.3, 0.6], size=(n, 1))
    exps[rng.random((n, 16)) < empty_rate] = 0
    return exps.astype(np.uint64)


def pack(exps: np.ndarray) -> np.ndarray:
    shifts = (4 * np.arange(16)).astype(np.uint64)
    return np.bitwise_or.reduce(exps << shifts, axis=-1)


# ---- endgame tables --------------------------------------------------------------
# solve2048 is imported inside these functions, not at the top: conftest.py
# imports this module before the session's isolation is in place.

def formation_cells(frozen: int, goal: int, free: dict[int, int], shape: int = 0) -> list[int]:
    """A real board: distinct tiles falling to the anchor on the frozen cells, then free tiles."""
    from solve2048.reference_tables import frozen_tiles

    cells = [0] * 16
    for cell, tile in frozen_tiles(frozen, goal, shape).items():
        cells[cell] = tile
    for cell, tile in free.items():
        cells[cell] = tile
    return cells


def formation_index(frozen: int, goal: int, cells: list[int], shape: int = 0) -> int:
    """Where a board in the formation's own orientation stands in its table."""
    from solve2048.reference_tables import index_of

    return index_of(frozen, goal, shape, cells)


def _fnv_of_16_bit_entries(entries) -> int:
    """Format 1's checksum, written out: FNV-1a over 64-bit words (four
    entries), then over the entries left one at a time."""
    h, mask = 0xCBF29CE484222325, (1 << 64) - 1
    whole = entries.size - entries.size % 4
    for word in entries[:whole].astype("<u2").view("<u8").tolist():
        h = ((h ^ word) * 0x100000001B3) & mask
    for entry in entries[whole:].tolist():
        h = ((h ^ entry) * 0x100000001B3) & mask
    return h


def write_format_1(path, spec, built) -> None:
    """A table file as solve2048 wrote them before 2026-12-05 (16-bit entries)."""
    from solve2048.tables import HEADER, HEADER_SIZE, MAGIC

    head = HEADER.pack(MAGIC, 1, spec.frozen, spec.goal, spec.shape, spec.entries, _fnv_of_16_bit_entries(built), 0)
    path.write_bytes(head.ljust(HEADER_SIZE, b"\0") + built.astype("<u2").tobytes())


def damage_entries(path: Path) -> None:
    """Flips one byte of a table file's entries, its header left sound, and
    moves its modification time a second on, as a later damage would: a write
    within the clock tick of the save could keep the time its stamp names."""
    import os

    data = bytearray(path.read_bytes())
    data[100] ^= 0xFF   # past the 64-byte header
    path.write_bytes(bytes(data))
    stat = path.stat()
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))


def solver_record(seed: int, depth: int) -> list[str]:
    """A whole game written as ``play --record`` writes it (no tables: Game's default)."""
    import io

    from solve2048.record import RecordWriter  # here: conftest loads this module before pytest_configure
    from solve2048.selfplay import CHUNK, Game

    stream = io.StringIO()
    writer = RecordWriter(stream)
    game = Game(seed, depth=depth)
    writer.start(seed, depth, game.start_board.cells)
    while not game.over:
        writer.moves(game.advance(CHUNK))
    r = game.result()
    writer.end(r.score, r.max_tile, r.moves, r.won, "game_over")
    return stream.getvalue().splitlines()


def default_sigint() -> None:
    """For ``subprocess.Popen(preexec_fn=...)``: the child takes Ctrl-C as a
    terminal would give it, even when this test run ignores SIGINT (started in
    the background, ``cmd &``, whose children inherit SIG_IGN, and a Python
    that starts with SIGINT ignored never raises KeyboardInterrupt)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def one_error_line(result) -> str:
    """The one line a refused command printed on stderr, checked to be one
    ``solve2048: error:`` line with no traceback."""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("solve2048: error: ") and "Traceback" not in result.output
    return lines[0]


def assert_a_batch_keeps(setting: str, value: int, other: int, out: Path) -> list[dict]:
    """A batch of 2 games at depth 1 with --SETTING VALUE (its dashes underscores
    in SETTING, the line's field): each line records it
    and is the game play_game plays with it; a resume with OTHER or without
    the setting is refused in one line naming the file's, and the file is
    kept. Returns the lines, by seed."""
    import json

    from click.testing import CliRunner

    from solve2048.cli.main import cli
    from solve2048.selfplay import play_game

    def batch(*options: str):
        return CliRunner().invoke(cli, ["batch", "-d", "1", "--no-tables", "-o", str(out), *options])

    option, named = "--" + setting.replace("_", "-"), setting.replace("_", " ")
    assert batch("-n", "2", option, str(value)).exit_code == 0
    kept = out.read_bytes()
    rows = sorted((json.loads(line) for line in kept.decode().splitlines()), key=lambda row: row["seed"])
    assert [row[setting] for row in rows] == [value, value]
    assert [row["score"] for row in rows] == [play_game(seed, depth=1, **{setting: value}).score for seed in (0, 1)]
    for options in ([option, str(other)], []):
        result = batch("-n", "3", *options)
        assert result.exit_code == 2 and f"{named} {value}" in one_error_line(result)
        assert out.read_bytes() == kept
    return rows


def assert_lines_without_it_were_played_without(field: str) -> None:
    """A results line without FIELD (quiescence, late_quiescence) has the
    settings of one with FIELD null, played with no look; one with 2 has those
    of a batch with 2; a FIELD that is not a count of 1..15 empty cells is
    refused by name."""
    import pytest

    from solve2048.batch import Settings, game_row, settings_of
    from solve2048.results import check_game
    from solve2048.selfplay import play_game

    row = game_row(play_game(0, depth=1, quiescence=None), Settings(depth=1, quiescence=None))
    assert row["quiescence"] is None and row["late_quiescence"] is None
    old = {k: v for k, v in row.items() if k != field}
    assert settings_of(old) == settings_of(row) == Settings(depth=1, quiescence=None).results_key
    assert settings_of(row | {field: 2}) == Settings(depth=1, **{"quiescence": None, field: 2}).results_key
    for bad in ("2", 0, -1, 16, True, 2.5):
        with pytest.raises(ValueError, match=field):
            check_game(row | {field: bad})
    assert check_game(row | {field: 2})[field] == 2


def assert_a_server_takes_a_look(field: str, board: str, message: str) -> None:
    """A live server at depth 2 whose own look is FIELD (quiescence or
    late_quiescence) 3 alone answers a hint on ``board`` as quiescence 3
    searches it, plainly with FIELD null, takes a review with FIELD 1, refuses
    99 with ``message`` and names its own in /api/info."""
    import json

    from live_server import post_json, request, serving

    from solve2048 import SearchSettings, analyze
    from solve2048.web.api import Limits
    from solve2048.web.app import create_app

    own = SearchSettings(depth=2, **{"quiescence": None, field: 3})
    with serving(create_app(own, Limits(max_depth=4))) as server:
        for body, searched in (({}, analyze(board, depth=2, quiescence=3)),
                               ({field: None}, analyze(board, depth=2, quiescence=None))):
            status, answer = post_json(server, "/api/hint", {"board": board, **body})
            assert status == 200 and answer["values"] == {str(m): v for m, v in searched.values.items()}
        status, answer = post_json(server, "/api/review", {"board": board, "played": "left", field: 1})
        assert status == 200
        status, answer = post_json(server, "/api/hint", {"board": board, field: 99})
        assert status == 400 and message in answer["error"]
        status, _, info = request(server, "GET", "/api/info", b"", {})
        assert status == 200 and json.loads(info)[field] == 3


def bench_module(name: str) -> ModuleType:
    """bench/NAME.py loaded as a module (bench/ is not a package)."""
    path = Path(__file__).resolve().parent.parent / "bench" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    # Registered first, as an import would: a dataclass looks its module up there.
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module
