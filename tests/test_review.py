"""solve2048 review: the verdict on each move (library and command), the proofs the
issue asks for (the solver's own game has no mistakes, random moves have many, a
move that loses outright is flagged), and records read as replay reads them."""

from __future__ import annotations

import io
import json
import os
import random
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from click.testing import CliRunner
from helpers import ALMOST_LOST, default_sigint, solver_record

from solve2048 import Board, reference
from solve2048.cli.main import cli
from solve2048.decide import decide
from solve2048.errors import InvalidArgumentError
from solve2048.moves import Move
from solve2048.record import RecordError, RecordWriter, positions, replay
from solve2048.review import (
    DEFAULT_THRESHOLD,
    STAKE_FLOOR,
    MoveReview,
    move_loss,
    review_move,
    review_record,
    summarize,
)
from solve2048.rng import Rng
from solve2048.selfplay import Game, Step
from solve2048.settings import SearchSettings
from solve2048.tables import CHAIN, ENTRY, TableSet, TableSpec

OPENING = "2 . . . / . . . . / . . 2 . / . . . ."


def random_record(seed: int) -> list[str]:
    """A whole game of random legal moves, spawns from the seed's generator."""
    pick, rng = random.Random(seed), Rng(seed)
    board = Board()
    for _ in range(2):
        cell, value = rng.spawn(list(board.cells))
        board = board.with_tile(cell, value)
    stream = io.StringIO()
    writer = RecordWriter(stream)
    writer.start(seed, None, board.cells)
    score = moves = 0
    while not board.is_game_over():
        move = pick.choice(board.legal_moves())
        after, gain = board.move(move)
        cell, value = rng.spawn(list(after.cells))
        board = after.with_tile(cell, value)
        score, moves = score + gain, moves + 1
        writer.moves([Step(move, gain, cell, value, board, 0)])
    writer.end(score, board.max_tile, moves, board.max_tile >= 2048, "game_over")
    return stream.getvalue().splitlines()


def write(path: Path, lines: list[str]) -> Path:
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def invoke(*args: str):
    return CliRunner().invoke(cli, ["review", *args])


@pytest.fixture(scope="module")
def own_game() -> list[str]:
    return solver_record(5, 2)


@pytest.fixture(scope="module")
def random_game() -> list[str]:
    return random_record(3)


# ---- the proofs ---------------------------------------------------------------------------


@pytest.mark.parametrize("seed, depth", [(5, 2), (1, 3)])
def test_the_solvers_own_game_reviewed_with_its_settings_has_no_mistakes(seed: int, depth: int) -> None:
    lines = solver_record(seed, depth)
    checked = review_record(lines, SearchSettings(depth=depth))
    reviews = list(checked)
    assert len(reviews) == checked.total == checked.replay.moves > 300
    assert all(r.played == r.best and r.loss == 0.0 and not r.mistake for r in reviews)
    summary = summarize(reviews)
    assert (summary.mistakes, summary.accuracy, summary.worst) == (0, 1.0, ())


def test_a_game_of_random_moves_has_many_mistakes(random_game: list[str]) -> None:
    reviews = list(review_record(random_game, SearchSettings(depth=2)))
    summary = summarize(reviews)
    assert summary.moves > 50
    assert summary.accuracy < 0.6 and summary.mistakes > 0.4 * summary.moves
    assert summary.worst and summary.worst[0].loss == max(r.loss for r in reviews)


def test_a_weaker_player_is_flagged_more_than_the_reviewers_equal() -> None:
    weak = summarize(list(review_record(solver_record(2, 1), SearchSettings(depth=2))))
    assert weak.mistakes > 0.1 * weak.moves   # depth 1 against depth 2: about 30% in docs/review.md


def test_a_move_that_loses_outright_is_flagged() -> None:
    # Left leaves the board full whatever spawns (helpers.ALMOST_LOST); right opens a cell
    # that either spawn can merge from.
    for depth in (2, 3):
        lost = review_move(ALMOST_LOST, "left", SearchSettings(depth=depth))
        assert lost.values[Move.LEFT] == 0.0 and lost.best == Move.RIGHT
        assert lost.loss == 1.0 and lost.mistake
        saved = review_move(ALMOST_LOST, Move.RIGHT, SearchSettings(depth=depth))
        assert saved.loss == 0.0 and not saved.mistake and saved.played == saved.best


# ---- one move -----------------------------------------------------------------------------


