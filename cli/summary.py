"""Text rendering of batch summaries and comparisons (see solve2048.stats)."""

from __future__ import annotations

from typing import Any

from solve2048.board import Board
from solve2048.cli.render import duration, extras_text

SHOWN_RANGES = 4  # seed ranges named in full; beyond, the first and last few


def _range_text(first: int, last: int) -> str:
    return str(first) if first == last else f"{first}–{last}"


def seeds_text(ranges: list[list[int]]) -> str:
    """'seed 7', 'seeds 0–4, 100–101', or for many ranges 'seeds 0–4, 7, …, 90–99 (12 ranges)'."""
    if not ranges:
        return ""
    if len(ranges) == 1 and ranges[0][0] == ranges[0][1]:
        return f"seed {ranges[0][0]}"
    if len(ranges) <= SHOWN_RANGES:
        return "seeds " + ", ".join(_range_text(*r) for r in ranges)
    shown = [_range_text(*r) for r in ranges[: SHOWN_RANGES - 1]] + ["…", _range_text(*ranges[-1])]
    return "seeds " + ", ".join(shown) + f" ({len(ranges):,} ranges)"


def _games_detail(s: dict[str, Any]) -> str:
    """What the games are: their depth(s) and seeds, as the summary found them."""
    depths = s.get("depths") or ([s["depth"]] if s.get("depth") is not None else [])
    dangers, quiescences, lates = ("/".join(str(cells) for cells in s.get(key) or []) or None
                                   for key in ("dangers", "quiescences", "late_quiescences"))
    extras = extras_text(dangers, quiescences, lates)
    parts = []
    if len(depths) == 1:
        parts.append(f"depth {depths[0]}{extras}")
    elif depths:
        parts.append("depths " + ", ".join(str(d) for d in depths) + extras)
    if s.get("seeds"):
        parts.append(seeds_text(s["seeds"]))
    starts = s.get("starts") or []
    if len(starts) == 1:
        parts.append(f"from {Board.parse(starts[0]).notation()}")
    elif starts:
        parts.append(f"from {len(starts)} given boards")
    return f"  ({'; '.join(parts)})" if parts else ""


def summary_text(s: dict[str, Any]) -> str:
    score = s["score"]
    games = s["games"]
    lines = [
        f"games        {games:,}{_games_detail(s)}",
        f"score        mean {score['mean']:,.0f} · median {score['median']:,.0f} · std {score['std']:,.0f}"
        f" · min {score['min']:,} · max {score['max']:,}",
        f"moves/game   {s['moves'] / games:,.0f}" if games else "moves/game   -",
        "reached      tile     share   95% interval",
    ]
    for tile, share in s["reach"].items():
        lo, hi = s["reach_ci"][tile]
        lines.append(f"             {int(tile):>6}  {share:7.1%}   {lo:6.1%} – {hi:6.1%}")
    lines.append(f"speed        {s['moves_per_second']:,.0f} moves/s per core"
                 f" · {duration(s['seconds_per_game'])} a game ({s['moves']:,} moves)")
    if s.get("table_move_share"):
        lines.append(f"tables       {s['table_move_share']:.1%} of moves from endgame tables")
    if s.get("stop_ats"):
        lines.append(f"stopped      {s['stopped']:,} games at {' or '.join(map(str, s['stop_ats']))}, alive; "
                     f"the other {games - s['stopped']:,} ended")
    if s.get("continued"):
        lines.append(f"played on    {s['continued']:,} stopped games (--from)" + _after_stops(s))
    return "\n".join(lines)


def _after_stops(s: dict[str, Any]) -> str:
    """The speed of the games played on, after their stops: the phase's own."""
    if not s.get("seconds_played_on"):
        return ""
    return (f"; after the stops {s['moves_per_second_played_on']:,.0f} moves/s per core"
            f" ({s['moves_played_on']:,} moves)")


def compare_text(c: dict[str, Any], name_a: str, name_b: str) -> str:
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
                     f"  ± {r['se']:.1%}, p = {r['p']:.3g} ({mark})")
    lines += _paired_lines(c["paired"])
    lines.append(f"A = {name_a}\nB = {name_b}")
    return "\n".join(lines)


