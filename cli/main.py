"""The ``solve2048`` command group.

Exit codes (all commands):
  0    success
  1    the position has no legal move (hint), or a record is not a legal game (replay, review)
  2    bad input or a bad option: one line on stderr saying what and where, no traceback
  130  interrupted (Ctrl-C); whatever was already computed has been written
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Any, NoReturn

import click

from solve2048 import __version__
from solve2048.cli.batch import batch
from solve2048.cli.bench import bench
from solve2048.cli.exits import EXIT_BAD_INPUT, EXIT_INTERRUPTED
from solve2048.cli.game import game
from solve2048.cli.hint import hint
from solve2048.cli.play import play
from solve2048.cli.replay import replay
from solve2048.cli.review import review
from solve2048.cli.serve import serve
from solve2048.cli.stats import stats
from solve2048.cli.tables import tables
from solve2048.engine import ENGINE_ID


class OneLineErrorGroup(click.Group):
    """A group whose usage errors are one line on stderr (exit 2), and whose
    Ctrl-C exits 130 without a traceback."""

    def main(self, args: Sequence[str] | None = None, prog_name: str | None = None,
             complete_var: str | None = None, standalone_mode: bool = True, **extra: Any) -> NoReturn:
        try:
            code = super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        except click.ClickException as error:
            click.echo(f"solve2048: error: {error.format_message()}", err=True)
            sys.exit(error.exit_code)
        except OSError as error:  # a file that could not be read or written
            where = f": {error.filename}" if error.filename else ""
            click.echo(f"solve2048: error: {error.strerror or error}{where}", err=True)
            sys.exit(EXIT_BAD_INPUT)
        except (KeyboardInterrupt, click.exceptions.Abort):
            click.echo("solve2048: interrupted", err=True)
            sys.exit(EXIT_INTERRUPTED)
        sys.exit(code if isinstance(code, int) else 0)


@click.group(cls=OneLineErrorGroup, context_settings={"help_option_names": ["-h", "--help"]})
# The engine id is what every results line records (docs/formats.md): with it
# a user can tell which engine played a file, and quote it in a report.
@click.version_option(__version__, "-V", "--version", prog_name="solve2048",
                      message=f"%(prog)s, version %(version)s, engine {ENGINE_ID}")
def cli() -> None:
    """solve2048: a fast, exact expectimax solver and hint tool for 2048.

    Boards are written row by row: "2 4 . . / . 8 . . / . . 16 . / 32768 . . 2"
    (also | ; or newlines between rows, commas between cells, 0 - _ for empty,
    JSON arrays, or a hex bitboard 0x...).

    Exit codes: 0 success; 1 no legal move (hint) or an illegal record (replay, review);
    2 bad input or option; 130 interrupted.
    """


cli.add_command(hint)
cli.add_command(play)
cli.add_command(replay)
cli.add_command(review)
cli.add_command(bench)
cli.add_command(game)
cli.add_command(batch)
cli.add_command(stats)
cli.add_command(tables)
cli.add_command(serve)
