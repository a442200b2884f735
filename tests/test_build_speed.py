"""bench/build_speed.c, the table builder timed without Python: it compiles
against csrc/ as it stands and writes the very table the package builds."""

from __future__ import annotations

import os
import shlex
import subprocess
import sysconfig
from pathlib import Path

import numpy as np

from solve2048.tables import CHAIN, TableSpec
from solve2048.tables_build import compute_stored

ROOT = Path(__file__).resolve().parent.parent


def test_the_c_driver_builds_the_table_the_package_builds(tmp_path):
    compiler = shlex.split(os.environ.get("CC") or sysconfig.get_config_var("CC") or "cc")
    program = tmp_path / "build_speed"
    sources = sorted(str(path) for path in (ROOT / "csrc").glob("*.c"))
    subprocess.run([*compiler, "-std=gnu11", "-O2", "-ffp-contract=off", "-I", str(ROOT / "csrc"), *sources,
                    str(ROOT / "bench" / "build_speed.c"), "-o", str(program), "-lm", "-pthread"], check=True)

    written = tmp_path / "entries"
    done = subprocess.run([str(program), "2", "6", "6", str(written)], capture_output=True, text=True, check=True)
    assert done.stdout.startswith("3686400 of 3686400 entries in ")
    assert np.array_equal(np.fromfile(written, dtype=np.uint8), compute_stored(TableSpec(6, 6, CHAIN)))

    refused = subprocess.run([str(program), "9", "9", "9"], capture_output=True, text=True)
    assert refused.returncode == 2 and "no such table" in refused.stderr
