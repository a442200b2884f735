"""The cluster loop's sleep between two looks for finished chunks: the
backoff of solver/batch.py (_IdleWait: 1 ms after a chunk, doubling to 0.1 s)
against a fixed 0.1 s, alternating on the same seeds, on a running Dask
cluster. Prints each run's wall time and how many workers its game time kept
busy.

Usage: python bench/cluster_poll.py ADDRESS DEPTH GAMES ROUNDS
  e.g. after `dask scheduler --port 8786 &` and
  `dask worker tcp://127.0.0.1:8786 --nworkers 2 --nthreads 1 &`:
  python bench/cluster_poll.py tcp://127.0.0.1:8786 2 300 5
"""

from __future__ import annotations

import sys
import time

import solve2048.batch as batch
from solve2048.batch import Settings, run_cluster


def main(argv: list[str]) -> int:
    if len(argv) != 4:
        print(next(line for line in __doc__.splitlines() if line.startswith("Usage:")), file=sys.stderr)
        return 2
    address, depth, games, rounds = argv[0], int(argv[1]), int(argv[2]), int(argv[3])
    backoff = batch._IdleWait.FIRST_SECONDS
    for r in range(rounds):
        for first, name in ((batch.SIGNAL_POLL_SECONDS, "fixed 0.1 s"), (backoff, "backoff")):
            batch._IdleWait.FIRST_SECONDS = first
            rows: list[dict] = []
            start = time.perf_counter()
            run_cluster(range(games), Settings(depth=depth), address, rows.extend)
            wall = time.perf_counter() - start
            busy = sum(row["seconds"] for row in rows) / wall
            print(f"round {r} {name:>11}: {len(rows)} games in {wall:6.2f} s wall, {busy:.2f} workers busy",
                  flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
