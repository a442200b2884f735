"""A person's game of 2048, by the rulebook: state, moves, win, game over.

No terminal here: the curses front end (solve2048.cli.game) draws this state and
feeds it keys, and the tests drive it directly. Spawns come from the seeded
generator of solve2048.rng, whose state is saved with the game
(solve2048.saves), so a restored game goes on exactly as it would have.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from solve2048.board import WIN_TILE, Board, InvalidBoardError, TileOverflowError
from solve2048.errors import InvalidArgumentError
from solve2048.moves import Move
from solve2048.rng import MASK64, MAX_SEED, Rng

SAVE_VERSION = 1
# No game comes near this (scores stay below 4 million while tiles stop at 32768);
# a save beyond it is corrupt, and the screen could not show it on one line.
MAX_COUNT = 2**53
# Why a move is refused (HumanGame.blocked).
NOTHING_MOVES = "does not move anything"
TILE_OVERFLOW = "merging two 32768 tiles makes 65536, beyond what this version can hold"


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
    events: list[str] = field(default_factory=list)

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
        """Why ``direction`` cannot be played now (NOTHING_MOVES or TILE_OVERFLOW),
        or None when it can."""
        try:
            after, _ = self.board.move(direction)
        except TileOverflowError:
            return TILE_OVERFLOW
        return NOTHING_MOVES if after == self.board else None

    def playable_moves(self) -> list[Move]:
        """The board's legal moves less those that would merge two 32768 tiles:
        Board.legal_moves counts those as legal, but 65536 does not fit a cell."""
        return [m for m in self.board.legal_moves() if self.blocked(m) is None]

    @property
    def over(self) -> bool:
        """Lost (Board.is_game_over), or every move left would make 65536: the
        game cannot go on, so it ends as a lost one does (its save is cleared)."""
        return self.board.is_game_over() or not self.playable_moves()

    @property
    def over_reason(self) -> str | None:
        """Why the game is over when it is not an ordinary loss (TILE_OVERFLOW), else None."""
        if not self.over or self.board.is_game_over():
            return None
        return TILE_OVERFLOW

    @property
    def in_progress(self) -> bool:
        return self.moves > 0 and not self.over

    @property
    def show_win_banner(self) -> bool:
        return self.won and not self.win_shown

    def move(self, direction: str | Move) -> bool:
        """Plays a move. Returns False, changing nothing, when it cannot be played:
        it moves nothing, or it would merge two 32768 tiles (``blocked`` says which)."""
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
