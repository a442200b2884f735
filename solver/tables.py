"""Endgame tables: where they live, checking and loading them, looking boards up.

A table knows, for one formation (``frozen`` big tiles along a snake path in a
corner, in a corner block of 3 columns, the 3x2 chain block, or that block
less the cell an entry table fills; see csrc/formations.h) and one goal rank, the
best move and its exact probability of reaching the goal (the anchor's tile
beside the smallest frozen tile; for a chain block a ready chain below its
anchor; for an entry block the goal tile in the block with a ready pair beside
it) without moving a frozen tile. ``solve2048 tables build`` computes them once
(``solve2048.tables_build``); play, batch, hint and game then load them from
the table directory and take a table's move whenever its probability reaches
that table's threshold (``TableSet.threshold``: by shape, and by goal where
one table is played differently).

A table file is a 64-byte header, then its entries, one byte each (the move
in the low 2 bits, the probability in steps of 1/60, rounded down, in the high
6; see eg_store in csrc/formations.h)::

    magic "S2048EGT" | version u32 | frozen u32 | goal u32 | shape u32
    | entries u64 | checksum u64 | builder revision u32 | zeros up to 64 bytes

Version 1 files held 16-bit entries (14-bit probabilities); ``tables build``
converts them to version 2 without solving them again
(``solve2048.tables_build.convert``).

The builder revision names the builder that solved the entries. Two builders
of one format may still disagree on a move (the precision a layer is solved
with changes which of two near moves wins), and a game is the same bit for
bit only on the same tables; so a file of another revision is treated as
outdated: refused by the playing commands and built again by ``tables
build``. Every file of format 2 written before the field existed holds 0
there, the revision of the builder that wrote them.

A file is only ever written under a temporary name and renamed when complete,
and it is loaded only when its header, size and checksum all agree, so a torn
or damaged file is reported and skipped, never used.
"""

from __future__ import annotations

import os
import struct
from contextlib import suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from solve2048 import engine
from solve2048.board import Board
from solve2048.engine import ffi, lib
from solve2048.errors import InvalidArgumentError, OutOfMemoryError, Solve2048Error
from solve2048.moves import Move

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    # A table's stored entries, in memory or memory-mapped from its file.
    Entries = npt.NDArray[np.uint8]

MAGIC = b"S2048EGT"
VERSION = 2
OLD_VERSION = 1   # 16-bit entries, converted by tables build
# A stored probability is rounded down to a multiple of this (eg_store in
# csrc/formations.h): the answer of a table stands for a range that wide.
PROBABILITY_STEP = 1 / 60
# The builder whose entries this solve2048 writes and reads. Raise it with
# any change to csrc/tables_build.c or eg_store that changes an entry: the
# known-answer test of tests/test_tables_build.py says when that happened.
BUILDER_REVISION = 0
HEADER = struct.Struct("<8sIIIIQQI")
HEADER_SIZE = 64
ENV_DIR = "SOLVE2048_TABLES"
SUFFIX = ".egt"
# The lowest success probability at which a snake or block table's move
# replaces the search (--table-min-prob sets it). With the entry tables, 0.9
# beat 0.8 by 21,600 ± 9,900 at depth 4 (300 paired games, seeds 5000-5299;
# +11,200 ± 9,900 on seeds 0-299).
DEFAULT_MIN_PROBABILITY = 0.9


class TableError(Solve2048Error):
    """A table file that is missing, torn or damaged; the message says which and why."""


class OutdatedTableError(TableError):
    """A sound table file of an earlier version (format, caps or builder), which ``tables build`` updates."""


SHAPES = ("snake", "block", "chain", "entry")   # csrc/formations.h: EG_SNAKE .. EG_ENTRY
CHAIN = 2
ENTRY = 3
# Chain and entry tables keep thresholds of their own. With entry tables
# leading boards into the chain block, trusting every chain move the table has
# (probability above 0) gained 13,800 ± 5,800 at depth 4 over 0.8; the entry
# tables' threshold (0.8, 0.9, 0.95) made no measurable difference at depth 3
# (bench/RESULTS.md, "Which answer is played: thresholds").
DEFAULT_MIN_BY_SHAPE = {CHAIN: 0.0, ENTRY: 0.9}
# Tables whose threshold is not their shape's, by (shape, goal rank). The
# goal-512 entry table's answers run low (most of its boards need a 512 built
# from little): with 16 on its bottom row, trusted from 0.9
# like the other entry tables it cost 30,572 +/- 6,494 at depth 5 (300 paired
# games against the default tables), trusted from 0.1 it gained 12,152 +/-
# 6,197 over 1,000 paired games, and nothing measurable at 32768 (bench/RESULTS.md,
# "A goal-512 entry table in 6.6 GB" and "The goal-512 table on fresh seeds").
DEFAULT_MIN_BY_GOAL = {(ENTRY, 9): 0.1}


