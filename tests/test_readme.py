"""The README shows real output: its Python session runs as a doctest, and
every command of its ``console`` blocks is run and its output compared."""

from __future__ import annotations

import doctest
import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

README = Path(__file__).resolve().parent.parent / "README.md"
TEXT = README.read_text(encoding="utf-8")

# What honestly varies from run to run: times, speeds, and the seed a game
# picks when it is given none. Each is replaced by a mark in the shown and in
# the real output alike; everything else must match character for character.
VOLATILE = [
    re.compile(r"\d[\d,]*(\.\d+)? ?(µs|ms|s)\b"),                # a duration
    re.compile(r"\d[\d,]*(\.\d+)? (moves|nodes)/s"),              # a speed
    re.compile(r"(Nodes/second|ms per move|Total time): +\S+"),  # bench's timing lines
    re.compile(r"\"(seconds|moves_per_second|seconds_per_game|nodes_per_second|ms_per_move_median)\": [\d.e+-]+"),
]
SKIP = "..."          # a line of its own in shown output: any number of lines here
EXIT_MARK = re.compile(r"\s+#\s*exit code (\d+)\s*$")


@dataclass
class Example:
    line: int        # of the command in README.md
    command: str
    shown: list[str]
    exit_code: int


def console_blocks(text: str) -> list[list[Example]]:
    """The commands of each ```console block, each with the output shown under it."""
    blocks: list[list[Example]] = []
    for block in re.finditer(r"^```console\n(.*?)^```", text, re.S | re.M):
        first_line = text.count("\n", 0, block.start()) + 2
        examples: list[Example] = []
        for offset, row in enumerate(block.group(1).splitlines()):
            if row.startswith("$ "):
                mark = EXIT_MARK.search(row)
                command = row[2:mark.start()] if mark else row[2:]
                examples.append(Example(first_line + offset, command.strip(), [],
                                        int(mark.group(1)) if mark else 0))
            elif examples:
                examples[-1].shown.append(row)
        blocks.append(examples)
    return blocks


BLOCKS = console_blocks(TEXT)


def normalise(line: str) -> str:
    for pattern in VOLATILE:
        line = pattern.sub("<varies>", line)
    return line.rstrip()


def matches(shown: list[str], real: list[str]) -> bool:
    """Whether the real lines are the shown ones, a SKIP line standing for any run of lines."""
    pattern = "".join(r"(?:.*\n)*?" if row.strip() == SKIP else re.escape(normalise(row)) + r"\n"
                      for row in shown)
    return re.fullmatch(pattern, "".join(normalise(row) + "\n" for row in real)) is not None


def test_the_readme_has_console_examples_and_shows_no_command_outside_them() -> None:
    assert sum(len(block) for block in BLOCKS) >= 8
    outside = re.sub(r"^```console\n.*?^```", "", TEXT, flags=re.S | re.M)
    # A shown run of solve2048 outside a console block would escape this test.
    assert not re.search(r"^\$ solve2048", outside, re.M)


@pytest.mark.parametrize("block", BLOCKS, ids=[f"line{b[0].line}" for b in BLOCKS])
def test_readme_commands_print_what_the_readme_shows(block: list[Example], tmp_path: Path) -> None:
    # A block's commands run in order in a folder of their own, so that a file
    # one writes is there for the next; tables and saves are the tests' own, empty.
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
           "SOLVE2048_TABLES": str(tmp_path / "no-tables"), "COLUMNS": "100"}
    workdir = tmp_path / "work"
    workdir.mkdir()
    # The time limit guards against a hang, not a slow machine: the batch
    # examples take minutes beside a long run on the same cores.
    for example in block:
        done = subprocess.run(["bash", "-c", example.command], cwd=workdir, env=env, stdin=subprocess.DEVNULL,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=600)
        shown = "\n".join(example.shown)
        assert done.returncode == example.exit_code, f"README line {example.line}: {example.command}\n{done.stdout}"
        assert matches(example.shown, done.stdout.splitlines()), (
            f"README line {example.line}: `{example.command}` printed\n{done.stdout}\nbut the README shows\n{shown}")


def test_readme_python_session() -> None:
    start = TEXT.index("```python\n>>> ") + len("```python\n")
    session = TEXT[start : TEXT.index("```", start)]
    test = doctest.DocTestParser().get_doctest(session, {}, "README", str(README), 0)
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
    runner.run(test)
    assert runner.failures == 0 and runner.tries >= 10


def test_the_matcher_catches_a_changed_figure_and_passes_only_times() -> None:
    shown = ["game over: score 133,036 · 5,601 moves", "seed 5 · depth 3 · 86.83 ms · 64,504 moves/s"]
    assert matches(shown, ["game over: score 133,036 · 5,601 moves", "seed 5 · depth 3 · 1.20 s · 9 moves/s"])
    assert not matches(shown, ["game over: score 133,037 · 5,601 moves", shown[1]])
    assert not matches(shown, shown[:1])
    assert matches(["a", SKIP, "z"], ["a", "b", "c", "z"]) and not matches(["a", SKIP, "z"], ["a", "b"])
