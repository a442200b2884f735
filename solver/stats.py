"""Summary statistics of many games: the figures 2048 AIs are compared by.

Pure functions on result rows (dicts with at least score, max_tile, moves,
seconds; seed and depth when known); no I/O here.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Iterable, Sequence
from typing import Any

FIRST_REACH_TILE = 2048
Z95 = 1.959963984540054  # two-sided 95% normal quantile


def wilson_interval(successes: int, n: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval for a proportion (95% by default)."""
    if n == 0:
        return (0.0, 1.0)
    p = successes / n
    denominator = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denominator
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denominator
    # The interval always holds p; rounding must not push an end past it
    # (at p = 1 the upper end came out as 0.9999999999999998).
    return (max(0.0, min(p, centre - half)), min(1.0, max(p, centre + half)))


def reach_tiles(rows: Sequence[dict[str, Any]]) -> list[int]:
    """2048, 4096, ... up to the largest tile any game reached (at least 2048)."""
    top = max([FIRST_REACH_TILE] + [int(r["max_tile"]) for r in rows])
    tiles = []
    tile = FIRST_REACH_TILE
    while tile <= top:
        tiles.append(tile)
        tile *= 2
    return tiles


def seed_ranges(seeds: Iterable[int]) -> list[list[int]]:
    """The seeds, sorted, as inclusive [first, last] runs of consecutive seeds:
    seeds 0-4 and 100-101 are [[0, 4], [100, 101]]."""
    ranges: list[list[int]] = []
    for seed in sorted(set(seeds)):
        if ranges and seed == ranges[-1][1] + 1:
            ranges[-1][1] = seed
        else:
            ranges.append([seed, seed])
    return ranges


def _depth_order(depth: object) -> tuple[int, int, str]:
    # Numbers in order, then 'auto' (or anything else) by name.
    return (0, depth, "") if isinstance(depth, int) else (1, 0, str(depth))


def depths_of(rows: Sequence[dict[str, Any]]) -> list[int | str]:
    """The distinct depths the rows record, numbers first, then 'auto'."""
    return sorted({r["depth"] for r in rows if r.get("depth") is not None}, key=_depth_order)


def played_on(rows: Iterable[dict[str, Any]]) -> tuple[int, float]:
    """The moves and seconds that games played on from a stop spent after it
    (each line's own less those at its continued_at and continued_at_seconds)."""
    moves, seconds = 0, 0.0
    for r in rows:
        if r.get("continued_at") is not None and r.get("continued_at_seconds") is not None:
            moves += int(r["moves"]) - int(r["continued_at"])
            seconds += float(r["seconds"]) - float(r["continued_at_seconds"])
    return moves, seconds


def summarize(rows: Sequence[dict[str, Any]], depth: object = None, seed: object = None) -> dict[str, Any]:
    """The stable summary of ``solve2048 batch --json`` and ``stats --json``.

    It describes the games it is given: ``seeds`` lists their seeds as sorted
    inclusive ranges ([[0, 4], [100, 101]]), ``depths`` their distinct depths.
    ``seed`` (the smallest seed) and ``depth`` (the one depth, None when mixed
    or unknown) are kept for older readers; a caller may name the depth."""
    n = len(rows)
    depths = depths_of(rows)
    if depth is None and len(depths) == 1:
        depth = depths[0]
    seeds = seed_ranges(int(r["seed"]) for r in rows if r.get("seed") is not None)
    if seed is None and seeds:
        seed = seeds[0][0]
    scores = [int(r["score"]) for r in rows]
    moves = sum(int(r["moves"]) for r in rows)
    seconds = sum(float(r["seconds"]) for r in rows)
    moves_on, seconds_on = played_on(rows)
    reach: dict[str, float] = {}
    reach_ci: dict[str, list[float]] = {}
    for tile in reach_tiles(rows):
        hits = sum(int(r["max_tile"]) >= tile for r in rows)
        reach[str(tile)] = hits / n if n else 0.0
        reach_ci[str(tile)] = list(wilson_interval(hits, n))
    return {
        "games": n,
        "depth": depth,
        "seed": seed,
        "seeds": seeds,
        "depths": depths,
        # The boards games were played from (batch --start), hex; [] for new games.
        "starts": sorted({str(r["start"]) for r in rows if r.get("start") is not None}),
        # The --danger settings games were played with; [] when none was.
        "dangers": sorted({int(r["danger"]) for r in rows if r.get("danger") is not None}),
        # The --quiescence settings games were played with; [] when none was.
        "quiescences": sorted({int(r["quiescence"]) for r in rows if r.get("quiescence") is not None}),
        # The --late-quiescence settings games were played with; [] when none was.
        "late_quiescences": sorted({int(r["late_quiescence"]) for r in rows
                                    if r.get("late_quiescence") is not None}),
        # The --stop-at tiles games were played to; [] when none was.
        "stop_ats": sorted({int(r["stop_at"]) for r in rows if r.get("stop_at") is not None}),
        # How many games stopped there, alive (the rest ended), and how many
        # were played on from such a stop (batch --from).
        "stopped": sum(r.get("state") is not None for r in rows),
        "continued": sum(r.get("continued_at") is not None for r in rows),
        # The moves and seconds of those games after their stops: the phase
        # played on alone (lines from before continued_at_seconds left out).
        "moves_played_on": moves_on,
        "seconds_played_on": seconds_on,
        "moves_per_second_played_on": moves_on / seconds_on if seconds_on > 0 else 0.0,
        "score": {
            "mean": statistics.fmean(scores) if n else 0.0,
            "median": statistics.median(scores) if n else 0.0,
            "std": statistics.stdev(scores) if n > 1 else 0.0,
            "min": min(scores) if n else 0,
            "max": max(scores) if n else 0,
        },
        "reach": reach,
        "reach_ci": reach_ci,
        "moves": moves,
        "seconds": seconds,
        "moves_per_second": moves / seconds if seconds > 0 else 0.0,
        "seconds_per_game": seconds / n if n else 0.0,
        # Share of all moves that came from the endgame tables (0 without them).
        "table_move_share": sum(int(r.get("table_moves") or 0) for r in rows) / moves if moves else 0.0,
    }


