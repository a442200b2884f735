"""The real `solve2048 game` in a pseudo-terminal (pexpect), read through a VT100
emulator (pyte) so that assertions are about what a person sees."""

from __future__ import annotations

import json
import os
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path

import pexpect
import pyte
from helpers import ALMOST_LOST, ALMOST_WON

from solve2048 import Board
from solve2048.human_game import HumanGame

ROWS, COLS = 24, 80
# Arrow keys as the Linux console sends them (its terminfo is the TERM below).
UP, DOWN, RIGHT, LEFT = "\x1b[A", "\x1b[B", "\x1b[C", "\x1b[D"


class Terminal:
    def __init__(self, data_dir: Path, *args: str, size: tuple[int, int] = (ROWS, COLS),
                 term: str = "linux", ignore_hangup: bool = False) -> None:
        # TERM=linux: curses then scrolls with plain line feeds and repeats no
        # characters, both of which pyte follows (it lacks the SU and REP sequences).
        # Without LINES and COLUMNS, which curses would believe over the pty's
        # size (pytest-xdist's workers have them).
        env = {name: value for name, value in os.environ.items() if name not in ("LINES", "COLUMNS")}
        env.update(TERM=term, SOLVE2048_DATA_DIR=str(data_dir))
        self.screen = pyte.Screen(size[1], size[0])
        self.stream = pyte.ByteStream(self.screen)
        command = [sys.executable, "-m", "solve2048.cli", "game", *args]
        if ignore_hangup:  # as nohup does: the game is then not killed when the terminal goes
            command = ["/bin/sh", "-c", "trap '' HUP; exec " + shlex.join(command)]
        self.child = pexpect.spawn(command[0], command[1:], env=env, dimensions=size, timeout=10)

    def pump(self, seconds: float = 0.05) -> None:
        end = time.time() + seconds
        while time.time() < end:
            try:
                self.stream.feed(self.child.read_nonblocking(65536, timeout=0.02))
            except pexpect.TIMEOUT:
                pass
            except pexpect.EOF:
                return

    def text(self) -> str:
        return "\n".join(self.screen.display)

    def wait_for(self, needle: str, seconds: float = 10) -> str:
        end = time.time() + seconds
        while time.time() < end:
            self.pump()
            if needle in self.text():
                return self.text()
        raise AssertionError(f"{needle!r} never appeared on screen:\n{self.text()}")

    def send(self, keys: str) -> None:
        self.child.send(keys)

    def board(self) -> Board:
        cells = []
        for r in range(4):
            line = self.screen.display[3 + r * 3 + 1]
            for c in range(4):
                token = line[2 + c * 8 : 2 + c * 8 + 7].strip()
                cells.append(int(token) if token else 0)
        return Board.from_cells(cells)

    def wait_board(self, expected: Board, seconds: float = 10) -> None:
        end = time.time() + seconds
        while time.time() < end:
            self.pump()
            try:
                if self.board() == expected:
                    return
            except ValueError:
                pass
        raise AssertionError(f"board never became\n{expected}\nscreen:\n{self.text()}")

    def quit(self) -> None:
        self.send("q")
        self.child.expect(pexpect.EOF)
        self.child.close()
        assert self.child.exitstatus == 0


def save_board(data_dir: Path, text: str, seed: int = 1, score: int = 0, **fields) -> HumanGame:
    s = HumanGame.new(seed)
    s.board = Board.parse(text)
    s.score = score
    for name, value in fields.items():
        setattr(s, name, value)
    data_dir.mkdir(parents=True, exist_ok=True)
    (data_dir / "game.json").write_text(json.dumps(s.to_json()))
    return s


def test_moves_change_the_screen_as_the_rules_say(tmp_path: Path) -> None:
    term = Terminal(tmp_path, "--seed", "3")
    expected = HumanGame.new(3)
    term.wait_for("score 0")
    term.wait_board(expected.board)
    for key, move in ((LEFT, "left"), (UP, "up"), ("d", "right"), ("j", "down"), ("w", "up")):
        changed = expected.move(move)
        term.send(key)
        if changed:
            term.wait_board(expected.board)
            term.wait_for(f"score {expected.score:,} ")
        else:
            term.wait_for("does not move anything")
    term.quit()


