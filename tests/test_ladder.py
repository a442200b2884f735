"""The whole ladder: tiles past 32768, up to 131072, in the rules, the notation,
the search's 64-bit copy and whole games (csrc/ladder.c, docs/rules.md)."""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_search_parity import NO_CACHE, assert_same_values

from solve2048 import Board, Game, InvalidBoardError, SearchSettings, decide, move_batch, reference
from solve2048.engine import downgrade, legal_mask
from solve2048.errors import InvalidArgumentError
from solve2048.human_game import HumanGame
from solve2048.moves import ALL_MOVES
from solve2048.record import replay
from solve2048.selfplay import Step

# Known answers from the rules: merge order and one merge per tile hold past 32768.
KNOWN = [
    ("32768 32768 32768 32768 / . . . . / . . . . / . . . .", "left",
     "65536 65536 . . / . . . . / . . . . / . . . .", 131072),
    ("32768 32768 32768 . / . . . . / . . . . / . . . .", "left",
     "65536 32768 . . / . . . . / . . . . / . . . .", 65536),
    ("32768 32768 32768 . / . . . . / . . . . / . . . .", "right",
     ". . 32768 65536 / . . . . / . . . . / . . . .", 65536),
    ("65536 65536 . . / . . . . / . . . . / . . . .", "left",
     "131072 . . . / . . . . / . . . . / . . . .", 131072),
    ("65536 . . . / 65536 . . . / 4 . . . / 4 . . .", "up",
     "131072 . . . / 8 . . . / . . . . / . . . .", 131080),
    ("131072 65536 32768 32768 / . . . . / . . . . / . . . .", "left",
     "131072 65536 65536 . / . . . . / . . . . / . . . .", 65536),
    ("2 65536 . 65536 / . . . . / . . . . / . . . .", "right",
     ". . 2 131072 / . . . . / . . . . / . . . .", 131072),
]


@pytest.mark.parametrize("before, direction, after, gain", KNOWN)
def test_known_answers_past_32768_in_c_and_in_the_oracle(before: str, direction: str, after: str,
                                                         gain: int) -> None:
    board = Board(before)
    assert board.move(direction) == (Board(after), gain)
    assert reference.move(list(board.cells), direction) == (list(Board(after).cells), gain)


