"""The suite never sees the user's machine: tables, saves, caches and settings."""

from __future__ import annotations

import os
from pathlib import Path

from helpers import USER_STATE_VARIABLES

from solve2048.saves import data_dir
from solve2048.tables import default_dir


def test_user_folders_point_into_the_sessions_own_empty_home() -> None:
    home = Path(os.environ["HOME"])
    assert home.name == "home" and home.parent.name.startswith("solve2048-tests-home-")
    for name in USER_STATE_VARIABLES:
        if name != "SOLVE2048_TABLES":  # each test gets its own empty one (conftest)
            assert Path(os.environ[name]).parent == home.parent, name
    # The per-test table folder is empty; the data folder is the session's.
    assert not any(default_dir().iterdir())
    assert data_dir().parent == home.parent