@dataclass(frozen=True, order=True)
class TableSpec:
    """One table: ``frozen`` cells hold the big tiles, the goal is rank ``goal``
    (tile 2**goal); ``shape`` 0 lays the frozen cells along the snake path,
    1 as the corner block of 3 columns, 2 (CHAIN) as the 3x2 block whose
    anchor rank is ``goal``, 3 (ENTRY) as that block without (1,2), the cell
    its goal tile is built on."""

    frozen: int
    goal: int
    shape: int = 0

    @property
    def free_cells(self) -> int:
        return 16 - self.frozen

    @property
    def entries(self) -> int:
        return int(lib.s2048_table_entries(self.shape, self.frozen, self.goal))

    @property
    def size_bytes(self) -> int:
        return HEADER_SIZE + self.entries

    @property
    def goal_word(self) -> str:
        """What ``goal`` is called: a chain table is named by its anchor."""
        return "anchor" if self.shape == CHAIN else "goal"

    @property
    def filename(self) -> str:
        name = "frozen" if self.shape == 0 else SHAPES[self.shape]
        return f"{name}{self.frozen:02d}-{self.goal_word}{1 << self.goal}{SUFFIX}"

    @property
    def label(self) -> str:
        """How --only names it: FREE:GOAL for a snake, block-FREE:GOAL or chain-FREE:ANCHOR."""
        prefix = "" if self.shape == 0 else f"{SHAPES[self.shape]}-"
        return f"{prefix}{self.free_cells}:{1 << self.goal}"

    @property
    def goal_text(self) -> str:
        """What the table plays for, e.g. "build 512", or "ready a chain to 512"."""
        tile = 1 << self.goal
        if self.shape == CHAIN:
            return f"ready a chain to {tile}"
        if self.shape == ENTRY:
            return f"build {tile} in the chain block"
        return f"build {tile}"

    def __str__(self) -> str:
        kind = "" if self.shape == 0 else f" ({SHAPES[self.shape]})"
        return f"{self.free_cells} free cells{kind}, {self.goal_word} {1 << self.goal}"


# The default set, at a byte an entry: the chain block with anchor 512 (610 M
# entries, 0.6 GB), which plays every anchor up to its own (see probe_chain in
# csrc/tables_probe.c); the chain block with anchor 1024 (2.1 G entries,
# 2.1 GB), which plays the boards of that anchor, the last step to 65536 when
# the block holds 32768 down to 1024; and the entry blocks of goals 32, 64, 128
# and 512 (8.3 GB; the biggest, goal 512 with its bottom row capped at 32, has
# 6.9 G entries; the goal-256 table is optional, below), which build the chain
# block's sixth tile.
# The goal-512 table joined on 2026-12-03: beside the hand-over of a second
# goal tile (entry_second_goal in csrc/tables_probe.c), the set with it made
# 32768 in 62.8% of 1,000 games at depth 5 against 58.4% without it (+4.4 +/-
# 2.0 points, +26,825 +/- 10,205; bench/RESULTS.md, "A second goal tile, and
# the goal-512 table in the default set"). On paired seeds at depth 4, anchor
# 512 for every anchor beat one table per anchor by 48,200, anchor 256 for all
# did 37,000 worse and anchor 1024 for all 20,600 worse (bench/RESULTS.md,
# "Chain formations: one table for every anchor" and "Tried and not kept").
# Anchor 1024 beside 512 made 65536 in 6 of 600 games at depth
# 4 with danger 3, where none had (bench/RESULTS.md, "The last step to 65536").
# The snake tables of earlier versions are no longer built or
# read: beside the tables' heuristic (Weights.for_tables) they cost 49,800 at
# depth 4 (bench/RESULTS.md, "Tried and not kept").
DEFAULT_SPECS: tuple[TableSpec, ...] = (
    TableSpec(6, 9, CHAIN),
    TableSpec(6, 10, CHAIN),
    *(TableSpec(5, g, ENTRY) for g in range(5, 8)),
    TableSpec(5, 9, ENTRY),
)