def normal_two_sided_p(z: float) -> float:
    return math.erfc(abs(z) / math.sqrt(2))


# Beyond this many discordant pairs McNemar's test uses the normal law (with
# its continuity correction), within 1e-4 of the exact value there and without
# the exact sum's cost, which grows with the square of the count. Fisher's test
# switches at the same count of hits (or misses).
EXACT_PAIRS = 1000


def mcnemar_p(gains: int, losses: int) -> float:
    """The two-sided p-value of McNemar's test: of the pairs whose outcomes
    differ, ``gains`` went B's way and ``losses`` A's; under no difference each
    is a fair coin. Exact up to EXACT_PAIRS such pairs."""
    n = gains + losses
    if n > EXACT_PAIRS:
        return normal_two_sided_p((abs(gains - losses) - 1) / math.sqrt(n))
    tail = sum(math.comb(n, i) for i in range(min(gains, losses) + 1))
    return min(1.0, 2 * tail / (1 << n))


def fisher_p(hits_a: int, games_a: int, hits_b: int, games_b: int) -> float:
    """The two-sided p-value of Fisher's exact test that A and B reach a tile
    as often: with the hits of both fixed, how likely a split of them at most
    as likely as the one seen is. Exact while the fewer of the hits and the
    misses is at most EXACT_PAIRS; past that, the two-proportion z test with
    Yates' continuity correction, within 0.002 of the exact value there (the
    plain z test is 0.02 to 0.03 too small, enough to cross 0.05)."""
    if not games_a or not games_b:
        return 1.0
    games, hits = games_a + games_b, hits_a + hits_b
    if min(hits, games - hits) > EXACT_PAIRS:
        pa, pb, pooled = hits_a / games_a, hits_b / games_b, hits / games
        se = math.sqrt(pooled * (1 - pooled) * (1 / games_a + 1 / games_b))
        corrected = max(0.0, abs(pb - pa) - (1 / games_a + 1 / games_b) / 2)
        return normal_two_sided_p(corrected / se)
    # Each split's weight is its count of ways; the integers keep the ties exact.
    ways = [math.comb(games_a, x) * math.comb(games_b, hits - x)
            for x in range(max(0, hits - games_b), min(hits, games_a) + 1)]
    seen = math.comb(games_a, hits_a) * math.comb(games_b, hits_b)
    return min(1.0, sum(w for w in ways if w <= seen) / math.comb(games, hits))


def share_se(share: float, games: int) -> float:
    """The standard error of a share (a reach rate) over ``games`` independent
    games; 0 with none."""
    return math.sqrt(share * (1 - share) / games) if games else 0.0


