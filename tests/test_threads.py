"""The cheaper call and the search on every core (issue 21): the short paths of
analyze and Board.move give what the checked paths give, and a search gives
the same move, values and node count whatever the number of threads."""

from __future__ import annotations

import pickle
import threading

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from solve2048 import Board, SearchSettings, analyze, decide
from solve2048.benchmark import load_positions
from solve2048.cli.main import cli
from solve2048.engine import LOW_MASK, MAX_THREADS, Searcher, downgrade, max_tt_mb, search_board
from solve2048.errors import InvalidArgumentError
from solve2048.moves import ALL_MOVES
from solve2048.search import Analysis
from solve2048.selfplay import Game
from solve2048.tables import TableSet, TableSpec

SPLIT_DEPTH = 6  # csrc/search.c: the least depth whose root is split
THREAD_COUNTS = (1, 2, 3, 4)

# Boards of 64 bits whose cells lean to the top ranks, so that two or more
# 32768s (the nibble 0xf) are common, and boards past 32768 (fifth bits).
RANKS = st.sampled_from([0, 0, 1, 2, 11, 13, 14, 15, 15])
BOARDS_64 = st.lists(RANKS, min_size=16, max_size=16).map(
    lambda ranks: sum(rank << (4 * cell) for cell, rank in enumerate(ranks)))
FIFTH_BITS = st.integers(0, 0xFFFF).map(lambda high: high << 64)


@settings(max_examples=400, deadline=None)
@given(BOARDS_64)
def test_search_board_is_the_downgraded_copy(board: int) -> None:
    assert search_board(board) == downgrade(board)[0]


@settings(max_examples=200, deadline=None)
@given(BOARDS_64, FIFTH_BITS)
def test_search_board_of_a_wide_board_is_the_downgraded_copy(low: int, high: int) -> None:
    board = low | high
    try:
        Board.from_int(board)
    except ValueError:
        return  # a rank past 131072: no such board
    assert search_board(board) == downgrade(board)[0]
    assert search_board(board) <= LOW_MASK


def test_short_call_refuses_what_settings_refuse_even_after_a_good_one() -> None:
    board = Board.parse("2 2 . . / . . . . / . . . . / . . . .")
    assert analyze(board, depth=1).depth == 1
    with pytest.raises(InvalidArgumentError, match="depth"):
        analyze(board, depth=True)  # equal to 1, and still not a depth
    with pytest.raises(InvalidArgumentError, match="pruning"):
        analyze(board, depth=1, prune=-0.5)


def test_short_call_gives_what_the_settings_value_gives() -> None:
    board = Board.parse("2 4 8 16 / 32 64 . . / 2 . . . / . . 4 .")
    by_fields = analyze(board, depth=3, prune=0.0, tt_mb=1)
    by_settings = analyze(board, SearchSettings(depth=3, prune=0.0, tt_mb=1))
    assert (by_fields.best, by_fields.values, by_fields.nodes) == \
        (by_settings.best, by_settings.values, by_settings.nodes)
    assert by_fields.board is board
    assert set(by_fields.values) == set(ALL_MOVES)


def test_settings_with_their_engine_arguments_worked_out_still_pickle() -> None:
    made = SearchSettings(depth=4, prune=0.001)  # the default look: quiescence 3
    assert made.engine_args == (4, -1, 3, 0.0, 0.001, None)
    assert SearchSettings(depth=4, prune=0.001, quiescence=None).engine_args == (4, -1, -1, 0.0, 0.001, None)
    again = pickle.loads(pickle.dumps(made))
    assert again == made and again.engine_args == made.engine_args


def test_board_move_by_name_move_and_short_name_agree() -> None:
    board = Board.parse("2 2 4 . / . 4 . 4 / 8 . 8 . / . . . 2")
    for move in ALL_MOVES:
        expected = board.move(move)
        assert board.move(str(move)) == expected
        assert board.move(str(move)[0].upper()) == expected
    with pytest.raises(InvalidArgumentError, match="direction"):
        board.move(["left"])  # type: ignore[arg-type]


