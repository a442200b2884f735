"""solve2048: a fast, exact expectimax solver and hint tool for 2048.

The public API::

    from solve2048 import Board, Move
    board = Board.parse("2 2 4 8 / . . . . / . . . . / . . . 2")
    board.move("left")            # (Board('4 4 8 . / …'), 4)
    analyze(board, depth=3).best  # the best direction, with every value
"""

from solve2048.board import MAX_TILE, Board, InvalidBoardError, Spawn
from solve2048.engine import TileOverflowError, Weights, move_batch
from solve2048.moves import ALL_MOVES, Move
from solve2048.search import Analysis, analyze, auto_depth, best_move

__version__ = "0.1.0"

__all__ = [
    "ALL_MOVES",
    "Analysis",
    "analyze",
    "auto_depth",
    "best_move",
    "MAX_TILE",
    "Board",
    "InvalidBoardError",
    "Move",
    "Spawn",
    "TileOverflowError",
    "Weights",
    "__version__",
    "move_batch",
]
