"""The correctness oracle: the rules of 2048 in plain Python, straight from RULES.md.

Boards here are plain lists of 16 tile values, row-major, 0 for an empty cell.
No tables and no bit tricks: slow, and meant to be checked by eye. The C engine
must agree with it on every board where the 4-bit cell can hold the result.
"""

from __future__ import annotations

from collections.abc import Sequence

from solve2048.errors import InvalidArgumentError

DIRECTIONS = ("up", "down", "left", "right")


def _line_indices(direction: str) -> list[list[int]]:
    """The four lines a move acts on, each listed from the edge tiles slide toward."""
    if direction == "left":
        return [[4 * r + c for c in range(4)] for r in range(4)]
    if direction == "right":
        return [[4 * r + c for c in (3, 2, 1, 0)] for r in range(4)]
    if direction == "up":
        return [[4 * r + c for r in range(4)] for c in range(4)]
    if direction == "down":
        return [[4 * r + c for r in (3, 2, 1, 0)] for c in range(4)]
    raise InvalidArgumentError(f"expected one of {', '.join(DIRECTIONS)}, got {direction!r}")


def slide_line(line: Sequence[int]) -> tuple[list[int], int]:
    """Slides one line toward its index 0: compact, then merge equal neighbours
    scanning from index 0, each tile at most once. Returns (line, points)."""
    tiles = [v for v in line if v != 0]
    merged: list[int] = []
    gain = 0
    i = 0
    while i < len(tiles):
        if i + 1 < len(tiles) and tiles[i] == tiles[i + 1]:
            merged.append(2 * tiles[i])
            gain += 2 * tiles[i]
            i += 2  # both tiles are used up: a merged tile never merges again
        else:
            merged.append(tiles[i])
            i += 1
    return merged + [0] * (len(line) - len(merged)), gain


def move(cells: Sequence[int], direction: str) -> tuple[list[int], int]:
    """Returns the 16 cells after sliding in ``direction`` (no spawn) and the points gained.

    An invalid move returns the same cells and 0.
    """
    if len(cells) != 16:
        raise InvalidArgumentError(f"expected 16 cells, got {len(cells)}")
    out = list(cells)
    gain = 0
    for indices in _line_indices(direction):
        line, points = slide_line([cells[i] for i in indices])
        for i, value in zip(indices, line, strict=True):
            out[i] = value
        gain += points
    return out, gain


def is_legal(cells: Sequence[int], direction: str) -> bool:
    """A move is valid exactly when it changes the board."""
    return move(cells, direction)[0] != list(cells)


def legal_moves(cells: Sequence[int]) -> list[str]:
    return [d for d in DIRECTIONS if is_legal(cells, d)]


def is_game_over(cells: Sequence[int]) -> bool:
    """Game over: every cell full and no two adjacent cells equal."""
    if any(v == 0 for v in cells):
        return False
    for r in range(4):
        for c in range(4):
            v = cells[4 * r + c]
            if c < 3 and cells[4 * r + c + 1] == v:
                return False
            if r < 3 and cells[4 * (r + 1) + c] == v:
                return False
    return True
