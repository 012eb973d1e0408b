"""Property: any text in any field shows literally, adds no markup, and stays inside the subtree.

Records with arbitrary text (HTML, entities, Markdown, Jinja, fences, newlines, ``---``,
Unicode, backslashes) are validated, modelled, rendered and written by the real pipeline, then
turned into HTML by MkDocs' own page renderer with the Markdown extensions of the project's
``mkdocs.yml``. Each page is compared with the page of the same records holding plain words.
"""

from __future__ import annotations

import contextlib
import dataclasses
import html
import shutil
import tempfile
from collections import Counter
from collections.abc import Callable, Iterator
from html.parser import HTMLParser
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from mkdocs.config import load_config
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import File, Files
from mkdocs.structure.pages import Page

from errdocs.catalog.family import message_key
from errdocs.catalog.model import Catalog, GroupKind, group_key, shown_tags
from errdocs.pages import parts as pageparts
from errdocs.pages.escape import safe_url
from errdocs.pages.excerpt import language_for
from errdocs.pages.meta import record_meta
from errdocs.pages.write import write_pages
from errdocs.records.problems import Severity
from errdocs.records.read import RawItem
from errdocs.records.record import Origin, Record
from errdocs.records.schema import FIELDS, SOURCE_HOST, Kind
from errdocs.records.validate import Validator

from .conftest import ROOT
from .helpers import pages_for

FRAGMENTS = [
    "<script>alert(1)</script>", "<img src=x onerror=alert(1)>", '<iframe src="javascript:1">',
    "<b>", "</p>", "<!--", "-->", "<![CDATA[", "<![x", "<!DOCTYPE x [", "&amp;", "&lt;", "&#60;",
    "&#x3C;", "&", "&nbsp;", "#!js ", ":::python ",
    "*", "**", "_", "__", "|", "#", "# ", "## ", "[x](javascript:alert(1))", "![i](http://x/i)",
    "[r]: javascript:1", "<https://evil.example>", "https://evil.example/a_b", "{{ x }}", "{%",
    "%}", "{#", "```", "````", "~~~", "`", "``", "\n", "\n\n", "---", "\n---\n", "...", "\\",
    "\\`", '=== "t"', "!!! note", "??? x", "{: onclick=alert(1) }", "{ #id .c }", ":smile:",
    "*[HTML]: x", "[^1]", "[^1]: n", "==m==", "^^c^^", "~~s~~", "$$", "    ", "\t", "> ", "- ",
    "1. ", "+ ", "é", "名前", "🙂", "\u202e", "\u200b", "\u00a0", "\u2028", "\x85", "\x00", "\x02",
    "\x03", "\x1b[31m", "\ufeff", "'", '"', "=", ":", "'); alert(1); ('",
    # Whole lines that would end a code fence, a tab or the front matter early.
    "\n```\n", "\n````\n", "\n~~~\n", "\n    ```\n", "\n```` js\n", "\n</code></pre>\n",
]
CHARS = st.characters(exclude_categories=["Cs"])
TEXT = st.lists(st.one_of(st.sampled_from(FRAGMENTS), st.text(CHARS, max_size=4)),
                max_size=6).map("".join)
REQUIRED = st.tuples(TEXT, TEXT).map(lambda ab: f"{ab[0]}Z{ab[1]}")
REPO_PART = st.one_of(
    st.sampled_from(["..", ".", "..\\..", "?#%", "%2e", "con", "index.md", "tags", "ÜNÏ", "-"]),
    st.text(st.characters(exclude_categories=("Cs", "Cc", "Zs", "Zl", "Zp"),
                          exclude_characters="/"), min_size=1, max_size=6))
REPO = st.tuples(REPO_PART, REPO_PART).map("/".join)
URL = st.one_of(st.none(), TEXT, TEXT.map(lambda t: f"https://github.com/o/r/blob/a/{t}"),
                st.sampled_from(["javascript:alert(1)", "https://github.com@evil.example/",
                                 "https://github.com/o/r/blob/a/f.py#L1-L3"]))
SUFFIXES = ["", ".py", ".js", ".html", ".md", ".sh"]
LINE = st.one_of(st.none(), st.integers(-2, 30))
PYGMENTS_TOKENS = {("span",), ("span", "class")}
# Each example writes and removes a small tree; on a disk folders cost milliseconds each.
FAST_TMP = "/dev/shm" if Path("/dev/shm").is_dir() else None


