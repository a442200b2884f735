"""Building endgame tables: the C builder, driven layer by layer, saved atomically.

A table is computed in memory from the highest tile sum of its free cells down
to 0: a move keeps the sum and a spawn adds 2 or 4, so a layer needs only the
two above it, and the threads of one layer never touch each other's entries.
The finished table is written under a temporary name, flushed and renamed, so
an interrupted build leaves either nothing or a complete, checksummed file;
``build_all`` skips tables that are already there and verify, which makes a
rebuild after an interrupt resume where it stopped.
"""

from __future__ import annotations

import functools
import os
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from solve2048.engine import ffi, lib
from solve2048.errors import InvalidArgumentError
from solve2048.tables import (
    DEFAULT_SPECS,
    TableError,
    TableSpec,
    checksum,
    header_bytes,
    open_table,
    remember_checked,
)

if TYPE_CHECKING:
    from solve2048.tables import Entries

# progress(spec, entries done, entries in the table)
Progress = Callable[[TableSpec, int, int], None]


@dataclass(frozen=True)
class BuildReport:
    spec: TableSpec
    path: Path
    built: bool      # False: a finished file was already there
    seconds: float
    size_bytes: int


def compute(spec: TableSpec, jobs: int = 1, progress: Progress | None = None) -> Entries:
    """The table's entries as a numpy uint16 array (all of it in memory)."""
    import numpy as np

    entries = np.zeros(spec.entries, dtype=np.uint16)
    pointer = ffi.cast("uint16_t *", entries.ctypes.data)
    jobs = max(1, jobs)

    def layer_part(sum_: int, part: int) -> int:
        written = lib.s2048_table_build_layer(spec.shape, spec.frozen, spec.goal, pointer,
                                              sum_, part, jobs)
        if written < 0:
            raise InvalidArgumentError(f"the C builder refused table {spec}")
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
    return entries


def save(spec: TableSpec, entries: Entries, directory: Path) -> Path:
    """Writes the table to ``directory`` atomically; returns its path."""
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / spec.filename
    partial = path.with_name(path.name + ".partial")
    total = checksum(entries)
    with partial.open("wb") as f:
        f.write(header_bytes(spec, total))
        # Straight from the array's memory: a copy would double the peak RAM.
        f.write(entries.astype("<u2", copy=False).data)
        f.flush()
        os.fsync(f.fileno())
    os.replace(partial, path)
    remember_checked(path, total)
    return path


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
        built = not is_finished(spec, directory)
        if built:
            save(spec, compute(spec, jobs, progress), directory)
        report = BuildReport(spec, path, built, time.perf_counter() - start, spec.size_bytes)
        reports.append(report)
        if on_done:
            on_done(report)
    return reports
