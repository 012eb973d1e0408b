"""A unit's converted pages held compressed until their templates render (``plugins.held``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from mkdocs.structure.files import File
from mkdocs.structure.pages import Page

from errdocs.plugins import held

from .conftest import ROOT, SAMPLE
from .helpers import site_tree
from .sites import build_project, copy_project

HOSTILE = ROOT / "tests" / "fixtures" / "hostile.jsonl"

# Any text a record may bring: lone surrogates, NUL, characters past U+FFFF, CRLF.
TEXTS = st.none() | st.text(st.characters(blacklist_categories=()), max_size=300)
ATTRIBUTES = st.sampled_from(["content", "markdown"])


def _page(number: int) -> Page:
    return Page(None, File(f"p{number}.md", "/docs", "/site", True), {})  # type: ignore[arg-type]


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 5), ATTRIBUTES, st.booleans(), TEXTS), max_size=60))
def test_a_held_page_reads_back_what_was_set_whatever_is_read_around_it(
        steps: list[tuple[int, str, bool, str | None]]) -> None:
    # Six pages, half of them held from the start; writes and reads in any order (more
    # pages than the texts kept read back): each read gives the page's own last value.
    held.forget()
    pages = [_page(n) for n in range(6)]
    expected: dict[tuple[int, str], str | None] = {}
    for number in range(0, 6, 2):
        held.hold(pages[number])
    for number, name, write, text in steps:
        if write:
            setattr(pages[number], name, text)
            expected[number, name] = text
        else:
            assert getattr(pages[number], name) == expected.get((number, name))
    for number, page in enumerate(pages):
        held.hold(page)  # holding again, or at last, keeps the values
        for name in ("content", "markdown"):
            assert getattr(page, name) == expected.get((number, name))
            assert not isinstance(page.__dict__.get(f"_held_{name}"), str)
            assert name not in page.__dict__


def test_a_held_page_is_still_the_page_it_was() -> None:
    page = _page(0)
    page.markdown = "# Title › here\n\nText.\n"
    page.content = "<h1>Title › here</h1>" + "<p>A row › of a listing.</p>" * 200
    page.meta = {}
    title, url = page.title, page.url
    held.hold(page)
    assert isinstance(page, Page) and isinstance(page, held.HeldPage)
    assert page == page and page.title == title and page.url == url
    assert type(page) is held._held_class(Page)  # one holding class a page class
    content = page.__dict__["_held_content"]
    assert isinstance(content, bytes) and len(content) * 10 < len(page.content.encode())


def test_the_built_site_is_the_one_held_pages_would_not_change(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    data = tmp_path / "data.jsonl"
    data.write_bytes(SAMPLE.read_bytes() + HOSTILE.read_bytes())
    holds: list[Any] = []
    hold = held.hold

    def counted(page: Page) -> None:
        holds.append(page.file.src_uri)
        hold(page)

    monkeypatch.setattr(held, "hold", counted)
    _, report = build_project(copy_project(tmp_path / "held"), data)
    monkeypatch.setattr(held, "hold", lambda page: None)
    build_project(copy_project(tmp_path / "plain"), data)
    assert site_tree(tmp_path / "held" / "site") == site_tree(tmp_path / "plain" / "site")
    # every page built was held once converted (and the nav's pages in each unit)
    assert len(set(holds)) >= report.pages_built > 0, (len(set(holds)), report)
