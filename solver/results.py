"""Batch results files: JSON Lines, one finished game a line, appended as games end.

Reading is defensive: the file is untrusted. A torn last line (a run killed in
the middle of a write) is cut off and reported; any other bad line is an error
naming the line, and the file is left as it is.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from typing import IO

MAX_LINE = 4096  # far longer than any line a batch writes
FIELDS = ("seed", "depth", "score", "max_tile", "moves", "won", "won_at_move", "seconds",
          "prune", "tt_mb", "tables", "table_moves")


class ResultsFileError(ValueError):
    """A results file that cannot be used; the message names the file and line."""


@dataclass
class LoadedResults:
    rows: list[dict]
    repaired: str | None  # a warning when a torn last line was removed


def _valid_row(obj: object) -> bool:
    if not isinstance(obj, dict):
        return False
    for key in ("seed", "score", "max_tile", "moves"):
        value = obj.get(key)
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            return False
    seconds = obj.get("seconds")
    return isinstance(seconds, (int, float)) and not isinstance(seconds, bool) and seconds >= 0


def _parse(raw: bytes) -> dict | None:
    try:
        obj = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError):
        return None
    return obj if _valid_row(obj) else None


def load(path: str, repair: bool = True) -> LoadedResults:
    """Reads a results file (missing = empty). Every finished line must be a game;
    the text after the last newline is what an interrupted write left. With
    ``repair`` the file itself is mended (a torn tail cut off, a whole one given
    its newline), so that appending goes on from a clean end."""
    if not os.path.exists(path):
        return LoadedResults([], None)
    with open(path, "rb") as stream:
        data = stream.read()
    body, newline, tail = data.rpartition(b"\n")
    rows: list[dict] = []
    for number, raw in enumerate(body.split(b"\n") if newline else [], start=1):
        if not raw.strip():
            continue
        row = _parse(raw)
        if row is None:
            raise ResultsFileError(f"{path}: line {number} is not a game result: {raw[:80]!r}")
        rows.append(row)
    warning = None
    if tail.strip():
        row = _parse(tail)
        number = data.count(b"\n") + 1
        if row is None and (not rows or len(tail) > MAX_LINE):
            # Not the end of a results file that a run was writing: leave it alone.
            raise ResultsFileError(f"{path}: line {number} is not a game result: {tail[:80]!r}")
        if row is not None:
            rows.append(row)
        else:
            warning = f"{path}: line {number} was cut off by an interrupted run; removed it"
        if repair:
            with open(path, "r+b") as stream:
                if row is not None:  # a whole line that lost only its newline
                    stream.seek(0, os.SEEK_END)
                    stream.write(b"\n")
                else:
                    stream.truncate(len(body) + len(newline))
    return LoadedResults(rows, warning)


def append_row(stream: IO[str], row: dict) -> None:
    """Writes one finished game and flushes it to the operating system."""
    stream.write(json.dumps({k: row.get(k) for k in FIELDS}) + "\n")
    stream.flush()
    os.fsync(stream.fileno())
