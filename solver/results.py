"""Batch results files: JSON Lines, one finished game a line, appended as games end.

Reading is defensive: the file is untrusted. It must be a regular file (a device
such as /dev/zero or a pipe would be read forever), it is read a line at a time
with each line capped at MAX_LINE, and every line must be a game the rules allow
(see ``check_game``). A torn last line (a run killed in the middle of a write)
is cut off and reported; any other bad line is an error naming the file, the
line and the field, and the file is left as it is.
"""

from __future__ import annotations

import json
import math
import os
import re
import stat
from collections.abc import Callable
from dataclasses import dataclass, fields
from typing import IO, Any

from solve2048.board import Board, InvalidBoardError
from solve2048.engine import MAX_DEPTH, Weights, check_danger, check_late_quiescence, check_prune, check_quiescence
from solve2048.errors import InvalidArgumentError, Solve2048Error
from solve2048.rng import MAX_SEED
from solve2048.selfplay import GameState
from solve2048.settings import MAX_TIME_MS, check_deepening, check_depth

MAX_LINE = 4096  # far longer than any line a batch writes (about 1,100 characters)
FIELDS = ("seed", "depth", "score", "max_tile", "moves", "won", "won_at_move", "seconds",
          "prune", "tt_mb", "tables", "table_set", "table_trust", "table_sums", "table_moves", "time_ms", "danger",
          "quiescence", "late_quiescence", "start", "final_board", "uncovered_moves", "last_covered",
          "last_probability", "last_table", "last_trusted", "stretch_start", "stretch_probability", "engine",
          "stop_at", "state", "continued_at", "continued_at_seconds", "weights")
# Every line a batch writes starts so (append_row writes FIELDS in order): only
# a tail that could be the start of such a line is taken for a torn write.
LINE_START = b'{"seed": '

# The tile ladder a results line may record: 2 up to 2^17. The engine's 4-bit
# cells stop at 32768, but larger tiles are planned and must stay readable.
MAX_TILE_EXPONENT = 17
WIN_TILE = 2048
CELLS = 16
SPAWN_MIN, SPAWN_MAX = 2, 4
START_TILES = 2  # a game starts with two spawned tiles, and every move spawns one more


class ResultsFileError(Solve2048Error, ValueError):
    """A results file that cannot be used; the message names the file and line."""


@dataclass
class LoadedResults:
    rows: list[dict[str, Any]]
    repaired: str | None  # a warning when a torn last line was removed


# ---- what a game can be ----------------------------------------------------------
#
# The bounds below follow from the rules alone, so no real game can fail them:
# * Every merge scores the tile it makes, so a game's score is the sum, over the
#   tiles on its final board, of what building each one scored. A tile 2^j built
#   from 2s scored (j-1)·2^j, the most it can; built from 4s, (j-2)·2^j, the
#   least. A score is a sum of merged tiles, each 4 or more: a multiple of 4.
# * The final board holds at most 16 tiles, each at most the largest 2^k, and
#   its tiles add up to the spawned ones: 2 or 4 each, 2 + moves of them. So
#   the tile sum T is at most min(16·2^k, 4·(moves + 2)), the score at most
#   (k-1)·T, the largest tile at most 4·(moves + 2), and the moves at most
#   16·2^k / 2 - 2 (every spawn adds at least 2 to T).
# * At least (k-2)·2^k was scored making the largest tile itself.
# * 2048 cannot appear before move 2048/4 - 2 = 510.


def _whole(row: dict[str, Any], key: str, low: int = 0, high: int | None = None) -> int:
    value = row.get(key)
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidArgumentError(f"{key} {value!r} is not a whole number" if key in row else f"{key} is missing")
    if value < low or (high is not None and value > high):
        span = f"from {low:,} to {high:,}" if high is not None else f"{low:,} or more"
        raise InvalidArgumentError(f"{key} {value:,} is not {span}")
    return value


def _real(row: dict[str, Any], key: str, low: float, high: float | None = None) -> float:
    value = row.get(key)
    if (isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value)
            or value < low or (high is not None and value > high)):
        span = f"from {low:g} to {high:g}" if high is not None else f"{low:g} or more"
        raise InvalidArgumentError(f"{key} {value!r} is not a finite number {span}" if key in row
                         else f"{key} is missing")
    return float(value)


