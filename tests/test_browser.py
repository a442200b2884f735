"""The page of solve2048 serve in a real browser: headless Chromium (Debian's
chromium package) driven by Playwright through executable_path.

These tests are never skipped: without the browser they fail, saying how to
install it (.ci/run installs it; SOLVE2048_CHROMIUM names another binary).
SOLVE2048_SCREENSHOT=docs/serve.png makes the screenshot the README shows.
"""

from __future__ import annotations

import json
import os
import random
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner
from live_server import post_json, serving
from playwright.sync_api import Browser, Page, sync_playwright

from solve2048 import Board, reference
from solve2048.cli.main import cli
from solve2048.human_game import HumanGame
from solve2048.record import read_lines, replay
from solve2048.rng import Rng
from solve2048.settings import SearchSettings
from solve2048.tables import CHAIN, ENTRY, TableSet, TableSpec
from solve2048.web.api import Limits
from solve2048.web.app import create_app

DIRECTIONS = ("up", "down", "left", "right")
# The flags keep a headless Chromium from calling home, which a closed network
# answers with refused connections at every start.
CHROMIUM_FLAGS = ["--disable-background-networking", "--disable-component-update", "--disable-sync",
                  "--no-first-run", "--disable-gpu", "--disable-default-apps"]


def chromium_path() -> str:
    path = os.environ.get("SOLVE2048_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
    if not os.access(path, os.X_OK):
        pytest.fail(f"no Chromium at {path}: install Debian's chromium package (apt-get install chromium) "
                    "or set SOLVE2048_CHROMIUM to a Chromium binary", pytrace=False)
    return path


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_FLAGS)
        yield launched
        launched.close()


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    with serving(create_app(SearchSettings(), Limits(max_depth=6))) as base:
        yield base


@pytest.fixture
def page(browser: Browser, server: str) -> Iterator[Page]:
    """A fresh page (its own storage) on the served game, ready."""
    context = browser.new_context(viewport={"width": 900, "height": 1200}, accept_downloads=True)
    opened = context.new_page()
    errors: list[str] = []
    opened.on("pageerror", lambda error: errors.append(str(error)))
    load(opened, server)
    yield opened
    context.close()
    assert errors == [], errors  # no script error on the way


def load(page: Page, server: str, query: str = "") -> None:
    page.goto(f"{server}/{query}")
    page.wait_for_selector("body[data-ready=true]")


def cells(page: Page) -> list[int]:
    return page.eval_on_selector_all("[data-cell]", "cells => cells.map(c => Number(c.dataset.value))")


def score(page: Page) -> int:
    return int(page.text_content('[data-testid="score"]') or "")


def best_score(page: Page) -> int:
    return int(page.text_content('[data-testid="best-score"]') or "")


def set_board(page: Page, text: str) -> None:
    """Sets a position through the editor, as a person pastes one."""
    page.click('[data-action="edit"]')
    page.fill('[data-testid="paste"]', text)
    page.click('[data-action="set-board"]')
    # The editor opens on the game's own board and the paste goes through the
    # server: wait for the pasted board itself, or "Play from here" may take
    # the old one (it did once, under load).
    page.wait_for_function(
        "(expected) => { const c = S2048.page.editor.cells;"
        " return c !== null && c.every((v, i) => v === expected[i]); }",
        arg=list(Board.parse(text).cells))
    page.click('[data-action="edit-done"]')


def one_spawn_after(before: list[int], direction: str, after: list[int]) -> bool:
    """``after`` is ``before`` moved in ``direction`` by the oracle, plus one 2 or 4."""
    moved, _ = reference.move(before, direction)
    new = [i for i in range(16) if moved[i] != after[i]]
    return len(new) == 1 and moved[new[0]] == 0 and after[new[0]] in (2, 4)


# ---- the rules, the generator and the game ----

def random_cells(rng: random.Random) -> list[int]:
    """A board of any tiles up to 131072, with many equal neighbours."""
    top = rng.choice([3, 6, 12, 17])
    return [0 if rng.random() < 0.3 else 2 ** rng.randint(1, top) for _ in range(16)]


