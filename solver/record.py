"""Game records in JSON Lines: writing as the game goes, and checking one by the rules.

A record is one JSON object a line::

    {"type": "start", "seed": 7, "depth": 3, "board": [16 tile values]}
    {"type": "move", "dir": "left", "gain": 4, "spawn": {"cell": 5, "value": 2}}
    ...
    {"type": "end", "score": 71156, "max_tile": 4096, "moves": 3256, "won": true,
     "reason": "game_over"}

``cell`` is 0..15, row-major. ``reason`` says why the game stopped: ``game_over`` (no
legal move), ``stopped_at_win`` (``play --stop-at-win``) or ``interrupted`` (Ctrl-C).
Records are checked with the Python oracle
(``solve2048.reference``), not the C engine, so a replay is an independent check.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from typing import IO

from solve2048 import reference
from solve2048.board import WIN_TILE
from solve2048.game import Step

REASONS = ("game_over", "stopped_at_win", "interrupted")


class RecordError(ValueError):
    """A record that is not a legal game; ``line`` is 1-based."""

    def __init__(self, line: int, message: str) -> None:
        super().__init__(f"line {line}: {message}")
        self.line = line


class RecordWriter:
    """Writes a record line by line, flushing after each batch of lines."""

    def __init__(self, stream: IO[str]) -> None:
        self._stream = stream

    def _write(self, obj: dict) -> None:
        self._stream.write(json.dumps(obj, separators=(", ", ": ")) + "\n")

    def start(self, seed: int | None, depth: int | str, cells: Iterable[int]) -> None:
        self._write({"type": "start", "seed": seed, "depth": depth, "board": list(cells)})
        self._stream.flush()

    def moves(self, steps: Iterable[Step]) -> None:
        for s in steps:
            self._write({"type": "move", "dir": str(s.move), "gain": s.gain,
                         "spawn": {"cell": s.spawn_cell, "value": s.spawn_value}})
        self._stream.flush()

    def end(self, score: int, max_tile: int, moves: int, won: bool, reason: str) -> None:
        self._write({"type": "end", "score": score, "max_tile": max_tile, "moves": moves,
                     "won": won, "reason": reason})
        self._stream.flush()


@dataclass(frozen=True)
class Replay:
    """What a record replays to."""

    seed: int | None
    depth: object
    board: list[int]      # the final position
    score: int
    moves: int
    won_at_move: int | None
    reason: str | None    # the end line's reason; None when the record has no end line
    game_over: bool       # the final position has no legal move


def _int(value: object, line: int, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise RecordError(line, f"{what} must be a whole number, got {value!r}")
    return value


def _parse_line(text: str, line: int) -> dict:
    try:
        obj = json.loads(text)
    except json.JSONDecodeError as error:
        raise RecordError(line, f"not JSON ({error.msg})") from None
    except RecursionError:
        raise RecordError(line, "not JSON (nested too deep)") from None
    if not isinstance(obj, dict) or obj.get("type") not in ("start", "move", "end"):
        raise RecordError(line, "expected an object with type start, move or end")
    return obj


def _start_board(obj: dict, line: int) -> list[int]:
    cells = obj.get("board")
    if not isinstance(cells, list) or len(cells) != 16:
        raise RecordError(line, "start board must be a list of 16 tile values")
    cells = [_int(v, line, "a tile") for v in cells]
    tiles = [v for v in cells if v]
    if len(tiles) != 2 or any(v not in (2, 4) for v in tiles):
        raise RecordError(line, f"a game starts with two tiles of 2 or 4, got {tiles}")
    return cells


def replay(lines: Iterable[str]) -> Replay:
    """Checks a record move by move with the oracle; raises RecordError at the first
    line that breaks the rules or the format."""
    cells: list[int] | None = None
    seed = depth = None
    score = moves = 0
    won_at: int | None = None
    ended = False
    reason = None
    number = 0
    for number, text in enumerate(lines, start=1):
        if not text.strip():
            continue
        if ended:
            raise RecordError(number, "nothing may follow the end line")
        obj = _parse_line(text, number)
        kind = obj["type"]
        if cells is None:
            if kind != "start":
                raise RecordError(number, "a record begins with a start line")
            cells = _start_board(obj, number)
            seed, depth = obj.get("seed"), obj.get("depth")
            continue
        if kind == "start":
            raise RecordError(number, "a second start line")
        if kind == "move":
            moves += 1
            cells, points = _apply_move(cells, obj, number, moves)
            score += points
            if won_at is None and max(cells) >= WIN_TILE:
                won_at = moves
            _apply_spawn(cells, obj.get("spawn"), number, moves)
            continue
        ended = True
        reason = obj.get("reason", "game_over")
        _check_end(obj, number, score, max(cells), moves, won_at is not None)
        if reason == "game_over" and not reference.is_game_over(cells):
            raise RecordError(number, "the game ends here, but a legal move remains")
        if reason == "stopped_at_win" and won_at is None:
            raise RecordError(number, "stopped at the win, but no 2048 was made")
        if reason not in REASONS:
            raise RecordError(number, f"reason must be one of {', '.join(REASONS)}, got {reason!r}")
    if cells is None:
        raise RecordError(max(number, 1), "empty record: no start line")
    return Replay(seed, depth, cells, score, moves, won_at, reason, reference.is_game_over(cells))


def _apply_move(cells: list[int], obj: dict, line: int, n: int) -> tuple[list[int], int]:
    direction = obj.get("dir")
    if direction not in reference.DIRECTIONS:
        raise RecordError(line, f"move {n}: dir must be up, down, left or right, got {direction!r}")
    after, points = reference.move(cells, direction)
    if after == cells:
        raise RecordError(line, f"move {n}: {direction} is not a legal move here")
    if _int(obj.get("gain"), line, f"move {n}: gain") != points:
        raise RecordError(line, f"move {n}: gain is {obj.get('gain')}, but {direction} scores {points}")
    return after, points


def _apply_spawn(cells: list[int], spawn: object, line: int, n: int) -> None:
    if not isinstance(spawn, dict):
        raise RecordError(line, f"move {n}: spawn must be an object with cell and value")
    cell = _int(spawn.get("cell"), line, f"move {n}: spawn cell")
    value = _int(spawn.get("value"), line, f"move {n}: spawn value")
    if not 0 <= cell < 16 or cells[cell] != 0:
        raise RecordError(line, f"move {n}: spawn cell {cell} is not an empty cell")
    if value not in (2, 4):
        raise RecordError(line, f"move {n}: spawn value must be 2 or 4, got {value}")
    cells[cell] = value


def _check_end(obj: dict, line: int, score: int, max_tile: int, moves: int, won: bool) -> None:
    expected = {"score": score, "max_tile": max_tile, "moves": moves, "won": won}
    for key, value in expected.items():
        if obj.get(key) != value or isinstance(obj.get(key), bool) != isinstance(value, bool):
            raise RecordError(line, f"end line says {key} {obj.get(key)!r}, the moves give {value!r}")
