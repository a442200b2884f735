"""How well the review's loss tells good play from bad, by player and threshold.

Run: .venv/bin/python bench/review_threshold.py [auto]   (docs/review.md, "The threshold")

Plays 40 games of random legal moves and the solver's games at depths 1, 2, 4
and 5 (no tables), reviews every move (depth 3 without tables; `auto`: as
`solve2048 review` runs by default, depth auto with the installed tables), and
prints for three definitions of the loss the share of moves above each
threshold, the best separation (Youden's J: the share of random moves flagged
less the share of depth-5 moves flagged), and each player's accuracy at 5%."""

import random
import statistics
import sys

from solve2048 import Board
from solve2048.decide import decide
from solve2048.review import STAKE_FLOOR, move_loss
from solve2048.rng import Rng
from solve2048.selfplay import CHUNK, Game
from solve2048.settings import SearchSettings
from solve2048.tables import load

REVIEWER = SearchSettings(tables=load().tables) if sys.argv[1:] == ["auto"] else SearchSettings(depth=3)


def solver_game(seed, depth):
    game, boards = Game(seed, depth=depth), []
    board = game.board
    while not game.over:
        for step in game.advance(CHUNK):
            boards.append((board, step.move))
            board = step.board
    return boards


def random_game(seed):
    pick, rng, board, boards = random.Random(seed), Rng(seed), Board(), []
    for _ in range(2):
        cell, value = rng.spawn(list(board.cells))
        board = board.with_tile(cell, value)
    while not board.is_game_over():
        move = pick.choice(board.legal_moves())
        boards.append((board, move))
        after, _ = board.move(move)
        cell, value = rng.spawn(list(after.cells))
        board = after.with_tile(cell, value)
    return boards


def ratio(values, played, best):      # the plain ratio: the shortfall over the best value
    if played == best or values[played] is None or values[best] <= 0:
        return 0.0
    return max(0.0, values[best] - values[played]) / values[best]


def spread(values, played, best):     # the spread alone, no floor
    legal = [v for v in values.values() if v is not None]
    gap = max(legal) - min(legal)
    if played == best or values[played] is None or gap <= 0:
        return 0.0
    return min(1.0, (values[best] - values[played]) / gap)


players = {"random": [random_game(s) for s in range(100, 140)],
           "depth 1": [solver_game(s, 1) for s in range(100, 120)],
           "depth 2": [solver_game(s, 2) for s in range(100, 110)],
           "depth 4": [solver_game(s, 4) for s in range(100, 110)],
           "depth 5": [solver_game(s, 5) for s in range(100, 110)]}
verdicts = {p: [[(decide(b, REVIEWER), m) for b, m in g] for g in games] for p, games in players.items()}
for name, loss in (("played/best ratio", ratio), ("spread alone", spread),
                   (f"solve2048.review (spread, floor {STAKE_FLOOR:g})", move_loss)):
    per_game = {p: [[loss(d.analysis.values, m, d.move) for d, m in g] for g in gs] for p, gs in verdicts.items()}
    flat = {p: [x for g in gs for x in g] for p, gs in per_game.items()}

    def share(p, t, flat=flat):
        return sum(x > t for x in flat[p]) / len(flat[p])

    best_j, best_t = max((share("random", t) - share("depth 5", t), t) for t in [i / 1000 for i in range(1000)])
    j_at_5 = share("random", .05) - share("depth 5", .05)
    print(f"\n{name}: best J {best_j:.3f} at {best_t:.3f}; J at 0.05 {j_at_5:.3f}")
    print("threshold " + " ".join(f"{p:>8}" for p in players))
    for t in (0.0, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5):
        print(f"{t:9.2f} " + " ".join(f"{share(p, t):8.1%}" for p in players))
    if loss is move_loss:
        for p, gs in per_game.items():
            acc = [1 - sum(x > 0.05 for x in g) / len(g) for g in gs]
            print(f"accuracy at 5%, {p}: {len(gs)} games, {sum(map(len, gs)):,} moves, "
                  f"median {statistics.median(acc):.1%} (min {min(acc):.1%}, max {max(acc):.1%})")
