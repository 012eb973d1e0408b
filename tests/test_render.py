"""Record pages: front matter that no value can break, links only where they are safe, bounds."""

from __future__ import annotations

from pathlib import PurePosixPath

import pytest
from mkdocs.utils.meta import get_data
from pygments.lexers import get_lexer_for_filename
from pygments.util import ClassNotFound

from errdocs.catalog.model import build_catalog
from errdocs.pages.excerpt import _file_name, language_for
from errdocs.pages.meta import record_meta
from errdocs.pages.render import render_record
from errdocs.records.record import Record
from errdocs.records.schema import MAX_TEXT_CHARS

from .helpers import record


def _page(rec: Record) -> str:
    return render_record(rec, build_catalog([rec])).content


@pytest.mark.parametrize("value", [
    "a\n---\ntitle: pwned\n---", "---", "...", "x\u2028---\u2029y", "\x85---", "'\"\\",
    "x" * 3000 + " ---", "&lt;b&gt; # [x](javascript:1)",
])
def test_front_matter_survives_any_id_or_repo(value: str) -> None:
    rec = record(value, repo=f"{value}/x", error_message=value, documentation=value)
    body, meta = get_data(_page(rec))  # MkDocs' own front-matter reader
    assert meta == {"hide": ["navigation"], "errdocs": record_meta(rec, [])}
    assert (meta["errdocs"]["id"], meta["errdocs"]["repo"]) == (value, f"{value}/x")
    assert body.startswith("# ")


def test_a_source_link_only_to_https_github() -> None:
    good = _page(record("a1", github_url="https://github.com/o/r/blob/a/f.py#L3"))
    assert "[View source on GitHub](https://github.com/o/r/blob/a/f.py#L3)\n" in good
    bad = _page(record("a1", github_url="javascript:alert(1)", file_path="f.py"))
    assert "View source" not in bad
    assert ("<code>f.py</code> · Source (not a GitHub link, shown as text): "
            "<code>javascript&#58;alert\\(1\\)</code>") in bad


def test_an_excerpt_without_a_start_line_has_no_numbers_and_no_mark() -> None:
    page = _page(record("a1", source_code="a\nb", line_number=2, file_path="f.py"))
    assert "``` python\na\nb\n```" in page
    numbered = _page(record("a1", source_code="a\nb", source_code_start=7, source_code_end=8,
                            line_number=8, file_path="f.py"))
    assert '``` python linenums="7" hl_lines="2"\na\nb\n```' in numbered


def test_every_text_is_bounded() -> None:
    long = "y" * (MAX_TEXT_CHARS + 500)
    page = _page(record("a1", error_message=long, file_path=long, message_pattern=long,
                        tags=(long,), error_class=long))
    assert long not in page
    # title, the error as printed, class, pattern, path, tag
    assert page.count("y" * MAX_TEXT_CHARS + " …") == 6


@pytest.mark.parametrize("name", [
    "src/a.py", "x/CMakeLists.txt", "notes.txt", "Makefile", "Makefile.am", "GNUmakefile",
    "build/foo.tar.gz", "man/ls.1", "a.b.rs", "kernel.cu", "lib.d.ts", ".bashrc",
    "weird.PY", "no-dot", "", "dir/", "x.x[bp]m", "Dockerfile", "app.Dockerfile", "id_rsa.pub",
])
def test_language_for_agrees_with_pygments(name: str) -> None:
    base = PurePosixPath(name).name
    try:
        expected = get_lexer_for_filename(base).aliases[0] if base else "text"
    except ClassNotFound:
        expected = "text"
    assert language_for(name) == expected


@pytest.mark.parametrize("path", [
    "a/b.py", "a//b.py", "a/./b.py", "a/b.py/", "a/b.py/.", "./b.py", ".", "..", "a/..",
    "/b.py", "//b.py", "a/.b.py", "b.py", "", "a b/c d.rs", "a/b/", "\u00e9/\u00fc.go"])
def test_a_file_name_is_what_a_path_calls_it(path: str) -> None:
    # The catalogue names every record's file's language without making a path.
    assert _file_name(path) == PurePosixPath(path).name


def test_new_header_and_fix_parts_escape_record_text() -> None:
    hostile = "<script>alert(1)</script> [x](javascript:alert(1)) {: onclick=x }"
    page = _page(record(
        "a1", file_path="a.py", error_class="KeyError", error_message=hostile,
        example_fix=f"# before: {hostile}\nx = 1\n# after: {hostile}\ny = 2",
        analyzed_sha='abcdef1"><script>', analyzed_at=hostile, dataset_version=hostile))
    body = page.split("\n---\n", 1)[1]  # the front matter is plain text, escaped where used
    printed = f"``` {{.text .errdocs-printed}}\nKeyError: {hostile!r}\n```"
    assert "<script>" not in body.replace(printed, "")
    escaped = "&lt;script&gt;alert\\(1\\)&lt;/script&gt; \\[x\\]\\(javascript&#58;alert\\(1\\)\\)"
    assert f"**Before:** {escaped}" in page and f"**After:** {escaped}" in page
    # The error as printed is code: shown as it is, inside a fence nothing in it can close.
    assert printed in body
    # Neither a commit link nor a <time> from text that is not a hash or a date.
    assert "/tree/" not in page and "<time" not in page