def wide_cells() -> st.SearchStrategy[list[int]]:
    """16 tiles of any rank up to 131072 (at most one 131072: two could merge past it),
    biased toward dense boards with equal neighbours among the big tiles."""
    low = st.integers(0, 17)
    return st.lists(st.integers(0, 17), min_size=16, max_size=16).flatmap(
        lambda ranks: low.map(lambda floor: [0 if r < floor // 2 else r for r in ranks])
    ).map(_one_top).map(lambda ranks: [1 << r if r else 0 for r in ranks])


def _one_top(ranks: list[int]) -> list[int]:
    tops = [i for i, r in enumerate(ranks) if r == 17]
    return [16 if i in tops[1:] else r for i, r in enumerate(ranks)]


@settings(max_examples=400, deadline=None)
@given(wide_cells())
def test_c_moves_any_board_as_the_oracle_does(cells: list[int]) -> None:
    board = Board.from_cells(cells)
    for move in ALL_MOVES:
        after, gain = board.move(move)
        assert (list(after.cells), gain) == reference.move(cells, str(move))
    assert [str(m) for m in board.legal_moves()] == reference.legal_moves(cells)
    assert board.is_game_over() == reference.is_game_over(cells)


@settings(max_examples=400, deadline=None)
@given(wide_cells())
def test_the_64_bit_copy_keeps_order_equalities_and_every_direction(cells: list[int]) -> None:
    board = Board.from_cells(cells)
    copy, lossless = downgrade(int(board))
    assert copy < 1 << 64
    ranks = board.exponents
    copied = Board.from_int(copy).exponents
    for a in range(16):
        assert (ranks[a] == 0) == (copied[a] == 0)
        for b in range(16):
            if lossless or max(ranks[a], ranks[b]) <= 15:
                assert (ranks[a] < ranks[b]) == (copied[a] < copied[b])
    if lossless:
        assert legal_mask(copy) == legal_mask(int(board))


def test_boards_below_65536_are_their_own_copy() -> None:
    board = Board("32768 16384 8192 4096 / 2048 . . . / . . . . / . . . 2")
    assert downgrade(int(board)) == (int(board), True)


def test_the_copy_takes_out_the_absent_rank_nearest_below_the_top() -> None:
    board = Board("65536 16384 2 . / . . . . / . . . . / . . . .")
    copy = Board.from_int(downgrade(int(board))[0])
    assert copy == Board("32768 16384 2 . / . . . . / . . . . / . . . .")  # 32768 was absent
    two = Board("32768 32768 8 . / . . . . / . . . . / . . . .")
    assert Board.from_int(downgrade(int(two))[0]) == Board("16384 16384 8 . / . . . . / . . . . / . . . .")


def test_notation_past_32768_round_trips() -> None:
    board = Board("131072 65536 32768 2 / . . . . / . . . . / . . . 4")
    assert Board(repr(board)[7:-2]) == board and eval(repr(board)) == board  # repr evaluates back
    assert board.wide and len(board.hex()) == 22 and Board.parse(board.hex()) == board
    assert Board.parse(json.dumps(list(board.cells))) == board
    small = Board("32768 2 . . / . . . . / . . . . / . . . .")
    assert not small.wide and small.hex() == "0x000000000000001f"  # 16 digits, as before
    assert "131072" in str(board)


@pytest.mark.parametrize("text, message", [
    (". . . . 262144 . . . . . . . . . . .", "no 16-cell game makes a tile past 131072"),
    ("0x1" + "0" * 15 + "3", "rank 19 .* is past 131072"),  # a fifth bit over the nibble 3
])
def test_tiles_past_131072_are_refused(text: str, message: str) -> None:
    with pytest.raises(InvalidBoardError, match=message):
        Board.parse(text)


def test_the_batch_mover_names_the_board_that_needs_a_fifth_bit() -> None:
    boards = np.array([int(Board("2 2 . . / . . . . / . . . . / . . . .")),
                       int(Board("32768 32768 . . / . . . . / . . . . / . . . ."))], dtype=np.uint64)
    with pytest.raises(InvalidArgumentError, match=r"board 1 \(flat index\) would merge two 32768"):
        move_batch(boards, "left")
    assert move_batch(boards[:1], "left")[1].tolist() == [4]


def test_a_person_merges_two_32768s_into_65536() -> None:
    game = HumanGame.new(1)
    game.board = Board("32768 32768 . . / . . . . / . . . . / . . . .")
    assert game.move("left") and game.board.max_tile == 65536 and game.score == 65536


def played_as_decide_chooses(game: Game, settings_: SearchSettings, moves: int) -> list[Step]:
    """The game's next ``moves`` steps, each checked to be decide's move on the board before it."""
    board = game.board
    steps = game.advance(moves)
    for step in steps:
        assert decide(board, settings_, values=False).move == step.move
        board = step.board
    return steps


def test_games_play_past_32768_and_decide_agrees_with_the_game_loop() -> None:
    start = "32768 32768 16384 16384 / 8192 4096 . . / . . . . / . . . 2"
    settings_ = SearchSettings(depth=2)
    for seed in range(3):
        game = Game(seed, settings_, start=start)
        played_as_decide_chooses(game, settings_, 300)
        assert game.result().max_tile >= 65536


def test_a_record_from_a_given_board_replays_with_its_seed(tmp_path) -> None:
    from click.testing import CliRunner

    from solve2048.cli.main import cli

    path = tmp_path / "late.jsonl"
    result = CliRunner().invoke(cli, ["play", "-d", "2", "-s", "3", "--no-tables", "--record", str(path),
                                      "--start", "32768 32768 . . / . . . . / . . . . / . . 2 4", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["max_tile"] >= 65536
    lines = path.read_text().splitlines()
    assert json.loads(lines[0])["given"] is True
    checked = replay(lines)
    assert checked.spawns_follow_seed is True and checked.score == data["score"]


@settings(max_examples=600, deadline=None)
@given(wide_cells())
def test_the_copy_in_c_is_the_oracles(cells: list[int]) -> None:
    copy, lossless = downgrade(int(Board.from_cells(cells)))
    expected, expected_lossless = reference.downgrade(cells)
    assert (list(Board.from_int(copy).cells), lossless) == (expected, expected_lossless)


def test_an_empty_or_impossible_start_is_one_line_before_anything_is_said() -> None:
    from click.testing import CliRunner

    from solve2048.cli.main import cli

    for command in (["play", "-d", "1"], ["batch", "-n", "1", "-d", "1"]):
        for start, message in ((". . . . / . . . . / . . . . / . . . .", "cannot start from the empty board"),
                               ("262144 . . . / . . . . / . . . . / . . . .", "past 131072")):
            result = CliRunner().invoke(cli, [*command, "--no-tables", "--start", start])
            assert result.exit_code == 2, result.output
            lines = result.output.strip().splitlines()
            assert len(lines) == 1 and message in lines[0] and "'--start'" in lines[0], result.output


def test_a_game_from_a_board_past_2048_is_not_won_by_its_first_move(tmp_path) -> None:
    # The win is the merge that makes the first 2048 (docs/rules.md); the C loop
    # and the replay of its record agree on that.
    from solve2048.record import RecordWriter

    game = Game(1, depth=1, start="2048 2 . . / . . . . / . . . . / . . . .")
    steps = game.advance(20)
    assert game.won_at_move is None and not game.result().won
    path = tmp_path / "r.jsonl"
    with path.open("w") as stream:
        writer = RecordWriter(stream)
        writer.start(1, 1, game.start_board.cells, given=True)
        writer.moves(steps)
    assert replay(path.read_text().splitlines()).won_at_move is None
    fresh = Game(2, depth=1, start="1024 1024 . . / . . . . / . . . . / . . . .")
    fresh.advance(1)
    assert fresh.won_at_move == 1


# Two 131072s: no game holds them (making the second needs 17 cells), but a
# given board may. They do not merge, since 262144 is not a tile: a move that
# would merge them is not a move, and the search, the game loop and the
# oracle play only the board's own moves, though the search's copy could
# merge them (docs/rules.md).
TWO_TOPS = "131072 131072 . . / . . . . / . . . . / . . . ."


def test_two_131072s_do_not_merge_in_c_or_in_the_oracle() -> None:
    board = Board(TWO_TOPS)
    assert [str(m) for m in board.legal_moves()] == reference.legal_moves(list(board.cells)) == ["down"]
    for direction in ("left", "right"):
        with pytest.raises(InvalidArgumentError, match="past 131072"):
            board.move(direction)
        with pytest.raises(InvalidArgumentError, match="past 131072"):
            reference.move(list(board.cells), direction)
    corner = Board("131072 131072 . . / 131072 . . . / . . . . / . . . 2")  # every move merges two
    assert not corner.legal_moves() and corner.is_game_over() and reference.is_game_over(list(corner.cells))
    nothing = Board.from_cells([0] * 16)  # no move changes it, but it is no lost game (docs/rules.md)
    assert not nothing.legal_moves() and not nothing.is_game_over() and not reference.is_game_over([0] * 16)
    row = Board("131072 131072 . . / 2 4 . . / 4 2 . . / 2 4 . .")  # two are enough
    assert not row.legal_moves() and row.is_game_over() and reference.is_game_over(list(row.cells))
    full = Board("131072 131072 2 4 / 2 4 8 16 / 4 8 16 32 / 8 16 32 64")
    assert full.is_game_over() and reference.is_game_over(list(full.cells))
    assert not full.legal_moves() and decide(full, depth=1).move is None


def two_top_cells() -> st.SearchStrategy[list[int]]:
    """A wide board with two 131072s put on two of its cells."""
    return st.tuples(wide_cells(), st.sampled_from(range(16)), st.sampled_from(range(16))).filter(
        lambda t: t[1] != t[2]).map(lambda t: [131072 if i in t[1:] else v for i, v in enumerate(t[0])])


@settings(max_examples=200, deadline=None)
@given(two_top_cells())
def test_boards_with_two_131072s_move_as_the_oracle_says_and_the_search_plays_their_moves(cells) -> None:
    board = Board.from_cells(cells)
    legal = [str(m) for m in board.legal_moves()]
    assert legal == reference.legal_moves(cells)
    assert board.is_game_over() == reference.is_game_over(cells)
    for move in ALL_MOVES:
        if str(move) in legal:
            after, gain = board.move(move)
            assert (list(after.cells), gain) == reference.move(cells, str(move))
    assert_same_values(board, 2, "auto", NO_CACHE)  # C's values are the oracle's, None where no move
    decision = decide(board, depth=2, searcher=NO_CACHE)
    assert (decision.move is None) == (not legal)
    assert decision.move is None or str(decision.move) in legal
    assert decision.analysis is not None
    assert all(str(m) in legal for m, v in decision.analysis.values.items() if v is not None)


@pytest.mark.parametrize("start, first", [
    ("131072 131072 2 . / 4 . . . / . . . . / . . . .", "down"),  # the only move
    # The search's copy would merge the two (up, its best, or down); of the
    # board's own moves right is the better, not the first legal one (left).
    (". 8 . . / . 32 2 131072 / 16 4 16 131072 / 16 8 64 16", "right"),
])
def test_a_game_from_two_131072s_plays_its_moves_as_decide_chooses(start: str, first: str) -> None:
    settings_ = SearchSettings(depth=2)
    steps = played_as_decide_chooses(Game(5, settings_, start=start), settings_, 40)
    assert steps and str(steps[0].move) == first


def test_the_hint_and_play_commands_take_two_131072s(tmp_path) -> None:
    from click.testing import CliRunner

    from solve2048.cli.main import cli

    hint = CliRunner().invoke(cli, ["hint", TWO_TOPS, "--no-tables", "--json"])
    assert hint.exit_code == 0, hint.output
    data = json.loads(hint.output)
    assert data["best"] == "down" and data["values"]["left"] is None and data["values"]["right"] is None
    path = tmp_path / "two.jsonl"
    play = CliRunner().invoke(cli, ["play", "-d", "1", "-s", "2", "--no-tables", "--quiet", "--start", TWO_TOPS,
                                    "--record", str(path)])
    assert play.exit_code == 0, play.output
    assert replay(path.read_text().splitlines()).spawns_follow_seed is True
    corner_path = tmp_path / "corner.jsonl"
    corner = CliRunner().invoke(cli, ["play", "-d", "1", "--no-tables", "--quiet", "--record", str(corner_path),
                                      "--start", "131072 131072 . . / 131072 . . . / . . . . / . . . ."])
    assert corner.exit_code == 0 and "game over: score 0 · max tile 131072 · 0 moves" in corner.output, corner.output
    assert replay(corner_path.read_text().splitlines()).game_over is True


def test_a_record_that_merges_two_131072s_is_refused_at_its_line() -> None:
    from solve2048.record import RecordError

    start = {"type": "start", "seed": 1, "depth": 1, "board": list(Board(TWO_TOPS).cells), "given": True}
    merge = {"type": "move", "dir": "left", "gain": 262144, "spawn": {"cell": 5, "value": 2}}
    with pytest.raises(RecordError, match="line 2: move 1: left is not a legal move here"):
        replay([json.dumps(start), json.dumps(merge)])


@settings(max_examples=300, deadline=None)
@given(wide_cells())
def test_no_legal_move_is_the_rules_game_over_where_131072s_cannot_meet(cells: list[int]) -> None:
    # The oracle's game over is RULES.md's "no valid move remains" on a board
    # with a tile; with at most one 131072 that is every cell full and no two
    # neighbours equal.
    pairs = any(cells[i] == cells[i + 1] for i in range(16) if i % 4 < 3) or any(
        cells[i] == cells[i + 4] for i in range(12))
    lost = all(cells) and not pairs
    assert reference.is_game_over(cells) == lost == Board.from_cells(cells).is_game_over()
