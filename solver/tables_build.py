"""Building endgame tables: the C builder, driven layer by layer, saved atomically.

A table is computed in memory from the highest tile sum of its free cells down
to 0: a move keeps the sum and a spawn adds 2 or 4, so a layer needs only the
two above it, and the threads of one layer never touch each other's entries.
Its entries are solved with 16 bits (14-bit probabilities, exact enough that
the layers above do not blur the ones below), but only three layers are held
so; the table itself is written with the 8-bit entries it is stored with (the
same moves; see eg_store in csrc/formations.h). The finished table is written
under a temporary name, flushed and renamed, so an interrupted build leaves
either nothing or a complete, checksummed file; ``build_all`` skips tables
that are already there and verify, which makes a rebuild after an interrupt
resume where it stopped, and converts the 16-bit files of format version 1
instead of solving them again.
"""

from __future__ import annotations

import functools
import os
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO, cast

from solve2048.engine import ffi, lib
from solve2048.errors import InvalidArgumentError
from solve2048.tables import (
    DEFAULT_SPECS,
    HEADER_SIZE,
    OLD_VERSION,
    TableError,
    TableSpec,
    header_bytes,
    open_table,
    read_header,
    remember_checked,
)

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    from solve2048.tables import Entries

# progress(spec, entries done, entries in the table)
Progress = Callable[[TableSpec, int, int], None]
# Entries stored per call into C: 64 MiB written at a time, so that storing a
# table adds little to the peak memory of building it.
STORE_CHUNK = 1 << 26


@dataclass(frozen=True)
class BuildReport:
    spec: TableSpec
    path: Path
    built: bool      # False: a finished file was already there, or converted
    seconds: float
    size_bytes: int
    converted: bool = False   # a version-1 file was converted, not solved again


def _new_builder(spec: TableSpec) -> Any:
    """The C builder of ``spec``'s table, freed with its last reference."""
    builder = lib.s2048_builder_new(spec.shape, spec.frozen, spec.goal)
    if builder == ffi.NULL:
        raise _refused(spec)
    return ffi.gc(builder, lib.s2048_builder_free)


def _refused(spec: TableSpec) -> InvalidArgumentError:
    return InvalidArgumentError(f"the C builder refused table {spec} (a bad argument, or no memory)")


def _solve(spec: TableSpec, jobs: int, progress: Progress | None, stored: Any, built: Any) -> None:
    """Solves every layer of ``spec``'s table, from the top sum down, writing
    each entry to ``stored`` and ``built`` (cffi pointers, either NULL)."""
    builder = _new_builder(spec)
    jobs = max(1, jobs)

    def layer_part(sum_: int, part: int) -> int:
        written = lib.s2048_builder_layer(builder, sum_, part, jobs, stored, built)
        if written < 0:
            raise InvalidArgumentError(f"the C builder refused layer {sum_} of table {spec}")
        return int(written)

    done = 0
    # cffi releases the GIL during each C call, so the parts run in parallel.
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        for sum_ in range(lib.s2048_table_max_sum(spec.shape, spec.frozen, spec.goal), -1, -2):
            done += sum(pool.map(functools.partial(layer_part, sum_), range(jobs)))
            if progress:
                progress(spec, done, spec.entries)
    if done != spec.entries:
        raise AssertionError(f"table {spec}: {done} entries written, expected {spec.entries}")


def compute(spec: TableSpec, jobs: int = 1, progress: Progress | None = None) -> npt.NDArray[np.uint16]:
    """The table's built entries, 16 bits each (exact enough to compare with
    the oracle's), as a numpy array: for tests and small tables."""
    import numpy as np

    built = np.zeros(spec.entries, dtype=np.uint16)
    _solve(spec, jobs, progress, ffi.NULL, ffi.cast("uint16_t *", built.ctypes.data))
    return built


def compute_stored(spec: TableSpec, jobs: int = 1, progress: Progress | None = None) -> Entries:
    """The table's stored entries, 8 bits each, as a numpy array: what a build
    writes to its file. The builder holds only three layers at 16 bits, so the
    peak memory is this array and those layers (``widest_layer``)."""
    import numpy as np

    stored = np.zeros(spec.entries, dtype=np.uint8)
    _solve(spec, jobs, progress, ffi.cast("uint8_t *", stored.ctypes.data), ffi.NULL)
    return stored


