"""The oracle of the search: plain recursive expectimax over ``reference``.

Same depth semantics, heuristic, pruning rule, order of additions and node count
as csrc/search.c, written for the eye rather than for speed. It exists to prove
the C search right (tests/test_search_parity.py); never use it to play.

Depth D = D player moves looked ahead, the first included; the leaf is the board
right after the D-th move (before its spawn), scored by the heuristic. With
``quiescence``, a leaf with at most that many empty cells, not reached through a
pruned branch nor moved from a board with two 32768s, is worth one more spawn
and move instead: a chance node with one move left, whose own leaves are
scored by the heuristic. With ``late_quiescence``, a board holding 32768 or
more looks past leaves of at most that many empty cells instead. With the
weights' ``pass_from``, a root holding that tile searches with a pass (see
``pass_score``).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass

from solve2048 import reference
from solve2048.engine import MAX_DEPTH, Prune, Weights, check_late_quiescence, check_quiescence, prune_threshold
from solve2048.errors import InvalidArgumentError
from solve2048.reference_tables import symmetry

# The search plays on the board's 64-bit copy (reference.downgrade), whose
# cells hold tiles up to 32768: a merge of two of them is not played there.
CELL_MAX_TILE = 32768


def _rank(value: int) -> int:
    return value.bit_length() - 1 if value else 0


def rank_power(rank: int, p: float) -> float:
    """rank ** p, computed as csrc/evaluate.c does: for integer and half-integer p up
    to 13, an exact integer power times a correctly rounded sqrt (machine-independent)."""
    twice = 2.0 * p
    if 0.0 <= p <= 13.0 and twice == math.floor(twice):
        r = 1.0
        for _ in range(int(p)):
            r *= rank
        if twice - 2.0 * math.floor(p) == 1.0:
            r *= math.sqrt(rank)
        return r
    # float ** float is typed Any (a negative base gives a complex); rank >= 0 here.
    power: float = float(rank) ** p
    return power


def _chain_tile(rank: int) -> float:
    return float(rank * (1 << rank))


@functools.lru_cache(maxsize=1 << 16)
def row_value(ranks: tuple[int, int, int, int], w: Weights) -> float:
    """The heuristic value of one line of four ranks, read from its first cell."""
    total = 0.0
    empty = merges = prev = run = 0
    for rank in ranks:
        total += rank_power(rank, w.sum_power)
        if rank == 0:
            empty += 1
            continue
        # A run of equal tiles, empty cells between them allowed.
        if rank == prev:
            run += 1
        elif run > 0:
            merges += 1 + run
            run = 0
        prev = rank
    if run > 0:
        merges += 1 + run

    mono_left = mono_right = 0.0
    for i in range(1, 4):
        a = rank_power(ranks[i - 1], w.mono_power)
        b = rank_power(ranks[i], w.mono_power)
        if ranks[i - 1] > ranks[i]:
            mono_left += a - b
        else:
            mono_right += b - a
    mono = mono_left if mono_left < mono_right else mono_right

    # Corner: every rise away from the line's first cell (top or left).
    rises = 0.0
    for i in range(1, 4):
        if ranks[i] > ranks[i - 1]:
            rises += rank_power(ranks[i], w.corner_power) - rank_power(ranks[i - 1], w.corner_power)

    # Chain: tiles weigh rank * 2**rank; steps down add, steps up cost.
    chain = _chain_tile(ranks[0])
    for i in range(1, 4):
        a, b = _chain_tile(ranks[i - 1]), _chain_tile(ranks[i])
        if a >= b:
            chain += a + b + a if a == b else a + b
        else:
            chain += (a - b) * w.chain_penalty

    return (
        w.lost_penalty
        + w.empty_weight * empty
        + w.merges_weight * merges
        - w.mono_weight * mono
        - w.sum_weight * total
        - w.corner_weight * rises
        + w.chain_weight * chain
    )


def heuristic(cells: Sequence[int], w: Weights = Weights()) -> float:
    """The values of rows 0..3 (left to right) and columns 0..3 (top to bottom),
    added as ((r0 + r1) + (r2 + r3)) + ((c0 + c1) + (c2 + c3)), as in C."""
    ranks = [_rank(v) for v in cells]
    r = [row_value(tuple(ranks[4 * i : 4 * i + 4]), w) for i in range(4)]
    c = [row_value(tuple(ranks[i::4]), w) for i in range(4)]
    return ((r[0] + r[1]) + (r[2] + r[3])) + ((c[0] + c[1]) + (c[2] + c[3]))


def pass_score(board: Sequence[int], w: Weights) -> float | None:
    """The pass of a search from this board (its 64-bit copy), or None: from a
    board holding ``w.pass_from`` on, twice its top tile's chain weight
    (2 * r * 2**r for rank r, times chain_weight) above the eight lines of a
    live board (8 * lost_penalty). When the root reads at least that, a chance
    node whose board reads below it is a leaf."""
    top = max(_rank(v) for v in board)
    if not w.pass_from > 0.0 or 2.0 ** top < w.pass_from:
        return None
    return w.chain_weight * 2.0 * _chain_tile(top) + _lines(w)


def _lines(w: Weights) -> float:
    """What the eight lines of a live board add over a lost one."""
    return 8.0 * w.lost_penalty


def pass_lost(pass_: float, w: Weights) -> float:
    """A lost board's value beside a pass: as far below the lines' share as
    the pass is above it, and never above 0."""
    return _lines(w) - max(_lines(w), pass_ - _lines(w))


@dataclass
class _Search:
    weights: Weights
    prune: float
    quiescence: int | None = None
    nodes: int = 0
    pass_: float | None = None   # chance nodes reading below it are leaves (None: no pass)
    lost: float | None = None    # a lost board's value (None: the weights' lost_value)

    def playable(self, cells: list[int], direction: str) -> list[int] | None:
        """The board after the move, or None when the search may not play it:
        it changes nothing, or it would make 65536, which the copy cannot hold."""
        after, _ = reference.move(cells, direction)
        if after == cells or max(after) > CELL_MAX_TILE:
            return None
        return after

    def max_node(self, cells: list[int], remaining: int, prob: float, look: bool = True) -> float:
        self.nodes += 1
        look = look and _may_look(cells)
        best: float | None = None
        for direction in reference.DIRECTIONS:
            after = self.playable(cells, direction)
            if after is not None:
                value = self.chance_node(after, remaining, prob, look)
                if best is None or value > best:
                    best = value
        if best is not None:
            return best
        return self.weights.lost_value if self.lost is None else self.lost

    def chance_node(self, cells: list[int], remaining: int, prob: float, look: bool = True) -> float:
        """``look`` is False where no leaf below looks further: under a leaf that
        did (its own leaves are plain) and under a board with two 32768s."""
        if prob < self.prune:
            return heuristic(cells, self.weights)
        if remaining == 0:
            if not (look and self.quiescence is not None and cells.count(0) <= self.quiescence):
                return heuristic(cells, self.weights)
            remaining, look = 1, False  # a crowded leaf: one more spawn and move
        elif self.pass_ is not None and (value := heuristic(cells, self.weights)) < self.pass_:
            return value  # a line the pass is over: a leaf, not counted
        self.nodes += 1
        empty = [i for i, v in enumerate(cells) if v == 0]
        cell_prob = prob / len(empty)
        total = 0.0
        for i in empty:
            with2 = cells[:i] + [2] + cells[i + 1 :]
            with4 = cells[:i] + [4] + cells[i + 1 :]
            v2 = self.max_node(with2, remaining - 1, cell_prob * 0.9, look)
            v4 = self.max_node(with4, remaining - 1, cell_prob * 0.1, look)
            total += 0.9 * v2 + 0.1 * v4
        return total / len(empty)


def _may_look(cells: Sequence[int]) -> bool:
    """Whether the leaves of moves from this board may look further: not on a
    board with two 32768s, which the search's copy cannot merge."""
    return cells.count(CELL_MAX_TILE) < 2


