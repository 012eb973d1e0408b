"""Listing pages: rows that tell records apart (issue 13)."""

from __future__ import annotations

from errdocs.catalog.model import GroupKind, build_catalog
from errdocs.pages.render import render_group
from errdocs.pages.short import first_sentence

from .helpers import record


def _page(kind: GroupKind, value: str, records: list) -> str:
    catalog = build_catalog(records)
    return render_group(catalog.group_of(kind, value))[0].content


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
