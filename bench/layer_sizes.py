"""How big the layers of each endgame table are: the question behind a build
that holds only the layers it is working on.

A table is built a layer at a time, a layer being the arrangements whose
free tiles add up to the same sum, from the highest sum down. A move keeps
the sum and a spawn adds 2 or 4, so a layer reads only the two layers above
it. Until 2026-12-05 the builder held the whole table at two bytes an entry
all the same, because a layer's entries lie scattered through the table's
mixed-radix order; since then it holds three layers at two bytes, each
ranked within its sum (docs/endgame-tables.md, "Three layers at 16 bits"),
beside the table at one byte. This prints, for each table of the
default set and for the goal-512 entry table with wider bottom rows, its
entries, its largest layer and the largest three consecutive layers, and
what those three would take at two bytes an entry.

Usage: python bench/layer_sizes.py
"""

from __future__ import annotations

from solve2048.reference_tables import ENTRY, free_caps
from solve2048.tables import DEFAULT_SPECS


def layer_counts(caps: list[int]) -> list[int]:
    """counts[s]: how many arrangements of tiles within these caps add up to s."""
    counts = [1]
    for cap in caps:
        values = [0] + [1 << rank for rank in range(1, cap + 1)]
        spread = [0] * (len(counts) + values[-1])
        for value in values:
            for total, count in enumerate(counts):
                spread[total + value] += count
        counts = spread
    return counts


def report(label: str, caps: list[int]) -> None:
    counts = layer_counts(caps)
    entries = sum(counts)
    three = max(sum(counts[s:s + 5:2]) for s in range(len(counts)))
    print(f"{label:<30} {entries:>15,} entries, largest layer {max(counts):>12,} "
          f"({max(counts) / entries:.2%}), three layers {three:>12,} = {2 * three / 1e9:.2f} GB "
          f"at two bytes (whole table {2 * entries / 1e9:.1f} GB)")


def main() -> None:
    for spec in DEFAULT_SPECS:
        report(spec.label, list(free_caps(spec.frozen, spec.goal, spec.shape).values()))
    goal512 = list(free_caps(5, 9, ENTRY).values())
    for name, bottom in (("32,64,64,32", [5, 6, 6, 5]), ("64", [6] * 4), ("128", [7] * 4)):
        report(f"entry-11:512 bottom {name}", goal512[:-4] + bottom)


if __name__ == "__main__":
    main()
