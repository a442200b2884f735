"""The ``solve2048`` command group.

Exit codes: 0 success; 1 the position has no legal move (hint) or a record is not
a legal game (replay); 2 bad input or bad option (one line, no traceback);
130 interrupted by Ctrl-C.
"""

from __future__ import annotations

import click

from solve2048 import __version__


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, "-V", "--version", prog_name="solve2048")
def cli() -> None:
    """solve2048: a fast, exact expectimax solver and hint tool for 2048."""
