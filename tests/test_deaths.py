"""stats --deaths: what the lost boards of a results file had built."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

from click.testing import CliRunner

from solve2048 import Board
from solve2048.batch import Settings, game_row, play_seeds
from solve2048.cli.main import cli
from solve2048.cli.summary import deaths_text
from solve2048.deaths import SNAKES, Death, summarize
from solve2048.engine import Weights
from solve2048.results import append_row, check_game
from solve2048.selfplay import Game
from solve2048.settings import SearchSettings
from solve2048.tables import CHAIN, ENTRY, TableSet, TableSpec

PERFECT = "65536 32768 16384 8192 / 512 1024 2048 4096 / 256 128 64 32 / 2 4 8 16"


def test_the_snakes_are_the_eight_boustrophedons_from_the_corners() -> None:
    assert len(set(SNAKES)) == 8
    assert all(sorted(path) == list(range(16)) for path in SNAKES)
    assert {path[0] for path in SNAKES} == {0, 3, 12, 15}
    for path in SNAKES:  # each step goes to a neighbouring cell
        assert all(abs(a // 4 - b // 4) + abs(a % 4 - b % 4) == 1 for a, b in itertools.pairwise(path))


def test_a_whole_snake_and_its_mirror_images_read_the_same() -> None:
    board = Board.parse(PERFECT)
    death = Death.of(board)
    assert death == Death(max_tile=65536, corner=True, snake=16, chain=15, big_pairs=0)
    rows = board.rows
    mirrored = Board.from_rows([list(reversed(r)) for r in rows])
    transposed = Board.from_rows([list(c) for c in zip(*rows, strict=True)])
    assert Death.of(mirrored) == Death.of(transposed) == death


def test_a_broken_board_shows_where_it_broke() -> None:
    # The largest tile off the corner, the chain broken below 256 (no 128),
    # two 512s that never met.
    death = Death.of(Board.parse("2 1024 4 8 / 512 256 2 4 / 64 512 8 2 / 2 4 2 4"))
    # (8 4 2 down the right edge is its longest falling snake.)
    assert death == Death(max_tile=1024, corner=False, snake=3, chain=2, big_pairs=1)


def test_summarize_groups_by_the_largest_tile_at_death() -> None:
    rows = play_seeds(list(range(8)), Settings(depth=1)) + [{"seed": 99, "moves": 10}]
    found = summarize(rows)
    assert found["games"] == 8 and found["without_board"] == 1
    groups = found["by_max_tile"]
    assert sum(g["games"] for g in groups) == 8 and abs(sum(g["share"] for g in groups) - 1) < 1e-12
    assert [g["max_tile"] for g in groups] == sorted({r["max_tile"] for r in rows[:8]})
    assert all(0 <= g["corner"] <= 1 and 1 <= g["snake"] <= 16 for g in groups)


def test_stats_deaths_reads_a_batch_file(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    with path.open("w") as stream:
        for row in play_seeds(list(range(6)), Settings(depth=1)):
            append_row(stream, row)
    text = CliRunner().invoke(cli, ["stats", "--deaths", str(path)])
    assert text.exit_code == 0 and text.output.startswith("deaths       6 games")
    data = json.loads(CliRunner().invoke(cli, ["stats", "--deaths", "--json", str(path)]).output)
    assert data["games"] == 6 and {"max_tile", "games", "share", "corner", "snake", "chain", "big_pairs",
                                   "moves", "table_move_share", "uncovered_share", "never_covered",
                                   "moves_after_tables", "last_probability", "stretch_moves",
                                   "stretch_moves_median", "stretch_probability", "stretch_probability_median",
                                   "last_tables"} == set(data["by_max_tile"][0])
    # Without tables no board was covered.
    assert all(g["uncovered_share"] == 1 and g["never_covered"] == 1 and g["moves_after_tables"] is None
               and g["stretch_moves"] is None and g["last_tables"] == [] for g in data["by_max_tile"])
    assert "died with   last covered by" not in text.output
    assert "last covered stretch: moves" not in text.output


def test_what_the_tables_saw_is_counted_move_by_move(stored_table) -> None:
    # The game loop's counts against a probe of every board the game moved from.
    tables = TableSet({s: stored_table(s) for s in (TableSpec(6, 6, CHAIN), TableSpec(5, 5, ENTRY))})
    # The chain term alone: the game of this seed leaves the tables and comes back.
    game = Game(2, SearchSettings(depth=2, tables=tables, weights=Weights.for_tables()))
    board, move, uncovered, last, probability, label, trusted = game.board, 0, 0, 0, None, None, None
    start, start_probability, stretches = 0, None, 0
    seen = set()
    while not game.over:
        for step in game.advance(256):
            move += 1
            probe = tables.probe(board)
            if probe is None:
                uncovered += 1
            else:
                if last != move - 1 or last == 0:   # the move before was not covered: a stretch begins
                    start, start_probability, stretches = move, probe.probability, stretches + 1
                last, probability, label, trusted = move, probe.probability, probe.spec.label, probe.trusted
                seen.add((label, trusted))
            board = step.board
    result = game.result()
    assert result.table_moves > 0 and 0 < last <= result.moves
    assert (result.uncovered_moves, result.last_covered) == (uncovered, last)
    assert result.last_probability == probability
    assert (result.last_table, result.last_trusted) == (label, trusted)
    assert (result.stretch_start, result.stretch_probability) == (start, start_probability)
    assert stretches > 1 and 0 < start < last   # the game left the tables and came back: not the first stretch
    row = check_game(game_row(result))   # a results line keeps them, and reads back
    assert (row["last_table"], row["stretch_start"]) == (label, start)
    assert len({t for t, _ in seen}) == 2   # both tables covered some board, so the label is not a constant


def _death_row(seed: int, max_tile_board: str, **fields: object) -> dict[str, object]:
    board = Board.parse(max_tile_board)
    return {"seed": seed, "depth": 5, "score": 0, "max_tile": board.max_tile, "moves": 100, "seconds": 1.0,
            "final_board": board.hex(), "uncovered_moves": 10, **fields}


def test_deaths_say_which_table_covered_the_last_board_and_whether_it_played() -> None:
    lost = "2 4 2 4 / 4 2 4 2 / 2 4 2 4 / 4 2 4 8"
    rows = [_death_row(0, lost, last_covered=100, last_probability=0.02, last_table="chain-10:1024", last_trusted=True),
            _death_row(1, lost, last_covered=98, last_probability=0.04, last_table="chain-10:1024", last_trusted=True),
            _death_row(2, lost, last_covered=100, last_probability=0.5, last_table="entry-11:128", last_trusted=False),
            _death_row(3, lost, last_covered=0)]   # never covered: no table to name
    (group,) = summarize(rows)["by_max_tile"]
    chain, entry = group["last_tables"]
    no_stretch = {"stretch_moves_median": None, "stretch_probability_median": None}   # older lines
    assert chain == {"table": "chain-10:1024", "games": 2, "on_last_move": 0.5, "probability": 0.03, "played": 1.0,
                     **no_stretch}
    assert entry == {"table": "entry-11:128", "games": 1, "on_last_move": 1.0, "probability": 0.5, "played": 0.0,
                     **no_stretch}
    rows_of_text = [line.split() for line in deaths_text(summarize(rows)).splitlines()]
    assert ["8", "chain-10:1024", "2", "50.0%", "0.030", "100.0%", "—", "—"] in rows_of_text
    assert ["entry-11:128", "1", "100.0%", "0.500", "0.0%", "—", "—"] in rows_of_text


LOST = "2 4 2 4 / 4 2 4 2 / 2 4 2 4 / 4 2 4 8"
CHAIN_LAST = {"last_probability": 0.1, "last_table": "chain-10:512", "last_trusted": True}


def _chain_stretches() -> list[dict[str, object]]:
    """Three games lost under chain-10:512: stretches of 2, 80 and 30 moves from 0.1, 0.8 and 0.6."""
    return [_death_row(0, LOST, last_covered=100, stretch_start=99, stretch_probability=0.1, **CHAIN_LAST),
            _death_row(1, LOST, last_covered=90, stretch_start=11, stretch_probability=0.8, **CHAIN_LAST),
            _death_row(2, LOST, last_covered=100, stretch_start=71, stretch_probability=0.6, **CHAIN_LAST)]


def test_deaths_say_how_long_the_last_covered_stretch_was_and_where_it_began() -> None:
    rows = [*_chain_stretches(),
            _death_row(3, LOST, last_covered=100, **CHAIN_LAST),   # an older line: no stretch recorded
            _death_row(4, LOST, last_covered=0, stretch_start=0)]   # never covered
    (group,) = summarize(rows)["by_max_tile"]
    assert group["stretch_moves"] == (2 + 80 + 30) / 3 and group["stretch_moves_median"] == 30
    assert group["stretch_probability"] == (0.1 + 0.8 + 0.6) / 3 and group["stretch_probability_median"] == 0.6
    assert ["8", "37", "30", "0.500", "0.600"] in [line.split() for line in deaths_text(summarize(rows)).splitlines()]


def test_deaths_give_the_last_covered_stretch_by_the_table_it_ended_with() -> None:
    rows = [*_chain_stretches(),
            _death_row(3, LOST, last_covered=100, stretch_start=96, stretch_probability=0.9,
                       last_probability=0.9, last_table="entry-11:128", last_trusted=False)]
    (group,) = summarize(rows)["by_max_tile"]
    by_chain, by_entry = group["last_tables"]
    assert (by_chain["stretch_moves_median"], by_chain["stretch_probability_median"]) == (30, 0.6)
    assert (by_entry["stretch_moves_median"], by_entry["stretch_probability_median"]) == (5, 0.9)
    rows_of_text = [line.split() for line in deaths_text(summarize(rows)).splitlines()]
    assert ["8", "chain-10:512", "3", "66.7%", "0.100", "100.0%", "30", "0.600"] in rows_of_text
    assert ["entry-11:128", "1", "100.0%", "0.900", "0.0%", "5", "0.900"] in rows_of_text


def test_a_file_without_boards_is_one_line(tmp_path: Path) -> None:
    path = tmp_path / "old.jsonl"
    path.write_text(json.dumps({"seed": 0, "depth": 1, "score": 12, "max_tile": 8, "moves": 3, "seconds": 0.1}) + "\n")
    result = CliRunner().invoke(cli, ["stats", "--deaths", str(path)])
    assert result.exit_code == 2 and "keeps no final boards" in result.output
    assert len(result.output.strip().splitlines()) == 1
