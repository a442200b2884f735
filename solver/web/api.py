"""The JSON API of ``solve2048 serve``: request bodies in, the library's answers out.

Everything here is plain functions over untrusted JSON values, with no web
framework, so the checks are tested on their own; solve2048.web.app routes the
requests to them. Every refusal is an ApiError whose message is the one line
the CLI prints for the same value (its text after ``solve2048: error:``).

Endpoints (all answers are JSON; see docs/serve.md), where SEARCH is "depth"?,
"time_ms"?, "danger"?, "quiescence"?, "late_quiescence"?:
  POST /api/hint    {"board", SEARCH, "values"?}                -> hint --json
  POST /api/review  {"board", "played", SEARCH, "threshold"?}   -> one move's review
  POST /api/parse   {"board"}                                   -> the board's 16 values
  GET  /api/info                                                -> version, limits, tables
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from solve2048.board import Board, InvalidBoardError
from solve2048.engine import AUTO_MAX_DEPTH, check_late_quiescence, check_quiescence
from solve2048.errors import Solve2048Error
from solve2048.settings import Depth, SearchSettings, check_deepening, check_depth, check_time

# A board is at most a few hundred bytes of JSON; 16 KiB leaves room for any
# notation and stops a client from making the server hold a large body.
MAX_BODY_BYTES = 16 * 1024
DEFAULT_MAX_DEPTH = 10       # about 0.15 s on a hard mid-game board on this machine
DEFAULT_MAX_TIME_MS = 10_000  # the longest a --time search may run on the server


class ApiError(Solve2048Error, ValueError):
    """A request the server refuses: ``status`` is the HTTP status."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.status = status


@dataclass(frozen=True)
class Limits:
    """What one request may ask of the server, and how much work runs at once."""

    max_depth: int = DEFAULT_MAX_DEPTH
    max_time_ms: float = DEFAULT_MAX_TIME_MS
    max_searches: int = max(1, os.cpu_count() or 1)   # searches running at once
    max_waiting: int = 32                              # searches queued beyond those
    queue_seconds: float = 30.0                        # how long one may wait for a turn
    body_bytes: int = MAX_BODY_BYTES
    body_seconds: float = 10.0                         # a slower body is a stalled or hostile client

    def __post_init__(self) -> None:
        check_depth(self.max_depth)
        check_time(self.max_time_ms)
        for name, low in (("max_searches", 1), ("max_waiting", 0), ("body_bytes", 1)):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < low:
                raise ApiError(f"expected {name} to be a whole number of at least {low}, got {value!r}")
        for name in ("queue_seconds", "body_seconds"):
            value = getattr(self, name)
            number = isinstance(value, (int, float)) and not isinstance(value, bool)
            if not (number and math.isfinite(value) and value > 0):
                raise ApiError(f"expected {name} to be a positive number of seconds, got {value!r}")

    def to_json(self) -> dict[str, Any]:
        return {"max_depth": self.max_depth, "max_time_ms": self.max_time_ms,
                "max_searches": self.max_searches, "body_bytes": self.body_bytes}


def parse_body(raw: bytes) -> dict[str, Any]:
    """A request body as a JSON object."""
    try:
        value = json.loads(raw)
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        reason = error.msg if isinstance(error, json.JSONDecodeError) else "not UTF-8"
        raise ApiError(f"the request body is not JSON ({reason})") from None
    except RecursionError:
        raise ApiError("the request body is not JSON (nested too deep)") from None
    except ValueError:  # an integer of over 4,300 digits
        raise ApiError("the request body is not JSON (a number too long to read)") from None
    if not isinstance(value, dict):
        raise ApiError(f"the request body must be a JSON object, got {type(value).__name__}")
    return value


def check_fields(body: dict[str, Any], required: tuple[str, ...], optional: tuple[str, ...]) -> None:
    """Every required field present, and no field the endpoint does not know (a typo
    would otherwise be ignored silently)."""
    for name in required:
        if name not in body:
            raise ApiError(f"missing field {name!r}")
    for name in body:
        if name not in required and name not in optional:
            known = ", ".join(repr(n) for n in required + optional)
            raise ApiError(f"unknown field {_short(name)}; expected {known}")


def board_of(value: object) -> Board:
    """The ``board`` field: 16 numbers (or a 4x4 grid), or text in any notation."""
    if isinstance(value, str):
        text = value
    elif isinstance(value, list):
        text = json.dumps(value)  # Board.parse reads JSON arrays, with its own messages
    else:
        raise ApiError(f"board must be a list of 16 numbers or a text, got {_short(value)}")
    try:
        return Board.parse(text)
    except InvalidBoardError as error:
        raise ApiError(str(error)) from None


def depth_of(value: object, limits: Limits) -> Depth:
    if value == "auto":
        return "auto"
    try:
        depth = check_depth(value)  # type: ignore[arg-type]
    except ValueError as error:
        raise ApiError(str(error)) from None
    if depth > limits.max_depth:
        raise ApiError(f"depth {depth} is deeper than this server allows ({limits.max_depth})")
    return depth


