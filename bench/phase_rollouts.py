"""Plays each stopped game of a results file on K more times with other
spawns, to split a phase's outcome into what the board at the stop decides
and what the spawns to come decide. Try k replaces the generator's four words
by splitmix64 of (seed, k); try 0 is the game's own continuation, which the
file played on from the stop (NEXT) already holds.

Usage: python bench/phase_rollouts.py FROM NEXT OUT FIRST LAST K STOP [--depth D]
  FROM: the stopped games (batch --stop-at), seeds FIRST..LAST of it;
  NEXT: the same games played on with the settings of the tries (batch --from FROM --stop-at STOP);
  OUT:  one line a try ({"seed", "k", "max_tile", "moves"}), resumable; not a results
        file (name it .ndjson beside them: results files are .jsonl).
Prints how many boards won 0..K+1 of their tries beside what one common
probability would give, and the share of the variance between boards.
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing
import statistics
from collections.abc import Iterable
from pathlib import Path
from typing import IO, Any

from solve2048.batch import stopped_game, stopped_rows
from solve2048.results import load
from solve2048.selfplay import Game
from solve2048.settings import SearchSettings
from solve2048.tables import load as load_tables

MASK = (1 << 64) - 1
_search: SearchSettings | None = None


def other_rng(seed: int, k: int) -> str:
    """Four generator words (64 hex digits) for try k of a seed: splitmix64's outputs."""
    x, words = (seed * 1000 + k) * 0x10001 + 12345, []
    for _ in range(4):
        x = (x + 0x9E3779B97F4A7C15) & MASK
        z = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
        words.append(z ^ (z >> 31))
    return "".join(f"{w:016x}" for w in words)


def one_try(task: tuple[dict[str, Any], int, int, int, bool]) -> dict[str, int]:
    global _search
    row, k, stop, depth, tables = task
    if _search is None:   # once a worker: the tables are memory maps
        _search = SearchSettings(depth=depth, tables=load_tables().tables if tables else None, threads=1)
    moved = dict(row, state=dict(row["state"], rng=other_rng(row["seed"], k)))
    result = Game(row["seed"], _search, stop_at=stop, resume=stopped_game(moved)).run()
    return {"seed": row["seed"], "k": k, "max_tile": result.max_tile, "moves": result.moves - row["moves"]}


def play(source: str, out: str, first: int, last: int, tries: int, stop: int, depth: int = 5,
         tables: bool = True, jobs: int = 2) -> None:
    rows = {s: r for s, r in stopped_rows(load(source).rows).items() if first <= s <= last}
    done = set()
    if Path(out).exists():
        done = {(d["seed"], d["k"]) for d in map(json.loads, Path(out).read_text().splitlines())}
    tasks = [(rows[s], k, stop, depth, tables) for s in sorted(rows) for k in range(1, tries + 1)
             if (s, k) not in done]
    with open(out, "a", encoding="utf-8") as stream:
        if jobs == 1:   # in this process: no pool to start
            _write(stream, map(one_try, tasks))
        else:
            with multiprocessing.get_context("fork").Pool(jobs) as pool:
                _write(stream, pool.imap_unordered(one_try, tasks))


def _write(stream: IO[str], lines: Iterable[dict[str, int]]) -> None:
    for line in lines:   # each try as soon as it ends: an interrupt keeps the rest
        stream.write(json.dumps(line) + "\n")
        stream.flush()


def split(outcomes: dict[int, list[bool]]) -> dict[str, Any]:
    """Boards by wins, what one common p gives, and the variance between boards
    (the variance of the boards' rates less what the tries' own spread explains)."""
    n = len(next(iter(outcomes.values())))
    rates = [sum(v) / n for v in outcomes.values()]
    p = statistics.fmean(rates)
    within = statistics.fmean(q * (1 - q) * n / (n - 1) for q in rates)
    between = statistics.pvariance(rates) - within / n
    return {"boards": len(rates), "p": p, "between": between, "total": p * (1 - p),
            "wins": [sum(round(q * n) == w for q in rates) for w in range(n + 1)],
            "binomial": [len(rates) * math.comb(n, w) * p ** w * (1 - p) ** (n - w) for w in range(n + 1)]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    for name in ("source", "next", "out"):
        parser.add_argument(name)
    for name in ("first", "last", "tries", "stop"):
        parser.add_argument(name, type=int)
    parser.add_argument("--depth", type=int, default=5)
    a = parser.parse_args()
    play(a.source, a.out, a.first, a.last, a.tries, a.stop, a.depth)
    own = {r["seed"]: r for r in load(a.next).rows}
    outcomes: dict[int, list[bool]] = {}
    for d in map(json.loads, Path(a.out).read_text().splitlines()):
        outcomes.setdefault(d["seed"], []).append(d["max_tile"] >= a.stop)
    whole = {s: v + [own[s]["max_tile"] >= a.stop] for s, v in outcomes.items()
             if len(v) == a.tries and s in own}
    s = split(whole)
    print(f"{s['boards']} boards, {a.tries + 1} outcomes each: p = {s['p']:.3f}; variance between boards "
          f"{s['between']:.4f} of {s['total']:.4f}")
    print("wins      " + " ".join(f"{w:>6}" for w in range(a.tries + 2)))
    print("boards    " + " ".join(f"{c:>6}" for c in s["wins"]))
    print("one p     " + " ".join(f"{c:>6.1f}" for c in s["binomial"]))


if __name__ == "__main__":
    main()
