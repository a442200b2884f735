"""Boards for the benchmarks: a fixed, seeded sample, dense and varied like mid-game play."""

from __future__ import annotations

import numpy as np
import pytest


def pytest_configure(config: pytest.Config) -> None:
    # Each benchmark reads its own timings (benchmark.stats) to compare ratios;
    # with the timings off they would fail one by one on None.
    if config.getoption("benchmark_disable", default=False):
        raise pytest.UsageError("the benchmarks in bench/ compare measured times: run them without --benchmark-disable")


@pytest.fixture(scope="session")
def boards() -> np.ndarray:
    rng = np.random.default_rng(2048)
    n = 1 << 20
    exps = rng.integers(0, 12, size=(n, 16), dtype=np.uint64)
    exps[rng.random((n, 16)) < 0.3] = 0
    shifts = (4 * np.arange(16)).astype(np.uint64)
    return np.bitwise_or.reduce(exps << shifts, axis=1)
