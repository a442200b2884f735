"""The package's face: its docstring's example runs, its version has one source."""

from __future__ import annotations

import doctest
import re
from pathlib import Path

import solve2048

PYPROJECT = Path(__file__).resolve().parent.parent / "pyproject.toml"


def test_the_package_docstring_example_runs() -> None:
    result = doctest.testmod(solve2048, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted >= 4 and result.failed == 0


def test_the_version_is_the_one_in_pyproject() -> None:
    # (tomllib is Python 3.11+; the project runs on 3.10 too)
    declared = re.search(r'^version = "([^"]+)"', PYPROJECT.read_text(encoding="utf-8"), re.M).group(1)
    assert solve2048.__version__ == declared


def test_what_users_reach_for_is_exported() -> None:
    for name in ("Board", "Move", "analyze", "decide", "SearchSettings", "Game", "play_game", "load_tables"):
        assert name in solve2048.__all__ and hasattr(solve2048, name), name