def test_hint_appears(tmp_path: Path) -> None:
    term = Terminal(tmp_path, "--seed", "5")
    term.wait_for("score 0")
    term.send("h")
    screen = term.wait_for("hint: ")
    line = next(row for row in screen.splitlines() if "hint: " in row)
    assert any(f"hint: {m} " in line for m in ("up", "down", "left", "right"))
    term.quit()


def test_hint_from_an_endgame_table(tmp_path: Path) -> None:
    from solve2048.tables import TableSpec
    from solve2048.tables_build import build_all

    build_all(tmp_path / "tables", (TableSpec(9, 5, 1),))
    # A 3x3 block down to the anchor 32; left merges 16 16 onto the cell below it.
    save_board(tmp_path, "2048 1024 512 . / 1024 512 256 . / 256 128 32 . / 2 4 16 16")
    term = Terminal(tmp_path, "--tables-dir", str(tmp_path / "tables"))
    term.wait_for("welcome back")
    term.send("h")
    term.wait_for("hint: left (endgame table: 100% to build 32)")
    term.quit()


def test_win_banner_once_and_continue(tmp_path: Path) -> None:
    save_board(tmp_path, ALMOST_WON)
    term = Terminal(tmp_path)
    term.wait_for("welcome back")
    term.send(LEFT)
    term.wait_for("You made 2048! c: continue")
    term.send(DOWN)  # moves are held while the banner asks
    time.sleep(0.2)
    assert "You made 2048!" in term.wait_for("You made 2048!")
    term.send("c")
    term.wait_for("playing on")
    for key in (RIGHT, DOWN, LEFT, UP):
        term.send(key)
        term.pump(0.1)
        assert "You made 2048!" not in term.text()
    term.quit()


def test_game_over_then_new_game_keeps_best_score(tmp_path: Path) -> None:
    save_board(tmp_path, ALMOST_LOST, score=5000)
    term = Terminal(tmp_path)
    term.wait_for("welcome back")
    term.send(LEFT)
    term.wait_for("Game over: final score 5,032")
    term.send("n")
    term.wait_for("new game, seed")
    term.wait_for("score 0   best 5,032")
    term.quit()
    assert json.loads((tmp_path / "best.json").read_text()) == {"best_score": 5032}


def test_new_game_asks_to_confirm_when_a_game_is_in_progress(tmp_path: Path) -> None:
    term = Terminal(tmp_path, "--seed", "9")
    term.wait_for("score 0")
    for key in (LEFT, UP, RIGHT, DOWN):
        term.send(key)
    term.pump(0.3)
    term.send("n")
    term.wait_for("Start a new game? This one will be lost. y/n")
    term.send("n")  # no
    term.pump(0.2)
    assert "Start a new game?" not in term.text() and "moves 0" not in term.text()
    term.quit()


def test_save_and_restore_across_restarts(tmp_path: Path) -> None:
    term = Terminal(tmp_path, "--seed", "4")
    expected = HumanGame.new(4)
    term.wait_for("score 0")
    for key, move in ((LEFT, "left"), (UP, "up"), (LEFT, "left"), (UP, "up"), (RIGHT, "right")):
        expected.move(move)
        term.send(key)
    term.wait_board(expected.board)
    term.wait_for(f"score {expected.score:,}   best {expected.score:,}   moves {expected.moves}")
    term.quit()
    again = Terminal(tmp_path, "--seed", "99")  # a saved game wins over --seed
    again.wait_for("welcome back")
    again.wait_board(expected.board)
    again.wait_for(f"score {expected.score:,}   best {expected.score:,}   moves {expected.moves}")
    again.quit()


def test_corrupt_save_is_reported_and_set_aside(tmp_path: Path) -> None:
    tmp_path.mkdir(exist_ok=True)
    (tmp_path / "game.json").write_text("\x00garbage{")
    term = Terminal(tmp_path, "--seed", "2")
    term.wait_for("unreadable save")
    term.wait_board(HumanGame.new(2).board)
    term.quit()
    assert list(tmp_path.glob("game.json.corrupt-*"))


def test_autoplay_runs_and_any_key_stops_it(tmp_path: Path) -> None:
    term = Terminal(tmp_path, "--seed", "6")
    term.wait_for("score 0")
    term.send("a")
    term.wait_for("autoplay: the solver is playing")
    term.wait_for("moves 1")  # the solver moves on its own...
    term.pump(0.5)
    moved = int(term.screen.display[1].split("moves ")[1].split()[0].replace(",", ""))
    assert moved >= 5
    term.send("x")
    term.pump(0.5)
    assert "autoplay: the solver is playing" not in term.text()
    stopped_at = term.screen.display[1]
    term.pump(0.5)
    assert term.screen.display[1] == stopped_at  # no more moves
    term.quit()


