"""Where games are lost: what the player had built on the board it lost on.

A results line keeps its game's last board (``final_board``). This module reads
each such board for the signs a strong player's board shows and a lost one
loses: the largest tile in a corner, the tiles falling in order along a snake
from that corner, how many ranks below the largest are all held (how far the
game had come toward its next merge), and the big tiles held twice but apart
(pairs that could not meet). Lines also say what the endgame tables saw: the
moves played where no table covered the board, the last move a table
covered with its probability there, and where that covered stretch began,
at what probability. ``summarize`` groups the games by the
largest tile at death; ``solve2048 stats --deaths`` prints it.

Pure functions over result rows; no I/O.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from statistics import median
from typing import Any

from solve2048.board import Board

# A tile this big or bigger held twice on a lost board is a pair that never met.
BIG_TILE = 256


def _snake_paths() -> list[tuple[int, ...]]:
    """The 8 snakes over the board: from each corner, row by row or column by
    column, turning at each edge (the shape the strong players keep)."""
    rows = [[4 * r + c for c in range(4)] for r in range(4)]
    paths = []
    for lines in (rows, [list(col) for col in zip(*rows, strict=True)]):   # by rows, by columns
        for flip_lines in (False, True):                                    # from the top or the bottom
            for flip_first in (False, True):                                # from the left or the right
                ordered = lines[::-1] if flip_lines else lines
                path: list[int] = []
                for i, line in enumerate(ordered):
                    forward = (i % 2 == 0) != flip_first
                    path += line if forward else line[::-1]
                paths.append(tuple(path))
    return paths


SNAKES = _snake_paths()
CORNERS = frozenset({0, 3, 12, 15})


@dataclass(frozen=True)
class Death:
    """What one lost board shows."""

    max_tile: int
    corner: bool    # the largest tile in a corner
    snake: int      # tiles falling strictly along the best snake from a corner
    chain: int      # ranks right below the largest that the board all holds
    big_pairs: int  # tiles of BIG_TILE or more held more than once

    @classmethod
    def of(cls, board: Board) -> Death:
        cells = board.cells
        top = max(cells)
        return cls(max_tile=top, corner=any(cells[i] == top for i in CORNERS), snake=_snake_length(cells),
                   chain=_chain(cells), big_pairs=_big_pairs(cells))


def _snake_length(cells: Sequence[int]) -> int:
    best = 0
    for path in SNAKES:
        length = 0
        previous = None
        for cell in path:
            value = cells[cell]
            if value == 0 or (previous is not None and value >= previous):
                break
            length += 1
            previous = value
        best = max(best, length)
    return best


def _chain(cells: Sequence[int]) -> int:
    held = set(cells)
    tile, count = max(cells) // 2, 0
    while tile >= 2 and tile in held:
        count += 1
        tile //= 2
    return count


def _big_pairs(cells: Sequence[int]) -> int:
    big = [v for v in cells if v >= BIG_TILE]
    return len(big) - len(set(big))


def summarize(rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The deaths of the rows that keep their final board, grouped by the largest
    tile at death: how many, and the mean of each sign, with the share of their
    moves the endgame tables chose."""
    # A game that stopped at a tile (batch --stop-at) was not lost.
    read = [(row, Death.of(Board.parse(row["final_board"]))) for row in rows
            if row.get("final_board") and row.get("state") is None]
    groups: dict[int, list[tuple[dict[str, Any], Death]]] = {}
    for row, death in read:
        groups.setdefault(death.max_tile, []).append((row, death))
    return {
        "games": len(read),
        "without_board": len(rows) - len(read),
        "by_max_tile": [_group(tile, groups[tile], len(read)) for tile in sorted(groups)],
    }


def _group(tile: int, members: list[tuple[dict[str, Any], Death]], total: int) -> dict[str, Any]:
    n = len(members)
    deaths = [d for _, d in members]
    moves = sum(r["moves"] for r, _ in members)
    table_moves = sum(r.get("table_moves") or 0 for r, _ in members)
    return {
        "max_tile": tile,
        "games": n,
        "share": n / total,
        "corner": sum(d.corner for d in deaths) / n,
        "snake": sum(d.snake for d in deaths) / n,
        "chain": sum(d.chain for d in deaths) / n,
        "big_pairs": sum(d.big_pairs for d in deaths) / n,
        "moves": moves / n,
        "table_move_share": table_moves / moves if moves else 0.0,
        **_coverage([r for r, _ in members]),
        **_stretch([r for r, _ in members]),
        "last_tables": _last_tables([r for r, _ in members]),
    }


def _last_tables(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Which table covered these games' boards last (lines that record it),
    most games first: how many, how many of them it still covered on the
    losing move itself, its mean probability there, how many of them it
    played (its answer trusted) rather than the search, and the medians of
    the last covered stretch that ended with it (None where no line records
    the stretch)."""
    by_table: dict[str, list[dict[str, Any]]] = {}
    for r in rows:
        if r.get("last_table") and r.get("last_covered"):
            by_table.setdefault(r["last_table"], []).append(r)
    found = [_last_table(label, group) for label, group in by_table.items()]
    return sorted(found, key=lambda t: (-t["games"], t["table"]))


def _last_table(label: str, group: list[dict[str, Any]]) -> dict[str, Any]:
    """One row of _last_tables: the games whose last covered board was label's."""
    stretch = _stretch(group)
    return {
        "table": label,
        "games": len(group),
        "on_last_move": sum(r["last_covered"] == r["moves"] for r in group) / len(group),
        "probability": sum(r["last_probability"] for r in group) / len(group),
        "played": sum(bool(r.get("last_trusted")) for r in group) / len(group),
        "stretch_moves_median": stretch["stretch_moves_median"],
        "stretch_probability_median": stretch["stretch_probability_median"],
    }


def _coverage(rows: list[dict[str, Any]]) -> dict[str, float | None]:
    """What the tables saw of these games (lines that record it; None when none
    does): the share of moves on boards no table covered, how many moves before
    the end a table last covered the board, and its probability there."""
    known = [r for r in rows if r.get("uncovered_moves") is not None and r.get("last_covered") is not None]
    covered = [r for r in known if r["last_covered"]]
    moves = sum(r["moves"] for r in known)
    return {
        "uncovered_share": sum(r["uncovered_moves"] for r in known) / moves if moves else None,
        "never_covered": (len(known) - len(covered)) / len(known) if known else None,
        "moves_after_tables": (sum(r["moves"] - r["last_covered"] for r in covered) / len(covered)
                               if covered else None),
        "last_probability": (sum(r["last_probability"] for r in covered) / len(covered) if covered else None),
    }


def _stretch(rows: list[dict[str, Any]]) -> dict[str, float | None]:
    """The last covered stretch of these games (lines that record it; None
    when none does): how many moves it lasted, and the covering table's
    probability where it began, each as mean and median. A short stretch that
    began low is a table meeting a board already lost; a long one that began
    high, a table losing a board it had judged good."""
    known = [r for r in rows if r.get("stretch_start")]
    lengths = [r["last_covered"] - r["stretch_start"] + 1 for r in known]
    starts = [r["stretch_probability"] for r in known]
    return {
        "stretch_moves": sum(lengths) / len(lengths) if known else None,
        "stretch_moves_median": float(median(lengths)) if known else None,
        "stretch_probability": sum(starts) / len(starts) if known else None,
        "stretch_probability_median": float(median(starts)) if known else None,
    }
