"""Table files: saved and opened again, torn, damaged or not tables at all, the
stamp of a checked file, and loading a folder where some are damaged or missing."""

from __future__ import annotations

import os

import numpy as np
import pytest

from solve2048.tables import TableError, TableSpec, load, open_table
from solve2048.tables_build import build_all, compute, save


def test_files_round_trip_and_bad_files_are_refused(tmp_path):
    spec = TableSpec(11, 4)
    table = compute(spec)
    path = save(spec, table, tmp_path)
    assert np.array_equal(open_table(path, spec), table)
    assert not list(tmp_path.glob("*.partial"))

    data = bytearray(path.read_bytes())
    data[100] ^= 0xFF
    path.write_bytes(bytes(data))
    with pytest.raises(TableError, match="checksum"):
        open_table(path, spec, recheck=True)
    path.write_bytes(bytes(data[:-10]))
    with pytest.raises(TableError, match="torn"):
        open_table(path, spec)
    path.write_bytes(b"not a table at all, just some text of some length" * 4)
    with pytest.raises(TableError, match="not a table"):
        open_table(path, spec)


def test_a_checked_table_is_trusted_until_its_file_changes(tmp_path):
    spec = TableSpec(11, 4)
    path = save(spec, compute(spec), tmp_path)
    open_table(path, spec)                      # checks in full, leaves a stamp
    assert (tmp_path / (spec.filename + ".checked")).exists()
    data = bytearray(path.read_bytes())
    data[100] ^= 0xFF
    path.write_bytes(bytes(data))
    stat = path.stat()
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))
    with pytest.raises(TableError, match="checksum"):
        open_table(path, spec)                  # a new modification time: checked again


def test_load_reports_damaged_and_missing_tables_and_uses_the_rest(tmp_path):
    good, bad, absent = TableSpec(11, 4), TableSpec(12, 4), TableSpec(13, 4)
    build_all(tmp_path, (good, bad))
    (tmp_path / bad.filename).write_bytes(b"S2048EGT" + b"\0" * 10)
    installed = load(tmp_path, (good, bad, absent))
    assert installed.tables.specs == [good]
    assert len(installed.problems) == 1 and bad.filename in installed.problems[0]
    assert installed.missing == [absent]


def test_build_all_skips_finished_tables(tmp_path):
    spec = TableSpec(11, 4)
    first = build_all(tmp_path, (spec,))
    again = build_all(tmp_path, (spec,))
    assert first[0].built and not again[0].built
