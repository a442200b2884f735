"""``solve2048 game``: the full game of the rulebook in the terminal (curses),
with the solver at hand for a hint or to play on its own."""

from __future__ import annotations

import os
import secrets
import termios
import textwrap
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

import click

try:
    import curses
except ImportError:  # Windows without the windows-curses package
    curses = None  # type: ignore[assignment]

from solve2048.cli.params import SEED, InputError, open_tables, table_options, threads_option
from solve2048.cli.render import table_odds
from solve2048.decide import Decision, decide
from solve2048.human_game import HumanGame, HumanRecord
from solve2048.moves import Move
from solve2048.saves import SaveStore
from solve2048.settings import SearchSettings

CELL_W, CELL_H = 8, 3
BOARD_W, BOARD_H = 4 * CELL_W, 4 * CELL_H
MIN_W, MIN_H = BOARD_W + 4, BOARD_H + 7
STATUS_LINES = 2  # the status may wrap onto the last line of the smallest window
HINT_TIME_MS = 300  # iterative deepening keeps a hint under a third of a second
RECORDS = "games"   # the folder of the games' records, beside the saves

# 'a' is autoplay and 'h' the hint, as the rulebook's keys say; left is the arrow key.
LETTER_MOVES = {"w": Move.UP, "s": Move.DOWN, "d": Move.RIGHT,
                "k": Move.UP, "j": Move.DOWN, "l": Move.RIGHT}
HELP = "arrows/wsd/jkl move · h hint · a autoplay · n new · q quit"

# Tile colours of the original game (256-colour terminals): (background, foreground).
# Past 2048 the original's tiles go dark; here each step of the ladder to 131072
# is a darker grey, and the last two, which a game rarely makes, turn gold on black.
PALETTE = {0: (250, 250), 2: (255, 238), 4: (230, 238), 8: (216, 255), 16: (209, 255),
           32: (203, 255), 64: (196, 255), 128: (229, 238), 256: (228, 238), 512: (227, 238),
           1024: (226, 238), 2048: (220, 238), 4096: (239, 255), 8192: (238, 255),
           16384: (237, 255), 32768: (236, 255), 65536: (234, 220), 131072: (232, 220)}
# The 8-colour fallback, by curses colour number (white 7, yellow 3, red 1, magenta 5,
# green 2, cyan 6, blue 4, black 0).
BASIC = {0: 7, 2: 7, 4: 3, 8: 1, 16: 1, 32: 5, 64: 5, 128: 3, 256: 3, 512: 2, 1024: 2, 2048: 6,
         4096: 4, 8192: 4, 16384: 4, 32768: 4, 65536: 0, 131072: 0}


def move_keys() -> dict[int, Move]:
    """Key codes that move: the arrows and the letters above."""
    keys = {curses.KEY_UP: Move.UP, curses.KEY_DOWN: Move.DOWN,
            curses.KEY_LEFT: Move.LEFT, curses.KEY_RIGHT: Move.RIGHT}
    keys.update({ord(k): m for k, m in LETTER_MOVES.items()})
    return keys


