"""The build's worker processes (``units/workers.py``)."""

from __future__ import annotations

import os
import signal
import threading
from collections import Counter
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from errdocs import build as sharded
from errdocs.cli import main
from errdocs.pages import excerpt, render
from errdocs.units import build as unitbuild
from errdocs.units import plan, workers
from errdocs.units.build import Context, StagedUnit
from errdocs.units.plan import Unit
from errdocs.units.workers import Workers

from .helpers import site_tree
from .sites import SAMPLE


def _made() -> tuple[int, int, int]:
    """In a worker: the template environments it made, the templates it holds compiled and
    the file name endings whose language it looked up."""
    made = render.environment.cache_info().currsize
    compiled = len(render.environment().cache or {}) if made else 0
    return made, compiled, excerpt._lexer_alias.cache_info().currsize


def test_a_worker_compiles_the_templates_and_pygments_patterns_as_it_starts() -> None:
    # Forked from a process that has made none of it, so the worker made what it holds.
    render.environment.cache_clear()
    excerpt._lexer_alias.cache_clear()
    with Workers(2) as workers:
        call = workers.call(_made)
        assert call is not None
        made, compiled, looked = call()
    templates = render.environment().list_templates(extensions=["j2"])
    assert made == 1 and compiled == len(templates) > 5
    assert looked >= 1


def _killed(ctx: Context, unit: Unit) -> StagedUnit:
    """A unit's build, in a worker the system kills as it starts (out of memory)."""
    os.kill(os.getpid(), signal.SIGKILL)
    raise AssertionError("not reached")


def _killed_in_the_plan(*_args: object) -> None:
    """A step of the plan, in its child process, which the system kills (out of memory)."""
    os.kill(os.getpid(), signal.SIGKILL)


@pytest.mark.parametrize(("where", "name", "replacement", "what"), [
    # A pool that waits for the lost unit never returns: the test must not hang with it.
    (workers, "stage_unit", _killed, "a worker process ended while building"),
    # With workers, the plan is made in a child process of the build (errdocs.units.child).
    (sharded, "_carry_dates", _killed_in_the_plan, "the process preparing the build ended"),
])
def test_a_process_of_the_build_killed_fails_it_and_leaves_the_site(
        project: Path, monkeypatch: pytest.MonkeyPatch, where: object, name: str,
        replacement: object, what: str) -> None:
    args = ["build", str(SAMPLE), "-f", str(project / "mkdocs.yml"), "-j", "2"]
    assert CliRunner().invoke(main, args).exit_code == 0
    site = site_tree(project / "site")
    config = project / "mkdocs.yml"  # every unit to build again
    config.write_text(config.read_text("utf-8").replace("site_name: errdocs",
                                                        "site_name: errdocs here", 1), "utf-8")
    monkeypatch.setattr(where, name, replacement)  # the processes fork with it
    outcome: list[Result] = []
    thread = threading.Thread(target=lambda: outcome.append(CliRunner().invoke(main, args)),
                              daemon=True)
    thread.start()
    thread.join(300)
    assert outcome, "the build waited for the dead process"
    assert outcome[0].exit_code == 1
    assert outcome[0].output.splitlines()[-1] == (
        f"Error: {what} (killed by SIGKILL); if the system ran out of memory, build with fewer "
        "jobs (-j 1); the previous site was left as it was")
    assert site_tree(project / "site") == site
    monkeypatch.undo()
    assert CliRunner().invoke(main, args).exit_code == 0
    assert "errdocs here" in (project / "site" / "index.html").read_text("utf-8")
    assert not list((project / ".errdocs").rglob(".tmp-*"))


def test_the_process_preparing_the_build_is_named(
        project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # So that ps and top tell it from the workers (and bench/run.py gives its memory apart).
    seen = tmp_path / "comm"
    carry = sharded._carry_dates

    def named(*args: object) -> None:
        seen.write_text(Path("/proc/self/comm").read_text("utf-8"), "utf-8")
        carry(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(sharded, "_carry_dates", named)
    args = ["build", str(SAMPLE), "-f", str(project / "mkdocs.yml"), "-j", "2"]
    assert CliRunner().invoke(main, args).exit_code == 0
    assert seen.read_text("utf-8") == "errdocs-plan\n"
    assert Path("/proc/self/comm").read_text("utf-8") != "errdocs-plan\n"


_LEFT: list[bytes] = []
"""What each unit's MkDocs run leaves behind in its process (see the test below)."""


def test_what_a_unit_leaves_in_memory_goes_with_it(
        project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # A long-lived worker kept the high-water mark of every unit it built (330 MB after
    # twenty hub units at 310,000 records): each unit now runs in a child of its worker.
    seen = tmp_path / "seen.txt"
    run = unitbuild._run_mkdocs

    def leaving(*args: object, **kwargs: object) -> object:
        with open(seen, "a", encoding="utf-8") as out:
            out.write(f"{os.getppid()} {len(_LEFT)}\n")
        _LEFT.append(b"x" * 1_000_000)
        return run(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(unitbuild, "_run_mkdocs", leaving)  # before the workers fork
    monkeypatch.setattr(plan, "UNIT_SIZE", 8)  # more units than workers
    args = ["build", str(SAMPLE), "-f", str(project / "mkdocs.yml"), "-j", "2"]
    assert CliRunner().invoke(main, args).exit_code == 0
    runs = [line.split() for line in seen.read_text("utf-8").splitlines()]
    by_worker = Counter(parent for parent, _left in runs)
    assert len(runs) >= 6 and max(by_worker.values()) >= 3  # workers built several units
    assert {left for _parent, left in runs} == {"0"}
