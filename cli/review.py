"""``solve2048 review``: the solver's verdict on every move of a game record.

The record is checked as ``replay`` checks it (the same reading, the same one-line
errors, exit 1 for a record that is not a legal game, 2 for a path that is not a
record file), then every move is searched with the given settings: the played
direction against the one ``hint`` names, and its loss (solve2048.review). A
record whose spawns leave its seed's generator is still reviewed: the moves are
legal, and the spawns change nothing of their verdict; a warning says so.

The review runs in a worker thread, so that Ctrl-C stops it at once, even in a
long search; the summary of the moves reviewed so far is printed and the exit
code is 130.
"""

from __future__ import annotations

import json
import sys
import threading
import time
from collections.abc import Sequence
from typing import Any

import click

from solve2048.cli.exits import EXIT_ILLEGAL_RECORD, EXIT_INTERRUPTED
from solve2048.cli.params import OUTPUT, FiniteFloatRange, settings_options
from solve2048.cli.plot import plot_option_callback, save_figure
from solve2048.cli.render import board_text, extras_text, number, table_odds
from solve2048.cli.replay import check_record_file
from solve2048.moves import ALL_MOVES
from solve2048.record import RecordError, read_lines
from solve2048.review import DEFAULT_THRESHOLD, MoveReview, RecordReview, ReviewSummary, review_record, summarize
from solve2048.settings import SearchSettings

THRESHOLD = FiniteFloatRange(min=0, max=1, max_open=True)
SHOWN_BOARDS = 3        # the costliest moves shown with their board and values
PROGRESS_SECONDS = 0.2  # how often the progress line is redrawn
POLL_SECONDS = 0.1      # how often the waiting main thread looks for Ctrl-C


class Progress:
    """'reviewed 1,234/5,601 moves' on stderr, redrawn at most every PROGRESS_SECONDS,
    only when stderr is a terminal."""

    def __init__(self) -> None:
        self.enabled = sys.stderr.isatty()
        self._shown = 0.0
        self._lock = threading.Lock()  # the worker draws it, the main thread closes it

    def __call__(self, done: int, total: int) -> None:
        now = time.perf_counter()
        if not self.enabled or (now - self._shown < PROGRESS_SECONDS and done < total):
            return
        with self._lock:
            if self.enabled:
                self._shown = now
                sys.stderr.write(f"\rreviewed {done:,}/{total:,} moves\x1b[K")
                sys.stderr.flush()

    def close(self) -> None:
        with self._lock:
            if self.enabled and self._shown:
                sys.stderr.write("\r\x1b[K")
                sys.stderr.flush()
            self.enabled = False


@click.command()
@click.argument("path", metavar="RECORD", type=click.Path(exists=True, dir_okay=False, readable=True))
@click.option("--threshold", type=THRESHOLD, default=DEFAULT_THRESHOLD, show_default=True,
              help="A move is a mistake when its loss is above this share of what was at stake "
                   "(0 = any move but the best; below 1).")
@click.option("--worst", type=click.IntRange(0, 100), default=5, show_default=True,
              help="How many of the costliest moves to name.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object to stdout.")
@click.option("--plot", "plot_path", type=OUTPUT, default=None, callback=plot_option_callback,
              help="Draw the loss of every move along the game to this file, in the format its "
                   "extension names (.png, .pdf, .svg, ...; needs matplotlib).")
@settings_options
def review(path: str, threshold: float, worst: int, as_json: bool, plot_path: str | None,
           settings: SearchSettings) -> None:
    """The solver's verdict on every move of the game record at RECORD.

    Each move's loss is how much worse it is than the best move, as a share of what
    was at stake: the gap between the best and the worst legal move (0 for the best
    move, 1 for the worst). A mistake is a loss above --threshold. The best move is
    the one `hint` names with the same settings.

    The record is checked as `replay` checks it: exit code 1, naming the line and
    move, when it is not a legal game. Ctrl-C prints the summary of the moves
    reviewed so far (exit code 130).
    """
    check_record_file(path)
    progress = Progress()
    try:
        with open(path, "rb") as stream:  # binary: read_lines bounds each line in bytes
            checked = review_record(read_lines(stream), settings, threshold=threshold, progress=progress)
    except RecordError as error:
        click.echo(f"solve2048: illegal record {path}: {error}", err=True)
        sys.exit(EXIT_ILLEGAL_RECORD)
    except OSError as error:
        raise click.FileError(path, hint=error.strerror or str(error)) from None
    if checked.replay.spawns_follow_seed is False:
        click.echo(f"solve2048: warning: the spawns of {path} do not follow its seed {checked.replay.seed} "
                   "(replay says where); its moves are reviewed all the same", err=True)
    reviews, interrupted = _run(checked, progress)
    summary = summarize(reviews, threshold=threshold, worst=worst)
    if as_json:
        click.echo(json.dumps(_json(summary, reviews, checked, interrupted)))
    else:
        click.echo("\n".join(summary_lines(summary, reviews, checked, interrupted, colour=sys.stdout.isatty())))
    if plot_path:
        write_plot(plot_path, reviews, threshold, path)
    if interrupted:
        sys.exit(EXIT_INTERRUPTED)


