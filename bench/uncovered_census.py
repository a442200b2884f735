"""Why the boards no table covers are not covered, near the end of lost games.

Plays seeded games with the installed tables and, for every board no table
covered, names the first condition of the chain formation it fails, in the
orientation where it gets furthest (`reason`): its largest tile out of the
corner, a hole in the 3x2 block, two equal neighbours in it, (0,2) not above
(0,3), an anchor above 1024, free tiles over the anchor's caps (which cells),
or a ready chain (left to the search). Boards holding 8192 or more are
counted twice: over every game, and over the last LAST moves of the games
lost before 32768. A reason much more frequent in the second count than in
the first is one the losing stretches have in common.

Usage: python bench/uncovered_census.py DEPTH FIRST COUNT [LAST] > census.md
(the installed tables of the user's cache are used; one game at a time).
"""

from __future__ import annotations

import sys
from collections import Counter

from solve2048 import SearchSettings
from solve2048.reference_tables import chain_caps, chain_ready, symmetry
from solve2048.selfplay import Game
from solve2048.tables import load

BLOCK = [(0, 0), (0, 1), (0, 2), (1, 0), (1, 1), (1, 2)]
NEIGHBOURS = [((0, 0), (0, 1)), ((0, 1), (0, 2)), ((1, 0), (1, 1)), ((1, 1), (1, 2)),
              ((0, 0), (1, 0)), ((0, 1), (1, 1)), ((0, 2), (1, 2))]
MAX_ANCHOR = 10      # chain-10:1024, the largest chain table of the default set
LATE_RANK = 13       # boards holding 8192 or more
GOAL_RANK = 15       # a game lost before 32768


def reason_in(values: list[int]) -> tuple[int, str]:
    """How far the board, as it stands, gets through the chain formation's
    conditions (0 to 6), and the first it fails ("covered" when none)."""
    rank = [[v.bit_length() - 1 if v else 0 for v in values[4 * r:4 * r + 4]] for r in range(4)]
    if rank[0][0] != max(map(max, rank)):
        return 0, "largest tile out of the corner"
    if any(rank[r][c] == 0 for r, c in BLOCK):
        return 1, "a hole in the block"
    if any(rank[a][b] == rank[c][d] for (a, b), (c, d) in NEIGHBOURS):
        return 2, "two equal neighbours in the block"
    if rank[0][2] <= rank[0][3]:
        return 3, "(0,2) not above (0,3)"
    anchor = min(rank[1][:3])
    if anchor > MAX_ANCHOR:
        return 4, "anchor above 1024"
    over = [f"({cell // 4},{cell % 4})" for cell, cap in chain_caps(anchor).items()
            if rank[cell // 4][cell % 4] > cap]
    if len(over) > 3:
        return 5, "over the caps on 4 cells or more"
    if over:
        return 5, f"over the caps on {' '.join(over)} (anchor {1 << anchor})"
    if chain_ready(values, anchor):
        return 6, "a ready chain"
    return 7, "covered"


def reason(values: tuple[int, ...]) -> str:
    """The reason of the orientation that gets furthest; among equals the
    shortest (fewest cells over the caps), so that every image of a board
    gets the same reason."""
    found = [reason_in(symmetry(list(values), s)) for s in range(8)]
    return min(found, key=lambda level_why: (-level_why[0], len(level_why[1]), level_why[1]))[1]


def census(seed: int, settings: SearchSettings) -> tuple[Game, list[tuple[int, str]]]:
    """The finished game, and (move, reason) for each late board no table covered."""
    game = Game(seed, settings)
    found = []
    while not game.over:
        board = game.board
        game.advance(1, steps=False)
        if game.last_covered != game.moves and max(board.exponents) >= LATE_RANK:
            found.append((game.moves, reason(board.cells)))
    return game, found


def main(depth: int, first: int, count: int, last: int) -> None:
    settings = SearchSettings(depth=depth, tables=load().tables)
    every: Counter[str] = Counter()
    late: Counter[str] = Counter()
    lost = 0
    for seed in range(first, first + count):
        game, found = census(seed, settings)
        every.update(why for _, why in found)
        if max(game.board.exponents) < GOAL_RANK:
            lost += 1
            late.update(why for move, why in found if game.moves - move < last)
        print(f"seed {seed}: {game.moves} moves, {len(found)} late boards uncovered", file=sys.stderr)
    print(f"{count} games at depth {depth} (seeds {first}-{first + count - 1}), {lost} lost before 32768\n")
    print(f"| why not covered | last {last} moves of the lost games | every game |")
    print("|---|---|---|")
    for why, n in late.most_common(20):
        print(f"| {why} | {n:,} ({n / sum(late.values()):.1%}) | {every[why] / sum(every.values()):.1%} |")


if __name__ == "__main__":
    main(int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]) if len(sys.argv) > 4 else 150)
