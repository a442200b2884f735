"""Build script for the compiled engine ``solve2048._engine`` (cffi, out-of-line API mode).

Run by setuptools through ``cffi_modules`` in setup.py; never imported at run time.
The cdef is read from the one public header, csrc/api.h, between its CDEF markers,
and the C sources in csrc/ are compiled straight into the extension.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from cffi import FFI

ROOT = Path(__file__).resolve().parent.parent
CSRC = ROOT / "csrc"
SOURCES = ["moves.c", "rules.c", "evaluate.c", "tt.c", "search.c", "formations.c", "tables_build.c", "tables_probe.c", "rng.c", "selfplay.c"]


def read_cdef(header: Path) -> str:
    """Returns the declarations between the CDEF BEGIN and CDEF END markers."""
    text = header.read_text(encoding="utf-8")
    begin = text.index("/* CDEF BEGIN */") + len("/* CDEF BEGIN */")
    end = text.index("/* CDEF END */")
    return text[begin:end]


def compile_args() -> list[str]:
    # The search must add and multiply exactly as the Python oracle does, so
    # no fused multiply-add contraction (gcc contracts by default where the
    # target has FMA, e.g. on aarch64).
    if sys.platform == "win32":
        return ["/O2", "/fp:precise"]
    return ["-O3", "-ffp-contract=off", "-fno-fast-math"]


def relative(path: Path) -> str:
    # setuptools wants source paths relative to the project root (the cwd of the build).
    return os.path.relpath(path, os.getcwd())


ffibuilder = FFI()
ffibuilder.cdef(read_cdef(CSRC / "api.h"))
ffibuilder.set_source(
    "solve2048._engine",
    '#include "api.h"',
    sources=[relative(CSRC / name) for name in SOURCES],
    include_dirs=[relative(CSRC)],
    extra_compile_args=compile_args(),
    libraries=[] if sys.platform == "win32" else ["m"],
)

if __name__ == "__main__":
    ffibuilder.compile(verbose=True)
