"""The commands and the tables: ``tables build`` and ``tables info``, and hint and
batch with tables on disk (what they say, what they record, what they refuse)."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner
from helpers import write_format_1

from solve2048 import Board
from solve2048.cli.main import cli
from solve2048.tables import CHAIN, DEFAULT_MIN_PROBABILITY, ENTRY, OPTIONAL_SPECS, TableSpec, load
from solve2048.tables_build import build_all, build_memory, compute, save, widest_layer


def _run(*args: str):
    return CliRunner().invoke(cli, list(args))


def _json_of(result) -> dict:
    # The JSON line of stdout (click before 8.2 mixes stderr's warnings into it).
    return json.loads(next(line for line in result.stdout.splitlines() if line.startswith("{")))


def test_tables_build_info_and_a_damaged_file(tmp_path):
    result = _run("tables", "build", "--dir", str(tmp_path), "--only", "entry-11:32", "--only", "block-7:32")
    assert result.exit_code == 0, result.output
    result = _run("tables", "info", "--dir", str(tmp_path), "--json")
    status = {(t["shape"], t["free_cells"], t["goal"]): t["status"] for t in _json_of(result)["tables"]}
    assert status[("entry", 11, 32)] == status[("block", 7, 32)] == "ok"
    assert status[("entry", 11, 64)] == "missing"

    damaged = tmp_path / TableSpec(9, 5, 1).filename
    damaged.write_bytes(damaged.read_bytes()[:-2])
    result = _run("tables", "info", "--dir", str(tmp_path))
    assert "damaged" in result.output and "torn" in result.output
    # A command that plays says so in one line, and searches instead.
    board = "8 16 32 64 / 4 . . . / . . . . / . . . 2"
    result = _run("hint", board, "-d", "1", "--tables-dir", str(tmp_path), "--json")
    assert result.exit_code == 0
    assert "warning" in result.output and "torn" in result.output
    assert "endgame tables are missing" in result.output


def test_tables_build_says_how_much_memory_it_will_hold(tmp_path):
    # entry-11:32: its 24,000,000 entries at a byte each, and three of its
    # widest layers, 1,018,386 entries, at two.
    assert widest_layer(TableSpec(5, 5, ENTRY)) == 1_018_386
    assert build_memory(TableSpec(5, 5, ENTRY)) == 24_000_000 + 6 * 1_018_386
    result = _run("tables", "build", "--dir", str(tmp_path), "--only", "entry-11:32")
    assert result.exit_code == 0, result.output
    assert "(24 MB, at most 30 MB of memory at once)" in result.output


def test_tables_build_warns_when_a_table_needs_more_memory_than_is_available(tmp_path, monkeypatch):
    from solve2048.cli import tables as tables_cli

    monkeypatch.setattr(tables_cli, "_available_memory", lambda: 1_000_000)
    result = _run("tables", "build", "--dir", str(tmp_path), "--only", "entry-11:32")
    assert result.exit_code == 0, result.output
    assert "warning: entry-11:32 holds 30 MB while it is built, and 1 MB of memory are available now" in result.output
    # Built already: nothing to warn of. Plenty of memory: nothing either.
    result = _run("tables", "build", "--dir", str(tmp_path), "--only", "entry-11:32")
    assert "warning" not in result.output and "already built" in result.output
    monkeypatch.setattr(tables_cli, "_available_memory", lambda: 10**12)
    result = _run("tables", "build", "--dir", str(tmp_path / "more"), "--only", "entry-11:32")
    assert result.exit_code == 0 and "warning" not in result.output


def test_tables_info_says_from_which_probability_each_tables_move_is_played(tmp_path):
    # The goal-512 entry table (here a damaged file) is trusted from 0.1, the
    # other entry tables from 0.9.
    (tmp_path / TableSpec(5, 9, ENTRY).filename).write_bytes(b"not a table")
    rows = _json_of(_run("tables", "info", "--dir", str(tmp_path), "--json", "--no-verify"))["tables"]
    trusted = {(t["shape"], t["goal"]): t["trusted_from"] for t in rows}
    assert trusted == {("entry", 32): 0.9, ("entry", 64): 0.9, ("entry", 128): 0.9, ("entry", 512): 0.1,
                       ("chain", 512): 0.0, ("chain", 1024): 0.0}
    text = _run("tables", "info", "--dir", str(tmp_path), "--no-verify").output
    assert "entry goal    512: damaged" in text and "trusted from 0.1  entry05-goal512.egt" in text
    assert "trusted from 0.9  entry05-goal32.egt" in text and "trusted from 0    chain06-anchor512.egt" in text


def test_tables_build_refuses_an_unknown_table(tmp_path):
    result = _run("tables", "build", "--dir", str(tmp_path), "--only", "9:4096")
    assert result.exit_code == 2 and "no table '9:4096'" in result.output


def test_optional_block_tables_are_built_on_request_and_then_used(tmp_path):
    result = _run("tables", "build", "--dir", str(tmp_path), "--only", "block-7:32")
    assert result.exit_code == 0, result.output
    rows = _json_of(_run("tables", "info", "--dir", str(tmp_path), "--json"))["tables"]
    block = [t for t in rows if t["shape"] == "block"]
    assert [(t["free_cells"], t["goal"], t["status"]) for t in block] == [(7, 32, "ok")]
    assert {t["shape"] for t in rows if t["status"] == "missing"} == {"chain", "entry"}
    text = _run("tables", "info", "--dir", str(tmp_path), "--no-verify").output
    assert "block goal     32: ok" in text and f"{len(OPTIONAL_SPECS) - 1} optional tables not built" in text
    tables = load(tmp_path, min_probability=0.0).tables
    assert tables.specs == [TableSpec(9, 5, 1)]
    # A 3x3 block down to the anchor 32; left merges 16 16 onto the cell below it.
    board = "2048 1024 512 . / 1024 512 256 . / 256 128 32 . / 2 4 16 16"
    found = tables.probe(Board(board))
    assert found is not None and found.spec == TableSpec(9, 5, 1)
    assert found.probability == 1.0 and str(found.move) == "left"


def test_an_entry_table_is_built_by_name_and_then_used(tmp_path):
    result = _run("tables", "build", "--dir", str(tmp_path), "--only", "entry-11:32")
    assert result.exit_code == 0, result.output
    rows = _json_of(_run("tables", "info", "--dir", str(tmp_path), "--json"))["tables"]
    assert [(t["free_cells"], t["goal"], t["status"]) for t in rows if t["shape"] == "entry"] == [
        (11, 32, "ok"), (11, 64, "missing"), (11, 128, "missing"), (11, 512, "missing")]
    assert "entry goal     32: ok" in _run("tables", "info", "--dir", str(tmp_path)).output
    assert load(tmp_path).tables.specs == [TableSpec(5, 5, ENTRY)]


def test_what_each_shape_plays_for():
    assert TableSpec(8, 9).goal_text == "build 512"
    assert TableSpec(6, 9, CHAIN).goal_text == "ready a chain to 512"
    assert TableSpec(5, 7, ENTRY).goal_text == "build 128 in the chain block"


def test_hint_json_says_when_a_table_chose_the_move(tmp_path):
    spec = TableSpec(9, 5, 1)   # optional, so read from any directory that holds it
    save(spec, compute(spec), tmp_path)
    # A 3x3 block down to the anchor 32; left merges 16 16 onto the cell below
    # it, for certain.
    board = "2048 1024 512 . / 1024 512 256 . / 256 128 32 . / 2 4 16 16"
    table = load(tmp_path, (spec,), min_probability=0.0).tables.probe(Board(board))
    assert table is not None and table.probability == 1.0 and str(table.move) == "left"
    result = _run("hint", board, "-d", "2", "--tables-dir", str(tmp_path), "--json",
                  "--table-min-prob", "0")
    data = _json_of(result)
    assert data["from_table"] is True and data["best"] == str(table.move)
    assert data["table_probability"] == table.probability
    result = _run("hint", board, "-d", "2", "--tables-dir", str(tmp_path), "--json", "--no-tables")
    data = _json_of(result)
    assert data["from_table"] is False and data["table_probability"] is None


def test_hint_says_what_an_entry_table_plays_for(tmp_path, built_table):
    spec = TableSpec(5, 5, ENTRY)
    save(spec, built_table(spec), tmp_path)
    # Block 1024 512 256 / 128 64 (goal 32 on (1,2)); 32 there, 16 on (0,3),
    # and 8 8 lower in column 3: up merges them into a 16 beside both.
    board = "1024 512 256 16 / 128 64 32 . / . . . 8 / . . . 8"
    result = _run("hint", board, "-d", "2", "--tables-dir", str(tmp_path))
    assert result.exit_code == 0, result.output
    assert "best move: up  (endgame table: 100% to build 32 in the chain block)" in result.output


def test_tables_of_the_16_bit_format_are_outdated_and_converted_by_build(tmp_path, built_table):
    specs = (TableSpec(5, 5, ENTRY), TableSpec(9, 5, 1))   # one default table, one optional
    for spec in specs:
        write_format_1(tmp_path / spec.filename, spec, built_table(spec))
    result = _run("tables", "info", "--dir", str(tmp_path), "--json")
    status = {t["file"]: t["status"] for t in _json_of(result)["tables"]}
    assert [status[spec.filename] for spec in specs] == ["outdated", "outdated"]
    # A command that plays says it once for all of them, and searches instead.
    board = "1024 512 256 16 / 128 64 32 . / . . . 8 / . . . 8"
    result = _run("hint", board, "-d", "1", "--tables-dir", str(tmp_path))
    assert result.exit_code == 0, result.output
    assert result.output.count("warning") == 1 + ("missing" in result.output)
    assert "2 endgame tables are of an earlier version; `solve2048 tables build` updates them" in result.output
    result = _run("tables", "build", "--dir", str(tmp_path), *(f"--only={spec.label}" for spec in specs))
    assert result.exit_code == 0, result.output
    assert result.output.count("converted from 16-bit entries") == 2
    result = _run("tables", "info", "--dir", str(tmp_path), "--json")
    status = {t["file"]: t["status"] for t in _json_of(result)["tables"]}
    assert [status[spec.filename] for spec in specs] == ["ok", "ok"]


def test_batch_with_tables_records_them_and_refuses_to_mix(tmp_path):
    tables_dir, out = tmp_path / "tables", tmp_path / "games.jsonl"
    build_all(tables_dir, (TableSpec(5, 5, ENTRY), TableSpec(9, 5, 1), TableSpec(9, 6, 1)))
    result = _run("batch", "-n", "4", "-d", "2", "-j", "1", "--tables-dir", str(tables_dir),
                  "-o", str(out), "--json")
    assert result.exit_code == 0, result.output
    summary = _json_of(result)
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert all(r["tables"] == DEFAULT_MIN_PROBABILITY for r in rows)
    moves = sum(r["moves"] for r in rows)
    assert summary["table_move_share"] == sum(r["table_moves"] for r in rows) / moves > 0
    result = _run("batch", "-n", "4", "-d", "1", "--no-tables", "-o", str(out))
    assert result.exit_code == 2 and "tables at 0.9" in result.output and "no tables" in result.output


def test_a_build_not_on_a_terminal_reports_every_tenth(tmp_path):
    # CliRunner's stderr is not a terminal, as in a log or a pipe.
    result = _run("tables", "build", "--dir", str(tmp_path), "--only", "entry-11:32")
    assert result.exit_code == 0, result.output
    steps = [line.rsplit(" ", 1)[1] for line in result.output.splitlines() if line.endswith("%")]
    assert steps[-1] == "100%" and steps == sorted(steps, key=lambda s: int(s[:-1]))
    assert len(steps) == len(set(steps)) >= 2


@pytest.mark.parametrize("probability, text", [(1.0, "100%"), (54 / 60, "90.0-91.7%"), (59 / 60, "98.3-100.0%"),
                                               (1 / 60, "0.0-3.3%"), (2 / 60, "3.3-5.0%")])
def test_a_tables_probability_shows_the_range_its_stored_step_stands_for(probability, text):
    from solve2048.cli.render import table_odds

    assert table_odds(probability) == text
