"""Games that use the tables: a table move exactly when the tables say so, games
that repeat bit for bit, the search's heuristic beside the tables, and a batch
whose workers lack them."""

from __future__ import annotations

from dataclasses import replace

import pytest
from helpers import damage_entries

from solve2048.engine import Weights
from solve2048.selfplay import Game
from solve2048.settings import SearchSettings
from solve2048.tables import CHAIN, ENTRY, TableSet, TableSpec


@pytest.fixture(scope="module")
def small_tables(stored_table) -> TableSet:
    # Snakes, and the small chain and entry blocks that games at depth 1 reach
    # when the search plays the tables' heuristic.
    specs = ([TableSpec(8, g) for g in (5, 6, 7)] + [TableSpec(7, g) for g in (5, 6)]
             + [TableSpec(6, 6, CHAIN), TableSpec(5, 5, ENTRY)])
    return TableSet({s: stored_table(s) for s in specs}, min_probability=0.5)


def test_games_take_table_moves_exactly_when_the_tables_say_so(small_tables):
    total = 0
    for seed in range(3):
        game = Game(seed, depth=1, tables=small_tables)
        board, taken = game.board, 0
        while not game.over:
            for step in game.advance(512):
                choice = small_tables.choose(board)
                assert step.from_table == (choice is not None)
                if choice is not None:
                    assert step.move == choice.move and step.depth == 0
                    taken += 1
                board = step.board
        assert game.result().table_moves == taken
        total += taken
    assert total > 0


def test_games_with_tables_repeat_bit_for_bit(small_tables):
    first = next(r for r in (Game(seed, depth=1, tables=small_tables).run() for seed in range(10))
                 if r.table_moves > 0)
    second = Game(first.seed, depth=1, tables=small_tables).run()
    assert (first.score, first.moves, first.final_board, first.table_moves) == (
        second.score, second.moves, second.final_board, second.table_moves)


def test_a_game_with_tables_stopped_and_played_on_is_the_whole_game(small_tables):
    # The stop keeps the last table answer: a game played on from it reports
    # the same last covered board, table and stretch as the whole game.
    for seed in range(6):
        whole = Game(seed, depth=1, tables=small_tables).run()
        first = Game(seed, depth=1, tables=small_tables, stop_at=1024).run()
        if first.state is None or first.state.probe is None or whole.max_tile == 1024:
            continue
        rest = Game(seed, depth=1, tables=small_tables, resume=first).run()
        assert rest == replace(whole, seconds=rest.seconds, continued_at=first.moves,
                              continued_at_seconds=first.seconds)
        return
    pytest.fail("no game of seeds 0-5 stopped at 1024 after a table covered a board, and went on")


def test_the_search_beside_tables_plays_the_tables_heuristic(small_tables):
    def search_weights(tables, depth="auto"):
        return SearchSettings(depth=depth, tables=tables).search_weights

    assert search_weights(small_tables) == Weights.for_tables()
    assert search_weights(None) is None and search_weights(TableSet({})) is None
    assert search_weights(small_tables, 1) is None       # greedy: the default weights
    assert SearchSettings(tables=small_tables, weights=Weights()).search_weights == Weights()
    greedy = Game(4, depth=1, tables=small_tables).run()
    greedy_default = Game(4, depth=1, tables=small_tables, weights=Weights()).run()
    assert (greedy.moves, greedy.final_board) == (greedy_default.moves, greedy_default.final_board)
    beside = Game(4, depth=2, tables=small_tables).run()
    told = Game(4, depth=2, tables=small_tables, weights=Weights.for_tables(2)).run()
    default = Game(4, depth=2, tables=small_tables, weights=Weights()).run()
    chain_alone = Game(4, depth=2, tables=small_tables, weights=Weights.for_tables()).run()
    assert (beside.moves, beside.final_board) == (told.moves, told.final_board)
    assert (beside.moves, beside.final_board) != (default.moves, default.final_board)
    assert (beside.moves, beside.final_board) != (chain_alone.moves, chain_alone.final_board)


def test_the_tables_heuristic_adds_the_sum_term_at_depth_2_alone(small_tables):
    # At depth 2 the sum term gained in paired games beside the tables; at
    # depth 3 it was within the noise, and deeper it did not gain. Depths 4
    # and 5 alone pass over broken lines from 16384 on.
    passing = {"pass_from": 16384.0}
    for depth, changes in [(2, {"sum_weight": 1.0}), (3, {}), (4, passing), (5, passing), (6, {}), ("auto", {})]:
        chosen = SearchSettings(depth=depth, tables=small_tables)
        assert chosen.search_weights == replace(Weights.for_tables(), **changes), depth
        assert chosen.heuristic == "tables"
    assert SearchSettings(depth=2, tables=small_tables, weights=Weights.for_tables()).heuristic == "custom"
    assert SearchSettings(depth=2, time_ms=5.0, tables=small_tables).search_weights == Weights.for_tables(2)


