"""decide(): the one call from board to move, and the C game loop agree."""

from __future__ import annotations

import json

import pytest

from solve2048 import Board
from solve2048.decide import decide
from solve2048.selfplay import Game
from solve2048.settings import SearchSettings
from solve2048.tables import CHAIN, ENTRY, TableSet, TableSpec


@pytest.fixture(scope="module")
def tables(stored_table) -> TableSet:
    # The small chain and entry blocks that short games reach.
    specs = [TableSpec(6, 6, CHAIN), TableSpec(5, 5, ENTRY)]
    return TableSet({s: stored_table(s) for s in specs})


@pytest.mark.parametrize("depth", [1, 2])
def test_decide_chooses_every_move_the_game_loop_plays(tables: TableSet, depth: int) -> None:
    settings = SearchSettings(depth=depth, tables=tables)
    checked = from_table = 0
    for seed in range(3):
        game = Game(seed, settings)
        board = game.board
        while not game.over and checked < 4000:
            for step in game.advance(256):
                decision = decide(board, settings, values=False)
                assert (decision.move, decision.from_table) == (step.move, step.from_table), (seed, board)
                checked += 1
                from_table += step.from_table
                board = step.board
    assert checked > 1000 and from_table > 0


def test_decide_without_tables_is_the_search() -> None:
    board = Board("2 4 8 16 / . 2 . 4 / . . 2 . / . . . 2")
    decision = decide(board, depth=3)
    assert decision.source == "search" and decision.table is None
    assert decision.move == decision.analysis.best and decision.heuristic == "default"
    data = decision.to_json()
    assert data["best"] == str(decision.move) and data["from_table"] is False
    assert json.loads(json.dumps(data)) == data


def test_no_legal_move_is_no_decision() -> None:
    decision = decide("2 4 2 4 / 4 2 4 2 / 2 4 2 4 / 4 2 4 2", depth=1)
    assert decision.move is None and decision.source is None and decision.to_json()["best"] is None


def test_settings_or_fields_never_both() -> None:
    with pytest.raises(TypeError, match="not both"):
        decide("2 . . . / . . . . / . . . . / . . . 2", SearchSettings(depth=2), depth=3)
