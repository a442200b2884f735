"""Boards for the benchmarks: a fixed, seeded sample, dense and varied like mid-game play."""

from __future__ import annotations

import numpy as np
import pytest


@pytest.fixture(scope="session")
def boards() -> np.ndarray:
    rng = np.random.default_rng(2048)
    n = 1 << 20
    exps = rng.integers(0, 12, size=(n, 16), dtype=np.uint64)
    exps[rng.random((n, 16)) < 0.3] = 0
    shifts = (4 * np.arange(16)).astype(np.uint64)
    return np.bitwise_or.reduce(exps << shifts, axis=1)
