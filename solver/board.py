"""The Board value: notation in and out, validation, moves through the C engine.

A board is an int with one exponent (rank) per cell: 0 = empty, 1 = tile 2, ...,
17 = tile 131072, the largest a 16-cell game can make. Bits 0-63 hold each rank
modulo 16, cell (r, c) in nibble 4*r + c, top-left in the lowest nibble: the
layout of nneonneo/2048-ai, so its hex boards mean the same here. Bits 64-79
hold each cell's fifth bit (bit 64 + i for cell i), set only for 65536 and
131072; a board below 65536 is its 64-bit board.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from solve2048 import engine
from solve2048.engine import LOW_BITS, Bitboard
from solve2048.errors import Solve2048Error
from solve2048.moves import ALL_MOVES, Move

BB_ALL: Bitboard = 0xFFFF_FFFF_FFFF_FFFF
MAX_RANK = 17
MAX_TILE = 1 << MAX_RANK  # 131072: no 16-cell game makes a larger tile (docs/rules.md)
WIN_TILE = 2048  # docs/rules.md: the merge that makes it wins the game
EMPTY_TOKENS = frozenset({"0", ".", "-", "_"})
ROW_SEPARATORS = re.compile(r"[/|;\n]")
CELL_SEPARATORS = re.compile(r"[\s,]+")
# 16 hex digits are the 64-bit board; up to 4 more, above them, the fifth bits.
HEX_BOARD = re.compile(r"0[xX][0-9a-fA-F]{1,20}")
DECIMAL = re.compile(r"[0-9]+")

__all__ = ["MAX_TILE", "Board", "InvalidBoardError", "Spawn"]


class InvalidBoardError(Solve2048Error, ValueError):
    """Text or values that do not describe a 2048 board."""


@dataclass(frozen=True)
class Spawn:
    """One possible new tile: the cell (0..15, row-major), its value and probability."""

    cell: int
    value: int
    probability: float


def _quote(source: object, limit: int = 200) -> str:
    """The input as it will appear at the end of an error message (cut if huge)."""
    text = repr(source)
    return text if len(text) <= limit else text[:limit] + "…"


def _where(index: int) -> str:
    return f"row {index // 4 + 1}, column {index % 4 + 1}"


def _exponent(value: object, index: int, source: object) -> int:
    """Returns the exponent (rank) of one tile value, or raises naming the cell."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidBoardError(
            f"{_where(index)}: expected a tile value, got {value!r} in {_quote(source)}"
        )
    if value == 0:
        return 0
    if value < 2 or value & (value - 1):
        raise InvalidBoardError(
            f"{_where(index)}: {value} is not a tile (expected 0 or a power of two >= 2) "
            f"in {_quote(source)}"
        )
    if value > MAX_TILE:
        raise InvalidBoardError(
            f"{_where(index)}: tile {value} is too large: no 16-cell game makes a tile past "
            f"{MAX_TILE} in {_quote(source)}"
        )
    return value.bit_length() - 1


def _pack(values: Sequence[object], source: object) -> Bitboard:
    if len(values) != 16:
        raise InvalidBoardError(f"expected 16 cells, got {len(values)} in {_quote(source)}")
    bits = 0
    for index, value in enumerate(values):
        bits |= _rank_bits(_exponent(value, index, source), index)
    return bits


def _rank_bits(rank: int, cell: int) -> Bitboard:
    """The bits of ``rank`` on ``cell``: its low four in the cell's nibble, its fifth above bit 64."""
    return (rank & 0xF) << (4 * cell) | (rank >> 4) << (LOW_BITS + cell)


def _check_wide_bits(bits: int, source: object) -> Bitboard:
    """Returns ``bits`` if every cell's rank is at most MAX_RANK, else raises naming the cell."""
    if bits >> LOW_BITS == 0:
        return bits  # no fifth bit: every rank is at most 15
    for cell in range(16):
        rank = _rank_of(bits, cell)
        if rank > MAX_RANK:
            raise InvalidBoardError(f"{_where(cell)}: rank {rank} (tile {1 << rank}) is past "
                                    f"{MAX_TILE}, the largest tile a game can make, in {_quote(source)}")
    return bits


def _rank_of(bits: int, cell: int) -> int:
    return (bits >> (4 * cell)) & 0xF | ((bits >> (LOW_BITS + cell)) & 1) << 4


def _token_value(token: str, index: int, text: str) -> int:
    if token in EMPTY_TOKENS:
        return 0
    if not DECIMAL.fullmatch(token):
        raise InvalidBoardError(
            f"{_where(index)}: {token!r} is not a tile (expected a number, or . - _ 0 "
            f"for an empty cell) in {_quote(text)}"
        )
    return int(token)


