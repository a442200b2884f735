"""The tables AI's own game logs: its reach rates, whether a log of ours
replays its published one, and how far apart two samples of its games are.

macroxue/2048-ai's game mode (`./2048b -d 4 -i GAMES SEED`) plays game SEED + i
from srand(SEED + i) and ends each game with two lines, the form of its
published `outputs/2048b.dN`:

    score 795556 max 32768 sum 61444
    game# 2981 moves 27879 seconds 14.1 moves/s 1976.4

Usage: python bench/peer_log.py LOG [LOG2]
  LOG, LOG2  such a log, or the lines bench/peer_phase.py writes (.ndjson)
With one: its games, mean ± s.e., each tile's reach rate ± s.e., and each
step's rate from the games that reached its first tile.
With two: both, then the games they share (by game number, or seed), and
whether each of those is the same game in both (moves, score, largest tile);
then, over the games only one of them played, each tile's difference in
reach rate, its standard error and Fisher's exact p (the two samples are
independent games, not pairs).
"""

from __future__ import annotations

import json
import math
import re
import statistics
import sys
from collections.abc import Sequence
from itertools import pairwise
from pathlib import Path
from typing import Any

from solve2048.stats import fisher_p

END = re.compile(r"score (\d+) max (\d+) sum \d+")
GAME = re.compile(r"game# (\d+) moves (\d+) seconds ([\d.]+)")
TILES = (8192, 16384, 32768, 65536)


def read(path: Path) -> list[dict[str, Any]]:
    """The games of ``path`` as rows (seed, score, max_tile, moves, seconds).
    A log's game counts once its "game#" line is written; a game cut off by a
    stop has none and is left out."""
    text = path.read_text()
    if path.suffix == ".ndjson":
        return [json.loads(line) for line in text.splitlines() if line.strip()]
    rows, end = [], None
    # splitlines() also breaks at the carriage returns its progress is drawn
    # with, so each game's two last lines come out whole.
    for line in map(str.strip, text.splitlines()):
        if match := END.fullmatch(line):
            end = match
        elif (match := GAME.match(line)) and end is not None:
            rows.append({"seed": int(match[1]), "score": int(end[1]), "max_tile": int(end[2]),
                         "moves": int(match[2]), "seconds": float(match[3])})
            end = None
    return rows


def rate(hits: int, games: int) -> tuple[float, float]:
    """A reach rate and its standard error."""
    p = hits / games
    return p, math.sqrt(p * (1 - p) / games)


def describe(name: str, rows: Sequence[dict[str, Any]]) -> str:
    scores = [r["score"] for r in rows]
    games = len(rows)
    moves, seconds = sum(r["moves"] for r in rows), sum(r["seconds"] for r in rows)
    parts = [f"{name}: {games:,} games"]
    if games > 1:
        parts.append(f"mean {statistics.fmean(scores):,.0f} ± {statistics.stdev(scores) / math.sqrt(games):,.0f}")
    if games:
        for tile in TILES:
            p, se = rate(sum(r["max_tile"] >= tile for r in rows), games)
            parts.append(f"{tile} {p:.1%} ± {se:.1%}")
    if seconds > 0:
        parts.append(f"{moves / seconds:,.0f} moves/s")
    return ", ".join(parts) + "\n  steps: " + steps(rows)


def steps(rows: Sequence[dict[str, Any]]) -> str:
    """Each step from one tile to the next over the games that reached the first."""
    parts = []
    for low, high in pairwise(TILES):
        at = sum(r["max_tile"] >= low for r in rows)
        on = sum(r["max_tile"] >= high for r in rows)
        parts.append(f"{low} -> {high} {on:,} of {at:,}" + (f" ({on / at:.1%})" if at else ""))
    return ", ".join(parts)


def same_games(a: Sequence[dict[str, Any]], b: Sequence[dict[str, Any]]) -> str:
    """How many of the games both played are the same game in both."""
    theirs = {r["seed"]: r for r in b}
    shared = [r for r in a if r["seed"] in theirs]
    differ = [r["seed"] for r in shared
              if any(r[k] != theirs[r["seed"]][k] for k in ("moves", "score", "max_tile"))]
    line = f"shared games: {len(shared):,}, the same game in both: {len(shared) - len(differ):,}"
    return line + (f"; the first that differs: {differ[0]}" if differ else "")


def apart(a: Sequence[dict[str, Any]], b: Sequence[dict[str, Any]]) -> list[str]:
    """Each tile's reach rate in B less A's over the games only one of them
    played, with the standard error of that difference and Fisher's p."""
    seeds_a, seeds_b = {r["seed"] for r in a}, {r["seed"] for r in b}
    only_a = [r for r in a if r["seed"] not in seeds_b]
    only_b = [r for r in b if r["seed"] not in seeds_a]
    if not only_a or not only_b:
        return []
    lines = [f"apart (the {len(only_a):,} and {len(only_b):,} games only one played), second less first:"]
    for tile in TILES:
        hits_a = sum(r["max_tile"] >= tile for r in only_a)
        hits_b = sum(r["max_tile"] >= tile for r in only_b)
        (pa, sa), (pb, sb) = rate(hits_a, len(only_a)), rate(hits_b, len(only_b))
        p = fisher_p(hits_a, len(only_a), hits_b, len(only_b))
        lines.append(f"  {tile}: {100 * (pb - pa):+.1f} ± {100 * math.hypot(sa, sb):.1f} points, Fisher p {p:.3f}")
    return lines


def main(argv: list[str]) -> None:
    if len(argv) not in (1, 2) or argv[0].startswith("-"):
        sys.exit(__doc__)
    paths = [Path(name) for name in argv]
    samples = [read(path) for path in paths]
    for path, rows in zip(paths, samples, strict=True):
        print(describe(path.name, rows))
    if len(samples) == 2:
        print(same_games(*samples))
        print("\n".join(apart(*samples)))


if __name__ == "__main__":
    main(sys.argv[1:])