# ---- the same search on any number of threads ------------------------------------


def real_boards() -> list[Board]:
    """The bench's 50 positions from real games, and the boards of a seeded
    greedy game every 25 moves, from its start to its end."""
    boards = list(load_positions())
    game = Game(7, depth=1)
    while not game.over:
        steps = game.advance(25)
        if steps:
            boards.append(steps[-1].board)
    return boards


BOARDS = real_boards()


def fingerprint(result: Analysis) -> tuple[object, ...]:
    """What must not depend on the thread count: values bit for bit (floats
    compare exactly), the move, the depth and the node count."""
    return result.best, tuple(result.values.items()), result.depth, result.nodes, result.cache_hits


def by_threads(board: Board, **fields: object) -> dict[int, tuple[object, ...]]:
    return {threads: fingerprint(analyze(board, searcher=SEARCHERS[threads], **fields))
            for threads in THREAD_COUNTS}


SEARCHERS = {threads: Searcher(threads=threads) for threads in THREAD_COUNTS}


def test_the_sample_holds_many_real_boards() -> None:
    assert len(BOARDS) >= 80 and len(set(BOARDS)) == len(BOARDS)


@pytest.mark.parametrize("depth", [SPLIT_DEPTH, SPLIT_DEPTH + 1])
def test_every_thread_count_gives_the_same_analysis_with_pruning(depth: int) -> None:
    boards = BOARDS if depth == SPLIT_DEPTH else BOARDS[::6]
    split = 0
    for board in boards:
        found = by_threads(board, depth=depth)
        assert all(found[threads] == found[1] for threads in THREAD_COUNTS), board
        split += found[1][3] > 0
    assert split == len(boards)


def test_every_thread_count_gives_the_same_analysis_without_pruning() -> None:
    # No pruning: the late boards of the sample, whose few empty cells keep
    # a depth-6 tree small.
    late = sorted(BOARDS, key=lambda b: b.empty_count)[:12]
    for board in late:
        found = by_threads(board, depth=SPLIT_DEPTH, prune=0.0)
        assert all(found[threads] == found[1] for threads in THREAD_COUNTS), board


def test_every_thread_count_gives_the_same_analysis_with_the_exact_hit_rule() -> None:
    exact = {threads: Searcher(threads=threads, reuse_deeper=False) for threads in THREAD_COUNTS}
    for board in BOARDS[::5]:
        found = {threads: fingerprint(analyze(board, depth=SPLIT_DEPTH, searcher=exact[threads]))
                 for threads in THREAD_COUNTS}
        assert all(found[threads] == found[1] for threads in THREAD_COUNTS), board


def test_the_settings_thread_count_reaches_the_search_and_changes_nothing() -> None:
    board = BOARDS[30]
    results = {threads: fingerprint(analyze(board, depth=SPLIT_DEPTH, threads=threads))
               for threads in (1, 2, MAX_THREADS)}
    assert results[2] == results[1] and results[MAX_THREADS] == results[1]


def test_a_split_search_repeats_after_other_searches_in_the_same_searcher() -> None:
    # Each task clears its table: what an earlier search left there cannot
    # reach a later answer, whichever thread's table a task gets.
    searcher = SEARCHERS[2]
    first = fingerprint(analyze(BOARDS[10], depth=SPLIT_DEPTH, searcher=searcher))
    for board in BOARDS[:20]:
        analyze(board, depth=SPLIT_DEPTH, searcher=searcher)
    assert fingerprint(analyze(BOARDS[10], depth=SPLIT_DEPTH, searcher=searcher)) == first


