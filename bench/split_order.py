"""How well the split search's tasks can share 2, 4 or 8 threads: bounds on the
speed-up from the tasks' real node counts, for the orders the threads could
take them in, and for a finer split (docs/search.md, "The order of the tasks"
and "Scaling").

Run: python bench/split_order.py [--depths 6 7 8] [--seeds 100:140]
(seconds at depths 6 and 7 on the bench; about a minute at depth 8 on 200
positions; needs a C compiler). --seeds searches 5 positions from each of
those depth-3 games instead of the bench's 50, to check a model fitted on the
bench on positions it has not seen.

The engine does not report a task's size, so this builds a copy of csrc/ in a
temporary folder with a few lines added to csrc/search.c: the split root keeps
each task's node count and the size the model expected (task_size), and it can
split every task again by its second move (32 tasks instead of 8, each with a
table of its own, their values added as the unsplit task adds them). A small C
driver searches the positions (the 50 bench ones unless --seeds) on one thread. Then, per position, the
tasks are dealt to N threads as the engine deals them (each thread takes the
next task in the list when it is free), and the slowest thread's nodes are the
time: the sum over positions of the nodes, over the sum of those times, bounds
the speed-up. Nothing of the copy is kept.

Orders: "cells" is the order before the model (empty cells, a 4 counting a
fifth of a 2), "model" today's, "real" the tasks' real sizes (not knowable in
advance), "bound" the largest task or an even share, whichever is more.
"""

from __future__ import annotations

import argparse
import heapq
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from solve2048.benchmark import load_positions
from solve2048.engine import MAX_DEPTH

ROOT = Path(__file__).resolve().parent.parent
THREADS = (2, 4, 8)
SPLIT_SHARE = 0.4  # the "largest tasks only" split: tasks the model expects to hold over this share

# (old, new) replacements in the copy of csrc/search.c; each must match once.
PATCHES = [
    ('#include "tt.h"\n',
     '#include "tt.h"\n#define XP_TASKS 40\n'
     'int xp_mode, xp_count; uint64_t xp_nodes[XP_TASKS]; double xp_size[XP_TASKS];\n'),
    ("#define MAX_TASKS 8", "#define MAX_TASKS XP_TASKS"),
    ("    int four;\n    int cells;",
     "    int four;\n    int dir2;  /* -1: every second move; else only this one */\n    int cells;"),
    ("            task->value[i] = max_best_child(&st, &c, remaining, prob);",
     "            if (task->dir2 < 0) task->value[i] = max_best_child(&st, &c, remaining, prob);\n"
     "            else task->value[i] = (c.mask >> task->dir2 & 1)\n"
     "                ? chance_node(&st, c.moved[task->dir2], c.moved_t[task->dir2], remaining, prob) : 0.0;"),
    ("""        for (int four = 0; four < 2; four++) {
            split_task *t = &job->task[job->count++];
            memset(t, 0, sizeof *t);""",
     """        for (int four = 0; four < 2; four++)
        for (int d2 = 0; d2 < (xp_mode ? 4 : 1); d2++) {
            split_task *t = &job->task[job->count++];
            memset(t, 0, sizeof *t);
            t->dir2 = xp_mode ? d2 : -1;"""),
    ("""        const split_task *twos = &job->task[first[dir]], *fours = &job->task[first[dir] + 1];
        /* chance_node's sum, in its order: cells in increasing order, 2 then 4. */
        double sum = 0.0;
        for (int i = 0; i < twos->cells; i++) sum += 0.9 * twos->value[i] + 0.1 * fours->value[i];
        values[dir] = sum / twos->cells;""",
     """        double best[2][16] = {{0}};  /* max_best_child over the second moves */
        int cells = job->task[first[dir]].cells;
        for (int k = first[dir]; k < job->count && job->task[k].board == moved[dir]; k++)
            for (int i = 0; i < cells; i++)
                if (job->task[k].value[i] > best[job->task[k].four][i])
                    best[job->task[k].four][i] = job->task[k].value[i];
        double sum = 0.0;
        for (int i = 0; i < cells; i++) sum += 0.9 * best[0][i] + 0.1 * best[1][i];
        values[dir] = sum / cells;"""),
    ("    for (int i = 0; i < job->count; i++) {\n        st->nodes += job->task[i].nodes;",
     "    xp_count = job->count;\n"
     "    for (int i = 0; i < job->count; i++) {\n"
     "        xp_nodes[i] = job->task[i].nodes;\n"
     "        xp_size[i] = task_size(&job->task[i], job->depth, job->prune);\n"
     "    }\n"
     "    for (int i = 0; i < job->count; i++) {\n        st->nodes += job->task[i].nodes;"),
]

