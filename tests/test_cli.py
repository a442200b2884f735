"""The command line, driven through click's CliRunner."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from click.testing import CliRunner

from solve2048 import Board, analyze
from solve2048.cli.main import cli

BOARD = "2 4 8 16 / . 2 . 4 / . . 2 . / . . . 2"
LOST = "2 4 2 4 / 4 2 4 2 / 2 4 2 4 / 4 2 4 2"


def run(*args: str, input: str | None = None):
    result = CliRunner().invoke(cli, list(args), input=input, catch_exceptions=False)
    return result


def test_version_and_help() -> None:
    from solve2048.engine import ENGINE_ID

    result = run("--version")
    assert result.exit_code == 0 and "solve2048" in result.output
    assert result.output.rstrip().endswith(f"engine {ENGINE_ID}") and len(ENGINE_ID) == 12
    result = run("--help")
    assert result.exit_code == 0 and "hint" in result.output and "Exit codes" in result.output


def test_hint_human_output_lists_every_direction_best_first() -> None:
    result = run("hint", BOARD, "--depth", "2")
    assert result.exit_code == 0, result.output
    expected = analyze(BOARD, depth=2)
    lines = result.output.splitlines()
    assert f"best move: {expected.best}" in lines
    order = [line.split()[0] for line in lines
             if line.startswith("  ") and line.split()[0] in ("up", "down", "left", "right")]
    assert order == [str(m) for m, _ in expected.ranked()]
    assert "depth 2, quiescence 3, late quiescence 2 ·" in result.output  # the default look


def test_hint_marks_illegal_directions() -> None:
    result = run("hint", "2 2 . . / . . . . / . . . . / . . . .", "-d", "1")
    assert result.exit_code == 0, result.output
    assert any(line.split() == ["up", "illegal"] for line in result.output.splitlines())


def test_hint_json_shape() -> None:
    result = run("hint", BOARD, "--depth", "3", "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert set(data) == {"board", "best", "values", "depth", "nodes", "seconds",
                         "from_table", "table_probability", "heuristic", "danger", "quiescence",
                         "late_quiescence"}
    assert data["heuristic"] == "default"  # no tables in the tests' own table folder
    assert data["board"] == list(Board.parse(BOARD).cells)
    assert set(data["values"]) == {"up", "down", "left", "right"}
    assert data["best"] == max(data["values"], key=lambda k: data["values"][k] or -1)
    assert data["depth"] == 3 and data["nodes"] > 0


def test_hint_search_settings_reach_the_search() -> None:
    # With no table at all (--tt-mb 0) the C search visits what the oracle visits.
    from solve2048.reference_search import expectimax

    data = json.loads(run("hint", BOARD, "-d", "3", "--prune", "0", "--tt-mb", "0", "--json").output)
    oracle = expectimax(list(Board.parse(BOARD).cells), 3, prune=0.0)
    assert data["nodes"] == oracle.nodes
    assert data["values"] == oracle.values
    pruned = json.loads(run("hint", BOARD, "-d", "3", "--prune", "0.05", "--tt-mb", "0", "--json").output)
    assert pruned["nodes"] == expectimax(list(Board.parse(BOARD).cells), 3, prune=0.05).nodes < data["nodes"]


def test_hint_reads_stdin() -> None:
    result = run("hint", "-", "--json", "-d", "1", input="2 2 . .\n. . . .\n. . . .\n. . . .\n")
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["values"]["up"] is None


def test_hint_time_limit_reports_completed_depth() -> None:
    data = json.loads(run("hint", BOARD, "--time", "30", "--json").output)
    assert data["depth"] >= 2 and data["best"] is not None


def test_hint_game_over_exits_1() -> None:
    result = run("hint", LOST)
    assert result.exit_code == 1
    assert "game over: no legal move" in result.output
    result = run("hint", LOST, "--json")
    assert result.exit_code == 1 and json.loads(result.output)["best"] is None


@pytest.mark.parametrize("args, message", [
    (["hint", "2 3 4"], "expected 16 cells, got 3"),
    (["hint", "2 4 . . / . . 3 . / . . . . / . . . ."], "row 2, column 3: 3 is not a tile"),
    (["hint", ". . . . 262144 . . . . . . . . . . ."], "past 131072"),
    (["hint", BOARD, "--depth", "0"], "expected 'auto' or a depth from 1 to 16"),
    (["hint", BOARD, "--depth", "99"], "expected 'auto' or a depth from 1 to 16"),
    (["hint", BOARD, "--depth", "deep"], "expected 'auto' or a depth from 1 to 16"),
    (["hint", BOARD, "--time", "-5"], "--time"),
    (["hint", BOARD, "--bogus"], "No such option"),
    (["bench", "--depth", "0"], "--depth"),
    (["hint", BOARD, "--prune", "2"], "--prune"),
    (["play", "--tt-mb", "-1"], "--tt-mb"),
    (["hint", BOARD, "--time", "nan"], "not a finite number"),
    (["play", "--time", "inf"], "--time"),
    (["batch", "-n", "1", "--time", "nan"], "not a finite number"),
    (["hint", BOARD, "--table-min-prob", "nan"], "not a finite number"),
    (["hint", BOARD, "--tt-mb", str(10**9)], "would not fit"),
    (["bench", "--tt-mb", "1e3"], "whole number of MB"),
])
def test_bad_input_is_one_line_exit_2(args: list[str], message: str) -> None:
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 2, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], result.output
    assert "Traceback" not in result.output


def test_bench_json_and_pinned_node_count() -> None:
    # The node count is a signature of the search: a change to it must be deliberate.
    # Update these numbers only together with a note on why the search changed.
    # The plain search's (--quiescence off), and the default look's (quiescence 3).
    for depth, plain, looked in ((2, 1702, 7068), (3, 37527, 74048), (4, 243603, 432669), (5, 912534, 1750859)):
        data = json.loads(run("bench", "--depth", str(depth), "--quiescence", "off", "--json").output)
        assert set(data) == {"positions", "depth", "prune", "tt_mb", "danger", "quiescence", "nodes",
                             "seconds", "nodes_per_second", "ms_per_move_median"}
        assert data["danger"] is None and data["quiescence"] is None
        assert data["positions"] == 50
        assert data["nodes"] == plain, data
        data = json.loads(run("bench", "--depth", str(depth), "--json").output)
        assert data["quiescence"] == 3 and data["nodes"] == looked, data


def test_a_board_on_stdin_is_read_with_a_bound() -> None:
    # /dev/zero never ends: the board must be refused, not read into memory.
    with open("/dev/zero", "rb") as zeros:
        done = subprocess.run([sys.executable, "-m", "solve2048.cli", "hint", "-"], stdin=zeros,
                              capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        "solve2048: error: Invalid value for 'BOARD': the board on standard input is longer than "
        "65,536 characters; a board is 16 cells"]
