"""How long the chain table of anchor 512 covers a game, and at what probability.

Plays seeded games with the installed tables and logs each stretch of moves
whose board `chain-10:512` covered: an episode starts where no such move came
in the GAP moves before. Prints one JSON line a game (seed, largest tile,
moves, episodes as [first move, its p, last move, its p, largest tile then]),
then on stderr the episodes that end within END moves of the game's end,
against all the others: where they start and where they end.

Usage: python bench/chain_episodes.py DEPTH FIRST_SEED GAMES > FILE.jsonl
"""

from __future__ import annotations

import json
import statistics
import sys

from solve2048 import SearchSettings, load_tables
from solve2048.selfplay import Game

GAP = 20
END = 30
LABEL = "chain-10:512"


def episodes(seed: int, settings: SearchSettings) -> tuple[Game, list[list[float]]]:
    """The finished game and its episodes."""
    game = Game(seed, settings)
    found: list[list[float]] = []
    while not game.over:
        game.advance(1, steps=False)
        probe = game.last_probe if game.last_covered == game.moves else None
        if probe is None or probe.spec.label != LABEL:
            continue
        if found and game.moves - found[-1][2] <= GAP:
            found[-1][2:4] = [game.moves, probe.probability]
        else:
            found.append([game.moves, probe.probability, game.moves, probe.probability, max(game.board.cells)])
    return game, found


def describe(ps: list[float]) -> str:
    return f"{len(ps)} episodes, mean p {statistics.mean(ps):.3f}, median {statistics.median(ps):.3f}" if ps else "none"


def main(depth: int, first: int, count: int) -> None:
    settings = SearchSettings(depth=depth, tables=load_tables().tables)
    last_start: list[float] = []
    last_end: list[float] = []
    other_start: list[float] = []
    for seed in range(first, first + count):
        game, found = episodes(seed, settings)
        print(json.dumps({"seed": seed, "max": max(game.board.cells), "moves": game.moves, "episodes": found}),
              flush=True)
        for i, (_, p_start, end, p_end, _) in enumerate(found):
            if i == len(found) - 1 and game.moves - end <= END:
                last_start.append(p_start)
                last_end.append(p_end)
            else:
                other_start.append(p_start)
    print(f"ending the game: start {describe(last_start)}; end {describe(last_end)}", file=sys.stderr)
    print(f"the others: start {describe(other_start)}", file=sys.stderr)


if __name__ == "__main__":
    main(int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]))
