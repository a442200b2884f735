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


def test_every_error_the_library_raises_is_a_solve2048_error() -> None:
    import inspect
    import pkgutil

    from solve2048.errors import Solve2048Error

    errors = []
    for module in pkgutil.iter_modules(solve2048.__path__):
        if module.name in {"cli", "_ffi_build"}:
            continue
        imported = __import__(f"solve2048.{module.name}", fromlist=["_"])
        errors += [cls for _, cls in inspect.getmembers(imported, inspect.isclass)
                   if issubclass(cls, Exception) and cls.__module__.startswith("solve2048")]
    assert len(set(errors)) >= 9
    assert all(issubclass(cls, Solve2048Error) for cls in errors), [
        c for c in errors if not issubclass(c, Solve2048Error)]


def test_library_refusals_keep_the_built_in_base_callers_expect() -> None:
    import pytest

    from solve2048.errors import Solve2048Error

    for call in (lambda: solve2048.Board.parse("2 3"), lambda: solve2048.SearchSettings(depth=99),
                 lambda: solve2048.analyze("2 . . . / . . . . / . . . . / . . . 2", time_ms=float("nan"))):
        with pytest.raises(Solve2048Error) as caught:
            call()
        assert isinstance(caught.value, ValueError)
