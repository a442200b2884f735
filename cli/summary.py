"""Text rendering of batch summaries and comparisons (see solve2048.stats)."""

from __future__ import annotations


def summary_text(s: dict) -> str:
    score = s["score"]
    games = s["games"]
    lines = [
        f"games        {games:,}" + (f"  (depth {s['depth']}, seeds from {s['seed']})" if s.get("depth") is not None else ""),
        f"score        mean {score['mean']:,.0f} · median {score['median']:,.0f} · std {score['std']:,.0f}"
        f" · min {score['min']:,} · max {score['max']:,}",
        f"moves/game   {s['moves'] / games:,.0f}" if games else "moves/game   -",
        "reached      tile     share   95% interval",
    ]
    for tile, share in s["reach"].items():
        lo, hi = s["reach_ci"][tile]
        lines.append(f"             {int(tile):>6}  {share:7.1%}   {lo:6.1%} – {hi:6.1%}")
    lines.append(f"speed        {s['moves_per_second']:,.0f} moves/s per core ({s['moves']:,} moves)")
    if s.get("table_move_share"):
        lines.append(f"tables       {s['table_move_share']:.1%} of moves from endgame tables")
    return "\n".join(lines)


def compare_text(c: dict, name_a: str, name_b: str) -> str:
    a, b = c["a"], c["b"]
    mark = "significant" if c["score_significant"] else "not significant"
    lines = [
        f"{'':14}{'A':>14}{'B':>14}{'B - A':>14}",
        f"{'games':14}{a['games']:>14,}{b['games']:>14,}",
        f"{'mean score':14}{a['score']['mean']:>14,.0f}{b['score']['mean']:>14,.0f}"
        f"{c['score_diff']:>+14,.0f}  ± {c['score_diff_se']:,.0f}, p = {c['score_p']:.3g} ({mark})",
    ]
    for tile, r in c["reach"].items():
        mark = "significant" if r["significant"] else "not significant"
        lines.append(f"{'reach ' + tile:14}{r['a']:>14.1%}{r['b']:>14.1%}{r['diff']:>+14.1%}"
                     f"  p = {r['p']:.3g} ({mark})")
    lines.append(f"A = {name_a}\nB = {name_b}")
    return "\n".join(lines)
