"""``solve2048 tables build`` and ``solve2048 tables info``: the endgame tables on disk."""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path
from typing import Any

import click

from solve2048.cli.params import ParamType
from solve2048.cli.render import duration
from solve2048.tables import (
    DEFAULT_SPECS,
    ENV_DIR,
    KNOWN_SPECS,
    SHAPES,
    TableSet,
    TableSpec,
    default_dir,
    installed_specs,
    scan,
)
from solve2048.tables_build import BuildReport, build_all, build_memory, is_finished

DIR_OPTION = click.option(
    "--dir", "directory", type=click.Path(file_okay=False, path_type=Path), default=None,
    help=f"Table directory (default: ${ENV_DIR}, else the user cache directory).",
)


@click.group()
def tables() -> None:
    """Exact endgame tables: built once, then used by play, batch, hint and game."""


def _megabytes(n: int) -> str:
    return f"{n / 1e6:,.0f} MB"


class SpecParam(ParamType[TableSpec]):
    """entry-FREE:GOAL, chain-FREE:ANCHOR or block-FREE:GOAL, e.g. entry-11:64: one known table."""

    name = "FREE:GOAL"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> TableSpec:
        if isinstance(value, TableSpec):
            return value
        for spec in KNOWN_SPECS:
            if value.strip() == spec.label:
                return spec
        known = ", ".join(s.label for s in KNOWN_SPECS)
        self.fail(f"no table {value!r}; the tables are {known}", param, ctx)


@tables.command()
@DIR_OPTION
@click.option("-j", "--jobs", type=click.IntRange(1, 256), default=None,
              help="Threads per table  [default: all cores]")
@click.option("--only", "only", type=SpecParam(), multiple=True,
              help="Build just this table (repeatable), e.g. --only entry-11:64; the optional "
                   "tables too, e.g. --only block-7:256 or --only entry-11:256.")
def build(directory: Path | None, jobs: int | None, only: tuple[TableSpec, ...]) -> None:
    """Build the default tables (11.1 GB; peak memory 7.0 GB, the largest table and three of its layers).

    Tables already built are kept, so after an interrupt the same command resumes.
    """
    directory = directory or default_dir()
    specs = tuple(sorted(set(only))) or DEFAULT_SPECS
    total = sum(s.size_bytes for s in specs)
    memory = {spec: build_memory(spec) for spec in specs}
    click.echo(f"building {len(specs)} table{'' if len(specs) == 1 else 's'} ({_megabytes(total)}, "
               f"at most {_megabytes(max(memory.values()))} of memory at once) in {directory}", err=True)
    _warn_of_memory(directory, memory)
    started = time.perf_counter()
    bar = _BuildBar()

    def done(report: BuildReport) -> None:
        bar.clear()
        what = (f"built in {duration(report.seconds)}" if report.built
                else f"converted from 16-bit entries in {duration(report.seconds)}" if report.converted
                else "already built")
        click.echo(f"  {report.spec}: {_megabytes(report.size_bytes)}, {what}", err=True)

    build_all(directory, specs, jobs or os.cpu_count() or 1, bar.update, done)
    click.echo(f"done in {duration(time.perf_counter() - started)}: {_megabytes(total)} in {directory}")


def _available_memory() -> int | None:
    """Bytes of memory available now (Linux's MemAvailable), or None where
    the system does not say."""
    try:
        with open("/proc/meminfo", encoding="ascii") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        return None
    return None


def _warn_of_memory(directory: Path, memory: dict[TableSpec, int]) -> None:
    """One line on stderr when a table still to build needs more memory than
    is available now (``memory``: what each table's build holds): said before
    the minutes of work, not after them."""
    to_build = [spec for spec in memory if not is_finished(spec, directory)]
    available = _available_memory()
    if not to_build or available is None:
        return
    biggest = max(to_build, key=memory.__getitem__)
    if memory[biggest] > available:
        click.echo(f"solve2048: warning: {biggest.label} holds {_megabytes(memory[biggest])} while it is "
                   f"built, and {_megabytes(available)} of memory are available now; the build may be slow or "
                   "be stopped by the system (the smaller tables can be built first with --only)", err=True)


class _BuildBar:
    """Progress on stderr: on a terminal one line rewritten in place; elsewhere
    (a log, a pipe) one line at every tenth of each table, so that a build of
    many minutes still says how far it is."""

    def __init__(self) -> None:
        self.live = sys.stderr.isatty()
        self.last = 0.0
        self.tenths: dict[TableSpec, int] = {}

    def update(self, spec: TableSpec, done: int, total: int) -> None:
        if not self.live:
            tenth = 10 * done // total
            if tenth > self.tenths.get(spec, 0):
                self.tenths[spec] = tenth
                click.echo(f"  {spec}: {10 * tenth}%", err=True)
            return
        now = time.perf_counter()
        if now - self.last < 0.2 and done < total:
            return
        self.last = now
        click.echo(f"\r  {spec}: {100 * done / total:5.1f}%", err=True, nl=False)

    def clear(self) -> None:
        if self.live:
            click.echo("\r\033[K", err=True, nl=False)


@tables.command()
@DIR_OPTION
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object to stdout.")
@click.option("--no-verify", is_flag=True, help="Check headers and sizes only, not checksums.")
def info(directory: Path | None, as_json: bool, no_verify: bool) -> None:
    """Say which tables are installed, missing, outdated or damaged."""
    directory = directory or default_dir()
    files = scan(directory, installed_specs(directory), verify=not no_verify, recheck=True)
    defaults = TableSet({})   # the thresholds the playing commands use, at their default --table-min-prob
    rows: list[dict[str, Any]] = [{"free_cells": f.spec.free_cells, "goal": 1 << f.spec.goal, "frozen": f.spec.frozen,
             "shape": SHAPES[f.spec.shape], "file": f.spec.filename, "bytes": f.spec.size_bytes,
             "trusted_from": defaults.threshold(f.spec), "status": f.status, "problem": f.problem}
            for f in files]
    if as_json:
        click.echo(json.dumps({"directory": str(directory), "tables": rows}))
        return
    click.echo(f"tables in {directory}:")
    for f, row in zip(files, rows, strict=True):
        click.echo(f"  {row['free_cells']:>2} free cells, {row['shape']:<5} {f.spec.goal_word:<6} "
                   f"{row['goal']:>4}: {row['status']:<8} {_megabytes(row['bytes']):>9}  "
                   f"trusted from {row['trusted_from']:<3g}  {row['file']}")
        if row["problem"]:
            # The line above names the file; the problem says what is wrong with it.
            click.echo(f"      {row['problem'].removeprefix(f'{f.path}: ')}")
    ok = sum(r["status"] == "ok" for r in rows)
    click.echo(f"{ok} of {len(rows)} installed" + ("" if ok == len(rows) else "; run `solve2048 tables build`"))
    optional = len(KNOWN_SPECS) - len(rows)
    if optional:
        click.echo(f"{optional} optional tables not built (e.g. `solve2048 tables build --only block-7:256`)")
