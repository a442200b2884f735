"""Build script for the compiled engine ``solve2048._engine`` (cffi, out-of-line API mode).

Run by setuptools through ``cffi_modules`` in setup.py; never imported at run time.
The cdef is read from the two public headers, csrc/api.h (what plays) and
csrc/tables_build.h (the table builder), between their CDEF markers,
and the C sources in csrc/ are compiled straight into the extension, with
``-Wall -Wextra`` (except on win32).

Warnings are errors only when SOLVE2048_WERROR=1 (CI sets it), and then only in
our own sources: before the extension is built, each of them is compiled on its
own with ``-Werror`` (``check_sources``), and the build stops when one warns.
The extension itself never gets ``-Werror``, because cffi compiles its
generated wrapper (and Python's headers) in the same extension, and a warning
there, from a newer cffi or compiler, is not ours to fix. A user's build never
fails on a warning. ``python solver/_ffi_build.py --check`` runs the same check
alone.
"""

from __future__ import annotations

import hashlib
import os
import shlex
import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path

from cffi import FFI

ROOT = Path(__file__).resolve().parent.parent
CSRC = ROOT / "csrc"
SOURCES = [
    "moves.c",         # the row move tables
    "rules.c",         # the rules API over them
    "ladder.c",        # boards past 32768, and their 64-bit copy
    "evaluate.c",      # the heuristic row table
    "tt.c",            # the transposition table
    "search.c",        # expectimax
    "formations.c",    # the endgame tables' formations
    "tables_build.c",  # building an endgame table
    "tables_probe.c",  # looking a board up in the endgame tables
    "rng.c",           # the game's generator and spawn
    "selfplay.c",      # the loop that plays whole games
]
WERROR_VARIABLE = "SOLVE2048_WERROR"


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
    # -pthread: the split search starts POSIX threads (csrc/search.c).
    return ["-O3", "-ffp-contract=off", "-fno-fast-math", "-pthread", "-Wall", "-Wextra"]


def werror_requested() -> bool:
    """Whether this build treats warnings in our sources as errors (CI only)."""
    return os.environ.get(WERROR_VARIABLE) == "1" and sys.platform != "win32"


def c_compiler() -> list[str]:
    """The compiler setuptools would use: $CC, else the one Python was built with."""
    return shlex.split(os.environ.get("CC") or sysconfig.get_config_var("CC") or "cc")


def check_sources() -> str:
    """Compiles each of our C sources to an object in a temporary folder, with
    the extension's flags and -Werror. Returns the compiler's messages of the
    sources that failed, "" when every one compiles clean.

    Objects, not -fsyntax-only: some warnings (-Wmaybe-uninitialized,
    -Warray-bounds) come from the optimiser, so they need the real -O3 compile.
    """
    failures = []
    with tempfile.TemporaryDirectory(prefix="solve2048-check-") as tmp:
        for name in SOURCES:
            command = [*c_compiler(), *compile_args(), "-Werror", "-I", str(CSRC),
                       "-c", str(CSRC / name), "-o", str(Path(tmp) / (name + ".o"))]
            done = subprocess.run(command, capture_output=True, text=True)
            if done.returncode != 0:
                failures.append(f"{name}:\n{done.stdout}{done.stderr}")
    return "\n".join(failures)


def require_clean_sources() -> None:
    """Stops the build when SOLVE2048_WERROR=1 and one of our sources warns."""
    if not werror_requested():
        return
    messages = check_sources()
    if messages:
        raise SystemExit(f"solve2048 build: {WERROR_VARIABLE}=1 and csrc/ does not compile "
                         f"clean with -Werror:\n{messages}")


def relative(path: Path) -> str:
    # setuptools wants source paths relative to the project root (the cwd of the build).
    return os.path.relpath(path, os.getcwd())


# The public headers, in the order cffi reads their declarations.
HEADERS = ("api.h", "tables_build.h")

# The sources that build tables and play no part in a game. A game depends on
# the tables' entries, which a results line records by checksum (table_sums),
# not on the code that computed them: work on the builder that leaves the
# entries alone must leave a results file resumable.
BUILD_ONLY = ("tables_build.c", "tables_build.h")


def engine_id(csrc: Path = CSRC) -> str:
    """A digest of every C source and header that plays (all but BUILD_ONLY),
    so that a results file can say which engine played its games
    (csrc/selfplay.c, s2048_engine_id). Line endings are read alike, so a
    checkout with CRLF builds the same id."""
    digest = hashlib.sha256()
    for path in sorted(p for p in csrc.glob("*.[ch]") if p.name not in BUILD_ONLY):
        digest.update(path.name.encode() + b"\0" + path.read_bytes().replace(b"\r\n", b"\n") + b"\0")
    return digest.hexdigest()[:12]


def make_builder() -> FFI:
    builder = FFI()
    builder.cdef("".join(read_cdef(CSRC / header) for header in HEADERS))
    builder.set_source(
        "solve2048._engine",
        "".join(f'#include "{header}"\n' for header in HEADERS),
        sources=[relative(CSRC / name) for name in SOURCES],
        include_dirs=[relative(CSRC)],
        define_macros=[("S2048_ENGINE_ID", f'"{engine_id()}"')],
        extra_compile_args=compile_args(),
        libraries=[] if sys.platform == "win32" else ["m"],
        # win32 runs the split search on the caller's thread alone.
        extra_link_args=[] if sys.platform == "win32" else ["-pthread"],
    )
    return builder


def main(argv: list[str]) -> int:
    if argv == ["--check"]:
        if sys.platform == "win32":
            print("solve2048 check: needs a gcc-style compiler, not available on win32",
                  file=sys.stderr)
            return 2
        messages = check_sources()
        if messages:
            print(messages, file=sys.stderr)
            return 1
        print(f"csrc: {len(SOURCES)} sources compile clean with -Wall -Wextra -Werror")
        return 0
    if argv:
        print("usage: python solver/_ffi_build.py [--check]", file=sys.stderr)
        return 2
    require_clean_sources()
    make_builder().compile(verbose=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
else:
    # setuptools (cffi_modules = "solver/_ffi_build.py:ffibuilder" in setup.py)
    # runs this file under another name and takes ffibuilder.
    require_clean_sources()
    ffibuilder = make_builder()