def searched_depth(cells: Sequence[int], depth: int | str, danger: int | None = None) -> int:
    """How deep the search goes on this board (its 64-bit copy): depth "auto"
    by the distinct tiles (3 up to 6, 4 up to 8, 5 beyond); a fixed depth one move deeper at
    ``danger`` or fewer empty cells (None: never), never past MAX_DEPTH."""
    board, _ = reference.downgrade(cells)
    if depth == "auto":
        distinct = len({value for value in board if value})
        return 3 if distinct <= 6 else 4 if distinct <= 8 else 5
    assert isinstance(depth, int)
    return _deepened(board, depth, danger)


def _deepened(board: Sequence[int], depth: int, danger: int | None) -> int:
    in_danger = danger is not None and board.count(0) <= danger
    return depth + 1 if in_danger and depth < MAX_DEPTH else depth


def search_symmetry(board: Sequence[int], weights: Weights) -> int:
    """The symmetry (0..3: bit 0 mirrors left-right, bit 1 flips top-bottom)
    the search reads a board in: the corner where it reads best, the board as
    it is first among equals."""
    best, chosen = heuristic(board, weights), 0
    for s in range(1, 4):
        value = heuristic(symmetry(list(board), s), weights)
        if value > best:
            best, chosen = value, s
    return chosen


