"""Where the step from 16384 to 32768 is lost: at its end, one merge chain
from 32768, or before. A game that ends holding 16384 as its largest tile
died in the last chain when its tiles add to at least 32768 - 1024 (the
16384 and, beside it, nearly the 16384 that would merge into 32768), and
earlier when they add to less (from 17,000: past the 16384 itself).

Usage: python bench/last_chain.py FILE...
  each FILE a results file of ours (.jsonl), or a game log of the tables AI
  (macroxue/2048-ai's outputs/2048b.dN, read by its "score S max M sum T" lines).
Prints, for each: games, those reaching 32768, the deaths in the last chain
(and, of them, those with every tile of 32768 on the board, 32,768 or more,
stuck: the chain out of order) and before it, and the last chain's death rate
(its deaths over the games that reached it: those deaths and the games
reaching 32768).
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path

from solve2048 import Board
from solve2048.results import load

LAST_CHAIN_SUM = 32768 - 1024
PAST_16384_SUM = 17_000
ANCHOR_LINE = re.compile(r"score \d+ max (\d+) sum (\d+)")


def endings(path: Path) -> Iterator[tuple[int, int]]:
    """(largest tile, sum of the tiles) of each game's last board."""
    if path.suffix == ".jsonl":
        for row in load(str(path), repair=False).rows:
            if row.get("state") is None:  # a stopped game did not end
                cells = Board.parse(row["final_board"]).cells
                yield max(cells), sum(cells)
        return
    for line in path.read_text().splitlines():
        if match := ANCHOR_LINE.match(line):
            yield int(match.group(1)), int(match.group(2))


def tally(ends: Iterable[tuple[int, int]]) -> tuple[int, int, int, int, int]:
    """(games, games reaching 32768, deaths in the last chain, those of them
    stuck holding tiles that add to 32768 or more, deaths holding 16384 before it)."""
    games = reached = last = stuck = before = 0
    for top, total in ends:
        games += 1
        reached += top >= 32768
        if top == 16384:
            last += total >= LAST_CHAIN_SUM
            stuck += total >= 32768
            before += PAST_16384_SUM <= total < LAST_CHAIN_SUM
    return games, reached, last, stuck, before


def report(path: Path) -> str:
    games, reached, last, stuck, before = tally(endings(path))
    rate = last / (reached + last) if reached + last else float("nan")
    return (f"{path.name}: {games:,} games, 32768 in {reached:,}; died holding 16384 in the last chain "
            f"{last:,} ({stuck:,} of them stuck with 32,768 or more), before it {before:,}; "
            f"the last chain's death rate {rate:.1%}")


def main(argv: list[str]) -> None:
    if not argv:
        sys.exit(__doc__)
    for name in argv:
        print(report(Path(name)))


if __name__ == "__main__":
    main(sys.argv[1:])
