"""Parallel batches: games per second with --jobs 2 against --jobs 1 at depth 1.

Run: pytest bench/bench_batch.py --benchmark-columns=median,rounds
Target: jobs 2 at least 1.8 times the games/s of jobs 1 on 2 cores. extra_info
holds games_per_second; the ratio is printed by test_ratio.
"""

from __future__ import annotations

from solve2048.batch import Settings, run_local

GAMES = 10_000
_rates: dict[int, float] = {}


def _run(jobs: int) -> None:
    rows: list[dict] = []
    run_local(range(GAMES), Settings(depth=1), jobs, rows.extend)
    assert len(rows) == GAMES


def _bench(benchmark, jobs: int) -> None:
    benchmark.pedantic(_run, args=(jobs,), rounds=5, iterations=1, warmup_rounds=1)
    _rates[jobs] = GAMES / benchmark.stats.stats.median
    benchmark.extra_info["games_per_second"] = _rates[jobs]


def test_jobs_1(benchmark) -> None:
    _bench(benchmark, 1)


def test_jobs_2(benchmark) -> None:
    _bench(benchmark, 2)


def test_ratio() -> None:
    ratio = _rates[2] / _rates[1]
    print(f"\njobs 2 / jobs 1 = {ratio:.2f}")
    assert ratio > 1.0, "two workers were no faster than one"
