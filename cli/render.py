"""Text rendering of boards and numbers for the terminal (no logic here)."""

from __future__ import annotations

from collections.abc import Sequence

import click

from solve2048 import Board
from solve2048.board import grid_text
from solve2048.tables import PROBABILITY_STEP

# Background colours of the original game, as 256-colour terminal codes.
TILE_COLOURS = {
    0: 250, 2: 255, 4: 230, 8: 216, 16: 209, 32: 203, 64: 196,
    128: 229, 256: 228, 512: 227, 1024: 226, 2048: 220,
}
BIG_TILE_COLOUR = 236


def cells_text(cells: Sequence[int], colour: bool = False) -> str:
    """16 tile values as an aligned grid; with colour, each tile on its game colour."""
    if not colour:
        return grid_text(cells)
    width = max(6, max(len(str(v)) for v in cells) + 2)
    lines = []
    for r in range(4):
        row = []
        for value in cells[r * 4 : r * 4 + 4]:
            bg = TILE_COLOURS.get(value, BIG_TILE_COLOUR)
            dark_text = value in (2, 4) or 128 <= value <= 2048
            text = (str(value) if value else "·").center(width)
            row.append(click.style(text, fg=238 if dark_text else 255, bg=bg, bold=value > 0))
        lines.append("".join(row))
    return "\n".join(lines)


def board_text(board: Board, colour: bool = False) -> str:
    return cells_text(board.cells, colour)


def number(value: float, digits: int = 1) -> str:
    return f"{value:,.{digits}f}"


def table_odds(probability: float, digits: int = 1) -> str:
    """A table's success probability as the range its stored entry stands for,
    "90.0-91.7%" for 0.9: entries are rounded down to a step of 1/60, and the
    first step also holds everything below it; 1 is exact."""
    if probability >= 1:
        return "100%"
    low = 0.0 if probability <= PROBABILITY_STEP * 1.5 else probability
    high = min(probability + PROBABILITY_STEP, 1.0)
    return f"{100 * low:.{digits}f}-{100 * high:.{digits}f}%"


def duration(seconds: float) -> str:
    if seconds < 1e-3:
        return f"{seconds * 1e6:.0f} µs"
    if seconds < 1:
        return f"{seconds * 1e3:.2f} ms"
    return f"{seconds:.2f} s"


def extras_text(danger: int | str | None, quiescence: int | str | None, late_quiescence: int | str | None) -> str:
    """What follows "depth N" where a search went deeper in danger or looked
    past crowded leaves (given, or the depth's default look): ", danger C",
    ", quiescence C", ", late quiescence C", those set, or nothing (C a
    count, or counts as "2/3")."""
    named = (("danger", danger), ("quiescence", quiescence), ("late quiescence", late_quiescence))
    return "".join(f", {name} {cells}" for name, cells in named if cells is not None)
