"""Listing pages: rows that tell records apart (issue 13)."""

from __future__ import annotations

from html.parser import HTMLParser
from pathlib import Path
from types import SimpleNamespace
from typing import TYPE_CHECKING, cast

import markdown
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from errdocs.catalog import facets
from errdocs.catalog.model import GroupKind, build_catalog
from errdocs.catalog.paging import PAGE_SIZE
from errdocs.pages.render import (
    HOME_FRAGMENT,
    TOP,
    group_charts,
    render_group,
    render_group_list,
    render_home,
    render_home_fragment,
)
from errdocs.pages.short import first_sentence
from errdocs.plugins.home import MARKER, HomePlugin

from .helpers import record
from .test_escape import EXTENSIONS

if TYPE_CHECKING:
    from mkdocs.structure.pages import Page


def _page(kind: GroupKind, value: str, records: list) -> str:
    catalog = build_catalog(records)
    return next(render_group(catalog.group_of(kind, value), catalog.texts)).content


def test_two_records_of_one_message_differ_by_file_and_line() -> None:
    records = [record("a", error_message="value is not valid UTF-8", error_class="Utf8Error",
                      file_path="src/a.rs", line_number=12,
                      documentation="Bytes were read as text. More follows."),
               record("b", slug="s2", error_message="value is not valid UTF-8",
                      error_class="Utf8Error", file_path="src/b.rs", line_number=7,
                      documentation="An argument was not UTF-8 on Windows. More.")]
    page = _page(GroupKind.REPO, "o/r", records)
    rows = page.split("\n- ")[1:]
    assert len(rows) == 2
    assert "<code>src/a.rs&#58;12</code>" in rows[0] and "<code>src/b.rs&#58;7</code>" in rows[1]
    assert all("<code>Utf8Error</code>" in row for row in rows)
    assert "Bytes were read as text." in rows[0] and "More follows" not in rows[0]
    assert "o/r" not in page.split("# ", 1)[1].split("\n", 1)[1]  # the repository page: no repo


def test_tag_pages_name_the_repository_and_cut_nothing_into_markup() -> None:
    records = [record("a", repo="x/y", error_message="boom <b>", error_class="E|rr",
                      tags=("t",), file_path="a|b.py", line_number=3),
               record("b", repo="<i>q</i>/z", error_message="bang", tags=("t",))]
    page = _page(GroupKind.TAG, "t", records)
    assert "x/y" in page and "&lt;i&gt;q&lt;/i&gt;/z" in page
    assert "<b>" not in page and "<i>" not in page and "E|rr" not in page
    assert "<code>E&#124;rr</code> · <code>a&#124;b.py&#58;3</code> · x/y" in page


def test_a_row_without_class_or_place_shows_what_it_has() -> None:
    page = _page(GroupKind.REPO, "o/r", [record("a", error_message="m", line_number=4)])
    assert '<span class="errdocs-row__facts"><code>line 4</code></span>' in page


def test_first_sentence() -> None:
    assert first_sentence("It broke, e.g. when x. Then more.") == "It broke, e.g. when x."
    assert first_sentence("Short. Then the rest goes on. End") == "Short. Then the rest goes on."
    assert first_sentence("  No stop\nat all ") == "No stop at all"
    assert first_sentence("Version 1.2 is needed here. Next") == "Version 1.2 is needed here."


def test_group_indexes_are_tables_by_size_and_by_name_each_paged() -> None:
    records = [record(f"r{n}", slug=f"s{n}", tags=(f"t{n:03d}",) + (("big",) if n % 2 else ()))
               for n in range(150)]
    pages = {p.path: p.content for p in render_group_list(GroupKind.TAG, build_catalog(records))}
    assert sorted(pages) == ["tags/index.md", "tags/index/2.md", "tags/index/by-name.md",
                             "tags/index/by-name/2.md"]
    first = pages["tags/index.md"]
    assert '| [Tag](index/by-name.md "By name") | Errors ▼ | Repositories |' in first
    assert first.index("| [big](big.md) | 75 | 1 |") < first.index("| [t000](t000.md) | 1 | 1 |")
    by_name = pages["tags/index/by-name.md"]
    assert '| Tag ▲ | [Errors](../index.md "Most errors first") | Repositories |' in by_name
    assert by_name.index("[big](../big.md)") < by_name.index("[t000](../t000.md)")
    assert "[t149](../../t149.md)" in pages["tags/index/by-name/2.md"]
    rows = [[line for line in page.splitlines() if line.startswith("| [") and "Errors" not in line]
            for page in pages.values()]
    assert sorted(map(len, rows)) == [51, 51, PAGE_SIZE, PAGE_SIZE]