def _setting(row: dict[str, Any], key: str, check: Callable[[Any], object], allowed: str) -> None:
    """Refuses a search setting its own check refuses (absent or null passes),
    saying what the field may hold."""
    if row.get(key) is not None:
        try:
            check(row[key])
        except ValueError:
            raise InvalidArgumentError(f"{key} {row[key]!r} is not {allowed}") from None


def _exponent(max_tile: int) -> int:
    k = max_tile.bit_length() - 1
    if max_tile < 2 or max_tile != 1 << k or k > MAX_TILE_EXPONENT:
        raise InvalidArgumentError(f"max_tile {max_tile:,} is not a power of two from 2 to {1 << MAX_TILE_EXPONENT:,}")
    return k


def score_bounds(max_tile_exponent: int, moves: int) -> tuple[int, int]:
    """The least and the most a game of ``moves`` moves whose largest tile is
    2^k can have scored (see the reasoning above)."""
    k = max_tile_exponent
    tile_sum = min(CELLS << k, SPAWN_MAX * (moves + START_TILES))
    return max(0, (k - 2) << k), max(0, (k - 1) * tile_sum)


def _check_score_and_moves(row: dict[str, Any]) -> None:
    max_tile = _whole(row, "max_tile")
    k = _exponent(max_tile)
    moves = _whole(row, "moves")
    most_moves = (CELLS << k) // SPAWN_MIN - START_TILES
    if moves > most_moves:
        raise InvalidArgumentError(f"moves {moves:,} are more than a game whose largest tile is {max_tile:,} "
                         f"can last (at most {most_moves:,})")
    if max_tile > SPAWN_MAX * (moves + START_TILES):
        raise InvalidArgumentError(f"max_tile {max_tile:,} cannot be made in {moves:,} moves")
    score = _whole(row, "score")
    low, high = score_bounds(k, moves)
    if score % 4:
        raise InvalidArgumentError(f"score {score:,} is not a multiple of 4 (every merge scores 4 or more)")
    if not low <= score <= high:
        raise InvalidArgumentError(f"score {score:,} is outside {low:,}..{high:,}, what a game of {moves:,} "
                         f"moves whose largest tile is {max_tile:,} can score")


def _check_from_start(row: dict[str, Any]) -> None:
    """A game from a given board (batch --start): the board is one, its largest
    tile at most max_tile, and the score a whole multiple of 4."""
    try:
        start = Board.parse(row["start"]) if isinstance(row["start"], str) else None
    except InvalidBoardError:
        start = None
    if start is None:
        raise InvalidArgumentError(f"start {row['start']!r} is not a board in hex notation")
    max_tile = _whole(row, "max_tile")
    _exponent(max_tile)
    if max_tile < start.max_tile:
        raise InvalidArgumentError(f"max_tile {max_tile:,} is below the start board's {start.max_tile:,}")
    _whole(row, "moves")
    if _whole(row, "score") % 4:
        raise InvalidArgumentError(f"score {row['score']:,} is not a multiple of 4 (every merge scores 4 or more)")


