"""Text rendering of boards and numbers for the terminal (no logic here)."""

from __future__ import annotations

import click

from solve2048 import Board

# Background colours of the original game, as 256-colour terminal codes.
TILE_COLOURS = {
    0: 250, 2: 255, 4: 230, 8: 216, 16: 209, 32: 203, 64: 196,
    128: 229, 256: 228, 512: 227, 1024: 226, 2048: 220,
}
BIG_TILE_COLOUR = 236


def board_text(board: Board, colour: bool = False) -> str:
    """The board as an aligned grid; with colour, each tile on its game colour."""
    width = max(5, max(len(str(v)) for v in board.cells) + 2)
    lines = []
    for row in board.rows:
        cells = []
        for value in row:
            text = (str(value) if value else ".").center(width)
            if colour:
                bg = TILE_COLOURS.get(value, BIG_TILE_COLOUR)
                fg = 255 if value > 4 and value not in (128, 256, 512, 1024, 2048) or value > 2048 else 238
                text = click.style(text, fg=fg, bg=bg, bold=value > 0)
            cells.append(text)
        lines.append(("" if colour else " ").join(cells).rstrip() if not colour else "".join(cells))
    return "\n".join(lines)


def number(value: float, digits: int = 1) -> str:
    return f"{value:,.{digits}f}"


def duration(seconds: float) -> str:
    if seconds < 1e-3:
        return f"{seconds * 1e6:.0f} µs"
    if seconds < 1:
        return f"{seconds * 1e3:.2f} ms"
    return f"{seconds:.2f} s"