def _paired_lines(p: dict[str, Any] | None) -> list[str]:
    """B - A on the seeds both files played, where luck cancels."""
    if p is None:
        return ["paired        no seed in both files: the difference above is all there is"]
    lines = [f"paired on the {p['games']:,} games of the same seeds ({seeds_text(p['seeds'])}):",
             f"{'same game':14}{p['same_games']:>14,} of {p['games']:,} (the same score, moves and final board)"]
    rows = [("mean score", p["score"], ",.0f")] + [(f"reach {tile}", r, ".1%") for tile, r in p["reach"].items()]
    for name, r, spec in rows:
        mark = "significant" if r["significant"] else "not significant"
        lines.append(f"{name:14}{format(r['a'], spec):>14}{format(r['b'], spec):>14}"
                     f"{format(r['diff'], '+' + spec):>14}  ± {format(r['se'], spec)}, p = {r['p']:.3g} ({mark})")
    return lines


def deaths_text(d: dict[str, Any]) -> str:
    """The table of ``solve2048.deaths.summarize``: one row per largest tile at death."""
    lines = [f"deaths       {d['games']:,} games, read on the board each was lost on"
             + (f" ({d['without_board']:,} lines keep no board)" if d["without_board"] else ""),
             "died with    games   share   in a corner   snake   chain below   big pairs    moves   from tables"]
    for g in d["by_max_tile"]:
        lines.append(f"{g['max_tile']:>9}  {g['games']:>7,}  {g['share']:>6.1%}  {g['corner']:>12.1%}"
                     f"  {g['snake']:>6.1f}  {g['chain']:>12.1f}  {g['big_pairs']:>10.2f}  {g['moves']:>7,.0f}"
                     f"  {g['table_move_share']:>12.1%}")
    if any(g["uncovered_share"] is not None for g in d["by_max_tile"]):
        lines.append("died with   no table covered   never covered   moves after the last covered   its p")
        for g in d["by_max_tile"]:
            lines.append(f"{g['max_tile']:>9}  {_shown(g['uncovered_share'], '.1%'):>17}"
                         f"  {_shown(g['never_covered'], '.1%'):>14}"
                         f"  {_shown(g['moves_after_tables'], ',.0f'):>29}  {_shown(g['last_probability'], '.3f'):>6}")
    if any(g["stretch_moves"] is not None for g in d["by_max_tile"]):
        lines.append("died with   last covered stretch: moves   median   its p at the start   median")
        for g in d["by_max_tile"]:
            lines.append(f"{g['max_tile']:>9}  {_shown(g['stretch_moves'], ',.0f'):>28}"
                         f"  {_shown(g['stretch_moves_median'], ',.0f'):>7}"
                         f"  {_shown(g['stretch_probability'], '.3f'):>19}"
                         f"  {_shown(g['stretch_probability_median'], '.3f'):>7}")
    if any(g["last_tables"] for g in d["by_max_tile"]):
        lines.append("died with   last covered by    games   on the losing move   its p   played"
                     "   stretch   from p")
        for g in d["by_max_tile"]:
            for i, t in enumerate(g["last_tables"]):
                tile = f"{g['max_tile']:>9}" if i == 0 else " " * 9
                lines.append(f"{tile}   {t['table']:<15}  {t['games']:>6,}  {t['on_last_move']:>19.1%}"
                             f"  {t['probability']:>6.3f}  {t['played']:>6.1%}"
                             f"  {_shown(t['stretch_moves_median'], ',.0f'):>8}"
                             f"  {_shown(t['stretch_probability_median'], '.3f'):>7}")
    lines.append("snake: tiles falling in order from a corner; chain below: ranks under the largest all held;")
    lines.append("big pairs: tiles of 256 or more held twice (means per game); no table covered: the share of")
    lines.append("moves played on a board no endgame table covered; last covered by: the table that covered")
    lines.append("the last covered board, and played: the share of those games in which it chose that move;")
    lines.append("last covered stretch: the run of covered moves that ends at the last covered one (it may")
    lines.append("pass from table to table); stretch and from p: its length and its first probability, medians")
    return "\n".join(lines)


def _shown(value: float | None, spec: str) -> str:
    """value in the format spec, or a dash where no line recorded it."""
    return "—" if value is None else format(value, spec)
