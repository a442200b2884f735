"""The search settings that travel together: one value, checked once.

Like python-chess's ``engine.Limit``: ``SearchSettings(depth=4)`` or
``SearchSettings(time_ms=200, tables=load().tables)`` is handed to ``analyze``,
``decide``, ``Game`` and ``play_game`` (which also take its fields as keyword
arguments, for short calls: ``analyze(board, depth=3)``).
"""

from __future__ import annotations

import dataclasses
import functools
import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from solve2048.engine import (
    DEFAULT_LATE_QUIESCENCE,
    DEFAULT_PRUNE,
    DEFAULT_QUIESCENCE,
    DEFAULT_THREADS,
    DEFAULT_TT_MB,
    LOOK_MAX_DEPTH,
    MAX_DEPTH,
    Prune,
    Weights,
    check_danger,
    check_late_quiescence,
    check_prune,
    check_quiescence,
    check_threads,
    check_tt_mb,
    engine_danger,
    engine_late_quiescence,
    engine_prune,
    engine_quiescence,
    thread_tables,
)
from solve2048.errors import InvalidArgumentError, UsageError

if TYPE_CHECKING:
    from solve2048.tables import TableSet

Depth = int | Literal["auto"]
MAX_TIME_MS = 24 * 3600 * 1000  # a day per move: past any use, and still a finite wait
Heuristic = Literal["default", "tables", "custom"]


def check_depth(depth: Depth) -> int:
    """Returns the engine's depth number (0 = auto) or raises ValueError."""
    if depth == "auto":
        return 0
    if isinstance(depth, bool) or not isinstance(depth, int) or not 1 <= depth <= MAX_DEPTH:
        raise InvalidArgumentError(f"expected depth 'auto' or 1..{MAX_DEPTH}, got {depth!r}")
    return depth


def check_time(time_ms: float | None) -> float:
    """Returns the engine's time limit in ms (0 = none) or raises ValueError."""
    if time_ms is not None and (isinstance(time_ms, bool) or not isinstance(time_ms, (int, float))
                                or not math.isfinite(time_ms) or not 0 < time_ms <= MAX_TIME_MS):
        raise InvalidArgumentError(f"expected a time limit from 0 to {MAX_TIME_MS:,} ms (a day), got {time_ms!r}")
    return float(time_ms or 0.0)


class _NotGiven:
    """The default of a look setting left out: ``given_look`` says what it becomes."""

    def __repr__(self) -> str:
        return "NOT_GIVEN"


NOT_GIVEN: Any = _NotGiven()


def given_look(quiescence: int | None, late_quiescence: int | None, depth: Depth,
               time_ms: float | None) -> tuple[int | None, int | None]:
    """The (quiescence, late quiescence) of a search from what was given
    (NOT_GIVEN: left out), checked. A quiescence left out is the depth's
    default: 3 at a fixed depth up to LOOK_MAX_DEPTH (5) and at depth
    "auto" (which searches 3 to 5), without a time limit, where it was
    measured to gain; none deeper (no gain measured at depth 6, for its
    cost) or with a time limit (not measured). With neither given, those
    depths also take the default late quiescence, 2 once the board holds
    32768. A quiescence given alone holds throughout (None: no look at
    all), as it did before the default. One rule for the API, the CLI, a
    batch and the page."""
    looks = (depth == "auto" or (isinstance(depth, int) and depth <= LOOK_MAX_DEPTH)) and time_ms is None
    if quiescence is NOT_GIVEN:
        quiescence = DEFAULT_QUIESCENCE if looks else None
        if late_quiescence is NOT_GIVEN:
            late_quiescence = DEFAULT_LATE_QUIESCENCE if looks else None
    elif late_quiescence is NOT_GIVEN:
        late_quiescence = None
    return check_quiescence(quiescence), check_late_quiescence(late_quiescence)


def settle_look(settings: Any) -> None:
    """Sets a frozen settings object's ``quiescence`` and ``late_quiescence``
    to what ``given_look`` makes of them: the search's and the batch's
    settings settle their look by this one rule."""
    quiescence, late_quiescence = given_look(settings.quiescence, settings.late_quiescence,
                                             settings.depth, settings.time_ms)
    object.__setattr__(settings, "quiescence", quiescence)
    object.__setattr__(settings, "late_quiescence", late_quiescence)


def check_deepening(danger: int | None, depth: Depth, time_ms: float | None) -> None:
    """Refuses ``danger`` but with a fixed depth and no time limit: "auto"
    deepens at 3 empty cells by itself, and a timed search by the clock."""
    if check_danger(danger) is None:
        return
    if depth == "auto":
        raise InvalidArgumentError("danger needs a fixed depth: depth 'auto' already searches one move "
                                   "deeper at 3 or fewer empty cells")
    if time_ms is not None:
        raise InvalidArgumentError("danger needs a fixed depth and no time limit: a search with a time limit "
                                   "goes as deep as its time allows")


