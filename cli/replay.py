"""``solve2048 replay``: check a game record against the rules, with the Python oracle."""

from __future__ import annotations

import json
import sys

import click

from solve2048.cli.exits import EXIT_ILLEGAL_RECORD
from solve2048.cli.render import cells_text
from solve2048.record import RecordError, replay as replay_record



@click.command()
@click.argument("path", type=click.Path(exists=True, dir_okay=False, readable=True))
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object to stdout.")
def replay(path: str, as_json: bool) -> None:
    """Re-check the record at PATH move by move; print the final position and score.

    Exit code 1, naming the line and move, when the record is not a legal game.
    """
    try:
        with open(path, encoding="utf-8", errors="replace") as stream:
            result = replay_record(stream)
    except RecordError as error:
        click.echo(f"solve2048: illegal record {path}: {error}", err=True)
        sys.exit(EXIT_ILLEGAL_RECORD)
    except OSError as error:
        raise click.FileError(path, hint=error.strerror or str(error)) from None
    if as_json:
        click.echo(json.dumps({
            "seed": result.seed, "score": result.score, "moves": result.moves,
            "won_at_move": result.won_at_move, "reason": result.reason,
            "game_over": result.game_over, "final_board": result.board,
        }))
        return
    click.echo(cells_text(result.board))
    won = f" · won at move {result.won_at_move:,}" if result.won_at_move else ""
    ending = result.reason or "no end line (the record stops mid-game)"
    click.echo(f"legal game: score {result.score:,} · {result.moves:,} moves{won} · {ending}")