def test_searches_from_several_python_threads_at_once_agree_with_one() -> None:
    boards = BOARDS[::8]
    expected = [fingerprint(analyze(b, depth=SPLIT_DEPTH, searcher=SEARCHERS[1])) for b in boards]
    found: dict[int, list[tuple[object, ...]]] = {}

    def search(worker: int) -> None:
        found[worker] = [fingerprint(analyze(b, depth=SPLIT_DEPTH, threads=2)) for b in boards]

    workers = [threading.Thread(target=search, args=(i,)) for i in range(3)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    assert all(found[i] == expected for i in range(3))


def test_below_the_split_depth_the_search_is_the_one_table_search() -> None:
    # Depths 2-5 are the bench's promised node counts: the thread count must
    # not reach them at all, and a one-thread searcher gives them.
    for board in BOARDS[::10]:
        for depth in range(1, SPLIT_DEPTH):
            one = fingerprint(analyze(board, depth=depth, searcher=Searcher()))
            assert fingerprint(analyze(board, depth=depth, searcher=SEARCHERS[4])) == one


def test_the_depth_6_bench_signature_is_the_same_on_any_thread_count() -> None:
    # The node count over the bench positions at depth 6, the split search's
    # signature (docs/search.md, "One search on every core"), without a look.
    for threads in (1, 2):
        searcher = Searcher(threads=threads)
        assert sum(analyze(b, depth=SPLIT_DEPTH, quiescence=None, searcher=searcher).nodes
                   for b in load_positions()) \
            == 3_888_158


@pytest.fixture(scope="module")
def small_tables(stored_table) -> TableSet:
    specs = [TableSpec(8, g) for g in (5, 6, 7)]
    return TableSet({s: stored_table(s) for s in specs}, min_probability=0.5)


def test_decisions_beside_tables_are_the_same_on_any_thread_count(small_tables: TableSet) -> None:
    for board in BOARDS[::4]:
        decided = {}
        for threads in THREAD_COUNTS:
            decision = decide(board, SearchSettings(depth=SPLIT_DEPTH, tables=small_tables, threads=threads))
            assert decision.analysis is not None
            decided[threads] = (decision.move, decision.from_table, fingerprint(decision.analysis))
        assert all(decided[threads] == decided[1] for threads in THREAD_COUNTS), board


def test_the_game_loop_plays_the_same_game_on_any_thread_count() -> None:
    # The C loop searches with whatever searcher it is given: a seeded game is
    # the same game on one thread or three.
    games = {}
    for threads in (1, 3):
        game = Game(11, depth=SPLIT_DEPTH, searcher=Searcher(threads=threads))
        games[threads] = [(s.move, s.board, s.depth) for s in game.advance(40)]
    assert len(games[1]) == 40 and games[3] == games[1]


def test_a_game_searches_on_its_settings_threads_and_plays_the_same_game() -> None:
    # Game (and so play) takes its searcher's threads from the settings.
    games = [[(s.move, s.board) for s in Game(11, SearchSettings(depth=SPLIT_DEPTH, threads=n)).advance(30)]
             for n in (1, 2)]
    assert len(games[0]) == 30 and games[1] == games[0]
    assert Game(11, SearchSettings(depth=1, threads=2))._searcher.threads == 2


@pytest.mark.parametrize("command", ["hint", "play", "review", "serve", "game"])
def test_every_searching_command_but_batch_takes_threads(command: str) -> None:
    result = CliRunner().invoke(cli, [command, "--help"])
    assert result.exit_code == 0 and "--threads N" in result.output
    refused = CliRunner().invoke(cli, [command, "--threads", "0"])
    assert refused.exit_code == 2 and "expected a thread count from 1 to" in refused.output


def test_batch_has_no_threads_option() -> None:
    result = CliRunner().invoke(cli, ["batch", "-n", "1", "-d", "1", "--threads", "2"])
    assert result.exit_code == 2 and "No such option '--threads'" in result.output


def test_a_timed_search_on_threads_completes_a_depth() -> None:
    result = analyze(BOARDS[40], time_ms=30, threads=2)
    assert result.depth >= 1 and result.best is not None


# ---- bad thread counts -------------------------------------------------------------


@pytest.mark.parametrize("threads", [0, -1, MAX_THREADS + 1, True, 2.0, "2", None])
def test_a_bad_thread_count_is_refused_in_one_line(threads: object) -> None:
    refused = f"^expected a thread count from 1 to {MAX_THREADS}, got "
    for make in (lambda: SearchSettings(threads=threads), lambda: Searcher(threads=threads),  # type: ignore[arg-type]
                 lambda: analyze(BOARDS[0], depth=1, threads=threads)):
        with pytest.raises(InvalidArgumentError, match=refused) as error:
            make()
        assert "\n" not in str(error.value)


def test_one_table_per_thread_must_fit() -> None:
    each = max_tt_mb() // 2 + 1
    assert SearchSettings(tt_mb=each, threads=1).tt_mb == each
    with pytest.raises(InvalidArgumentError, match=f"^2 tables of {each} MB would not fit"):
        SearchSettings(tt_mb=each, threads=2)
    with pytest.raises(InvalidArgumentError, match="2 tables of"):
        Searcher(each, threads=2)


@pytest.mark.parametrize("value", ["0", "65", "x", "1.5", ""])
def test_a_bad_threads_option_is_one_line(value: str) -> None:
    result = CliRunner().invoke(cli, ["hint", "2 . . . / . . . . / . . . . / . . . 2", "--threads", value])
    assert result.exit_code == 2
    lines = result.stderr.strip().splitlines()
    assert lines == [f"solve2048: error: Invalid value for '--threads': expected a thread count from 1 to "
                     f"{MAX_THREADS}, got {value!r}"]


def test_the_threads_option_plays_and_its_tables_are_counted() -> None:
    board = "2 4 8 16 / 32 64 . . / 2 . . . / . . 4 ."
    outputs = [CliRunner().invoke(cli, ["hint", board, "-d", "6", "--no-tables", "--json", "--threads", n]).output
               for n in ("1", "2")]
    assert outputs[0].split('"seconds"')[0] == outputs[1].split('"seconds"')[0]
    each = max_tt_mb() // 2 + 1
    result = CliRunner().invoke(cli, ["hint", board, "--tt-mb", str(each), "--threads", "2"])
    assert result.exit_code == 2
    assert result.stderr.strip().splitlines() == [
        f"solve2048: error: Invalid value for '--tt-mb': 2 tables of {each} MB would not fit: this machine "
        f"allows at most {max_tt_mb():,} MB (half its memory), one per thread (--threads)"]


def test_a_forked_child_searches_on_threads_with_its_parents_searcher() -> None:
    # The parent's workers are not in the child (fork copies one thread): the
    # child's split search makes its own, and freeing the searcher there
    # does not wait for threads that are not there.
    import multiprocessing

    searcher = Searcher(threads=2)
    expected = fingerprint(analyze(BOARDS[20], depth=SPLIT_DEPTH, searcher=searcher))
    context = multiprocessing.get_context("fork")
    answers = context.Queue()

    def child() -> None:
        answers.put(fingerprint(analyze(BOARDS[20], depth=SPLIT_DEPTH, searcher=searcher)))

    process = context.Process(target=child)
    process.start()
    found = answers.get(timeout=60)
    process.join(timeout=60)
    assert process.exitcode == 0 and found == expected


def test_split_order_experiment_still_patches_the_search() -> None:
    """bench/split_order.py measures the task order on a patched copy of
    csrc/search.c; each of its patches must still match exactly once, or the
    figures of docs/search.md could no longer be made again."""
    from pathlib import Path

    from helpers import bench_module

    module = bench_module("split_order")
    search = (Path(__file__).resolve().parent.parent / "csrc" / "search.c").read_text(encoding="utf-8")
    assert [search.count(old) for old, _ in module.PATCHES] == [1] * len(module.PATCHES)