def test_the_pages_rules_are_the_oracles_on_thousands_of_boards(page: Page) -> None:
    rng = random.Random(2048)
    boards = [random_cells(rng) for _ in range(5000)]
    boards += [[32768] * 4 + [0] * 12, [65536, 65536, 32768, 32768] + [0] * 12, [131072] + [2] * 15,
               [131072, 131072] + [0] * 14, [131072, 131072, 2, 2] + [4, 8] * 6]  # two 131072s do not merge
    moved = page.evaluate("""boards => boards.map(b => ["up", "down", "left", "right"].map(d => {
        const r = S2048.rules.move(b, d); return [r.cells, r.gain, r.moved]; }))""", boards)
    for board, results in zip(boards, moved, strict=True):
        for move, (after, gain, changed) in zip(DIRECTIONS, results, strict=True):
            legal = reference.is_legal(board, move)
            expected, expected_gain = reference.move(board, move) if legal else (board, 0)
            assert (after, gain, changed) == (expected, expected_gain, legal), (board, move)
    over = page.evaluate("boards => boards.map(b => S2048.rules.isGameOver(b))", boards)
    assert over == [reference.is_game_over(b) for b in boards]


def test_the_pages_generator_is_the_games_draw_for_draw(page: Page) -> None:
    seeds = [0, 1, 7, 2**32 - 1, 2**63 + 12345, 2**64 - 1]
    for seed in seeds:
        rng = Rng(seed)
        expected = [str(rng.next()) for _ in range(50)] + [rng.below(n) for n in (1, 2, 3, 10, 15, 16)]
        got = page.evaluate("""seed => { const r = new S2048.Rng(BigInt(seed));
            const words = []; for (let i = 0; i < 50; i++) words.push(r.next().toString());
            return words.concat([1, 2, 3, 10, 15, 16].map(n => r.below(n))); }""", str(seed))
        assert got == expected, seed


def test_a_seeded_game_deals_the_tiles_of_that_seed(page: Page, server: str) -> None:
    load(page, server, "?seed=42")
    assert cells(page) == list(HumanGame.new(42).board.cells)
    assert page.text_content('[data-testid="seed"]') == "42"


def test_keys_play_the_moves_of_the_rules(page: Page) -> None:
    keys = {"ArrowUp": "up", "ArrowDown": "down", "ArrowLeft": "left", "ArrowRight": "right",
            "w": "up", "s": "down", "a": "left", "d": "right", "k": "up", "j": "down", "h": "left", "l": "right"}
    played = 0
    total = 0
    for key, direction in list(keys.items()) * 3:
        before = cells(page)
        page.keyboard.press(key)
        after = cells(page)
        if after != before:
            assert one_spawn_after(before, direction, after), (key, before, after)
            total += reference.move(before, direction)[1]
            played += 1
        else:  # a direction that changes nothing: no spawn, no cost
            assert reference.move(before, direction)[0] == before
    assert played >= 10 and score(page) == total


def test_a_swipe_moves_the_tiles(browser: Browser, server: str) -> None:
    context = browser.new_context(has_touch=True, viewport={"width": 400, "height": 800})
    page = context.new_page()
    load(page, server, "?seed=5")
    for dx, dy, direction in ((-120, 0, "left"), (0, -120, "up"), (120, 0, "right"), (0, 120, "down")):
        before = cells(page)
        page.evaluate("""([dx, dy]) => { const board = document.querySelector('[data-testid="board"]');
            const touch = (x, y) => new Touch({identifier: 1, target: board, clientX: x, clientY: y});
            board.dispatchEvent(new TouchEvent("touchstart", {touches: [touch(200, 300)], bubbles: true}));
            board.dispatchEvent(new TouchEvent("touchend",
                {changedTouches: [touch(200 + dx, 300 + dy)], bubbles: true})); }""", [dx, dy])
        after = cells(page)
        moved = reference.move(before, direction)[0]
        assert (after == before) == (moved == before)
        if after != before:
            assert one_spawn_after(before, direction, after)
    context.close()


def test_a_reload_restores_the_board_and_the_score(page: Page, server: str) -> None:
    for key in ("ArrowLeft", "ArrowUp", "ArrowRight", "ArrowUp", "ArrowLeft", "ArrowDown") * 3:
        page.keyboard.press(key)
    board, points = cells(page), score(page)
    assert points > 0
    load(page, server)
    assert cells(page) == board and score(page) == points
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("ArrowUp")
    assert cells(page) != board  # and the game goes on from there


def test_the_best_score_survives_a_new_game_and_a_reload(page: Page, server: str) -> None:
    for key in ("ArrowLeft", "ArrowUp", "ArrowRight", "ArrowUp") * 4:
        page.keyboard.press(key)
    best = best_score(page)
    assert best == score(page) > 0
    page.click('[data-action="new-game"]')
    assert score(page) == 0 and best_score(page) == best
    assert sum(1 for v in cells(page) if v) == 2
    load(page, server)
    assert best_score(page) == best and score(page) == 0


