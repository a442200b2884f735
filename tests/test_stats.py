"""Summary maths on hand-made results."""

from __future__ import annotations

import math
import statistics

import pytest

from solve2048.cli.summary import compare_text, seeds_text, summary_text
from solve2048.stats import (
    compare,
    fisher_p,
    mcnemar_p,
    paired,
    same_game,
    seed_ranges,
    share_difference_se,
    share_se,
    summarize,
    wilson_interval,
)


def row(seed: int, score: int, max_tile: int, moves: int = 100, seconds: float = 0.5) -> dict:
    return {"seed": seed, "score": score, "max_tile": max_tile, "moves": moves, "seconds": seconds}


ROWS = [row(0, 10_000, 1024), row(1, 20_000, 2048), row(2, 30_000, 2048), row(3, 60_000, 4096)]


def test_summary_figures() -> None:
    s = summarize(ROWS, depth=3, seed=0)
    assert s["games"] == 4 and s["depth"] == 3 and s["seed"] == 0
    assert s["score"] == {"mean": 30_000, "median": 25_000,
                          "std": pytest.approx(math.sqrt((400 + 100 + 0 + 900) / 3) * 1000),
                          "min": 10_000, "max": 60_000}
    assert s["reach"] == {"2048": 0.75, "4096": 0.25}
    assert s["moves"] == 400 and s["seconds"] == 2.0 and s["moves_per_second"] == 200.0
    assert s["seconds_per_game"] == 0.5 and summarize([])["seconds_per_game"] == 0.0


def test_reach_lists_every_tile_up_to_the_largest() -> None:
    s = summarize([row(0, 1, 32768), row(1, 1, 512)])
    assert list(s["reach"]) == ["2048", "4096", "8192", "16384", "32768"]
    assert all(v == 0.5 for v in s["reach"].values())
    assert list(summarize([row(0, 1, 256)])["reach"]) == ["2048"]


def test_wilson_interval_known_values() -> None:
    # Wilson 95% for 8/10: (0.4902, 0.9433); for 0/10: (0, 0.2775); for 50/100: (0.4038, 0.5962).
    for (k, n), (lo, hi) in {(8, 10): (0.4902, 0.9433), (0, 10): (0.0, 0.2775), (50, 100): (0.4038, 0.5962)}.items():
        got = wilson_interval(k, n)
        assert got[0] == pytest.approx(lo, abs=1e-4) and got[1] == pytest.approx(hi, abs=1e-4)
    assert summarize(ROWS)["reach_ci"]["2048"] == list(wilson_interval(3, 4))


