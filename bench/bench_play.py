"""Whole games per second: the C game loop at depths 1-3, moves per second on one core.

Run: pytest bench/bench_play.py --benchmark-columns=median,rounds
extra_info holds moves_per_second (moves of the seeded games / median time).
The peer to beat plays depth-2 games at about 650,000 moves/s and depth 3 at
about 37,000 on these machines.
"""

from __future__ import annotations

import pytest

from solve2048.selfplay import play_game

GAMES = {1: 200, 2: 40, 3: 20}


@pytest.mark.parametrize("depth", [1, 2, 3])
def test_play_games(benchmark, depth: int) -> None:
    seeds = range(GAMES[depth])
    moves = sum(play_game(seed, depth=depth).moves for seed in seeds)
    benchmark.pedantic(lambda: [play_game(seed, depth=depth) for seed in seeds],
                       rounds=5, iterations=1, warmup_rounds=1)
    benchmark.extra_info["moves_per_second"] = moves / benchmark.stats.stats.median
