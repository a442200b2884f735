"""Long C calls that Ctrl-C can still stop.

Python runs its SIGINT handler only between bytecodes of the main thread, so
a search of minutes inside one C call (which releases the GIL) would hold Ctrl-C
back until it returned. Running the call in a worker thread keeps the main
thread waiting in Python, where KeyboardInterrupt arrives at once; the abandoned
search dies with the process (a daemon thread).
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import FrameType
from typing import TypeVar

T = TypeVar("T")
POLL_SECONDS = 0.1


def interruptible(call: Callable[[], T]) -> T:
    """Returns ``call()``, run in a daemon thread; Ctrl-C raises KeyboardInterrupt here at once."""
    outcome: dict[str, object] = {}

    def run() -> None:
        try:
            outcome["value"] = call()
        except BaseException as error:  # handed to the caller's thread, raised there
            outcome["error"] = error

    worker = threading.Thread(target=run, name="solve2048-search", daemon=True)
    worker.start()
    while worker.is_alive():
        worker.join(POLL_SECONDS)
    if "error" in outcome:
        raise outcome["error"]  # type: ignore[misc]
    return outcome["value"]  # type: ignore[return-value]


@contextmanager
def terminate_as_interrupt() -> Iterator[None]:
    """Within it, SIGTERM (kill, timeout, a service manager) stops the command
    as Ctrl-C does: a batch then stops its workers and keeps what is done,
    where the default action would end the caller alone and leave its workers
    playing on. Only the main thread can set a handler; elsewhere nothing changes."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def handler(signum: int, frame: FrameType | None) -> None:
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)