def _check_win(row: dict[str, Any]) -> None:
    reached = row["max_tile"] >= WIN_TILE
    won, won_at = row.get("won"), row.get("won_at_move")
    if won is not None:
        if not isinstance(won, bool):
            raise InvalidArgumentError(f"won {won!r} is not true or false")
        if won != reached:
            raise InvalidArgumentError(f"won is {str(won).lower()} but max_tile is {row['max_tile']:,}")
        if "won_at_move" in row and (won_at is not None) != won:
            raise InvalidArgumentError(f"won_at_move {won_at!r} does not agree with won {str(won).lower()}")
    if won_at is not None:
        if not reached:
            raise InvalidArgumentError(f"won_at_move {won_at!r} but max_tile {row['max_tile']:,} is below {WIN_TILE}")
        _whole(row, "won_at_move", WIN_TILE // SPAWN_MAX - START_TILES, row["moves"])


def _check_settings(row: dict[str, Any]) -> None:
    _setting(row, "depth", check_depth, f"'auto' or from 1 to {MAX_DEPTH}")
    _setting(row, "prune", check_prune, "'auto' or a number from 0 to 1")
    _setting(row, "danger", check_danger, "null or a number of empty cells from 0 to 16")
    if row.get("danger") is not None:
        try:
            check_deepening(row["danger"], row.get("depth", "auto"), row.get("time_ms"))
        except ValueError as error:
            raise InvalidArgumentError(f"{error}, but this line has depth {row.get('depth')!r} and "
                                       f"time_ms {row.get('time_ms')!r}") from None
    _setting(row, "quiescence", check_quiescence, "null or a number of empty cells from 1 to 15")
    _setting(row, "late_quiescence", check_late_quiescence, "null or a number of empty cells from 1 to 15")
    if row.get("tt_mb") is not None:
        _real(row, "tt_mb", 0)
    if row.get("tables") is not None:
        _real(row, "tables", 0, 1)
    if row.get("table_set") is not None:
        _check_table_set(row)
    if row.get("table_trust") is not None:
        _check_table_trust(row)
    if row.get("table_sums") is not None:
        _check_table_sums(row)
    if row.get("table_moves") is not None:
        _whole(row, "table_moves", 0, row["moves"])
    if row.get("time_ms") is not None:
        _real(row, "time_ms", 0, MAX_TIME_MS)
    for field in ("uncovered_moves", "last_covered"):
        if row.get(field) is not None:
            _whole(row, field, 0, row["moves"])
    if row.get("last_probability") is not None:
        _real(row, "last_probability", 0, 1)
    if row.get("last_table") is not None:
        _check_last_table(row)
    elif row.get("last_trusted") is not None:
        raise InvalidArgumentError("last_trusted is given, but last_table names no table")
    if row.get("stretch_start") is not None:
        _check_stretch(row)
    if not row.get("stretch_start") and row.get("stretch_probability") is not None:
        raise InvalidArgumentError("stretch_probability is given, but stretch_start says no stretch")
    if row.get("engine") is not None and not (isinstance(row["engine"], str) and _ENGINE.fullmatch(row["engine"])):
        raise InvalidArgumentError(f"engine {str(row['engine'])[:40]!r} is not an engine id such as \"3f2a9c01b7d4\"")


# A table's label as TableSpec.label writes it: chain-10:512, entry-11:128, 8:64.
_TABLE_LABEL = re.compile(r"(?:[a-z]{1,8}-)?[0-9]{1,2}:[0-9]{1,6}")
MAX_TABLES = 64  # far more than any set
_ENGINE = re.compile(r"[0-9a-z]{1,32}")  # ENGINE_ID: 12 hex digits, or "unknown"
_TABLE_SUM = re.compile(r"[0-9a-f]{16}")  # TableSet.sums


def _check_table_set(row: dict[str, Any]) -> None:
    """The labels of the tables a game was played with, beside a threshold."""
    labels = row["table_set"]
    if row.get("tables") is None:
        raise InvalidArgumentError("table_set names tables, but tables is null (played without tables)")
    if not isinstance(labels, list) or len(labels) > MAX_TABLES or not all(
            isinstance(label, str) and _TABLE_LABEL.fullmatch(label) for label in labels):
        raise InvalidArgumentError(f"table_set {str(labels)[:60]!r} is not a list of table labels "
                                   f"such as \"chain-10:512\"")


def _check_last_table(row: dict[str, Any]) -> None:
    """The table that covered the board of move last_covered, and whether its
    answer was trusted there."""
    label, trusted = row["last_table"], row.get("last_trusted")
    if not isinstance(label, str) or not _TABLE_LABEL.fullmatch(label):
        raise InvalidArgumentError(f"last_table {str(label)[:40]!r} is not a table label such as \"chain-10:512\"")
    if not row.get("last_covered"):
        raise InvalidArgumentError("last_table names a table, but last_covered says none covered a board")
    if not isinstance(trusted, bool):
        raise InvalidArgumentError(f"last_trusted is {str(trusted)[:20]!r}, expected true or false beside last_table")


def _check_stretch(row: dict[str, Any]) -> None:
    """The last covered stretch: its first move, at most last_covered (0, with
    no probability, when no board was covered), and the probability there."""
    last = row.get("last_covered")
    if last is None:
        raise InvalidArgumentError("last_covered is missing, but stretch_start is given")
    _whole(row, "stretch_start", 1 if last else 0, last)
    if row["stretch_start"]:
        _real(row, "stretch_probability", 0, 1)


def _check_table_trust(row: dict[str, Any]) -> None:
    """Each table's threshold, in table_set order."""
    trust, labels = row["table_trust"], row.get("table_set")
    if labels is None:
        raise InvalidArgumentError("table_trust gives thresholds, but table_set names no tables")
    if (not isinstance(trust, list) or len(trust) != len(labels) or not all(
            not isinstance(p, bool) and isinstance(p, (int, float)) and math.isfinite(p) and 0 <= p <= 1
            for p in trust)):
        raise InvalidArgumentError(f"table_trust {str(trust)[:60]!r} is not a list of {len(labels)} "
                                   f"thresholds from 0 to 1, one for each table of table_set")


def _check_table_sums(row: dict[str, Any]) -> None:
    """Each table's checksum, in table_set order: which entries the games were played with."""
    sums, labels = row["table_sums"], row.get("table_set")
    if labels is None:
        raise InvalidArgumentError("table_sums gives checksums, but table_set names no tables")
    if not isinstance(sums, list) or len(sums) != len(labels) or not all(
            isinstance(s, str) and _TABLE_SUM.fullmatch(s) for s in sums):
        raise InvalidArgumentError(f"table_sums {str(sums)[:60]!r} is not a list of {len(labels)} checksums "
                                   f"of 16 hex digits, one for each table of table_set")


def _check_final_board(row: dict[str, Any]) -> None:
    """The board a game ended on (hex): a lost board, holding the game's largest
    tile, and from two tiles its tiles add up to what 2 + moves spawns can make."""
    text = row["final_board"]
    try:
        board = Board.parse(text) if isinstance(text, str) and text.startswith("0x") else None
    except InvalidBoardError:
        board = None
    if board is None:
        raise InvalidArgumentError(f"final_board {str(text)[:40]!r} is not a board in hex notation")
    if board.max_tile != row["max_tile"]:
        raise InvalidArgumentError(f"final_board holds {board.max_tile:,} at most, but max_tile is {row['max_tile']:,}")
    stopped = row.get("state") is not None
    if stopped == board.is_game_over():
        raise InvalidArgumentError("final_board still has a legal move, so the game did not end there" if not stopped
                                   else "final_board has no legal move, so the game did not stop there")
    if row.get("start") is None:
        spawned = row["moves"] + START_TILES
        total = sum(board.cells)
        if not SPAWN_MIN * spawned <= total <= SPAWN_MAX * spawned:
            raise InvalidArgumentError(f"final_board's tiles add up to {total:,}, which {spawned:,} spawns of "
                                       f"2 or 4 cannot make")


def _check_stop(row: dict[str, Any]) -> None:
    """A game that was to stop at a tile (batch --stop-at): stopped there,
    alive, with what playing it on needs (state), or ended below it; and a
    game played on from such a stop (batch --from), resumed after a move of its own."""
    stop_at = row.get("stop_at")
    if stop_at is not None:
        tile = _whole(row, "stop_at", 2, 1 << MAX_TILE_EXPONENT)
        if tile & (tile - 1):
            raise InvalidArgumentError(f"stop_at {tile:,} is not a power of two")
    if row.get("state") is not None:
        if stop_at is None:
            raise InvalidArgumentError("state is given, but stop_at names no tile the game stopped at")
        if row["max_tile"] < stop_at:
            raise InvalidArgumentError(f"state is given, but max_tile {row['max_tile']:,} is below stop_at {stop_at:,}")
        if row.get("final_board") is None:
            raise InvalidArgumentError("state is given without the final_board it goes with")
        try:
            GameState.from_json(row["state"])
        except InvalidArgumentError as error:
            raise InvalidArgumentError(f"state: {error}") from None
    if row.get("continued_at") is not None:
        _whole(row, "continued_at", 0, row["moves"])
    if row.get("continued_at_seconds") is not None:
        if row.get("continued_at") is None:
            raise InvalidArgumentError("continued_at_seconds is given, but continued_at names no move the game "
                                       "was played on after")
        _real(row, "continued_at_seconds", 0, row["seconds"])


def _check_weights(row: dict[str, Any]) -> None:
    """The heuristic's weights given from Python: null, or each a finite
    number under a name Weights knows."""
    weights = row.get("weights")
    if weights is None:
        return
    if not isinstance(weights, dict):
        raise InvalidArgumentError(f"weights must be an object of numbers or null, got {type(weights).__name__}")
    unknown = sorted(set(weights) - {field.name for field in fields(Weights)})
    if unknown:
        raise InvalidArgumentError(f"weights: no weight is named {unknown[0]!r}")
    try:
        Weights(**weights)
    except InvalidArgumentError as error:
        raise InvalidArgumentError(f"weights: {error}") from None


def check_game(row: object) -> dict[str, Any]:
    """Returns ``row`` if it is a game result the rules allow, else raises
    ValueError naming the first field that is wrong. Fields older lines lack
    (won, won_at_move, prune, tt_mb, tables, table_set, table_trust, table_sums, table_moves, depth,
    time_ms, danger, quiescence, late_quiescence, start, final_board, uncovered_moves, last_covered,
    last_probability, last_table, last_trusted, stretch_start, stretch_probability, engine)
    may be absent."""
    if not isinstance(row, dict):
        raise InvalidArgumentError(f"a game result is a JSON object, not {type(row).__name__}")
    _whole(row, "seed", 0, MAX_SEED)
    if row.get("start") is None:
        _check_score_and_moves(row)
        _check_win(row)
    else:  # a game from a given board: the bounds of a game from two tiles do not hold
        _check_from_start(row)
    _real(row, "seconds", 0)
    _check_settings(row)
    _check_stop(row)
    _check_weights(row)
    if row.get("final_board") is not None:
        _check_final_board(row)
    return row


# ---- reading -----------------------------------------------------------------------


def _parse(raw: bytes) -> object:
    """The JSON value of a line, or raises ValueError."""
    try:
        return json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, RecursionError, ValueError):  # JSONDecodeError is a ValueError
        raise InvalidArgumentError(f"{raw[:80]!r}") from None