class GameScreen:
    """Draws a HumanGame and turns keys into its actions."""

    def __init__(self, screen: curses.window, store: SaveStore, session: HumanGame, message: str = "",
                 settings: SearchSettings | None = None) -> None:
        self.screen = screen
        self.settings = settings or SearchSettings()
        self.store = store
        self.session = session
        self.message = message
        self.autoplay = False
        self.confirm_new = False
        self.quit = False
        self.move_keys = move_keys()
        self.colours = self._init_colours()
        self.records = store.folder / RECORDS
        self.recorder: HumanRecord | None = None  # opened at the game's first move of this run

    # ---- drawing -----------------------------------------------------------------------

    def _init_colours(self) -> dict[int, int]:
        pairs: dict[int, int] = {}
        try:
            curses.start_color()
            curses.use_default_colors()
        except curses.error:
            return pairs
        rich = curses.COLORS >= 256
        for index, tile in enumerate(PALETTE, start=1):
            bg, fg = PALETTE[tile] if rich else (BASIC[tile], 0)
            try:
                curses.init_pair(index, fg, bg)
                pairs[tile] = index
            except (curses.error, ValueError):  # ValueError: a colour or pair the terminal lacks
                pass
        return pairs

    def _tile_attr(self, value: int) -> int:
        pair = self.colours.get(value if value in PALETTE else 2048)
        attr = curses.color_pair(pair) if pair else curses.A_REVERSE if value else 0
        return attr | (curses.A_BOLD if value else 0)

    def draw(self) -> None:
        s = self.screen
        s.erase()
        height, width = s.getmaxyx()
        if width < MIN_W or height < MIN_H:
            self._put(0, 0, f"window too small: need {MIN_W}x{MIN_H}, have {width}x{height}")
            s.refresh()
            return
        g = self.session
        self._put(0, 1, "solve2048", curses.A_BOLD)
        self._put(1, 1, f"score {g.score:,}   best {g.best_score:,}   moves {g.moves:,}"[: width - 2])
        for r, row in enumerate(g.board.rows):
            for c, value in enumerate(row):
                attr = self._tile_attr(value)
                y, x = 3 + r * CELL_H, 2 + c * CELL_W
                for line in range(CELL_H):
                    text = (str(value) if value and line == CELL_H // 2 else "").center(CELL_W - 1)
                    self._put(y + line, x, text, attr)
        y = 4 + BOARD_H
        self._put(y, 1, HELP[: width - 2], curses.A_DIM)
        status = textwrap.wrap(self.status(), width - 2, max_lines=STATUS_LINES, placeholder="…")
        for line, text in enumerate(status, start=1):
            self._put(y + line, 1, text, curses.A_BOLD)
        s.refresh()

    def _put(self, y: int, x: int, text: str, attr: int = 0) -> None:
        with suppress(curses.error):  # the bottom-right cell cannot be written; nothing else is lost
            self.screen.addstr(y, x, text, attr)

    def status(self) -> str:
        g = self.session
        if g.show_win_banner:
            return "You made 2048! c: continue · n: new game"
        if g.over:
            return f"Game over: final score {g.score:,}. n: new game · q: quit"
        if self.confirm_new:
            return "Start a new game? This one will be lost. y/n"
        if self.autoplay:
            return "autoplay: the solver is playing (any key stops it)"
        return self.message

    # ---- actions ----------------------------------------------------------------------

    def play(self, move: Move) -> bool:
        """Plays a move; False when the game holds moves or refuses this one (the
        status line says why)."""
        if self.session.over or self.session.show_win_banner:
            return False
        if self.session.blocked(move) is not None:
            self.message = f"{move}: {self.session.blocked(move)}"
            return False
        self.message = ""
        recorder = self._open_record()  # before the move: the record's last board is the one it is played on
        self.session.move(move)
        step = self.session.last_step
        if recorder is not None and step is not None:
            self._write_record(lambda r: r.move(step))
            # The board, not session.over: mypy holds that False from the check above.
            if self.session.board.is_game_over() and self.recorder is not None:
                self._end_record("game_over")
        self.save()
        return True

    # ---- the record -------------------------------------------------------------------

    def _open_record(self) -> HumanRecord | None:
        """This game's record, opened: going on with the one the save names or
        beginning one. One that cannot be written is said, and play goes on (None)."""
        if self.recorder is None:
            try:
                self.recorder = HumanRecord.open(self.records, self.session)
            except OSError as error:
                self._record_failed(error)
        return self.recorder

    def _write_record(self, write: Callable[[HumanRecord], None]) -> None:
        assert self.recorder is not None
        try:
            write(self.recorder)
        except OSError as error:
            self._record_failed(error)

    def _end_record(self, reason: str) -> None:
        """Ends the game's record (game over, or left for a new game) and closes it."""
        self._write_record(lambda r: r.end(reason))
        self.recorder = None

    def _record_failed(self, error: OSError) -> None:
        """A record that cannot be written stops: a line missing in the middle would
        make it no legal game. The next move begins a new one from its board."""
        if self.recorder is not None:
            with suppress(OSError):
                self.recorder.close()
        self.recorder = None
        self.session.record = None
        where = f": {error.filename}" if error.filename else ""
        self.message = f"could not write the game's record: {error.strerror or error}{where}"
        self.autoplay = False

    def close_record(self) -> Path | None:
        """Closes the record (the game goes on at the next start) and returns its path, if any."""
        if self.recorder is not None:
            with suppress(OSError):
                self.recorder.close()
            self.recorder = None
        path = self.records / self.session.record if self.session.record else None
        return path if path is not None and path.is_file() else None

    def save(self) -> None:
        """Saves the game. A save that fails (disk full, folder read-only) is
        said on the status line and play goes on: the next move tries again.
        Autoplay stops, so that the message is seen."""
        try:
            self.store.save(self.session)
        except OSError as error:
            where = f": {error.filename}" if error.filename else ""
            self.message = f"could not save the game: {error.strerror or error}{where}"
            self.autoplay = False

    def choose(self, settings: SearchSettings, values: bool) -> Decision:
        """The solver's move for the board: what decide says."""
        return decide(self.session.board, settings, values=values)

    def hint(self) -> None:
        if self.session.over:
            return
        # A hint searches as deep as a third of a second allows, whatever the board.
        decision = self.choose(self.settings.replace(depth="auto", time_ms=HINT_TIME_MS, danger=None), values=False)
        table, result = decision.table, decision.analysis
        if decision.from_table and table is not None:
            self.message = (f"hint: {decision.move} (endgame table: {table_odds(table.probability, 0)} "
                            f"to {table.spec.goal_text})")
            return
        if result is None or result.best is None:
            self.message = "hint: no legal move"
            return
        best = result.values[result.best]
        assert best is not None  # the best move is a legal one, so it has a value
        others = ", ".join(self._hint_other(m, v, best) for m, v in result.ranked()[1:])
        self.message = f"hint: {result.best} (depth {result.depth}; {others})"

    def _hint_other(self, move: Move, value: float | None, best: float) -> str:
        """A move the hint did not choose: how far behind, or that it cannot be played."""
        return f"{move} {value - best:+,.0f}" if value is not None else f"{move} illegal"

    def new_game(self, seed: int | None = None) -> None:
        if self.session.in_progress and self.session.record is not None:
            if self._open_record() is not None:  # the one the save names, if it is still this game's
                self._end_record("interrupted")
        elif self.recorder is not None:
            self.close_record()
        self.session = HumanGame.new(seed if seed is not None else secrets.randbelow(1 << 32),
                                   self.session.best_score)
        self.confirm_new = False
        self.message = f"new game, seed {self.session.seed}"
        self.save()

    def autoplay_step(self) -> None:
        """One move of autoplay; autoplay stops when the game is over, the win
        banner asks, or a move is refused (so that it can never spin on one)."""
        if self.session.over or self.session.show_win_banner:
            self.autoplay = False
            return
        move = self.choose(self.settings, values=False).move
        if move is None or not self.play(move):
            self.autoplay = False

    def key(self, key: int) -> None:
        """Handles one key press."""
        if self.autoplay:
            self.autoplay = False
            return
        g = self.session
        if self.confirm_new:
            if key in (ord("y"), ord("Y")):
                self.new_game()
            else:
                self.confirm_new = False
            return
        if key in (ord("q"), ord("Q")):
            self.quit = True
        elif g.show_win_banner:
            if key in (ord("c"), ord("C")):
                g.acknowledge_win()
                self.message = "playing on: aim for 4096"
                self.save()
            elif key in (ord("n"), ord("N")):
                self.new_game()
        elif key in (ord("n"), ord("N")):
            if g.in_progress:
                self.confirm_new = True
            else:
                self.new_game()
        elif key in (ord("h"), ord("?")):
            self.hint()
        elif key == ord("a"):
            self.autoplay = not g.over
        elif key in self.move_keys:
            self.play(self.move_keys[key])

    def run(self) -> None:
        with suppress(curses.error):  # a terminal that cannot hide its cursor (vt100, ansi) plays with it shown
            curses.curs_set(0)
        self.screen.keypad(True)
        while not self.quit:
            self.draw()
            self.screen.timeout(0 if self.autoplay else -1)
            key = self.screen.getch()
            if key == curses.KEY_RESIZE:
                continue
            if key == -1:
                if self.autoplay:
                    self.autoplay_step()
                elif terminal_gone():
                    self.quit = True  # every move is saved already
                continue
            self.key(key)


def terminal_gone() -> bool:
    """True once the terminal has hung up. A blocking getch then returns -1 at
    once, for ever, and with SIGHUP ignored (nohup) the game would spin on it.
    (A -1 after a signal, such as a resume from Ctrl-Z, leaves the terminal there.)"""
    try:
        termios.tcgetattr(0)
    except termios.error:
        return True
    return False


def terminal_problem() -> str | None:
    """Why curses cannot run the game here, or None. Asked before the save is
    read, so that a game that cannot start changes nothing; and before curses
    starts, which would write its set-up to a screen it then cannot use."""
    if not os.isatty(0):
        return "standard input is not a terminal"
    if not os.isatty(1):
        return "standard output is not a terminal"
    term = os.environ.get("TERM", "")
    if not term:
        return "TERM is not set"
    shown = term if len(term) <= 40 else term[:40] + "…"  # the error stays one short line
    try:
        curses.setupterm(term, 1)  # curses.initscr would raise the same (it calls setupterm)
    except curses.error:
        return f"TERM={shown} is not known to terminfo"
    if not curses.tigetstr("cup"):
        return f"TERM={shown} cannot move the cursor"
    return None


@contextmanager
def terminal_screen() -> Iterator[curses.window]:
    """curses.wrapper's set-up and tear-down, but a set-up that fails is an
    InputError, and every tear-down step runs even when one before it fails
    (curses.wrapper then skips endwin and leaves the terminal unusable)."""
    screen = None
    try:
        try:
            screen = curses.initscr()
            curses.noecho()
            curses.cbreak()
            screen.keypad(True)
        except curses.error as error:
            raise InputError(f"the game needs a terminal: {error}") from None
        yield screen
    finally:
        if screen is not None:
            restore_terminal(screen)


def restore_terminal(screen: curses.window) -> None:
    """Undoes terminal_screen's set-up, each step on its own."""
    steps: tuple[Callable[[], object], ...] = (lambda: screen.keypad(False), curses.echo, curses.nocbreak,
                                               curses.endwin)
    for step in steps:
        with suppress(curses.error):  # the next steps still run: endwin above all
            step()


def start_session(store: SaveStore, seed: int | None) -> tuple[HumanGame, str]:
    """The saved game if there is one, else a new game; and a message to show."""
    best, warning_best = store.load_best()
    session, warning_game = store.load_game(best)
    warnings = "; ".join(w for w in (warning_best, warning_game) if w)
    if session is not None:
        return session, warnings or "welcome back: your game is restored"
    session = HumanGame.new(seed if seed is not None else secrets.randbelow(1 << 32), best)
    return session, warnings or f"new game, seed {session.seed}"


@click.command()
@click.option("-s", "--seed", type=SEED, default=None,
              help="Seed of a new game (a saved game in progress is restored instead).")
@table_options
@threads_option
def game(seed: int | None, no_tables: bool, tables_dir: Path | None, table_min_prob: float, threads: int) -> None:
    """Play 2048 in the terminal, with the solver's hint (h) and autoplay (a).

    The game is saved after every move and restored on the next start; the best
    score is kept. Saves live in the user data directory ($SOLVE2048_DATA_DIR to
    choose another). Every game is also recorded as it is played, one record file
    per game in its games folder (the path is printed on quitting), for
    `solve2048 replay` and `solve2048 review`.
    """
    if curses is None:
        raise click.ClickException("the game needs curses; on Windows: pip install windows-curses")
    problem = terminal_problem()
    if problem:
        raise InputError(f"the game needs a terminal: {problem}")
    # Tables before the save: a bad table option then leaves the save as it was.
    settings = SearchSettings(tables=open_tables(no_tables, tables_dir, table_min_prob), threads=threads)
    store = SaveStore()
    session, message = start_session(store, seed)
    with terminal_screen() as screen:
        view = GameScreen(screen, store, session, message, settings)
        try:
            view.run()
        finally:
            record = view.close_record()
    if record is not None and not terminal_gone():  # after the screen is gone, so that it stays on the terminal
        with suppress(OSError):  # a terminal hung up meanwhile: the record is written, the line is a courtesy
            click.echo(f"this game's record: {record} (solve2048 review {record})", err=True)
