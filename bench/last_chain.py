"""Where the step from 16384 to 32768 is lost: at its end, one merge chain
from 32768, or before. A game that ends holding 16384 as its largest tile
died in the last chain when its tiles add to at least 32768 - 1024 (the
16384 and, beside it, nearly the 16384 that would merge into 32768), and
earlier when they add to less (from 17,000: past the 16384 itself).
With --top 32768 the same for the step from 32768 to 65536 (the sums
doubled, less 1024 for the last chain).

Usage: python bench/last_chain.py [--top 16384|32768] FILE...
  each FILE a results file of ours (.jsonl), or a game log of the tables AI
  (macroxue/2048-ai's outputs/2048b.dN, read by its "score S max M sum T" lines).
Prints, for each: games, those reaching twice the top tile (16384 unless
--top says 32768), the deaths in the last chain (and, of them, those with
every tile of twice the top on the board, stuck: the chain out of order) and
before it, and the last chain's death rate (its deaths over the games that
reached it: those deaths and the games reaching twice the top).
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path

from solve2048 import Board
from solve2048.results import load

TOP = 16384
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


def tally(ends: Iterable[tuple[int, int]], top: int = TOP) -> tuple[int, int, int, int, int]:
    """(games, games reaching 2 * top, deaths in the last chain, those of them
    stuck holding tiles that add to 2 * top or more, deaths holding top before it)."""
    last_chain, past_top = 2 * top - 1024, top + top * 616 // 16384   # 31,744 and 17,000 for 16384
    games = reached = last = stuck = before = 0
    for largest, total in ends:
        games += 1
        reached += largest >= 2 * top
        if largest == top:
            last += total >= last_chain
            stuck += total >= 2 * top
            before += past_top <= total < last_chain
    return games, reached, last, stuck, before


def report(path: Path, top: int = TOP) -> str:
    games, reached, last, stuck, before = tally(endings(path), top)
    rate = last / (reached + last) if reached + last else float("nan")
    return (f"{path.name}: {games:,} games, {2 * top} in {reached:,}; died holding {top} in the last chain "
            f"{last:,} ({stuck:,} of them stuck with {2 * top:,} or more), before it {before:,}; "
            f"the last chain's death rate {rate:.1%}")


def main(argv: list[str]) -> None:
    top = TOP
    if argv[:1] == ["--top"] and len(argv) > 1 and argv[1] in ("16384", "32768"):
        top, argv = int(argv[1]), argv[2:]
    if not argv or argv[0].startswith("-"):
        sys.exit(__doc__)
    for name in argv:
        print(report(Path(name), top))


if __name__ == "__main__":
    main(sys.argv[1:])
