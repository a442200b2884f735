"""The web application of ``solve2048 serve``: the page, its files and the JSON API.

A Starlette application (an ASGI app: uvicorn serves it; tests call it in
process). The page is static, plain JavaScript in solve2048/web/static; the
game runs in the browser, which asks the server only for the solver's view:
a hint, a review of the move just played, a pasted board read.

Searches run in a pool of ``Limits.max_searches`` threads, off the event
loop (the C search releases the GIL), so the page and other requests stay
responsive while a deep search runs. A request that finds every thread busy
waits for a turn, at most ``Limits.queue_seconds``; beyond ``max_waiting``
waiting requests the server answers 503 at once. Each pool thread keeps its own
searcher (solve2048.engine.thread_searcher), with a transposition table for
each thread of its search, so the memory is ``max_searches`` times that many
tables, checked when the app is made.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, TypeVar

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from solve2048 import __version__
from solve2048.decide import decide
from solve2048.engine import AUTO_MAX_DEPTH, check_tt_mb, thread_tables
from solve2048.moves import Move
from solve2048.review import DEFAULT_THRESHOLD, review_move
from solve2048.settings import SearchSettings
from solve2048.web.api import (
    ApiError,
    Limits,
    board_of,
    check_fields,
    check_server_depth,
    flag_of,
    number_of,
    parse_body,
    settings_of,
)

STATIC = Path(__file__).parent / "static"
T = TypeVar("T")
# The page loads only its own files: no inline script, nothing from elsewhere.
SECURITY_HEADERS = {
    "Content-Security-Policy": "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
}


class SearchPool:
    """At most ``max_searches`` searches at once, on their own threads; a bounded queue."""

    def __init__(self, limits: Limits) -> None:
        self._limits = limits
        self._executor = ThreadPoolExecutor(limits.max_searches, thread_name_prefix="solve2048-search")
        self._turns: asyncio.Semaphore | None = None
        self._queued = 0  # requests running or waiting for a turn

    async def run(self, work: Callable[[], T]) -> T:
        limits = self._limits
        if self._turns is None:
            self._turns = asyncio.Semaphore(limits.max_searches)
        turns = self._turns
        if self._queued >= limits.max_searches + limits.max_waiting:
            raise ApiError(self._busy(), 503)
        self._queued += 1
        try:
            try:
                await asyncio.wait_for(turns.acquire(), limits.queue_seconds)
            except asyncio.TimeoutError:
                raise ApiError(self._busy(), 503) from None
            loop = asyncio.get_running_loop()
            future = self._executor.submit(work)
            # The turn is given back when the thread is done, not when the request
            # ends: a client that leaves mid-search does not free a busy thread.
            future.add_done_callback(lambda _: loop.call_soon_threadsafe(turns.release))
            return await asyncio.wrap_future(future)
        finally:
            self._queued -= 1

    def _busy(self) -> str:
        return (f"the server is busy ({self._limits.max_searches} searches running, "
                f"{self._limits.max_waiting} waiting); try again")

    def close(self) -> None:
        self._executor.shutdown(wait=False, cancel_futures=True)


async def read_body(request: Request, limit: int, seconds: float) -> bytes:
    """The body, refused past ``limit`` bytes or ``seconds``, whatever the headers claim."""
    declared = request.headers.get("content-length")
    if declared is not None and (not declared.isdigit() or int(declared) > limit):
        raise ApiError(f"the request body is larger than {limit:,} bytes", 413)

    async def collect() -> bytes:
        chunks, size = [], 0
        async for chunk in request.stream():
            size += len(chunk)
            if size > limit:
                raise ApiError(f"the request body is larger than {limit:,} bytes", 413)
            chunks.append(chunk)
        return b"".join(chunks)

    try:
        return await asyncio.wait_for(collect(), seconds)
    except asyncio.TimeoutError:
        raise ApiError(f"the request body did not arrive within {seconds:g} s", 408) from None


# What a request may set of the search (settings_of).
SEARCH_FIELDS = ("depth", "time_ms", "danger", "quiescence", "late_quiescence")


def create_app(settings: SearchSettings | None = None, limits: Limits | None = None) -> Starlette:
    """The application: ``settings`` are the server's (its tables, pruning, table size,
    default depth, danger, quiescence and late quiescence); a request may set only
    its depth, time, danger, quiescence and late quiescence, within ``limits``."""
    base = settings or SearchSettings()
    limits = limits or Limits()
    check_server_depth(base, limits)
    # Every pool thread holds a searcher, with a table for each thread its search uses.
    check_tt_mb(base.tt_mb, copies=limits.max_searches * thread_tables(base.threads))
    pool = SearchPool(limits)

    async def body_of(request: Request) -> dict[str, Any]:
        # JSON only: a browser sends that type from another site's page only after
        # asking (CORS preflight), which this server never grants, so no page the
        # user visits can set this machine searching.
        kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
        if kind != "application/json":
            raise ApiError("the request body must be JSON, sent as Content-Type: application/json", 415)
        return parse_body(await read_body(request, limits.body_bytes, limits.body_seconds))

    async def hint(request: Request) -> Response:
        body = await body_of(request)
        check_fields(body, ("board",), (*SEARCH_FIELDS, "values"))
        board = board_of(body["board"])
        search = settings_of(body, base, limits)
        values = flag_of(body, "values", True)
        decision = await pool.run(lambda: decide(board, search, values=values))
        return JSONResponse(decision.to_json())

    async def review(request: Request) -> Response:
        body = await body_of(request)
        check_fields(body, ("board", "played"), (*SEARCH_FIELDS, "threshold"))
        board = board_of(body["board"])
        played = Move.parse(body["played"])  # its own one-line refusal, as the CLI's
        search = settings_of(body, base, limits)
        threshold = number_of(body, "threshold", DEFAULT_THRESHOLD, 0.0, 1.0)
        verdict = await pool.run(lambda: review_move(board, played, search, threshold=threshold))
        return JSONResponse(verdict.to_json())

    async def parse(request: Request) -> Response:
        body = await body_of(request)
        check_fields(body, ("board",), ())
        board = board_of(body["board"])
        return JSONResponse({"board": list(board.cells), "text": str(board), "hex": board.hex(),
                             "legal": [str(m) for m in board.legal_moves()]})

    async def info(request: Request) -> Response:
        return JSONResponse({
            "version": __version__,
            "depth": base.depth,
            "time_ms": base.time_ms,
            "danger": base.danger,
            "quiescence": base.quiescence,
            "late_quiescence": base.late_quiescence,
            "tables": len(base.tables) if base.tables else 0,
            "threshold": DEFAULT_THRESHOLD,
            "limits": limits.to_json(),
            "auto_max_depth": AUTO_MAX_DEPTH,
        })

    async def page(request: Request) -> Response:
        return FileResponse(STATIC / "index.html", media_type="text/html")

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        yield
        pool.close()

    app = Starlette(
        routes=[
            Route("/", page),
            Route("/api/hint", _api(hint), methods=["POST"]),
            Route("/api/review", _api(review), methods=["POST"]),
            Route("/api/parse", _api(parse), methods=["POST"]),
            Route("/api/info", _api(info), methods=["GET"]),
            Mount("/static", StaticFiles(directory=STATIC), name="static"),
        ],
        exception_handlers={HTTPException: _http_error},
        lifespan=lifespan,
    )
    app.add_middleware(_SecurityHeaders)
    return app


def _api(handler: Callable[[Request], Awaitable[Response]]) -> Callable[[Request], Awaitable[Response]]:
    """A JSON endpoint: a refusal is ``{"error": one line}`` with its status, never a trace."""

    async def endpoint(request: Request) -> Response:
        try:
            return await handler(request)
        except ApiError as error:
            return JSONResponse({"error": str(error)}, status_code=error.status)
        except ValueError as error:  # the library's own refusal (InvalidArgumentError, ...)
            return JSONResponse({"error": str(error)}, status_code=400)
        except MemoryError:
            return JSONResponse({"error": "the server is out of memory for this search"}, status_code=503)
        except Exception as error:  # a bug: said in one line, and the server stays up
            return JSONResponse({"error": f"internal error: {type(error).__name__}: {error}"}, status_code=500)

    return endpoint


async def _http_error(request: Request, error: Exception) -> Response:
    assert isinstance(error, HTTPException)
    if request.url.path.startswith("/api/"):
        return JSONResponse({"error": error.detail}, status_code=error.status_code)
    return Response(f"{error.status_code} {error.detail}\n", status_code=error.status_code,
                    media_type="text/plain")


class _SecurityHeaders:
    """Adds SECURITY_HEADERS to every response."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Any) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                headers += [(k.lower().encode(), v.encode()) for k, v in SECURITY_HEADERS.items()]
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, send_with_headers)