def test_home_shows_counts_the_largest_groups_and_the_latest_records_bounded() -> None:
    records = [record(f"r{n}", repo=f"o/r{n % 30}", slug=f"s{n}", background_tag=f"c{n % 25}",
                      analyzed_at=f"2026-01-{1 + n % 28:02d}T00:00:{n % 60:02d}Z",
                      error_message=f"message {n}") for n in range(300)]
    catalog = build_catalog(records)
    home = render_home(catalog).content
    part = render_home_fragment(catalog, "errors").content
    assert "- **300** errors" in home and "- **30** [repositories](repos/index.md)" in home
    assert "- **25** [categories](errors/categories/index.md)" in part
    assert home.count("](categories/c") == TOP and home.count("](o/r") == TOP + TOP
    latest = sorted(records, key=lambda r: r.analyzed_at or "")[-TOP:]
    assert all(f"message {r.id[1:]}]" in home for r in latest)
    assert "(errors/o/r" in part and not part.startswith("---")  # from the docs root


def test_the_home_plugin_puts_the_summary_at_the_marker_only(tmp_path: Path) -> None:
    (tmp_path / "errors").mkdir()
    (tmp_path / "errors" / HOME_FRAGMENT).write_text("SUMMARY\n", "utf-8")
    # stand-ins holding the two attributes the plugin reads
    file = SimpleNamespace(abs_src_path=str(tmp_path / "index.md"))
    page = cast("Page", SimpleNamespace(is_homepage=True, file=file))
    plugin = HomePlugin()
    plugin.load_config({})
    assert plugin.on_page_markdown(f"# Hi\n\n{MARKER}\n\nEnd", page) == "# Hi\n\nSUMMARY\n\n\nEnd"
    assert plugin.on_page_markdown("# Hi\n", page) == "# Hi\n"
    other = cast("Page", SimpleNamespace(is_homepage=False, file=file))
    assert plugin.on_page_markdown(MARKER, other) == MARKER


def test_charts_count_kinds_and_severities_and_escape_their_labels() -> None:
    records = [record(f"r{n}", slug=f"s{n}", error_type="<script>x</script>" if n < 3 else
                      f"kind{n % 12}", severity="error" if n % 4 else None) for n in range(40)]
    group = build_catalog(records).group_of(GroupKind.REPO, "o/r")
    chart = str(group_charts(group))
    assert "<script>" not in chart and "&lt;script&gt;x&lt;/script&gt;: 3" in chart
    assert chart.count("<figure") == 2 and chart.count("<rect") == facets.SHOWN + 1 + 2
    kinds = facets.counts(group.entries, facets.ERROR_TYPE)
    assert len(kinds) == facets.SHOWN + 1 and kinds[-1][0] == "other"
    assert sum(count for _, count in kinds) == 40
    assert facets.counts(group.entries, facets.SEVERITY) == [("error", 30), (facets.NONE, 10)]
    assert "Errors by severity: error: 30; (none): 10." in chart
    tagged = build_catalog([record("t", tags=("x",))]).group_of(GroupKind.TAG, "x")
    assert group_charts(tagged) == ""  # tag pages have no charts


_SHAPES = st.one_of(
    st.text(alphabet=st.characters(blacklist_categories=["Cs"]), max_size=60),
    st.sampled_from(["<script>alert(1)</script>", "[x](javascript:alert(1))", "a | b", "\t\r\n",
                     "`code` **b** {: .x }", "--8<-- \"/etc/passwd\"", "<![x", "x" * 3000,
                     "&lt; &#60; &amp;", "=== \"tab\"", "- item\n1. item", "É\u00a0é"]))
_ROW_TAGS = {"div", "ul", "li", "p", "a", "br", "span", "code", "h1", "figure", "figcaption",
             "svg", "title", "text", "rect"}


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(message=_SHAPES, cls=_SHAPES, file=_SHAPES, meaning=_SHAPES, kind=_SHAPES, tag=_SHAPES)
def test_rows_and_charts_of_any_record_text_become_no_markup(message: str, cls: str, file: str,
                                                             meaning: str, kind: str,
                                                             tag: str) -> None:
    records = [record("a", error_message=message or "m", error_class=cls, file_path=file,
                      line_number=3, documentation=meaning, error_type=kind,
                      background_tag="cat", tags=("t", tag)),
               record("b", slug="s2", error_message="other", tags=("t",), background_tag="cat")]
    catalog = build_catalog(records)
    for kind_of, value in ((GroupKind.REPO, "o/r"), (GroupKind.TAG, "t"),
                           (GroupKind.CATEGORY, "cat")):
        body = next(render_group(catalog.group_of(kind_of, value), catalog.texts)
                    ).content.split("---\n", 2)[2]
        html = markdown.markdown(body, extensions=EXTENSIONS)
        parser = _Elements()
        parser.feed(html)
        assert set(parser.tags) <= _ROW_TAGS, parser.tags
        assert parser.tags.count("li") == 2
        assert all(href.endswith(".md") and ":" not in href for href in parser.hrefs)


class _Elements(HTMLParser):
    """The elements of an HTML text and its links."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[str] = []
        self.hrefs: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        self.hrefs += [v or "" for k, v in attrs if k == "href"]
