"""The terminal game's saves: the game in progress and the best score, in the
user's data folder, written atomically, read as untrusted files."""

from __future__ import annotations

import itertools
import json
import os
import stat
import tempfile
import time
from pathlib import Path

from solve2048.human_game import MAX_COUNT, HumanGame

DATA_DIR_ENV = "SOLVE2048_DATA_DIR"
# A save is a few hundred bytes; anything far larger is not one.
MAX_SAVE_BYTES = 1 << 16


def data_dir() -> Path:
    """Where saves live: $SOLVE2048_DATA_DIR, else the platform's user data
    directory (XDG_DATA_HOME/solve2048 on Linux)."""
    override = os.environ.get(DATA_DIR_ENV)
    if override:
        return Path(override)
    from platformdirs import user_data_dir

    return Path(user_data_dir("solve2048", appauthor=False))


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

    def load_game(self, best_score: int) -> tuple[HumanGame | None, str | None]:
        data, warning = self._read(self.game_path)
        if data is None:
            return None, warning
        try:
            return HumanGame.from_json(data, best_score), None
        except ValueError as error:
            return None, self._set_aside(self.game_path, str(error))

    def save(self, session: HumanGame) -> None:
        """After every move: the best score always; the game unless it is lost."""
        atomic_write(self.best_path, json.dumps({"best_score": session.best_score}))
        if session.over:
            self.game_path.unlink(missing_ok=True)
        else:
            atomic_write(self.game_path, json.dumps(session.to_json()))
