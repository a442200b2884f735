"""The solver's verdict on the moves of a game: what was played, what was best, and
what the difference cost.

``review_move`` judges one move on one board (the web page calls it as a person
plays); ``review_record`` judges every move of a game record, one at a time, so a
caller can stop at any move and still summarise what was reviewed (``summarize``).
The best move is what ``decide`` plays, so it is always the move ``hint`` names
with the same settings.

The loss of a move is read on the search's values of the four directions, which
are expected heuristic scores. Each line of a live board is worth a large constant
(the heuristic's ``lost_penalty``) over a lost one, so the values of every legal
move are close to one another in ratio (1,618,350 against 1,620,788), and a plain
played/best ratio calls nearly every move fine. The loss is measured against what
is at stake on the board instead: the spread between its best and its worst legal
move, but never less than STAKE_FLOOR of the best move's value,

    loss = (best - played) / max(best - worst, STAKE_FLOOR * best)

(values of the search), 0 for the best move, 1 for the worst where the spread is
what is at stake. The constant cancels out of the spread, and the floor scales
with the values, so the heuristic's scale does not matter (the tables' heuristic's
values are about 12 times smaller). The floor keeps a board where nothing is at
stake from magnifying noise: on the opening board the four directions differ by
33 in 1,632,238, and the spread alone would call the worst of them a total loss.
A board with one legal move, or whose legal moves are all worth the same, loses 0.
Where a trusted table chose the best move, the loss is still read on the search's
values (a table knows only its own move's probability); a move the search values
at or above the table's move loses 0, and ``from_table`` says that a table
knew better (summaries count those moves: ``table_missed``).
A move is a mistake when its loss is above the threshold (DEFAULT_THRESHOLD; how it
was chosen: docs/review.md).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from solve2048.board import Board
from solve2048.decide import Decision, decide
from solve2048.errors import InvalidArgumentError
from solve2048.moves import ALL_MOVES, Move
from solve2048.record import Position, Replay, positions
from solve2048.search import as_board
from solve2048.settings import Heuristic, SearchSettings

DEFAULT_THRESHOLD: float = 0.05
# What is always at stake, as a share of the best move's value (about two thirds of
# an empty cell's worth on the default heuristic's opening board): docs/review.md.
STAKE_FLOOR = 1e-3
# How many of the costliest moves a summary names.
WORST_SHOWN = 5


def check_threshold(threshold: float) -> float:
    """The threshold as a float, or InvalidArgumentError: a loss is 0..1, and a
    threshold of 1 or more could never flag a move."""
    if (isinstance(threshold, bool) or not isinstance(threshold, (int, float))
            or not math.isfinite(threshold) or not 0 <= threshold < 1):
        raise InvalidArgumentError(f"expected a mistake threshold from 0 to below 1 (a share of what is at "
                                   f"stake), got {threshold!r}")
    return float(threshold)


@dataclass(frozen=True)
class MoveReview:
    """The verdict on one move: the played and the best direction, every direction's
    value, the played move's loss (0..1) and whether it is a mistake."""

    board: Board                        # before the move
    played: Move
    best: Move                          # what decide (and so hint) plays here
    values: dict[Move, float | None]    # the search's values; None when illegal
    loss: float                         # 0 when played is best; see the module's docstring
    mistake: bool                       # loss above the threshold
    from_table: bool                    # a trusted endgame table chose the best move
    table_probability: float | None     # the covering table's success probability, if one covers
    depth: int                          # the depth of the search the values come from
    heuristic: Heuristic                # the values' scale
    move: int | None = None             # the move's number in its record (1-based), None alone

    @property
    def shortfall(self) -> float:
        """How far below the best move's value the played move's is, in the search's
        values (0 when it is the best, or when the search cannot tell)."""
        mine, top = self.values.get(self.played), self.values.get(self.best)
        return max(0.0, top - mine) if mine is not None and top is not None and self.played != self.best else 0.0

    def to_json(self) -> dict[str, Any]:
        return {
            "move": self.move,
            "board": list(self.board.cells),
            "played": str(self.played),
            "best": str(self.best),
            "loss": self.loss,
            "mistake": self.mistake,
            "values": {str(m): self.values.get(m) for m in ALL_MOVES},
            "from_table": self.from_table,
            "table_probability": self.table_probability,
            "depth": self.depth,
            "heuristic": self.heuristic,
        }


def move_loss(values: dict[Move, float | None], played: Move, best: Move) -> float:
    """The played move's loss, 0..1 (the module's docstring says what it measures).
    The best move loses 0, even when a table chose it and the search ranks another
    above it; so does a move the search ranks at or above the best one."""
    if played == best:
        return 0.0
    legal = [v for v in values.values() if v is not None]
    mine, top = values.get(played), values.get(best)
    if mine is None or top is None or len(legal) < 2:
        # The board's 64-bit copy hides a legal move from the search (two 32768s),
        # or there is no choice: nothing to measure the move against.
        return 0.0
    stake = max(max(legal) - min(legal), STAKE_FLOOR * abs(top))
    if stake <= 0:  # every legal move is worth the same
        return 0.0
    return min(1.0, max(0.0, (top - mine) / stake))


