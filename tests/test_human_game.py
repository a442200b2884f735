"""The person's game, without a terminal: rules, win, game over and saves."""

from __future__ import annotations

import json
import os
import random
import signal
from pathlib import Path

from helpers import ALMOST_LOST, ALMOST_WON

from solve2048 import Board, analyze, reference
from solve2048.human_game import NOTHING_MOVES, HumanGame, HumanRecord
from solve2048.moves import Move
from solve2048.record import read_lines, replay
from solve2048.review import review_record, summarize
from solve2048.saves import SaveStore, atomic_write
from solve2048.settings import SearchSettings


def session_on(text: str, seed: int = 1) -> HumanGame:
    s = HumanGame.new(seed)
    s.board = Board.parse(text)
    return s


def test_new_game_has_two_tiles_of_2_or_4() -> None:
    for seed in range(50):
        tiles = [v for v in HumanGame.new(seed).board.cells if v]
        assert len(tiles) == 2 and set(tiles) <= {2, 4}


def test_moves_follow_the_rules_and_invalid_moves_cost_nothing() -> None:
    s = HumanGame.new(7)
    before = list(s.board.cells)
    expected, gain = reference.move(before, "left")
    if expected == before:
        assert s.move("left") is False and s.moves == 0 and list(s.board.cells) == before
    else:
        assert s.move("left") is True
        assert s.score == gain and s.moves == 1
        assert sum(1 for a, b in zip(expected, s.board.cells, strict=True) if a != b) == 1  # exactly one spawn
    stuck = session_on("2 4 8 16 / . . . . / . . . . / . . . .")
    assert stuck.move("up") is False and stuck.score == 0 and stuck.moves == 0


def test_win_is_announced_once_and_play_continues() -> None:
    s = session_on(ALMOST_WON)
    assert s.move("left") and s.won and s.show_win_banner and s.score == 2048
    s.acknowledge_win()
    assert not s.show_win_banner and not s.over
    assert s.move("right") or s.move("left") or s.move("down")
    assert s.won and not s.show_win_banner


def test_game_over() -> None:
    s = session_on(ALMOST_LOST)
    assert not s.over and s.move("left") and s.over


def test_save_restore_roundtrip_keeps_the_generator(tmp_path: Path) -> None:
    store = SaveStore(tmp_path)
    s = HumanGame.new(11)
    for move in ("left", "up", "right", "down") * 5:
        s.move(move)
    store.save(s)
    best, _ = store.load_best()
    restored, warning = store.load_game(best)
    assert warning is None and restored is not None
    assert (restored.board, restored.score, restored.moves) == (s.board, s.score, s.moves)
    # The restored game goes on exactly as the original would have.
    for move in ("left", "up", "right", "down") * 5:
        assert s.move(move) == restored.move(move)
    assert restored.board == s.board and restored.score == s.score


def test_lost_game_is_cleared_but_best_score_kept(tmp_path: Path) -> None:
    store = SaveStore(tmp_path)
    s = session_on(ALMOST_LOST)
    s.score = 5000
    s.move("left")
    store.save(s)
    assert not store.game_path.exists()
    assert store.load_best() == (5000 + 32, None)


def test_won_game_save_is_kept(tmp_path: Path) -> None:
    store = SaveStore(tmp_path)
    s = session_on(ALMOST_WON)
    s.move("left")
    store.save(s)
    restored, _ = store.load_game(0)
    assert restored is not None and restored.won and restored.show_win_banner


def test_corrupt_or_foreign_saves_are_set_aside(tmp_path: Path) -> None:
    store = SaveStore(tmp_path)
    for content in ("{not json", json.dumps({"version": 99}), json.dumps([1, 2, 3]),
                    json.dumps({**HumanGame.new(1).to_json(), "board": [3] * 16}),
                    json.dumps({**HumanGame.new(1).to_json(), "rng": [0, 0, 0, 0]})):
        store.game_path.write_text(content)
        session, warning = store.load_game(0)
        assert session is None and "unreadable save" in warning
        assert not store.game_path.exists()
    store.best_path.write_text('{"best_score": "lots"}')
    assert store.load_best()[0] == 0 and not store.best_path.exists()
    assert len(list(tmp_path.glob("*.corrupt-*"))) >= 2