def test_a_damaged_save_costs_the_game_not_the_page(page: Page, server: str) -> None:
    page.evaluate("""() => { localStorage.setItem("solve2048.game.v1", '{"version": 1, "cells": [3]}');
                            localStorage.setItem("solve2048.best.v1", "lots"); }""")
    load(page, server)
    assert sum(1 for v in cells(page) if v) == 2 and score(page) == 0 and best_score(page) == 0


def test_the_win_banner_comes_once_with_keep_going(page: Page) -> None:
    set_board(page, "1024 1024 . . / . . . . / . . . . / . . . 2")
    page.keyboard.press("ArrowLeft")
    page.wait_for_selector('[data-testid="message"]:not([hidden])')
    assert page.text_content('[data-testid="message-text"]') == "You win!"
    before = cells(page)
    page.keyboard.press("ArrowRight")            # the banner holds the board
    assert cells(page) == before
    page.click('[data-action="keep-going"]')
    assert page.is_hidden('[data-testid="message"]')
    for key in ("ArrowRight", "ArrowDown", "ArrowLeft", "ArrowUp"):
        page.keyboard.press(key)
    assert page.is_hidden('[data-testid="message"]')  # once a game


def test_game_over_offers_try_again(page: Page) -> None:
    set_board(page, "2 4 2 4 / 4 2 4 2 / 2 4 2 8 / 4 2 16 16")
    page.keyboard.press("ArrowLeft")             # whatever spawns, no move is left
    page.wait_for_selector('[data-testid="message"].over')
    assert page.text_content('[data-action="message-new-game"]') == "Try again"
    page.click('[data-action="message-new-game"]')
    assert page.is_hidden('[data-testid="message"]') and sum(1 for v in cells(page) if v) == 2


# ---- the solver beside it ----

def hint_json(board: list[int], *options: str) -> dict:
    result = CliRunner().invoke(cli, ["hint", json.dumps(board), "--json", "--no-tables", *options])
    return json.loads(result.output)


def test_the_hint_names_the_move_of_the_api(page: Page, server: str) -> None:
    for key in ("ArrowLeft", "ArrowUp", "ArrowRight"):
        page.keyboard.press(key)
    page.click('[data-action="hint"]')
    page.wait_for_function("() => document.querySelector('[data-testid=\"hint-best\"]').textContent !== ''")
    shown = page.text_content('[data-testid="hint-best"]')
    status, answer = post_json(server, "/api/hint", {"board": cells(page)})
    assert status == 200 and shown == answer["best"]
    assert page.get_attribute(f'[data-testid="hint-bar-{shown}"]', "class") == "bar best"


def test_the_editor_sets_a_position_whose_hint_is_hint_json(page: Page) -> None:
    text = "1024 512 64 4 / 256 128 16 2 / 32 8 4 . / 2 . . 2"
    page.click('[data-action="edit"]')
    page.fill('[data-testid="paste"]', text)
    page.click('[data-action="set-board"]')
    page.wait_for_function("() => S2048.page.editor.cells[0] === 1024")
    # A cell set by hand: the empty cell at row 3, column 4 gets a 4 from the picker.
    page.click('[data-cell="11"]')
    page.click('[data-pick="4"]')
    # ... and with keys: the 2 below it is raised to 4, then to 8, and lowered back to 4.
    page.keyboard.press("ArrowDown")
    for key in ("+", "+", "-"):
        page.keyboard.press(key)
    page.select_option('[data-testid="depth"]', "3")
    page.click('[data-action="hint"]')
    page.wait_for_function("() => S2048.page.lastHint !== null")
    board = cells(page)
    assert board == [1024, 512, 64, 4, 256, 128, 16, 2, 32, 8, 4, 4, 2, 0, 0, 4]
    shown = page.evaluate("S2048.page.lastHint")
    expected = hint_json(board, "--depth", "3")
    assert {k: v for k, v in shown.items() if k != "seconds"} == {k: v for k, v in expected.items() if k != "seconds"}
    assert page.text_content('[data-testid="hint-best"]') == expected["best"]
    # The line under it names the search as the CLI's hint does: depth 3 looks by default.
    assert (page.text_content('[data-testid="hint-source"]') or "").startswith(
        "depth 3, quiescence 3, late quiescence 2 · ")


