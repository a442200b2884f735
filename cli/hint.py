"""``solve2048 hint``: the best move for a board, with the value of every direction."""

from __future__ import annotations

import json
import sys

import click

from solve2048 import Board, analyze
from solve2048.cli.exits import EXIT_NO_MOVE
from solve2048.cli.interrupt import interruptible
from solve2048.cli.params import BOARD, DEPTH, TIME_MS, open_tables, search_options, table_options
from solve2048.cli.render import board_text, duration, number
from solve2048.engine import Prune
from solve2048.tables import search_weights


HEURISTIC_TEXT = {"default": "values of the default heuristic",
                  "tables": "values of the tables' heuristic"}


@click.command()
@click.argument("board", type=BOARD)
@click.option("-d", "--depth", type=DEPTH, default="auto", show_default=True,
              help="Moves to look ahead (the first included), or 'auto' by board difficulty.")
@click.option("-t", "--time", "time_ms", type=TIME_MS, default=None,
              help="Search by iterative deepening for at most this many ms (depth becomes a cap).")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object to stdout.")
@search_options
@table_options
def hint(board: Board, depth, time_ms: float | None, as_json: bool, prune: Prune, tt_mb: int,
         no_tables: bool, tables_dir, table_min_prob: float) -> None:
    """Best move for BOARD ('-' reads it from stdin) and the expected value of each direction.

    Exit code 1 when no move is legal ("game over").
    """
    tables = open_tables(no_tables, tables_dir, table_min_prob)
    weights = search_weights(tables, depth)
    # The two heuristics score on scales about 12 times apart: say which one the
    # values are in, so that a hint with tables is not read against one without.
    heuristic = "default" if weights is None else "tables"
    result = interruptible(lambda: analyze(board, depth=depth, time_ms=time_ms, prune=prune,
                                           tt_mb=tt_mb, weights=weights))
    covered = tables.probe(board) if tables and result.best is not None else None
    used = covered if tables and tables.trusts(covered) else None
    best = used.move if used else result.best
    if as_json:
        data = result.to_json()
        data["best"] = str(best) if best is not None else None
        data["from_table"] = used is not None
        data["table_probability"] = covered.probability if covered else None
        data["heuristic"] = heuristic
        click.echo(json.dumps(data))
    else:
        colour = sys.stdout.isatty()
        click.echo(board_text(board, colour=colour))
        click.echo()
        if result.best is None:
            click.echo(_why_no_move(board))
        else:
            click.echo(f"best move: {click.style(str(best), bold=True) if colour else best}"
                       + (f"  (endgame table: {used.probability:.1%} to {used.spec.goal_text})"
                          if used else ""))
            if covered and not used:
                click.echo(f"  (an endgame table gives only {covered.probability:.1%}: searched instead)")
            best_value = result.values[result.best]
            for move, value in result.ranked():
                if value is None:
                    click.echo(f"  {str(move):<6} illegal")
                else:
                    gap = value - best_value  # type: ignore[operator]
                    gap_text = "" if move == result.best else f"  ({number(gap)})"
                    click.echo(f"  {str(move):<6} {number(value):>14}{gap_text}")
            click.echo(f"depth {result.depth} · {result.nodes:,} nodes · {duration(result.seconds)}"
                       f" · {HEURISTIC_TEXT[heuristic]}")
    if result.best is None:
        sys.exit(EXIT_NO_MOVE)


def _why_no_move(board: Board) -> str:
    if board.legal_moves():
        return "no move: the only legal moves would merge two 32768 tiles, beyond the 4-bit cell"
    return "game over: no legal move"