DRIVER = r"""
#include <stdio.h>
#include <stdlib.h>
#include "api.h"
extern int xp_mode, xp_count; extern uint64_t xp_nodes[]; extern double xp_size[];
int main(int argc, char **argv)
{
    if (argc != 3) return 2;
    xp_mode = atoi(argv[1]);
    s2048_init();
    s2048_weights w;
    s2048_default_weights(&w);
    s2048_eval *e = s2048_eval_new(&w);
    s2048_searcher *s = s2048_searcher_new_threads(8 << 20, 1);
    s2048_searcher_set_reuse_deeper(s, 1);  /* as Searcher() does */
    unsigned long long b;
    while (scanf("%llx", &b) == 1) {
        s2048_result r;
        if (s2048_analyze(s, e, b, atoi(argv[2]), -1, -1, 0.0, -1.0, 0, &r) != 0) return 1;
        for (int i = 0; i < xp_count; i++) printf("%llu:%.17g ", (unsigned long long)xp_nodes[i], xp_size[i]);
        printf("\n");
    }
    return 0;
}
"""


def build(work: Path) -> Path:
    """The patched copy of the engine and its driver, compiled."""
    csrc = work / "csrc"
    shutil.copytree(ROOT / "csrc", csrc)
    search = csrc / "search.c"
    text = search.read_text(encoding="utf-8")
    for old, new in PATCHES:
        if text.count(old) != 1:
            sys.exit(f"split_order: csrc/search.c changed, a patch no longer applies: {old[:60]!r}")
        text = text.replace(old, new)
    search.write_text(text, encoding="utf-8")
    (work / "driver.c").write_text(DRIVER, encoding="utf-8")
    exe = work / "driver"
    cc = os.environ.get("CC", "cc")
    subprocess.run([cc, "-std=gnu11", "-O3", "-ffp-contract=off", "-fno-fast-math", "-pthread",
                    "-I", str(csrc), *map(str, sorted(csrc.glob("*.c"))), str(work / "driver.c"),
                    "-o", str(exe), "-lm"], check=True)
    return exe


def task_lists(exe: Path, mode: int, depth: int, boards: str) -> list[list[tuple[int, float]]]:
    """Per position, each task's (nodes, expected size), in the engine's task order."""
    out = subprocess.run([str(exe), str(mode), str(depth)], input=boards, capture_output=True,
                         text=True, check=True).stdout
    return [[(int(n), float(s)) for n, s in (t.split(":") for t in line.split())] for line in out.splitlines()]


def finish(sizes: list[int], order: list[int], threads: int) -> int:
    """When the last thread is done, each taking the next task of order when free."""
    free = [0] * threads
    for i in order:
        heapq.heappush(free, heapq.heappop(free) + sizes[i])
    return max(free)


def first_by(keys: list[float]) -> list[int]:
    """Indices by decreasing key, ties by index (as order_tasks sorts)."""
    return sorted(range(len(keys)), key=lambda i: (-keys[i], i))


def cells_keys(boards: list[int]) -> list[list[float]]:
    """The order before the model: empty cells of the root chance node, a 4 a fifth of a 2."""
    from solve2048 import Board

    keys = []
    for bits in boards:
        board = Board.from_int(bits)
        row: list[float] = []
        for move in board.legal_moves():
            cells = board.move(move)[0].empty_count
            row += [cells * 1.0, cells * 0.2]
        keys.append(row)
    return keys