_MIRRORED = {"left": "right", "right": "left"}
_FLIPPED = {"up": "down", "down": "up"}


def direction_back(s: int, direction: str) -> str:
    """The direction on a board that ``direction`` is on its symmetry s (0..3)."""
    if s & 1:
        direction = _MIRRORED.get(direction, direction)
    if s & 2:
        direction = _FLIPPED.get(direction, direction)
    return direction


@dataclass(frozen=True)
class OracleResult:
    values: dict[str, float | None]  # None for a direction the search cannot play
    nodes: int


def expectimax(
    cells: Sequence[int], depth: int, prune: Prune = 1e-4, weights: Weights = Weights(),
    quiescence: int | None = None, late_quiescence: int | None = None,
) -> OracleResult:
    """The value of every direction at this depth (>= 1), as the C search computes it
    with its transposition table off, on the board's 64-bit copy as it does;
    ``quiescence`` and ``late_quiescence`` as SearchSettings's (None: no look,
    and the quiescence throughout)."""
    if depth < 1:
        raise InvalidArgumentError(f"expected depth >= 1, got {depth}")
    check_quiescence(quiescence)
    if check_late_quiescence(late_quiescence) is not None and max(cells) >= CELL_MAX_TILE:
        quiescence = late_quiescence
    search = _Search(weights, prune_threshold(prune, depth), quiescence)
    board, _ = reference.downgrade(cells)
    s = search_symmetry(board, weights)
    board = symmetry(board, s)
    pass_ = pass_score(board, weights)
    if pass_ is not None:
        search.pass_ = pass_ if heuristic(board, weights) >= pass_ else None
        search.lost = pass_lost(pass_, weights)
    values = _root_values(search, board, depth)
    legal = [v for v in values.values() if v is not None]
    if pass_ is not None and legal and max(legal) < _lines(weights):
        # No move reads above a live board's lines: searched again in full.
        search.pass_ = search.lost = None
        values = _root_values(search, board, depth)
    back = _back(values, s)
    # Only the board's own moves are valued: its copy may merge what the board
    # cannot (two 131072s, or two ranks a full copy had to join).
    playable = reference.legal_moves(cells)
    return OracleResult({d: back[d] if d in playable else None for d in reference.DIRECTIONS}, search.nodes)


def _root_values(search: _Search, board: list[int], depth: int) -> dict[str, float | None]:
    """Each direction's value on the board as the search reads it (None: not
    playable), the root counted as a node."""
    search.nodes += 1
    values: dict[str, float | None] = {}
    for direction in reference.DIRECTIONS:
        after = search.playable(board, direction)
        values[direction] = None if after is None else search.chance_node(after, depth - 1, 1.0, _may_look(board))
    return values


def _back(values: dict[str, float | None], s: int) -> dict[str, float | None]:
    """The values of the board's own directions, from those of its symmetry s."""
    return {direction_back(s, direction): value for direction, value in values.items()}