def test_a_pasted_board_the_cli_refuses_is_refused_with_its_words(page: Page) -> None:
    page.click('[data-action="edit"]')
    page.fill('[data-testid="paste"]', "2 4 . / 3")
    page.click('[data-action="set-board"]')
    page.wait_for_function("() => document.querySelector('[data-testid=\"notice\"]').textContent !== ''")
    assert page.text_content('[data-testid="notice"]') == "expected 4 rows, got 2 in '2 4 . / 3'"


def test_no_game_starts_from_the_empty_board(page: Page) -> None:
    before = cells(page)
    page.click('[data-action="edit"]')
    page.click('[data-action="clear-board"]')
    page.click('[data-action="edit-done"]')
    assert page.text_content('[data-testid="notice"]') == "a game cannot start from the empty board: place a tile first"
    assert page.evaluate("S2048.page.editor.active") is True  # still editing: nothing was lost
    page.click('[data-cell="0"]')
    page.click('[data-pick="2"]')
    page.click('[data-action="edit-done"]')
    assert page.text_content('[data-testid="notice"]') == "" and cells(page)[0] == 2 and cells(page) != before


def test_autoplay_plays_and_any_key_stops_it(page: Page) -> None:
    page.select_option('[data-testid="depth"]', "1")
    page.fill('[data-testid="speed"]', "50")
    start = cells(page)
    page.click('[data-action="autoplay"]')
    page.wait_for_function("() => S2048.page.game.moves >= 5")
    assert cells(page) != start
    page.keyboard.press("x")
    assert page.get_attribute('[data-action="autoplay"]', "aria-pressed") == "false"
    stopped_at = page.evaluate("S2048.page.game.moves")
    page.wait_for_timeout(300)  # several autoplay moves' time
    assert page.evaluate("S2048.page.game.moves") == stopped_at


def test_each_move_played_is_judged_and_a_losing_one_flagged(page: Page) -> None:
    # Up leaves the pair of 16s for a board with one move left; left merges them.
    set_board(page, "2 4 2 4 / 4 2 4 2 / 2 4 2 . / 4 2 16 16")
    page.select_option('[data-testid="depth"]', "2")
    page.keyboard.press("ArrowUp")
    page.wait_for_function("() => S2048.page.lastReview !== null")
    review = page.evaluate("S2048.page.lastReview")
    assert review["played"] == "up" and review["mistake"] is True
    assert "a mistake" in (page.text_content('[data-testid="judgement"]') or "")


def test_the_downloaded_game_is_a_record_replay_and_review_read(page: Page, server: str, tmp_path: Path) -> None:
    load(page, server, "?seed=9")
    for key in ("ArrowLeft", "ArrowUp", "ArrowRight", "ArrowDown") * 5:
        page.keyboard.press(key)
    with page.expect_download() as download:
        page.click('[data-action="download"]')
    path = tmp_path / "game.jsonl"
    download.value.save_as(path)
    with path.open("rb") as stream:
        result = replay(read_lines(stream))
    assert result.seed == 9 and result.spawns_follow_seed is True
    assert result.board == cells(page) and result.score == score(page)
    assert result.moves == page.evaluate("S2048.page.game.moves") > 5
    reviewed = CliRunner().invoke(cli, ["review", str(path), "--depth", "1", "--no-tables", "--json"])
    assert reviewed.exit_code == 0, reviewed.output
    assert json.loads(reviewed.output)["moves"] == result.moves


def test_a_table_move_says_so_with_its_probability(browser: Browser, stored_table) -> None:
    tables = TableSet({s: stored_table(s) for s in (TableSpec(6, 6, CHAIN), TableSpec(5, 5, ENTRY))})
    with serving(create_app(SearchSettings(tables=tables))) as base:
        context = browser.new_context()
        page = context.new_page()
        load(page, base)
        set_board(page, "512 128 2 8 / 256 64 4 4 / 128 16 4 . / 16 4 2 .")
        page.click('[data-action="hint"]')
        page.wait_for_function("() => S2048.page.lastHint !== null")
        hint = page.evaluate("S2048.page.lastHint")
        assert hint["from_table"] is True
        p = hint["table_probability"]
        odds = "1" if p >= 1 else f"{0 if p <= 1.5 / 60 else p:.3f}–{min(p + 1 / 60, 1):.3f}"
        assert f"from an endgame table (p = {odds})" in (
            page.text_content('[data-testid="hint-source"]') or "")
        assert page.get_attribute('[data-testid="board"]', "data-hint") == hint["best"]
        context.close()


