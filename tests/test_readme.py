"""The README's Python session runs as shown (doctest), so its output stays real."""

from __future__ import annotations

import doctest
from pathlib import Path

README = Path(__file__).resolve().parent.parent / "README.md"


def test_readme_python_session() -> None:
    text = README.read_text(encoding="utf-8")
    start = text.index("```python\n>>> ") + len("```python\n")
    session = text[start : text.index("```", start)]
    test = doctest.DocTestParser().get_doctest(session, {}, "README", str(README), 0)
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
    runner.run(test)
    assert runner.failures == 0 and runner.tries >= 10