@st.composite
def raw_records(draw: st.DrawFn) -> list[object]:
    """One to three records (some in the dataset envelope), sharing repos and slugs at times."""
    repos = draw(st.lists(REPO, min_size=1, max_size=2))
    out: list[object] = []
    for n in range(draw(st.integers(1, 3))):
        data: dict[str, object] = {"id": f"{n}{draw(TEXT)}", "repo": draw(st.sampled_from(repos)),
                                   "slug": draw(st.one_of(st.just("same"), REQUIRED)),
                                   "errorMessage": draw(REQUIRED)}
        for spec in FIELDS[4:]:
            data[spec.name] = draw(_value(spec.name, spec.kind))
        version = draw(st.one_of(st.none(), TEXT))
        out.append(data if version is None else {"record": data, "datasetVersion": version})
    return out


def _value(name: str, kind: Kind) -> st.SearchStrategy[object]:
    if name == "githubUrl":
        return URL
    if name == "filePath":
        return st.one_of(st.none(), st.tuples(TEXT, st.sampled_from(SUFFIXES)).map("".join))
    if name == "schemaVersion":
        return st.sampled_from([None, 1, 2])
    if kind is Kind.INT:
        return LINE
    if kind is Kind.TEXT_LIST:
        return st.lists(TEXT, max_size=3)
    return st.one_of(st.none(), TEXT)


class _Config(MkDocsConfig):
    """The loaded config, with a short repr for Hypothesis' failure reports."""

    def __repr__(self) -> str:
        return "<the project's mkdocs.yml>"


@pytest.fixture(scope="module")
def config(tmp_path_factory: pytest.TempPathFactory) -> MkDocsConfig:
    """The project's MkDocs config: its markdown_extensions are the ones pages are built with."""
    project = tmp_path_factory.mktemp("project")
    shutil.copy(ROOT / "mkdocs.yml", project / "mkdocs.yml")
    shutil.copytree(ROOT / "overrides", project / "overrides")
    (project / "docs").mkdir()
    loaded = load_config(config_file=str(project / "mkdocs.yml"))
    loaded.__class__ = _Config
    return loaded


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(raw=raw_records())
@example(raw=[{"id": "0", "repo": "o/r", "slug": "same", "errorMessage": "Z", "lineNumber": 1,
               "githubUrl": "https://github.com/o/r/blob/a/&amp;"}])  # an entity in the URL
def test_any_text_shows_literally_adds_no_markup_and_stays_inside(
        config: MkDocsConfig, raw: list[object]) -> None:
    validator = Validator()
    items = [RawItem(Origin("p.jsonl", n), value) for n, value in enumerate(raw, start=1)]
    records = list(validator.validate_all(items))
    assert [p for p in validator.problems if p.severity is Severity.ERROR] == []
    plain = [_plain(r, n, records) for n, r in enumerate(records)]
    with _rendered(config, records) as (catalog, html_pages), \
         _rendered(config, plain) as (_, plain_pages):
        for record, twin in zip(records, plain, strict=True):
            page = html_pages[record.id]
            _assert_front_matter_and_title(record, catalog, page)
            found = _scan(page.content or "")
            _assert_text_shown(record, catalog, found)
            _assert_no_new_markup(record, found, _scan(plain_pages[twin.id].content or ""))
        # No two record pages share a title (<title>: the errdocs title, or the message).
        titles = [page.meta["errdocs"].get("title") or page.meta["errdocs"]["message"]
                  for page in html_pages.values()]
        assert len(set(titles)) == len(titles), titles


# --- rendering ---------------------------------------------------------------------------


@contextlib.contextmanager
def _rendered(config: MkDocsConfig,
              records: list[Record]) -> Iterator[tuple[Catalog, dict[str, Page]]]:
    """Write the subtree of ``records`` into a fresh docs folder; render each record page."""
    root = Path(tempfile.mkdtemp(prefix="errdocs-prop-", dir=FAST_TMP))
    try:
        catalog, pages = pages_for(records)
        docs = root / "docs"
        out = docs / "errors"
        write_pages(out, pages)
        written = {p for p in root.rglob("*") if p.is_file()}
        assert all(p.resolve().is_relative_to(out.resolve()) for p in written)
        files = Files([File(f"errors/{p.path}", str(docs), str(root / "site"), True)
                       for p in pages])
        rendered = {}
        for record in records:
            path = catalog.entries[record.id].path
            assert (out / path).resolve().is_relative_to(out.resolve())
            file = files.get_file_from_path(f"errors/{path}")
            assert file is not None, path
            page = Page(None, file, config)
            page.read_source(config)
            page.render(config, files)
            rendered[record.id] = page
        yield catalog, rendered
    finally:
        shutil.rmtree(root, ignore_errors=True)


