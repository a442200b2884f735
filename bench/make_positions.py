"""Regenerates solver/data/positions.txt, the fixed positions of ``solve2048 bench``.

Plays seeded games at depth 3 and keeps boards from the early, middle and late
game. Run once; the file is committed so that the node count it yields is a
signature of the search. Usage: python bench/make_positions.py > solver/data/positions.txt

The games it plays follow the engine: since the committed file was made, the
search has changed, so running this now prints a *new* set, not that file.
Replacing the file changes the bench signature; keep it unless a new signature
is the point.
"""

from __future__ import annotations

import numpy as np

from solve2048 import Board, analyze

GAMES = 10
PER_GAME = 5  # 5 positions from each game: 50 in all


def spawn(board: Board, rng: np.random.Generator) -> Board:
    empty = [i for i, v in enumerate(board.cells) if v == 0]
    cell = empty[int(rng.integers(len(empty)))]
    return board.with_tile(cell, 4 if rng.random() < 0.1 else 2)


def play(seed: int) -> list[Board]:
    rng = np.random.default_rng(seed)
    board = spawn(spawn(Board(), rng), rng)
    history = [board]
    while True:
        best = analyze(board, depth=3).best
        if best is None:
            return history
        board = spawn(board.move(best)[0], rng)
        history.append(board)


def picks(seed: int) -> list[Board]:
    """The PER_GAME boards kept from the game of ``seed``: evenly spaced through
    it, from move 20 to a few moves before the end."""
    history = play(seed)
    return [history[index] for index in np.linspace(20, len(history) - 5, PER_GAME).astype(int)]


def main() -> None:
    print("# Fixed positions for `solve2048 bench`: seeded depth-3 games, early to late.")
    print("# One board a line, rows split by ' / '. Regenerate with bench/make_positions.py.")
    for seed in range(GAMES):
        for board in picks(seed):
            print(board.notation())


if __name__ == "__main__":
    main()
