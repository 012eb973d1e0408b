"""Shared fixtures: the repository root, the sample dataset and the seed record."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "data" / "sample.jsonl"


def copy_project(dest: Path) -> Path:
    """A throw-away copy of the project's MkDocs side: mkdocs.yml, docs/ and overrides/."""
    shutil.copy(ROOT / "mkdocs.yml", dest / "mkdocs.yml")
    for name in ("docs", "overrides"):
        shutil.copytree(ROOT / name, dest / name, ignore=shutil.ignore_patterns("errors"))
    return dest


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A copy of the project in a temporary folder (see :func:`copy_project`)."""
    return copy_project(tmp_path)


@pytest.fixture
def seed_record() -> dict:
    """The seed record (bare, without its envelope), read from the sample dataset's first line."""
    return json.loads(SAMPLE.read_text("utf-8").splitlines()[0])["record"]


@pytest.fixture(scope="session")
def sample_checked():
    """The sample dataset, checked once per test session."""
    from errdocs.pipeline import check

    return check([SAMPLE])


@pytest.fixture(scope="session")
def sample_index(sample_checked):
    """The lookup index of the sample dataset."""
    from errdocs.pipeline import index_for_lookup

    return index_for_lookup(sample_checked)