# --- what the reader sees ------------------------------------------------------------------


@dataclasses.dataclass
class _Found:
    """What a browser shows of a page, and the markup it is made of."""

    text: str = ""
    """Decoded text, whitespace collapsed."""
    markup: Counter[tuple[str, ...]] = dataclasses.field(default_factory=Counter)
    """(tag, attribute names...) of each element outside code blocks, bare <code> left out."""
    kinds: set[tuple[str, ...]] = dataclasses.field(default_factory=set)
    """Every (tag,) and (tag, attribute) pair outside code blocks."""
    code_kinds: set[tuple[str, ...]] = dataclasses.field(default_factory=set)
    """The same inside code blocks."""
    hrefs: list[str] = dataclasses.field(default_factory=list)
    """Every link target."""
    attributes: list[tuple[str, str]] = dataclasses.field(default_factory=list)
    """Every (attribute, value)."""


class _Scanner(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.found = _Found()
        self.raw_text: list[str] = []
        self.depth_in_code_block = 0
        self.stack: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        names = tuple(sorted(name for name, _ in attrs))
        classes = dict(attrs).get("class") or ""
        kinds = self.found.code_kinds if self.depth_in_code_block else self.found.kinds
        kinds.add((tag,))
        kinds.update((tag, name) for name in names)
        self.found.attributes.extend((name, value or "") for name, value in attrs)
        if tag == "a" and dict(attrs).get("href") is not None:
            self.found.hrefs.append(dict(attrs)["href"] or "")
        if self.depth_in_code_block == 0 and not (tag == "code" and not names):
            self.found.markup[(tag, *names)] += 1
        if tag == "pre" or "highlight" in classes.split():
            self.depth_in_code_block += 1
            self.stack.append(tag)
        elif tag not in ("img", "br", "hr", "input", "meta", "link"):
            self.stack.append("")

    def handle_endtag(self, tag: str) -> None:
        if self.stack and self.stack.pop():
            self.depth_in_code_block -= 1

    def handle_data(self, data: str) -> None:
        self.raw_text.append(data)


def _scan(page_html: str) -> _Found:
    scanner = _Scanner()
    scanner.feed(page_html)
    scanner.close()
    scanner.found.text = _collapse("".join(scanner.raw_text))
    return scanner.found


def _collapse(text: str) -> str:
    return " ".join(text.split())


def _assert_front_matter_and_title(record: Record, catalog: Catalog, page: Page) -> None:
    title = catalog.entries[record.id].title
    expected = {"hide": ["navigation"],
                "errdocs": record_meta(record, shown_tags(record), title=title)}
    assert page.meta == expected  # read back by MkDocs exactly as written
    # Material prints page.title unescaped: it must be escaped text with no element in it.
    title = page.title or ""
    assert "<" not in title and ">" not in title
    assert html.unescape(title) == _collapse(record.error_message)


def _assert_text_shown(record: Record, catalog: Catalog, found: _Found) -> None:
    prose = {"documentation", "trigger_scenarios", "common_situations", "solutions",
             "prevention_tips"}
    for spec in FIELDS:
        if spec.kind is Kind.INT or spec.name in ("slug", "githubUrl", "tags", "backgroundTag"):
            continue  # numbers; the path; the link; group labels (checked below)
        value = getattr(record, spec.attr)
        for text in value if isinstance(value, tuple) else [value]:
            if text is None:
                continue
            expected = _collapse(str(text))
            if spec.attr in prose:  # inline code in backticks is kept as code, so `x` shows x
                shown = _collapse(found.text.replace("`", ""))
                assert _collapse(expected.replace("`", "")) in shown, spec.name
            else:
                assert expected in found.text, spec.name
    for tag in shown_tags(record):
        assert catalog.group_of(GroupKind.TAG, tag).label in found.text
    if record.background_tag and group_key(GroupKind.CATEGORY, record.background_tag):
        assert catalog.group_of(GroupKind.CATEGORY, record.background_tag).label in found.text
    assert _collapse(record.dataset_version or "") in found.text
    if record.github_url:
        url = safe_url(record.github_url, host=SOURCE_HOST)
        if url is None:
            assert _collapse(record.github_url) in found.text
        else:
            assert url in found.hrefs


def _assert_no_new_markup(record: Record, found: _Found, plain: _Found) -> None:
    assert found.kinds <= plain.kinds, found.kinds - plain.kinds
    # Pygments marks tokens of real code with <span class>; plain words may have none.
    allowed_in_code = plain.code_kinds | PYGMENTS_TOKENS
    assert found.code_kinds <= allowed_in_code, found.code_kinds - allowed_in_code
    extra = {k: n for k, n in found.markup.items() if n > plain.markup[k]}
    assert not extra, extra
    links = pageparts.source_links(record)
    # links.line is a Markdown link target (a literal & written &amp;); the HTML's href is
    # the URL itself.
    line = None if links.line is None else str(links.line).replace("&amp;", "&")
    outside = {safe_url(record.github_url, host=SOURCE_HOST), line,
               pageparts.commit_url(record)} - {None}
    for href in found.hrefs:
        assert href.startswith("#") or ":" not in href.split("/")[0] or href in outside, href
    assert not [name for name, _ in found.attributes if name.startswith("on")]


# --- the same records with plain words ------------------------------------------------------


def _plain(record: Record, n: int, records: list[Record]) -> Record:
    """``record`` with each text replaced by plain words, keeping what shapes the page: which
    fields are blank, the line and paragraph structure, the code language, distinct tags, and
    which records are related (one repository, family, file or category for the same ones)."""
    changes: dict[str, object] = {
        "id": f"id{n}", "slug": "s",
        "repo": f"o/r{_index(records, lambda r: group_key(GroupKind.REPO, r.repo), record)}",
        "error_message": f"plain{_index(records, lambda r: message_key(r.error_message), record)}"}
    for spec in FIELDS:
        value = getattr(record, spec.attr)
        if spec.attr in changes or value is None or spec.kind is Kind.INT:
            continue
        if spec.kind is Kind.TEXT_LIST:
            changes[spec.attr] = tuple(_plain_text(v) for v in value)
        else:
            changes[spec.attr] = _plain_text(value)
    changes["tags"] = tuple(_plain_key(t, record.tags) for t in record.tags)
    if record.background_tag is not None:
        changes["background_tag"] = _plain_key(
            record.background_tag, tuple(r.background_tag or "" for r in records))
    if record.file_path:
        number = _index(records, lambda r: r.file_path, record)
        changes["file_path"] = _plain_file(record.file_path).replace("plain", f"plain{number}", 1)
    if record.github_url is not None:
        ok = safe_url(record.github_url, host=SOURCE_HOST)
        # A safe link is kept as it is: its shape (a blob, a line range) decides the links.
        changes["github_url"] = record.github_url if ok else "not-a-link"
    # What decides markup rather than text is kept too: whether the class shows in the error
    # as printed, whether the commit is a hash (a link) and the dates are dates (<time>).
    if record.dataset_version is not None:
        changes["dataset_version"] = _plain_text(record.dataset_version)
    if record.error_class:
        changes["error_class"] = "Plain" if pageparts.printed_error(record)[1] else "not plain"
    if pageparts.commit_url(record) is not None:
        changes["analyzed_sha"] = record.analyzed_sha
    for name in ("analyzed_at", "dataset_version"):
        if pageparts.readable_date(getattr(record, name)):
            changes[name] = getattr(record, name)
    return dataclasses.replace(record, **changes)  # type: ignore[arg-type]


def _index(records: list[Record], key: Callable[[Record], object], record: Record) -> int:
    """Which of the distinct ``key`` values of ``records`` is ``record``'s."""
    return list(dict.fromkeys(map(key, records))).index(key(record))


def _plain_text(value: str) -> str:
    return "\n".join("plain" if line.strip() else line for line in value.split("\n"))


def _plain_key(value: str, all_values: tuple[str, ...]) -> str:
    keys = list(dict.fromkeys(group_key(GroupKind.TAG, v) for v in all_values))
    key = group_key(GroupKind.TAG, value)
    return f"plain{keys.index(key)}" if key else value


def _plain_file(path: str) -> str:
    for suffix in SUFFIXES:
        if language_for(f"plain{suffix}") == language_for(path):
            return f"plain{suffix}"
    return path
