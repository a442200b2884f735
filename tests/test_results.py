"""Results files are untrusted input: read with bounds, every line a possible game."""

from __future__ import annotations

import json
import os
import random
from pathlib import Path

import pytest

from solve2048 import Board, reference
from solve2048.batch import Settings, play_seeds
from solve2048.results import MAX_LINE, ResultsFileError, append_row, check_game, load, score_bounds

BENCH_RESULTS = Path(__file__).resolve().parent.parent / "bench" / "results"

# A real line (seed 1 of bench/results/depth5-tables.jsonl).
GOOD = {"seed": 1, "depth": 5, "score": 561032, "max_tile": 32768, "moves": 19289, "won": True,
        "won_at_move": 977, "seconds": 6.350934692003648, "prune": "auto", "tt_mb": 8, "tables": 0.9,
        "table_moves": 8592}
SMALL = {"seed": 0, "depth": 1, "score": 12, "max_tile": 8, "moves": 3, "seconds": 0.1}


def write_lines(path: Path, rows: list) -> bytes:
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows))
    return path.read_bytes()


def test_every_real_results_file_loads() -> None:
    files = sorted(BENCH_RESULTS.glob("*.jsonl"))
    assert len(files) >= 10
    for path in files:
        lines = path.read_bytes().count(b"\n")
        assert len(load(str(path), repair=False).rows) == lines > 0, path


def test_lines_a_batch_writes_always_pass(tmp_path: Path) -> None:
    rows = play_seeds(list(range(6)), Settings(depth=1)) + play_seeds([7], Settings(depth="auto", prune=0.01))
    out = tmp_path / "r.jsonl"
    with out.open("a", encoding="utf-8") as stream:
        for row in rows:
            check_game(row)
            append_row(stream, row)
    assert [r["seed"] for r in load(str(out)).rows] == [0, 1, 2, 3, 4, 5, 7]


def test_the_bounds_hold_along_random_games_under_the_real_rules() -> None:
    # Every position of a game is a possible end of one: the bounds must hold
    # after every move, for 2-only spawns (the most points a tile can score),
    # 4-only ones (the fewest) and the real mix.
    rng = random.Random(2048)

    def spawn(cells: list[int], four_share: float) -> None:
        empty = [i for i, v in enumerate(cells) if v == 0]
        cells[rng.choice(empty)] = 4 if rng.random() < four_share else 2

    checked = 0
    for four_share in (0.0, 1.0, 0.1):
        for seed in range(60):
            cells, score, moves = [0] * 16, 0, 0
            spawn(cells, four_share)
            spawn(cells, four_share)
            while not reference.is_game_over(cells):
                cells, gain = reference.move(cells, rng.choice(reference.legal_moves(cells)))
                score, moves = score + gain, moves + 1
                spawn(cells, four_share)
                check_game({"seed": seed, "score": score, "max_tile": max(cells), "moves": moves, "seconds": 0})
                checked += 1
    assert checked > 10_000


def test_score_bounds_are_the_extremes_of_building_a_tile() -> None:
    # 8 from 2s: 2+2, 2+2, 4+4 scores 4 + 4 + 8 = 16; from two spawned 4s, 8.
    assert score_bounds(3, 1000) == (8, 2 * 16 * 8)
    assert score_bounds(3, 3) == (8, 2 * 4 * 5)
    assert score_bounds(1, 0) == (0, 0)