# Built only on request (``tables build --only block-7:256``), used when built:
# the corner blocks of 3 columns, 3x3 (7 free cells) and 3x2 (10 free), the
# formations of the perimeter-defence style. With the default heuristic they changed
# nothing measurable (bench/RESULTS.md, "Block formations"), so they stay out of the
# default set, for experiments with searches that play toward them. Also the
# entry block of goal 256 (5.7 billion entries, 5.7 GB, 10.6 GiB of memory to
# build), a step toward the tables AI's big build (goal 512);
# at depth 5 it gained nothing measurable, +713 +/- 9,835 over 600 paired games
# (bench/RESULTS.md, "Toward the big tables").
OPTIONAL_SPECS: tuple[TableSpec, ...] = (
    *(TableSpec(9, g, 1) for g in range(5, 11)),
    *(TableSpec(6, g, 1) for g in range(5, 8)),
    TableSpec(5, 8, ENTRY),
)
KNOWN_SPECS = DEFAULT_SPECS + OPTIONAL_SPECS


def installed_specs(directory: Path) -> tuple[TableSpec, ...]:
    """The default set, and the optional tables that ``directory`` holds."""
    return DEFAULT_SPECS + tuple(s for s in OPTIONAL_SPECS if (directory / s.filename).exists())


def default_dir() -> Path:
    """$SOLVE2048_TABLES, or the user's cache directory."""
    if os.environ.get(ENV_DIR):
        return Path(os.environ[ENV_DIR]).expanduser()
    import platformdirs

    return Path(platformdirs.user_cache_dir("solve2048")) / "tables"


def header_bytes(spec: TableSpec, checksum: int) -> bytes:
    head = HEADER.pack(MAGIC, VERSION, spec.frozen, spec.goal, spec.shape, spec.entries, checksum, BUILDER_REVISION)
    return head.ljust(HEADER_SIZE, b"\0")


def checksum(entries: Entries) -> int:
    """The checksum of an array of stored entries (computed in C)."""
    return int(lib.s2048_table_checksum(ffi.cast("const uint8_t *", entries.ctypes.data), entries.size))


def _stamp_path(path: Path) -> Path:
    return path.with_name(path.name + ".checked")


def _stamp_of(stat: os.stat_result, expected: int) -> str:
    return f"{stat.st_size} {stat.st_mtime_ns} {expected:016x}\n"


def _checked_before(path: Path, stamp: str) -> bool:
    try:
        return _stamp_path(path).read_text(encoding="ascii") == stamp
    except (OSError, UnicodeDecodeError):
        return False


def _remember_checked(path: Path, stamp: str) -> None:
    with suppress(OSError):  # a read-only directory: the file is simply checked again next time
        _stamp_path(path).write_text(stamp, encoding="ascii")


def remember_checked(path: Path, checksum: int) -> None:
    """Stamps a table file just written from entries whose checksum is known,
    so that its first use need not read it all again."""
    _remember_checked(path, _stamp_of(path.stat(), checksum))


def read_fields(path: Path) -> tuple[os.stat_result, tuple[int, int, int, int, int, int, int]]:
    """The stat of ``path`` and its header's fields after the magic (version,
    frozen, goal, shape, entries, checksum, builder revision), checked only for
    being a table file at all. Raises TableError."""
    try:
        stat = path.stat()
        with path.open("rb") as f:
            head = f.read(HEADER.size)
    except OSError as e:
        raise TableError(f"{path}: cannot read: {e.strerror or e}") from None
    if len(head) < HEADER.size:
        raise TableError(f"{path}: not a table file (too short)")
    magic, *fields = HEADER.unpack(head)
    if magic != MAGIC:
        raise TableError(f"{path}: not a table file (bad magic)")
    return stat, tuple(fields)


def read_header(path: Path, spec: TableSpec, version: int = VERSION) -> tuple[os.stat_result, int]:
    """Checks that ``path`` is a whole table file of ``spec`` in format
    ``version``; returns its stat and the checksum its header records. Raises
    TableError."""
    stat, (found, frozen, goal, shape, entries, expected, builder) = read_fields(path)
    if found in (VERSION, OLD_VERSION) and builder != BUILDER_REVISION:
        raise OutdatedTableError(f"{path}: built by builder revision {builder}, this solve2048's is "
                                 f"{BUILDER_REVISION}; `solve2048 tables build` builds it again")
    if found == OLD_VERSION and version == VERSION:
        raise OutdatedTableError(f"{path}: table format version 1 (16-bit entries); "
                                 "`solve2048 tables build` converts it in about a minute")
    if found != version:
        raise TableError(f"{path}: table format version {found}, this solve2048 reads {VERSION}; rebuild it")
    if (frozen, goal, shape) != (spec.frozen, spec.goal, spec.shape):
        raise TableError(f"{path}: holds another table (shape {shape}, frozen {frozen}, goal rank {goal})")
    if entries != spec.entries:
        raise OutdatedTableError(f"{path}: built with other caps ({entries} entries, this solve2048's table has "
                                 f"{spec.entries}); rebuild it")
    width = 1 if version == VERSION else 2
    if stat.st_size != HEADER_SIZE + width * entries:
        raise TableError(f"{path}: {stat.st_size} bytes, expected {HEADER_SIZE + width * entries} "
                         "(torn or damaged); rebuild it")
    return stat, expected


