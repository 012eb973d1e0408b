"""The generated Markdown tree for the sample dataset, diffed against a golden copy.

After an intended change, refresh with ``ERRDOCS_UPDATE_GOLDEN=1 pytest tests/test_golden.py``
and review the diff of ``tests/golden/`` like any other change.
"""

from __future__ import annotations

import difflib
import os
import shutil
from pathlib import Path

from errdocs.pipeline import check, generate

from .conftest import ROOT, SAMPLE

GOLDEN = ROOT / "tests" / "golden" / "sample"


def _tree(root: Path) -> dict[str, str]:
    return {p.relative_to(root).as_posix(): p.read_text("utf-8")
            for p in sorted(root.rglob("*")) if p.is_file()}


def test_sample_tree_matches_golden(tmp_path: Path) -> None:
    out = tmp_path / "errors"
    generate(check([SAMPLE]), out)
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
    first, second = tmp_path / "a", tmp_path / "b"
    generate(check([SAMPLE]), first)
    generate(check([SAMPLE]), second)
    assert _tree(first) == _tree(second)
    again = generate(check([SAMPLE]), first)
    assert (again.report.written, again.report.removed) == (0, 0)
