"""Compares heuristic weight sets on paired seeds (the same games for every set).

Usage: python bench/tune_weights.py [--reuse-deeper] [--tables DIR] [--seed S]
           DEPTH GAMES JOBS 'name=value,...' ['name=value,...' ...]
An empty spec ('') is the default weights; a spec that starts with 'tables'
starts from Weights.for_tables() instead (e.g. 'tables,lost_penalty=65536').
Game i uses seed S + i (default
1,000,000); --tables plays with the endgame tables found in DIR. Prints mean
score ± standard error and the reach rates per set; weights that win here must
be confirmed at deeper depths.
"""

from __future__ import annotations

import argparse
import statistics
from dataclasses import replace
from multiprocessing import Pool
from pathlib import Path

from solve2048.engine import Searcher, Weights
from solve2048.selfplay import play_game
from solve2048.tables import TableSet
from solve2048.tables import load as load_tables


def parse(spec: str) -> Weights:
    items = [item for item in spec.split(",") if item]
    base = Weights()
    if items and items[0].strip() == "tables":
        base, items = Weights.for_tables(), items[1:]
    changes = {}
    for item in items:
        name, value = item.split("=")
        changes[name.strip()] = float(value)
    return replace(base, **changes)


_searchers: dict[bool, Searcher] = {}
_tables: dict[str, TableSet] = {}


def one(args: tuple[int, int, Weights, bool, str | None]) -> tuple[int, int]:
    seed, depth, weights, reuse_deeper, tables_dir = args
    searcher = _searchers.setdefault(reuse_deeper, Searcher(reuse_deeper=reuse_deeper))
    tables = None
    if tables_dir:
        if tables_dir not in _tables:
            _tables[tables_dir] = load_tables(Path(tables_dir)).tables
        tables = _tables[tables_dir]
    r = play_game(seed, depth=depth, weights=weights, searcher=searcher, tables=tables)
    return r.score, r.max_tile


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reuse-deeper", action="store_true")
    parser.add_argument("--tables", metavar="DIR")
    parser.add_argument("--seed", type=int, default=1_000_000)
    parser.add_argument("depth", type=int)
    parser.add_argument("games", type=int)
    parser.add_argument("jobs", type=int)
    parser.add_argument("specs", nargs="+")
    a = parser.parse_args()
    with Pool(a.jobs) as pool:
        for spec in a.specs:
            weights = parse(spec)
            work = [(a.seed + i, a.depth, weights, a.reuse_deeper, a.tables) for i in range(a.games)]
            rows = pool.map(one, work, chunksize=4)
            scores = [s for s, _ in rows]
            se = statistics.stdev(scores) / len(scores) ** 0.5
            reach = " ".join(f"{t}:{sum(m >= t for _, m in rows) / a.games:.1%}"
                             for t in (2048, 4096, 8192, 16384, 32768))
            print(f"{spec or 'default':45s} mean {statistics.mean(scores):9,.0f} ± {se:6,.0f}  {reach}",
                  flush=True)


if __name__ == "__main__":
    main()
