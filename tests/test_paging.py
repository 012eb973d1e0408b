"""Listing pages are bounded: split into numbered pages with a bounded pager."""

from __future__ import annotations

from errdocs.catalog import paging
from errdocs.catalog.model import GroupKind, build_catalog
from errdocs.pages.render import render_group, render_group_list
from errdocs.plugins.compact import compact

from .helpers import record, render_all


def test_page_paths_and_counts() -> None:
    assert paging.page_count(0) == 1
    assert paging.page_count(100) == 1
    assert paging.page_count(101) == 2
    assert paging.page_path("tags/io.md", 1) == "tags/io.md"
    assert paging.page_path("tags/io.md", 3) == "tags/io/3.md"
    assert paging.page_path("o/r/index.md", 2) == "o/r/index/2.md"


def test_pager_shows_a_bounded_window() -> None:
    assert paging.pager(1, 1) == []
    labels = [link.label for link in paging.pager(50, 1000)]
    assert labels == ["Previous", "1", "48", "49", "50", "51", "52", "1000", "Next"]
    assert all(len(paging.pager(n, 1000)) <= 9 for n in range(1, 1001))
    assert [link.number for link in paging.pager(50, 1000) if link.current] == [50]


def test_a_long_group_is_split_and_every_page_stays_small() -> None:
    records = [record(f"id{i:04d}", slug=f"s{i}", tags=("big",)) for i in range(250)]
    catalog = build_catalog(records)
    pages = list(render_group(catalog.group_of(GroupKind.TAG, "big"), catalog.texts))
    assert [p.path for p in pages] == ["tags/big.md", "tags/big/2.md", "tags/big/3.md"]
    assert [p.content.count("\n- [") for p in pages] == [100, 100, 50]
    assert "**2**" in pages[1].content and "[Next](3.md)" in pages[1].content
    assert "[1](../big.md)" in pages[1].content
    assert "250 errors tagged" in pages[2].content
    repo_pages = list(render_group(catalog.group_of(GroupKind.REPO, "o/r"), catalog.texts))
    assert [p.path for p in repo_pages][1] == "o/r/index/2.md"
    sizes = [len(p.content) for p in render_all(records, catalog)]
    more = [record(f"id{i:04d}", slug=f"s{i}", tags=("big",)) for i in range(1000)]
    bigger = [len(p.content) for p in render_all(more, build_catalog(more))]
    assert max(bigger) <= max(sizes) * 1.1  # four times the records, no bigger page


def test_a_long_groups_pages_are_made_as_they_are_asked_for() -> None:
    # A unit writes each before the next is made: not one tag's every page at once.
    records = [record(f"id{i:04d}", slug=f"s{i}", tags=("big",)) for i in range(250)]
    catalog = build_catalog(records)
    pages = render_group(catalog.group_of(GroupKind.TAG, "big"), catalog.texts)
    assert next(pages).path == "tags/big.md"
    assert [p.path for p in pages] == ["tags/big/2.md", "tags/big/3.md"]


def test_group_lists_are_split_too() -> None:
    records = [record(f"id{i:04d}", slug=f"s{i}", tags=(f"t{i}",)) for i in range(150)]
    pages = render_group_list(GroupKind.TAG, build_catalog(records))
    assert [p.path for p in pages] == ["tags/index.md", "tags/index/2.md",
                                       "tags/index/by-name.md", "tags/index/by-name/2.md"]
    assert [p.content.count("\n| [t") for p in pages] == [100, 50, 100, 50]


def test_compact_keeps_code_and_scripts_byte_for_byte() -> None:
    html = ("<div>\n    <p>a  b</p>\n\n    <pre><code>x\n\n    y</code></pre>\n  <code>p\n  q"
            "</code>\n<script>\n  var a;\n</script>\n  <TEXTAREA>\n t\n</TEXTAREA>\n</div>")
    assert compact(html) == ("<div>\n<p>a  b</p>\n<pre><code>x\n\n    y</code></pre>\n"
                             "<code>p\n  q</code>\n<script>\n  var a;\n</script>\n"
                             "<TEXTAREA>\n t\n</TEXTAREA>\n</div>")
