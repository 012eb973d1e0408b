"""The generated Markdown tree for the sample dataset, diffed against a golden copy.

After an intended change, refresh with ``ERRDOCS_UPDATE_GOLDEN=1 pytest tests/test_golden.py``
and review the diff of ``tests/golden/`` like any other change.
"""

from __future__ import annotations

import difflib
import os
import shutil
from pathlib import Path

from errdocs.pipeline import generate
from errdocs.project import load_settings

from .conftest import ROOT, SAMPLE
from .sites import copy_project

GOLDEN = ROOT / "tests" / "golden" / "sample"


def _tree(root: Path) -> dict[str, str]:
    return {p.relative_to(root).as_posix(): p.read_text("utf-8")
            for p in sorted(root.rglob("*")) if p.is_file()}


def _generate(project: Path) -> tuple[Path, tuple[int, int]]:
    """``errdocs generate`` of the sample in ``project`` (a fresh copy of the project the
    first time): its tree, and what it wrote and removed."""
    if not project.exists():
        copy_project(project)
    settings = load_settings(project / "mkdocs.yml")
    report = generate(settings, [SAMPLE])
    return settings.out_dir, (report.written, report.removed)


def test_sample_tree_matches_golden(tmp_path: Path) -> None:
    out, _ = _generate(tmp_path / "p")
    if os.environ.get("ERRDOCS_UPDATE_GOLDEN"):
        shutil.rmtree(GOLDEN, ignore_errors=True)
        shutil.copytree(out, GOLDEN)
    actual, expected = _tree(out), _tree(GOLDEN)
    assert sorted(actual) == sorted(expected)
    diffs = [
        "".join(difflib.unified_diff(expected[name].splitlines(True),
                                     actual[name].splitlines(True), f"golden/{name}", name))
        for name in sorted(expected) if actual[name] != expected[name]
    ]
    assert not diffs, "\n".join(diffs)


def test_two_runs_are_byte_identical_and_the_second_writes_nothing(tmp_path: Path) -> None:
    first, _ = _generate(tmp_path / "a")
    second, _ = _generate(tmp_path / "b")
    assert _tree(first) == _tree(second)
    assert _generate(tmp_path / "a")[1] == (0, 0)
