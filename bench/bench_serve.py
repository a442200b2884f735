"""What the web server adds to a hint: POST /api/hint over a kept-alive HTTP
connection against decide() in the same process, at depth 3 on the bench positions.

Run: pytest bench/bench_serve.py --benchmark-columns=median,rounds
extra_info holds ms per hint (median over rounds of the whole set / positions).
"""

from __future__ import annotations

import http.client
import json
import sys
from pathlib import Path

import pytest

from solve2048.benchmark import load_positions
from solve2048.decide import decide
from solve2048.settings import SearchSettings
from solve2048.web.app import create_app

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from live_server import serving  # the tests' server helper (tests/ is not a package)

POSITIONS = load_positions()
DEPTH = 3


def _per_hint(benchmark) -> None:
    benchmark.extra_info["ms_per_hint"] = benchmark.stats.stats.median / len(POSITIONS) * 1e3


@pytest.fixture(scope="module")
def connection():
    with serving(create_app(SearchSettings())) as base:
        host, port = base.removeprefix("http://").split(":")
        client = http.client.HTTPConnection(host, int(port), timeout=30)
        yield client
        client.close()


def test_decide_in_process(benchmark) -> None:
    settings = SearchSettings(depth=DEPTH)
    benchmark(lambda: [decide(b, settings) for b in POSITIONS])
    _per_hint(benchmark)


def test_hint_over_http(benchmark, connection) -> None:
    # bytes, not str: http.client then sends the headers and the body in one packet
    # (a str body goes apart, and Nagle with delayed ACKs costs 40 ms a request).
    bodies = [json.dumps({"board": list(b.cells), "depth": DEPTH}).encode() for b in POSITIONS]
    headers = {"Content-Type": "application/json"}

    def ask_all() -> None:
        for body in bodies:
            connection.request("POST", "/api/hint", body, headers)
            answer = connection.getresponse()
            assert answer.status == 200
            answer.read()

    benchmark(ask_all)
    _per_hint(benchmark)