def build_memory(spec: TableSpec) -> int:
    """Bytes a build of ``spec`` holds at its peak: the table at one byte an
    entry and three of its widest layers at two."""
    return spec.entries + 3 * 2 * widest_layer(spec)


def widest_layer(spec: TableSpec) -> int:
    """The most arrangements of one layer of ``spec``'s table: the builder holds
    three layers of that many 16-bit entries beside the table itself."""
    widest = int(lib.s2048_table_widest_layer(spec.shape, spec.frozen, spec.goal))
    if widest < 0:
        raise _refused(spec)
    return widest


def store(built: npt.NDArray[np.uint16]) -> Entries:
    """The stored (8-bit) entries of built ones, all at once: for small tables and tests."""
    import numpy as np

    stored = np.empty(built.size, dtype=np.uint8)
    lib.s2048_table_store(ffi.cast("const uint16_t *", built.ctypes.data),
                          ffi.cast("uint8_t *", stored.ctypes.data), built.size)
    return stored


def _write_stored(f: BinaryIO, entries: npt.NDArray[np.uint16] | Entries) -> int:
    """Writes ``entries`` (stored ones, or built ones that are stored on the
    way; in memory or memory-mapped) a chunk at a time; returns their
    checksum, summed as they go (reading the file back would map it whole
    beside the entries)."""
    import numpy as np

    total = int(lib.s2048_table_checksum(ffi.NULL, 0))   # of no entries: where the sum starts
    for start in range(0, entries.size, STORE_CHUNK):   # STORE_CHUNK is a multiple of 8
        chunk = np.ascontiguousarray(entries[start:start + STORE_CHUNK])
        stored = store(cast('npt.NDArray[np.uint16]', chunk)) if chunk.dtype == np.uint16 else chunk
        total = int(lib.s2048_table_checksum_more(total, ffi.cast("const uint8_t *", stored.ctypes.data), stored.size))
        f.write(stored.data)
    return total


def save(spec: TableSpec, entries: npt.NDArray[np.uint16] | Entries, directory: Path) -> Path:
    """Stores ``spec``'s table file in ``directory``, atomically, from its
    stored (8-bit) or built (16-bit) entries; returns its path."""
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / spec.filename
    partial = path.with_name(path.name + ".partial")
    with partial.open("wb") as f:
        # The header goes in last, with the checksum of what was written.
        f.write(bytes(HEADER_SIZE))
        total = _write_stored(f, entries)
        f.seek(0)
        f.write(header_bytes(spec, total))
        f.flush()
        os.fsync(f.fileno())
    os.replace(partial, path)
    remember_checked(path, total)
    return path


def convert(spec: TableSpec, directory: Path) -> bool:
    """Stores a sound version-1 (16-bit) file of ``spec`` in ``directory`` in
    the current format, in place; False when there is none (or it is damaged:
    then it must be built again)."""
    import numpy as np

    path = directory / spec.filename
    try:
        _, expected = read_header(path, spec, OLD_VERSION)
    except TableError:
        return False
    old = np.memmap(path, dtype="<u2", mode="r", offset=HEADER_SIZE, shape=(spec.entries,))
    if int(lib.s2048_table_checksum_v1(ffi.cast("const uint16_t *", old.ctypes.data), old.size)) != expected:
        return False
    save(spec, old, directory)
    return True


def is_finished(spec: TableSpec, directory: Path) -> bool:
    try:
        open_table(directory / spec.filename, spec, verify=True)
    except TableError:
        return False
    return True


def build_all(directory: Path, specs: tuple[TableSpec, ...] = DEFAULT_SPECS, jobs: int = 1,
              progress: Progress | None = None,
              on_done: Callable[[BuildReport], None] | None = None) -> list[BuildReport]:
    """Builds every table of ``specs`` missing from ``directory`` (smallest first)."""
    reports = []
    for spec in sorted(specs, key=lambda s: s.entries):
        path = directory / spec.filename
        start = time.perf_counter()
        built = converted = False
        if not is_finished(spec, directory):
            converted = convert(spec, directory)
            built = not converted
        if built:
            save(spec, compute_stored(spec, jobs, progress), directory)
        report = BuildReport(spec, path, built, time.perf_counter() - start, spec.size_bytes, converted)
        reports.append(report)
        if on_done:
            on_done(report)
    return reports
