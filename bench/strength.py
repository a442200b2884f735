"""Strength of the solver: plays seeded games at one depth and prints the figures the
field publishes (mean score, reach rates). A stand-in until ``solve2048 batch`` exists.

Usage: python bench/strength.py DEPTH GAMES [FIRST_SEED] [JOBS] [--reuse-deeper]
Game i uses seed FIRST_SEED + i, so any game can be replayed with
``solve2048 play --seed``. One JSON line per game goes to stdout as it ends;
the summary goes to stderr.
"""

from __future__ import annotations

import json
import statistics
import sys
import time
from multiprocessing import Pool

from solve2048.engine import Searcher
from solve2048.game import play_game

TILES = [2048, 4096, 8192, 16384, 32768, 65536]


_searcher: Searcher | None = None


def one(args: tuple[int, int, bool]) -> dict:
    global _searcher
    seed, depth, reuse_deeper = args
    if _searcher is None:
        _searcher = Searcher(reuse_deeper=reuse_deeper)
    r = play_game(seed, depth, searcher=_searcher)
    return {"seed": seed, "score": r.score, "max_tile": r.max_tile, "moves": r.moves,
            "seconds": r.seconds}


def main() -> None:
    reuse_deeper = "--reuse-deeper" in sys.argv
    sys.argv = [a for a in sys.argv if a != "--reuse-deeper"]
    depth = int(sys.argv[1])
    games = int(sys.argv[2])
    first = int(sys.argv[3]) if len(sys.argv) > 3 else 0
    jobs = int(sys.argv[4]) if len(sys.argv) > 4 else 2
    start = time.perf_counter()
    results = []
    with Pool(jobs) as pool:
        for row in pool.imap_unordered(one, [(first + i, depth, reuse_deeper) for i in range(games)]):
            results.append(row)
            print(json.dumps(row), flush=True)
    wall = time.perf_counter() - start
    scores = [r["score"] for r in results]
    moves = sum(r["moves"] for r in results)
    cpu = sum(r["seconds"] for r in results)
    print(f"depth {depth}{' reuse-deeper' if reuse_deeper else ''}: {games} games, mean score {statistics.mean(scores):,.0f} "
          f"(± {statistics.stdev(scores) / len(scores) ** 0.5:,.0f}), median {statistics.median(scores):,.0f}",
          file=sys.stderr)
    print("  reach: " + ", ".join(
        f"{t} {sum(r['max_tile'] >= t for r in results) / games:.1%}" for t in TILES), file=sys.stderr)
    print(f"  {moves / cpu:,.0f} moves/s per core, wall {wall:.0f} s", file=sys.stderr)


if __name__ == "__main__":
    main()