def share_difference_se(share_a: float, games_a: int, share_b: float, games_b: int) -> float:
    """The standard error of the difference of two shares measured on
    independent games (two batches on other seeds): their errors add in
    quadrature. Paired games measure it far more closely (``paired``)."""
    return math.hypot(share_se(share_a, games_a), share_se(share_b, games_b))


def paired_difference(a: Sequence[float], b: Sequence[float], p: float | None = None) -> dict[str, Any]:
    """The means of paired values, the mean of their differences b - a, its
    standard error and two-sided p-value (by the normal law unless given)."""
    differences = [y - x for x, y in zip(a, b, strict=True)]
    mean = statistics.fmean(differences)
    se = statistics.stdev(differences) / math.sqrt(len(differences))
    if p is None:
        p = normal_two_sided_p(mean / se) if se > 0 else (1.0 if mean == 0 else 0.0)
    return {"a": statistics.fmean(a), "b": statistics.fmean(b), "diff": mean, "se": se, "p": p,
            "significant": p < 0.05}


def paired(a: Sequence[dict[str, Any]], b: Sequence[dict[str, Any]]) -> dict[str, Any] | None:
    """B minus A on the games both played: the same seed from the same start is
    the same spawns, so luck cancels and the difference is measured far more
    closely than between two independent means. None with fewer than 2 such
    games."""
    played = {(row["seed"], row.get("start")): row for row in a}
    pairs = [(played[key], row) for row in b if (key := (row["seed"], row.get("start"))) in played]
    if len(pairs) < 2:
        return None
    firsts, seconds = [x for x, _ in pairs], [y for _, y in pairs]
    reach = {}
    for tile in reach_tiles(firsts + seconds):
        # A reach rate is a yes or no a game: exact (McNemar) where the normal law
        # fails, as it does for rare tiles.
        reached_a = [float(int(x["max_tile"]) >= tile) for x in firsts]
        reached_b = [float(int(y["max_tile"]) >= tile) for y in seconds]
        gains = sum(y > x for x, y in zip(reached_a, reached_b, strict=True))
        losses = sum(x > y for x, y in zip(reached_a, reached_b, strict=True))
        reach[str(tile)] = paired_difference(reached_a, reached_b, mcnemar_p(gains, losses))
    return {
        "games": len(pairs),
        "seeds": seed_ranges(x["seed"] for x in firsts),
        "score": paired_difference([x["score"] for x in firsts], [y["score"] for y in seconds]),
        "reach": reach,
        "same_games": sum(same_game(x, y) for x, y in pairs),
    }


def same_game(a: dict[str, Any], b: dict[str, Any]) -> bool:
    """Whether two games of one seed were played alike: the same score, moves
    and final board (for two lines without a board, the first two alone).
    A change that alters no move leaves its game the same, so only the other
    pairs carry the difference between two settings."""
    return (a["score"], a["moves"], a.get("final_board")) == (b["score"], b["moves"], b.get("final_board"))


def compare(a: Sequence[dict[str, Any]], b: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """B minus A: the difference of mean scores (Welch's z) and of each reach
    rate (with its standard error; Fisher's exact test), with two-sided
    p-values; significant means p < 0.05. Its ``paired`` entry is the same
    comparison on the seeds both files played (from ``paired``), or None."""
    sa, sb = summarize(a), summarize(b)
    na, nb = sa["games"], sb["games"]
    se = math.sqrt(sa["score"]["std"] ** 2 / max(na, 1) + sb["score"]["std"] ** 2 / max(nb, 1))
    diff = sb["score"]["mean"] - sa["score"]["mean"]
    p_score = normal_two_sided_p(diff / se) if se > 0 else (1.0 if diff == 0 else 0.0)
    reach = {}
    for tile in reach_tiles(list(a) + list(b)):
        key = str(tile)
        ha = sum(int(r["max_tile"]) >= tile for r in a)
        hb = sum(int(r["max_tile"]) >= tile for r in b)
        pa, pb = ha / max(na, 1), hb / max(nb, 1)
        # Exact, as the paired test is: the normal law called 3 of 200 against
        # 0 of 300 significant (p = 0.03), where the exact count says 0.06.
        p = fisher_p(ha, na, hb, nb)
        reach[key] = {"a": pa, "b": pb, "diff": pb - pa, "se": share_difference_se(pa, na, pb, nb),
                      "p": p, "significant": p < 0.05}
    return {
        "a": sa,
        "b": sb,
        "score_diff": diff,
        "score_diff_se": se,
        "score_p": p_score,
        "score_significant": p_score < 0.05,
        "reach": reach,
        "paired": paired(a, b),
    }