def speed_ups(tasks: list[list[int]], orders: list[list[int]], threads: int) -> float:
    return sum(map(sum, tasks)) / sum(finish(t, o, threads) for t, o in zip(tasks, orders, strict=True))


def report(depth: int, exe: Path, boards: list[int]) -> None:
    text = "".join(f"{b:#x}\n" for b in boards)
    whole = task_lists(exe, 0, depth, text)
    split = task_lists(exe, 1, depth, text)
    nodes = [[n for n, _ in p] for p in whole]
    total = sum(map(sum, nodes))
    cells = cells_keys(boards)
    print(f"depth {depth}: {total:,} nodes in the tasks (8 or fewer per position)")
    print("  threads | cells | model | real  | bound | 32 tasks (+nodes) | largest only (+nodes)")
    split_nodes = [[n for n, _ in p] for p in split]
    split_total = sum(map(sum, split_nodes))
    # Only the tasks the model expects to hold over SPLIT_SHARE of the work, split by second move.
    some: list[list[int]] = []
    some_keys: list[list[float]] = []
    for p, q in zip(whole, split, strict=True):
        expected = sum(s for _, s in p)
        sizes, keys = [], []
        for i, (n, s) in enumerate(p):
            if s > SPLIT_SHARE * expected:
                sizes += [m for m, _ in q[4 * i:4 * i + 4]]
                keys += [k for _, k in q[4 * i:4 * i + 4]]
            else:
                sizes.append(n)
                keys.append(s)
        some.append(sizes)
        some_keys.append(keys)
    some_total = sum(map(sum, some))
    for threads in THREADS:
        bound = total / sum(max(max(p), sum(p) / threads) for p in nodes)
        row = [speed_ups(nodes, [first_by(k) for k in cells], threads),
               speed_ups(nodes, [first_by([s for _, s in p]) for p in whole], threads),
               speed_ups(nodes, [first_by([float(n) for n in p]) for p in nodes], threads), bound]
        # The finer splits, as speed-ups over today's search on one thread.
        fine = total / sum(finish(p, first_by([s for _, s in q]), threads)
                           for p, q in zip(split_nodes, split, strict=True))
        largest = total / sum(finish(p, first_by(k), threads) for p, k in zip(some, some_keys, strict=True))
        print(f"  {threads:7d} | " + " | ".join(f"{x:.3f}" for x in row)
              + f" | {fine:.3f} ({split_total / total - 1:+.1%})      | {largest:.3f} ({some_total / total - 1:+.1%})")


def split_depth(text: str) -> int:
    """A depth the root is split at: 6 (SPLIT_DEPTH in csrc/search.c) to MAX_DEPTH."""
    if not text.isdigit() or not 6 <= int(text) <= MAX_DEPTH:
        raise argparse.ArgumentTypeError(f"expected a depth from 6 (where the split starts) to {MAX_DEPTH}, "
                                         f"got {text!r}")
    return int(text)


def seed_range(text: str) -> tuple[int, int]:
    """FIRST:LAST, the seeds FIRST to LAST - 1."""
    first, _, last = text.partition(":")
    if not (first.isdigit() and last.isdigit() and int(first) < int(last)):
        raise argparse.ArgumentTypeError(f"expected FIRST:LAST with FIRST < LAST, got {text!r}")
    return int(first), int(last)


def seed_positions(first: int, last: int) -> list[int]:
    """Positions from other seeds, picked as make_positions.py picks the
    bench's: 5 from each depth-3 game, early to late."""
    from make_positions import picks

    return [int(board) for seed in range(first, last) for board in picks(seed)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--depths", type=split_depth, nargs="+", default=[6, 7])
    parser.add_argument("--seeds", metavar="FIRST:LAST", type=seed_range,
                        help="search the positions of these games (5 each) instead of the bench's; "
                             "the model was checked on 100:140")
    args = parser.parse_args()
    boards = seed_positions(*args.seeds) if args.seeds else [int(b) for b in load_positions()]
    with tempfile.TemporaryDirectory() as work:
        exe = build(Path(work))
        for depth in args.depths:
            report(depth, exe, boards)


if __name__ == "__main__":
    main()