def _open_regular(path: str) -> IO[bytes] | None:
    """The file opened for reading, None when it does not exist; refuses
    anything but a regular file. Opened without blocking, so that a pipe is
    refused instead of waited on."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags)
    except FileNotFoundError:
        return None
    except OSError as error:
        raise ResultsFileError(f"cannot read {path}: {error.strerror or error}") from None
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise ResultsFileError(f"{path} is not a regular file, so it cannot be a results file")
    os.set_blocking(fd, True)
    return os.fdopen(fd, "rb")


class _Reader:
    """The rows read so far, with the line each seed was first seen on."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.rows: list[dict[str, Any]] = []
        self.seed_lines: dict[int, int] = {}

    def add(self, number: int, row: object) -> None:
        try:
            game = check_game(row)
        except ValueError as error:
            raise ResultsFileError(f"{self.path}: line {number} is not a game result: {error}") from None
        first = self.seed_lines.setdefault(game["seed"], number)
        if first != number:
            raise ResultsFileError(f"{self.path}: line {number} repeats seed {game['seed']} of line {first}")
        self.rows.append(game)

    def add_raw(self, number: int, raw: bytes) -> None:
        try:
            row = _parse(raw)
        except ValueError as error:
            raise ResultsFileError(f"{self.path}: line {number} is not a game result: {error}") from None
        self.add(number, row)


