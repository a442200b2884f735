"""solve2048 serve: the JSON API against the CLI and the library, its limits, and the command."""

from __future__ import annotations

import json
import math
import os
import signal
import socket
import subprocess
import sys
import threading
import time

import pytest
from click.testing import CliRunner
from helpers import default_sigint
from live_server import post_json, request, serving

from solve2048 import Board
from solve2048.cli.main import cli
from solve2048.decide import decide
from solve2048.engine import max_tt_mb
from solve2048.review import review_move
from solve2048.settings import SearchSettings
from solve2048.tables import CHAIN, ENTRY, TableSet, TableSpec
from solve2048.web import app as web_app
from solve2048.web.api import ApiError, Limits, settings_of
from solve2048.web.app import SearchPool, create_app

BOARDS = [
    "2 4 8 16 / . 2 . 4 / . . 2 . / . . . 2",
    "1024 512 64 4 / 256 128 16 2 / 32 8 4 . / 2 . . 2",
    "65536 32768 16384 8192 / 256 512 1024 4096 / 128 64 32 16 / . . 4 8",
    "2 4 2 4 / 4 2 4 2 / 2 4 2 8 / 4 2 16 16",
]

TABLE_BOARD = "512 128 2 8 / 256 64 4 4 / 128 16 4 . / 16 4 2 ."   # the small chain table's


@pytest.fixture(scope="module")
def server() -> str:
    with serving(create_app(SearchSettings(), Limits(max_depth=6, max_time_ms=2000))) as base:
        yield base


def without_seconds(answer: dict) -> dict:
    return {k: v for k, v in answer.items() if k != "seconds"}


def cli_hint(board: str, *options: str) -> dict:
    result = CliRunner().invoke(cli, ["hint", board, "--json", "--no-tables", *options])
    assert result.exit_code in (0, 1), result.output
    return json.loads(result.output)


@pytest.mark.parametrize("board", BOARDS)
@pytest.mark.parametrize("depth", [1, 3, "auto"])
def test_hint_answers_what_hint_json_prints(server: str, board: str, depth: int | str) -> None:
    status, answer = post_json(server, "/api/hint", {"board": board, "depth": depth})
    assert status == 200
    assert without_seconds(answer) == without_seconds(cli_hint(board, "--depth", str(depth)))


def test_hint_takes_the_board_as_16_numbers_as_a_grid_and_as_hex(server: str) -> None:
    board = Board.parse(BOARDS[1])
    answers = [post_json(server, "/api/hint", {"board": form, "depth": 2})[1]
               for form in (list(board.cells), [list(r) for r in board.rows], board.hex(), str(board))]
    assert all(without_seconds(a) == without_seconds(answers[0]) for a in answers)
    assert answers[0]["board"] == list(board.cells)


def test_hint_with_a_time_limit_searches_within_it(server: str) -> None:
    status, answer = post_json(server, "/api/hint", {"board": BOARDS[1], "time_ms": 50, "depth": 6})
    assert status == 200 and answer["best"] in ("up", "down", "left", "right")
    assert 1 <= answer["depth"] <= 6


def test_hint_without_values_plays_like_a_game(server: str) -> None:
    status, answer = post_json(server, "/api/hint", {"board": BOARDS[0], "depth": 2, "values": False})
    assert status == 200
    assert answer["best"] == str(decide(BOARDS[0], depth=2, values=False).move)


def test_a_board_with_no_move_has_no_best(server: str) -> None:
    status, answer = post_json(server, "/api/hint", {"board": "2 4 2 4 / 4 2 4 2 / 2 4 2 4 / 4 2 4 2"})
    assert status == 200 and answer["best"] is None


def test_hint_with_tables_is_the_decision_of_the_library(stored_table) -> None:
    tables = TableSet({s: stored_table(s) for s in (TableSpec(6, 6, CHAIN), TableSpec(5, 5, ENTRY))})
    settings = SearchSettings(depth=2, tables=tables)
    board = TABLE_BOARD
    with serving(create_app(settings)) as base:
        status, answer = post_json(base, "/api/hint", {"board": board, "depth": 2})
    assert status == 200 and answer["from_table"] is True
    assert without_seconds(answer) == without_seconds(decide(board, settings).to_json())


def test_review_is_the_library_review(server: str) -> None:
    board = BOARDS[0]
    for played in Board.parse(board).legal_moves():
        status, answer = post_json(server, "/api/review", {"board": board, "played": str(played), "depth": 2})
        assert status == 200
        assert answer == json.loads(json.dumps(review_move(board, played, SearchSettings(depth=2)).to_json()))


