"""The endgame tables solved from the rules in plain Python: the oracle of csrc/tables_build.c.

Slow and obviously right, for tiny formations (a few free cells). It plays on
real boards with ``solve2048.reference``: the frozen cells hold a real chain
of distinct tiles falling to the anchor's tile 2**goal, and a move is allowed
when it changes the board and leaves every frozen cell as it was. An entry is
the best allowed move (first of equals, in up/down/left/right order) and its
probability of putting 2**goal on a target cell (for a chain block: of a
ready chain; for an entry block: of the goal tile with a ready pair beside
it; with every free tile within its cap), rounded to 14-bit fixed
point the way the C builder rounds it, and with the same order of additions,
so the two agree entry for entry. Tables too big for that are checked one
entry at a time against their own successors (``backup``).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from math import prod

from solve2048 import reference

PATH = (0, 1, 2, 3, 7, 6, 5, 4, 8, 9, 10, 11, 15, 14, 13, 12)
PROB_ONE = 16383
STORED_ONE = 60


def entry_probability(entry: int) -> float:
    return (entry >> 2) / PROB_ONE


def stored(entry: int) -> int:
    """The byte a table file stores for a built entry: the same move, the
    probability rounded down to a step of 1/60, and never from above 0 down to
    0 (csrc/formations.h, eg_store)."""
    q = entry >> 2
    steps = q * STORED_ONE // PROB_ONE
    if q and not steps:
        steps = 1
    return steps << 2 | entry & 3


def stored_probability(entry: int) -> float:
    return (entry >> 2) / STORED_ONE


CHAIN = 2
ENTRY = 3
ENTRY_GOAL_CELL = 6   # (1,2): the block's cell that an entry table fills


def symmetry(cells: list[int], s: int) -> list[int]:
    """The board under symmetry s as csrc/tables_probe.c numbers them: bit 0
    mirrors left-right, bit 1 flips top-bottom, bit 2 then transposes."""
    grid = [cells[4 * r:4 * r + 4] for r in range(4)]
    if s & 1:
        grid = [row[::-1] for row in grid]
    if s & 2:
        grid = grid[::-1]
    if s & 4:
        grid = [list(col) for col in zip(*grid, strict=True)]
    return [v for row in grid for v in row]


def cell_order(shape: int, frozen: int) -> tuple[list[int], list[int], list[int]]:
    """The frozen cells (anchor last), the free cells and the target cells of a formation."""
    if shape == 0:
        return list(PATH[:frozen]), list(PATH[frozen:]), [PATH[frozen]]
    rows = (frozen + 1) // 3   # the block: 3 columns, `rows` rows, top left
    block = [c for c in range(16) if c % 4 < 3 and c // 4 < rows
             and not (shape == ENTRY and c == ENTRY_GOAL_CELL)]
    anchor = block[-1]
    targets = [] if shape in (CHAIN, ENTRY) else [anchor + 1, anchor + 4]
    return block, [c for c in range(16) if c not in block], targets


def frozen_tiles(frozen: int, goal: int, shape: int = 0) -> dict[int, int]:
    """Real tiles for the frozen cells: distinct, falling along the cell order
    to the anchor's tile 2**goal (a snake, or the block's rows); an entry
    block's lowest frozen tile is one above its goal, as the goal tile must
    not merge into it."""
    top = goal + frozen - 1 + (shape == ENTRY)
    return {cell: 1 << (top - i) for i, cell in enumerate(cell_order(shape, frozen)[0])}


# How far below the anchor each free cell of the chain formation is capped:
# 1 beside the block's ends, 2 one step further, 3 elsewhere.
CHAIN_CAP_DEPTHS = {3: 1, 8: 1, 7: 2, 9: 2}


def chain_caps(anchor: int) -> dict[int, int]:
    """The highest rank each free cell of the chain formation may hold, in
    free-cell order (the order of the table's digits)."""
    return {cell: anchor - CHAIN_CAP_DEPTHS.get(cell, 3) for cell in cell_order(CHAIN, 6)[1]}


def chain_ready(cells: list[int], anchor: int) -> bool:
    """Whether the free cells hold a ready chain below a block of anchor rank
    (csrc/formations.h): ranks a-1, a-2, a-3 leading away from the block, and a
    second a-3 beside the last."""
    def is_(row: int, col: int, rank: int) -> bool:
        return cells[4 * row + col] == 1 << rank

    a1, a2, a3 = anchor - 1, anchor - 2, anchor - 3
    along_row = is_(2, 0, a1) and is_(2, 1, a2) and (
        (is_(2, 2, a3) and (is_(3, 2, a3) or is_(2, 3, a3)))
        or (is_(3, 1, a3) and (is_(3, 0, a3) or is_(3, 2, a3))))
    down_column = (is_(0, 3, a1) and is_(1, 3, a2) and is_(2, 3, a3)
                   and (is_(2, 2, a3) or is_(3, 3, a3)))
    return along_row or down_column


def entry_ready(cells: list[int], goal: int) -> bool:
    """Whether an entry block's free cells hold the goal tile on (1,2) and
    beside it a ready pair of 2**(goal-1) (csrc/formations.h)."""
    def is_(row: int, col: int, rank: int) -> bool:
        return cells[4 * row + col] == 1 << rank

    h = goal - 1
    return is_(1, 2, goal) and (
        (is_(1, 3, h) and (is_(0, 3, h) or is_(2, 3, h)))
        or (is_(0, 3, h) and is_(1, 3, h - 1) and is_(2, 3, h - 1))
        or (is_(2, 2, h) and (is_(2, 1, h) or is_(3, 2, h) or is_(2, 3, h))))


# From goal 512 on, the entry formation's bottom row is capped at 32, not
# two below the goal (csrc/formations.h, EG_ENTRY_LOW_BOTTOM).
ENTRY_LOW_BOTTOM = 9
ENTRY_BOTTOM_CAP = 5


def entry_caps(goal: int) -> dict[int, int]:
    """The highest rank each free cell of the entry formation may hold, in
    free-cell order: the goal on (1,2), one below it elsewhere, two below on
    the bottom row (32 from goal 512 on)."""
    bottom = ENTRY_BOTTOM_CAP if goal >= ENTRY_LOW_BOTTOM else goal - 2
    return {cell: goal if cell == ENTRY_GOAL_CELL else bottom if cell >= 12 else goal - 1
            for cell in cell_order(ENTRY, 5)[1]}


def free_caps(frozen: int, goal: int, shape: int = 0) -> dict[int, int]:
    """The highest rank each free cell of a formation may hold, in free-cell order."""
    if shape == CHAIN:
        return chain_caps(goal)
    if shape == ENTRY:
        return entry_caps(goal)
    return {cell: goal - 1 for cell in cell_order(shape, frozen)[1]}


def index_of(frozen: int, goal: int, shape: int, cells: list[int]) -> int:
    """The table index of a board's free cells (tiles within their caps)."""
    index, weight = 0, 1
    for cell, cap in free_caps(frozen, goal, shape).items():
        index += (cells[cell].bit_length() - 1 if cells[cell] else 0) * weight
        weight *= cap + 1
    return index


def solve(frozen: int, goal: int, shape: int = 0) -> list[int]:
    """Every entry of table (frozen, goal, shape), indexed as the C table is:
    free cell j is digit j, in base goal (in base cap + 1 for a chain)."""
    radix = [cap + 1 for cap in free_caps(frozen, goal, shape).values()]
    entry = _solver(frozen, goal, shape)
    entries = []
    for index in range(prod(radix)):
        free, rest = [], index
        for base in radix:
            rank, rest = rest % base, rest // base
            free.append(1 << rank if rank else 0)
        entries.append(entry(tuple(free)))
    return entries


def backup(frozen: int, goal: int, shape: int, cells: list[int],
           known: Callable[[list[int]], int]) -> int:
    """The entry of one board (in the formation, free tiles within their caps)
    computed from the rules in one step, reading the entries of the boards
    after each spawn from ``known``: for tables too big to solve whole in
    Python, where every entry must agree with its successors in the C table."""
    return _solver(frozen, goal, shape, known)(tuple(cells[c] for c in cell_order(shape, frozen)[1]))


def _solver(frozen: int, goal: int, shape: int,
            known: Callable[[list[int]], int] | None = None) -> Callable[[tuple[int, ...]], int]:
    """The entry of an arrangement of free tiles (a tuple, in free-cell order),
    memoised; the entries after a spawn are solved the same way, or read from
    ``known`` (given the whole board)."""
    frozen_cells, free_cells, targets = cell_order(shape, frozen)
    goal_tile = 1 << goal
    caps = free_caps(frozen, goal, shape)
    fixed = frozen_tiles(frozen, goal, shape)
    ready = {CHAIN: chain_ready, ENTRY: entry_ready}.get(shape)

    def board(free: tuple[int, ...]) -> list[int]:
        cells = [0] * 16
        for cell, tile in fixed.items():
            cells[cell] = tile
        for cell, tile in zip(free_cells, free, strict=True):
            cells[cell] = tile
        return cells

    def within_caps(free: tuple[int, ...]) -> bool:
        return all(tile <= 1 << caps[cell] for cell, tile in zip(free_cells, free, strict=True))

    @cache
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

    def spawned(free: tuple[int, ...], j: int, tile: int) -> float:
        """The probability after `tile` spawns on free cell j; 0 over its cap."""
        after = free[:j] + (tile,) + free[j + 1:]
        if not within_caps(after):
            return 0.0
        return entry_probability(known(board(after)) if known else entry(after))

    def after_move(moved: list[int]) -> float:
        if any(moved[t] == goal_tile for t in targets):
            return 1.0
        free = tuple(moved[c] for c in free_cells)
        if not within_caps(free):
            return 0.0
        if ready and ready(moved, goal):
            return 1.0
        total, empty = 0.0, 0
        for j, tile in enumerate(free):
            if tile:
                continue
            total += 0.9 * spawned(free, j, 2) + 0.1 * spawned(free, j, 4)
            empty += 1
        return total / empty

    return entry