def test_the_tables_heuristic_is_the_chain_term_from_c():
    # Kept in csrc/evaluate.c (s2048_tables_weights), where the engine id
    # covers it; these are the values docs/search.md gives.
    chain_alone = Weights(lost_penalty=16384.0, lost_value=2.0**17 - 2.0**22, empty_weight=0.0,
                          merges_weight=0.0, mono_weight=0.0, sum_weight=0.0, corner_weight=0.0,
                          chain_weight=1.0)
    assert chain_alone.chain_penalty == 12.0 and chain_alone.sum_power == 3.5
    assert chain_alone.pass_from == 0.0
    for depth in (None, "auto", 0, 1, 3, 6):
        assert Weights.for_tables(depth) == chain_alone, depth
    assert Weights.for_tables(2) == replace(chain_alone, sum_weight=1.0)
    for depth in (4, 5):  # the pass, at depths 4 and 5 alone
        assert Weights.for_tables(depth) == replace(chain_alone, pass_from=16384.0), depth


def test_a_batch_worker_without_the_tables_stops_the_batch(tmp_path):
    from solve2048.batch import BatchError, Settings, play_seeds

    settings = Settings(depth=1, tables_dir=str(tmp_path), table_set=("entry-11:32", "entry-11:64", "chain-10:512"),
                        table_trust=(0.9, 0.9, 0.0))
    with pytest.raises(BatchError, match="found 0 of the 3 endgame tables"):
        play_seeds([0], settings)


def test_a_batch_worker_with_other_tables_stops_the_batch(tmp_path, built_table, stored_table):
    # As many tables as the caller's, but not the same ones: the games would be
    # another set's under this one's name.
    from solve2048.batch import BatchError, Settings, play_seeds
    from solve2048.tables import load, read_header
    from solve2048.tables_build import save

    spec = TableSpec(9, 5, 1)   # block-7:32, 78,125 entries
    save(spec, built_table(spec), tmp_path)
    settings = Settings(depth=1, tables_dir=str(tmp_path), table_set=("block-7:64",), table_trust=(0.9,))
    with pytest.raises(BatchError, match=r"found the tables block-7:32 in .*, not block-7:64"):
        play_seeds([0], settings)
    # The same table, played from another threshold than the caller's (a
    # worker running another solve2048).
    other = Settings(depth=1, tables_dir=str(tmp_path), table_set=("block-7:32",), table_trust=(0.5,))
    with pytest.raises(BatchError, match=r"plays its tables from \(0.9,\), not \(0.5,\)"):
        play_seeds([0], other)
    # The same table with other entries (built by a builder that computes
    # other values): its header records another checksum.
    entries = Settings(depth=1, tables_dir=str(tmp_path), table_set=("block-7:32",), table_trust=(0.9,),
                       table_sums=("0123456789abcdef",))
    with pytest.raises(BatchError, match=r"a worker's table block-7:32 in .* holds other entries than the caller's"):
        play_seeds([0], entries)
    checksum = f"{read_header(tmp_path / spec.filename, spec)[1]:016x}"
    assert load(tmp_path, specs=(spec,)).tables.sums == (checksum,)
    same = Settings(depth=1, tables_dir=str(tmp_path), table_set=("block-7:32",), table_trust=(0.9,),
                    table_sums=(checksum,))
    [row] = play_seeds([0], same)
    assert row["table_set"] == ["block-7:32"] and row["tables"] == same.table_min_prob
    assert row["table_trust"] == [0.9] and row["table_sums"] == [checksum]
    # Tables made in memory have no file to name their entries.
    assert TableSet({spec: stored_table(spec)}).sums is None


def test_a_batch_worker_with_a_damaged_table_stops_the_batch(tmp_path, built_table):
    # Damage past the header, as a bad disk or copy on another machine of a
    # cluster would leave it: the header's checksum, which table_sums compares,
    # is still the caller's, so only the worker's own check of the entries finds it.
    from solve2048.batch import BatchError, Settings, play_seeds
    from solve2048.tables import read_header
    from solve2048.tables_build import save

    spec = TableSpec(9, 5, 1)   # block-7:32
    save(spec, built_table(spec), tmp_path)
    path = tmp_path / spec.filename
    checksum = f"{read_header(path, spec)[1]:016x}"
    settings = Settings(depth=1, tables_dir=str(tmp_path), table_set=("block-7:32",), table_trust=(0.9,),
                        table_sums=(checksum,))
    damage_entries(path)
    with pytest.raises(BatchError, match=r"^a worker cannot play its tables: .*block.*checksum mismatch \(damaged\)"):
        play_seeds([0], settings)
