"""Plays a batch under heuristic weights given from Python, into a results
file that `solve2048 stats` and `stats --compare` read (its lines record the
weights). Whole games, or the stopped games of a file played on (--from), as
`batch` plays them. The CLI has no option for weights: this is the screen for them.

Usage: python bench/weights_batch.py OUT DEPTH SPEC [--seed S] [--games N]
           [--from FILE] [--stop-at TILE] [--jobs J] [--no-tables]
DEPTH a number or 'auto'. SPEC as in bench/tune_weights.py: '' for the default weights, 'tables' for
Weights.for_tables() (what plays beside the tables), then name=value changes,
e.g. 'tables,sum_weight=1'. Running it again resumes (seeds already in OUT are skipped).
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from tune_weights import parse

from solve2048.batch import Settings, run_local, stopped_rows
from solve2048.results import append_row, load
from solve2048.settings import Depth, SearchSettings
from solve2048.tables import load as load_tables


def play(out: str, depth: Depth, spec: str, seed: int = 0, games: int = 1000, source: str | None = None,
         stop_at: int | None = None, jobs: int = 2, tables: bool = True) -> None:
    stopped = stopped_rows(load(source).rows) if source is not None else None
    done = {r["seed"] for r in load(out).rows} if Path(out).exists() else set()
    todo = [s for s in range(seed, seed + games) if s not in done and (stopped is None or s in stopped)]
    search = SearchSettings(depth=depth, weights=parse(spec), tables=load_tables().tables if tables else None)
    settings = Settings.of(search, stop_at=stop_at, continues=stopped is not None)
    with open(out, "a", encoding="utf-8") as stream:
        def on_rows(rows: list[dict[str, Any]]) -> None:
            for row in rows:
                append_row(stream, row)
            stream.flush()
        run_local(todo, settings, jobs, on_rows, stopped)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out")
    parser.add_argument("depth", type=lambda text: text if text == "auto" else int(text))
    parser.add_argument("spec")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--from", dest="source")
    parser.add_argument("--stop-at", type=int)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--no-tables", action="store_true")
    a = parser.parse_args()
    play(a.out, a.depth, a.spec, a.seed, a.games, a.source, a.stop_at, a.jobs, not a.no_tables)


if __name__ == "__main__":
    main()
