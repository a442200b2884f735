"""The public search API: ``analyze`` and ``best_move``.

Depth D = D player moves looked ahead, the first included; the leaf is the board
right after the D-th move, before its spawn, scored by the heuristic. Depth 1 is
greedy. ``depth="auto"`` picks the depth from the board (see ``auto_depth``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from solve2048 import engine
from solve2048.board import Board
from solve2048.moves import ALL_MOVES, Move
from solve2048.settings import SearchSettings


@dataclass(frozen=True, slots=True)
class Analysis:
    """What the search found for one board."""

    board: Board
    best: Move | None                  # None when no move is legal
    values: dict[Move, float | None]   # expected heuristic value; None if illegal
    depth: int                         # depth of the search the values come from
    nodes: int
    cache_hits: int
    seconds: float

    def ranked(self) -> list[tuple[Move, float | None]]:
        """Every direction, best first, illegal ones last (in up/down/left/right order)."""
        legal = sorted(
            ((m, v) for m, v in self.values.items() if v is not None),
            key=lambda item: (-item[1], item[0]),
        )
        return legal + [(m, v) for m, v in self.values.items() if v is None]

    def to_json(self) -> dict[str, Any]:
        """The stable JSON shape of ``solve2048 hint --json``."""
        return {
            "board": list(self.board.cells),
            "best": str(self.best) if self.best is not None else None,
            "values": {str(m): v for m, v in self.values.items()},
            "depth": self.depth,
            "nodes": self.nodes,
            "seconds": self.seconds,
        }


def auto_depth(board: Board | str) -> int:
    """The depth that "auto" means for this board: 3 up to 6 distinct tiles, 4 up
    to 8, 5 beyond."""
    return engine.auto_depth(engine.downgrade(int(as_board(board)))[0])


def as_board(board: Board | str | int) -> Board:
    """A Board from a Board, its notation or its bitboard."""
    if isinstance(board, Board):
        return board
    if isinstance(board, str):
        return Board.parse(board)
    return Board.from_int(board)


def analyze(board: Board | str, settings: SearchSettings | None = None, *,
            searcher: engine.Searcher | None = None, **fields: Any) -> Analysis:
    """Searches every direction of ``board`` by expectimax in C, with
    ``settings`` (or a SearchSettings made of ``fields``: ``depth=3``).

    ``time_ms`` switches to iterative deepening that keeps the deepest depth
    completed in time (``depth`` is then a cap, "auto" meaning none). Its values
    may differ from those of an untimed search to that depth: each depth keeps
    what it found in the table for the next, and a searcher made with
    ``reuse_deeper`` (the default) answers from values searched deeper. ``prune`` is
    the cumulative probability below which a branch is scored by the heuristic;
    "auto" is 2**-(d + 4) for a search to depth d. The heuristic is
    ``settings.search_weights``. ``tt_mb`` sizes the transposition table of this
    thread's searcher (0 = none) and ``threads`` its threads (a search from
    depth 6 on runs on up to 8 of them, with the same result on any number),
    unless ``searcher`` is given. The GIL is released during the search, so
    threads can search in parallel. Tables do not replace the search here:
    ``decide`` is the call that may play them.
    """
    position = board if board.__class__ is Board else as_board(board)
    if fields or settings.__class__ is not SearchSettings:
        settings = SearchSettings.of(settings, **fields)
    assert isinstance(settings, SearchSettings)  # narrowed by the line above, for mypy
    # Every setting was checked when the SearchSettings was made: here they
    # go to C as they are (engine_args, cached), and the result comes back as
    # one tuple, so that the Python around a search costs about 1.5 us.
    depth, danger, quiescence, time_ms, prune, weights = settings.engine_args
    if settings.late_quiescence is not None and engine.holds_32768(int(position)):
        quiescence = settings.engine_late_quiescence  # the game's last phase, as the C game loop plays it
    searcher = searcher or engine.thread_searcher(settings.tt_mb, settings.threads)
    bits = int(position)
    copy = engine.search_board(bits)  # the board itself below 65536 (csrc/ladder.c)
    up, down, left, right, legal, best, depth, nodes, cache_hits, seconds = searcher.search(
        copy, depth, danger, quiescence, time_ms, prune, False, engine.evaluator(weights),
    )
    if copy != bits:
        # The copy may see a move the board cannot play (a merge of two
        # 131072s, or of two ranks a full copy had to join): only the board's
        # legal moves are valued, as the C game loop plays them.
        legal &= engine.legal_mask(bits)
        best = engine.best_direction((up, down, left, right), legal)
    values = {
        Move.UP: up if legal & 1 else None,
        Move.DOWN: down if legal & 2 else None,
        Move.LEFT: left if legal & 4 else None,
        Move.RIGHT: right if legal & 8 else None,
    }
    return _analysis(position, ALL_MOVES[best] if best >= 0 else None, values, depth, nodes, cache_hits, seconds)


_new_analysis = object.__new__
_ANALYSIS_SLOTS = tuple(Analysis.__dict__[name].__set__
                        for name in ("board", "best", "values", "depth", "nodes", "cache_hits", "seconds"))


def _analysis(board: Board, best: Move | None, values: dict[Move, float | None], depth: int, nodes: int,
              cache_hits: int, seconds: float) -> Analysis:
    """Analysis(...), made in half the time: through its slots, without the
    frozen dataclass's __init__ (one object.__setattr__ a field)."""
    analysis = _new_analysis(Analysis)
    set_board, set_best, set_values, set_depth, set_nodes, set_hits, set_seconds = _ANALYSIS_SLOTS
    set_board(analysis, board)
    set_best(analysis, best)
    set_values(analysis, values)
    set_depth(analysis, depth)
    set_nodes(analysis, nodes)
    set_hits(analysis, cache_hits)
    set_seconds(analysis, seconds)
    return analysis


def best_move(board: Board | str, settings: SearchSettings | None = None, **fields: Any) -> Move | None:
    """The best direction for ``board`` by the search, or None when no move is legal."""
    return analyze(board, settings, **fields).best