def review_move(board: Board | str, played: Move | str, settings: SearchSettings | None = None, *,
                threshold: float = DEFAULT_THRESHOLD, move: int | None = None) -> MoveReview:
    """The verdict on playing ``played`` on ``board``, searched with ``settings``.
    Raises InvalidArgumentError when no move is legal on the board, or ``played``
    is not one of its legal moves."""
    position = as_board(board)
    direction = Move.parse(played)
    threshold = check_threshold(threshold)
    legal = position.legal_moves()
    if not legal:
        raise InvalidArgumentError("no move is legal on this board: the game is over, there is nothing to review")
    if direction not in legal:
        names = ", ".join(str(m) for m in legal)
        raise InvalidArgumentError(f"{direction} is not a legal move on this board (legal: {names})")
    return _verdict(decide(position, settings), direction, threshold, move)


def _verdict(decision: Decision, played: Move, threshold: float, move: int | None) -> MoveReview:
    assert decision.move is not None  # a board with a legal move always has a decision
    analysis = decision.analysis
    values = analysis.values if analysis is not None else dict.fromkeys(ALL_MOVES)
    loss = move_loss(values, played, decision.move)
    table = decision.table
    return MoveReview(
        board=decision.board, played=played, best=decision.move, values=dict(values), loss=loss,
        mistake=loss > threshold, from_table=decision.from_table,
        table_probability=table.probability if table is not None else None,
        depth=analysis.depth if analysis is not None else 0, heuristic=decision.heuristic, move=move,
    )


Progress = Callable[[int, int], None]


class RecordReview:
    """A record's moves, checked and ready for review: iterating it searches them one
    by one and yields a MoveReview each, so an interrupted review keeps what it
    reviewed. Made by ``review_record``."""

    def __init__(self, replay: Replay, moves: list[Position], settings: SearchSettings,
                 threshold: float, progress: Progress | None) -> None:
        self.replay = replay           # what the record replays to, checked by the rules
        self.settings = settings
        self.threshold = threshold
        self._moves = moves
        self._progress = progress

    @property
    def total(self) -> int:
        return len(self._moves)

    def __iter__(self) -> Iterator[MoveReview]:
        for done, position in enumerate(self._moves, start=1):
            board = Board.from_cells(position.cells)
            yield _verdict(decide(board, self.settings), Move.parse(position.direction), self.threshold,
                           position.move)
            if self._progress is not None:
                self._progress(done, self.total)


def review_record(lines: Iterable[str], settings: SearchSettings | None = None, *,
                  threshold: float = DEFAULT_THRESHOLD, progress: Progress | None = None) -> RecordReview:
    """Checks the record in ``lines`` as ``replay`` does (RecordError at the first
    line that is wrong, before any search), and returns its review to iterate;
    ``progress(done, total)`` is called after each move is reviewed."""
    threshold = check_threshold(threshold)
    settings = SearchSettings.of(settings)
    walk = positions(lines)
    moves: list[Position] = []
    while True:
        try:
            moves.append(next(walk))
        except StopIteration as done:
            replay: Replay = done.value
            break
    return RecordReview(replay, moves, settings, threshold, progress)


@dataclass(frozen=True)
class ReviewSummary:
    """What the reviewed moves add up to."""

    moves: int
    mistakes: int
    threshold: float
    mean_loss: float
    table_moves: int                 # moves whose best a table chose
    table_missed: int                # of those, moves where another was played
    worst: tuple[MoveReview, ...]    # the costliest moves, costliest first

    @property
    def accuracy(self) -> float:
        """The share of moves that were not mistakes (1.0 for no moves)."""
        return 1.0 - self.mistakes / self.moves if self.moves else 1.0

    def to_json(self) -> dict[str, Any]:
        return {
            "moves": self.moves,
            "mistakes": self.mistakes,
            "accuracy": self.accuracy,
            "threshold": self.threshold,
            "mean_loss": self.mean_loss,
            "table_moves": self.table_moves,
            "table_missed": self.table_missed,
            "worst": [r.to_json() for r in self.worst],
        }


def summarize(reviews: Sequence[MoveReview], *, threshold: float = DEFAULT_THRESHOLD,
              worst: int = WORST_SHOWN) -> ReviewSummary:
    """The summary of ``reviews`` (any number, an interrupted review's too): the
    ``worst`` costliest moves with a loss above 0, costliest first; among equal
    losses (a board with two legal moves loses all or nothing) the larger shortfall
    in value first, then the earlier."""
    costly = sorted((r for r in reviews if r.loss > 0), key=lambda r: (-r.loss, -r.shortfall, r.move or 0))
    return ReviewSummary(
        moves=len(reviews),
        mistakes=sum(r.mistake for r in reviews),
        threshold=check_threshold(threshold),
        mean_loss=sum(r.loss for r in reviews) / len(reviews) if reviews else 0.0,
        table_moves=sum(r.from_table for r in reviews),
        table_missed=sum(r.from_table and r.played != r.best for r in reviews),
        worst=tuple(costly[:worst]),
    )
