"""solve2048: a fast, exact expectimax solver and hint tool for 2048.

The public API::

    >>> from solve2048 import Board, decide, play_game
    >>> board = Board.parse("2 2 4 8 / . . . . / . . . . / . . . 2")
    >>> board.move("left")
    (Board('4 4 8 . / . . . . / . . . . / 2 . . .'), 4)
    >>> decide(board, depth=3).move
    <Move.RIGHT: 3>
    >>> play_game(seed=5, depth=3).score
    89336

``decide`` is the solver's move (an endgame table's where one is sure, else
the search's); ``analyze`` is the search alone, with the value of every
direction; ``SearchSettings`` bundles how they search, ``load_tables()`` the
installed endgame tables to put in it.
"""

from importlib.metadata import PackageNotFoundError, version

from solve2048.board import MAX_TILE, Board, InvalidBoardError, Spawn
from solve2048.decide import Decision, decide
from solve2048.engine import Weights, move_batch
from solve2048.moves import ALL_MOVES, Move
from solve2048.search import Analysis, analyze, auto_depth, best_move
from solve2048.selfplay import Game, GameResult, play_game
from solve2048.settings import SearchSettings
from solve2048.tables import TableSet
from solve2048.tables import load as load_tables

try:
    __version__ = version("solve2048")  # one place: pyproject.toml, read from the installed metadata
except PackageNotFoundError:  # run from a source tree that was never installed
    __version__ = "0+unknown"

__all__ = [
    "ALL_MOVES",
    "MAX_TILE",
    "Analysis",
    "Board",
    "Decision",
    "Game",
    "GameResult",
    "InvalidBoardError",
    "Move",
    "SearchSettings",
    "Spawn",
    "TableSet",
    "Weights",
    "__version__",
    "analyze",
    "auto_depth",
    "best_move",
    "decide",
    "load_tables",
    "move_batch",
    "play_game",
]
