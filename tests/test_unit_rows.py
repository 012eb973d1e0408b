"""What each unit's output was built from is a row of the catalogue (:mod:`errdocs.units.state`):
which units are current is a query, a unit without its row is built again, and the
``stamp.json`` files of slices and of earlier errdocs are taken in once and removed."""

from __future__ import annotations

from pathlib import Path

import pytest

from errdocs.build import build_sharded
from errdocs.project import load_settings
from errdocs.units import plan as shards
from errdocs.units.state import HAND_OFF, forget, hand_off, read

from .conftest import SAMPLE
from .helpers import site_tree

pytestmark = pytest.mark.slow


@pytest.fixture
def small_units(monkeypatch: pytest.MonkeyPatch) -> None:
    """Units of a few pages, so the sample dataset makes many of them."""
    monkeypatch.setattr(shards, "UNIT_SIZE", 16)
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1767225600")


def test_a_unit_whose_row_is_gone_is_built_again(project: Path, small_units: None) -> None:
    settings = load_settings(project / "mkdocs.yml")
    cold = build_sharded(settings, [SAMPLE], jobs=2, show_progress=False)
    work = project / ".errdocs"
    rows = read(work)
    assert sorted(rows) == sorted(p.name for p in (work / "units").iterdir())
    assert len(rows) == cold.units and not list(work.glob(f"units/*/{HAND_OFF}"))
    site = site_tree(project / "site")
    name = next(n for n in sorted(rows) if n.startswith("rec-"))
    forget(work, [name])
    again = build_sharded(settings, [SAMPLE], jobs=2, show_progress=False)
    assert (again.built, again.reused) == (1, cold.units - 1)
    assert read(work)[name].key == rows[name].key
    assert site_tree(project / "site") == site


def test_stamp_files_are_taken_into_the_catalogue_and_removed(
        project: Path, small_units: None) -> None:
    """As a slice hands its units off, or an earlier errdocs kept them: the units are current
    (none is built again) but the one whose file holds no row."""
    settings = load_settings(project / "mkdocs.yml")
    cold = build_sharded(settings, [SAMPLE], jobs=1, show_progress=False)
    work = project / ".errdocs"
    names = sorted(read(work))
    hand_off(work, names)
    forget(work, names)
    assert read(work) == {}
    damaged = next(n for n in names if n.startswith("hub-"))
    (work / "units" / damaged / HAND_OFF).write_text('{"pages": {}}', "utf-8")
    site = site_tree(project / "site")
    again = build_sharded(settings, [SAMPLE], jobs=1, show_progress=False)
    assert (again.built, again.reused) == (1, cold.units - 1)
    assert sorted(read(work)) == names
    assert not list(work.glob(f"units/*/{HAND_OFF}"))
    assert site_tree(project / "site") == site
