"""bench/table_diff.py: two builds of one table compared entry by entry."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from helpers import bench_module

from solve2048.tables import HEADER, HEADER_SIZE, MAGIC, VERSION

BENCH = Path(__file__).resolve().parent.parent / "bench"


@pytest.fixture(scope="module")
def diff():
    return bench_module("table_diff")


def table_file(path: Path, entries: list[tuple[int, int]], goal: int = 9) -> Path:
    """A file of (step, move) entries in this format; the tool reads no formation but the header's."""
    head = HEADER.pack(MAGIC, VERSION, 6, goal, 2, len(entries), 0, 0).ljust(HEADER_SIZE, b"\0")
    path.write_bytes(head + bytes(step << 2 | move for step, move in entries))
    return path


FIRST = [(30, 0), (0, 0), (10, 1), (59, 2), (0, 3), (47, 0)]
SECOND = [(30, 1), (0, 0), (9, 1), (59, 3), (1, 3), (47, 0)]


def test_counts_moves_and_steps_that_differ(diff, tmp_path: Path) -> None:
    d = diff.compare(table_file(tmp_path / "a.egt", FIRST), table_file(tmp_path / "b.egt", SECOND))
    assert d.entries == 6
    assert d.live == 5                      # the second entry is 0 in both
    assert d.move_differs == 2              # steps 30 and 59
    assert d.middle == 3                    # second steps 30, 9 and 47 (1 and 59 are outside 3..57)
    assert d.middle_move_differs == 1       # only step 30's move is a real choice
    assert d.step_differs == 2              # 10 -> 9 and 0 -> 1
    assert dict(d.step_gap) == {0: 3, -1: 1, 1: 1}
    assert {s: int(n) for s, n in enumerate(d.by_step) if n} == {30: 1, 59: 1}


def test_chunks_add_up_to_the_whole(diff, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    a, b = table_file(tmp_path / "a.egt", FIRST * 5), table_file(tmp_path / "b.egt", SECOND * 5)
    whole = diff.compare(a, b)
    monkeypatch.setattr(diff, "CHUNK", 4)
    chunked = diff.compare(a, b)
    assert whole.move_differs == chunked.move_differs == 10
    assert whole.step_gap == chunked.step_gap and (whole.by_step == chunked.by_step).all()


@pytest.mark.parametrize("second, message", [
    (lambda p: table_file(p, SECOND, goal=10), "are not the same formation"),
    (lambda p: table_file(p, SECOND[:4]), "are not the same formation"),
    (lambda p: p.write_bytes(MAGIC), "not a table file (too short)"),
    (lambda p: p.write_bytes(b"x" * 80), "bad magic"),
])
def test_bad_files_get_one_line_and_exit_2(tmp_path: Path, second, message: str) -> None:
    first = table_file(tmp_path / "a.egt", FIRST)
    other = tmp_path / "b.egt"
    second(other)
    done = subprocess.run([sys.executable, str(BENCH / "table_diff.py"), str(first), str(other)],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and message in done.stderr and "Traceback" not in done.stderr


def test_prints_the_report(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, str(BENCH / "table_diff.py"),
                           str(table_file(tmp_path / "a.egt", FIRST)), str(table_file(tmp_path / "b.egt", SECOND))],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "move differs on 2 live entries (40.000%)" in done.stdout
    assert "1 of 3 (33.333%)" in done.stdout