def test_the_best_move_is_the_one_decide_and_hint_name() -> None:
    settings = SearchSettings(depth=3)
    for text in (OPENING, "2 4 8 16 / . 2 . 4 / . . 2 . / . . . 2", ALMOST_LOST):
        board = Board.parse(text)
        hinted = json.loads(CliRunner().invoke(cli, ["hint", text, "-d", "3", "--no-tables", "--json"]).output)
        for played in board.legal_moves():
            one = review_move(board, played, settings)
            assert one.best == decide(board, settings).move and str(one.best) == hinted["best"]
            assert {str(m): v for m, v in one.values.items()} == hinted["values"]
            assert (one.loss == 0.0) == (played == one.best) or one.values[played] == one.values[one.best]


def test_loss_is_the_shortfall_over_what_is_at_stake() -> None:
    values = {Move.UP: 1000.0, Move.DOWN: 900.0, Move.LEFT: 600.0, Move.RIGHT: None}
    assert move_loss(values, Move.UP, Move.UP) == 0.0
    assert move_loss(values, Move.DOWN, Move.UP) == pytest.approx(0.25)   # 100 of a spread of 400
    assert move_loss(values, Move.LEFT, Move.UP) == 1.0
    # Nothing at stake: the floor, a share of the best value, keeps noise small.
    calm = {Move.UP: 1_000_000.0, Move.DOWN: 999_990.0, Move.LEFT: 999_980.0, Move.RIGHT: None}
    assert move_loss(calm, Move.LEFT, Move.UP) == pytest.approx(20 / (STAKE_FLOOR * 1_000_000))
    # A table's move that the search ranks below the played one: nothing the search can measure.
    assert move_loss(values, Move.UP, Move.DOWN) == 0.0
    assert move_loss({Move.UP: 5.0, Move.DOWN: None, Move.LEFT: None, Move.RIGHT: None}, Move.UP, Move.UP) == 0.0


def test_a_calm_opening_move_is_no_mistake() -> None:
    one = review_move(OPENING, "down", SearchSettings(depth=3))
    legal = [v for v in one.values.values() if v is not None]
    assert max(legal) - min(legal) < STAKE_FLOOR * max(legal)   # the spread alone would be noise
    assert one.loss < DEFAULT_THRESHOLD and not one.mistake


def test_to_json_is_the_contract() -> None:
    one = review_move(ALMOST_LOST, "l", SearchSettings(depth=2))
    data = one.to_json()
    assert {"played", "best", "loss", "mistake", "values", "from_table", "table_probability", "board"} <= set(data)
    assert data["played"] == "left" and data["best"] == "right"
    assert data["board"] == list(Board.parse(ALMOST_LOST).cells)
    assert set(data["values"]) == {"up", "down", "left", "right"} and data["values"]["up"] is None
    assert data["from_table"] is False and data["table_probability"] is None
    assert json.loads(json.dumps(data)) == data


@pytest.mark.parametrize("board, played, match", [
    (ALMOST_LOST, "up", "up is not a legal move on this board .legal: left, right"),
    ("2 4 2 4 / 4 2 4 2 / 2 4 2 4 / 4 2 4 2", "left", "no move is legal"),
    (OPENING, "sideways", "expected a direction"),
])
def test_a_move_that_cannot_be_reviewed_is_one_clear_error(board: str, played: str, match: str) -> None:
    with pytest.raises(InvalidArgumentError, match=match):
        review_move(board, played, SearchSettings(depth=1))


@pytest.mark.parametrize("threshold", [float("nan"), float("inf"), -0.1, 1.0, True, "0.1"])
def test_a_threshold_out_of_range_is_refused(threshold: object) -> None:
    with pytest.raises(InvalidArgumentError, match="threshold"):
        review_move(OPENING, "up", SearchSettings(depth=1), threshold=threshold)  # type: ignore[arg-type]


def test_the_threshold_decides_the_mistake() -> None:
    one = review_move(OPENING, "down", SearchSettings(depth=3), threshold=0.0)
    assert one.loss > 0 and one.mistake
    assert not review_move(OPENING, "down", SearchSettings(depth=3), threshold=0.99).mistake


@pytest.fixture(scope="module")
def tables(stored_table) -> TableSet:
    specs = [TableSpec(6, 6, CHAIN), TableSpec(5, 5, ENTRY)]   # as test_decide: what short games reach
    return TableSet({s: stored_table(s) for s in specs})


