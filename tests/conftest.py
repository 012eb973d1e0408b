"""Shared fixtures: the repository root, the sample dataset and the seed record."""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass
from pathlib import Path

import pytest

from . import sites

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "data" / "sample.jsonl"
SEED = ROOT.parent / "shared" / "seed-record.json"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A throw-away copy of the project's MkDocs side: mkdocs.yml, docs/ and overrides/."""
    for name in ("mkdocs.yml",):
        shutil.copy(ROOT / name, tmp_path / name)
    for name in ("docs", "overrides"):
        shutil.copytree(ROOT / name, tmp_path / name, ignore=shutil.ignore_patterns("errors"))
    return tmp_path


@pytest.fixture
def seed_record() -> dict:
    """The seed record (bare, without its envelope), read from the sample dataset's first line."""
    return json.loads(SAMPLE.read_text("utf-8").splitlines()[0])["record"]


@dataclass(frozen=True)
class Built:
    """The sample dataset's hosted site, built once per test session."""

    project: Path
    """The throw-away project folder."""
    site: Path
    """Its built site."""
    searchable: int | None
    """Pages in its Pagefind index."""


@pytest.fixture(scope="session")
def built(tmp_path_factory: pytest.TempPathFactory) -> Built:
    """The sample site, built with ``site_url`` set (read-only: copy it before changing it)."""
    project = sites.copy_project(tmp_path_factory.mktemp("hosted"))
    settings, report = sites.build_project(project)
    return Built(project, settings.site_dir, report.searchable)


@pytest.fixture(scope="session")
def bundle_zip(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The offline bundle of the whole sample dataset."""
    project = sites.copy_project(tmp_path_factory.mktemp("offline"))
    return sites.build_bundle(project, project / "dist" / "errdocs-bundle.zip").path
