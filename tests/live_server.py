"""A real uvicorn server on a free loopback port, in a thread of the test process,
for the API tests and the browser tests; and a small JSON client over http.client."""

from __future__ import annotations

import http.client
import json
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import uvicorn
from starlette.applications import Starlette


@contextmanager
def serving(app: Starlette) -> Iterator[str]:
    """Runs ``app`` until the block ends; yields its address, "http://127.0.0.1:PORT"."""
    listener = socket.socket()
    # As cli/serve.py: without TCP_NODELAY each kept-alive answer waits 40 ms on
    # Nagle and the client's delayed ACK.
    listener.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    listener.bind(("127.0.0.1", 0))
    listener.listen(64)
    config = uvicorn.Config(app, log_level="warning", access_log=False, lifespan="on")
    server = uvicorn.Server(config)
    server.install_signal_handlers = lambda: None  # type: ignore[method-assign]  # not the main thread
    thread = threading.Thread(target=server.run, kwargs={"sockets": [listener]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("the test server did not start")
        time.sleep(0.01)
    try:
        yield f"http://127.0.0.1:{listener.getsockname()[1]}"
    finally:
        server.should_exit = True
        thread.join(10)
        listener.close()


def request(base: str, method: str, path: str, body: bytes | str | None = None,
            headers: dict[str, str] | None = None, timeout: float = 30) -> tuple[int, dict[str, str], bytes]:
    """One request; returns (status, headers, body)."""
    host, port = base.removeprefix("http://").split(":")
    connection = http.client.HTTPConnection(host, int(port), timeout=timeout)
    try:
        connection.request(method, path, body=body, headers=headers or {})
        response = connection.getresponse()
        return response.status, {k.lower(): v for k, v in response.getheaders()}, response.read()
    finally:
        connection.close()


def post_json(base: str, path: str, body: Any) -> tuple[int, Any]:
    """POSTs ``body`` as JSON (or a str/bytes as it is); returns (status, the answer's JSON)."""
    raw = body if isinstance(body, (str, bytes)) else json.dumps(body)
    status, _, answer = request(base, "POST", path, raw, {"Content-Type": "application/json"})
    return status, json.loads(answer)