def test_atomic_write_replaces_whole_files(tmp_path: Path) -> None:
    path = tmp_path / "deep" / "f.json"
    atomic_write(path, "one")
    atomic_write(path, "two")
    assert path.read_text() == "two"
    assert [p.name for p in path.parent.iterdir()] == ["f.json"]  # no temp files left


# Two 32768s side by side: left and right make 65536, up and down move the 2.
TWO_MAXED = "32768 32768 . . / . . . . / . . . . / . . . 2"
# Full, and the only moves that change it merge the two 32768s.
ONLY_MERGE_LEFT = "32768 32768 2 4 / 4 2 4 2 / 2 4 2 4 / 4 2 4 2"


def test_two_32768s_merge_into_65536_as_the_rules_say() -> None:
    s = session_on(TWO_MAXED)
    assert s.blocked("left") is None and s.board.legal_moves() == list(Move)
    assert s.move("left") is True
    assert s.board.max_tile == 65536 and s.score == 65536 and s.moves == 1


def test_a_full_board_whose_only_move_makes_65536_is_not_over(tmp_path: Path) -> None:
    s = session_on(ONLY_MERGE_LEFT)
    assert s.board.legal_moves() == [Move.LEFT, Move.RIGHT] and not s.over
    assert s.blocked("up") == NOTHING_MOVES and s.move("up") is False
    store = SaveStore(tmp_path)
    store.save(s)  # a game in progress: kept
    restored, warning = store.load_game(0)
    assert warning is None and restored is not None and restored.board == s.board
    assert s.move("right") and s.board.max_tile == 65536


def test_the_search_proposes_the_merge_that_makes_65536() -> None:
    assert analyze(Board.parse(ONLY_MERGE_LEFT), depth=2).best in (Move.LEFT, Move.RIGHT)
    live = analyze(Board.parse(TWO_MAXED), depth=2)
    assert all(live.values[m] is not None for m in Move)


def test_a_save_past_32768_restores_and_plays_on(tmp_path: Path) -> None:
    store = SaveStore(tmp_path)
    s = session_on("131072 65536 32768 16384 / . . . . / . . . . / . . . 2")
    store.save(s)
    restored, warning = store.load_game(0)
    assert warning is None and restored is not None and restored.board == s.board
    assert restored.move("down") is True


def test_two_131072s_in_a_restored_game_do_not_merge(tmp_path: Path) -> None:
    # No game holds two 131072s, but a save file may: the move that would
    # merge them is refused as a move that moves nothing, and the rest play.
    store = SaveStore(tmp_path)
    store.save(session_on("131072 131072 . . / . . . . / . . . . / . . . 2"))
    restored, warning = store.load_game(0)
    assert warning is None and restored is not None
    assert restored.blocked("left") == NOTHING_MOVES and restored.move("left") is False and restored.moves == 0
    assert restored.move("down") is True and restored.board.max_tile == 131072


def test_saves_with_impossible_numbers_or_boards_are_set_aside(tmp_path: Path) -> None:
    store = SaveStore(tmp_path)
    good = HumanGame.new(1).to_json()
    bad = {"score": {**good, "score": 10**30}, "moves": {**good, "moves": 2**60},
           "seed": {**good, "seed": 2**64}, "board": {**good, "board": [0] * 16}}
    for what, data in bad.items():
        store.game_path.write_text(json.dumps(data))
        session, warning = store.load_game(0)
        assert session is None and f"bad {what}" in warning and not store.game_path.exists()
    # Integers too long for Python to read (it stops at 4300 digits).
    store.game_path.write_text('{"version": 1, "score": 1' + "0" * 5000 + "}")
    store.best_path.write_text('{"best_score": 1' + "0" * 5000 + "}")
    assert store.load_game(0)[0] is None and store.load_best()[0] == 0
    store.best_path.write_text(json.dumps({"best_score": 2**60}))
    _, warning = store.load_best()
    assert warning.startswith(f"unreadable save {store.best_path} (no best score in it); moved it to ")
    assert not store.game_path.exists() and not store.best_path.exists()
    # Every bad file set aside is kept, even several within one second.
    assert len(list(tmp_path.glob("game.json.corrupt-*"))) == len(bad) + 1
    assert len(list(tmp_path.glob("best.json.corrupt-*"))) == 2


