"""Sitemap dates move only when a page's content does, across any sequence of incremental and
full builds (issue 10, finding 8)."""

from __future__ import annotations

import json
import re
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from errdocs.build import build_sharded
from errdocs.project import load_settings
from errdocs.units import plan as shards

from .conftest import ROOT

sys.path.insert(0, str(ROOT / "bench"))
import synth

pytestmark = pytest.mark.slow
SITE_URL = "https://example.org/"
NS = {"s": "http://www.sitemaps.org/schemas/sitemap/0.9"}
DAY = 86400
_DIGEST = re.compile(r'^  "digest": "(\w+)"$', re.MULTILINE)


def _build(project: Path, data: Path, monkeypatch: pytest.MonkeyPatch, day: int) -> None:
    monkeypatch.setenv("SOURCE_DATE_EPOCH", str(1767225600 + day * DAY))
    settings = load_settings(project / "mkdocs.yml", site_url=SITE_URL)
    build_sharded(settings, [data], jobs=1, show_progress=False)


def _pages(project: Path) -> dict[str, tuple[str, str]]:
    """URL -> (what the page's date follows, its sitemap date). A record page's date follows
    its record (the digest in its front matter), any other page's its Markdown."""
    dates = {u.findtext("s:loc", namespaces=NS): u.findtext("s:lastmod", namespaces=NS)
             for u in ET.parse(project / "site" / "sitemap.xml").getroot().findall("s:url", NS)}
    pages = {}
    docs = project / "docs"
    for path in docs.rglob("*.md"):
        if path.name.startswith("."):  # the home page's summary: MkDocs makes no page of it
            continue
        relative = path.relative_to(docs).as_posix().removesuffix(".md")
        url = SITE_URL + (relative.removesuffix("index") if relative.endswith("index")
                          else relative + "/")
        text = path.read_text("utf-8")
        found = _DIGEST.search(text)
        pages[url] = (found.group(1) if found else text, str(dates[url]))
    assert len(pages) == len(dates)
    return pages


def _redated(before: dict[str, tuple[str, str]], after: dict[str, tuple[str, str]]) -> set[str]:
    """Pages whose content is the same and whose date is not."""
    return {url for url, (content, day) in after.items()
            if url in before and before[url][0] == content and before[url][1] != day}


def _edit(data: Path, index: int, field: str, value: object) -> None:
    lines = data.read_text("utf-8").splitlines(keepends=True)
    envelope = json.loads(lines[index])
    envelope["record"][field] = value
    lines[index] = json.dumps(envelope) + "\n"
    data.write_text("".join(lines), "utf-8")


def test_dates_survive_incremental_then_full_builds(
        tmp_path: Path, project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(shards, "UNIT_SIZE", 16)
    data = synth.write(20, tmp_path / "data.jsonl", seed=5)
    _build(project, data, monkeypatch, day=0)
    first = _pages(project)
    _edit(data, 3, "solutions", ["Changed."])  # one record page: an incremental build
    _build(project, data, monkeypatch, day=1)
    second = _pages(project)
    assert not _redated(first, second)
    assert sum(first[u] != second[u] for u in first) == 1  # that page, dated day 1
    config = project / "mkdocs.yml"  # a config change rebuilds every page, changes no content
    config.write_text(config.read_text("utf-8") + "extra:\n  errdocs_test: 1\n", "utf-8")
    _build(project, data, monkeypatch, day=2)
    third = _pages(project)
    assert third == second
    # More records: the record units are split again, pages move between units.
    more = synth.write(40, tmp_path / "more.jsonl", seed=5)
    _edit(more, 3, "solutions", ["Changed."])
    _build(project, more, monkeypatch, day=3)
    fourth = _pages(project)
    assert not _redated(third, fourth)
    assert any(third[u][1] != fourth[u][1] for u in third if u in fourth)  # lists did change
