"""Does the search beside the tables give a board built in another corner the
same move as the board in the top-left corner?

Plays seeded games at depth 2 with the installed tables, keeps every 25th
board the search decided, and for each of its mirror images in the three other
corners (mirrored left-right, flipped top-bottom, both) asks the search at
depth 3 with the tables' heuristic for its move. Counts how often that is the
original move, mirrored, and how often every direction of the image reads the
same (the search then names the first legal one), in all and among the images
the tables' heuristic reads below 0.

Usage: python bench/corner_hint.py SEED [SEED ...]   (totals on stdout)
"""

from __future__ import annotations

import sys

from solve2048 import Board, SearchSettings, Weights, analyze, load_tables
from solve2048.engine import evaluator
from solve2048.reference_tables import symmetry
from solve2048.selfplay import Game

EVERY = 25
# The direction on a board that a direction is on its image 1, 2 or 3 (written
# out, not imported, so that the script also runs on releases before it).
BACK = {1: {"left": "right", "right": "left"}, 2: {"up": "down", "down": "up"},
        3: {"left": "right", "right": "left", "up": "down", "down": "up"}}


def sample_boards(seeds: list[int], every: int = EVERY) -> list[Board]:
    """Every `every`-th board (none past 32768) of games at depth 2 with the
    installed tables."""
    settings = SearchSettings(depth=2, tables=load_tables().tables)
    boards: list[Board] = []
    for seed in seeds:
        game = Game(seed, settings)
        while not game.over:
            if game.moves % every == 0 and not game.board.wide:
                boards.append(game.board)
            game.advance(1)
    return boards


def main(seeds: list[int]) -> None:
    weights = Weights.for_tables()
    reads = evaluator(weights).board
    boards = sample_boards(seeds)
    images = same = flat = below = same_below = 0
    for board in boards:
        best = analyze(board, depth=3, weights=weights).best
        if best is None:
            continue
        for s in (1, 2, 3):
            mirrored = Board.from_cells(symmetry(list(board.cells), s))
            image = analyze(mirrored, depth=3, weights=weights)
            legal = [v for v in image.values.values() if v is not None]
            match = image.best is not None and BACK[s].get(str(image.best), str(image.best)) == str(best)
            images += 1
            same += match
            flat += len(set(legal)) == 1 and len(legal) > 1
            if reads(int(mirrored)) < 0:
                below += 1
                same_below += match
    print(f"boards {len(boards)}, images {images}: the mirrored move {same} ({same / images:.1%}), "
          f"every direction alike {flat} ({flat / images:.1%}); "
          f"images that read below 0: {below}, the mirrored move {same_below} ({same_below / max(below, 1):.1%})")


if __name__ == "__main__":
    main([int(s) for s in sys.argv[1:]])
