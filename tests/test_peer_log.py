"""bench/peer_log.py: the tables AI's game logs read as games, a replay told
from a different game, and two samples' reach rates set apart."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import bench_module

from solve2048 import Board


@pytest.fixture(scope="module")
def log():
    return bench_module("peer_log")


def game_lines(seed: int, score: int, top: int, moves: int) -> str:
    # As its game loop writes them: progress drawn over with carriage returns,
    # the last board (its last spawn between arrows), then the two lines that
    # end a game.
    rule = "-" * 33
    return (f"\r   2048\r   {top}\r{rule}\n| {top:5} |     2 |       |       |\n{rule}\n"
            + f"|       |       |       |       |\n{rule}\n" * 2
            + f"|     4 |       | > 2 < |       |\n{rule}\n"
            f"score {score} max {top} sum {top + 8}\n"
            f"game# {seed} moves {moves} seconds 2.5 moves/s {moves / 2.5:.1f}\n")


def last_board(top: int) -> str:
    return Board(f"{top} 2 . . / . . . . / . . . . / 4 . 2 .").hex()


def test_it_reads_each_finished_game_and_leaves_out_one_cut_off(log, tmp_path: Path) -> None:
    path = tmp_path / "2048b.d4"
    path.write_text(game_lines(2001, 600000, 32768, 21000) + game_lines(2002, 300000, 16384, 11000)
                    + "\r   4096\r   8192")   # the third game was stopped
    rows = log.read(path)
    assert rows == [
        {"seed": 2001, "score": 600000, "max_tile": 32768, "moves": 21000, "seconds": 2.5,
         "final_board": last_board(32768)},
        {"seed": 2002, "score": 300000, "max_tile": 16384, "moves": 11000, "seconds": 2.5,
         "final_board": last_board(16384)},
    ]
    text = log.describe("x", rows)
    assert "2 games" in text and "mean 450,000 ± 150,000" in text
    assert "16384 100.0% ± 0.0%" in text and "32768 50.0% ± 35.4%" in text and "65536 0.0%" in text
    assert "6,400 moves/s" in text
    assert "16384 -> 32768 1 of 2 (50.0%), 32768 -> 65536 0 of 1 (0.0%)" in text


def test_a_replay_is_told_from_a_different_game(log) -> None:
    a = [{"seed": s, "score": 10 * s, "max_tile": 8192, "moves": s, "seconds": 1.0} for s in range(5)]
    b = [dict(r) for r in a[2:]] + [{"seed": 9, "score": 1, "max_tile": 2048, "moves": 1, "seconds": 1.0}]
    assert log.same_games(a, b) == "shared games: 3, the same game in both: 3"
    b[1]["moves"] += 1
    assert log.same_games(a, b) == "shared games: 3, the same game in both: 2; the first that differs: 3"
    # The same score and moves with another last board is another game.
    a[4]["final_board"], b[2]["final_board"] = last_board(8192), last_board(16384)
    assert log.same_games(a, b) == "shared games: 3, the same game in both: 1; the first that differs: 3"


def test_apart_compares_only_the_games_one_of_them_played(log, tmp_path: Path) -> None:
    def games(seeds: range, hits: int) -> list[dict]:
        return [{"seed": s, "score": 1, "max_tile": 32768 if i < hits else 16384, "moves": 1, "seconds": 1.0}
                for i, s in enumerate(seeds)]
    a, b = games(range(0, 100), 70), games(range(50, 250), 100)
    lines = log.apart(a, b)
    # Seeds 50-99 are in both and left out: A keeps seeds 0-49 (all 50 hit),
    # B keeps 100-249 (its hits were its first 100, seeds 50-149: 50 of them kept).
    assert lines[0].startswith("apart (the 50 and 150 games")
    assert lines[3].startswith("  32768: -66.7 ± 3.8 points, Fisher p 0.000")
    assert lines[2].startswith("  16384: +0.0 ± 0.0 points, Fisher p 1.000")
    # Its peer_phase lines read the same way.
    path = tmp_path / "whole.ndjson"
    path.write_text("".join(json.dumps(r) + "\n" for r in a))
    assert log.read(path) == a
