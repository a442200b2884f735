"""The correctness oracle: the rules of 2048 in plain Python, straight from RULES.md.

Boards here are plain lists of 16 tile values, row-major, 0 for an empty cell.
No tables and no bit tricks: slow, and meant to be checked by eye. The C engine
must agree with it on every board where the 4-bit cell can hold the result.
"""

from __future__ import annotations

from collections.abc import Sequence

from solve2048.errors import InvalidArgumentError

DIRECTIONS = ("up", "down", "left", "right")
MAX_TILE = 131072  # the largest tile 16 cells can hold (RULES.md)


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

    An invalid move returns the same cells and 0; one that would merge two
    131072s (see ``is_legal``) is refused with InvalidArgumentError.
    """
    if len(cells) != 16:
        raise InvalidArgumentError(f"expected 16 cells, got {len(cells)}")
    out, gain = _slide(cells, direction)
    if max(out) > MAX_TILE:
        raise InvalidArgumentError(
            f"moving {direction} would merge two {MAX_TILE}s: no 16-cell game holds a tile past {MAX_TILE}")
    return out, gain


def _slide(cells: Sequence[int], direction: str) -> tuple[list[int], int]:
    out = list(cells)
    gain = 0
    for indices in _line_indices(direction):
        line, points = slide_line([cells[i] for i in indices])
        for i, value in zip(indices, line, strict=True):
            out[i] = value
        gain += points
    return out, gain


def is_legal(cells: Sequence[int], direction: str) -> bool:
    """A move is valid exactly when it changes the board. Two 131072s, which
    no game holds but a given board may, do not merge: a move that would make
    262144 is not a move."""
    out, _ = _slide(cells, direction)
    return out != list(cells) and max(out) <= MAX_TILE


def legal_moves(cells: Sequence[int]) -> list[str]:
    return [d for d in DIRECTIONS if is_legal(cells, d)]


def is_game_over(cells: Sequence[int]) -> bool:
    """Game over: no valid move remains (RULES.md) on a board with a tile. On
    any board a game can reach, that is every cell full and no two neighbours
    equal. A given board with two 131072s, which do not merge (``is_legal``),
    may have no move with cells empty or with two 2s side by side. The empty
    board has no move either, but it is no lost game (docs/rules.md)."""
    return any(cells) and not legal_moves(cells)


def downgrade(cells: Sequence[int]) -> tuple[list[int], bool]:
    """The board the search plays on, as csrc/ladder.c's s2048_downgrade makes it:
    the board itself when its tiles fit a 4-bit cell and at most one is 32768;
    else the board with absent tile values taken out, nearest below the largest
    first (2 and 4, which spawns make, last), and the values above each moved
    down one step, until the largest is at most 32768, and at most 16384 when
    two tiles hold it. Returns the board and whether that was possible without
    taking out 2 or 4 (lossless)."""
    ranks = [v.bit_length() - 1 if v else 0 for v in cells]
    top = max(ranks)
    if top < 15 or (top == 15 and ranks.count(15) < 2):
        return list(cells), True
    need = top - 15 + (ranks.count(top) >= 2)
    present = set(ranks)
    removed: set[int] = set()
    for rank in [*range(top - 1, 2, -1), 2, 1]:
        if need and rank not in present:
            removed.add(rank)
            need -= 1
    lossless = not need and not removed & {1, 2}
    out = []
    for rank in ranks:
        moved = rank - sum(1 for r in removed if r < rank) if rank else 0
        out.append(1 << min(moved, 15) if moved else 0)
    return out, lossless
