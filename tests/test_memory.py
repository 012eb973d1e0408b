"""The build process gives the memory its preparation dropped back to the system before the
units build beside it (:func:`errdocs.collector.give_back`; bench/memphases.py measures it)."""

from __future__ import annotations

import gc
import subprocess
import sys
import weakref
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from errdocs import build
from errdocs.units import workers

from .conftest import SAMPLE
from .helpers import build_project

FREED = """
import os
from errdocs.collector import give_back

def rss():
    for line in open("/proc/self/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) // 1024

start = rss()
blocks = [os.urandom(1) * 3000 for _ in range(40000)]  # ~120 MB from the C heap
kept = blocks[::64]  # a few survivors spread over it keep the heap's top where it is
del blocks
held = rss()
give_back()
print(start, held, rss())
"""


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads /proc")
def test_freed_memory_is_given_back_to_the_system() -> None:
    out = subprocess.run([sys.executable, "-c", FREED], capture_output=True, text=True,
                         check=True).stdout
    start, held, after = map(int, out.split())
    assert held - start > 100  # freed, but still the process's
    assert after - start < (held - start) / 4


def test_a_build_gives_back_what_its_preparation_dropped_before_any_unit_is_built(
        project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    steps: list[str] = []
    for module, name in ((build, "_prepare"), (build, "give_back"),
                         (workers, "build_unit")):
        real = getattr(module, name)

        def logged(*args: object, _real: object = real, _name: str = name) -> object:
            value = _real(*args)  # type: ignore[operator]
            steps.append(_name)
            return value
        monkeypatch.setattr(module, name, logged)
    build_project(project, SAMPLE)
    assert steps[:3] == ["give_back", "_prepare", "give_back"]  # after the scan, and after
    assert "build_unit" in steps[3:]


def test_the_docs_folders_walk_is_not_held_once_taken(project: Path) -> None:
    # At 310,000 records the walk's list of files was ~83 MB, held to the build's end by
    # the walk and by what waited for it (the worker's future): once taken, neither holds it.
    from errdocs.project import load_settings

    build_project(project, SAMPLE)  # a generated tree to walk
    made: list[weakref.ref[object]] = []

    def elsewhere(function: Callable[..., Any], *args: object) -> Callable[[], Any]:
        docs = function(*args)
        made.append(weakref.ref(docs))
        return lambda: docs  # as a future does, holds the result

    walk = build._Walk(load_settings(project / "mkdocs.yml"), elsewhere)
    docs = walk.take()
    assert not docs.files  # (written to a file, for the process preparing the build)
    assert any(path.startswith("errors/") for path in docs.paths())
    edited = walk.edited()
    del docs
    gc.collect()
    assert made[0]() is None
    assert walk.edited() is edited


@pytest.mark.parametrize("jobs", [1, 2])
def test_the_docs_folders_paths_are_read_only_where_sorted(
        project: Path, monkeypatch: pytest.MonkeyPatch, jobs: int) -> None:
    # Read at the preparation's start, they were held through the data files' making: ~80 MB
    # at 310,000 records, at the top of a refresh's preparation. Now nothing holds them
    # before the hand-written files are told apart, and the file of them is gone after.
    from errdocs.project import load_settings

    build_project(project, SAMPLE)  # a generated tree to walk
    seen = project / "seen.txt"  # (with two jobs the plan is made in a child process)
    real_filters, real_sort = build.filter_files, build._hand_written

    def filters(*args: Any, **kwargs: Any) -> Any:
        held = sum(len(x.files) for x in gc.get_objects() if isinstance(x, build._Docs))
        with seen.open("a") as file:
            file.write(f"held {held}\n")
        return real_filters(*args, **kwargs)

    def sorting(settings: Any, docs: Any, *args: Any) -> Any:
        with seen.open("a") as file:
            file.write(f"paths {sum(1 for _ in docs.paths())} {docs.written.exists()}\n")
        return real_sort(settings, docs, *args)

    monkeypatch.setattr(build, "filter_files", filters)
    monkeypatch.setattr(build, "_hand_written", sorting)
    config = project / "mkdocs.yml"
    config.write_text(config.read_text() + "\n# every unit again\n")
    build.build_sharded(load_settings(config), [SAMPLE], jobs=jobs, show_progress=False)
    held, paths = seen.read_text().splitlines()
    files = sum(1 for x in (project / "docs").rglob("*") if x.is_file())
    assert (held, paths) == ("held 0", f"paths {files} True")
    assert not (project / ".errdocs" / build.DOCS).exists()
