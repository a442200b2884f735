"""``python -m solve2048.cli``: the same as the ``solve2048`` command."""

from solve2048.cli.main import cli

cli(prog_name="solve2048")
