"""``--plot``: reach rates with their intervals and the score distribution, one figure.
matplotlib is an optional extra (pip install 'solve2048[plot]')."""

from __future__ import annotations

import io
import os
from typing import Any

import click

from solve2048.cli.params import InputError


def _load_pyplot() -> None:
    """Loads matplotlib's pyplot on the Agg backend (files, no display), or
    raises InputError; the callers then import it by name, which mypy types."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot  # imported to fail here, not in the callers
    except ImportError:
        raise InputError("--plot needs matplotlib: pip install 'solve2048[plot]'") from None


def plot_format(path: str) -> str:
    """The format a plot file's extension names, in lower case ('' for none)."""
    return os.path.splitext(path)[1][1:].lower()


def check_plot_path(path: str) -> str:
    """Refuses, before any game is played, a plot that could not be written:
    no matplotlib, or a file name whose extension is not a format matplotlib
    writes (matplotlib would otherwise add '.png' to a name without one, or fail
    at the end of the run). A tiny figure is drawn in that format to be sure
    its writer works here (some need Pillow or LaTeX)."""
    _load_pyplot()
    import matplotlib.pyplot as plt
    from matplotlib.backend_bases import FigureCanvasBase

    extension = plot_format(path)
    formats = FigureCanvasBase.get_supported_filetypes()
    known = ", ".join(sorted(formats))
    if not extension:
        raise click.BadParameter(f"{path!r} has no extension to name its format (one of {known})",
                                 param_hint="'--plot'")
    if extension not in formats:
        raise click.BadParameter(f"matplotlib cannot write .{extension} files (it writes {known})",
                                 param_hint="'--plot'")
    fig = plt.figure(figsize=(1, 1))
    try:
        fig.text(0.5, 0.5, "1")
        fig.savefig(io.BytesIO(), format=extension)
    except Exception as error:  # whatever the format's writer lacks here
        reason = (str(error).strip().splitlines() or [type(error).__name__])[0]
        raise click.BadParameter(f"matplotlib cannot write a .{extension} file here: {reason}",
                                 param_hint="'--plot'") from None
    finally:
        plt.close(fig)
    return path


def plot_option_callback(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    """click callback of every --plot option: check_plot_path when one is given."""
    return None if value is None else check_plot_path(value)


def save_figure(fig: Any, path: str) -> None:
    """Writes a matplotlib figure in the format the path's extension names, then
    closes it; a file that cannot be written is one error line."""
    import matplotlib.pyplot as plt

    try:
        fig.savefig(path, dpi=110, format=plot_format(path) or None)
    except OSError as error:
        raise click.ClickException(f"cannot write the plot {path}: {error.strerror or error}") from None
    finally:
        plt.close(fig)


def write_plot(path: str, summary: dict[str, Any], scores: list[int]) -> None:
    _load_pyplot()
    import matplotlib.pyplot as plt

    tiles = list(summary["reach"])
    shares = [summary["reach"][t] * 100 for t in tiles]
    low = [shares[i] - summary["reach_ci"][t][0] * 100 for i, t in enumerate(tiles)]
    high = [summary["reach_ci"][t][1] * 100 - shares[i] for i, t in enumerate(tiles)]
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4.2))
    left.bar(tiles, shares, yerr=[low, high], capsize=4, color="#edc22e", edgecolor="#776e65")
    for x, (share, up) in enumerate(zip(shares, high, strict=True)):
        left.text(x, share + up + 2, f"{share:.1f}%", ha="center", fontsize=8)
    left.set_ylim(0, 110)
    left.set_xlabel("tile")
    left.set_ylabel("games reaching it (%)")
    left.set_title("Reach rate, 95% Wilson interval")
    right.hist(scores, bins=min(40, max(5, len(scores) // 5)), color="#f59563", edgecolor="#776e65")
    right.axvline(summary["score"]["mean"], color="#3c3a32", linestyle="--", label="mean")
    right.axvline(summary["score"]["median"], color="#3c3a32", linestyle=":", label="median")
    right.set_xlabel("score")
    right.set_ylabel("games")
    right.set_title("Score distribution")
    right.legend()
    depth = summary.get("depth")
    fig.suptitle(f"solve2048: {summary['games']:,} games" + (f" at depth {depth}" if depth is not None else ""))
    fig.tight_layout()
    save_figure(fig, path)


def write_deaths_plot(path: str, deaths: dict[str, Any]) -> None:
    """Where games were lost: how many died at each largest tile, and what their
    boards had built (snake and chain lengths)."""
    _load_pyplot()
    import matplotlib.pyplot as plt

    groups = deaths["by_max_tile"]
    labels = [str(g["max_tile"]) for g in groups]
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4.2))
    left.bar(labels, [g["share"] * 100 for g in groups], color="#edc22e", edgecolor="#776e65")
    left.set_xlabel("largest tile at death")
    left.set_ylabel("games (%)")
    left.set_title("Where the games were lost")
    x = range(len(groups))
    right.plot(x, [g["snake"] for g in groups], marker="o", color="#f65e3b", label="snake from a corner")
    right.plot(x, [g["chain"] for g in groups], marker="s", color="#3c3a32", label="ranks held below the top")
    right.set_xticks(list(x), labels)
    right.set_xlabel("largest tile at death")
    right.set_ylabel("tiles (mean)")
    right.set_title("What the lost boards had built")
    right.legend()
    fig.suptitle(f"solve2048: {deaths['games']:,} lost games")
    fig.tight_layout()
    save_figure(fig, path)
