"""A person's game of 2048, by the rulebook: state, moves, win, game over, saves.

No terminal here: the curses front end (solve2048.cli.game) draws this state and
feeds it keys, and the tests drive it directly. Spawns come from the seeded
generator of solve2048.rng, whose state is saved with the game, so a restored
game goes on exactly as it would have.
"""

from __future__ import annotations

import itertools
import json
import os
import stat
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from solve2048.board import WIN_TILE, Board, InvalidBoardError, TileOverflowError
from solve2048.moves import Move
from solve2048.rng import MASK64, MAX_SEED, Rng

SAVE_VERSION = 1
DATA_DIR_ENV = "SOLVE2048_DATA_DIR"
# No game comes near this (scores stay below 4 million while tiles stop at 32768);
# a save beyond it is corrupt, and the screen could not show it on one line.
MAX_COUNT = 2**53
# A save is a few hundred bytes; anything far larger is not one.
MAX_SAVE_BYTES = 1 << 16
# Why a move is refused (Session.blocked).
NOTHING_MOVES = "does not move anything"
TILE_OVERFLOW = "merging two 32768 tiles makes 65536, beyond what this version can hold"


def data_dir() -> Path:
    """Where saves live: $SOLVE2048_DATA_DIR, else the platform's user data
    directory (XDG_DATA_HOME/solve2048 on Linux)."""
    override = os.environ.get(DATA_DIR_ENV)
    if override:
        return Path(override)
    from platformdirs import user_data_dir

    return Path(user_data_dir("solve2048", appauthor=False))


@dataclass
class Session:
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
    def new(cls, seed: int, best_score: int = 0) -> Session:
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

    def to_json(self) -> dict:
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
    def from_json(cls, data: object, best_score: int = 0) -> Session:
        """Rebuilds a saved game; raises ValueError naming what is wrong."""
        if not isinstance(data, dict) or data.get("version") != SAVE_VERSION:
            raise ValueError("not a solve2048 save (unknown version)")
        rng_state = data.get("rng")
        if (not isinstance(rng_state, list) or len(rng_state) != 4
                or not all(isinstance(x, int) and not isinstance(x, bool) and 0 <= x <= MASK64 for x in rng_state)
                or not any(rng_state)):
            raise ValueError("bad generator state")
        numbers: dict[str, int] = {}
        for key, limit in (("seed", MAX_SEED), ("score", MAX_COUNT), ("moves", MAX_COUNT)):
            value = data.get(key)
            if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= limit:
                raise ValueError(f"bad {key}")
            numbers[key] = value
        try:
            board = Board.from_cells(data.get("board") or [])
        except (InvalidBoardError, TypeError) as error:
            raise ValueError(f"bad board: {error}") from None
        if not board.max_tile:
            # No game has an empty board, and no move could ever change one.
            raise ValueError("bad board: no tiles")
        rng = Rng(0)
        rng.state = list(rng_state)
        return cls(board=board, rng=rng, seed=numbers["seed"], score=numbers["score"],
                   moves=numbers["moves"], won=data.get("won") is True,
                   win_shown=data.get("win_shown") is True,
                   best_score=max(best_score, numbers["score"]))


def atomic_write(path: Path, text: str) -> None:
    """Writes a file so that a crash leaves either the old or the new one, never half."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name + ".", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as stream:
            stream.write(text)
            stream.flush()
            os.fsync(stream.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


class SaveStore:
    """The saved game and the best score, in one folder."""

    def __init__(self, folder: Path | None = None) -> None:
        self.folder = folder or data_dir()
        self.game_path = self.folder / "game.json"
        self.best_path = self.folder / "best.json"

    def _read(self, path: Path) -> tuple[object, str | None]:
        """(data, None), or (None, warning) after setting a bad file aside."""
        if not path.exists():
            return None, None
        try:
            problem = self._not_a_save_file(path)
            if problem:
                return None, self._set_aside(path, problem)
            return json.loads(path.read_text(encoding="utf-8")), None
        # ValueError covers JSONDecodeError and the integers too long to convert.
        except (OSError, UnicodeDecodeError, ValueError, RecursionError) as error:
            return None, self._set_aside(path, str(error))

    @staticmethod
    def _not_a_save_file(path: Path) -> str | None:
        """Why ``path`` cannot be a save (reading a pipe would hang, a huge file
        would fill memory), or None."""
        info = path.stat()
        if not stat.S_ISREG(info.st_mode):
            return "not a regular file"
        if info.st_size > MAX_SAVE_BYTES:
            return f"{info.st_size:,} bytes, a save is at most {MAX_SAVE_BYTES:,}"
        return None

    def _set_aside(self, path: Path, reason: str) -> str:
        aside = path.with_name(f"{path.name}.corrupt-{int(time.time())}")
        # A second bad save within the same second must not replace the first one set aside.
        for n in itertools.count(1):
            if not aside.exists():
                break
            aside = path.with_name(f"{path.name}.corrupt-{int(time.time())}-{n}")
        try:
            os.replace(path, aside)
        except OSError:
            return f"unreadable save {path} ({reason}); ignoring it"
        return f"unreadable save {path} ({reason}); moved it to {aside.name} and started afresh"

    def load_best(self) -> tuple[int, str | None]:
        data, warning = self._read(self.best_path)
        best = data.get("best_score") if isinstance(data, dict) else None
        if data is not None and (isinstance(best, bool) or not isinstance(best, int)
                                 or not 0 <= best <= MAX_COUNT):
            return 0, self._set_aside(self.best_path, "no best score in it")
        return (best or 0), warning

    def load_game(self, best_score: int) -> tuple[Session | None, str | None]:
        data, warning = self._read(self.game_path)
        if data is None:
            return None, warning
        try:
            return Session.from_json(data, best_score), None
        except ValueError as error:
            return None, self._set_aside(self.game_path, str(error))

    def save(self, session: Session) -> None:
        """After every move: the best score always; the game unless it is lost."""
        atomic_write(self.best_path, json.dumps({"best_score": session.best_score}))
        if session.over:
            self.game_path.unlink(missing_ok=True)
        else:
            atomic_write(self.game_path, json.dumps(session.to_json()))