def test_wilson_interval_holds_the_share_itself() -> None:
    # At 300 of 300 the upper end once came out below 1, and --plot then
    # failed on a negative error bar.
    for n in range(1, 1001):
        for k in (0, n // 3, n):
            lo, hi = wilson_interval(k, n)
            assert 0.0 <= lo <= k / n <= hi <= 1.0, (k, n)


def test_plot_of_a_batch_where_every_game_reached_a_tile(tmp_path) -> None:
    from solve2048.cli.plot import write_plot

    rows = [row(i, 30_000 + i, 4096 if i % 2 else 2048) for i in range(300)]
    summary = summarize(rows)
    assert summary["reach"]["2048"] == 1.0 and summary["reach_ci"]["2048"][1] == 1.0
    write_plot(str(tmp_path / "p.png"), summary, [r["score"] for r in rows])
    assert (tmp_path / "p.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_compare_flags_only_real_differences() -> None:
    weak = [row(i, 20_000 + (i % 7) * 100, 1024 if i % 2 else 2048) for i in range(200)]
    strong = [row(i, 40_000 + (i % 7) * 100, 4096) for i in range(200)]
    c = compare(weak, strong)
    assert c["score_diff"] == pytest.approx(20_000) and c["score_significant"]
    assert c["reach"]["2048"]["significant"] and c["reach"]["2048"]["diff"] == pytest.approx(0.5)
    same = compare(weak, weak)
    assert not same["score_significant"] and same["score_p"] == 1.0
    assert not any(r["significant"] for r in same["reach"].values())


def test_a_share_and_a_difference_of_independent_shares_have_their_standard_errors() -> None:
    assert share_se(0.5, 100) == pytest.approx(0.05)
    assert share_se(0.0, 100) == share_se(1.0, 100) == share_se(0.3, 0) == 0.0
    # Two independent batches: the variances add.
    assert share_difference_se(0.5, 100, 0.2, 400) == pytest.approx(math.sqrt(0.25 / 100 + 0.16 / 400))
    assert share_difference_se(0.5, 100, 0.2, 0) == pytest.approx(0.05)


def test_compare_gives_each_reach_difference_its_standard_error() -> None:
    a = [row(i, 20_000, 2048 if i % 2 else 1024) for i in range(100)]            # 2048 in 50%
    b = [row(1000 + i, 30_000, 2048 if i % 5 else 1024) for i in range(400)]     # 80%, other seeds
    c = compare(a, b)
    assert c["paired"] is None
    r = c["reach"]["2048"]
    assert r["diff"] == pytest.approx(0.3) and r["se"] == pytest.approx(math.sqrt(0.25 / 100 + 0.16 / 400))
    assert "+30.0%  ± 5.4%, p = " in compare_text(c, "a", "b")


def test_paired_games_measure_a_small_gain_that_two_means_cannot() -> None:
    # Luck (the seed) moves a score by up to 90,000; B plays each seed 2,000 better.
    luck = [(seed * 7919) % 90_000 for seed in range(300)]
    a = [row(seed, 10_000 + luck[seed], 2048 if seed % 3 else 4096) for seed in range(300)]
    b = [row(seed, 12_000 + luck[seed] + (seed % 5) * 10, 4096 if seed % 2 else 2048) for seed in reversed(range(300))]
    c = compare(a, b)
    assert not c["score_significant"]
    p = c["paired"]
    assert p["games"] == 300 and p["seeds"] == [[0, 299]]
    assert p["score"]["diff"] == pytest.approx(2_020) and p["score"]["significant"]
    expected_se = statistics.stdev([2_000 + (s % 5) * 10 for s in range(300)]) / math.sqrt(300)
    assert p["score"]["se"] == pytest.approx(expected_se)
    assert p["score"]["a"] == pytest.approx(statistics.fmean(r["score"] for r in a))
    share_b, share_a = 150 / 300, 100 / 300
    assert p["reach"]["4096"]["diff"] == pytest.approx(share_b - share_a)
    assert p["reach"]["2048"] == {"a": 1.0, "b": 1.0, "diff": 0.0, "se": 0.0, "p": 1.0, "significant": False}
    text = compare_text(c, "a.jsonl", "b.jsonl")
    assert "paired on the 300 games of the same seeds (seeds 0–299):" in text
    assert "+2,020  ± " in text
    assert p["same_games"] == 0 and "same game" in text and "0 of 300" in text


def test_paired_games_say_how_many_were_played_alike() -> None:
    # A setting that changes no move leaves its game as it was: those pairs
    # differ by nothing, and the report says how many carry the difference.
    a = [dict(row(seed, 10_000 + seed, 1024), final_board=f"0x{seed + 1:x}") for seed in range(10)]
    b = [dict(r) for r in a]
    b[0]["score"] += 4                            # another score
    b[1]["moves"] += 1                            # another length
    b[2]["final_board"] = "0x99"                  # same score and moves, another board
    del b[3]["final_board"]                       # an older line, without its board
    p = paired(a, b)
    assert p["same_games"] == 6 and paired(a, a)["same_games"] == 10
    assert same_game(a[4], b[4]) and not same_game(a[2], b[2]) and not same_game(a[3], b[3])
    assert same_game(row(0, 5_000, 512), row(0, 5_000, 512))    # two older lines: score and moves
    text = compare_text(compare(a, b), "a", "b")
    assert "same game                  6 of 10 (the same score, moves and final board)" in text


def test_mcnemar_is_exact_on_the_discordant_pairs() -> None:
    assert mcnemar_p(0, 5) == 2 / 32                     # five of five the same way
    assert mcnemar_p(9, 1) == mcnemar_p(1, 9) == pytest.approx(2 * 11 / 1024)
    assert mcnemar_p(3, 3) == mcnemar_p(0, 0) == 1.0
    assert mcnemar_p(0, 9) < 0.05 < mcnemar_p(0, 5)
    # Past the exact range the normal law takes over; at its edge the two agree.
    def normal(gains: int, losses: int) -> float:
        return math.erfc((abs(gains - losses) - 1) / math.sqrt(gains + losses) / math.sqrt(2))

    for gains in (450, 470, 490):
        assert mcnemar_p(gains, 1000 - gains) == pytest.approx(normal(gains, 1000 - gains), abs=1e-4)
    assert mcnemar_p(10_000, 10_500) == normal(10_000, 10_500) < 0.05
    # 9 games reach a tile with B and none with A: the normal law would call far less significant
    a = [row(seed, 10_000, 1024) for seed in range(600)]
    b = [row(seed, 10_000, 2048 if seed < 9 else 1024) for seed in range(600)]
    assert paired(a, b)["reach"]["2048"]["p"] == 2 / 2**9


def test_fisher_is_exact_on_two_independent_batches() -> None:
    # Fisher's tea taster: 3 of 4 right against 1 of 4, and the most extreme split.
    assert fisher_p(3, 4, 1, 4) == fisher_p(1, 4, 3, 4) == pytest.approx(34 / 70)
    assert fisher_p(0, 10, 10, 10) == pytest.approx(2 / math.comb(20, 10))
    assert fisher_p(5, 10, 5, 10) == fisher_p(0, 10, 0, 10) == fisher_p(10, 10, 10, 10) == 1.0
    assert fisher_p(0, 0, 3, 10) == fisher_p(3, 10, 0, 0) == 1.0          # nothing to compare with
    # 3 of 200 against 0 of 300: the z test says 0.03. Of the C(500, 3) =
    # 20,708,500 ways to place the 3 hits, no split is as unlikely as all 3 in
    # A, C(200, 3) = 1,313,400 ways, so that is the p-value.
    rare = fisher_p(3, 200, 0, 300)
    assert rare == pytest.approx(1_313_400 / 20_708_500)
    a = [row(seed, 10_000, 2048 if seed < 3 else 1024) for seed in range(200)]
    b = [row(seed, 10_000, 1024) for seed in range(1000, 1300)]
    assert compare(a, b)["reach"]["2048"]["p"] == rare and not compare(a, b)["reach"]["2048"]["significant"]

    # Past the exact range (more than EXACT_PAIRS hits and misses) the z test with
    # Yates' correction takes over, close to the exact value at the switch.
    def yates(ha: int, na: int, hb: int, nb: int) -> float:
        pooled = (ha + hb) / (na + nb)
        se = math.sqrt(pooled * (1 - pooled) * (1 / na + 1 / nb))
        return math.erfc(max(0.0, abs(hb / nb - ha / na) - (1 / na + 1 / nb) / 2) / se / math.sqrt(2))

    assert fisher_p(511, 2000, 491, 2000) == yates(511, 2000, 491, 2000)
    assert fisher_p(510, 2000, 490, 2000) != yates(510, 2000, 490, 2000)   # still exact at 1,000 hits
    assert fisher_p(510, 2000, 490, 2000) == pytest.approx(fisher_p(511, 2000, 491, 2000), abs=0.002)
    assert fisher_p(475, 1500, 526, 1500) > 0.05                            # the plain z test said 0.048


def test_games_pair_only_on_the_same_seed_from_the_same_start() -> None:
    a = [row(seed, 10_000 + seed, 1024) for seed in range(10)]
    assert paired(a, [row(seed, 10_000, 1024) for seed in range(10, 20)]) is None
    assert paired(a, [dict(r, start="0x1") for r in a]) is None
    assert paired(a, a[3:4]) is None  # one game has no spread to measure
    assert paired(a, a[2:7])["games"] == 5
    assert "no seed in both files" in compare_text(compare(a, [row(99, 1, 1024)]), "a", "b")


def test_seed_ranges_are_sorted_runs() -> None:
    assert seed_ranges([101, 3, 0, 1, 2, 4, 100, 2]) == [[0, 4], [100, 101]]
    assert seed_ranges([7]) == [[7, 7]] and seed_ranges([]) == []
    assert seed_ranges([2**64 - 1, 2**64 - 2]) == [[2**64 - 2, 2**64 - 1]]


def test_summary_says_which_games_it_covers() -> None:
    rows = [dict(row(s, 10_000, 1024), depth=2) for s in (0, 1, 2, 3, 4, 100, 101)]
    s = summarize(rows)
    assert s["seeds"] == [[0, 4], [100, 101]] and s["seed"] == 0
    assert s["depths"] == [2] and s["depth"] == 2
    assert summary_text(s).splitlines()[0] == "games        7  (depth 2; seeds 0–4, 100–101)"
    mixed = summarize(rows + [dict(row(9, 10_000, 1024), depth="auto"), dict(row(8, 1, 8), depth=10)])
    assert mixed["depths"] == [2, 10, "auto"] and mixed["depth"] is None
    assert summary_text(mixed).splitlines()[0] == "games        9  (depths 2, 10, auto; seeds 0–4, 8–9, 100–101)"


def test_many_seed_ranges_show_the_first_and_the_last() -> None:
    ranges = seed_ranges(range(0, 40, 2))
    assert len(ranges) == 20
    assert seeds_text(ranges) == "seeds 0, 2, 4, …, 38 (20 ranges)"
    assert seeds_text([[5, 5]]) == "seed 5"
