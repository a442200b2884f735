"""The split search's speed-up: the bench positions searched at depths 6 and 7
on 1 thread and on 2 (and 4, where the machine has the cores), interleaved
round by round so that every thread count sees the same load; medians.

Run: pytest bench/bench_threads.py --benchmark-columns=median,rounds

extra_info holds, per depth, the median seconds of one pass over the
positions for each thread count, the speed-ups over one thread, the node count
(the same for every thread count), and the load average before and after, to
judge how busy the machine was. It also holds the quartiles of the speed-up
round by round (each round's passes run back to back, so each ratio is paired
in time): a wide spread says the host was busy in part of the run and the
figure should be measured again. Issue 21's target: at least 1.8 times one
thread on 2 cores. ``test_timed_depth``: the depth --time reaches on each.
"""

from __future__ import annotations

import os
import statistics
import time

import pytest

from solve2048 import analyze
from solve2048.benchmark import load_positions
from solve2048.engine import Searcher

POSITIONS = load_positions()
ROUNDS = {6: 41, 7: 15}


def thread_counts() -> list[int]:
    cores = os.cpu_count() or 1
    return [n for n in (1, 2, 4) if n <= max(2, cores)]


def round_quartiles(one: list[float], many: list[float]) -> list[float]:
    """The first quartile, median and third quartile of one thread's time
    over many threads' time, round by round."""
    ratios = [a / b for a, b in zip(one, many, strict=True)]
    return [round(q, 3) for q in statistics.quantiles(ratios, n=4, method="inclusive")]


def one_pass(searcher: Searcher, depth: int) -> tuple[float, int]:
    start = time.perf_counter()
    nodes = sum(analyze(b, depth=depth, quiescence=None, searcher=searcher).nodes for b in POSITIONS)
    return time.perf_counter() - start, nodes


@pytest.mark.parametrize("depth", [6, 7])
def test_speed_up(benchmark, depth: int) -> None:
    counts = thread_counts()
    searchers = {n: Searcher(threads=n) for n in counts}
    for n in counts:  # the workers' tables are made at the first split search
        one_pass(searchers[n], depth)
    load_before = os.getloadavg()[0]
    seconds: dict[int, list[float]] = {n: [] for n in counts}
    nodes: dict[int, set[int]] = {n: set() for n in counts}
    for _ in range(ROUNDS[depth]):
        for n in counts:
            took, visited = one_pass(searchers[n], depth)
            seconds[n].append(took)
            nodes[n].add(visited)
    medians = {n: statistics.median(seconds[n]) for n in counts}
    benchmark.extra_info.update({
        "positions": len(POSITIONS),
        "nodes": sorted(nodes[1]),
        "load_before": load_before,
        "load_after": os.getloadavg()[0],
        **{f"seconds_{n}_threads": round(medians[n], 5) for n in counts},
        **{f"speed_up_{n}_threads": round(medians[1] / medians[n], 3) for n in counts if n > 1},
        **{f"speed_up_{n}_threads_quartiles": round_quartiles(seconds[1], seconds[n]) for n in counts if n > 1},
    })
    benchmark.pedantic(lambda: None, rounds=1, iterations=1)
    assert all(nodes[n] == nodes[1] and len(nodes[n]) == 1 for n in counts), nodes


def test_timed_depth(benchmark) -> None:
    """--time: the mean depth reached in 50 ms per move on every other bench
    position, per thread count (interleaved, position by position)."""
    counts = thread_counts()
    searchers = {n: Searcher(threads=n) for n in counts}
    load_before = os.getloadavg()[0]
    depths: dict[int, list[int]] = {n: [] for n in counts}
    for board in POSITIONS[::2]:
        for n in counts:
            depths[n].append(analyze(board, time_ms=50, quiescence=None, searcher=searchers[n]).depth)
    benchmark.extra_info.update({"load_before": load_before, "load_after": os.getloadavg()[0],
                                 **{f"mean_depth_{n}_threads": statistics.mean(depths[n]) for n in counts}})
    benchmark.pedantic(lambda: None, rounds=1, iterations=1)
    assert all(d >= 1 for n in counts for d in depths[n])
