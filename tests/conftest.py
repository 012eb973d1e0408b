"""Shared fixtures: the repository root, the sample dataset and the seed record."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

import pytest

from . import sites
from .sites import ROOT, SAMPLE, copy_project

try:
    import playwright  # noqa: F401
except ImportError:  # these modules import Playwright at the top; every other test runs
    collect_ignore = ["test_browser.py", "test_hostile_browser.py", "test_lookup_budget.py",
                      "test_permalinks_browser.py", "test_record_page_browser.py",
                      "test_related_browser.py"]  # test_collect.py checks the list

if TYPE_CHECKING:  # only the browser fixture starts Playwright
    from playwright.sync_api import Browser

__all__ = ["ROOT", "SAMPLE", "copy_project"]  # shared with the tests that import them from here


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    """Debian's Chromium, headless, one per test module (never a downloaded browser)."""
    if not sites.CHROMIUM.exists():
        pytest.skip("Chromium is not installed (.ci/run installs it)")
    with sites.chromium() as launched:
        yield launched


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
    from .helpers import read_all

    return read_all([SAMPLE])


@pytest.fixture(scope="session")
def sample_index(sample_checked):
    """The lookup index of the sample dataset."""
    from errdocs.catalog.model import build_catalog
    from errdocs.lookup import build_index

    records = sample_checked.records
    return build_index(records, build_catalog(records))


@dataclass(frozen=True)
class Built:
    """The sample dataset's hosted site, built once per test session."""

    project: Path
    """The throw-away project folder."""
    site: Path
    """Its built site."""
    searchable: int | None
    """Pages in its Pagefind index (it is built with ``--full-text``)."""


@pytest.fixture(scope="session")
def built(tmp_path_factory: pytest.TempPathFactory) -> Built:
    """The sample site, built with ``site_url`` set and ``--full-text`` (read-only: copy it
    before changing it)."""
    project = sites.copy_project(tmp_path_factory.mktemp("hosted"))
    settings, report = sites.build_project(project, full_text=True)
    return Built(project, settings.site_dir, report.searchable)


@pytest.fixture(scope="session")
def bundle_zip(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The offline bundle of the whole sample dataset."""
    project = sites.copy_project(tmp_path_factory.mktemp("offline"))
    return sites.build_bundle(project, project / "dist" / "errdocs-bundle.zip").path


@pytest.fixture(scope="module")
def hosted(built: Built) -> Iterator[str]:
    """The built site, served under the path of its site_url as a static host would."""
    with sites.serve(built.site, urlsplit(sites.SITE_URL).path) as url:
        yield url


@pytest.fixture(scope="module")
def offline(bundle_zip: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The offline bundle, unzipped as its receiver would."""
    return sites.unzip(bundle_zip, tmp_path_factory.mktemp("unzipped"))


@pytest.fixture(scope="session")
def crash_scene(tmp_path_factory: pytest.TempPathFactory) -> Iterator[object]:
    """Datasets, a built project and cold builds for the crash tests (see tests/crashscene)."""
    from . import crashscene

    yield from crashscene.scene_in(tmp_path_factory)
