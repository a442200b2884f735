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

``seed`` (0..2**64-1) and ``depth`` (``"auto"`` or 1..MAX_DEPTH) may be null or left
out: a person's game has neither. With a seed, a replay also checks that every spawn
is the one the seeded generator (``solve2048.rng``) draws: the start board is its
first two spawns on the empty board, and each move's spawn its next draw for the
board after that move. Spawns that leave the generator break no rule of the game,
so they are not a RecordError but a verdict in the result
(``Replay.spawns_follow_seed`` and ``Replay.spawn_mismatch``); ``solve2048 replay``
exits 1 on it, as the record is not the seeded game it claims to be.

A record is untrusted input: ``read_lines`` reads it with a bound on each line, and
every field the replay reads is type-checked, so anything wrong is a RecordError
naming its line, never another exception.
"""

from __future__ import annotations

import json
from collections.abc import Generator, Iterable, Iterator
from dataclasses import dataclass
from typing import IO, Any

from solve2048 import reference
from solve2048.board import WIN_TILE, Board, InvalidBoardError
from solve2048.engine import MAX_DEPTH
from solve2048.errors import InvalidArgumentError, Solve2048Error
from solve2048.rng import MAX_SEED, Rng
from solve2048.selfplay import Step
from solve2048.settings import Depth, check_depth

REASONS = ("game_over", "stopped_at_win", "interrupted")

# A record line is under 200 bytes (the start line, the longest, about 150); the cap
# is far above any real line and only stops a file with no newlines (/dev/zero, one
# enormous line) from being read into memory without end.
MAX_LINE_BYTES = 65_536

SHOWN_CHARS = 40  # how much of a bad value an error message quotes


class RecordError(Solve2048Error, ValueError):
    """A record that is not a legal game; ``line`` is 1-based."""

    def __init__(self, line: int, message: str) -> None:
        super().__init__(f"line {line}: {message}")
        self.line = line


class RecordWriter:
    """Writes a record line by line, flushing after each batch of lines."""

    def __init__(self, stream: IO[str]) -> None:
        self._stream = stream

    def _write(self, obj: dict[str, Any]) -> None:
        self._stream.write(json.dumps(obj, separators=(", ", ": ")) + "\n")

    def start(self, seed: int | None, depth: int | str | None, cells: Iterable[int],
              given: bool = False, danger: int | None = None, quiescence: int | None = None,
              late_quiescence: int | None = None) -> None:
        """The start line; ``given`` marks a game played from a given board (play
        --start), ``danger`` one whose crowded boards were searched deeper (--danger),
        ``quiescence`` one whose crowded leaves looked one move further (--quiescence),
        ``late_quiescence`` its quiescence once the board held 32768 (--late-quiescence)."""
        line: dict[str, Any] = {"type": "start", "seed": seed, "depth": depth, "board": list(cells)}
        if given:
            line["given"] = True
        if danger is not None:
            line["danger"] = danger
        if quiescence is not None:
            line["quiescence"] = quiescence
        if late_quiescence is not None:
            line["late_quiescence"] = late_quiescence
        self._write(line)
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


def read_lines(stream: IO[bytes], max_bytes: int = MAX_LINE_BYTES) -> Iterator[str]:
    """The lines of a record from a binary stream, read one at a time, each at most
    ``max_bytes`` long (without its newline) or a RecordError naming it. Bytes that
    are not UTF-8 become U+FFFD, so such a line fails as "not JSON" at its number."""
    number = 0
    while True:
        chunk = stream.readline(max_bytes + 1)  # +1: room for the newline of a full line
        if not chunk:
            return
        number += 1
        if len(chunk.rstrip(b"\n")) > max_bytes:
            raise RecordError(number, f"longer than {max_bytes:,} bytes; record lines are short")
        yield chunk.decode("utf-8", errors="replace")


@dataclass(frozen=True)
class SpawnMismatch:
    """The first place where a record's tiles are not what its seed's generator draws.

    ``move`` is 0 for the start board; ``record`` and ``generator`` are (cell, value)
    pairs: the start board's two tiles, or one move's spawn."""

    line: int
    move: int
    record: tuple[tuple[int, int], ...]
    generator: tuple[tuple[int, int], ...]

    def describe(self) -> str:
        where = "start board" if self.move == 0 else f"move {self.move:,}"
        return f"{where}: {_tiles_text(self.record)}, the generator gives {_tiles_text(self.generator)}"

    def to_json(self) -> dict[str, Any]:
        return {"line": self.line, "move": self.move,
                "record": [{"cell": c, "value": v} for c, v in self.record],
                "generator": [{"cell": c, "value": v} for c, v in self.generator]}


def _tiles_text(tiles: Iterable[tuple[int, int]]) -> str:
    return " and ".join(f"cell {cell} value {value}" for cell, value in tiles)


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
    # True: every spawn is the seed's generator's; False: see spawn_mismatch;
    # None: the record has no seed, so its spawns were checked only against the rules.
    spawns_follow_seed: bool | None = None
    spawn_mismatch: SpawnMismatch | None = None


class _SeedCheck:
    """Draws the seed's generator alongside a record, until the record first leaves it
    (after that its boards differ, so later draws would compare nothing)."""

    def __init__(self, seed: int) -> None:
        self._rng = Rng(seed)
        self.mismatch: SpawnMismatch | None = None

    def start(self, cells: list[int], line: int) -> None:
        board = [0] * 16
        for _ in range(2):  # as s2048_game_new: two spawns on the empty board
            cell, value = self._rng.spawn(board)
            board[cell] = value
        if board != cells:
            self.mismatch = SpawnMismatch(line, 0, _tiles_of(cells), _tiles_of(board))

    def spawn(self, after_move: list[int], spawn: tuple[int, int], line: int, n: int) -> None:
        if self.mismatch is not None:
            return
        drawn = self._rng.spawn(after_move)
        if drawn != spawn:
            self.mismatch = SpawnMismatch(line, n, (spawn,), (drawn,))


def _tiles_of(cells: list[int]) -> tuple[tuple[int, int], ...]:
    return tuple((i, v) for i, v in enumerate(cells) if v)


def _show(value: object) -> str:
    """A bad value for an error message: its repr (one line, whatever it holds), cut short."""
    text = repr(value)
    return text if len(text) <= SHOWN_CHARS else text[:SHOWN_CHARS - 3] + "..."


def _int(value: object, line: int, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise RecordError(line, f"{what} must be a whole number, got {_show(value)}")
    return value


def _parse_line(text: str, line: int) -> dict[str, Any]:
    try:
        obj = json.loads(text)
    except json.JSONDecodeError as error:
        raise RecordError(line, f"not JSON ({error.msg})") from None
    except RecursionError:
        raise RecordError(line, "not JSON (nested too deep)") from None
    except ValueError:  # Python refuses to read an integer of over 4,300 digits
        raise RecordError(line, "not JSON (a number too long to read)") from None
    if not isinstance(obj, dict) or obj.get("type") not in ("start", "move", "end"):
        raise RecordError(line, "expected an object with type start, move or end")
    return obj


def _start_board(obj: dict[str, Any], line: int) -> list[int]:
    """The start board: a new game's two tiles of 2 or 4, or, when the line says
    ``"given": true`` (play --start), any board a game can hold."""
    cells = obj.get("board")
    if not isinstance(cells, list) or len(cells) != 16:
        raise RecordError(line, "start board must be a list of 16 tile values")
    cells = [_int(v, line, "a tile") for v in cells]
    given = obj.get("given", False)
    if not isinstance(given, bool):
        raise RecordError(line, f"given must be true or false, got {_show(given)}")
    if given:
        try:
            Board.from_cells(cells)
        except InvalidBoardError as error:
            raise RecordError(line, f"start board: {error}") from None
        if not any(cells):
            raise RecordError(line, "a game cannot start from the empty board")
        return cells
    tiles = [v for v in cells if v]
    if len(tiles) != 2 or any(v not in (2, 4) for v in tiles):
        raise RecordError(line, f"a game starts with two tiles of 2 or 4, got {_show(tiles)}")
    return cells


def _seed(obj: dict[str, Any], line: int) -> int | None:
    seed = obj.get("seed")
    if seed is None:  # left out or null: a game not dealt by the generator
        return None
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= MAX_SEED:
        raise RecordError(line, f"seed must be null or a whole number from 0 to 2**64-1, got {_show(seed)}")
    return seed


def _depth(obj: dict[str, Any], line: int) -> int | str | None:
    depth: Depth | None = obj.get("depth")
    if depth is None:  # a person's game was not searched
        return None
    try:
        check_depth(depth)
    except ValueError:
        raise RecordError(line, f"depth must be null, 'auto' or 1..{MAX_DEPTH}, got {_show(depth)}") from None
    return depth


@dataclass(frozen=True)
class Position:
    """A board of a record just before one of its moves, and the move played on it."""

    move: int                 # 1-based: the record's n-th move
    line: int                 # the record's line of that move, 1-based
    cells: tuple[int, ...]    # the 16 tiles before the move
    direction: str            # up, down, left or right


def replay(lines: Iterable[str]) -> Replay:
    """Checks a record move by move with the oracle; raises RecordError at the first
    line that breaks the rules or the format. With a seed, also follows its generator
    and says in the result whether the spawns are its draws."""
    walk = positions(lines)
    while True:
        try:
            next(walk)
        except StopIteration as done:
            result: Replay = done.value
            return result


def positions(lines: Iterable[str]) -> Generator[Position, None, Replay]:
    """``replay``, one move at a time: yields each move's board before it, once its
    line is checked (move and spawn), and returns the Replay when the record ends,
    raising RecordError where ``replay`` does. For whatever reads every board of a
    game (``solve2048 review``) without repeating the rules' checks."""
    cells: list[int] | None = None
    seed = depth = None
    seed_check: _SeedCheck | None = None
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
            seed, depth = _seed(obj, number), _depth(obj, number)
            if seed is not None:
                seed_check = _SeedCheck(seed)
                if not obj.get("given"):  # a given board was not dealt: only its spawns are drawn
                    seed_check.start(cells, number)
            continue
        if kind == "start":
            raise RecordError(number, "a second start line")
        if kind == "move":
            moves += 1
            before = max(cells)
            board_before = tuple(cells)
            cells, points = _apply_move(cells, obj, number, moves)
            position = Position(moves, number, board_before, obj["dir"])  # a direction: _apply_move checked it
            score += points
            if won_at is None and max(cells) >= WIN_TILE > before:  # the merge that makes the first 2048
                won_at = moves
            spawn = _spawn(cells, obj.get("spawn"), number, moves)
            if seed_check is not None:
                seed_check.spawn(cells, spawn, number, moves)
            cells[spawn[0]] = spawn[1]
            yield position
            continue
        ended = True
        reason = obj.get("reason", "game_over")
        _check_end(obj, number, score, max(cells), moves, won_at is not None)
        if reason == "game_over" and not reference.is_game_over(cells):
            raise RecordError(number, "the game ends here, but a legal move remains")
        if reason == "stopped_at_win" and won_at is None:
            raise RecordError(number, "stopped at the win, but no 2048 was made")
        if reason not in REASONS:
            raise RecordError(number, f"reason must be one of {', '.join(REASONS)}, got {_show(reason)}")
    if cells is None:
        raise RecordError(max(number, 1), "empty record: no start line")
    mismatch = seed_check.mismatch if seed_check is not None else None
    follows = None if seed_check is None else mismatch is None
    return Replay(seed, depth, cells, score, moves, won_at, reason, reference.is_game_over(cells),
                  follows, mismatch)


