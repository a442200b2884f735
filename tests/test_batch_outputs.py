"""batch and stats refuse what they could not use or write, in one line, before any game;
a write that fails mid-batch stops it at once and keeps every line written."""

from __future__ import annotations

import errno
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from click.testing import CliRunner
from helpers import one_error_line

from solve2048 import results
from solve2048.batch import BatchError, Settings, check_address, run_local
from solve2048.cli.main import cli
from solve2048.results import load


def invoke(*args: str):
    return CliRunner().invoke(cli, list(args))


# ---- writes that fail ----------------------------------------------------------------


def failing_after(monkeypatch, k: int) -> None:
    """Makes results.append_row write k lines, then fail as a full disk does."""
    write = results.append_row
    written = []

    def append_row(stream, row):
        if len(written) >= k:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        write(stream, row)
        written.append(row)

    monkeypatch.setattr(results, "append_row", append_row)


def test_a_failed_write_stops_the_batch_keeping_every_line(tmp_path: Path, monkeypatch) -> None:
    out = tmp_path / "r.jsonl"
    assert invoke("batch", "-n", "2", "-d", "1", "-o", str(out)).exit_code == 0
    failing_after(monkeypatch, 3)
    result = invoke("batch", "-n", "40", "-d", "1", "-j", "2", "-o", str(out), "--json")   # no resume notice
    assert result.exit_code == 1
    line = one_error_line(result)
    assert line == (f"solve2048: error: cannot write {out}: No space left on device; the 5 finished games "
                    "written before it are kept (3 from this run)")
    assert result.stdout == ""                      # no summary of a run that did not finish
    text = out.read_text()
    assert text.endswith("\n") and len(text.splitlines()) == 5
    assert len({r["seed"] for r in load(str(out), repair=False).rows}) == 5