def test_the_depth_list_offers_auto_only_where_the_server_allows_its_deepest(browser: Browser) -> None:
    # auto searches up to 5 moves: a server whose deepest is 4 refuses it, and
    # the page offers the depths it may ask for, starting at the server's own.
    for limits, depth, offered, chosen in [(Limits(max_depth=4), 3, ["1", "2", "3", "4"], "3"),
                                           (Limits(max_depth=5), "auto", ["auto", "1", "2", "3", "4", "5"], "auto")]:
        with serving(create_app(SearchSettings(depth=depth), limits)) as base:
            context = browser.new_context()
            page = context.new_page()
            load(page, base)
            values = page.eval_on_selector_all('[data-testid="depth"] option', "options => options.map(o => o.value)")
            assert (values, page.input_value('[data-testid="depth"]')) == (offered, chosen), limits
            context.close()


def test_the_page_fits_a_phone(browser: Browser, server: str) -> None:
    context = browser.new_context(viewport={"width": 360, "height": 740}, has_touch=True, is_mobile=True)
    page = context.new_page()
    load(page, server)
    widths = page.evaluate("() => [document.documentElement.scrollWidth, window.innerWidth]")
    board = page.locator('[data-testid="board"]').bounding_box()
    assert widths[0] <= widths[1] and board is not None and 300 <= board["width"] <= 360
    context.close()


def test_a_game_from_a_set_position_downloads_as_a_given_start(page: Page, tmp_path: Path) -> None:
    set_board(page, "1024 1024 . . / . . . . / . . . . / . . . 2")
    page.keyboard.press("ArrowLeft")                      # makes 2048: won at move 1
    page.click('[data-action="keep-going"]')
    for key in ("ArrowDown", "ArrowRight", "ArrowUp") * 3:
        page.keyboard.press(key)
    with page.expect_download() as download:
        page.click('[data-action="download"]')
    path = tmp_path / "given.jsonl"
    download.value.save_as(path)
    start = json.loads(path.read_text().splitlines()[0])
    assert start["given"] is True and start["board"] == [1024, 1024] + [0] * 13 + [2]
    with path.open("rb") as stream:
        result = replay(read_lines(stream))
    assert result.won_at_move == 1 and result.spawns_follow_seed is True and result.board == cells(page)


def test_a_bad_api_body_gets_a_4xx_and_the_server_stays_up(page: Page) -> None:
    statuses = page.evaluate("""async () => {
        const headers = {"Content-Type": "application/json"};
        const bad = await fetch("/api/hint", {method: "POST", headers, body: "{\\"board\\": 12"});
        const huge = await fetch("/api/hint", {method: "POST", headers, body: "x".repeat(100000)});
        const good = await fetch("/api/hint", {method: "POST", headers, body: JSON.stringify(
            {board: [2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2], depth: 1})});
        return [bad.status, (await bad.json()).error, huge.status, good.status]; }""")
    assert statuses[0] == 400 and "not JSON" in statuses[1]
    assert statuses[2] == 413 and statuses[3] == 200


def test_tiles_to_131072_are_drawn_in_colours_of_their_own(page: Page) -> None:
    set_board(page, "2 4 8 16 / 32 64 128 256 / 512 1024 2048 4096 / 8192 16384 65536 131072")
    colours = page.eval_on_selector_all(".tiles .tile", "tiles => tiles.map(t => getComputedStyle(t).backgroundColor)")
    assert len(colours) == 16 and len(set(colours)) == 16


def test_screenshot_of_the_page(page: Page, tmp_path: Path) -> None:
    """The README's picture: a game in progress with a hint shown."""
    set_board(page, "2 8 32 1024 / . 4 64 2048 / . 2 16 4096 / . . 4 65536")
    page.select_option('[data-testid="depth"]', "3")
    page.click('[data-action="hint"]')
    page.wait_for_function("() => S2048.page.lastHint !== null")
    page.wait_for_timeout(400)  # the tiles' appearing animation
    path = Path(os.environ.get("SOLVE2048_SCREENSHOT") or tmp_path / "serve.png")
    page.screenshot(path=str(path), full_page=False, clip={"x": 0, "y": 0, "width": 900, "height": 1000})
    assert path.stat().st_size > 10_000
