"""``solve2048 bench``: search the fixed positions, print a node-count signature and speed."""

from __future__ import annotations

import json
import statistics
import time
from importlib import resources

import click

from solve2048 import Board, analyze
from solve2048.cli.params import PruneParam
from solve2048.engine import DEFAULT_PRUNE, MAX_DEPTH, Prune, Searcher


def load_positions() -> list[Board]:
    """The ~50 fixed positions shipped with the package (early to late game)."""
    text = resources.files("solve2048").joinpath("data/positions.txt").read_text(encoding="utf-8")
    return [Board.parse(line) for line in text.splitlines() if line.strip() and not line.startswith("#")]


def run_bench(depth: int, prune: Prune = DEFAULT_PRUNE) -> dict:
    """Searches every position at ``depth`` with a cleared table; returns the figures."""
    positions = load_positions()
    searcher = Searcher()
    nodes = 0
    times = []
    start = time.perf_counter()
    for board in positions:
        result = analyze(board, depth=depth, prune=prune, searcher=searcher)
        nodes += result.nodes
        times.append(result.seconds)
    seconds = time.perf_counter() - start
    search_seconds = sum(times)
    return {
        "positions": len(positions),
        "depth": depth,
        "prune": prune,
        "nodes": nodes,
        "seconds": seconds,
        "nodes_per_second": nodes / search_seconds if search_seconds else 0.0,
        "ms_per_move_median": statistics.median(times) * 1e3,
    }


@click.command()
@click.option("-d", "--depth", type=click.IntRange(1, MAX_DEPTH), default=4, show_default=True,
              help="Search depth for every position.")
@click.option("--prune", type=PruneParam(), default=DEFAULT_PRUNE, show_default=True,
              help="Pruning threshold, as for hint (0.0001 is the peer's).")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object to stdout.")
def bench(depth: int, prune: Prune, as_json: bool) -> None:
    """Search the fixed positions at one depth: node count (a signature of the
    search, the same on every machine) and speed."""
    figures = run_bench(depth, prune)
    if as_json:
        click.echo(json.dumps(figures))
        return
    click.echo(f"Positions:         {figures['positions']}")
    click.echo(f"Depth:             {figures['depth']}")
    click.echo(f"Prune:             {figures['prune']}")
    click.echo(f"Nodes searched:    {figures['nodes']}")
    click.echo(f"Nodes/second:      {figures['nodes_per_second']:,.0f}")
    click.echo(f"ms per move:       {figures['ms_per_move_median']:.4f} (median)")
    click.echo(f"Total time:        {figures['seconds']:.3f} s")
