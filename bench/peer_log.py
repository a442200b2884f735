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
whether each of those is the same game in both (score, moves and last
board, as `solve2048 stats --compare` pairs games); then, over the games
only one of them played, each tile's difference in reach rate, its standard
error and Fisher's exact p (the two samples are independent games, not
pairs).
"""

from __future__ import annotations

import json
import math
import re
import sys
from collections.abc import Sequence
from itertools import pairwise
from pathlib import Path
from typing import Any

from solve2048 import Board
from solve2048.stats import compare, same_game, share_se, summarize

END = re.compile(r"score (\d+) max (\d+) sum \d+")
GAME = re.compile(r"game# (\d+) moves (\d+) seconds ([\d.]+)")
TILES = (8192, 16384, 32768, 65536)


def read(path: Path) -> list[dict[str, Any]]:
    """The games of ``path`` as rows (seed, score, max_tile, moves, seconds,
    and from a log the last board, hex). A log's game counts once its "game#"
    line is written; a game cut off by a stop has none and is left out."""
    text = path.read_text()
    if path.suffix == ".ndjson":
        return [json.loads(line) for line in text.splitlines() if line.strip()]
    rows: list[dict[str, Any]] = []
    board: list[list[int]] = []
    end = None
    # splitlines() also breaks at the carriage returns its progress is drawn
    # with, so each game's last board and two last lines come out whole.
    for line in map(str.strip, text.splitlines()):
        if line.startswith("|"):
            # "|  4096 |   512 | > 2 < |       |": the arrows mark the last spawn.
            board = [*board[-3:], [int(cell.strip(" <>") or 0) for cell in line.strip("|").split("|")]]
        elif match := END.fullmatch(line):
            end = match
        elif (match := GAME.match(line)) and end is not None:
            rows.append({"seed": int(match[1]), "score": int(end[1]), "max_tile": int(end[2]),
                         "moves": int(match[2]), "seconds": float(match[3]),
                         "final_board": Board.from_rows(board).hex() if len(board) == 4 else None})
            board, end = [], None
    return rows


def describe(name: str, rows: Sequence[dict[str, Any]]) -> str:
    summary = summarize(rows)
    games = summary["games"]
    parts = [f"{name}: {games:,} games"]
    if games > 1:
        parts.append(f"mean {summary['score']['mean']:,.0f} ± {summary['score']['std'] / math.sqrt(games):,.0f}")
    if games:
        for tile in TILES:
            # summarize() lists the tiles up to the largest any game reached.
            p = summary["reach"].get(str(tile), 0.0)
            parts.append(f"{tile} {p:.1%} ± {share_se(p, games):.1%}")
    if summary["seconds"] > 0:
        parts.append(f"{summary['moves_per_second']:,.0f} moves/s")
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
    differ = [r["seed"] for r in shared if not same_game(r, theirs[r["seed"]])]
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
    reach = compare(only_a, only_b)["reach"]
    for tile in TILES:
        # compare() lists the tiles up to the largest either side reached.
        r = reach.get(str(tile), {"diff": 0.0, "se": 0.0, "p": 1.0})
        lines.append(f"  {tile}: {100 * r['diff']:+.1f} ± {100 * r['se']:.1f} points, Fisher p {r['p']:.3f}")
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
