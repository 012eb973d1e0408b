"""A job array's steps on one machine: N separate copies of the project each build their slice
with ``--shard auto`` and the array engine's variables, their units are collected into one
project, ``errdocs merge`` assembles the site there, and it equals a single ``errdocs build`` of
the same data byte for byte (``SOURCE_DATE_EPOCH`` pins the build date, so the sitemap's dates
agree too: nothing is left aside)."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from errdocs.cli import main
from errdocs.units import engine
from errdocs.units import plan as shards

from .conftest import SAMPLE, copy_project
from .helpers import site_tree

pytestmark = pytest.mark.slow
TASKS = 3
SITE_URL = "site_url: https://example.org/docs/\n"
JOB_VARS = ("ERRDOCS_SHARD", "ERRDOCS_SHARDS", "JOB_COMPLETION_INDEX", "SLURM_ARRAY_TASK_ID",
            "SLURM_ARRAY_TASK_MIN", "SLURM_ARRAY_TASK_STEP", "SLURM_ARRAY_TASK_COUNT")


def _array_env(array: str, task: int) -> dict[str, str]:
    """What the engine sets in task ``task`` (0-based) of an array of TASKS tasks."""
    assert array == "kubernetes"  # an Indexed Job of TASKS completions; the pod spec sets N
    return {"JOB_COMPLETION_INDEX": str(task), "ERRDOCS_SHARDS": str(TASKS)}


def _machine(folder: Path) -> Path:
    """A fresh checkout of the project with the data beside it, as on another machine."""
    project = copy_project(folder)
    config = project / "mkdocs.yml"
    config.write_text(SITE_URL + config.read_text("utf-8"), "utf-8")
    shutil.copy(SAMPLE, project / "data.jsonl")
    return project


def _run(project: Path, *args: str, env: dict[str, str] | None = None) -> str:
    result = CliRunner().invoke(main, [args[0], str(project / "data.jsonl"), "-f",
                                       str(project / "mkdocs.yml"), *args[1:]], env=env)
    assert result.exit_code == 0, result.output
    return result.output


@pytest.fixture(scope="module")
def small_units() -> Iterator[None]:
    """Units of a few pages (so the sample makes many) and a fixed build date."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(shards, "UNIT_SIZE", 32)
        patch.setenv("SOURCE_DATE_EPOCH", "1767225600")
        for name in JOB_VARS:
            patch.delenv(name, raising=False)
        yield


@pytest.fixture(scope="module")
def single_build(tmp_path_factory: pytest.TempPathFactory, small_units: None) -> dict[str,
                                                                                     bytes]:
    """The site of one plain ``errdocs build`` of the same data on one machine."""
    project = _machine(tmp_path_factory.mktemp("single"))
    _run(project, "build", "-j", "2")
    return site_tree(project / "site")


# Slurm runs the same steps through deploy/errdocs-array.sh (tests/test_deploy.py).
@pytest.mark.parametrize("array", ["kubernetes"])
def test_a_job_array_then_merge_equals_a_single_build(
        tmp_path: Path, array: str, small_units: None, single_build: dict[str, bytes]) -> None:
    built: dict[str, int] = {}
    for task in range(TASKS):
        machine = _machine(tmp_path / f"task-{task}")
        env = _array_env(array, task)
        out = _run(machine, "build", "--shard", "auto", "-j", "1", env=env)
        slice_line = out.splitlines()[-1]
        assert slice_line.startswith(f"Slice {task + 1}/{TASKS} (")
        assert slice_line.endswith(") built; run `errdocs merge` when every slice is built")
        assert not (machine / "site").exists()
        units = sorted(p.name for p in (machine / ".errdocs" / "units").iterdir())
        assert units, f"task {task} built no unit"
        for name in units:
            assert name not in built, f"{name} built by tasks {built[name]} and {task}"
            built[name] = task
    # The merging machine: a fresh checkout, every task's units collected (the artifacts).
    merger = _machine(tmp_path / "merge")
    for task in range(TASKS):
        shutil.copytree(tmp_path / f"task-{task}" / ".errdocs" / "units",
                        merger / ".errdocs" / "units", dirs_exist_ok=True)
    out = _run(merger, "merge")
    # every unit of the plan was built by exactly one task and none again here; only the
    # units made from the site's history (which slices never build) are built by the merge
    history = sorted(p.name for p in (merger / ".errdocs" / "units").iterdir()
                     if p.name not in built)
    assert history and all(name == shards.CHANGES or name.startswith(shards.PAST + "-")
                           for name in history), history
    assert out.endswith(f"units: {len(history)} built, {len(built)} reused\n"
                        f"Site built in {merger / 'site'}\n")
    merged = site_tree(merger / "site")
    assert merged.keys() == single_build.keys()
    for name, content in merged.items():
        assert content == single_build[name], name


def test_the_engine_is_part_of_every_unit_key(tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """Units built by MkDocs are never taken as ProperDocs' (``errdocs merge`` is given the
    slices' ``--engine``, or it finds every unit stale and refuses)."""
    config = copy_project(tmp_path) / "mkdocs.yml"
    mkdocs_key = shards.global_key(config)
    monkeypatch.setattr(engine, "label", lambda: "properdocs==1.6.7")
    assert shards.global_key(config) != mkdocs_key
