"""``solve2048 serve``: the game in the browser, with the solver beside it.

The page and its API are solve2048.web.app; this command checks the options,
binds the socket itself (so a port in use is one line, and ``--port 0`` can
print the port it got), and hands it to uvicorn.
"""

from __future__ import annotations

import ipaddress
import os
import socket
import sys
import threading
import webbrowser

import click

from solve2048.cli.params import DEPTH, TIME_MS, InputError, settings_options
from solve2048.settings import SearchSettings
from solve2048.web.api import DEFAULT_MAX_DEPTH, DEFAULT_MAX_TIME_MS, ApiError, Limits
from solve2048.web.app import create_app

DEFAULT_PORT = 8048
# Open connections beyond this get 503 from uvicorn: a page needs a handful.
MAX_CONNECTIONS = 64
KEEP_ALIVE_SECONDS = 5


@click.command()
@click.option("--host", default="127.0.0.1", show_default=True,
              help="Address to listen on. Anything but a loopback address lets other machines in.")
@click.option("--port", type=click.IntRange(0, 65535), default=DEFAULT_PORT, show_default=True,
              help="Port to listen on (0 = any free port; the address printed says which).")
@click.option("--open/--no-open", "open_page", default=None,
              help="Open the page in a browser (default: when there is a desktop).")
@click.option("--max-depth", type=DEPTH, default=DEFAULT_MAX_DEPTH, show_default=True,
              help="The deepest search a request may ask for (auto counts as 5, untimed).")
@click.option("--max-time", "max_time_ms", type=TIME_MS, default=DEFAULT_MAX_TIME_MS, show_default=True,
              help="The longest --time (ms) a request may ask for.")
@click.option("--max-searches", type=click.IntRange(1, 256), default=None,
              help="Searches that run at once (default: one per core); more requests wait their turn.")
@settings_options
def serve(host: str, port: int, open_page: bool | None, max_depth: int | str, max_time_ms: float,
          max_searches: int | None, settings: SearchSettings) -> None:
    """The game of 2048 in the browser, with hints, autoplay, a position editor and
    the review of each move, served on HOST:PORT until Ctrl-C.

    The search options (--depth, --time, --danger, --quiescence,
    --late-quiescence, the tables') are the page's defaults; the page may choose
    its depth and time within --max-depth and --max-time, --danger holds for its
    fixed depths below the deepest, untimed, and --quiescence and
    --late-quiescence wherever their one more move stays within --max-depth.
    """
    import uvicorn  # here, not at import: the other commands never pay for it

    if max_depth == "auto":
        raise click.BadParameter("expected a number from 1 up", param_hint="'--max-depth'")
    try:
        given = {"max_searches": max_searches} if max_searches else {}
        limits = Limits(max_depth=int(max_depth), max_time_ms=max_time_ms, **given)
        app = create_app(settings, limits)
    except (ApiError, ValueError) as error:
        raise InputError(str(error)) from None
    listener = _listen(host, port)
    url = _url(host, listener.getsockname()[1])
    if not _is_loopback(host):
        click.echo(f"solve2048: warning: listening on {host}: anyone who can reach this machine "
                   "can use the page and its solver", err=True)
    click.echo(f"solve2048 serve: {url} (Ctrl-C stops it)")
    sys.stdout.flush()
    if open_page if open_page is not None else _has_desktop():
        threading.Thread(target=webbrowser.open, args=(url,), daemon=True).start()
    config = uvicorn.Config(app, log_level="warning", access_log=False, lifespan="on",
                            limit_concurrency=MAX_CONNECTIONS, timeout_keep_alive=KEEP_ALIVE_SECONDS)
    # uvicorn finishes the requests in flight on Ctrl-C, then raises it again:
    # the group's handler says "interrupted" and exits 130, as for every command.
    uvicorn.Server(config).run(sockets=[listener])


def _listen(host: str, port: int) -> socket.socket:
    """A listening socket on host:port, or one line saying why not (exit 2)."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except socket.gaierror as error:
        raise _cannot_listen(host, port, error.strerror or str(error)) from None
    family, kind, proto, _, address = infos[0]
    listener = socket.socket(family, kind, proto)
    try:
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        # asyncio sets TCP_NODELAY on accepted sockets only when it sees the TCP
        # protocol number, which getaddrinfo may leave 0; without it every answer
        # on a kept-alive connection waits 40 ms (Nagle and delayed ACKs), which
        # would cap autoplay near 20 moves a second. Accepted sockets inherit it.
        if family in (socket.AF_INET, socket.AF_INET6):
            listener.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        listener.bind(address)
        listener.listen(128)
    except OSError as error:
        listener.close()
        hint = " (another server may be using it; try --port 0)" if error.errno == 98 else ""
        raise _cannot_listen(host, port, f"{error.strerror or error}{hint}") from None
    return listener


def _cannot_listen(host: str, port: int, why: str) -> click.ClickException:
    return InputError(f"cannot listen on {host}:{port}: {why}")


def _url(host: str, port: int) -> str:
    shown = "127.0.0.1" if host in ("0.0.0.0", "") else "[::1]" if host == "::" else host
    if ":" in shown and not shown.startswith("["):
        shown = f"[{shown}]"
    return f"http://{shown}:{port}/"


def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False  # a name: it may resolve to any address


def _has_desktop() -> bool:
    """A browser can be opened: a desktop session, not a server shell or CI."""
    if sys.platform in ("darwin", "win32"):
        return True
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))