def test_window_too_small_says_how_large(tmp_path: Path) -> None:
    term = Terminal(tmp_path, "--seed", "1", size=(12, 30))
    term.wait_for("window too small: need")
    term.child.setwinsize(ROWS, COLS)
    term.screen.resize(ROWS, COLS)
    term.wait_for("score 0")
    term.quit()


# ---- what must never crash the game ---------------------------------------------------

GAME = [sys.executable, "-m", "solve2048.cli", "game"]
NO_TERMINAL = "solve2048: error: the game needs a terminal: "
# Two 32768s side by side (left and right make 65536), and a full board on
# which those merges are the only moves left.
TWO_MAXED = "32768 32768 . . / . . . . / . . . . / . . . 2"
ONLY_MERGE_LEFT = "32768 32768 2 4 / 4 2 4 2 / 2 4 2 4 / 4 2 4 2"


def corrupt_save(data_dir: Path) -> bytes:
    """A save the game would set aside on reading it: proof that it was not read."""
    data_dir.mkdir(parents=True, exist_ok=True)
    (data_dir / "game.json").write_bytes(b"{not json")
    return b"{not json"


def assert_save_untouched(data_dir: Path, content: bytes) -> None:
    assert sorted(p.name for p in data_dir.iterdir()) == ["game.json"]
    assert (data_dir / "game.json").read_bytes() == content


def run_in_pty(env: dict[str, str]) -> tuple[int, str]:
    """The game with stdin and stdout on a pseudo-terminal: its exit code and
    everything it wrote there (stderr included)."""
    child = pexpect.spawn(GAME[0], GAME[1:], env=env, dimensions=(ROWS, COLS), timeout=10)
    child.expect(pexpect.EOF)
    child.close()
    return child.exitstatus, child.before.decode("utf-8", "replace")


def test_no_terminal_is_one_line_and_leaves_the_save_alone(tmp_path: Path) -> None:
    content = corrupt_save(tmp_path)
    env = {**os.environ, "TERM": "linux", "SOLVE2048_DATA_DIR": str(tmp_path)}
    cases = {"stdin piped": {"input": b"\n"},
             "stdin closed": {"stdin": subprocess.DEVNULL, "preexec_fn": lambda: os.close(0)},
             "stdin from /dev/null": {"stdin": subprocess.DEVNULL}}
    for name, how in cases.items():
        done = subprocess.run(GAME, check=False, env=env, capture_output=True, timeout=30, **how)
        assert (done.returncode, done.stdout, done.stderr.decode()) == (
            2, b"", NO_TERMINAL + "standard input is not a terminal\n"), name
    # stdin a terminal, stdout a pipe (solve2048 game > file)
    master, slave = os.openpty()
    try:
        done = subprocess.run(GAME, check=False, env=env, stdin=slave, capture_output=True,
                              timeout=30)
    finally:
        os.close(master)
        os.close(slave)
    assert (done.returncode, done.stdout, done.stderr.decode()) == (
        2, b"", NO_TERMINAL + "standard output is not a terminal\n")
    assert_save_untouched(tmp_path, content)


def test_unusable_term_is_one_line_with_nothing_drawn(tmp_path: Path) -> None:
    content = corrupt_save(tmp_path)
    base = {k: v for k, v in os.environ.items() if k != "TERM"}
    base["SOLVE2048_DATA_DIR"] = str(tmp_path)
    cases = {None: "TERM is not set", "": "TERM is not set",
             "dumb": "TERM=dumb cannot move the cursor",
             "nosuchterm": "TERM=nosuchterm is not known to terminfo"}
    for term, why in cases.items():
        env = base if term is None else {**base, "TERM": term}
        code, output = run_in_pty(env)
        # Exactly the line: no escape sequence of a curses set-up before it.
        assert (code, output) == (2, NO_TERMINAL + why + "\r\n"), term
    assert_save_untouched(tmp_path, content)


def test_a_terminal_that_cannot_hide_its_cursor_still_plays(tmp_path: Path) -> None:
    term = Terminal(tmp_path, "--seed", "3", term="vt100")
    term.wait_for("score 0")
    term.wait_board(HumanGame.new(3).board)
    term.quit()