def test_parse_reads_any_notation_the_cli_reads(server: str) -> None:
    for text in ("2 4 . . / . 8 . . / . . 16 . / 32768 . . 2", "[[2,4,0,0],[0,8,0,0],[0,0,16,0],[32768,0,0,2]]",
                 "2,4,0,0;0,8,0,0;0,0,16,0;32768,0,0,2"):
        status, answer = post_json(server, "/api/parse", {"board": text})
        assert status == 200
        assert answer["board"] == [2, 4, 0, 0, 0, 8, 0, 0, 0, 0, 16, 0, 32768, 0, 0, 2]


def test_a_bad_board_gets_the_cli_error_line(server: str) -> None:
    text = "2 4 . / 3"
    status, answer = post_json(server, "/api/hint", {"board": text})
    cli_result = CliRunner().invoke(cli, ["hint", text])
    assert status == 400 and cli_result.exit_code == 2
    assert cli_result.output.strip().endswith(answer["error"])


@pytest.mark.parametrize(("body", "message"), [
    ({}, "missing field 'board'"),
    ({"board": BOARDS[0], "deep": 3}, "unknown field 'deep'"),
    ({"board": 7}, "board must be a list of 16 numbers or a text"),
    ({"board": [2] * 15}, "16"),
    ({"board": BOARDS[0], "depth": 0}, "depth"),
    ({"board": BOARDS[0], "depth": 7}, "deeper than this server allows (6)"),
    ({"board": BOARDS[0], "depth": "7"}, "depth"),
    ({"board": BOARDS[0], "depth": True}, "depth"),
    ({"board": BOARDS[0], "time_ms": 5000}, "longer than this server allows"),
    ({"board": BOARDS[0], "time_ms": -1}, "time"),
    ({"board": BOARDS[0], "values": "yes"}, "values must be true or false"),
    ({"board": "2 . . . / . . . . / . . . . / . . . 262144"}, "262144"),
])
def test_bad_fields_get_a_400_saying_what(server: str, body: dict, message: str) -> None:
    status, answer = post_json(server, "/api/hint", body)
    assert status == 400
    assert message in answer["error"] and "\n" not in answer["error"]


@pytest.mark.parametrize(("raw", "message"), [
    (b"not json", "not JSON"),
    (b"[1, 2]", "must be a JSON object"),
    (b"\xff\xfe", "not JSON"),
    (b"[" * 5000 + b"]" * 5000, "nested too deep"),
    (b'{"board": ' + b"9" * 5000 + b"}", "too long"),
    (b'{"board": "2 . . . / . . . . / . . . . / . . . 2", "time_ms": NaN}', "time"),
    (b'{"board": "2 . . . / . . . . / . . . . / . . . 2", "time_ms": Infinity}', "time"),
])
def test_bodies_that_are_not_requests_get_a_400(server: str, raw: bytes, message: str) -> None:
    status, answer = post_json(server, "/api/hint", raw)
    assert status == 400 and message in answer["error"]


def test_review_refuses_a_move_that_is_not_legal(server: str) -> None:
    board = "2 4 . . / . . . . / . . . . / . . . ."   # up changes nothing
    status, answer = post_json(server, "/api/review", {"board": board, "played": "up"})
    assert status == 400 and "up" in answer["error"]
    status, answer = post_json(server, "/api/review", {"board": board, "played": "north"})
    assert status == 400 and "direction" in answer["error"]


def test_a_body_too_large_is_refused_whatever_its_headers_say(server: str) -> None:
    json_type = {"Content-Type": "application/json"}
    status, _, body = request(server, "POST", "/api/hint", b"{" + b" " * 20_000 + b"}", json_type)
    assert status == 413 and b"larger than" in body
    # No Content-Length at all (http.client sends an iterable in chunks): the body
    # is counted as it comes.
    chunks = (b" " * 4096 for _ in range(8))
    status, _, body = request(server, "POST", "/api/hint", chunks, json_type)  # type: ignore[arg-type]
    assert status == 413
    # A negative length is refused by the HTTP layer, which then closes the
    # connection: sent without a body, so that no unread byte makes the
    # server's close a reset that could beat its answer to the client.
    status, _, _ = request(server, "POST", "/api/hint", b"", headers={**json_type, "Content-Length": "-5"})
    assert status in (400, 413)
    assert request(server, "GET", "/api/info")[0] == 200


