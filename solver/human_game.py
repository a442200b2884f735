"""A person's game of 2048, by the rulebook: state, moves, win, game over.

No terminal here: the curses front end (solve2048.cli.game) draws this state and
feeds it keys, and the tests drive it directly. Spawns come from the seeded
generator of solve2048.rng, whose state is saved with the game
(solve2048.saves), so a restored game goes on exactly as it would have.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from solve2048.board import WIN_TILE, Board, InvalidBoardError
from solve2048.errors import InvalidArgumentError
from solve2048.moves import Move
from solve2048.rng import MASK64, MAX_SEED, Rng

SAVE_VERSION = 1
# No game comes near this (a game ends below 4 million points);
# a save beyond it is corrupt, and the screen could not show it on one line.
MAX_COUNT = 2**53
# Why a move is refused (HumanGame.blocked).
NOTHING_MOVES = "does not move anything"


@dataclass
class HumanGame:
    """One game in progress plus the best score across games."""

    board: Board
    rng: Rng
    seed: int
    score: int = 0
    moves: int = 0
    won: bool = False          # a merge has made 2048 in this game
    win_shown: bool = False    # the win banner has been shown (once per game)
    best_score: int = 0

    @classmethod
    def new(cls, seed: int, best_score: int = 0) -> HumanGame:
        """A new game: two tiles on random empty cells."""
        rng = Rng(seed)
        board = Board()
        for _ in range(2):
            cell, value = rng.spawn(list(board.cells))
            board = board.with_tile(cell, value)
        return cls(board=board, rng=rng, seed=seed, best_score=best_score)

    def blocked(self, direction: str | Move) -> str | None:
        """Why ``direction`` cannot be played now (NOTHING_MOVES), or None when it can."""
        after, _ = self.board.move(direction)
        return NOTHING_MOVES if after == self.board else None

    @property
    def over(self) -> bool:
        """Lost: no valid move (Board.is_game_over)."""
        return self.board.is_game_over()

    @property
    def in_progress(self) -> bool:
        return self.moves > 0 and not self.over

    @property
    def show_win_banner(self) -> bool:
        return self.won and not self.win_shown

    def move(self, direction: str | Move) -> bool:
        """Plays a move. Returns False, changing nothing, when it moves nothing."""
        if self.blocked(direction) is not None:
            return False
        after, gain = self.board.move(direction)
        self.score += gain
        self.moves += 1
        self.best_score = max(self.best_score, self.score)
        if not self.won and after.max_tile >= WIN_TILE:
            self.won = True
        cell, value = self.rng.spawn(list(after.cells))
        self.board = after.with_tile(cell, value)
        return True

    def acknowledge_win(self) -> None:
        """The player chose to continue: the banner is not shown again this game."""
        self.win_shown = True

    # ---- saving ------------------------------------------------------------------

    def to_json(self) -> dict[str, Any]:
        return {
            "version": SAVE_VERSION,
            "seed": self.seed,
            "rng": list(self.rng.state),
            "board": list(self.board.cells),
            "score": self.score,
            "moves": self.moves,
            "won": self.won,
            "win_shown": self.win_shown,
        }

    @classmethod
    def from_json(cls, data: object, best_score: int = 0) -> HumanGame:
        """Rebuilds a saved game; raises ValueError naming what is wrong."""
        if not isinstance(data, dict) or data.get("version") != SAVE_VERSION:
            raise InvalidArgumentError("not a solve2048 save (unknown version)")
        rng_state = data.get("rng")
        if (not isinstance(rng_state, list) or len(rng_state) != 4
                or not all(isinstance(x, int) and not isinstance(x, bool) and 0 <= x <= MASK64 for x in rng_state)
                or not any(rng_state)):
            raise InvalidArgumentError("bad generator state")
        numbers: dict[str, int] = {}
        for key, limit in (("seed", MAX_SEED), ("score", MAX_COUNT), ("moves", MAX_COUNT)):
            value = data.get(key)
            if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= limit:
                raise InvalidArgumentError(f"bad {key}")
            numbers[key] = value
        try:
            board = Board.from_cells(data.get("board") or [])
        except (InvalidBoardError, TypeError) as error:
            raise InvalidArgumentError(f"bad board: {error}") from None
        if not board.max_tile:
            # No game has an empty board, and no move could ever change one.
            raise InvalidArgumentError("bad board: no tiles")
        rng = Rng(0)
        rng.state = list(rng_state)
        return cls(board=board, rng=rng, seed=numbers["seed"], score=numbers["score"],
                   moves=numbers["moves"], won=data.get("won") is True,
                   win_shown=data.get("win_shown") is True,
                   best_score=max(best_score, numbers["score"]))
