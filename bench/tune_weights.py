"""Compares heuristic weight sets on paired seeds (the same games for every set).

Usage: python bench/tune_weights.py [--reuse-deeper] DEPTH GAMES JOBS 'name=value,...' ['name=value,...' ...]
An empty spec ('') is the default weights. Prints mean score ± standard error and the
reach rates per set; weights that win here must be confirmed at deeper depths.
"""

from __future__ import annotations

import statistics
import sys
from dataclasses import replace
from multiprocessing import Pool

from solve2048.engine import Searcher, Weights
from solve2048.game import play_game


def parse(spec: str) -> Weights:
    changes = {}
    for item in filter(None, spec.split(",")):
        name, value = item.split("=")
        changes[name.strip()] = float(value)
    return replace(Weights(), **changes)


_searchers: dict[bool, Searcher] = {}


def one(args: tuple[int, int, Weights, bool]) -> tuple[int, int]:
    seed, depth, weights, reuse_deeper = args
    searcher = _searchers.setdefault(reuse_deeper, Searcher(reuse_deeper=reuse_deeper))
    r = play_game(seed, depth, weights=weights, searcher=searcher)
    return r.score, r.max_tile


def main() -> None:
    reuse_deeper = "--reuse-deeper" in sys.argv
    sys.argv = [a for a in sys.argv if a != "--reuse-deeper"]
    depth, games, jobs = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
    with Pool(jobs) as pool:
        for spec in sys.argv[4:]:
            weights = parse(spec)
            rows = pool.map(one, [(1_000_000 + i, depth, weights, reuse_deeper) for i in range(games)], chunksize=16)
            scores = [s for s, _ in rows]
            se = statistics.stdev(scores) / len(scores) ** 0.5
            reach = " ".join(f"{t}:{sum(m >= t for _, m in rows) / games:.1%}" for t in (2048, 4096, 8192, 16384))
            print(f"{spec or 'default':45s} mean {statistics.mean(scores):9,.0f} ± {se:6,.0f}  {reach}", flush=True)


if __name__ == "__main__":
    main()
