"""Table files: saved and opened again, torn, damaged or not tables at all, the
stamp of a checked file, and loading a folder where some are damaged or missing."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import damage_entries, write_format_1

from solve2048 import tables_build
from solve2048.tables import (
    BUILDER_REVISION,
    CHAIN,
    HEADER_SIZE,
    OutdatedTableError,
    TableError,
    TableSpec,
    load,
    open_table,
)
from solve2048.tables_build import build_all, compute, compute_stored, save, store


def test_files_round_trip_and_bad_files_are_refused(tmp_path):
    spec = TableSpec(11, 4)
    table = compute(spec)
    path = save(spec, table, tmp_path)
    assert np.array_equal(open_table(path, spec), store(table))
    assert path.stat().st_size == HEADER_SIZE + spec.entries
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


@pytest.mark.parametrize("chunk", [8, 64, 1 << 26])
def test_a_table_stored_in_chunks_carries_the_checksum_of_the_whole(tmp_path, monkeypatch, chunk):
    # 1,024 entries: 128 chunks of 8, 16 of 64, or one.
    monkeypatch.setattr(tables_build, "STORE_CHUNK", chunk)
    spec = TableSpec(11, 4)
    table = compute(spec)
    path = save(spec, table, tmp_path)
    assert np.array_equal(open_table(path, spec, recheck=True), store(table))


def test_a_table_saved_from_stored_entries_is_the_file_saved_from_built_ones(tmp_path):
    spec = TableSpec(6, 5, CHAIN)
    from_built = save(spec, compute(spec), tmp_path / "built")
    from_stored = save(spec, compute_stored(spec, jobs=2), tmp_path / "stored")
    assert from_built.read_bytes() == from_stored.read_bytes()


def test_a_checked_table_is_trusted_until_its_file_changes(tmp_path):
    spec = TableSpec(11, 4)
    path = save(spec, compute(spec), tmp_path)
    open_table(path, spec)                      # checks in full, leaves a stamp
    stamp = tmp_path / (spec.filename + ".checked")
    written = stamp.stat().st_mtime_ns
    open_table(path, spec, recheck=True)        # checked in full again (tables info): the stamp is left alone
    assert stamp.stat().st_mtime_ns == written
    damage_entries(path)
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


def outdated_until_built(directory, spec, problem):
    """Checks that the table of ``spec`` in ``directory`` is refused as
    outdated, saying ``problem`` (a pattern), and loaded as outdated, not
    damaged; then builds it and returns the build's report."""
    with pytest.raises(OutdatedTableError, match=problem):
        open_table(directory / spec.filename, spec)
    installed = load(directory, (spec,))
    assert installed.outdated == [spec] and not installed.problems and not len(installed.tables)
    [report] = build_all(directory, (spec,))
    return report


@pytest.mark.parametrize("spec", [TableSpec(11, 4), TableSpec(13, 5)])   # 1,024 and 125 entries
def test_a_format_1_file_is_refused_then_converted_by_build(tmp_path, spec):
    built = compute(spec)
    path = tmp_path / spec.filename
    write_format_1(path, spec, built)
    report = outdated_until_built(tmp_path, spec, r"version 1 .*tables build. converts it")
    assert report.converted and not report.built
    assert np.array_equal(open_table(path, spec, recheck=True), store(built))
    assert not list(tmp_path.glob("*.partial"))


def test_a_damaged_format_1_file_is_built_again_not_converted(tmp_path):
    spec = TableSpec(11, 4)
    built = compute(spec)
    damaged = built.copy()
    damaged[5] ^= 4                        # one probability changed after the checksum
    path = tmp_path / spec.filename
    write_format_1(path, spec, built)
    path.write_bytes(path.read_bytes()[:HEADER_SIZE] + damaged.astype("<u2").tobytes())
    [report] = build_all(tmp_path, (spec,))
    assert report.built and not report.converted
    assert np.array_equal(open_table(path, spec, recheck=True), store(built))


@pytest.mark.parametrize("revision", [1, 7])
def test_a_file_of_another_builder_is_outdated_then_built_again(tmp_path, revision):
    spec = TableSpec(11, 4)
    path = save(spec, compute(spec), tmp_path)
    assert path.read_bytes()[40:44] == BUILDER_REVISION.to_bytes(4, "little")
    data = bytearray(path.read_bytes())
    data[40:44] = revision.to_bytes(4, "little")               # the header's builder revision
    path.write_bytes(bytes(data))
    report = outdated_until_built(tmp_path, spec, rf"built by builder revision {revision}, .* builds it again")
    assert report.built and not report.converted
    assert path.read_bytes()[40:44] == BUILDER_REVISION.to_bytes(4, "little")
    assert np.array_equal(open_table(path, spec, recheck=True), store(compute(spec)))


def test_a_file_built_with_other_caps_says_so(tmp_path):
    spec = TableSpec(11, 4)
    path = save(spec, compute(spec), tmp_path)
    data = bytearray(path.read_bytes())
    data[24:32] = (spec.entries - 1).to_bytes(8, "little")    # the header's entry count
    path.write_bytes(bytes(data))
    with pytest.raises(OutdatedTableError, match="other caps"):
        open_table(path, spec)