def open_table(path: Path, spec: TableSpec, verify: bool = True, recheck: bool = False) -> Entries:
    """The entries of a finished table file, memory-mapped read-only; raises TableError.

    With ``verify`` the checksum is checked in full the first time, then a stamp
    beside the file records it, and the file is trusted while its size and
    modification time stay the same (reading 2 GB on every ``hint`` would cost
    about a second). ``recheck`` ignores the stamp."""
    return open_summed(path, spec, verify, recheck)[0]


def open_summed(path: Path, spec: TableSpec, verify: bool = True, recheck: bool = False) -> tuple[Entries, int]:
    """``open_table``, with the checksum of the entries its header records."""
    import numpy as np

    stat, expected = read_header(path, spec)
    data = np.memmap(path, dtype=np.uint8, mode="r", offset=HEADER_SIZE, shape=(spec.entries,))
    stamp = _stamp_of(stat, expected)
    stamped = verify and _checked_before(path, stamp)
    if verify and (recheck or not stamped):
        if checksum(data) != expected:
            raise TableError(f"{path}: checksum mismatch (damaged); rebuild it")
        # A stamp already there is left as it is: `tables info` checks every
        # file in full, and a command that only reads should not touch the user's folder.
        if not stamped:
            _remember_checked(path, stamp)
    return data, expected


@dataclass(frozen=True, slots=True)
class TableMove:
    """A table's answer for a board."""

    move: Move
    probability: float   # of building the goal tile without moving a frozen tile
    spec: TableSpec
    trusted: bool        # the probability reaches the table's threshold (TableSet.threshold)

    @classmethod
    def of(cls, raw: Any) -> TableMove:
        """The answer in an s2048_probe (cffi cdata) that found a covering table."""
        return cls(Move(raw.dir), float(raw.probability), TableSpec(raw.frozen, raw.goal, raw.shape),
                   bool(raw.trusted))


class TableSet:
    """Loaded tables, ready for ``probe`` and for the C game loop (``handle``)."""

    def __init__(self, tables: dict[TableSpec, Entries],
                 min_probability: float = DEFAULT_MIN_PROBABILITY,
                 min_by_shape: dict[int, float] | None = None,
                 directory: Path | None = None,
                 min_by_goal: dict[tuple[int, int], float] | None = None,
                 checksums: dict[TableSpec, int] | None = None) -> None:
        """``min_probability`` is the threshold of every shape that
        ``min_by_shape`` (default: DEFAULT_MIN_BY_SHAPE) does not name;
        ``min_by_goal`` (default: DEFAULT_MIN_BY_GOAL) overrides it for the
        tables of one (shape, goal rank); ``directory`` is where the tables
        were loaded from (for the workers of a batch, which load them again),
        and ``checksums`` what their files' headers record (see ``sums``)."""
        self.directory = directory
        self._checksums = dict(checksums or {})
        self.min_probability = min_probability
        if not 0.0 <= min_probability <= 1.0:
            raise InvalidArgumentError(f"min_probability must be between 0 and 1, got {min_probability!r}")
        own = DEFAULT_MIN_BY_SHAPE if min_by_shape is None else min_by_shape
        self.min_by_shape = {shape: float(own.get(shape, min_probability)) for shape in range(len(SHAPES))}
        by_goal = DEFAULT_MIN_BY_GOAL if min_by_goal is None else min_by_goal
        self.min_by_goal = {key: float(p) for key, p in by_goal.items()}
        for p in (*self.min_by_shape.values(), *self.min_by_goal.values()):
            if not 0.0 <= p <= 1.0:
                raise InvalidArgumentError(f"a table threshold must be between 0 and 1, got {p!r}")
        self._tables = dict(tables)   # keeps the memory the C set points into alive
        self.handle = ffi.gc(lib.s2048_tableset_new(), lib.s2048_tableset_free)
        if self.handle == ffi.NULL:
            raise OutOfMemoryError("cannot allocate a table set")
        for spec, entries in self._tables.items():
            pointer = ffi.cast("const uint8_t *", entries.ctypes.data)
            if lib.s2048_tableset_add(self.handle, spec.shape, spec.frozen, spec.goal,
                                      pointer, entries.size, self.threshold(spec)) != 0:
                raise InvalidArgumentError(f"table {spec} has {entries.size} entries, expected {spec.entries}")

    @property
    def specs(self) -> list[TableSpec]:
        return sorted(self._tables)

    def __len__(self) -> int:
        return len(self._tables)

    def threshold(self, spec: TableSpec) -> float:
        """The least probability at which ``spec``'s answers replace the search."""
        return self.min_by_goal.get((spec.shape, spec.goal), self.min_by_shape[spec.shape])

    @property
    def thresholds(self) -> tuple[float, ...]:
        """Every table's threshold, in ``specs`` order."""
        return tuple(self.threshold(spec) for spec in self.specs)

    @property
    def sums(self) -> tuple[str, ...] | None:
        """Every table's checksum as 16 hex digits, in ``specs`` order: what
        its entries are, which a game depends on as much as on the engine's
        code. None unless every table came from a file (``load``)."""
        if any(spec not in self._checksums for spec in self._tables):
            return None
        return tuple(f"{self._checksums[spec]:016x}" for spec in self.specs)

    def probe(self, board: Board | int) -> TableMove | None:
        """The best covering table's move and probability, whatever the threshold; None if none covers it."""
        raw = ffi.new("s2048_probe *")
        copy, _ = engine.downgrade(int(board))  # tables see the board's 64-bit copy, as the game loop does
        if not lib.s2048_tables_probe(self.handle, copy, raw):
            return None
        return TableMove.of(raw)

    def trusts(self, found: TableMove | None) -> bool:
        """Whether a probe's answer is sure enough to replace the search: the C
        probe judged it, against the same thresholds the C game loop uses."""
        return found is not None and found.trusted

    def choose(self, board: Board | int) -> TableMove | None:
        """The table's move when it is sure enough to replace the search, else None."""
        found = self.probe(board)
        return found if self.trusts(found) else None