def test_two_32768s_merge_into_65536_on_screen_and_across_a_restart(tmp_path: Path) -> None:
    save_board(tmp_path, TWO_MAXED, won=True, win_shown=True)
    term = Terminal(tmp_path)
    term.wait_for("welcome back")
    term.send(LEFT)
    term.wait_for("score 65,536")
    assert term.board().max_tile == 65536 and term.child.isalive()
    after = term.board()
    term.quit()
    term = Terminal(tmp_path)  # the save holds 65536 now
    term.wait_for("welcome back")
    assert term.board() == after and "65536" in term.text()
    term.quit()


def test_hint_and_autoplay_beside_two_32768s(tmp_path: Path) -> None:
    save_board(tmp_path, TWO_MAXED, won=True, win_shown=True)
    term = Terminal(tmp_path)
    term.wait_for("welcome back")
    term.send("h")
    line = next(r for r in term.wait_for("hint: ").splitlines() if "hint: " in r)
    assert "illegal" not in line  # every direction can be played here
    term.send("a")
    wait_until(term, lambda: moves_shown(term) >= 5, "5 moves of autoplay")
    term.send("x")
    term.pump(0.3)
    assert "autoplay: the solver" not in term.text()
    term.quit()


def moves_shown(term: Terminal) -> int:
    """The move count on screen, -1 while the line is not (yet) drawn."""
    try:
        return int(term.screen.display[1].split("moves ")[1].split()[0].replace(",", ""))
    except (IndexError, ValueError):
        return -1


def wait_until(term: Terminal, check, what: str, seconds: float = 10) -> None:
    """Waits for a screen that ``check`` accepts: autoplay moves too fast for
    wait_for to catch one exact count."""
    end = time.time() + seconds
    while time.time() < end:
        term.pump()
        if check():
            return
    raise AssertionError(f"never saw {what}:\n{term.text()}")


def test_a_full_board_whose_only_moves_make_65536_plays_on(tmp_path: Path) -> None:
    save_board(tmp_path, ONLY_MERGE_LEFT, score=400_000, won=True, win_shown=True)
    term = Terminal(tmp_path)
    term.wait_for("welcome back")
    assert "Game over" not in term.text()
    term.send(LEFT)
    term.wait_for("score 465,536")
    assert term.board().max_tile == 65536
    term.quit()


def test_keys_outside_ascii_and_function_keys_are_ignored(tmp_path: Path) -> None:
    term = Terminal(tmp_path, "--seed", "3")
    expected = HumanGame.new(3)
    term.wait_for("score 0")
    term.send("é€😀\x00\x7f\x1b[15~\x1bOP\x1b[Z\x1b")
    term.pump(0.5)
    assert term.child.isalive() and term.board() == expected.board
    for key, move in ((LEFT, "left"), (UP, "up"), (RIGHT, "right")):
        if expected.move(move):
            term.send(key)
            term.wait_board(expected.board)
    term.quit()


def test_resizing_while_autoplay_runs(tmp_path: Path) -> None:
    term = Terminal(tmp_path, "--seed", "6")
    term.wait_for("score 0")
    term.send("a")
    term.wait_for("autoplay: the solver is playing")
    for rows, cols in ((10, 20), (ROWS, COLS), (3, 3), (40, 120), (ROWS, COLS)):
        term.child.setwinsize(rows, cols)
        term.screen.resize(rows, cols)
        term.pump(0.2)
    assert term.child.isalive()
    # Still drawing at the last size: the solver plays on (or has stopped at the
    # win banner, if it got there meanwhile).
    before = moves_shown(term)
    wait_until(term, lambda: moves_shown(term) > before or "You made 2048!" in term.text(),
               "a move after the resizes")
    term.send("x")
    term.pump(0.3)
    assert "autoplay: the solver is playing" not in term.text()
    term.quit()


def test_a_save_that_cannot_be_written_is_said_and_play_goes_on(tmp_path: Path) -> None:
    blocker = tmp_path / "a file"
    blocker.write_text("")
    term = Terminal(blocker / "data", "--seed", "4")  # its folder cannot be made
    expected = HumanGame.new(4)
    term.wait_for("new game, seed 4")  # a new game is first saved after its first move
    for key, move in ((LEFT, "left"), (UP, "up"), (RIGHT, "right"), (DOWN, "down")):
        if expected.move(move):
            term.send(key)
            term.wait_board(expected.board)
            term.wait_for("could not save the game")
    term.quit()