def _cells_from_json(stripped: str, text: str) -> list[object]:
    try:
        data = json.loads(stripped)
    except json.JSONDecodeError as error:
        raise InvalidBoardError(f"malformed array ({error.msg}) in {_quote(text)}") from None
    except RecursionError:
        raise InvalidBoardError(f"malformed array (nested too deep) in {_quote(text)}") from None
    if not isinstance(data, list):
        raise InvalidBoardError(f"expected an array of 16 values or 4 rows of 4 in {_quote(text)}")
    if data and all(isinstance(row, list) for row in data):
        _check_grid(data, text)
        return [v for row in data for v in row]
    return list(data)


def _check_grid(rows: Sequence[Sequence[object]], text: str) -> None:
    """Raises unless there are 4 rows of 4 cells."""
    if len(rows) != 4:
        raise InvalidBoardError(f"expected 4 rows, got {len(rows)} in {_quote(text)}")
    for r, row in enumerate(rows):
        if len(row) != 4:
            raise InvalidBoardError(f"row {r + 1}: expected 4 cells, got {len(row)} in {_quote(text)}")


def _cells_from_text(stripped: str, text: str) -> list[object]:
    rows = [row.strip() for row in ROW_SEPARATORS.split(stripped)]
    rows = [row for row in rows if row]
    if not rows:
        raise InvalidBoardError(f"expected 16 cells, got an empty board in {_quote(text)}")
    tokens_by_row = [[t for t in CELL_SEPARATORS.split(row) if t] for row in rows]
    if len(rows) > 1:
        _check_grid(tokens_by_row, text)
    tokens = [t for row in tokens_by_row for t in row]
    if len(tokens) != 16:
        raise InvalidBoardError(f"expected 16 cells, got {len(tokens)} in {_quote(text)}")
    return [_token_value(t, i, text) for i, t in enumerate(tokens)]


def grid_text(cells: Sequence[int]) -> str:
    """16 tile values, row-major, as an aligned 4x4 grid with "." for empty. Takes
    plain values, so the oracle's boards (which may hold 65536) print too."""
    width = max(len(str(v)) for v in cells)
    return "\n".join(
        " ".join((str(v) if v else ".").rjust(width) for v in cells[r * 4 : r * 4 + 4])
        for r in range(4)
    )


_new_board = object.__new__
# "up", "down", "left", "right": the spellings Board.move meets most, looked up
# at once; any other goes through Move.parse, which accepts or refuses it.
_MOVE_NAMES: dict[str, Move] = {str(m): m for m in ALL_MOVES}