@pytest.mark.parametrize("change, field", [
    ({"max_tile": 3}, "max_tile"),
    ({"max_tile": 1 << 18}, "max_tile"),
    ({"max_tile": 0}, "max_tile"),
    ({"score": -4}, "score"),
    ({"score": 561033}, "score"),                  # not a multiple of 4
    ({"score": 10**9}, "score"),                   # more than 32768 in 19,289 moves allows
    ({"score": 4000}, "score"),                    # less than making 32768 scores
    ({"score": 561032.0}, "score"),
    ({"score": "561032"}, "score"),
    ({"moves": -1}, "moves"),
    ({"moves": 900_000}, "moves"),                 # more than 16 cells of 32768 can take
    ({"moves": 5000, "won_at_move": 977}, "max_tile"),  # 32768 needs 8,190 moves
    ({"seconds": float("inf")}, "seconds"),
    ({"seconds": float("nan")}, "seconds"),
    ({"seconds": -1}, "seconds"),
    ({"seconds": True}, "seconds"),
    ({"won": False}, "won"),
    ({"won": "yes"}, "won"),
    ({"won_at_move": None}, "won_at_move"),
    ({"won_at_move": 20000}, "won_at_move"),       # after the last move
    ({"won_at_move": 100}, "won_at_move"),         # before 2048 can exist
    ({"depth": 0}, "depth"),
    ({"depth": 17}, "depth"),
    ({"depth": "deep"}, "depth"),
    ({"table_moves": 20000}, "table_moves"),
    ({"table_moves": -1}, "table_moves"),
    ({"uncovered_moves": 20000}, "uncovered_moves"),
    ({"last_covered": -1}, "last_covered"),
    ({"last_probability": 1.5}, "last_probability"),
    ({"last_covered": 19000, "last_table": "no such table", "last_trusted": True}, "last_table"),
    ({"last_covered": 19000, "last_table": ["chain-10:512"], "last_trusted": True}, "last_table"),
    ({"last_covered": 0, "last_table": "chain-10:512", "last_trusted": True}, "last_table"),
    ({"last_covered": 19000, "last_table": "chain-10:512", "last_trusted": 1}, "last_trusted"),
    ({"last_covered": 19000, "last_table": "chain-10:512"}, "last_trusted"),
    ({"last_covered": 19000, "stretch_start": 19001, "stretch_probability": 0.5}, "stretch_start"),
    ({"last_covered": 19000, "stretch_start": 0, "stretch_probability": 0.5}, "stretch_start"),
    ({"last_covered": 0, "stretch_start": 0, "stretch_probability": 0.5}, "stretch_probability"),
    ({"last_covered": 19000, "stretch_start": 18000}, "stretch_probability"),
    ({"last_covered": 19000, "stretch_start": 18000, "stretch_probability": 1.5}, "stretch_probability"),
    ({"stretch_start": 18000, "stretch_probability": 0.5}, "last_covered"),
    ({"last_covered": 19000, "stretch_probability": 0.5}, "stretch_probability"),
    ({"last_trusted": False}, "last_trusted"),
    ({"prune": 2}, "prune"),
    ({"tt_mb": -8}, "tt_mb"),
    ({"tables": 1.5}, "tables"),
    ({"seed": -1}, "seed"),
    ({"seed": 1 << 64}, "seed"),
])
def test_an_impossible_line_names_file_line_and_field(tmp_path: Path, change: dict, field: str) -> None:
    path = tmp_path / "r.jsonl"
    before = write_lines(path, [SMALL, {**GOOD, **change}, {**GOOD, "seed": 2}])
    with pytest.raises(ResultsFileError) as caught:
        load(str(path))
    message = str(caught.value)
    assert message.startswith(f"{path}: line 2 is not a game result: {field} "), message
    assert "\n" not in message
    assert path.read_bytes() == before


def test_the_final_board_must_be_the_lost_board_of_such_a_game() -> None:
    row = play_seeds([3], Settings(depth=1, quiescence=None))[0]  # a short game: 5,000 more moves are too many
    board = Board.parse(row["final_board"])
    assert check_game(row) and board.is_game_over() and board.max_tile == row["max_tile"]
    top = row["max_tile"]
    live = Board.from_cells([top, 2, 4, 8] + [0] * 12)
    bad = [
        ({"final_board": "0x21"}, f"final_board holds 4 at most, but max_tile is {top:,}"),
        ({"final_board": "2 4 / 8"}, "not a board in hex"),
        ({"final_board": 7}, "not a board in hex"),
        ({"final_board": live.hex()}, "still has a legal move"),
        ({"moves": row["moves"] + 5000}, "which"),   # too few tiles for so many spawns
    ]
    for change, message in bad:
        with pytest.raises(ValueError, match=message):
            check_game({**row, **change})


