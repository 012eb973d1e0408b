"""What a record page shows beyond its fields: the error as printed, the example fix's parts,
the links to the raising line and the commit, dates a person reads, and unique titles."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from errdocs.catalog.model import build_catalog, entry_of, record_titles
from errdocs.pages.parts import (
    FixPart,
    commit_url,
    printed_error,
    readable_date,
    source_links,
    split_fix,
)
from errdocs.pages.short import MESSAGE_CHARS, shorten

from .helpers import record


@pytest.mark.parametrize(("path", "cls", "printed"), [
    ("a/worker.py", "ValueError", "ValueError: Unknown mode: {mode}"),
    ("a/worker.py", "KeyError", "KeyError: 'Unknown mode: {mode}'"),
    ("a/worker.py", "httpx.HTTPStatusError", "httpx.HTTPStatusError: Unknown mode: {mode}"),
    ("src/api.ts", "HttpError", "HttpError: Unknown mode: {mode}"),
    ("lib/parser.js", "TypeError", "TypeError: Unknown mode: {mode}"),
    ("ring.go", "panic", "panic: Unknown mode: {mode}"),
    ("ring.go", "fmt.Errorf", "Unknown mode: {mode}"),
    ("src/shape.rs", "anyhow::Error", "Unknown mode: {mode}"),
    ("src/device.cc", "std::runtime_error", "Unknown mode: {mode}"),
    ("a/worker.py", "not a <class>", "Unknown mode: {mode}"),
    ("a/worker.py", None, "Unknown mode: {mode}"),
    (None, "ValueError", "Unknown mode: {mode}"),
])
def test_the_error_as_the_program_prints_it(path: str | None, cls: str | None,
                                            printed: str) -> None:
    rec = record("a", file_path=path, error_class=cls, error_message="Unknown mode: {mode}")
    assert printed_error(rec) == (printed, printed != "Unknown mode: {mode}")


def test_an_example_fix_that_marks_its_parts_is_split() -> None:
    text = ("# before: new mode launched but not finalized\nlaunch = f()\n\n"
            "# after: handle the mode\nelif mode == 'x':\n    go()")
    assert split_fix(text) == (FixPart("new mode launched but not finalized", "launch = f()\n"),
                               FixPart("handle the mode", "elif mode == 'x':\n    go()"))
    assert split_fix("// Before (admin handler)\na();\n// AFTER\nb();") == (
        FixPart("(admin handler)", "a();"), FixPart("", "b();"))
    assert split_fix("\n  /* before */\na\n/* after */\nb") == (FixPart("", "a"),
                                                               FixPart("", "b"))


@pytest.mark.parametrize("text", [
    "x = fixed()",  # no marks
    "# before\nx = 1",  # no "after"
    "# after\nx = 1\n# before\ny = 2",  # the wrong order
    "# before\n# after\ny = 2",  # nothing before
    "# before\nx = 1\n# after\n  \n",  # nothing after
    "import os\n# before\nx = 1\n# after\ny = 2",  # code outside the parts
    "# before\nx\n# after\ny\n# before\nz\n# after\nw",  # two of each
    "# before this call, check x\nx\n# after the loop\ny",  # comments, not marks
    "# beforehand\nx\n# afterwards\ny",
])
def test_an_example_fix_without_clear_parts_stays_one_block(text: str) -> None:
    assert split_fix(text) is None


def test_view_source_opens_the_raising_line_and_the_range_stays_a_click_away() -> None:
    url = "https://github.com/o/r/blob/abc/src/f.py#L640-L671"
    links = source_links(record("a", github_url=url, line_number=658))
    assert (links.line, links.whole, links.whole_label) == (
        "https://github.com/o/r/blob/abc/src/f.py#L658", url, "lines 640–671")
    file_only = source_links(record("a", github_url=url.split("#")[0], line_number=3))
    assert (file_only.line, file_only.whole_label) == (
        "https://github.com/o/r/blob/abc/src/f.py#L3", "the file")
    # The link already is the line; no line; not a file on GitHub; not GitHub at all.
    same = source_links(record("a", github_url=url.replace("#L640-L671", "#L9"), line_number=9))
    assert (same.line, same.whole_label) == (None, "line 9")
    assert source_links(record("a", github_url=url)).line is None
    assert source_links(record("a", github_url="https://github.com/o/r", line_number=3)).line \
        is None
    assert source_links(record("a", github_url="https://evil.example/o/r/blob/a/f#L1",
                               line_number=1)) == source_links(record("a"))


def test_a_url_with_an_ampersand_is_an_entity_in_markdown() -> None:
    links = source_links(record("a", github_url="https://github.com/o/r/blob/a/f?x=1&y=2#L1-L2",
                                line_number=2))
    assert links.line == "https://github.com/o/r/blob/a/f?x=1&amp;y=2#L2"


def test_the_commit_links_to_its_tree_only_when_it_is_a_commit_of_a_github_repository() -> None:
    sha = "0132848349585cfe6aae51c4941cbae872505f8a"
    assert commit_url(record("a", repo="sgl-project/sglang", analyzed_sha=sha)) == (
        f"https://github.com/sgl-project/sglang/tree/{sha}")
    assert commit_url(record("a", repo="o/r", analyzed_sha=" ABCDEF1 ")) == (
        "https://github.com/o/r/tree/abcdef1")
    for repo, value in [("o/r", "main"), ("o/r", "abc"), ("o/r", "x" * 40),
                        ("o/r", f"{sha}\"><script>"), ("../x", sha), ("o/r", None)]:
        assert commit_url(record("a", repo=repo, analyzed_sha=value)) is None


@pytest.mark.parametrize(("value", "shown"), [
    ("2026-08-13T05:10:05.995Z", '<time datetime="2026-08-13T05:10:05Z">13 Aug 2026</time>'),
    ("2026-01-01T23:30:00-02:00", '<time datetime="2026-01-02T01:30:00Z">2 Jan 2026</time>'),
    ("2026-12-31", '<time datetime="2026-12-31T00:00:00Z">31 Dec 2026</time>'),
    ("yesterday", None), ("2026-13-01", None), ("", None), (None, None),
    ('2026-08-13"><script>', None),
])
def test_dates_read_as_dates(value: str | None, shown: str | None) -> None:
    assert readable_date(value) == shown


def test_titles_add_the_repository_then_the_file_and_line_only_when_needed() -> None:
    records = [
        record("a", repo="o/one", error_message="value is not valid UTF-8"),
        record("b", repo="o/two", error_message="value is not valid UTF-8"),
        record("c", repo="o/r", error_message="choice '{unk}' is unrecognized",
               file_path="src/a.rs", line_number=10),
        record("d", repo="o/r", error_message="choice '{unk}' is unrecognized",
               file_path="src/b.rs", line_number=20),
        record("e", repo="o/r", error_message="choice '{unk}' is unrecognized",
               file_path="src/b.rs", line_number=20),
        record("f", repo="o/r", error_message="unique"),
    ]
    assert record_titles([entry_of(r, "") for r in records]) == {
        "a": "value is not valid UTF-8 (o/one)",
        "b": "value is not valid UTF-8 (o/two)",
        "c": "choice '{unk}' is unrecognized (o/r, src/a.rs:10)",
        "d": "choice '{unk}' is unrecognized (o/r, record d)",
        "e": "choice '{unk}' is unrecognized (o/r, record e)",
    }
    catalog = build_catalog(records)
    assert catalog.entries["f"].title is None
    assert catalog.entries["a"].title == "value is not valid UTF-8 (o/one)"


def test_a_message_that_spells_another_records_title_does_not_take_it() -> None:
    records = [record("a", repo="o/r", error_message="x"),
               record("b", repo="o/s", error_message="x"),
               record("c", repo="o/t", error_message="x (o/r)")]
    titles = record_titles([entry_of(r, "") for r in records])
    shown = [titles.get(r.id, r.error_message) for r in records]
    assert len(set(shown)) == 3
    assert titles["a"] == "x (o/r, record a)"


MESSAGES = st.sampled_from(["m", "m ", "M", "m (o/r)", "m (o/r, f.py:1)", "x" * 400,
                            "x" * 299 + "y", "x" * 299 + "z"])
REPOS = st.sampled_from(["o/r", "o/s", "o/r "])
FILES = st.sampled_from([None, "f.py", "g.py"])


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(MESSAGES, REPOS, FILES, st.sampled_from([None, 1, 2])),
                max_size=12))
def test_no_two_record_pages_share_a_title(rows: list[tuple[str, str, str | None,
                                                             int | None]]) -> None:
    records = [record(f"id{n}", repo=repo, error_message=message, file_path=path,
                      line_number=line) for n, (message, repo, path, line) in enumerate(rows)]
    catalog = build_catalog(records)
    titles = [catalog.entries[r.id].title or shorten(r.error_message, MESSAGE_CHARS)
              for r in records]
    assert len(set(titles)) == len(titles)
    # Stable: the same records in another order get the same titles.
    again = build_catalog(list(reversed(records)))
    assert {i: e.title for i, e in again.entries.items()} == {
        i: e.title for i, e in catalog.entries.items()}
