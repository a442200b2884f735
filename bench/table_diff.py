"""How two builds of one table differ: the moves, and the probability steps.

Two files of the same formation (say the installed table and one built by a
changed builder) hold one byte an entry: the move in the low 2 bits and the
probability in steps of 1/60 in the high 6 (docs/formats.md). This counts,
over the entries either file calls live (probability above 0), those whose
move differs, those of them whose probability in the second file lies
between 0.05 and 0.95 (where a move is a real choice), the differing moves
by the second file's step, and how far the two files' steps lie apart. The
files are read a chunk at a time, so the goal-512 entry table (6.9 GB) is
compared in a few hundred megabytes of memory.

Usage: python bench/table_diff.py FIRST SECOND
"""

from __future__ import annotations

import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from solve2048.tables import HEADER_SIZE, VERSION, TableError, read_fields

CHUNK = 1 << 27      # entries compared at once (128 MB of each file)
STEPS = 60           # the stored probability's steps (docs/formats.md)
LOW, HIGH = 3, 57    # the steps of 0.05 and 0.95: where a move is a real choice


@dataclass
class Difference:
    entries: int = 0
    live: int = 0
    step_differs: int = 0
    move_differs: int = 0
    middle: int = 0             # live entries whose second step is within LOW..HIGH
    middle_move_differs: int = 0
    by_step: np.ndarray = field(default_factory=lambda: np.zeros(STEPS + 1, dtype=np.int64))
    step_gap: Counter[int] = field(default_factory=Counter)   # second step - first step, over live

    def add(self, first: np.ndarray, second: np.ndarray) -> None:
        """Counts one chunk of entries, the same cells of both files."""
        p1, p2 = first >> 2, second >> 2
        live = (p1 > 0) | (p2 > 0)
        moved = ((first & 3) != (second & 3)) & live
        middle = live & (p2 >= LOW) & (p2 <= HIGH)
        self.entries += first.size
        self.live += int(live.sum())
        self.step_differs += int(((p1 != p2) & live).sum())
        self.move_differs += int(moved.sum())
        self.middle += int(middle.sum())
        self.middle_move_differs += int((moved & middle).sum())
        self.by_step += np.bincount(p2[moved], minlength=STEPS + 1)
        gaps, counts = np.unique(p2[live].astype(np.int16) - p1[live].astype(np.int16), return_counts=True)
        self.step_gap.update({int(g): int(c) for g, c in zip(gaps, counts, strict=True)})


def header_of(path: Path) -> tuple[int, ...]:
    """The formation fields of a table file's header: version, frozen, goal,
    shape, entries. Not read_header: a trial build may have other caps, so
    other entry counts, than this solve2048's table of its formation."""
    stat, (version, frozen, goal, shape, entries, _checksum, _builder) = read_fields(path)
    if version != VERSION:
        raise ValueError(f"{path}: format version {version}; this compares version {VERSION} (one byte an entry)")
    if stat.st_size != HEADER_SIZE + entries:
        raise ValueError(f"{path}: {stat.st_size} bytes, expected {HEADER_SIZE + entries}")
    return version, frozen, goal, shape, entries


def compare(first: Path, second: Path) -> Difference:
    head = header_of(first)
    if header_of(second) != head:
        raise ValueError(f"{first} and {second} are not the same formation")
    entries = head[-1]
    a = np.memmap(first, dtype=np.uint8, mode="r", offset=HEADER_SIZE, shape=(entries,))
    b = np.memmap(second, dtype=np.uint8, mode="r", offset=HEADER_SIZE, shape=(entries,))
    diff = Difference()
    for start in range(0, entries, CHUNK):
        diff.add(np.asarray(a[start:start + CHUNK]), np.asarray(b[start:start + CHUNK]))
    return diff


def report(d: Difference) -> str:
    def share(part: int, whole: int) -> str:
        return f"{part / whole:.3%}" if whole else "-"

    steps = {step: int(n) for step, n in enumerate(d.by_step) if n}
    return "\n".join([
        f"entries {d.entries:,}, live {d.live:,}; probability step differs on {d.step_differs:,}",
        f"move differs on {d.move_differs:,} live entries ({share(d.move_differs, d.live)})",
        f"  of those with p in [0.05, 0.95] in the second file: {d.middle_move_differs:,} of {d.middle:,} "
        f"({share(d.middle_move_differs, d.middle)})",
        f"differing moves by the second file's step (of {STEPS}): {steps}",
        f"second step - first step, over live entries: {dict(sorted(d.step_gap.items()))}",
    ])


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    try:
        print(report(compare(Path(argv[0]), Path(argv[1]))))
    except (OSError, ValueError, TableError) as exc:
        print(f"table_diff: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