def time_of(value: object, limits: Limits) -> float | None:
    if value is None:
        return None
    try:
        check_time(value)  # type: ignore[arg-type]
    except ValueError as error:
        raise ApiError(str(error)) from None
    time_ms = float(value)  # type: ignore[arg-type]
    if time_ms > limits.max_time_ms:
        raise ApiError(f"time_ms {time_ms:g} is longer than this server allows ({limits.max_time_ms:g} ms)")
    return time_ms


def danger_of(body: dict[str, Any], base: SearchSettings, depth: Depth, time_ms: float | None) -> int | None:
    """The request's danger (null: never deeper). Unnamed, it is the server's
    where the request's depth is fixed and untimed, as danger needs (the page
    never names it); whether the search stays within the limits is settings_of's."""
    if "danger" not in body:
        return base.danger if isinstance(depth, int) and time_ms is None else None
    danger: int | None = body["danger"]
    try:
        check_deepening(danger, depth, time_ms)
    except ValueError as error:
        raise ApiError(str(error)) from None
    return danger


def look_of(body: dict[str, Any], field: str, check: Callable[[int | None], object]) -> int | None:
    """The request's ``field``, quiescence or late_quiescence, checked by
    ``check`` (null: no look, or the quiescence throughout); whether the
    search stays within the limits is settings_of's."""
    cells: int | None = body[field]
    try:
        check(cells)
    except ValueError as error:
        raise ApiError(str(error)) from None
    return cells


LOOK_CHECKS = (("quiescence", check_quiescence), ("late_quiescence", check_late_quiescence))


def _reach(depth: Depth, timed: bool, danger: int | None, quiescence: int | None,
           late_quiescence: int | None) -> int:
    """The most moves a search looks at: its depth (the deepest "auto" picks,
    AUTO_MAX_DEPTH), one more in danger, one more past a crowded leaf (in
    either phase). 0 for a timed search at "auto", which its time bounds."""
    if depth == "auto" and timed:
        return 0
    looks = quiescence is not None or late_quiescence is not None
    deepest = AUTO_MAX_DEPTH if depth == "auto" else depth
    return deepest + (danger is not None) + looks


def _depth_text(depth: Depth) -> str:
    return f"auto (up to {AUTO_MAX_DEPTH} moves)" if depth == "auto" else str(depth)


def _extras(danger: int | None, quiescence: int | None, late_quiescence: int | None) -> str:
    named = [name for name, cells in (("danger", danger), ("quiescence", quiescence),
                                      ("late quiescence", late_quiescence)) if cells is not None]
    return f" with {' and '.join(named)}" if named else ""


def check_server_depth(settings: SearchSettings, limits: Limits) -> None:
    """Refuses a server whose own depth its limits would refuse to every
    request: its depth, danger and the look it was given (a default look
    gives way where there is no room for it, as in every request)."""
    looks = (None, None) if settings.default_look else (settings.quiescence, settings.late_quiescence)
    if _reach(settings.depth, settings.time_ms is not None, settings.danger, *looks) > limits.max_depth:
        fix = f": give a --depth of {limits.max_depth} or less" if settings.depth == "auto" else ""
        raise ApiError(f"depth {_depth_text(settings.depth)}{_extras(settings.danger, *looks)} searches deeper "
                       f"than --max-depth allows ({limits.max_depth}){fix}")


def settings_of(body: dict[str, Any], base: SearchSettings, limits: Limits) -> SearchSettings:
    """The server's settings with the request's depth, time, danger, quiescence
    and late quiescence: the tables, pruning and table size stay the server's
    own. The look follows given_look: one named by the request, else the
    server's, or the default of the request's depth where the server's is
    the default. What the request names must fit the deepest depth allowed;
    what it leaves to the server is dropped where it would not, its looks
    first."""
    depth = depth_of(body.get("depth", base.depth), limits)
    time_ms = time_of(body.get("time_ms", base.time_ms), limits)
    danger = danger_of(body, base, depth, time_ms)
    named = {field: look_of(body, field, check) for field, check in LOOK_CHECKS if field in body}
    looked = base.replace(depth=depth, time_ms=time_ms, danger=danger, **named)
    quiescence, late = looked.quiescence, looked.late_quiescence
    timed = time_ms is not None
    if _reach(depth, timed, danger, quiescence, late) > limits.max_depth:
        quiescence = quiescence if "quiescence" in named else None
        late = late if "late_quiescence" in named else None
    if _reach(depth, timed, danger, quiescence, late) > limits.max_depth and "danger" not in body:
        danger = None
    if _reach(depth, timed, danger, quiescence, late) > limits.max_depth:
        raise ApiError(f"depth {_depth_text(depth)}{_extras(danger, quiescence, late)} searches deeper than "
                       f"this server allows ({limits.max_depth})")
    return base.replace(depth=depth, time_ms=time_ms, danger=danger, quiescence=quiescence, late_quiescence=late)


def flag_of(body: dict[str, Any], name: str, default: bool) -> bool:
    value = body.get(name, default)
    if not isinstance(value, bool):
        raise ApiError(f"{name} must be true or false, got {_short(value)}")
    return value


def number_of(body: dict[str, Any], name: str, default: float, low: float, high: float) -> float:
    value = body.get(name, default)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) \
            or not low <= value <= high:
        raise ApiError(f"{name} must be a number from {low:g} to {high:g}, got {_short(value)}")
    return float(value)


def _short(value: object, limit: int = 40) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[:limit - 3] + "..."

