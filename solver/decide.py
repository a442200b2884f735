"""Board to move, in one call: a sure endgame table's move, else the search's.

``decide`` is the one place that makes the choice the C game loop makes
(csrc/selfplay.c, choose_move): the tables first, when one covers the board and its
answer is trusted; otherwise the search, with the heuristic the settings name.
``hint``, the terminal game and anything that shows a move call it, so they all
say what the solver would play.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from solve2048 import engine
from solve2048.board import Board
from solve2048.moves import Move
from solve2048.search import Analysis, analyze, as_board
from solve2048.settings import Heuristic, SearchSettings
from solve2048.tables import TableMove

Source = Literal["table", "search"]


@dataclass(frozen=True)
class Decision:
    """The move for one board and where it came from."""

    board: Board
    move: Move | None             # what to play; None when no move is legal
    source: Source | None         # "table" or "search"; None when no move is legal
    analysis: Analysis | None     # the search's values (None if a table's move was taken unsearched)
    table: TableMove | None       # the covering table's answer, trusted or not
    heuristic: Heuristic          # the scale of the search's values
    # The search's settings that change its values, as a results line names them:
    # one move deeper at this many empty cells, the look past crowded leaves.
    danger: int | None = None
    quiescence: int | None = None
    late_quiescence: int | None = None

    @property
    def from_table(self) -> bool:
        return self.source == "table"

    def to_json(self) -> dict[str, Any]:
        """The stable JSON of ``solve2048 hint --json``."""
        analysis = self.analysis
        return {
            "board": list(self.board.cells),
            "best": str(self.move) if self.move is not None else None,
            "values": ({str(m): v for m, v in analysis.values.items()} if analysis
                       else {str(m): None for m in Move}),
            "depth": analysis.depth if analysis else 0,
            "nodes": analysis.nodes if analysis else 0,
            "seconds": analysis.seconds if analysis else 0.0,
            "from_table": self.from_table,
            "table_probability": self.table.probability if self.table else None,
            "heuristic": self.heuristic,
            "danger": self.danger,
            "quiescence": self.quiescence,
            "late_quiescence": self.late_quiescence,
        }


def decide(board: Board | str, settings: SearchSettings | None = None, *, values: bool = True,
           searcher: engine.Searcher | None = None, **fields: Any) -> Decision:
    """The move the solver plays on ``board`` with ``settings`` (or a
    SearchSettings made of ``fields``). With ``values`` (the default) the board
    is searched even when a table decides, for the value of every direction;
    without, a trusted table's move is returned unsearched, as in a game."""
    position = as_board(board)
    settings = SearchSettings.of(settings, **fields)
    legal = position.legal_moves()
    table = settings.tables.probe(position) if settings.tables and legal else None
    # A table reads the board's 64-bit copy: its move is played only where the
    # board can play it (two 131072s do not merge), as in the C game loop. A
    # guard: a table's move leaves its frozen big tiles where they are, so no
    # board is known to reach it.
    trusted = table if table is not None and table.trusted and table.move in legal else None
    analysis = None
    if values or trusted is None:
        analysis = analyze(position, settings, searcher=searcher)
    if trusted is not None:
        move, source = trusted.move, "table"
    elif analysis is not None and analysis.best is not None:
        move, source = analysis.best, "search"
    elif legal:
        # The board's 64-bit copy lost a merge (a board holding every rank, see
        # s2048_downgrade) and shows no move where the board has one: the
        # board's first legal move, as the C game loop plays it.
        move, source = legal[0], "search"
    else:
        move, source = None, None
    return Decision(position, move, source, analysis, table, settings.heuristic,  # type: ignore[arg-type]
                    settings.danger, settings.quiescence, settings.late_quiescence)