def _torn(tail: bytes) -> bool:
    """Whether a last line without its newline is the start of one a batch writes."""
    if not LINE_START.startswith(tail[: len(LINE_START)]):
        return False
    try:
        _parse(tail)
    except ValueError:
        return True
    return False  # a whole JSON value: judged as a line, not cut


def load(path: str, repair: bool = True) -> LoadedResults:
    """Reads a results file (missing = empty). Every finished line must be a game;
    the text after the last newline is what an interrupted write left. With
    ``repair`` the file itself is mended (a torn tail cut off, a whole one given
    its newline), so that appending goes on from a clean end."""
    stream = _open_regular(path)
    if stream is None:
        return LoadedResults([], None)
    reader = _Reader(path)
    clean_end = 0    # the offset just after the last newline
    tail = b""
    number = 0
    with stream:
        while raw := stream.readline(MAX_LINE + 1):
            number += 1
            if len(raw) > MAX_LINE and not raw.endswith(b"\n"):
                raise ResultsFileError(f"{path}: line {number} is longer than {MAX_LINE} bytes, "
                                       "so it is not a game result")
            if not raw.endswith(b"\n"):
                tail = raw
                break
            clean_end += len(raw)
            if raw.strip():
                reader.add_raw(number, raw)
    warning = None
    if tail.strip():
        if _torn(tail):
            warning = f"{path}: line {number} was cut off by an interrupted run; removed it"
        else:
            # A whole line that lost only its newline, or not the end of a
            # results file that a run was writing: then an error, the file left alone.
            reader.add_raw(number, tail)
        if repair:
            with open(path, "r+b") as out:
                if warning is None:
                    out.seek(0, os.SEEK_END)
                    out.write(b"\n")
                else:
                    out.truncate(clean_end)
    return LoadedResults(reader.rows, warning)


def append_row(stream: IO[str], row: dict[str, Any]) -> None:
    """Writes one finished game and flushes it to the operating system."""
    stream.write(json.dumps({k: row.get(k) for k in FIELDS}) + "\n")
    stream.flush()
    os.fsync(stream.fileno())