def test_a_save_that_is_no_file_or_far_too_large_is_set_aside(tmp_path: Path) -> None:
    store = SaveStore(tmp_path)
    os.mkfifo(store.game_path)  # reading it would wait for a writer for ever
    session, warning = load_within_seconds(store, 10)
    assert session is None and "not a regular file" in warning and not store.game_path.exists()
    store.game_path.write_text(json.dumps({**HumanGame.new(1).to_json(), "pad": "x" * 100_000}))
    session, warning = store.load_game(0)
    assert session is None and "a save is at most" in warning and not store.game_path.exists()


def load_within_seconds(store: SaveStore, seconds: int) -> tuple[HumanGame | None, str | None]:
    """store.load_game(0), failing the test instead of hanging it if the read blocks."""
    def too_long(signum, frame):
        raise AssertionError(f"reading the save took more than {seconds} s")

    previous = signal.signal(signal.SIGALRM, too_long)
    signal.alarm(seconds)
    try:
        return store.load_game(0)
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


# ---- the record of a person's game ------------------------------------------------------


def play_recorded(game: HumanGame, folder: Path, moves: int, pick: random.Random) -> HumanRecord:
    """Plays up to ``moves`` random legal moves as the terminal game does: the record
    opened before the first, a line after each, the end line at game over."""
    record = HumanRecord.open(folder, game)
    for _ in range(moves):
        if game.over:
            break
        assert game.move(pick.choice(game.board.legal_moves()))
        assert game.last_step is not None
        record.move(game.last_step)
        if game.over:
            record.end("game_over")
    return record


def replayed(path: Path):
    with open(path, "rb") as stream:
        return replay(read_lines(stream))


def test_a_persons_game_is_recorded_as_it_is_played(tmp_path: Path) -> None:
    game = HumanGame.new(11)
    play_recorded(game, tmp_path, 100_000, random.Random(1))
    assert game.over and game.record is not None
    [path] = tmp_path.iterdir()
    assert path.name == game.record
    result = replayed(path)
    assert (result.score, result.moves, result.reason) == (game.score, game.moves, "game_over")
    assert result.board == list(game.board.cells) and result.seed == 11 and result.spawns_follow_seed is True
    assert json.loads(path.read_text().splitlines()[0])["depth"] is None  # nobody searched it
    assert summarize(list(review_record(path.read_text().splitlines(), SearchSettings(depth=1)))).moves == game.moves


def test_a_restored_game_goes_on_in_the_same_record(tmp_path: Path) -> None:
    pick = random.Random(2)
    game = HumanGame.new(12)
    play_recorded(game, tmp_path, 30, pick).close()                  # quit mid-game
    restored = HumanGame.from_json(json.loads(json.dumps(game.to_json())))
    assert restored.record == game.record
    play_recorded(restored, tmp_path, 100_000, pick)
    [path] = tmp_path.iterdir()
    result = replayed(path)
    assert result.moves == restored.moves > 30 and result.reason == "game_over"
    assert result.spawns_follow_seed is True and result.score == restored.score


def test_a_record_that_is_not_the_games_any_more_is_begun_anew_from_its_board(tmp_path: Path) -> None:
    pick = random.Random(3)
    game = HumanGame.new(13)
    play_recorded(game, tmp_path, 20, pick).close()
    first = tmp_path / str(game.record)
    first.write_text("\n".join(first.read_text().splitlines()[:-3]) + "\n")  # lost its last moves
    score_before = game.score
    play_recorded(game, tmp_path, 10, pick).close()
    assert game.record != first.name and len(list(tmp_path.iterdir())) == 2
    result = replayed(tmp_path / str(game.record))
    start = json.loads((tmp_path / str(game.record)).read_text().splitlines()[0])
    assert start["given"] is True and start["seed"] is None    # the generator had moved on from its seed
    assert result.moves == 10 and result.score == game.score - score_before


def test_a_save_naming_another_path_as_its_record_is_not_followed(tmp_path: Path) -> None:
    data = HumanGame.new(14).to_json()
    for name in ("../../evil.jsonl", "/etc/passwd", "x" * 500, 7):
        data["record"] = name
        assert HumanGame.from_json(data).record is None
