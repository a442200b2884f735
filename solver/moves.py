"""The four directions, as an enum that also parses what people type."""

from __future__ import annotations

import enum

from solve2048.errors import InvalidArgumentError


class Move(enum.IntEnum):
    """A direction; the value is the engine's direction number."""

    UP = 0
    DOWN = 1
    LEFT = 2
    RIGHT = 3

    def __str__(self) -> str:
        return self.name.lower()

    @classmethod
    def parse(cls, text: str | Move) -> Move:
        """Returns the direction named by ``text``: up/down/left/right, u/d/l/r, or a Move."""
        if isinstance(text, Move):
            return text
        move = _BY_NAME.get(text) if isinstance(text, str) else None
        if move is None:
            move = _BY_NAME.get(str(text).strip().lower())
        if move is not None:
            return move
        raise InvalidArgumentError(f"expected a direction (up, down, left or right), got {text!r}")


ALL_MOVES: tuple[Move, ...] = (Move.UP, Move.DOWN, Move.LEFT, Move.RIGHT)
# Every accepted spelling: "left" and "l" (any case is folded before the look-up).
_BY_NAME: dict[str, Move] = {
    name: move for move in ALL_MOVES for name in (move.name.lower(), move.name[0].lower())
}
