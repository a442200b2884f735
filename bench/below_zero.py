"""How often the search beside the tables meets boards it scores at or below 0.

The tables' heuristic (Weights.for_tables) is the chain term plus 16,384 a
line; a big tile away from the top-left corner costs more than that, and a
max node starts from 0 (a lost board's value), so such a board counts as lost
inside the search. Plays seeded games with the installed tables and, on every
move the search decides, counts the root searches whose every legal
direction reads 0 or less (the move was then the first legal one, before
2026-12-03's lost value), those where at least one does, and the boards the
tables' heuristic reads below 0 as they stand (the roots the search reads in
another corner since then).

Usage: python bench/below_zero.py DEPTH SEED [SEED ...]
(one line per seed on stderr, the totals on stdout; the installed tables of
the user's cache are used.)
"""

from __future__ import annotations

import sys

from solve2048 import SearchSettings, Weights, decide, load_tables
from solve2048.engine import evaluator
from solve2048.selfplay import Game


def main(depth: int, seeds: list[int]) -> None:
    settings = SearchSettings(depth=depth, tables=load_tables().tables)
    reads = evaluator(Weights.for_tables()).board
    moves = searched = all_below = some_below = roots_below = 0
    for seed in seeds:
        game = Game(seed, settings)
        while not game.over:
            decision = decide(game.board, settings, values=False)
            moves += 1
            roots_below += not game.board.wide and reads(int(game.board)) < 0
            if decision.source == "search" and decision.analysis is not None:
                searched += 1
                values = [v for v in decision.analysis.values.values() if v is not None]
                if values and max(values) <= 0.0:
                    all_below += 1
                elif values and min(values) <= 0.0:
                    some_below += 1
            game.advance(1)
        print(f"seed {seed}: score {game.score}, {game.moves} moves", file=sys.stderr)
    print(f"moves {moves}, searched {searched}, every direction <= 0: {all_below} "
          f"({all_below / max(searched, 1):.2%}), some direction <= 0: {some_below} "
          f"({some_below / max(searched, 1):.2%}); boards that read below 0: {roots_below} "
          f"({roots_below / max(moves, 1):.3%})")


if __name__ == "__main__":
    main(int(sys.argv[1]), [int(s) for s in sys.argv[2:]])