def test_a_table_move_says_so(tables: TableSet) -> None:
    settings = SearchSettings(depth=2, tables=tables)
    game = Game(0, settings)
    board = game.board
    while not game.over:
        step = next(iter(game.advance(1)))
        if step.from_table and len(board.legal_moves()) > 1:
            break
        board = step.board
    else:
        pytest.fail("no table move in the game")
    other = next(m for m in board.legal_moves() if m != step.move)
    one = review_move(board, other, settings)
    assert one.from_table and one.best == step.move and one.played == other
    assert one.table_probability == tables.probe(board).probability
    assert summarize([one]).table_missed == 1


# ---- whole records ------------------------------------------------------------------------


def test_positions_are_the_boards_before_each_move(own_game: list[str]) -> None:
    walk = positions(own_game)
    cells = json.loads(own_game[0])["board"]
    seen = 0
    while True:
        try:
            at = next(walk)
        except StopIteration as done:
            assert done.value == replay(own_game)
            break
        seen += 1
        move = json.loads(own_game[at.line - 1])
        assert (at.move, at.cells, at.direction) == (seen, tuple(cells), move["dir"])
        cells, _ = reference.move(cells, move["dir"])
        cells[move["spawn"]["cell"]] = move["spawn"]["value"]
    assert seen == replay(own_game).moves


def test_progress_counts_every_move_and_a_partial_review_summarises(random_game: list[str]) -> None:
    calls: list[tuple[int, int]] = []
    checked = review_record(random_game, SearchSettings(depth=1),
                            progress=lambda done, total: calls.append((done, total)))
    assert calls == []                        # nothing is searched before the iteration
    first = []
    for one in checked:
        first.append(one)
        if len(first) == 10:
            break                              # as Ctrl-C stops it
    assert [r.move for r in first] == list(range(1, 11))
    assert calls == [(i, checked.total) for i in range(1, 10)]
    assert summarize(first).moves == 10
    list(checked)
    assert calls[-1] == (checked.total, checked.total)


def test_a_bad_record_fails_before_any_search(own_game: list[str]) -> None:
    broken = list(own_game)
    obj = json.loads(broken[40])
    obj["gain"] += 2
    broken[40] = json.dumps(obj)
    calls: list[int] = []
    with pytest.raises(RecordError, match="line 41: move 40"):
        review_record(broken, SearchSettings(depth=1), progress=lambda done, total: calls.append(done))
    assert calls == []


def test_a_record_without_a_seed_is_reviewed(own_game: list[str]) -> None:
    start = json.loads(own_game[0])
    del start["seed"], start["depth"]
    checked = review_record([json.dumps(start), *own_game[1:]], SearchSettings(depth=2))
    assert checked.replay.seed is None and summarize(list(checked)).mistakes == 0


def test_summary_arithmetic() -> None:
    board = Board.parse(OPENING)

    def made(move: int, loss: float) -> MoveReview:
        return MoveReview(board, Move.UP, Move.LEFT, {}, loss, loss > 0.05, False, None, 1, "default", move)

    reviews = [made(1, 0.0), made(2, 0.5), made(3, 0.04), made(4, 0.5), made(5, 1.0)]
    summary = summarize(reviews, worst=3)
    assert (summary.moves, summary.mistakes) == (5, 3) and summary.accuracy == pytest.approx(0.4)
    assert summary.mean_loss == pytest.approx(2.04 / 5)
    assert [r.move for r in summary.worst] == [5, 2, 4]
    assert summarize([]).accuracy == 1.0 and summarize([]).moves == 0


# ---- the command --------------------------------------------------------------------------


def test_review_command_on_the_solvers_game(own_game: list[str], tmp_path: Path) -> None:
    path = write(tmp_path / "own.jsonl", own_game)
    result = invoke(str(path), "--depth", "2", "--no-tables")
    assert result.exit_code == 0, result.output
    assert "mistakes   0 " in result.output and "accuracy   100.0%" in result.output


def test_review_command_human_output_names_the_worst(random_game: list[str], tmp_path: Path) -> None:
    path = write(tmp_path / "random.jsonl", random_game)
    result = invoke(str(path), "-d", "2", "--no-tables", "--worst", "3")
    assert result.exit_code == 0, result.output
    data = json.loads(invoke(str(path), "-d", "2", "--no-tables", "--json", "--worst", "3").output)
    worst = data["worst"][0]
    assert f"move {worst['move']:,}: played {worst['played']}, best {worst['best']}" in result.output
    assert Board.from_cells(worst["board"]).notation() is not None
    assert f"mistakes   {data['mistakes']:,} " in result.output


