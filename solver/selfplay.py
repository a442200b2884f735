"""Whole games played by the solver, in C, advanced in chunks of moves.

Every random choice comes from the seeded generator of ``solve2048.rng``
(xoshiro256** seeded by SplitMix64): the same seed and settings give the same
game, move for move, on any machine. A time-limited search (``time_ms``) is the
exception: how deep it gets depends on the machine, so its games do not repeat.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from solve2048 import engine
from solve2048.board import Board
from solve2048.engine import engine_prune, ffi, lib
from solve2048.errors import InvalidArgumentError
from solve2048.moves import Move
from solve2048.rng import MAX_SEED
from solve2048.settings import Depth, SearchSettings
from solve2048.tables import TableMove

CHUNK = 4096
# The tiles a game can stop at (Game's stop_at): 2 up to the ladder's top, 131072.
STOP_TILES = tuple(1 << rank for rank in range(1, 18))


@dataclass(frozen=True, slots=True)
class Step:
    """One move of a game: the direction, its points, the tile that spawned after it."""

    move: Move
    gain: int
    spawn_cell: int
    spawn_value: int
    board: Board  # after the spawn
    depth: int    # the depth the move was searched to, 0 for a table move
    from_table: bool = False  # an endgame table chose the move


@dataclass(frozen=True)
class GameState:
    """What a stopped game needs to be played on, beside what its result
    says (board, score, moves and counts): the generator's state, and the
    last covering table's answer. A game resumed from it spawns and plays
    exactly as the stopped game would have gone on (``Game(resume=...)``)."""

    rng: tuple[int, int, int, int]  # xoshiro256**'s four words
    probe: tuple[int, int, int, int, bool] | None = None  # the last answer's dir, shape, frozen, goal, trusted

    def to_json(self) -> dict[str, Any]:
        return {"rng": "".join(f"{word:016x}" for word in self.rng),
                "probe": list(self.probe) if self.probe is not None else None}

    @classmethod
    def from_json(cls, data: Any) -> GameState:
        """The state a results line recorded; raises InvalidArgumentError on anything else."""
        if not isinstance(data, dict) or set(data) != {"rng", "probe"}:
            raise InvalidArgumentError("expected a game state of rng and probe")
        rng, probe = data["rng"], data["probe"]
        if not isinstance(rng, str) or len(rng) != 64 or any(c not in "0123456789abcdef" for c in rng):
            raise InvalidArgumentError("expected the generator's state as 64 hex digits")
        words = tuple(int(rng[i:i + 16], 16) for i in range(0, 64, 16))
        if not any(words):  # xoshiro's one state it never reaches
            raise InvalidArgumentError("the generator's state is all zeros")
        if probe is not None and not (isinstance(probe, list) and len(probe) == 5
                                      and all(isinstance(v, int) for v in probe)
                                      and 0 <= probe[0] <= 3 and 0 <= probe[1] <= 3 and 0 <= probe[2] <= 16
                                      and 0 <= probe[3] <= 17 and isinstance(probe[4], bool)):
            raise InvalidArgumentError("expected the last table answer as [dir, shape, frozen, goal, trusted]")
        return cls(words, tuple(probe) if probe is not None else None)  # type: ignore[arg-type]


@dataclass(frozen=True)
class GameResult:
    seed: int
    depth: Depth
    score: int
    max_tile: int
    moves: int
    won: bool
    won_at_move: int | None
    seconds: float
    final_board: Board
    table_moves: int = 0  # moves taken from the endgame tables
    time_ms: float | None = None  # a time per move; ``depth`` is then a cap, "auto" none
    uncovered_moves: int = 0  # moves played on a board no endgame table covered
    last_covered: int = 0     # the last move (1-based) whose board a table covered; 0 = none
    last_probability: float | None = None  # that table's success probability there
    last_table: str | None = None  # that table's label (TableSpec.label), e.g. "chain-10:512"
    last_trusted: bool | None = None  # whether its answer was trusted there, and so played
    stretch_start: int = 0    # the first move of the run of covered moves ending at last_covered; 0 = none
    stretch_probability: float | None = None  # the covering table's success probability there
    danger: int | None = None  # one move deeper at this many empty cells or fewer (SearchSettings.danger)
    quiescence: int | None = None  # leaves this crowded looked one move further (SearchSettings.quiescence)
    late_quiescence: int | None = None  # the same once the board held 32768 (SearchSettings.late_quiescence)
    stop_at: int | None = None  # the tile the game was to stop at (Game's stop_at)
    state: GameState | None = None  # a game that stopped there: what playing it on needs; None = it ended
    continued_at: int | None = None  # a resumed game: the move it was resumed after
    continued_at_seconds: float | None = None  # and the seconds it had taken until then

    @property
    def depth_setting(self) -> Depth | None:
        """The depth as the game was set to search: None for a time per move
        with no cap, where "auto" (chosen by the board) would say what it was not."""
        return None if self.time_ms is not None and self.depth == "auto" else self.depth

    @property
    def moves_per_second(self) -> float:
        return self.moves / self.seconds if self.seconds > 0 else 0.0

    def to_json(self) -> dict[str, Any]:
        """The stable JSON shape of ``solve2048 play --json``."""
        return {
            "seed": self.seed,
            "depth": self.depth_setting,
            "time_ms": self.time_ms,
            "danger": self.danger,
            "quiescence": self.quiescence,
            "late_quiescence": self.late_quiescence,
            "score": self.score,
            "max_tile": self.max_tile,
            "moves": self.moves,
            "won": self.won,
            "won_at_move": self.won_at_move,
            "seconds": self.seconds,
            "moves_per_second": self.moves_per_second,
            "final_board": list(self.final_board.cells),
            "table_moves": self.table_moves,
            "uncovered_moves": self.uncovered_moves,
            "last_covered": self.last_covered,
            "last_probability": self.last_probability,
            "last_table": self.last_table,
            "last_trusted": self.last_trusted,
            "stretch_start": self.stretch_start,
            "stretch_probability": self.stretch_probability,
        }


def check_seed(seed: int) -> int:
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= MAX_SEED:
        raise InvalidArgumentError(f"expected a seed from 0 to 2**64-1, got {seed!r}")
    return seed


def check_stop_tile(tile: int) -> int:
    """A tile a game can stop at: a whole power of two from 2 to 131072."""
    if isinstance(tile, bool) or not isinstance(tile, int) or tile not in STOP_TILES:
        raise InvalidArgumentError(f"expected a tile from 2 to 131072 to stop at, got {tile!r}")
    return tile


class Game:
    """A game the solver plays from ``seed``; call ``advance`` or ``run``."""

    def __init__(self, seed: int, settings: SearchSettings | None = None, *, stop_at_win: bool = False,
                 searcher: engine.Searcher | None = None, start: Board | str | None = None,
                 stop_at: int | None = None, resume: GameResult | None = None, **fields: Any) -> None:
        """``settings`` (or a SearchSettings made of ``fields``: ``depth=3``)
        say how every move is chosen, as ``decide`` would choose it. The game
        starts with two spawns on the empty board, or from ``start``; every
        spawn comes from ``seed``'s generator. It stops after the move that
        first makes ``stop_at`` or a bigger tile (``stop_at_win``: 2048), and
        its result then holds the state to play it on: ``resume``, a stopped
        game's result, goes on from where it stopped, with these settings."""
        self.seed = check_seed(seed)
        self.settings = SearchSettings.of(settings, **fields)
        self.tables = self.settings.tables
        self.depth = self.settings.depth
        self._prune = engine_prune(self.settings.prune)   # as C takes it, converted once
        self.stop_at = check_stop_tile(stop_at) if stop_at is not None else 2048 if stop_at_win else None
        self._evaluator = engine.evaluator(self.settings.search_weights)
        self._searcher = searcher or engine.thread_searcher(self.settings.tt_mb, self.settings.threads)
        self._state = ffi.new("s2048_game *")
        self.continued_at = None if resume is None else resume.moves
        self.continued_at_seconds = None if resume is None else resume.seconds
        if resume is not None:
            if start is not None:
                raise InvalidArgumentError("a game either starts from a board or resumes a stopped one")
            self._resume(resume)
        elif start is None:
            lib.s2048_game_new(self._state, self.seed)
        else:
            given = start if isinstance(start, Board) else Board.parse(start)
            if not any(given.cells):
                raise InvalidArgumentError("a game cannot start from the empty board: no move changes it")
            lib.s2048_game_start(self._state, self.seed, *engine.split(int(given)))
        self.given_start = start is not None
        self.start_board = self.board
        # A game that starts holding its stop tile never stops at it (the stop,
        # like the win, is the merge that first makes it).
        self._stops = self.stop_at is not None and self.start_board.max_tile < self.stop_at
        self._buffer = ffi.new("s2048_step[]", CHUNK)
        # A game played on counts the time of the part it plays on, too.
        self.seconds = 0.0 if resume is None else resume.seconds

    def _resume(self, stopped: GameResult) -> None:
        """Sets the C game to where ``stopped`` ended, counts and generator included."""
        if stopped.state is None:
            raise InvalidArgumentError(f"game {stopped.seed} ended; only a stopped game can be played on")
        if stopped.seed != self.seed:
            raise InvalidArgumentError(f"the game resumed is seed {stopped.seed}, not {self.seed}")
        g, state = self._state, stopped.state
        lib.s2048_game_start(g, self.seed, *engine.split(int(stopped.final_board)))
        if g.over:
            raise InvalidArgumentError(f"game {stopped.seed} stopped on a lost board")
        for i, word in enumerate(state.rng):
            g.rng.s[i] = word
        g.score, g.moves, g.won_at = stopped.score, stopped.moves, stopped.won_at_move or 0
        g.table_moves, g.uncovered_moves = stopped.table_moves, stopped.uncovered_moves
        g.last_covered, g.stretch_start = stopped.last_covered, stopped.stretch_start
        g.stretch_probability = stopped.stretch_probability or 0.0
        if state.probe is not None:
            p = g.last_probe
            p.dir, p.shape, p.frozen, p.goal, p.trusted = state.probe
            p.probability = stopped.last_probability or 0.0

    def state(self) -> GameState:
        """What playing this game on needs, beside its result."""
        probe = self._state.last_probe
        return GameState(tuple(int(w) for w in self._state.rng.s),  # type: ignore[arg-type]
                         (int(probe.dir), int(probe.shape), int(probe.frozen), int(probe.goal), bool(probe.trusted))
                         if self.last_covered else None)

    # ---- state -------------------------------------------------------------------

    @property
    def board(self) -> Board:
        return Board.from_int(engine.join(self._state.board, self._state.high))

    @property
    def score(self) -> int:
        return int(self._state.score)

    @property
    def moves(self) -> int:
        return int(self._state.moves)

    @property
    def last_depth(self) -> int:
        """The depth the last move was searched to (0 before the first move)."""
        return int(self._state.last_depth)

    @property
    def table_moves(self) -> int:
        """How many moves so far came from the endgame tables."""
        return int(self._state.table_moves)

    @property
    def uncovered_moves(self) -> int:
        """How many moves so far were played on a board no endgame table covered."""
        return int(self._state.uncovered_moves)

    @property
    def last_covered(self) -> int:
        """The last move (1-based) whose board a table covered, trusted or not; 0 = none."""
        return int(self._state.last_covered)

    @property
    def last_probe(self) -> TableMove | None:
        """The covering table's answer on the board of move ``last_covered``; None = none."""
        return TableMove.of(self._state.last_probe) if self.last_covered else None

    @property
    def stretch_start(self) -> int:
        """The first move of the last covered stretch, the run of moves on
        covered boards that ends at ``last_covered``; 0 = none."""
        return int(self._state.stretch_start)

    @property
    def stretch_probability(self) -> float | None:
        """The covering table's success probability on the board of move
        ``stretch_start``; None = none."""
        return float(self._state.stretch_probability) if self.stretch_start else None

    @property
    def won_at_move(self) -> int | None:
        return int(self._state.won_at) or None

    @property
    def stopped(self) -> bool:
        """True when the game stopped at its stop tile, alive (its move made it)."""
        return self._stops and not self._state.over and self.board.max_tile >= (self.stop_at or 0)

    @property
    def over(self) -> bool:
        """True when the game has ended, or stopped at its stop tile."""
        return bool(self._state.over) or self.stopped

    # ---- play ----------------------------------------------------------------------

    def advance(self, max_moves: int = CHUNK, steps: bool = True) -> list[Step]:
        """Plays up to ``max_moves`` moves in one C call; returns them as Steps
        (an empty list when ``steps`` is False, which is faster)."""
        if self.over:
            return []
        count = max(0, min(max_moves, CHUNK))
        start = time.perf_counter()
        played = lib.s2048_game_play(
            self._state, self._searcher._handle, self._evaluator._handle,
            self.tables.handle if self.tables else ffi.NULL,
            self.settings.engine_depth, self.settings.engine_danger, self.settings.engine_quiescence,
            self.settings.engine_late_quiescence, self.settings.engine_time_ms, self._prune,
            self.stop_at.bit_length() - 1 if self._stops and self.stop_at else 0,
            self._buffer, count,
        )
        self.seconds += time.perf_counter() - start
        if played < 0:
            raise InvalidArgumentError("bad search settings")
        if not steps:
            return []
        return [self._step(self._buffer[i]) for i in range(played)]

    @staticmethod
    def _step(raw: Any) -> Step:  # an s2048_step (cffi cdata)
        return Step(Move(raw.dir), raw.gain, raw.spawn_cell, raw.spawn_value,
                    Board.from_int(engine.join(raw.board, raw.high)), raw.depth, bool(raw.from_table))

    def run(self) -> GameResult:
        """Plays to the end and returns the result."""
        while not self.over:
            self.advance(CHUNK, steps=False)
        return self.result()

    def result(self) -> GameResult:
        """The game so far (the whole game once ``over``)."""
        board, last = self.board, self.last_probe
        return GameResult(
            seed=self.seed,
            depth=self.depth,
            score=self.score,
            max_tile=board.max_tile,
            moves=self.moves,
            won=self.won_at_move is not None,
            won_at_move=self.won_at_move,
            seconds=self.seconds,
            final_board=board,
            table_moves=self.table_moves,
            time_ms=self.settings.time_ms,
            danger=self.settings.danger,
            quiescence=self.settings.quiescence,
            late_quiescence=self.settings.late_quiescence,
            uncovered_moves=self.uncovered_moves,
            last_covered=self.last_covered,
            last_probability=last.probability if last else None,
            last_table=last.spec.label if last else None,
            last_trusted=last.trusted if last else None,
            stretch_start=self.stretch_start,
            stretch_probability=self.stretch_probability,
            stop_at=self.stop_at,
            state=self.state() if self.stopped else None,
            continued_at=self.continued_at,
            continued_at_seconds=self.continued_at_seconds,
        )


def play_game(seed: int, settings: SearchSettings | None = None, **fields: Any) -> GameResult:
    """Plays one whole game from ``seed`` and returns its result (``fields``:
    those of SearchSettings, or ``stop_at_win``, ``stop_at`` and ``searcher`` as for Game)."""
    own = {k: fields.pop(k) for k in ("stop_at_win", "stop_at", "searcher") if k in fields}
    return Game(seed, SearchSettings.of(settings, **fields), **own).run()