class Board:
    """An immutable 2048 position. ``Board('2 4 . . / …')`` parses like Board.parse."""

    __slots__ = ("_bits",)

    def __init__(self, notation: str = ". . . . / . . . . / . . . . / . . . .") -> None:
        self._bits = Board._parse_bits(notation)

    # ---- constructors ----------------------------------------------------------

    @staticmethod
    def _parse_bits(text: str) -> Bitboard:
        if not isinstance(text, str):
            raise InvalidBoardError(f"expected board text, got {_quote(text)}")
        stripped = text.strip()
        if not stripped:
            raise InvalidBoardError(f"expected 16 cells, got an empty board in {_quote(text)}")
        if stripped[:2].lower() == "0x":
            if not HEX_BOARD.fullmatch(stripped):
                raise InvalidBoardError(
                    f"expected a hex board of 1 to 16 hex digits after 0x (up to 20 with the "
                    f"fifth bits of tiles past 32768) in {_quote(text)}"
                )
            return _check_wide_bits(int(stripped, 16), text)
        if stripped.startswith("["):
            return _pack(_cells_from_json(stripped, text), text)
        return _pack(_cells_from_text(stripped, text), text)

    @classmethod
    def _of(cls, bits: Bitboard) -> Board:
        board = cls.__new__(cls)
        board._bits = bits
        return board

    @classmethod
    def parse(cls, text: str) -> Board:
        """Reads any board notation: rows split by / | ; or newlines and cells by spaces
        or commas (empty as 0 . - _), a flat or nested JSON array, or a hex bitboard 0x…."""
        return cls._of(cls._parse_bits(text))

    @classmethod
    def from_cells(cls, cells: Iterable[int]) -> Board:
        """From 16 tile values, row-major, 0 for empty."""
        values = list(cells)
        return cls._of(_pack(values, values))

    @classmethod
    def from_rows(cls, rows: Iterable[Iterable[int]]) -> Board:
        """From 4 rows of 4 tile values."""
        grid = [list(row) for row in rows]
        if len(grid) != 4 or any(len(row) != 4 for row in grid):
            raise InvalidBoardError(f"expected 4 rows of 4 cells, got {grid!r}")
        values = [v for row in grid for v in row]
        return cls._of(_pack(values, grid))

    @classmethod
    def from_int(cls, bits: int) -> Board:
        """From a bitboard: 64 bits, and up to 16 more for tiles past 32768
        (layout in the module docstring)."""
        if isinstance(bits, bool) or not isinstance(bits, int) or not 0 <= bits < 1 << (LOW_BITS + 16):
            raise InvalidBoardError(f"expected a board of 64 bits (80 with tiles past 32768), got {bits!r}")
        return cls._of(_check_wide_bits(bits, bits))

    # ---- views -------------------------------------------------------------------

    def __int__(self) -> int:
        return self._bits

    __index__ = __int__

    @property
    def exponents(self) -> tuple[int, ...]:
        """The 16 exponents, row-major (0 = empty, 1 = tile 2, …)."""
        return tuple(_rank_of(self._bits, i) for i in range(16))

    @property
    def cells(self) -> tuple[int, ...]:
        """The 16 tile values, row-major, 0 for empty."""
        return tuple(1 << e if e else 0 for e in self.exponents)

    @property
    def rows(self) -> tuple[tuple[int, ...], ...]:
        c = self.cells
        return tuple(c[4 * r : 4 * r + 4] for r in range(4))

    @property
    def max_tile(self) -> int:
        return max(self.cells)

    @property
    def empty_count(self) -> int:
        return engine.count_empty(self._bits)

    def hex(self) -> str:
        """0x and 16 hex digits; 20 for a board past 32768, the top 4 its fifth bits."""
        return f"0x{self._bits:016x}" if self._bits <= BB_ALL else f"0x{self._bits:020x}"

    @property
    def wide(self) -> bool:
        """Whether the board holds a tile past 32768 (it needs more than 64 bits)."""
        return self._bits > BB_ALL

    def notation(self) -> str:
        """One line, rows split by ' / ', empty cells as '.'."""
        return " / ".join(" ".join(str(v) if v else "." for v in row) for row in self.rows)

    def __str__(self) -> str:
        return grid_text(self.cells)

    def __repr__(self) -> str:
        return f"Board({self.notation()!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Board) and other._bits == self._bits

    def __hash__(self) -> int:
        return hash(self._bits)

    # ---- rules ------------------------------------------------------------------------

    def move(self, direction: str | Move) -> tuple[Board, int]:
        """The board after sliding (no spawn) and the points gained.

        An invalid move returns the same board and 0; one that would merge
        two 131072s, which no game holds, raises InvalidArgumentError (see
        legal_moves)."""
        # The hot path of a Python game loop: no parse for a Move or a plain
        # name, and the Board made without the classmethod (see engine.move).
        if direction.__class__ is not Move:
            direction = (direction.__class__ is str and _MOVE_NAMES.get(direction)) or Move.parse(direction)
        bits, gain = engine.move(self._bits, direction)
        board = _new_board(Board)
        board._bits = bits
        return board, gain

    def legal_moves(self) -> list[Move]:
        mask = engine.legal_mask(self._bits)
        return [m for m in ALL_MOVES if mask >> m & 1]

    def is_game_over(self) -> bool:
        """Lost: no legal move on a board with a tile (all 16 cells full and no
        two adjacent tiles equal, on any board a game can reach; see
        reference.is_game_over)."""
        return engine.is_game_over(self._bits)

    def spawns(self) -> list[Spawn]:
        """Every possible new tile: each empty cell equally likely, 2 at 0.9, 4 at 0.1."""
        empty = [i for i, e in enumerate(self.exponents) if e == 0]
        if not empty:
            return []
        share = 1.0 / len(empty)
        return [
            Spawn(cell, value, share * p) for cell in empty for value, p in ((2, 0.9), (4, 0.1))
        ]

    def with_tile(self, cell: int, value: int) -> Board:
        """The board with ``value`` placed on the empty ``cell``."""
        if not 0 <= cell < 16:
            raise InvalidBoardError(f"expected a cell 0..15, got {cell!r}")
        if _rank_of(self._bits, cell):
            raise InvalidBoardError(f"{_where(cell)} is not empty in {self!r}")
        return Board._of(self._bits | _rank_bits(_exponent(value, cell, value), cell))