def _run(checked: RecordReview, progress: Progress) -> tuple[list[MoveReview], bool]:
    """Reviews every move in a daemon thread; returns the reviews and whether Ctrl-C
    stopped them (the main thread waits in Python, where Ctrl-C arrives at once)."""
    reviews: list[MoveReview] = []
    failure: list[BaseException] = []

    def work() -> None:
        try:
            for one in checked:
                reviews.append(one)  # list.append is atomic: the main thread may copy the list at any time
        except BaseException as error:  # handed to the main thread, raised there
            failure.append(error)

    worker = threading.Thread(target=work, name="solve2048-review", daemon=True)
    worker.start()
    try:
        while worker.is_alive():
            worker.join(POLL_SECONDS)
    except KeyboardInterrupt:
        return list(reviews), True  # the abandoned search dies with the process
    finally:
        progress.close()
    if failure:
        raise failure[0]
    return reviews, False


def _settings_text(settings: SearchSettings, reviews: Sequence[MoveReview]) -> str:
    depths = sorted({r.depth for r in reviews if r.depth})
    if settings.time_ms is not None:
        what = f"{settings.time_ms:g} ms a move" + (f" (depths {depths[0]}–{depths[-1]})" if depths else "")
    elif settings.depth == "auto":
        what = "depth auto" + (f" ({depths[0]}–{depths[-1]})" if len(depths) > 1 else
                               f" ({depths[0]})" if depths else "")
    else:
        what = f"depth {settings.depth}{extras_text(settings.danger, settings.quiescence, settings.late_quiescence)}"
    return what + (", with endgame tables" if settings.tables else ", no tables")


def summary_lines(summary: ReviewSummary, reviews: Sequence[MoveReview], checked: RecordReview,
                  interrupted: bool, colour: bool) -> list[str]:
    """The summary, then the costliest moves: the first few with their board and values."""
    of = f" of {checked.total:,}" if summary.moves < checked.total else ""
    lines = [
        f"moves      {summary.moves:,}{of} reviewed ({_settings_text(checked.settings, reviews)})",
        f"mistakes   {summary.mistakes:,}  (loss above {summary.threshold:.0%} of what was at stake)",
        f"accuracy   {summary.accuracy:.1%}",
        f"mean loss  {summary.mean_loss:.1%}",
    ]
    if summary.table_moves:
        lines.append(f"tables     {summary.table_moves:,} moves where an endgame table chose the best; "
                     f"another was played on {summary.table_missed:,}")
    if summary.worst:
        costliest = ", ".join(f"move {r.move:,} ({r.loss:.0%})" for r in summary.worst)
        lines.append(f"costliest  {costliest}")
    elif summary.moves:
        lines.append("costliest  none: every move was the best")
    for one in summary.worst[:SHOWN_BOARDS]:
        lines += ["", *move_lines(one, colour)]
    if interrupted:
        lines += ["", f"interrupted: {summary.moves:,} of {checked.total:,} moves reviewed"]
    return lines


def move_lines(one: MoveReview, colour: bool) -> list[str]:
    """One move: what was played and what was best, the board, and every direction's value."""
    mark = " (mistake)" if one.mistake else ""
    table = (f" (endgame table: {table_odds(one.table_probability)})"
             if one.from_table and one.table_probability is not None else "")
    lines = [f"move {one.move:,}: played {one.played}, best {one.best}{table}, loss {one.loss:.1%}{mark}",
             board_text(one.board, colour=colour)]
    for move in ALL_MOVES:
        value = one.values.get(move)
        role = "  best" if move == one.best else "  played" if move == one.played else ""
        text = "illegal" if value is None else number(value)
        lines.append(f"  {move!s:<6} {text:>14}{role}")
    return lines


def _json(summary: ReviewSummary, reviews: Sequence[MoveReview], checked: RecordReview,
          interrupted: bool) -> dict[str, Any]:
    settings = checked.settings
    return {
        **summary.to_json(),
        "record_moves": checked.total,
        "interrupted": interrupted,
        "depth": settings.depth,
        "time_ms": settings.time_ms,
        "danger": settings.danger,
        "quiescence": settings.quiescence,
        "late_quiescence": settings.late_quiescence,
        "tables": settings.tables is not None,
        "mistake_moves": [r.move for r in reviews if r.mistake],
        "losses": [r.loss for r in reviews],
        "spawns_follow_seed": checked.replay.spawns_follow_seed,
    }


def write_plot(path: str, reviews: Sequence[MoveReview], threshold: float, record: str) -> None:
    """The loss of every move along the game, the mistakes marked, the threshold drawn."""
    import matplotlib.pyplot as plt  # loaded and checked by plot_option_callback

    moves = [r.move or 0 for r in reviews]
    losses = [r.loss * 100 for r in reviews]
    fig, axes = plt.subplots(figsize=(11, 3.6))
    axes.plot(moves, losses, color="#f59563", linewidth=0.6)
    flagged = [r for r in reviews if r.mistake]
    if flagged:
        axes.scatter([r.move or 0 for r in flagged], [r.loss * 100 for r in flagged], color="#3c3a32", s=8,
                     zorder=3, label="mistake")
    axes.axhline(threshold * 100, color="#776e65", linestyle="--", label=f"threshold {threshold:.0%}")
    axes.set_ylim(-2, 102)
    axes.set_xlabel("move")
    axes.set_ylabel("loss (% of what was at stake)")
    axes.set_title(f"solve2048 review: {len(flagged):,} mistakes in {len(reviews):,} moves of {record}")
    axes.legend(loc="upper right")
    fig.tight_layout()
    save_figure(fig, path)