def test_a_save_with_huge_numbers_is_set_aside(tmp_path: Path) -> None:
    tmp_path.mkdir(exist_ok=True)
    good = HumanGame.new(1).to_json()
    (tmp_path / "game.json").write_text(json.dumps({**good, "score": 10**40}))
    (tmp_path / "best.json").write_text('{"best_score": 1' + "0" * 5000 + "}")
    term = Terminal(tmp_path, "--seed", "2")
    term.wait_for("unreadable save")
    term.wait_board(HumanGame.new(2).board)
    term.wait_for("score 0   best 0")
    term.quit()
    assert len(list(tmp_path.glob("*.corrupt-*"))) == 2


def test_a_hung_up_terminal_ends_the_game_even_with_sighup_ignored(tmp_path: Path) -> None:
    term = Terminal(tmp_path, "--seed", "3", ignore_hangup=True)
    expected = HumanGame.new(3)
    term.wait_for("score 0")
    move = next(m for m in ("left", "up", "right", "down") if expected.move(m))
    term.send({"left": LEFT, "up": UP, "right": RIGHT, "down": DOWN}[move])
    term.wait_board(expected.board)
    # Closing our side hangs the terminal up: reads then fail at once, for ever.
    term.child.ptyproc.fileobj.close()
    end = time.time() + 10
    while term.child.ptyproc.isalive() and time.time() < end:
        time.sleep(0.05)
    spinning = term.child.ptyproc.isalive()
    if spinning:
        term.child.ptyproc.kill(signal.SIGKILL)  # not left behind to burn a core
    assert not spinning, "the game spins on a terminal that is gone"
    assert term.child.ptyproc.exitstatus == 0
    saved = json.loads((tmp_path / "game.json").read_text())
    assert saved["moves"] == 1 and saved["board"] == list(expected.board.cells)


def test_the_game_is_recorded_as_it_is_played_and_across_a_restart(tmp_path: Path) -> None:
    from solve2048.record import read_lines, replay

    expected = HumanGame.new(8)
    term = Terminal(tmp_path, "--seed", "8")
    term.wait_for("score 0")
    for key, move in ((LEFT, "left"), (UP, "up"), (RIGHT, "right"), (DOWN, "down")):
        expected.move(move)
        term.send(key)
    term.wait_for(f"moves {expected.moves}")
    term.quit()
    again = Terminal(tmp_path)
    again.wait_for("welcome back")
    for key, move in ((LEFT, "left"), (UP, "up")):
        expected.move(move)
        again.send(key)
    again.wait_for(f"moves {expected.moves}")
    again.quit()
    [path] = (tmp_path / "games").iterdir()
    with open(path, "rb") as stream:
        result = replay(read_lines(stream))
    assert (result.moves, result.score, result.board) == (expected.moves, expected.score, list(expected.board.cells))
    assert result.seed == 8 and result.spawns_follow_seed is True and result.reason is None  # still in progress


def test_a_lost_game_and_a_game_left_for_a_new_one_end_their_records(tmp_path: Path) -> None:
    from solve2048.record import read_lines, replay

    save_board(tmp_path, ALMOST_LOST, seed=3)   # a board the seed did not deal: recorded as given
    term = Terminal(tmp_path)
    term.wait_for("welcome back")
    term.send(LEFT)
    term.wait_for("Game over")
    term.send("n")
    term.wait_for("new game, seed")
    term.send(LEFT + UP + RIGHT + DOWN)
    term.wait_for("moves ")
    term.send("n")
    term.wait_for("Start a new game?")
    term.send("y")
    term.wait_for("new game, seed")
    term.quit()
    results = []
    for path in sorted((tmp_path / "games").iterdir()):
        with open(path, "rb") as stream:
            results.append((json.loads(path.read_text().splitlines()[0]), replay(read_lines(stream))))
    # Named by time and seed: both may be of the same second, so told apart by how they end.
    (lost_start, lost), (_, left) = sorted(results, key=lambda found: found[1].reason != "game_over")
    assert lost_start["given"] is True and lost_start["seed"] is None
    assert (lost.moves, lost.reason, lost.game_over) == (1, "game_over", True)
    assert left.reason == "interrupted" and left.moves >= 1 and left.spawns_follow_seed is True
