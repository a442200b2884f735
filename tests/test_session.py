"""The person's game, without a terminal: rules, win, game over and saves."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import ALMOST_LOST, ALMOST_WON

from solve2048 import Board, reference
from solve2048.session import SaveStore, Session, atomic_write



def session_on(text: str, seed: int = 1) -> Session:
    s = Session.new(seed)
    s.board = Board.parse(text)
    return s


def test_new_game_has_two_tiles_of_2_or_4() -> None:
    for seed in range(50):
        tiles = [v for v in Session.new(seed).board.cells if v]
        assert len(tiles) == 2 and set(tiles) <= {2, 4}


def test_moves_follow_the_rules_and_invalid_moves_cost_nothing() -> None:
    s = Session.new(7)
    before = list(s.board.cells)
    expected, gain = reference.move(before, "left")
    if expected == before:
        assert s.move("left") is False and s.moves == 0 and list(s.board.cells) == before
    else:
        assert s.move("left") is True
        assert s.score == gain and s.moves == 1
        assert sum(1 for a, b in zip(expected, s.board.cells) if a != b) == 1  # exactly one spawn
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
    s = Session.new(11)
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
                    json.dumps({**Session.new(1).to_json(), "board": [3] * 16}),
                    json.dumps({**Session.new(1).to_json(), "rng": [0, 0, 0, 0]})):
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