def _apply_move(cells: list[int], obj: dict[str, Any], line: int, n: int) -> tuple[list[int], int]:
    direction = obj.get("dir")
    if direction not in reference.DIRECTIONS:
        raise RecordError(line, f"move {n}: dir must be up, down, left or right, got {_show(direction)}")
    try:
        after, points = reference.move(cells, direction)
    except InvalidArgumentError:  # it would merge two 131072s, which is no move
        after, points = cells, 0
    if after == cells:
        raise RecordError(line, f"move {n}: {direction} is not a legal move here")
    if _int(obj.get("gain"), line, f"move {n}: gain") != points:
        raise RecordError(line, f"move {n}: gain is {_show(obj.get('gain'))}, but {direction} scores {points}")
    return after, points


def _spawn(cells: list[int], spawn: object, line: int, n: int) -> tuple[int, int]:
    """The move's spawn as (cell, value), checked against the board after the move
    (not placed yet: the generator draws for the board without it)."""
    if not isinstance(spawn, dict):
        raise RecordError(line, f"move {n}: spawn must be an object with cell and value")
    cell = _int(spawn.get("cell"), line, f"move {n}: spawn cell")
    value = _int(spawn.get("value"), line, f"move {n}: spawn value")
    if not 0 <= cell < 16 or cells[cell] != 0:
        raise RecordError(line, f"move {n}: spawn cell {_show(cell)} is not an empty cell")
    if value not in (2, 4):
        raise RecordError(line, f"move {n}: spawn value must be 2 or 4, got {_show(value)}")
    return cell, value


def _check_end(obj: dict[str, Any], line: int, score: int, max_tile: int, moves: int, won: bool) -> None:
    expected = {"score": score, "max_tile": max_tile, "moves": moves, "won": won}
    for key, value in expected.items():
        # The same type too: a score of 71156.0 or a "won" of 1 is not what play writes.
        if type(obj.get(key)) is not type(value) or obj.get(key) != value:
            raise RecordError(line, f"end line says {key} {_show(obj.get(key))}, the moves give {value!r}")