def test_review_json_is_stable(random_game: list[str], tmp_path: Path) -> None:
    path = write(tmp_path / "random.jsonl", random_game)
    result = invoke(str(path), "-d", "2", "--no-tables", "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert {"moves", "mistakes", "accuracy", "worst", "threshold", "interrupted", "losses"} <= set(data)
    assert data["moves"] == replay(random_game).moves == len(data["losses"])
    assert data["accuracy"] == pytest.approx(1 - data["mistakes"] / data["moves"])
    assert data["mistakes"] == sum(loss > DEFAULT_THRESHOLD for loss in data["losses"]) == len(data["mistake_moves"])
    for item in data["worst"]:
        assert {"move", "played", "best", "loss", "board"} <= set(item) and len(item["board"]) == 16
        assert item["played"] in ("up", "down", "left", "right") and 0 < item["loss"] <= 1
    assert data["interrupted"] is False


def test_review_command_errors_are_one_line(own_game: list[str], tmp_path: Path) -> None:
    broken = list(own_game)
    broken[3] = "{not json"
    result = invoke(str(write(tmp_path / "bad.jsonl", broken)))
    assert result.exit_code == 1 and result.output.strip().splitlines() == [
        f"solve2048: illegal record {tmp_path / 'bad.jsonl'}: line 4: not JSON (Expecting property name "
        "enclosed in double quotes)"]
    good = str(write(tmp_path / "good.jsonl", own_game))
    for args in (["--threshold", "nan"], ["--threshold", "1"], ["--threshold", "-1"], ["--depth", "0"]):
        result = invoke(good, *args)
        assert result.exit_code == 2 and len(result.output.strip().splitlines()) == 1, args
    result = invoke(str(tmp_path / "missing.jsonl"))
    assert result.exit_code == 2 and len(result.output.strip().splitlines()) == 1


def test_review_of_a_device_is_refused() -> None:
    result = invoke("/dev/zero")
    assert result.exit_code == 2 and "not a regular file" in result.output


def test_spawns_off_the_seed_are_a_warning_not_a_failure(own_game: list[str], tmp_path: Path) -> None:
    start = json.loads(own_game[0])
    start["seed"] += 1
    path = write(tmp_path / "reseeded.jsonl", [json.dumps(start), *own_game[1:]])
    result = invoke(str(path), "-d", "2", "--no-tables")
    assert result.exit_code == 0
    assert "warning: the spawns" in result.output and "mistakes   0 " in result.output


def test_plot_draws_the_loss_along_the_game(random_game: list[str], tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")  # a test extra: always there when the README's command ran
    plot = tmp_path / "loss.png"
    result = invoke(str(write(tmp_path / "r.jsonl", random_game)), "-d", "1", "--no-tables", "--plot", str(plot))
    assert result.exit_code == 0, result.output
    assert plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    result = invoke(str(tmp_path / "r.jsonl"), "--plot", str(tmp_path / "loss.nope"))
    assert result.exit_code == 2 and "nope" in result.output


def test_ctrl_c_prints_the_summary_so_far_and_exits_130(tmp_path: Path) -> None:
    # A long game reviewed at depth 6 takes minutes; fed through a pipe, the review
    # starts once the whole record has been read, so the interrupt lands mid-review.
    fifo = tmp_path / "game.jsonl"
    os.mkfifo(fifo)
    lines = solver_record(5, 3)
    proc = subprocess.Popen([sys.executable, "-m", "solve2048.cli", "review", str(fifo), "-d", "6",
                             "--no-tables", "--json"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=default_sigint)
    # A daemon: should the command die before opening the pipe, the blocked writer must not hold pytest.
    writer = threading.Thread(target=lambda: fifo.write_text("\n".join(lines) + "\n"), daemon=True)
    try:
        writer.start()
        writer.join(timeout=30)
        assert not writer.is_alive(), "the command never read the record"
        time.sleep(1.0)
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()  # not left behind to burn a core
            proc.wait()
    assert proc.returncode == 130, err
    assert "Traceback" not in err
    data = json.loads(out)
    assert data["interrupted"] is True and 0 < data["moves"] < data["record_moves"] == len(lines) - 2


def test_among_equal_losses_the_larger_shortfall_is_named_first() -> None:
    board = Board.parse(OPENING)

    def made(move: int, loss: float, played_value: float) -> MoveReview:
        values = {Move.UP: played_value, Move.LEFT: 100.0, Move.DOWN: None, Move.RIGHT: None}
        return MoveReview(board, Move.UP, Move.LEFT, values, loss, True, False, None, 1, "default", move)

    worst = summarize([made(1, 1.0, 99.0), made(2, 1.0, 50.0), made(3, 0.5, 0.0)]).worst
    assert [r.move for r in worst] == [2, 1, 3] and worst[0].shortfall == 50.0
