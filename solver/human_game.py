"""A person's game of 2048, by the rulebook: state, moves, win, game over.

No terminal here: the curses front end (solve2048.cli.game) draws this state and
feeds it keys, and the tests drive it directly. Spawns come from the seeded
generator of solve2048.rng, whose state is saved with the game
(solve2048.saves), so a restored game goes on exactly as it would have.

``HumanRecord`` writes the game as it is played, in the record format of
solve2048.record (spawns included), so that ``replay`` checks it and ``review``
judges its moves: one file per game in a folder (the terminal game's is the
``games`` folder beside its saves). The save names the game's record, so a game
restored after a restart goes on in the same file.
"""

from __future__ import annotations

import itertools
import os
import re
import stat
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from solve2048.board import WIN_TILE, Board, InvalidBoardError
from solve2048.errors import InvalidArgumentError
from solve2048.moves import Move
from solve2048.record import RecordError, RecordWriter, read_lines, replay
from solve2048.rng import MASK64, MAX_SEED, Rng
from solve2048.selfplay import Step

SAVE_VERSION = 1
# No game comes near this (a game ends below 4 million points);
# a save beyond it is corrupt, and the screen could not show it on one line.
MAX_COUNT = 2**53
# Why a move is refused (HumanGame.blocked).
NOTHING_MOVES = "does not move anything"
# A record's file name as HumanRecord makes it; a save naming anything else (a path,
# "..") is not followed.
RECORD_NAME = re.compile(r"[0-9]{8}-[0-9]{6}-seed[0-9]{1,20}(-[0-9]{1,6})?\.jsonl")


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
    record: str | None = None  # the file name of this game's record (HumanRecord), if any
    last_step: Step | None = field(default=None, compare=False)  # the last move played, for the record

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
        # The board's legal moves, not a trial move: on a given board with two
        # 131072s, the move that would merge them is refused, not played.
        return None if Move.parse(direction) in self.board.legal_moves() else NOTHING_MOVES

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
        self.last_step = Step(Move.parse(direction), gain, cell, value, self.board, 0)
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
            "record": self.record,
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
        rng = Rng.from_state(rng_state)
        record = data.get("record")
        # A record name of any other shape is dropped, not followed: the game goes on
        # in a new record rather than writing where a hostile save points.
        record = record if isinstance(record, str) and RECORD_NAME.fullmatch(record) else None
        return cls(board=board, rng=rng, seed=numbers["seed"], score=numbers["score"],
                   moves=numbers["moves"], won=data.get("won") is True,
                   win_shown=data.get("win_shown") is True,
                   best_score=max(best_score, numbers["score"]), record=record)


class HumanRecord:
    """One person's game written as a record while it is played (open, then ``move``
    after every move, ``end`` when the game is over or abandoned, ``close`` to stop
    for now). Each line is flushed as it is written: a crash loses nothing played.
    Write errors are OSError, for the caller to show."""

    def __init__(self, path: Path, stream: IO[str], board: Board, score: int = 0, moves: int = 0,
                 won: bool = False) -> None:
        self.path = path
        self._stream = stream
        self._writer = RecordWriter(stream)
        # The record's own count: a record begun on a restored game counts from there.
        self.score, self.moves, self.won = score, moves, won
        self._max_tile = board.max_tile

    @classmethod
    def open(cls, folder: Path, game: HumanGame) -> HumanRecord:
        """Goes on with the record ``game.record`` names, when it is in ``folder``
        and replays to the game's board; otherwise begins a new one there (and
        names it in ``game.record``)."""
        if game.record is not None:
            found = cls._resume(folder / game.record, game)
            if found is not None:
                return found
        return cls._begin(folder, game)

    @classmethod
    def _resume(cls, path: Path, game: HumanGame) -> HumanRecord | None:
        """The record at ``path`` opened to append, or None when it is not this game's:
        missing, no regular file, not a legal game, or ended, or not at the game's board."""
        try:
            if not stat.S_ISREG(os.stat(path).st_mode):
                return None
            with open(path, "rb") as source:
                result = replay(read_lines(source))
        except (OSError, RecordError):
            return None
        if result.reason is not None or result.board != list(game.board.cells):
            return None
        stream = open(path, "a", encoding="utf-8")  # noqa: SIM115 (closed by end or close)
        return cls(path, stream, game.board, result.score, result.moves, result.won_at_move is not None)

    @classmethod
    def _begin(cls, folder: Path, game: HumanGame) -> HumanRecord:
        """A new record file for ``game``: from its seed for a game not yet played
        (the generator dealt its board), else from its board as given, with no seed
        (the generator has moved on since its seed, so the spawns no longer follow it)."""
        folder.mkdir(parents=True, exist_ok=True)
        stem = f"{time.strftime('%Y%m%d-%H%M%S')}-seed{game.seed}"
        for n in itertools.count():
            path = folder / (f"{stem}.jsonl" if n == 0 else f"{stem}-{n}.jsonl")
            try:
                stream = open(path, "x", encoding="utf-8")  # noqa: SIM115 (closed by end or close)
                break
            except FileExistsError:  # two games begun within the same second
                continue
        # Dealt by its seed: the board two spawns of the seed's generator made (a save
        # edited by hand may hold another board with no move played).
        fresh = game.moves == 0 and game.board == HumanGame.new(game.seed).board
        try:
            RecordWriter(stream).start(game.seed if fresh else None, None, game.board.cells, given=not fresh)
        except OSError:
            stream.close()
            raise
        game.record = path.name
        return cls(path, stream, game.board)

    def move(self, step: Step) -> None:
        """After each move played: its line (the board before it is the record's last)."""
        after = step.board.max_tile  # the spawn, a 2 or a 4, cannot make the first 2048
        if not self.won and after >= WIN_TILE > self._max_tile:  # as replay counts the win
            self.won = True
        self.score += step.gain
        self.moves += 1
        self._max_tile = after
        self._writer.moves([step])

    def end(self, reason: str) -> None:
        """The end line, then the file is closed; ``reason`` is game_over, or
        interrupted for a game left for a new one."""
        self._writer.end(self.score, self._max_tile, self.moves, self.won, reason)
        self.close()

    def close(self) -> None:
        self._stream.close()
