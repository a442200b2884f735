"""The search's speed on fixed boards beside the tables, to compare two builds.

`python bench/speed_ab.py boards FILE` plays three games at depth 2 with the
installed tables (seeds 11-13) and writes every 40th board to FILE (JSON);
`python bench/speed_ab.py time FILE DEPTH` searches each of them at DEPTH
with the tables' heuristic and prints the time, the nodes and nodes a second.
Run `time` with each build's Python in turn, a few rounds each, alternating,
and compare the medians (bench/RESULTS.md, "A board in any corner").
"""

from __future__ import annotations

import json
import sys
import time

from corner_hint import sample_boards

from solve2048 import Board, Weights, analyze


def write_boards(path: str) -> None:
    boards = [int(b) for b in sample_boards([11, 12, 13], every=40)]
    with open(path, "w") as f:
        json.dump(boards, f)
    print(f"{len(boards)} boards")


def time_search(path: str, depth: int) -> None:
    with open(path) as f:
        boards = [Board.from_int(b) for b in json.load(f)]
    weights = Weights.for_tables()
    start = time.perf_counter()
    nodes = sum(analyze(b, depth=depth, weights=weights).nodes for b in boards if b.legal_moves())
    seconds = time.perf_counter() - start
    print(f"depth {depth}: {seconds:.2f} s, {nodes} nodes, {nodes / seconds / 1e6:.2f} M nodes/s")


if __name__ == "__main__":
    if sys.argv[1] == "boards":
        write_boards(sys.argv[2])
    else:
        time_search(sys.argv[2], int(sys.argv[3]))
