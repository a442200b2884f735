"""The endgame tables solved from the rules in plain Python: the oracle of csrc/endgame.c.

Slow and obviously right, for tiny formations (a few free cells). It plays on
real boards with ``solve2048.reference``: the frozen cells hold a real chain
of distinct tiles falling to the anchor's tile 2**goal, and a move is allowed
when it changes the board and leaves every frozen cell as it was. An entry is
the best allowed move (first of equals, in up/down/left/right order) and its
probability of putting 2**goal on a target cell, rounded to 14-bit fixed point
the way the C builder rounds it, and with the same order of additions, so
the two agree entry for entry.
"""

from __future__ import annotations

from functools import lru_cache

from solve2048 import reference

PATH = (0, 1, 2, 3, 7, 6, 5, 4, 8, 9, 10, 11, 15, 14, 13, 12)
PROB_ONE = 16383


def entry_probability(entry: int) -> float:
    return (entry >> 2) / PROB_ONE


def cell_order(shape: int, frozen: int) -> tuple[list[int], list[int], list[int]]:
    """The frozen cells (anchor last), the free cells and the target cells of a formation."""
    if shape == 0:
        return list(PATH[:frozen]), list(PATH[frozen:]), [PATH[frozen]]
    rows = frozen // 3   # the block: 3 columns, `rows` rows, top left
    block = [c for c in range(16) if c % 4 < 3 and c // 4 < rows]
    anchor = block[-1]
    return block, [c for c in range(16) if c not in block], [anchor + 1, anchor + 4]


def solve(frozen: int, goal: int, shape: int = 0) -> list[int]:
    """Every entry of table (frozen, goal, shape), indexed as the C table is (free cell j = digit j, base goal)."""
    frozen_cells, free_cells, targets = cell_order(shape, frozen)
    goal_tile = 1 << goal
    snake = {cell: 1 << (goal + frozen - 1 - i) for i, cell in enumerate(frozen_cells)}

    def board(free: tuple[int, ...]) -> list[int]:
        cells = [0] * 16
        for cell, tile in snake.items():
            cells[cell] = tile
        for cell, tile in zip(free_cells, free):
            cells[cell] = tile
        return cells

    @lru_cache(maxsize=None)
    def entry(free: tuple[int, ...]) -> int:
        cells = board(free)
        best_dir, best = -1, 0.0
        for d, direction in enumerate(reference.DIRECTIONS):
            moved, _ = reference.move(cells, direction)
            if moved == cells or any(moved[c] != cells[c] for c in frozen_cells):
                continue
            p = after_move(moved)
            if best_dir < 0 or p > best:
                best_dir, best = d, p
        if best_dir < 0:
            return 0
        return int(best * PROB_ONE + 0.5) << 2 | best_dir

    def after_move(moved: list[int]) -> float:
        if any(moved[t] == goal_tile for t in targets):
            return 1.0
        free = tuple(moved[c] for c in free_cells)
        if max(free) >= goal_tile:
            return 0.0
        total, empty = 0.0, 0
        for j, tile in enumerate(free):
            if tile:
                continue
            p2 = entry_probability(entry(free[:j] + (2,) + free[j + 1:]))
            p4 = entry_probability(entry(free[:j] + (4,) + free[j + 1:]))
            total += 0.9 * p2 + 0.1 * p4
            empty += 1
        return total / empty

    entries = []
    for index in range(goal ** len(free_cells)):
        free, rest = [], index
        for _ in free_cells:
            rank, rest = rest % goal, rest // goal
            free.append(1 << rank if rank else 0)
        entries.append(entry(tuple(free)))
    return entries
