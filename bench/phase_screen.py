"""Judges a phase screen (by default phase 2's) against more than one baseline.

A phase-2 screen plays the default's games at their first 16384 on to 32768
under a trial's settings (`solve2048 batch --from
bench/results/depth5-stop16384.jsonl --stop-at 32768`). Paired seed for seed
with the package's one run of that phase, it carries that run's luck: played
three more times with other spawns (bench/phase_rollouts.py), the same 950
boards reached 32768 1.4, 1.8 and 1.9 points less often. So each screen is
paired here with the run, with every replay, and with the mean of them all a
seed, whose own chance variance is a quarter of one play's with four.

Usage: python bench/phase_screen.py FILE... [--run RUN] [--tries TRIES|none] [--goal TILE] [--peer | --whole]
  (by default the depth-5 phase 2 of bench/results: RUN and TRIES below;
  --goal: another phase's last tile, such as 65536 with `--run
  bench/results/depth5-after32768-pass.jsonl --tries
  bench/results/depth5-after32768-pass-tries.ndjson`;
  --peer: the files are bench/peer_phase.py's, another program's play;
  --whole: they are its whole games (`--opening`), judged tile by tile
  against RUN, a run of whole games: by default WHOLE_RUN below).
Prints for each FILE: its games and how many reach the goal, the games that
are the run's own, the moves/s in the phase (after the stops, as `solve2048
stats` counts them), and the paired difference at the goal in points with
its standard error against each baseline (for a peer, of the final scores
too, where both games ended before the goal).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from solve2048.results import load
from solve2048.stats import paired_difference, played_on, same_game, share_difference_se

RESULTS = Path(__file__).resolve().parent / "results"
RUN = RESULTS / "depth5-16384to32768-pass.jsonl"         # the package's phase 2, played once
TRIES = RESULTS / "depth5-16384to32768-pass-tries.ndjson"  # the same boards with other spawns
WHOLE_RUN = RESULTS / "depth5-pass16384.jsonl"             # the package's whole games at depth 5
GOAL = 32768


def reached(rows: Iterable[Mapping[str, Any]], goal: int = GOAL) -> dict[int, int]:
    """Each seed's outcome: 1 when its game reached ``goal``, else 0."""
    return {row["seed"]: int(row["max_tile"] >= goal) for row in rows}


def read_tries(path: Path, goal: int = GOAL) -> dict[int, dict[int, int]]:
    """The replays' outcomes by try k, then by seed (phase_rollouts.py's lines)."""
    by_try: dict[int, dict[int, int]] = {}
    for line in path.read_text().splitlines():
        t = json.loads(line)
        by_try.setdefault(t["k"], {})[t["seed"]] = int(t["max_tile"] >= goal)
    return by_try


def paired(trial: Mapping[int, int], base: Mapping[int, float]) -> tuple[int, float, float]:
    """(seeds in both, mean of trial - base over them, its standard error), in
    points, as `solve2048 stats --compare` pairs two runs."""
    seeds = [s for s in trial if s in base]
    if len(seeds) < 2:
        return len(seeds), float("nan"), float("nan")
    d = paired_difference([base[s] for s in seeds], [trial[s] for s in seeds])
    return len(seeds), 100 * d["diff"], 100 * d["se"]


def mean_base(bases: list[Mapping[int, int]]) -> dict[int, float]:
    """Each seed's mean outcome over the baselines that played it."""
    seeds = set().union(*bases)
    return {s: statistics.fmean(b[s] for b in bases if s in b) for s in seeds}


def report(path: Path, run: Path = RUN, tries: Path | None = TRIES, goal: int = GOAL) -> str:
    rows = load(str(path), repair=False).rows
    run_rows = {r["seed"]: r for r in load(str(run), repair=False).rows}
    same = sum(1 for r in rows if r["seed"] in run_rows and same_game(r, run_rows[r["seed"]]))
    moves, seconds = played_on(rows)
    return against_baselines(path, reached(rows, goal), f"{same:,} the run's own", moves, seconds,
                             run_rows.values(), tries, goal)


def report_peer(path: Path, run: Path = RUN, tries: Path | None = TRIES, goal: int = GOAL) -> str:
    """report, for the lines of bench/peer_phase.py (another program's play),
    with the paired difference of final scores where its lines hold them and
    both games ended before the goal."""
    rows = read_peer(path)
    run_rows = load(str(run), repair=False).rows
    moves, seconds = sum(r["moves"] for r in rows), sum(r["seconds"] for r in rows)
    illegal = f"{sum(r['illegal'] for r in rows):,} answers not a legal move"
    text = against_baselines(path, reached(rows, goal), illegal, moves, seconds, run_rows, tries, goal)
    return "\n".join([text, *scores_before(rows, run_rows, goal)])


def read_peer(path: Path) -> list[dict[str, Any]]:
    """The lines of bench/peer_phase.py's file at ``path``."""
    return [json.loads(line) for line in path.read_text().splitlines()]


