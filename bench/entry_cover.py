"""Which moves of real games a bigger entry table would play: the question to
answer before building the tables AI's big table (the entry block of goal 512,
43.5 GB dense) or a smaller one of its kind.

Plays seeded games with the installed tables and, before each move, asks of
the board: does a table cover it now, and which entry formations of larger
goals (with their caps, below) would hold it, in any of the 8 orientations?
A board such a table would hold but no installed table covers is one it would
newly cover; a board it would hold that a table covers now is one where it
would play a longer plan than the installed table does.

Usage: python bench/entry_cover.py FIRST LAST [DEPTH] > cover.jsonl
(one JSON line per seed; the installed tables of the user's cache are used.)
"""

from __future__ import annotations

import json
import sys

from solve2048 import SearchSettings
from solve2048.board import Board
from solve2048.reference_tables import symmetry
from solve2048.selfplay import Game
from solve2048.tables import load

# name: (goal rank on (1,2), cap of (0,3), (1,3) and row 2, cap of row 3),
# the entry block's caps as docs/endgame-tables.md gives them for a goal g
# (g, g-1, g-2), and two smaller variants of goal 512.
FORMATIONS = {
    "goal256": (8, 7, 6),
    "goal512": (9, 8, 7),
    "goal512-row3-64": (9, 8, 6),
    "goal512-row2-128": (9, 7, 6),
    "goal512-row3-32": (9, 8, 5),
    "goal512-row3-16": (9, 8, 4),
}
BESIDE = [(0, 3), (1, 3), (2, 0), (2, 1), (2, 2), (2, 3)]


def orientations(board: Board) -> list[list[list[int]]]:
    """The board's ranks, row by row, under the 8 symmetries of the look-up."""
    grids = []
    for s in range(8):
        ranks = symmetry(list(board.exponents), s)
        grids.append([ranks[4 * r:4 * r + 4] for r in range(4)])
    return grids


def holds(g: list[list[int]], goal: int, beside: int, bottom: int) -> bool:
    """The entry formation's cover conditions (docs/endgame-tables.md) for a
    table of this goal and caps, on the top-left-oriented grid g; the board's
    own goal must be at least the table's."""
    a, b, c, d, e = g[0][0], g[0][1], g[0][2], g[1][0], g[1][1]
    if 0 in (a, b, c, d, e) or d <= e or e == c:   # full, row 1 falling, (1,1) unlike (0,2)
        return False
    if any(x == y for x, y in ((a, b), (b, c), (a, d), (b, e))):   # no two frozen neighbours equal
        return False
    return (min(e, c) - 1 >= goal and g[1][2] <= goal and all(g[r][k] <= beside for r, k in BESIDE)
            and max(g[3]) <= bottom)


def count_game(seed: int, settings: SearchSettings) -> dict[str, object]:
    tables = settings.tables
    assert tables is not None
    game = Game(seed, settings)
    counts: dict[str, int] = {"moves": 0, "covered": 0}
    covered_by: dict[str, int] = {}
    board = game.board
    while not game.over:
        for step in game.advance():
            answer = tables.probe(board)
            counts["moves"] += 1
            counts["covered"] += answer is not None
            grids = orientations(board)
            for name, caps in FORMATIONS.items():
                if any(holds(g, *caps) for g in grids):
                    counts[name] = counts.get(name, 0) + 1
                    key = f"{name} by {answer.spec.label}" if answer is not None else f"{name} newly"
                    covered_by[key] = covered_by.get(key, 0) + 1
            board = step.board
    return {"seed": seed, "score": game.score, "max_tile": max(board.cells), **counts, "by": covered_by}


def main(first: int, last: int, depth: int) -> None:
    settings = SearchSettings(depth=depth, tables=load().tables)
    for seed in range(first, last + 1):
        print(json.dumps(count_game(seed, settings)), flush=True)


if __name__ == "__main__":
    main(int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]) if len(sys.argv) > 3 else 5)