def test_a_missing_field_is_named(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    write_lines(path, [{k: v for k, v in GOOD.items() if k != "score"}])
    with pytest.raises(ResultsFileError, match=r"line 1 is not a game result: score is missing"):
        load(str(path))


def test_won_and_a_lost_game_agree_with_the_largest_tile(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    lost = {**SMALL, "won": False, "won_at_move": None}
    write_lines(path, [lost, {**GOOD, "seed": 5}])
    assert len(load(str(path)).rows) == 2
    write_lines(path, [{**lost, "won": True}])
    with pytest.raises(ResultsFileError, match="line 1 is not a game result: won is true but max_tile is 8"):
        load(str(path))


def test_a_repeated_seed_names_both_lines(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    rows = [{**GOOD, "seed": s} for s in (3, 4, 5, 6, 7, 8, 9, 10)] + [{**GOOD, "seed": 4}]
    before = write_lines(path, rows)
    with pytest.raises(ResultsFileError, match=r"r.jsonl: line 9 repeats seed 4 of line 2$"):
        load(str(path))
    assert path.read_bytes() == before


def test_a_whole_last_line_without_newline_is_kept_and_a_bad_one_refused(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    path.write_text(json.dumps(SMALL) + "\n" + json.dumps({**GOOD, "seed": 9}))
    assert [r["seed"] for r in load(str(path)).rows] == [0, 9]
    assert path.read_text().endswith("}\n")
    path.write_text(json.dumps(SMALL) + "\n" + json.dumps({**GOOD, "seed": 9, "score": 5}))
    before = path.read_bytes()
    with pytest.raises(ResultsFileError, match="line 2 is not a game result: score 5"):
        load(str(path))
    assert path.read_bytes() == before


def test_only_the_start_of_a_batch_line_is_taken_for_a_torn_write(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    path.write_text('{"seed": 0, "dep')            # killed while writing its first game
    loaded = load(str(path))
    assert loaded.rows == [] and "line 1 was cut off" in loaded.repaired and path.read_text() == ""
    path.write_text(json.dumps(SMALL) + "\nmy own notes, no newline")
    before = path.read_bytes()
    with pytest.raises(ResultsFileError, match="line 2 is not a game result"):
        load(str(path))
    assert path.read_bytes() == before


@pytest.mark.parametrize("tail", [False, True])
def test_a_line_longer_than_the_cap_is_refused_unread(tmp_path: Path, tail: bool) -> None:
    path = tmp_path / "r.jsonl"
    long = '{"seed": 1, "pad": "' + "x" * (10 * MAX_LINE) + '"}'
    path.write_text(json.dumps(SMALL) + "\n" + long + ("" if tail else "\n" + json.dumps(GOOD) + "\n"))
    before = path.read_bytes()
    with pytest.raises(ResultsFileError, match=f"line 2 is longer than {MAX_LINE} bytes"):
        load(str(path))
    assert path.read_bytes() == before


def test_what_is_not_a_regular_file_is_refused_without_reading(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)    # opening it to read would wait for a writer forever
    for path in ("/dev/zero", "/dev/full", str(fifo), str(tmp_path)):
        with pytest.raises(ResultsFileError, match="is not a regular file"):
            load(path)
    assert load(str(tmp_path / "missing.jsonl")).rows == []
    (tmp_path / "file.txt").write_text("x")
    with pytest.raises(ResultsFileError, match=r"cannot read .*file.txt/r.jsonl"):
        load(str(tmp_path / "file.txt" / "r.jsonl"))
    assert (tmp_path / "file.txt").read_text() == "x"


def test_lines_that_are_not_json_objects(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    deep = b"[" * 2000 + b"]" * 2000    # under the cap, deeper than Python's recursion limit
    for bad in (b"[1, 2]", b"null", b'"text"', b"\xff\xfe", deep, b'{"seed": NaN}'):
        path.write_bytes(json.dumps(SMALL).encode() + b"\n" + bad + b"\n")
        with pytest.raises(ResultsFileError, match="line 2 is not a game result"):
            load(str(path))