def test_a_body_that_never_comes_is_dropped_in_time() -> None:
    with serving(create_app(limits=Limits(body_seconds=0.3))) as base:
        port = int(base.rsplit(":", 1)[1])
        with socket.create_connection(("127.0.0.1", port), timeout=10) as client:
            client.sendall(b"POST /api/hint HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                           b"Content-Length: 100\r\n\r\n{")
            started = time.monotonic()
            answer = client.recv(4096)
        assert answer.startswith(b"HTTP/1.1 408") and time.monotonic() - started < 5
        assert request(base, "GET", "/api/info")[0] == 200


def test_only_json_is_taken_so_other_sites_pages_cannot_post(server: str) -> None:
    body = json.dumps({"board": BOARDS[0], "depth": 1})
    for kind in ("text/plain", "application/x-www-form-urlencoded", "multipart/form-data", None):
        status, _, answer = request(server, "POST", "/api/hint", body, {"Content-Type": kind} if kind else {})
        assert status == 415 and b"application/json" in answer
    status, _, _ = request(server, "POST", "/api/hint", body, {"Content-Type": "application/json; charset=utf-8"})
    assert status == 200


def test_the_server_stays_up_after_bad_requests(server: str) -> None:
    for raw in (b"", b"{", b"null", b'{"board": null}'):
        assert post_json(server, "/api/hint", raw)[0] == 400
    assert request(server, "GET", "/api/hint")[0] == 405
    status, _, body = request(server, "GET", "/api/nowhere")
    assert status == 404 and "error" in json.loads(body)
    assert post_json(server, "/api/hint", {"board": BOARDS[0], "depth": 1})[0] == 200


def test_pages_and_files_are_served_with_their_types_and_no_more(server: str) -> None:
    status, headers, body = request(server, "GET", "/")
    assert status == 200 and headers["content-type"].startswith("text/html") and b"data-action=\"hint\"" in body
    assert "default-src 'self'" in headers["content-security-policy"]
    for name, kind in (("main.js", "javascript"), ("rules.js", "javascript"), ("style.css", "text/css")):
        status, headers, _ = request(server, "GET", f"/static/{name}")
        assert status == 200 and kind in headers["content-type"]
    assert request(server, "GET", "/static/../app.py")[0] == 404
    assert request(server, "GET", "/static/%2e%2e/app.py")[0] == 404


def test_the_page_loads_nothing_from_elsewhere(server: str) -> None:
    _, _, page = request(server, "GET", "/")
    assert b"http://" not in page and b"https://" not in page and b"<script>" not in page
    for name in os.listdir(web_app.STATIC):
        text = (web_app.STATIC / name).read_text()
        assert "http://" not in text and "https://" not in text, name


def test_info_says_the_limits(server: str) -> None:
    status, _, body = request(server, "GET", "/api/info")
    info = json.loads(body)
    assert status == 200 and info["limits"]["max_depth"] == 6 and info["depth"] == "auto"


def test_a_deep_search_does_not_hold_up_other_requests(monkeypatch: pytest.MonkeyPatch) -> None:
    release = threading.Event()
    real_decide = web_app.decide

    def slow_decide(*args, **kwargs):
        release.wait(20)
        return real_decide(*args, **kwargs)

    monkeypatch.setattr(web_app, "decide", slow_decide)
    with serving(create_app(limits=Limits(max_searches=1))) as base:
        answers: list[int] = []
        search = threading.Thread(target=lambda: answers.append(
            post_json(base, "/api/hint", {"board": BOARDS[0], "depth": 1})[0]))
        search.start()
        time.sleep(0.2)
        started = time.monotonic()
        assert request(base, "GET", "/api/info")[0] == 200
        assert post_json(base, "/api/parse", {"board": BOARDS[0]})[0] == 200
        waited = time.monotonic() - started
        release.set()
        search.join(20)
    assert answers == [200] and waited < 2


def test_the_pool_runs_so_many_searches_and_refuses_the_rest() -> None:
    import asyncio

    release = threading.Event()
    pool = SearchPool(Limits(max_searches=1, max_waiting=1, queue_seconds=0.3))

    async def scenario() -> list[object]:
        first = asyncio.ensure_future(pool.run(lambda: release.wait(10) and "first"))
        await asyncio.sleep(0.05)
        second = asyncio.ensure_future(pool.run(lambda: "second"))   # waits for a turn
        await asyncio.sleep(0.05)
        try:
            await pool.run(lambda: "third")                          # nobody may wait beyond one
            third: object = "ran"
        except ApiError as error:
            third = error.status
        timed_out: object
        try:
            await second                                             # the turn never comes in time
            timed_out = "ran"
        except ApiError as error:
            timed_out = error.status
        release.set()
        return [await first, third, timed_out, await pool.run(lambda: "after")]

    try:
        assert asyncio.run(scenario()) == ["first", 503, 503, "after"]
    finally:
        pool.close()


def test_the_pools_tables_must_fit_together() -> None:
    each = max_tt_mb() // 4 + 1   # two fit, four do not
    create_app(SearchSettings(tt_mb=each, threads=1), Limits(max_searches=2))
    with pytest.raises(ValueError, match="4 tables"):
        create_app(SearchSettings(tt_mb=each, threads=2), Limits(max_searches=2))


@pytest.mark.parametrize(("field", "value"), [
    ("max_searches", 0), ("max_waiting", -1), ("body_bytes", 0), ("max_depth", 99),
    ("max_time_ms", math.inf), ("queue_seconds", math.nan), ("body_seconds", 0),
])
def test_limits_refuse_what_cannot_be(field: str, value: object) -> None:
    with pytest.raises(ValueError):
        Limits(**{field: value})


# ---- the command ----

def serve_process(*options: str) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-m", "solve2048.cli", "serve", "--no-open", "--no-tables", *options],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, preexec_fn=default_sigint)


def test_serve_prints_its_address_answers_and_stops_on_ctrl_c() -> None:
    process = serve_process("--port", "0")
    try:
        line = process.stdout.readline()  # type: ignore[union-attr]
        assert line.startswith("solve2048 serve: http://127.0.0.1:"), line
        base = line.split()[2].rstrip("/")
        status, answer = post_json(base, "/api/hint", {"board": BOARDS[0], "depth": 2})
        assert status == 200 and answer["best"] == cli_hint(BOARDS[0], "--depth", "2")["best"]
    finally:
        process.send_signal(signal.SIGINT)
        _, err = process.communicate(timeout=20)
    # Ctrl-C ends the server as it ends every command: exit 130 and one line.
    assert process.returncode == 130, err
    assert err.strip() == "solve2048: interrupted"


def test_serve_warns_when_it_listens_beyond_this_machine() -> None:
    process = serve_process("--port", "0", "--host", "0.0.0.0")
    try:
        assert process.stdout.readline().startswith("solve2048 serve: http://")  # type: ignore[union-attr]
    finally:
        process.send_signal(signal.SIGINT)
        _, err = process.communicate(timeout=20)
    assert "warning: listening on 0.0.0.0" in err


def test_serve_on_a_port_in_use_is_one_line() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        result = CliRunner().invoke(cli, ["serve", "--no-open", "--no-tables", "--port", str(port)])
    assert result.exit_code == 2
    assert result.output.strip().startswith(f"solve2048: error: cannot listen on 127.0.0.1:{port}")
    assert len(result.output.strip().splitlines()) == 1


def test_a_server_bounds_auto_by_the_deepest_search_it_picks() -> None:
    # auto searches up to AUTO_MAX_DEPTH (5) moves: --max-depth bounds it as
    # it bounds a fixed depth; a time limit bounds a timed one instead.
    server, shallow = SearchSettings(depth=3), Limits(max_depth=4)
    with pytest.raises(ApiError, match=r"^depth auto \(up to 5 moves\) searches deeper than this server allows \(4\)$"):
        settings_of({"depth": "auto"}, server, shallow)
    assert settings_of({"depth": "auto", "time_ms": 20}, server, shallow).depth == "auto"
    looked = settings_of({"depth": "auto"}, server, Limits(max_depth=5))   # its default look gives way
    assert (looked.depth, looked.quiescence, looked.late_quiescence) == ("auto", None, None)
    with pytest.raises(ApiError, match=r"searches deeper than --max-depth allows \(4\): give a --depth of 4 or less"):
        create_app(SearchSettings(), shallow)
    result = CliRunner().invoke(cli, ["serve", "--no-open", "--no-tables", "--port", "0", "--max-depth", "4"])
    assert result.exit_code == 2 and result.output.strip().splitlines() == [
        "solve2048: error: depth auto (up to 5 moves) searches deeper than --max-depth allows (4): "
        "give a --depth of 4 or less"]


@pytest.mark.parametrize("options", [["--port", "70000"], ["--max-depth", "0"], ["--max-depth", "auto"],
                                     ["--max-time", "nan"], ["--max-searches", "0"], ["--host", "no such host."]])
def test_serve_refuses_bad_options_in_one_line(options: list[str]) -> None:
    result = CliRunner().invoke(cli, ["serve", "--no-open", "--no-tables", "--port", "0", *options])
    assert result.exit_code == 2, result.output
    assert len(result.output.strip().splitlines()) == 1 and "error" in result.output
