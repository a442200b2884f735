"""``solve2048 hint``: the best move for a board, with the value of every direction."""

from __future__ import annotations

import json
import sys

import click

from solve2048 import Board
from solve2048.cli.exits import EXIT_NO_MOVE
from solve2048.cli.interrupt import interruptible
from solve2048.cli.params import BOARD, settings_options
from solve2048.cli.render import board_text, duration, extras_text, number, table_odds
from solve2048.decide import Decision, decide
from solve2048.settings import SearchSettings

HEURISTIC_TEXT = {"default": "values of the default heuristic",
                  "tables": "values of the tables' heuristic",
                  "custom": "values of the given heuristic"}


@click.command()
@click.argument("board", type=BOARD)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object to stdout.")
@settings_options
def hint(board: Board, as_json: bool, settings: SearchSettings) -> None:
    """Best move for BOARD ('-' reads it from stdin) and the expected value of each direction.

    Exit code 1 when no move is legal ("game over").
    """
    decision = interruptible(lambda: decide(board, settings))
    if as_json:
        click.echo(json.dumps(decision.to_json()))
    else:
        click.echo("\n".join(hint_lines(decision, colour=sys.stdout.isatty())))
    if decision.move is None:
        sys.exit(EXIT_NO_MOVE)


def hint_lines(decision: Decision, colour: bool) -> list[str]:
    """The board, the move and where it came from, every direction's value,
    and the search they come from ("depth 3, quiescence 3, late quiescence 2")."""
    lines = [board_text(decision.board, colour=colour), ""]
    result, table = decision.analysis, decision.table
    if decision.move is None or result is None:
        return lines + [_why_no_move(decision.board)]
    best = click.style(str(decision.move), bold=True) if colour else str(decision.move)
    if decision.from_table and table:
        lines.append(f"best move: {best}  (endgame table: {table_odds(table.probability)} to {table.spec.goal_text})")
    else:
        lines.append(f"best move: {best}")
        if table:
            lines.append(f"  (an endgame table gives only {table_odds(table.probability)}: searched instead)")
    best_value = result.values[result.best] if result.best is not None else 0.0
    for move, value in result.ranked():
        if value is None:
            lines.append(f"  {move!s:<6} illegal")
        else:
            gap = value - best_value  # type: ignore[operator]
            # A tie shows as 0.0, not as the -0.0 that rounding a tiny shortfall gives.
            gap_text = "" if move == result.best else f"  ({number(gap) if round(gap, 1) else '0.0'})"
            lines.append(f"  {move!s:<6} {number(value):>14}{gap_text}")
    extras = extras_text(decision.danger, decision.quiescence, decision.late_quiescence)
    lines.append(f"depth {result.depth}{extras} · {result.nodes:,} nodes · {duration(result.seconds)}"
                 f" · {HEURISTIC_TEXT[decision.heuristic]}")
    return lines


def _why_no_move(board: Board) -> str:
    if board.legal_moves():
        return "no move: the only legal moves would merge two 32768 tiles, beyond the 4-bit cell"
    return "game over: no legal move"
