"""bench/square_plan.c, the exact plan from a board with its big tiles held:
the same probability as a slow expectimax written here over the package's
own moves, on small problems, and the known answers of the rules."""

from __future__ import annotations

import os
import random
import shlex
import subprocess
import sysconfig
from functools import cache
from pathlib import Path

import pytest

from solve2048 import Board
from solve2048.moves import ALL_MOVES

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def program(tmp_path_factory: pytest.TempPathFactory) -> Path:
    compiler = shlex.split(os.environ.get("CC") or sysconfig.get_config_var("CC") or "cc")
    built = tmp_path_factory.mktemp("square_plan") / "square_plan"
    subprocess.run([*compiler, "-std=gnu11", "-O2", "-I", str(ROOT / "csrc"), str(ROOT / "csrc" / "moves.c"),
                    str(ROOT / "bench" / "square_plan.c"), "-o", str(built)], check=True)
    return built


def solve(program: Path, boards: list[Board], f: int, budget: int) -> list[tuple[float, str]]:
    """(p, first move) for each board, from the C tool."""
    text = "".join("".join(f"{rank:x}" for rank in board.exponents) + "\n" for board in boards)
    done = subprocess.run([str(program), str(f), str(budget), "22"], input=text, capture_output=True, text=True,
                          check=True)
    lines = [line.split() for line in done.stdout.splitlines()]
    assert all(len(line) == 5 for line in lines), done.stdout  # no memo ran full
    return [(float(line[1]), line[2]) for line in lines]


def oracle(board: Board, f: int, budget: int) -> float:
    """The plan's probability, written out plainly: the frozen tiles must stay,
    the goal is a free tile equal to a frozen neighbour, a free tile of rank f
    elsewhere or free tiles adding to more than 2^f + budget fail."""
    ranks = board.exponents
    frozen = {cell: rank for cell, rank in enumerate(ranks) if rank >= f}
    pairs = [(cell, near) for cell in frozen for near in neighbours(cell) if near not in frozen]
    free = [cell for cell in range(16) if cell not in frozen]

    def goal(r: tuple[int, ...]) -> bool:
        return any(r[near] == r[cell] for cell, near in pairs)

    def fails(r: tuple[int, ...]) -> bool:
        return any(r[cell] >= f for cell in free) or sum(1 << r[cell] for cell in free if r[cell]) > (1 << f) + budget

    @cache
    def to_move(b: Board) -> float:
        best = 0.0
        for direction in ALL_MOVES:
            after, _ = b.move(direction)
            r = after.exponents
            if after == b or any(r[cell] != rank for cell, rank in frozen.items()):
                continue
            best = max(best, 1.0 if goal(r) else 0.0 if fails(r) else spawned(after))
        return best

    def spawned(after: Board) -> float:
        empty = [cell for cell, rank in enumerate(after.exponents) if rank == 0]
        return sum(0.9 * to_move(after.with_tile(cell, 2)) + 0.1 * to_move(after.with_tile(cell, 4))
                   for cell in empty) / len(empty)

    return 1.0 if goal(ranks) else to_move(board)


def neighbours(cell: int) -> list[int]:
    row, col = divmod(cell, 4)
    return [4 * r + c for r, c in ((row - 1, col), (row + 1, col), (row, col - 1), (row, col + 1))
            if 0 <= r < 4 and 0 <= c < 4]


def test_known_answers_from_the_rules(program: Path) -> None:
    boards = [
        Board("2048 1024 1024 . / . . . . / . . . . / . . . ."),  # left opens 2048 beside the 2048
        Board("2048 4 2 4 / 4 2 4 2 / 2 4 2 4 / 4 2 4 2"),        # no move at all
        Board("2048 . . . / 4096 . . . / . . . . / . . . ."),    # nothing free to build with: every spawn
    ]
    (one, move), (none, no_move), (far, _) = solve(program, boards, 11, 0)
    assert (one, move) == (1.0, "l")
    assert (none, no_move) == (0.0, "-")
    assert far == 0.0  # a 2048 from nothing needs 2048 of free tiles and more, over the budget of 0


def small_board(rng: random.Random) -> Board:
    """A corner block of 16 and more, held, in one of two shapes, and free
    tiles below 16 adding to 6 to 12 elsewhere: a 16 beside the block's 16
    is some spawns away, and the spawns decide whether it comes in time."""
    values = [0] * 16
    block = rng.choice(({0: 64, 1: 32, 4: 16}, {0: 32, 1: 16}))
    for cell, value in block.items():
        values[cell] = value
    free = [cell for cell in range(16) if cell not in block]
    rng.shuffle(free)
    while sum(values) - sum(block.values()) < rng.choice((6, 8, 10)):
        values[free.pop()] = rng.choice((2, 2, 4, 8))
    return Board.from_cells(values)


def test_the_plan_is_the_oracles_on_small_boards(program: Path) -> None:
    rng = random.Random(20261207)
    boards = [small_board(rng) for _ in range(16)]
    answers = solve(program, boards, 4, 2)
    expected = [oracle(board, 4, 2) for board in boards]
    assert [p for p, _ in answers] == pytest.approx(expected, abs=2e-4)
    assert sum(0.0 < p < 1.0 for p in expected) >= 4  # the spawns decide some of them
