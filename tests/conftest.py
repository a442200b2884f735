"""Fixtures and hooks shared by the tests (helpers they import are in helpers.py)."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pytest
from helpers import USER_STATE_VARIABLES

if TYPE_CHECKING:
    from solve2048.tables import TableSpec


@pytest.fixture
def rng() -> np.random.Generator:
    return np.random.default_rng(20481)


# Where this machine keeps a user's tables, saves, caches and settings. For the
# whole session, before any fixture of any scope runs, each points into one
# empty folder of the session's own, so no test sees what the user has
# installed or saved, and none writes to it.
_user_state: dict[str, str | None] = {}


def pytest_configure(config) -> None:
    home = Path(tempfile.mkdtemp(prefix="solve2048-tests-home-"))
    _user_state["folder"] = str(home)
    for name in USER_STATE_VARIABLES:
        _user_state[name] = os.environ.get(name)
        folder = home / name.lower()
        folder.mkdir()
        os.environ[name] = str(folder)
    # Hypothesis keeps the examples it found in a database, by default in the
    # current folder, so one run's failures would steer the next: the session's
    # own folder instead, so every run starts from the same place.
    from hypothesis import settings
    from hypothesis.configuration import set_hypothesis_home_dir
    from hypothesis.database import DirectoryBasedExampleDatabase

    set_hypothesis_home_dir(str(home / "hypothesis"))
    settings.register_profile("isolated", database=DirectoryBasedExampleDatabase(str(home / "hypothesis")))
    settings.load_profile("isolated")


def pytest_unconfigure(config) -> None:
    for name in USER_STATE_VARIABLES:
        if _user_state.get(name) is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = _user_state[name]  # type: ignore[assignment]
    if _user_state.get("folder"):
        shutil.rmtree(_user_state["folder"], ignore_errors=True)


@pytest.fixture(autouse=True)
def no_installed_tables(tmp_path_factory, monkeypatch) -> None:
    """Every test starts with an empty table directory, whatever this machine has
    installed; tests that want tables build their own."""
    monkeypatch.setenv("SOLVE2048_TABLES", str(tmp_path_factory.mktemp("no_tables")))


@pytest.fixture(scope="session")
def built_table() -> Callable[[TableSpec], np.ndarray]:
    """Builds an endgame table once for the whole session, for every test of any
    file that reads it (the bigger ones take seconds each): its built entries,
    16 bits each, as the builder makes them and ``save`` takes them. The arrays
    are read-only, so that no test can change what another one reads."""
    from solve2048.tables_build import compute  # not at the top: this module loads before pytest_configure

    built: dict[TableSpec, np.ndarray] = {}

    def table(spec: TableSpec) -> np.ndarray:
        if spec not in built:
            built[spec] = compute(spec, jobs=2)
            built[spec].flags.writeable = False
        return built[spec]

    return table


@pytest.fixture(scope="session")
def stored_table(built_table) -> Callable[[TableSpec], np.ndarray]:
    """The stored entries (8 bits each) of ``built_table``'s tables, as a table
    file holds them and a TableSet reads them."""
    from solve2048.tables_build import store

    stored: dict[TableSpec, np.ndarray] = {}

    def table(spec: TableSpec) -> np.ndarray:
        if spec not in stored:
            stored[spec] = store(built_table(spec))
            stored[spec].flags.writeable = False
        return stored[spec]

    return table
