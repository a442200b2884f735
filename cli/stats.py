"""``solve2048 stats``: the summary of an existing results file, or two side by side."""

from __future__ import annotations

import json
from typing import Any

import click

from solve2048 import results as results_file
from solve2048 import stats as summary_stats
from solve2048.cli.params import OUTPUT, InputError
from solve2048.cli.plot import plot_option_callback, write_deaths_plot, write_plot
from solve2048.cli.summary import compare_text, deaths_text, summary_text
from solve2048.deaths import summarize as death_summary


def load_results(path: str, repair: bool) -> list[dict[str, Any]]:
    """The games of a results file; a bad file is one error line (exit 2)."""
    try:
        loaded = results_file.load(path, repair=repair)
    except results_file.ResultsFileError as error:
        raise InputError(str(error)) from None
    except OSError as error:  # mending a torn tail failed
        raise InputError(f"cannot mend {path}: {error.strerror or error}") from None
    if loaded.repaired:
        click.echo(f"solve2048: warning: {loaded.repaired}", err=True)
    return loaded.rows


@click.command()
@click.argument("path", required=False, type=click.Path(exists=True, dir_okay=False))
@click.option("--compare", nargs=2, type=click.Path(exists=True, dir_okay=False), metavar="A.jsonl B.jsonl",
              help="Put two results files side by side, with the difference and its significance.")
@click.option("--deaths", is_flag=True,
              help="Where the games were lost: the boards they ended on, by the largest tile at death.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@click.option("--plot", "plot_path", type=OUTPUT, default=None, callback=plot_option_callback,
              help="Write reach rates and the score distribution of PATH to this file, in the format "
                   "its extension names (.png, .pdf, .svg, ...; needs matplotlib).")
def stats(path: str | None, compare: tuple[str, str] | None, deaths: bool, as_json: bool,
          plot_path: str | None) -> None:
    """Summary of an existing results file (from batch --out)."""
    if compare:
        a, b = (load_results(p, repair=False) for p in compare)
        if not a or not b:
            raise InputError("both files must hold at least one game")
        result = summary_stats.compare(a, b)
        click.echo(json.dumps(result) if as_json else compare_text(result, *compare))
        return
    if not path:
        raise click.UsageError("give a results file, or --compare A.jsonl B.jsonl")
    rows = load_results(path, repair=False)
    if not rows:
        raise InputError(f"{path} holds no games")
    if deaths:
        _deaths(path, rows, as_json, plot_path)
        return
    summary = summary_stats.summarize(rows)
    click.echo(json.dumps(summary) if as_json else summary_text(summary))
    if plot_path:
        write_plot(plot_path, summary, [r["score"] for r in rows])


def _deaths(path: str, rows: list[dict[str, Any]], as_json: bool, plot_path: str | None) -> None:
    found = death_summary(rows)
    if not found["games"]:
        raise InputError(f"{path} keeps no final boards (its lines come from before batch wrote them)")
    click.echo(json.dumps(found) if as_json else deaths_text(found))
    if plot_path:
        write_deaths_plot(plot_path, found)