@dataclass(frozen=True)
class SearchSettings:
    """How a move is searched: how deep (``depth``, or as deep as ``time_ms``
    allows, ``depth`` then being a cap; with ``danger``, a fixed depth one
    move deeper on a board with at most that many empty cells, as "auto"
    does at 3; with ``quiescence``, a leaf with at most that many empty cells
    worth one more spawn and move, and with ``late_quiescence``, the same for
    a board holding 32768 or more in its place: at a fixed depth up to 5 by
    default 3, then 2, see ``given_look``; None for no look), how much of the tree is pruned
    (``prune``), the transposition table's size (``tt_mb``), the heuristic
    (``weights``; None lets the tables choose, see ``heuristic``), the
    endgame tables whose sure moves replace the search (``tables``) and the
    threads of one search (``threads``, every core by default: searches from
    depth 6 on use up to 8, each with a table of ``tt_mb``, and give the same
    result with any number of them; the game loop of ``play_game`` and
    ``batch`` keeps one a game)."""

    depth: Depth = "auto"
    time_ms: float | None = None
    prune: Prune = DEFAULT_PRUNE
    tt_mb: float = DEFAULT_TT_MB
    weights: Weights | None = None
    tables: TableSet | None = None
    threads: int = DEFAULT_THREADS
    danger: int | None = None
    quiescence: int | None = NOT_GIVEN
    late_quiescence: int | None = NOT_GIVEN
    # Whether the look is the depth's default (neither given): a copy at
    # another depth takes that depth's (replace), and a server drops it where
    # a request's depth has no room for it (web.api).
    default_look: bool = dataclasses.field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        check_depth(self.depth)
        check_time(self.time_ms)
        check_deepening(self.danger, self.depth, self.time_ms)
        object.__setattr__(self, "default_look", self.quiescence is NOT_GIVEN and self.late_quiescence is NOT_GIVEN)
        settle_look(self)
        check_prune(self.prune)
        check_tt_mb(self.tt_mb)  # one table first: its own message when even one does not fit
        check_tt_mb(self.tt_mb, copies=thread_tables(check_threads(self.threads)))
        if self.weights is not None and not isinstance(self.weights, Weights):
            raise InvalidArgumentError(f"expected Weights or None, got {self.weights!r}")
        if self.tables is not None and not len(self.tables):
            object.__setattr__(self, "tables", None)  # an empty set is no tables

    @classmethod
    def of(cls, settings: SearchSettings | None = None, **fields: Any) -> SearchSettings:
        """``settings``, or one made of ``fields``; both at once is a mistake."""
        if settings is None:
            return cls._made_of(fields)
        if not isinstance(settings, SearchSettings):
            raise UsageError(f"expected SearchSettings, got {settings!r}")
        if fields:
            raise UsageError(f"give SearchSettings or its fields, not both (got {', '.join(fields)})")
        return settings

    @classmethod
    def _made_of(cls, fields: dict[str, Any]) -> SearchSettings:
        """cls(**fields), kept for the next call with the same fields: a short
        call, ``analyze(board, depth=3)``, would otherwise check its settings
        again on every call (1.1 us). The key holds each value's type, so that
        depth=True is refused as ever instead of meeting depth=1. Tables are
        never kept: a set is made once and passed as a SearchSettings."""
        if cls is not SearchSettings or "tables" in fields:
            return cls(**fields)
        key = tuple((name, value.__class__, value) for name, value in fields.items())
        try:
            return _MADE[key]
        except KeyError:
            pass
        except TypeError:  # an unhashable value: the checks below say what is wrong with it
            return cls(**fields)
        made = cls(**fields)
        if len(_MADE) >= MAX_MADE:
            _MADE.clear()
        _MADE[key] = made
        return made

    def replace(self, **changes: Any) -> SearchSettings:
        """A copy with ``changes``, its look as given_look says: a quiescence
        changed alone holds throughout, and a default look is the new depth's."""
        if "quiescence" in changes:
            changes.setdefault("late_quiescence", NOT_GIVEN)
        elif self.default_look:
            changes.update(quiescence=NOT_GIVEN, late_quiescence=changes.get("late_quiescence", NOT_GIVEN))
        return dataclasses.replace(self, **changes)

    @functools.cached_property
    def engine_args(self) -> tuple[int, int, int, float, float, Weights | None]:
        """(depth, danger, quiescence, time limit, pruning threshold) as C takes them, and
        the search's weights: worked out once per settings value, not on every
        call of analyze (cached in the instance; plain values, so a pickled
        SearchSettings stays picklable)."""
        return (self.engine_depth, self.engine_danger, self.engine_quiescence, self.engine_time_ms,
                engine_prune(self.prune), self.search_weights)

    @property
    def engine_depth(self) -> int:
        return check_depth(self.depth)

    @property
    def engine_danger(self) -> int:
        return engine_danger(self.danger)

    @property
    def engine_quiescence(self) -> int:
        return engine_quiescence(self.quiescence)

    @property
    def engine_late_quiescence(self) -> int:
        return engine_late_quiescence(self.late_quiescence)

    @property
    def engine_time_ms(self) -> float:
        return check_time(self.time_ms)

    @property
    def search_weights(self) -> Weights | None:
        """The heuristic the search plays: ``weights`` when given; else, beside
        tables, ``Weights.for_tables(depth)``, and otherwise the default (None).
        Depth 1 keeps the default beside tables too: a greedy move sees only the
        next board, and the chain term alone then played 4,293 on average
        against 12,217 (2,000 paired games with the default tables)."""
        if self.weights is not None:
            return self.weights
        if self.tables is None or self.depth == 1:
            return None
        return Weights.for_tables(self.depth)

    @property
    def heuristic(self) -> Heuristic:
        """Which heuristic the values are in: their scales differ about 12-fold."""
        if self.weights is not None and self.weights not in (Weights(), Weights.for_tables(self.depth)):
            return "custom"
        return "default" if self.search_weights in (None, Weights()) else "tables"


# SearchSettings made of fields in a short call (SearchSettings._made_of); a
# program uses a handful of them, the bound is for one that makes them in a loop.
MAX_MADE = 256
_MADE: dict[tuple[tuple[str, type, Any], ...], SearchSettings] = {}
