"""The pages name files that exist: a rename that forgets a page fails here."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", ROOT / "CHANGELOG.md", ROOT / "bench" / "RESULTS.md",
         *sorted((ROOT / "docs").glob("*.md"))]
PATH = re.compile(r"`((?:csrc|solver|cli|tests|bench|docs)/[\w./-]+\.(?:c|h|py|sh|md|kat|txt|jsonl|pyi|patch))`")
# Names the changelog keeps on purpose: files renamed or removed since.
RENAMED = {"csrc/tables.c", "csrc/game.c", "csrc/endgame.c", "solver/game.py", "solver/session.py", "bench/strength.py",
           "tests/test_tables.py", "tests/test_game.py", "tests/test_session.py"}


@pytest.mark.parametrize("page", PAGES, ids=[p.name for p in PAGES])
def test_every_file_a_page_names_exists(page: Path) -> None:
    named = set(PATH.findall(page.read_text(encoding="utf-8")))
    if page.name == "CHANGELOG.md":
        named -= RENAMED
    missing = sorted(p for p in named if not (ROOT / p).exists() and "*" not in p)
    assert not missing, f"{page.name} names files that do not exist: {missing}"