def test_a_failed_write_stops_the_workers_within_seconds(tmp_path: Path) -> None:
    # Games of depth 3 on 2 workers take far longer than the batch may take to
    # stop: it must not play on after its output failed.
    out = tmp_path / "r.jsonl"
    script = (
        "import errno, os, sys\n"
        "from solve2048 import results\n"
        "write, n = results.append_row, [0]\n"
        "def append_row(stream, row):\n"
        "    if n[0] >= 3: raise OSError(errno.EIO, os.strerror(errno.EIO))\n"
        "    write(stream, row); n[0] += 1\n"
        "results.append_row = append_row\n"
        "from solve2048.cli.main import cli\n"
        "cli(sys.argv[1:])\n"
    )
    proc = subprocess.Popen([sys.executable, "-c", script, "batch", "-n", "2000", "-d", "3", "-j", "2",
                             "--no-tables", "-o", str(out)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        deadline = time.time() + 60
        while time.time() < deadline and proc.poll() is None and (
                not out.exists() or out.read_text().count("\n") < 3):
            time.sleep(0.02)
        third_line_at = time.time()
        _, err = proc.communicate(timeout=60)
        stopped_in = time.time() - third_line_at
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    assert proc.returncode == 1, err
    assert err.strip().splitlines() == [f"solve2048: error: cannot write {out}: Input/output error; the 3 "
                                        "finished games written before it are kept (3 from this run)"]
    assert stopped_in < 8, stopped_in
    assert len(load(str(out), repair=False).rows) == 3
    # The workers (and their fork server) went with the batch.
    for _ in range(100):
        try:
            os.killpg(proc.pid, 0)
        except ProcessLookupError:
            break
        time.sleep(0.05)
    else:
        pytest.fail("worker processes outlived the batch")


def test_a_stopped_pool_leaves_no_thread_behind() -> None:
    # The pool's manager thread closes its wake-up pipe as it ends; one still
    # ending when the interpreter exits races concurrent.futures' exit hook,
    # which then prints a traceback under the batch's error line (seen in CI).
    def fail(rows):
        raise OSError(errno.EIO, os.strerror(errno.EIO))

    before = set(threading.enumerate())
    with pytest.raises(OSError):
        run_local(range(40), Settings(depth=3), 2, fail)
    left = [t for t in threading.enumerate() if t not in before and t.is_alive()]
    assert left == []


def test_outputs_that_are_not_files_are_refused_at_once(tmp_path: Path) -> None:
    notes = tmp_path / "file.txt"
    notes.write_text("not a folder")
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    for target in ("/dev/full", str(fifo), str(notes / "out.jsonl")):
        start = time.time()
        result = invoke("batch", "-n", "2", "-d", "1", "-o", target)
        assert result.exit_code == 2 and time.time() - start < 10, target
        line = one_error_line(result)
        assert "/dev/full is not a regular file" in line or "pipe is not a regular file" in line \
            or "file.txt" in line, line
    assert notes.read_text() == "not a folder"
    result = invoke("stats", "/dev/zero")
    assert result.exit_code == 2 and "is not a regular file" in one_error_line(result)


# ---- addresses -------------------------------------------------------------------------


@pytest.mark.parametrize("address", ["notaurl", "ftp://x:1", "tcp://", "tcp://host:notaport", "tcp://h:99999",
                                     "tcp://h:0", "", "inproc://x", "tcp://h:1/path", "tcp://[zz]:1",
                                     "tcp://a b:1", "h:1:2"])
def test_malformed_scheduler_addresses_are_refused_before_anything(tmp_path: Path, address: str) -> None:
    out = tmp_path / "r.jsonl"
    start = time.time()
    result = invoke("batch", "-n", "2", "-d", "1", "-o", str(out), "--scheduler", address)
    assert result.exit_code == 2 and time.time() - start < 5
    assert "Invalid value for '--scheduler'" in one_error_line(result)
    assert not out.exists()


def test_well_formed_addresses() -> None:
    for address in ("tcp://10.0.0.5:8786", "tls://head.example.org:8786", "head:8786", "tcp://[::1]:8786",
                    "127.0.0.1:1"):
        assert check_address(address) == address
    with pytest.raises(ValueError, match="port from 1 to 65535"):
        check_address("tcp://h:65536")


def _server(mode: str) -> tuple[socket.socket, int]:
    """A local port that is not a Dask scheduler: silent, or answering garbage."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    held = []

    def serve() -> None:
        while True:
            try:
                conn, _ = listener.accept()
            except OSError:
                return
            if mode == "garbage":
                conn.sendall(b"HTTP/1.1 200 OK\r\n\r\n" + b"\xff" * 4096)
            held.append(conn)

    threading.Thread(target=serve, daemon=True).start()
    return listener, listener.getsockname()[1]


@pytest.mark.parametrize("mode", ["silent", "garbage"])
def test_a_port_that_is_not_a_scheduler_is_one_line_soon(mode: str) -> None:
    # Dask's own timeout does not cover a port that accepts and never answers:
    # the batch stops waiting itself (CONNECT_SECONDS shortened for the test).
    listener, port = _server(mode)
    script = ("import sys\nimport solve2048.batch as b\nb.CONNECT_SECONDS = 1\n"
              "from solve2048.cli.main import cli\ncli(sys.argv[1:])\n")
    start = time.time()
    try:
        done = subprocess.run([sys.executable, "-c", script, "batch", "-n", "2", "-d", "1", "--no-tables",
                               "--scheduler", f"tcp://127.0.0.1:{port}"],
                              capture_output=True, text=True, timeout=60)
    finally:
        listener.close()
    assert done.returncode == 1, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"solve2048: error: cannot reach the Dask scheduler at "
                                                   f"tcp://127.0.0.1:{port}: ")
    assert time.time() - start < 15


# ---- plots -----------------------------------------------------------------------------


@pytest.mark.parametrize("name, message", [("x.xyz", "cannot write .xyz files"), ("x", "has no extension")])
def test_plot_formats_that_cannot_be_written_are_refused_before_any_game(tmp_path: Path, name: str,
                                                                         message: str) -> None:
    out, plot = tmp_path / "r.jsonl", tmp_path / name
    result = invoke("batch", "-n", "2", "-d", "1", "-o", str(out), "--plot", str(plot))
    assert result.exit_code == 2
    line = one_error_line(result)
    assert "Invalid value for '--plot'" in line and message in line, line
    assert not out.exists() and not plot.exists()
    assert invoke("batch", "-n", "2", "-d", "1", "-o", str(out)).exit_code == 0
    before = out.read_bytes()
    result = invoke("stats", str(out), "--plot", str(plot))
    assert result.exit_code == 2 and message in one_error_line(result)
    assert out.read_bytes() == before and not plot.exists()


def test_plot_formats_matplotlib_writes(tmp_path: Path) -> None:
    out = tmp_path / "r.jsonl"
    assert invoke("batch", "-n", "3", "-d", "1", "-o", str(out), "--plot", str(tmp_path / "p.PDF")).exit_code == 0
    assert (tmp_path / "p.PDF").read_bytes()[:5] == b"%PDF-"
    assert invoke("stats", str(out), "--plot", str(tmp_path / "p.svg")).exit_code == 0
    assert b"<svg" in (tmp_path / "p.svg").read_bytes()[:1000]


def test_a_format_whose_writer_fails_here_is_refused_before_any_game(tmp_path: Path, monkeypatch) -> None:
    # As .pgf does without LaTeX: matplotlib lists the format, its writer fails.
    import matplotlib.figure

    def savefig(self, *args, **kwargs):
        raise RuntimeError("this writer needs a program that is not installed\nand says more")

    monkeypatch.setattr(matplotlib.figure.Figure, "savefig", savefig)
    out = tmp_path / "r.jsonl"
    result = invoke("batch", "-n", "2", "-d", "1", "-o", str(out), "--plot", str(tmp_path / "p.png"))
    assert result.exit_code == 2
    assert one_error_line(result) == ("solve2048: error: Invalid value for '--plot': matplotlib cannot write a "
                                      ".png file here: this writer needs a program that is not installed")
    assert not out.exists()


def test_plot_without_matplotlib_is_refused_before_any_game(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setitem(sys.modules, "matplotlib", None)   # import matplotlib now fails
    out = tmp_path / "r.jsonl"
    result = invoke("batch", "-n", "2", "-d", "1", "-o", str(out), "--plot", str(tmp_path / "p.png"))
    assert result.exit_code == 2 and "needs matplotlib" in one_error_line(result)
    assert not out.exists()


# ---- settings ----------------------------------------------------------------------------


@pytest.mark.parametrize("settings", [
    {"depth": 0}, {"depth": 17}, {"depth": "deep"}, {"depth": True},
    {"time_ms": float("nan")}, {"time_ms": float("inf")}, {"time_ms": 0}, {"time_ms": -5},
    {"prune": 2.0}, {"prune": "never"}, {"prune": float("nan")},
    {"tt_mb": -1}, {"tt_mb": float("inf")}, {"tt_mb": 1 << 30}, {"tt_mb": float("nan")},
    {"table_min_prob": 1.5}, {"table_min_prob": float("nan")},
    {"table_set": ["entry-11:32"]}, {"table_set": ("entry-11:32", 3)},
])
def test_bad_settings_fail_in_the_caller_before_any_worker(settings: dict) -> None:
    with pytest.raises(ValueError):
        Settings(**settings)


def test_bad_seeds_and_jobs_fail_in_the_caller() -> None:
    with pytest.raises(ValueError, match="seed"):
        run_local([0, -1], Settings(depth=1), 1, lambda rows: None)
    with pytest.raises(ValueError, match="worker processes"):
        run_local([0], Settings(depth=1), 0, lambda rows: None)


def test_an_error_in_a_worker_is_one_batch_error() -> None:
    settings = Settings(depth=1)
    object.__setattr__(settings, "depth", 99)   # past the caller's checks, as a foreign caller could
    with pytest.raises(BatchError, match=r"^a game failed in a worker: InvalidArgumentError: expected depth"):
        run_local([0, 1], settings, 1, lambda rows: None)


def test_local_workers_tables_must_fit_together() -> None:
    # Two workers make two tables on this machine: each fits, both do not.
    from solve2048.engine import max_tt_mb

    each = max_tt_mb() // 2 + 1
    result = invoke("batch", "-n", "2", "-j", "2", "-d", "1", "--tt-mb", str(each))
    assert result.exit_code == 2
    assert "--tt-mb" in one_error_line(result) and f"2 tables of {each} MB" in one_error_line(result)


def test_settings_the_library_refuses_are_one_line_from_batch(tmp_path: Path, monkeypatch) -> None:
    # Whatever the options let through, Settings has the last word, in one line.
    monkeypatch.setattr("solve2048.cli.params.check_tt_mb", lambda mb: mb)  # the option lets it by
    monkeypatch.setattr("solve2048.engine.max_tt_mb", lambda: 4)
    out = tmp_path / "r.jsonl"
    result = invoke("batch", "-n", "2", "-d", "1", "--tt-mb", "8", "-o", str(out))
    assert result.exit_code == 2
    assert one_error_line(result) == ("solve2048: error: a table of 8 MB would not fit: "
                                      "this machine allows at most 4 MB (half its memory)")
    assert not out.exists()


def test_a_resume_with_another_time_per_move_is_refused(tmp_path: Path) -> None:
    out = tmp_path / "r.jsonl"
    assert invoke("batch", "-n", "2", "-d", "1", "--no-tables", "-o", str(out)).exit_code == 0
    kept = out.read_bytes()
    result = invoke("batch", "-n", "3", "-d", "1", "--time", "5", "--no-tables", "-o", str(out))
    assert result.exit_code == 2 and "5 ms per move" in one_error_line(result)
    assert out.read_bytes() == kept
    assert all(json.loads(line)["time_ms"] is None for line in kept.decode().splitlines())
