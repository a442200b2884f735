"""`solve2048 play` on a real pseudo-terminal: watchable by default, full speed on a key."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import pexpect

from solve2048.record import replay


def spawn_play(*args: str) -> pexpect.spawn:
    # Without a look past crowded leaves: the short game the tests time.
    return pexpect.spawn(sys.executable, ["-m", "solve2048.cli", "play", "-d", "1", "-s", "1",
                                          "--quiescence", "off", "--no-tables", *args],
                         dimensions=(30, 100), encoding="utf-8", timeout=20)


def moves_shown(child: pexpect.spawn) -> int:
    child.expect(r"moves ([\d,]+) ")
    return int(child.match.group(1).replace(",", ""))


def test_on_a_terminal_a_game_is_paced_and_f_goes_full_speed() -> None:
    # Seed 1 at depth 1 is a game of 714 moves, over in a millisecond at full speed.
    child = spawn_play()
    child.expect("f: full speed · q: stop")
    time.sleep(1.0)
    assert child.isalive(), "a watched game must not be over in a second"
    assert moves_shown(child) < 60   # ten moves a second, give or take the start
    child.send("f")
    child.expect(r"game over: score [\d,]+ · max tile \d+ · 714 moves", timeout=20)
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0


def test_q_stops_a_watched_game_and_its_record_is_whole(tmp_path: Path) -> None:
    record = tmp_path / "game.jsonl"
    child = spawn_play("--record", str(record))
    child.expect("f: full speed")
    time.sleep(0.5)
    child.send("q")
    child.expect(r"interrupted: score [\d,]+ · max tile \d+ · ([\d,]+) moves")
    played = int(child.match.group(1).replace(",", ""))
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 130
    lines = record.read_text().splitlines()
    assert json.loads(lines[-1])["reason"] == "interrupted"
    assert replay(lines).moves == played > 0


def test_fast_and_quiet_run_at_full_speed_on_a_terminal() -> None:
    # Paced, these 714 moves would take 72 s: the game must end with no key
    # pressed, well within pexpect's timeout.
    for flag in ("--fast", "--quiet"):
        child = spawn_play(flag)
        child.expect(r"game over: score [\d,]+ · max tile \d+ · 714 moves")
        child.expect(pexpect.EOF)
        child.close()
        assert child.exitstatus == 0
