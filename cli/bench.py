"""``solve2048 bench``: search the fixed positions, print a node-count signature and speed."""

from __future__ import annotations

import json
import sys

import click

from solve2048.benchmark import run_bench
from solve2048.cli.interrupt import interruptible
from solve2048.cli.params import danger_option, given, quiescence_option, search_options
from solve2048.engine import MAX_DEPTH, Prune

PROGRESS_AFTER_SECONDS = 1.0   # a bench quicker than this says nothing while it runs
PROGRESS_LINE_SECONDS = 10.0   # off a terminal, one progress line at most this often


class Progress:
    """Says on stderr how far a slow bench has got: rewritten in place on a
    terminal, else a line now and then; nothing for a bench under a second."""

    def __init__(self) -> None:
        self.live = sys.stderr.isatty()
        self.last_line = 0.0
        self.shown = False

    def __call__(self, done: int, total: int, seconds: float) -> None:
        if seconds < PROGRESS_AFTER_SECONDS:
            return
        eta = seconds / done * (total - done)
        text = f"bench: {done}/{total} positions searched in {seconds:,.0f} s, about {eta:,.0f} s to go"
        if self.live:
            click.echo(f"\r{text}\x1b[K", err=True, nl=False)
            self.shown = True
        elif seconds - self.last_line >= PROGRESS_LINE_SECONDS or done == total:
            click.echo(text, err=True)
            self.last_line = seconds

    def close(self) -> None:
        if self.shown:
            click.echo("\r\x1b[K", err=True, nl=False)


def off_or(cells: int | None) -> str:
    """A setting in empty cells as the bench prints it."""
    return "off" if cells is None else f"{cells} empty cells"


@click.command()
@click.option("-d", "--depth", type=click.IntRange(1, MAX_DEPTH), default=4, show_default=True,
              help="Search depth for every position (from about 7, minutes: progress goes to stderr).")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object to stdout.")
@danger_option
@quiescence_option
@search_options
def bench(depth: int, as_json: bool, prune: Prune, tt_mb: int, danger: int | None,
          quiescence: int | str | None) -> None:
    """Search the fixed positions at one depth: node count (a signature of the
    search, the same on every machine) and speed, with the default look past
    crowded leaves unless --quiescence says otherwise. --prune 0.0001
    --quiescence off is the peer's search; --danger and --quiescence measure
    what those settings cost."""
    progress = Progress()
    try:
        figures = interruptible(lambda: run_bench(depth, prune, tt_mb, progress, danger=danger,
                                                  quiescence=given(quiescence)))
    finally:
        progress.close()
    if as_json:
        click.echo(json.dumps(figures))
        return
    click.echo(f"Positions:         {figures['positions']}")
    click.echo(f"Depth:             {figures['depth']}")
    click.echo(f"Prune:             {figures['prune']}")
    click.echo(f"Danger:            {off_or(figures['danger'])}")
    click.echo(f"Quiescence:        {off_or(figures['quiescence'])}")
    click.echo(f"Nodes searched:    {figures['nodes']}")
    click.echo(f"Nodes/second:      {figures['nodes_per_second']:,.0f}")
    click.echo(f"ms per move:       {figures['ms_per_move_median']:.4f} (median)")
    click.echo(f"Total time:        {figures['seconds']:.3f} s")
