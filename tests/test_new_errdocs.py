"""Another errdocs (an upgrade, an edited checkout) never reuses what an older one derived and
kept between builds: the catalogue's rows (a record's description, the tags its pages show),
page and unit keys. Its first build gives the site a cold build in a fresh clone gives."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from errdocs import code
from errdocs.build import build_sharded
from errdocs.catalog import scan
from errdocs.project import load_settings
from errdocs.records.record import Record

from .conftest import ROOT
from .helpers import cold_site, site_tree

sys.path.insert(0, str(ROOT / "bench"))
import synth

pytestmark = pytest.mark.slow


Edit = Callable[[], None]


@pytest.fixture
def edit_errdocs(monkeypatch: pytest.MonkeyPatch) -> Iterator[Edit]:
    """Makes errdocs another from then on: its code differs (a file edited), and so does
    what its scan derives from a record (its description)."""
    real_parts, real_describe = code.code_parts, scan.describe_record

    def edited_parts() -> Iterator[bytes]:
        yield from real_parts()
        yield b"pages/short.py: a longer description"

    def described(record: Record) -> str:
        return "Described anew. " + real_describe(record)

    def edit() -> None:
        monkeypatch.setattr(code, "code_parts", edited_parts)
        monkeypatch.setattr(scan, "describe_record", described)
        code.code_digest.cache_clear()

    yield edit
    code.code_digest.cache_clear()  # later tests get the digest of the real code


def test_a_new_errdocs_builds_what_a_cold_build_does(
        tmp_path: Path, project: Path, monkeypatch: pytest.MonkeyPatch,
        edit_errdocs: Edit) -> None:
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1767225600")
    data = synth.write(12, tmp_path / "data.jsonl", seed=7)
    settings = load_settings(project / "mkdocs.yml")
    build_sharded(settings, [data], jobs=1, show_progress=False)
    edit_errdocs()
    build_sharded(settings, [data], jobs=1, show_progress=False)
    built = site_tree(project / "site")
    assert any(b"Described anew. " in body for body in built.values())
    (tmp_path / "fresh").mkdir()
    assert built == cold_site(project, data, tmp_path / "fresh")