@dataclass(frozen=True)
class Installed:
    """What a table directory holds: the loaded set and one line per problem."""

    tables: TableSet
    problems: list[str]              # the damaged files, one line each
    missing: list[TableSpec]
    outdated: list[TableSpec] = field(default_factory=list)   # sound, of an earlier version


@dataclass(frozen=True)
class TableFile:
    """One table of a directory, as ``scan`` finds it."""

    spec: TableSpec
    path: Path
    entries: Entries | None  # memory-mapped, when the file is sound
    problem: str | None      # why it is not; None when sound or absent
    outdated: bool = False   # the problem is only an earlier version, which tables build updates
    checksum: int | None = None  # of the entries, as the header records it, when sound

    @property
    def status(self) -> str:
        if self.entries is not None:
            return "ok"
        return "outdated" if self.outdated else "damaged" if self.problem else "missing"


def scan(directory: Path, specs: tuple[TableSpec, ...] = DEFAULT_SPECS, verify: bool = True,
         recheck: bool = False) -> list[TableFile]:
    """Opens every table of ``specs`` in ``directory`` (see ``open_table``)."""
    files = []
    for spec in specs:
        path = directory / spec.filename
        entries, problem, outdated, summed = None, None, False, None
        if path.exists():
            try:
                entries, summed = open_summed(path, spec, verify=verify, recheck=recheck)
            except TableError as e:
                problem, outdated = str(e), isinstance(e, OutdatedTableError)
        files.append(TableFile(spec, path, entries, problem, outdated, summed))
    return files


def load(directory: Path | None = None, specs: tuple[TableSpec, ...] | None = None,
         min_probability: float = DEFAULT_MIN_PROBABILITY, verify: bool = True) -> Installed:
    """Loads every finished table of ``specs`` (default: ``installed_specs``)
    found in ``directory``; damaged files are reported in ``problems``, files
    of an earlier version in ``outdated``, and both are left out, never used."""
    directory = default_dir() if directory is None else Path(directory)
    files = scan(directory, installed_specs(directory) if specs is None else specs, verify)
    sound = {f.spec: (f.entries, f.checksum) for f in files if f.entries is not None and f.checksum is not None}
    return Installed(TableSet({spec: entries for spec, (entries, _) in sound.items()}, min_probability,
                              directory=directory, checksums={spec: summed for spec, (_, summed) in sound.items()}),
                     [f.problem for f in files if f.status == "damaged" and f.problem],
                     [f.spec for f in files if f.status == "missing"],
                     [f.spec for f in files if f.status == "outdated"])