def scores_before(rows: Iterable[Mapping[str, Any]], run_rows: Iterable[Mapping[str, Any]], goal: int) -> list[str]:
    """The line pairing a peer's final scores with the run's, seed by seed, or
    none with fewer than 2 pairs. Only games where both ended before the goal
    are paired: a peer's line stops at the goal, and a run's may have played
    past it (older peer lines hold no score and are left out)."""
    ours = {r["seed"]: r for r in run_rows}
    pairs = [(ours[r["seed"]]["score"], r["score"]) for r in rows
             if "score" in r and r["seed"] in ours and max(r["max_tile"], ours[r["seed"]]["max_tile"]) < goal]
    if len(pairs) < 2:
        return []
    d = paired_difference([a for a, _ in pairs], [b for _, b in pairs])
    return [f"  final score where both ended before {goal}, {len(pairs):,} games: {d['b']:,.0f} against the"
            f" run's {d['a']:,.0f}, {d['diff']:+,.0f} ± {d['se']:,.0f}"]


def report_whole(path: Path, run: Path, goal: int = GOAL) -> str:
    """A peer's whole games (bench/peer_phase.py --opening) against a run of
    whole games on the same seeds, tile by tile from 8192 to ``goal``: the
    share of games that reach the tile, paired seed by seed, and the share of
    those at the tile below that go on to it (each program's own boards there,
    so not paired)."""
    rows = read_peer(path)
    by_seed = {r["seed"]: r for r in load(str(run), repair=False).rows}
    rows = [r for r in rows if r["seed"] in by_seed]
    ours = [by_seed[r["seed"]] for r in rows]
    lines = [f"{path.name}: {len(rows):,} whole games on the run's seeds; "
             f"{sum(r['illegal'] for r in rows):,} answers not a legal move"]
    tile = 8192
    while tile <= goal:
        theirs_reach, ours_reach = reached(rows, tile), reached(ours, tile)
        _, diff, se = paired(theirs_reach, ours_reach)
        lines.append(f"  {tile:>6}: {statistics.fmean(theirs_reach.values()):6.1%} against the run's "
                     f"{statistics.fmean(ours_reach.values()):6.1%}, {diff:+.1f} ± {se:.1f} points paired")
        if tile >= 16384:
            lines.append(f"          from {tile // 2}: {step_line(rows, ours, tile)}")
        tile *= 2
    return "\n".join(lines + scores_before(rows, ours, goal))


def step_line(theirs: list[Mapping[str, Any]], ours: list[Mapping[str, Any]], tile: int) -> str:
    """Each side's share of its games at tile / 2 that reach ``tile``, and the
    difference with the standard error of two independent shares."""
    shares = []
    for games in (theirs, ours):
        at = [int(g["max_tile"] >= tile) for g in games if g["max_tile"] >= tile // 2]
        shares.append((sum(at), len(at)))
    (a, n), (b, m) = shares
    if not n or not m:
        return f"{a:,} of {n:,} against the run's {b:,} of {m:,}"
    p, q = a / n, b / m
    se = share_difference_se(p, n, q, m)
    return (f"{a:,} of {n:,} ({p:.1%}) against the run's {b:,} of {m:,} ({q:.1%}), "
            f"{100 * (p - q):+.1f} ± {100 * se:.1f} points")


def against_baselines(path: Path, trial: Mapping[int, int], note: str, moves: float, seconds: float,
                      run_rows: Iterable[Mapping[str, Any]], tries: Path | None, goal: int = GOAL) -> str:
    """The lines of a report: the trial's games, then its paired difference
    with the run, each replay and their mean."""
    bases = [("the run", reached(run_rows, goal))]
    if tries is not None:
        bases += [(f"replay {k}", outcomes) for k, outcomes in sorted(read_tries(tries, goal).items())]
    if len(bases) > 1:
        bases.append((f"the mean of all {len(bases)}", mean_base([b for _, b in bases])))
    lines = [f"{path.name}: {len(trial):,} games, {goal} in {sum(trial.values()):,}; "
             f"{note}; {moves / seconds if seconds else float('nan'):,.0f} moves/s in the phase"]
    for name, base in bases:
        n, diff, se = paired(trial, base)
        share = statistics.fmean(base[s] for s in trial if s in base) if n else float("nan")
        lines.append(f"  against {name + ',':<18} {share:6.1%} of {n:,} there: {diff:+.1f} ± {se:.1f} points")
    return "\n".join(lines)


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="+", type=Path, metavar="FILE")
    parser.add_argument("--run", type=Path, help="the package's own run of the phase (with --whole: of whole games)")
    parser.add_argument("--tries", type=Path, default=TRIES, help="its replays (phase_rollouts.py); 'none' for none")
    parser.add_argument("--goal", type=int, default=GOAL, help="the tile the phase ends at (default: 32768)")
    kind = parser.add_mutually_exclusive_group()
    kind.add_argument("--peer", action="store_true",
                      help="the files are bench/peer_phase.py's lines, another program's play")
    kind.add_argument("--whole", action="store_true",
                      help="the files are bench/peer_phase.py's whole games, RUN a whole-game run")
    a = parser.parse_args(argv)
    tries = None if str(a.tries) == "none" else a.tries
    for path in a.files:
        if a.whole:
            print(report_whole(path, a.run or WHOLE_RUN, a.goal))
            continue
        print((report_peer if a.peer else report)(path, a.run or RUN, tries, a.goal))


if __name__ == "__main__":
    main(sys.argv[1:])
