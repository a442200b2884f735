"""bench/peer_phase.py: another program's moves on our stopped games. Given our
own choice, it plays the game our game loop plays; it speaks the tables AI's
server protocol; and bench/phase_screen.py --peer pairs its lines."""

from __future__ import annotations

import json
import socket
import threading
from pathlib import Path

import pytest
from helpers import bench_module

from solve2048 import Board
from solve2048.batch import Settings, run_local, stopped_game
from solve2048.decide import decide
from solve2048.moves import Move
from solve2048.selfplay import Game
from solve2048.settings import SearchSettings


@pytest.fixture(scope="module")
def peer():
    return bench_module("peer_phase")


@pytest.fixture(scope="module")
def stopped() -> list[dict]:
    rows: list[dict] = []
    run_local(range(4), Settings(depth=1, stop_at=256), 1, rows.extend)
    held = [r for r in rows if r["state"] is not None]
    assert held
    return held


def test_with_our_own_moves_it_plays_the_game_our_loop_plays(peer, stopped) -> None:
    settings = SearchSettings(depth=2, tables=None, threads=1)
    for row in stopped:
        ours = peer.play_on(row, lambda board: decide(board, settings, values=False).move)
        loop = Game(row["seed"], settings, resume=stopped_game(row)).run()
        assert ours["final_board"] == loop.final_board.hex() and ours["moves"] == loop.moves - row["moves"]
        assert ours["max_tile"] == loop.max_tile and ours["score"] == loop.score and ours["illegal"] == 0


def test_it_stops_at_the_goal_where_our_loop_stops(peer, stopped) -> None:
    settings = SearchSettings(depth=2, tables=None, threads=1)
    tops = []
    for row in stopped:
        ours = peer.play_on(row, lambda board: decide(board, settings, values=False).move, goal=512)
        tops.append(ours["max_tile"])
        loop = Game(row["seed"], settings, stop_at=512, resume=stopped_game(row)).run()
        assert ours["final_board"] == loop.final_board.hex() and ours["moves"] == loop.moves - row["moves"]
        assert ours["max_tile"] == loop.max_tile and ours["score"] == loop.score
    assert 512 in tops   # some game met the goal, so the stop itself was compared


def test_from_the_opening_with_our_own_moves_it_plays_our_whole_game(peer) -> None:
    settings = SearchSettings(depth=1, tables=None, threads=1)
    for seed in range(3):
        ours = peer.play_whole(seed, lambda board: decide(board, settings, values=False).move, goal=1 << 17)
        loop = Game(seed, settings).run()
        assert (ours["final_board"], ours["moves"], ours["score"]) == (loop.final_board.hex(), loop.moves, loop.score)
        assert ours["seed"] == seed and ours["max_tile"] == loop.max_tile


def test_an_answer_that_is_no_legal_move_is_counted_and_replaced(peer, stopped) -> None:
    result = peer.play_on(stopped[0], lambda board: None)
    assert result["illegal"] == result["moves"] > 0
    assert Board.parse(result["final_board"]).is_game_over()


def test_the_request_reads_the_ranks_in_reading_order(peer) -> None:
    board = Board.parse("2 4 . . / . . . 8 / . . . . / 32768 . . 65536")
    assert peer.request(board) == b"GET /move?board=" + b"1200" + b"0003" + b"0000" + b"F00G"
    with pytest.raises(ValueError, match="131072"):
        peer.request(Board.parse("131072 . . . / . . . . / . . . . / . . . 2"))


def test_the_reply_names_a_move_or_none(peer) -> None:
    reply = b"HTTP/1.1 200 OK\nContent-Type: text/plain\nContent-Length: 1\n\n"
    assert [peer.answer(reply + c) for c in (b"u", b"d", b"l", b"r", b"g", b"")] == \
        [Move.UP, Move.DOWN, Move.LEFT, Move.RIGHT, None, None]


def test_a_server_answers_over_one_connection(peer) -> None:
    listener = socket.create_server(("127.0.0.1", 0))
    asked: list[bytes] = []

    def serve() -> None:
        conn, _ = listener.accept()
        with conn:
            for letter in (b"l", b"d"):
                asked.append(conn.recv(4096))
                conn.sendall(b"HTTP/1.1 200 OK\nContent-Length: 1\n\n" + letter)

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    server = peer.Server(listener.getsockname()[1])
    board = Board.parse("2 . . . / . . . . / . . . . / . . . 2")
    assert [server(board), server(board)] == [Move.LEFT, Move.DOWN]
    thread.join(5)
    listener.close()
    assert asked == [peer.request(board)] * 2


def write_run(path: Path, settings: Settings) -> list[dict]:
    """Games 0 to 3 played by our batch with ``settings``, written to ``path`` as a run."""
    rows: list[dict] = []
    run_local(range(4), settings, 1, rows.extend)
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return rows


