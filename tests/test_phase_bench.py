"""bench/phase_rollouts.py and bench/weights_batch.py: the tries of a
stopped game are games of their own spawns, the split of a phase's variance
tells a board that decides from spawns that do, and a batch under weights
given from Python records them and resumes."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import asdict
from pathlib import Path

import pytest
from helpers import bench_module

from solve2048 import Board
from solve2048.batch import Settings, run_local
from solve2048.engine import Weights
from solve2048.results import append_row, load

BENCH = Path(__file__).resolve().parent.parent / "bench"


@pytest.fixture(scope="module")
def rollouts():
    return bench_module("phase_rollouts")


def test_each_try_has_a_generator_of_its_own(rollouts) -> None:
    words = {rollouts.other_rng(seed, k) for seed in range(20) for k in range(1, 5)}
    assert len(words) == 80 and all(len(w) == 64 and int(w, 16) != 0 for w in words)


def test_tries_play_on_from_the_stop_with_other_spawns(rollouts, tmp_path: Path) -> None:
    stopped = tmp_path / "stopped.jsonl"
    rows: list[dict] = []
    run_local(range(6), Settings(depth=1, stop_at=256), 1, rows.extend)
    with stopped.open("w") as stream:
        for row in rows:
            append_row(stream, row)
    held = [r for r in rows if r["state"] is not None]
    assert held
    out = tmp_path / "tries.jsonl"
    rollouts.play(str(stopped), str(out), 0, 5, 2, 512, depth=1, tables=False, jobs=1)
    tries = [json.loads(line) for line in out.read_text().splitlines()]
    assert sorted((t["seed"], t["k"]) for t in tries) == sorted((r["seed"], k) for r in held for k in (1, 2))
    assert all(t["moves"] > 0 for t in tries)
    # Two tries of a board are other games (their spawns differ), not copies.
    assert len({(t["seed"], t["moves"]) for t in tries}) > len(held)
    rollouts.play(str(stopped), str(out), 0, 5, 2, 512, depth=1, tables=False, jobs=1)   # resumes: none more
    assert len(out.read_text().splitlines()) == len(tries)


def test_the_split_tells_boards_that_decide_from_spawns_that_do(rollouts) -> None:
    decided = rollouts.split({seed: [seed % 2 == 0] * 4 for seed in range(40)})
    assert decided["between"] == pytest.approx(decided["total"]) and decided["wins"] == [20, 0, 0, 0, 20]
    mixed = rollouts.split({seed: [True, False, seed % 2 == 0, seed % 2 == 1] for seed in range(40)})
    assert mixed["between"] < 0 < mixed["total"] and mixed["wins"] == [0, 0, 40, 0, 0]
    assert sum(mixed["binomial"]) == pytest.approx(40)


def test_a_batch_under_weights_records_them_and_resumes(tmp_path: Path) -> None:
    out = tmp_path / "w.jsonl"
    command = [sys.executable, str(BENCH / "weights_batch.py"), str(out), "1", "corner_weight=6",
               "--games", "3", "--jobs", "1", "--no-tables"]
    for _ in range(2):
        subprocess.run(command, check=True, capture_output=True)
    rows = load(str(out)).rows
    assert sorted(r["seed"] for r in rows) == [0, 1, 2]
    assert all(r["weights"] == asdict(Weights(corner_weight=6.0)) for r in rows)


def test_the_last_chain_split_reads_our_files_and_the_tables_ais_logs(tmp_path: Path) -> None:
    last_chain = bench_module("last_chain")
    # In the last chain (tiles 31,744 and more; stuck from 32,768), before it,
    # not past 16384, and 32768.
    assert last_chain.tally([(16384, 31744), (16384, 32768), (16384, 31743), (16384, 16900), (32768, 40000),
                             (8192, 9000)]) == (6, 1, 2, 1, 1)
    # From 32768 to 65536: the last chain from 64,512, stuck from 65,536, before it from 34,000.
    assert last_chain.tally([(32768, 64512), (32768, 65536), (32768, 64511), (32768, 33999), (65536, 70000),
                             (16384, 31744)], top=32768) == (6, 1, 2, 1, 1)
    ours = tmp_path / "ours.jsonl"
    rows: list[dict] = []
    run_local(range(3), Settings(depth=1), 1, rows.extend)
    with ours.open("w") as stream:
        for row in rows:
            append_row(stream, row)
    cells = [Board.parse(row["final_board"]).cells for row in rows]
    assert list(last_chain.endings(ours)) == [(max(c), sum(c)) for c in cells]
    log = tmp_path / "2048b.d4"
    log.write_text("| 2 |\nscore 1 max 16384 sum 31744\ngame# 1 moves 9\nscore 1 max 65536 sum 99999\n"
                   "score 1 max 16384 sum 31743\nscore 1 max 8192 sum 9000\n")
    assert last_chain.report(log) == ("2048b.d4: 4 games, 32768 in 1; died holding 16384 in the last chain 1 "
                                      "(0 of them stuck with 32,768 or more), before it 1; "
                                      "the last chain's death rate 50.0%")


def test_the_square_route_finds_the_corner_square_in_a_record(tmp_path: Path) -> None:
    square_route = bench_module("square_route")
    square = Board.parse("16384 8192 . . / 4096 2048 . . / . . . . / . . . 2").cells
    assert square_route.in_square(list(square))
    assert square_route.in_square(list(Board.parse(". . . 2 / . . . . / . . 2048 4096 / . . 8192 16384").cells))
    assert not square_route.in_square(list(Board.parse("16384 8192 . . / 4096 1024 . . / . . . . / . . . 2").cells))
    assert not square_route.in_square(list(Board.parse("16384 8192 4096 . / 2048 . . . / . . . . / . . . 2").cells))
    assert square_route.route(iter([[2] * 16, list(square), [32768] + [0] * 15])) == (True, True, True)
    assert square_route.route(iter([[2] * 16, [16384] + [0] * 15])) == (True, False, False)
    assert square_route.route(iter([[2] * 16])) == (False, False, False)
    record = tmp_path / "game.jsonl"
    start = {"type": "start", "board": list(square), "given": True}   # as play --start writes it
    move = {"type": "move", "dir": "right", "gain": 0, "spawn": {"cell": 0, "value": 2}}
    record.write_text(json.dumps(start) + "\n" + json.dumps(move) + "\n")
    assert square_route.report([record]) == "1 games at 16384: met the square 1 (32768 in 0), did not 0 (32768 in 0)"


def test_a_screen_is_paired_with_each_baseline_and_with_their_mean(tmp_path: Path) -> None:
    screen = bench_module("phase_screen")
    trial = {0: 1, 1: 0, 2: 1, 3: 1}
    run = {0: 1, 1: 1, 2: 0, 3: 1}
    replay = {0: 0, 1: 1, 3: 1}   # seed 2 not replayed
    assert screen.paired(trial, run)[:2] == (4, 0.0)     # -1 and +1 cancel
    both = screen.mean_base([run, replay])
    assert both == {0: 0.5, 1: 1.0, 2: 0.0, 3: 1.0}
    n, diff, se = screen.paired(trial, both)
    assert n == 4 and diff == pytest.approx(100 * (0.5 - 1.0 + 1.0 + 0.0) / 4) and se > 0
    assert screen.paired(trial, replay)[0] == 3
    tries = tmp_path / "tries.ndjson"
    tries.write_text("".join(json.dumps({"seed": s, "k": k, "max_tile": 32768 if (s + k) % 2 else 16384, "moves": 9})
                             + "\n" for s in range(3) for k in (1, 2)))
    assert screen.read_tries(tries) == {1: {0: 1, 1: 0, 2: 1}, 2: {0: 0, 1: 1, 2: 0}}


def test_the_packages_own_run_screened_is_level_with_itself() -> None:
    screen = bench_module("phase_screen")
    lines = screen.report(screen.RUN).splitlines()
    run = load(str(screen.RUN), repair=False).rows
    assert lines[0].startswith(f"{screen.RUN.name}: {len(run):,} games, 32768 in 705; {len(run):,} the run's own")
    assert lines[1].endswith(f"of {len(run)} there: +0.0 ± 0.0 points") and "against the run," in lines[1]
    assert any("replay 1," in line for line in lines) and "the mean of all" in lines[-1]


def test_a_screen_takes_its_baselines_from_the_command_line(tmp_path: Path) -> None:
    run, trial = tmp_path / "run.jsonl", tmp_path / "trial.jsonl"
    rows: list[dict] = []
    run_local(range(4), Settings(depth=1, stop_at=256), 1, rows.extend)
    for path in (run, trial):
        with path.open("w") as stream:
            for row in rows:
                append_row(stream, row)
    alone = subprocess.run([sys.executable, str(BENCH / "phase_screen.py"), str(trial), "--run", str(run),
                            "--tries", "none"], check=True, capture_output=True, text=True).stdout.splitlines()
    assert alone[0].startswith("trial.jsonl: 4 games, 32768 in 0; 4 the run's own") and len(alone) == 2
    assert alone[1].endswith("of 4 there: +0.0 ± 0.0 points")
