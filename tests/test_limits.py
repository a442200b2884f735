"""Numbers the library refuses at the door: non-finite values, impossible sizes."""

from __future__ import annotations

import math

import pytest

from solve2048 import Weights, analyze
from solve2048.engine import Searcher, check_tt_mb, max_tt_mb
from solve2048.selfplay import Game

BOARD = "2 4 . . / . . . . / . . . . / . . . ."


@pytest.mark.parametrize("time_ms", [math.nan, math.inf, -math.inf, 0, -1, 1e12, "10", True])
def test_analyze_refuses_a_time_that_is_not_a_finite_positive_number(time_ms) -> None:
    with pytest.raises(ValueError, match="time limit"):
        analyze(BOARD, time_ms=time_ms)
    with pytest.raises(ValueError, match="time limit"):
        Game(1, time_ms=time_ms)


@pytest.mark.parametrize("prune", [math.nan, math.inf, -0.5, 1.5])
def test_analyze_refuses_a_pruning_threshold_outside_0_1(prune) -> None:
    with pytest.raises(ValueError, match="pruning threshold"):
        analyze(BOARD, prune=prune)


@pytest.mark.parametrize("value", [math.nan, math.inf, -math.inf])
def test_weights_must_be_finite(value) -> None:
    with pytest.raises(ValueError, match="empty_weight must be a finite number"):
        Weights(empty_weight=value)


@pytest.mark.parametrize("tt_mb", [math.nan, math.inf, -1, "8"])
def test_a_table_size_that_is_no_size_is_refused(tt_mb) -> None:
    with pytest.raises(ValueError, match="transposition table size"):
        Searcher(tt_mb)
    with pytest.raises(ValueError, match="transposition table size"):
        analyze(BOARD, depth=1, tt_mb=tt_mb)


def test_a_table_past_half_the_memory_is_refused_before_it_is_touched() -> None:
    # Made in full at creation, a table past the machine's memory would get the
    # process killed; the check must come first, with the limit in the message.
    limit = max_tt_mb()
    assert check_tt_mb(limit) == limit
    with pytest.raises(ValueError, match=f"at most {limit:,} MB"):
        Searcher(limit + 1)
    with pytest.raises(ValueError, match="2 tables of"):
        check_tt_mb(limit // 2 + 1, copies=2)
