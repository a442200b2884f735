"""``solve2048 replay``: check a game record against the rules, with the Python oracle.

The record is untrusted input. It must be a regular file (or a pipe, for
``<(zcat game.jsonl.gz)``): a device such as /dev/zero is refused before it is opened.
Each line is read with a bound on its length, and every field is type-checked.

Exit codes: 0 a legal game (and, when the record has a seed, every spawn is that
seed's generator's); 1 a record that is not a legal game, naming the line and move
(a line too long or not JSON is such a record too); 1 also when the moves are legal
but the spawns do not follow the record's seed, since the record is not the seeded
game it claims to be; 2 a path that cannot be read or is not a file.
"""

from __future__ import annotations

import json
import os
import stat
import sys
from typing import Any

import click

from solve2048.cli.exits import EXIT_ILLEGAL_RECORD
from solve2048.cli.params import InputError
from solve2048.cli.render import cells_text
from solve2048.record import RecordError, Replay, read_lines
from solve2048.record import replay as replay_record


@click.command()
@click.argument("path", type=click.Path(exists=True, dir_okay=False, readable=True))
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object to stdout.")
def replay(path: str, as_json: bool) -> None:
    """Re-check the record at PATH move by move; print the final position and score.

    With a seed in the record, also check that every spawn is what that seed's
    generator draws; without one, only that each spawn lands on an empty cell.

    Exit code 1, naming the line and move, when the record is not a legal game;
    1 also, after the result, when the moves are legal but the spawns do not follow
    the record's seed.
    """
    check_record_file(path)
    try:
        # Binary, so read_lines bounds each line in bytes; a line over the bound is
        # a malformed record, exit 1 like a line that is not JSON, not bad input.
        with open(path, "rb") as stream:
            result = replay_record(read_lines(stream))
    except RecordError as error:
        click.echo(f"solve2048: illegal record {path}: {error}", err=True)
        sys.exit(EXIT_ILLEGAL_RECORD)
    except OSError as error:
        raise click.FileError(path, hint=error.strerror or str(error)) from None
    if as_json:
        click.echo(json.dumps(_json(result)))
    else:
        click.echo(cells_text(result.board))
        click.echo(_verdict(result))
    if result.spawns_follow_seed is False:
        sys.exit(EXIT_ILLEGAL_RECORD)


def check_record_file(path: str) -> None:
    """Refuses what is not a record file before opening it: a device never ends
    (/dev/zero) or may block or act when opened. A pipe is let through: it ends
    when its writer does."""
    try:
        mode = os.stat(path).st_mode
    except OSError as error:
        raise click.FileError(path, hint=error.strerror or str(error)) from None
    if not (stat.S_ISREG(mode) or stat.S_ISFIFO(mode)):
        raise InputError(f"{path} is not a regular file; a record is a file of JSON lines")


def _json(result: Replay) -> dict[str, Any]:
    mismatch = result.spawn_mismatch
    return {
        "seed": result.seed, "score": result.score, "moves": result.moves,
        "won_at_move": result.won_at_move, "reason": result.reason,
        "game_over": result.game_over, "final_board": result.board,
        "spawns_follow_seed": result.spawns_follow_seed,
        "spawn_mismatch": mismatch.to_json() if mismatch else None,
    }


def _verdict(result: Replay) -> str:
    """The summary line: what was checked and what the record replays to."""
    won = f" · won at move {result.won_at_move:,}" if result.won_at_move else ""
    ending = result.reason or "no end line (the record stops mid-game)"
    summary = f"score {result.score:,} · {result.moves:,} moves{won} · {ending}"
    if result.spawns_follow_seed is None:
        return f"legal game: {summary} · no seed, so the spawns were not checked against a generator"
    if result.spawns_follow_seed:
        return f"legal game: {summary} · spawns follow seed {result.seed}"
    mismatch = result.spawn_mismatch
    assert mismatch is not None  # spawns that do not follow the seed always name the first that differs
    return (f"legal moves, but the spawns do not follow seed {result.seed}'s generator from line "
            f"{mismatch.line:,} ({mismatch.describe()}): {summary}")
