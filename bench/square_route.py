"""Whether games pass through the corner square on their way from 16384 to
32768: the 16384 in a corner with the 8192 and the 4096 on its two sides and
the 2048 between them (16384 8192 / 4096 2048), the shape most games that
die in the last chain die in (bench/last_chain.py).

Usage: python bench/square_route.py RECORD...
  each RECORD a game written by `solve2048 play --record FILE`.
Prints, for the games that reach 16384: how many met the square before their
first 32768 (or their end) and how many of those, and of the others, reached 32768.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

from solve2048.record import positions

# Each corner cell, its two neighbours and the cell between them.
CORNERS = {0: (1, 4, 5), 3: (2, 7, 6), 12: (8, 13, 9), 15: (11, 14, 10)}


def in_square(cells: list[int], top: int = 16384) -> bool:
    """Whether top sits in a corner with top/2 and top/4 beside it and top/8 between them."""
    return any(cells[corner] == top and {cells[a], cells[b]} == {top // 2, top // 4} and cells[between] == top // 8
               for corner, (a, b, between) in CORNERS.items())


def recorded_boards(path: Path) -> Iterator[list[int]]:
    """Each board of a recorded game before its moves, its rules checked as it goes."""
    with path.open(encoding="utf-8") as lines:
        for position in positions(lines):
            yield list(position.cells)


def route(boards: Iterator[list[int]]) -> tuple[bool, bool, bool]:
    """(reached 16384, met the square while 16384 was the top tile, reached 32768)."""
    at_16384 = met = False
    for cells in boards:
        top = max(cells)
        if top >= 32768:
            return True, met, True
        if top == 16384:
            at_16384 = True
            met = met or in_square(cells)
    return at_16384, met, False


def report(paths: list[Path]) -> str:
    counts = {(met, reached): 0 for met in (True, False) for reached in (True, False)}
    games = 0
    for path in paths:
        at_16384, met, reached = route(recorded_boards(path))
        if at_16384:
            games += 1
            counts[met, reached] += 1
    return (f"{games} games at 16384: met the square {counts[True, True] + counts[True, False]} "
            f"(32768 in {counts[True, True]}), did not {counts[False, True] + counts[False, False]} "
            f"(32768 in {counts[False, True]})")


def main(argv: list[str]) -> None:
    if not argv:
        sys.exit(__doc__)
    print(report([Path(name) for name in argv]))


if __name__ == "__main__":
    main(sys.argv[1:])