def test_the_screen_pairs_a_peers_lines_with_the_run(peer, tmp_path: Path) -> None:
    screen = bench_module("phase_screen")
    run, lines = tmp_path / "run.jsonl", tmp_path / "peer.jsonl"
    rows = write_run(run, Settings(depth=1, stop_at=64))
    # The peer reaches the goal where the run did not, and not where it did.
    flipped = [{"seed": r["seed"], "max_tile": 0 if r["max_tile"] >= screen.GOAL else screen.GOAL,
                "moves": 10, "seconds": 1.0, "illegal": 0} for r in rows]
    lines.write_text("".join(json.dumps(r) + "\n" for r in flipped))
    text = screen.report_peer(lines, run, None)
    assert f"{len(rows)} games, 32768 in {len(rows)}; 0 answers not a legal move; 10 moves/s" in text
    assert f"against the run,             0.0% of {len(rows)} there: +100.0 ± 0.0 points" in text
    assert "final score" not in text   # these lines hold none


def test_the_screen_judges_another_goal_and_pairs_the_scores(peer, tmp_path: Path) -> None:
    screen = bench_module("phase_screen")
    run, lines = tmp_path / "run.jsonl", tmp_path / "peer.jsonl"
    rows = write_run(run, Settings(depth=1))
    goal = max(r["max_tile"] for r in rows)
    # The peer ends each game as the run did, 100 points higher.
    peer_rows = [dict(r, score=r["score"] + 100, seconds=1.0, illegal=0) for r in rows]
    lines.write_text("".join(json.dumps(r) + "\n" for r in peer_rows))
    text = screen.report_peer(lines, run, None, goal)
    made = sum(r["max_tile"] >= goal for r in rows)
    assert f"4 games, {goal} in {made};" in text
    assert f"against {'the run,':<18} {made / 4:6.1%} of 4 there: +0.0 ± 0.0 points" in text
    below = [r["score"] for r in rows if r["max_tile"] < goal]   # the games that met the goal are left out
    mean = sum(below) / len(below)
    assert f"final score where both ended before {goal}, {len(below)} games: {mean + 100:,.0f} against the run's " \
           f"{mean:,.0f}, +100 ± 0" in text


def test_agreement_counts_the_boards_where_both_choose_the_same(peer, stopped) -> None:
    settings = SearchSettings(depth=1, tables=None, threads=1)

    def ours(board):
        return decide(board, settings, values=False).move, "search"

    same = peer.agreement(stopped, ours, lambda board: decide(board, settings, values=False).move)
    never = peer.agreement(stopped, ours, lambda board: None)
    moves = sum(Game(r["seed"], settings, resume=stopped_game(r)).run().moves - r["moves"] for r in stopped)
    assert same == {("search", True): moves} and never == {("search", False): moves}
    short = peer.agreement(stopped, ours, lambda board: None, goal=512)
    to_512 = sum(Game(r["seed"], settings, stop_at=512, resume=stopped_game(r)).run().moves - r["moves"]
                 for r in stopped)
    assert short == {("search", False): to_512} and 0 < to_512 < moves


def test_the_screen_judges_whole_games_tile_by_tile(tmp_path: Path) -> None:
    screen = bench_module("phase_screen")
    run, lines = tmp_path / "run.jsonl", tmp_path / "peer.jsonl"
    rows = write_run(run, Settings(depth=1))
    assert max(r["max_tile"] for r in rows) < 8192
    # The peer plays the run's games, but seed 0's reaches 16384, and the others score 100 more.
    peer_rows = [dict(r, illegal=0, score=r["score"] + 100) for r in rows]
    peer_rows[0].update(max_tile=16384)
    lines.write_text("".join(json.dumps(r) + "\n" for r in peer_rows + [dict(peer_rows[0], seed=99)]))
    text = screen.report_whole(lines, run, 16384)
    assert text.startswith("peer.jsonl: 4 whole games on the run's seeds; 0 answers")   # seed 99: not the run's
    assert "    8192:  25.0% against the run's   0.0%, +25.0 ± 25.0 points paired" in text
    assert "   16384:  25.0% against the run's   0.0%, +25.0 ± 25.0 points paired" in text
    assert "from 8192: 1 of 1 against the run's 0 of 0" in text
    below = [r["score"] for r in rows[1:]]
    assert f"final score where both ended before 16384, 3 games: {sum(below) / 3 + 100:,.0f} against the run's " \
           f"{sum(below) / 3:,.0f}, +100 ± 0" in text


def test_a_step_compares_each_sides_share_of_its_own_games() -> None:
    screen = bench_module("phase_screen")
    theirs = [{"max_tile": t} for t in (32768, 32768, 16384, 16384, 8192)]   # 2 of 4 at 16384 go on
    ours = [{"max_tile": t} for t in (32768, 16384, 16384, 16384)]           # 1 of 4
    se = 100 * (0.5 * 0.5 / 4 + 0.25 * 0.75 / 4) ** 0.5
    assert screen.step_line(theirs, ours, 32768) == \
        f"2 of 4 (50.0%) against the run's 1 of 4 (25.0%), +25.0 ± {se:.1f} points"
