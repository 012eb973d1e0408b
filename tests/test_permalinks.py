"""Permalinks, exports and the history, without a site build: the record schema against
``check``, exports round-tripping, the pages at addresses records left, the feed, the history's
arithmetic, and the ``schema`` and ``export`` commands. (Through the real build:
``test_permalinks_site.py``.)"""

from __future__ import annotations

import dataclasses
import html.parser
import json
import re
import sqlite3
import subprocess
import sys
import unicodedata
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from errdocs.catalog.history import (
    HISTORY_FILE,
    LIST_LIMIT,
    History,
    HistoryError,
    Listed,
    RecordedHistory,
    Seen,
    Snapshot,
    Version,
    dataset_version,
)
from errdocs.catalog.model import build_catalog
from errdocs.catalog.paths import exact_segment
from errdocs.cli import main
from errdocs.pages import changes, exports
from errdocs.pages.permalinks import Addresses, Removed, fnv1a_utf16, redirect_page, removed_page
from errdocs.records.problems import Severity
from errdocs.records.read import Line, RawItem, decode, read
from errdocs.records.record import Origin, Record
from errdocs.records.schema import FIELDS, Kind, json_schema
from errdocs.records.validate import Validator

from .conftest import ROOT, SAMPLE
from .helpers import read_all, record, xml_attribute, xml_text
from .nodejs import needs_node, run_node

HOSTILE = ROOT / "tests" / "fixtures" / "hostile.jsonl"
SCHEMA = Draft202012Validator(json_schema())
SITE = Addresses("errors", True, "https://errors.example.org/docs/")
HOSTILE_TEXT = 'Bad "q" </script><script>alert(1)</script> & <b>x</b> \x00\x0b\ud7ff\ufffe]]>'


# -- The schema is what check enforces ---------------------------------------------------------

def _schema_fields(value: object) -> set[str | None]:
    """The fields the schema finds wrong in ``value``, named as check names them."""
    envelope = isinstance(value, dict) and "record" in value
    fields: set[str | None] = set()
    for error in SCHEMA.iter_errors(value):
        path = list(error.absolute_path)
        if envelope and len(path) > 1 and path[0] == "record":
            path = path[1:]
        if error.validator == "required":
            fields |= {f for f in error.validator_value if f not in error.instance}
        else:
            fields.add(str(path[0]) if path else None)
    return fields


def _check_fields(value: object) -> set[str | None]:
    """The fields check finds in error in ``value`` (warnings aside)."""
    validator = Validator()
    validator.validate(RawItem(Origin("d.jsonl", 1), value))
    return {p.field for p in validator.problems if p.severity is Severity.ERROR}


def test_the_schema_is_a_valid_draft_2020_12_schema() -> None:
    Draft202012Validator.check_schema(json_schema("https://x.example/api/schema.json"))
    assert json_schema()["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert set(json_schema()["$defs"]["record"]["properties"]) == {f.name for f in FIELDS}


def _hostile_values() -> list[tuple[int, object]]:
    """Every line of the fixture that is JSON (as check's reader decodes it)."""
    decoded = (decode(line) for line in read([HOSTILE]) if isinstance(line, Line))
    return [(item.origin.line, item.value) for item in decoded if isinstance(item, RawItem)]


@pytest.mark.parametrize(("line", "value"), _hostile_values())
def test_the_schema_rejects_the_hostile_records_check_rejects_naming_the_same_fields(
        line: int, value: object) -> None:
    if isinstance(value, dict) and value.get("id") == "dup":
        pytest.skip("a duplicate id is a property of the dataset, not of one record")
    assert _schema_fields(value) == _check_fields(value), f"hostile.jsonl:{line}"


def test_the_hostile_fixture_has_records_of_every_kind_of_error() -> None:
    rejected = [v for _, v in _hostile_values() if _schema_fields(v)]
    named = set().union(*map(_schema_fields, rejected))
    assert {"errorMessage", "lineNumber", "tags", "repo", "slug", "id", "solutions",
            "record", None} <= named


_ANY_TEXT = st.text(max_size=6) | st.sampled_from(
    ["", " ", "\t", "\x01", "\x1c", "\x85", "\u2028", "\ufeff", "\ud800", "a\n", "a/b", "a/b\n",
     "/b", "a/", "a//b", "a/b/c", "\x00a/b\x00", "a /b", "\x01/\x02", "ü/ö"])
_ANY = st.one_of(st.none(), st.booleans(), st.integers(-3, 3), st.just(2 ** 70), st.floats(
    allow_nan=False, allow_infinity=False).filter(lambda f: not f.is_integer()), _ANY_TEXT,
    st.lists(_ANY_TEXT, max_size=3), st.lists(st.integers(0, 2), min_size=1, max_size=2),
    st.just({"x": 1}))


_GOOD = {Kind.TEXT: "x", Kind.INT: 5, Kind.TEXT_LIST: ["a"]}
_RECORD = st.fixed_dictionaries({}, optional={
    **{f.name: st.just("o/r" if f.name == "repo" else _GOOD[f.kind]) | _ANY for f in FIELDS},
    "unknown": _ANY})
_RAW = _RECORD | st.fixed_dictionaries({"record": _RECORD | _ANY}, optional={
    "datasetVersion": _ANY})
"""A record of any shape: each field absent, good, or of any type; maybe enveloped."""


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(value=_RAW)
def test_the_schema_and_check_agree_on_any_record(value: object) -> None:
    """Same verdict, same fields, for records of any shape (JSON Schema counts 1.0 as an
    integer, check does not: floats here are never whole). A broken envelope is the one
    thing check stops at: the schema names the record's own problems too."""
    schema, checked = _schema_fields(value), _check_fields(value)
    if checked & {"datasetVersion", "record"}:
        assert checked <= schema
    else:
        assert schema == checked


def test_every_blank_or_invisible_character_is_blank_or_not_alike_for_both() -> None:
    """A required text of one character: blanks, controls, formats, separators, and a few
    visible ones, found blank by both or by neither."""
    chars = [c for c in map(chr, range(0x110000)) if c.isspace() or unicodedata.category(c)
             in ("Cc", "Cf", "Zs", "Zl", "Zp")] + ["a", "é", "名", "🙂"]
    base = {"id": "a", "repo": "o/r", "errorMessage": "m"}
    disagree = [hex(ord(c)) for c in chars
                if bool(_check_fields(base | {"slug": c})) == SCHEMA.is_valid(base | {"slug": c})]
    assert len(chars) > 200 and disagree == []


# -- Exports -----------------------------------------------------------------------------------

def _read_back(text: str) -> Record:
    """An export, read by check as any record."""
    validator = Validator()
    [back] = validator.validate_all([RawItem(Origin("x.json", 1), json.loads(text))])
    assert [p for p in validator.problems if p.severity is Severity.ERROR] == []
    return back


def _good_records() -> list[Record]:
    return read_all([SAMPLE]).records + read_all([HOSTILE]).records


def test_every_export_validates_and_reads_back_as_the_same_record() -> None:
    records = _good_records()
    catalog = build_catalog(records)
    for rec in records:
        path, text = exports.record_file(rec, catalog.entries[rec.id].path, SITE)
        assert path == f"api/records/{exact_segment(rec.id)}.json"
        value = json.loads(text)
        assert SCHEMA.is_valid(value), rec.id
        assert value["path"] == SITE.page_url(catalog.entries[rec.id].path)
        assert value["url"] == SITE.site_url + value["path"]
        assert _read_back(text) == dataclasses.replace(rec, origin=Origin("x.json", 1))


def test_an_export_holds_every_field_whole_not_cut_as_the_page_shows_it() -> None:
    long = "x" * 30_000
    rec = record("big", documentation=long, tags=tuple(f"t{n}" for n in range(150)),
                 http_status=2 ** 70, dataset_version="v1")
    value = json.loads(exports.record_file(rec, "o/r/s.md", SITE)[1])
    assert value["record"]["documentation"] == long
    assert len(value["record"]["tags"]) == 150 and value["record"]["httpStatus"] == 2 ** 70
    assert value["datasetVersion"] == "v1" and "messagePattern" not in value["record"]


@settings(max_examples=200, deadline=None)
@given(text=st.text(st.characters(exclude_categories=["Cs"])))
def test_exports_and_redirects_are_valid_json_and_html_whatever_the_text(text: str) -> None:
    rec = record(text or "x", repo="o/r", error_message=f"m{text}", documentation=text,
                 dataset_version=text)
    out = exports.record_file(rec, "o/r/s.md", SITE)[1]
    assert json.loads(out)["record"]["documentation"] == text
    page = redirect_page("id/x/index.html", "errors/o/r/s/", rec.error_message, SITE)
    parser = _Texts()
    parser.feed(page)
    assert parser.tags == ["html", "head", "meta", "meta", "link", "meta", "title", "meta", "link",
                           "meta", "body", "p", "a"]
    assert parser.text["title"] == _shown(rec.error_message)


def _shown(text: str) -> str:
    return text if len(text) <= 200 else text[:200] + "…"


class _Texts(html.parser.HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[str] = []
        self.text: dict[str, str] = {}
        self._open: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        self._open.append(tag)

    def handle_endtag(self, tag: str) -> None:
        if self._open and self._open[-1] == tag:
            self._open.pop()

    def handle_data(self, data: str) -> None:
        if self._open:
            self.text[self._open[-1]] = self.text.get(self._open[-1], "") + data


def _html_text(page: str, tag: str) -> str:
    parser = _Texts()
    parser.feed(page)
    return parser.text.get(tag, "")


def test_record_text_never_becomes_markup_in_a_removed_page() -> None:
    removed = Removed("<id>", HOSTILE_TEXT, "o/<r>", "v<1>", "errors/o/r/", None)
    page = removed_page("id/x/index.html", removed, SITE, site_name='Err"docs <&>')
    parser = _Texts()
    parser.feed(page)
    assert set(parser.tags) <= {"html", "head", "meta", "link", "title", "style", "body", "main",
                                "h1", "p", "code", "strong", "ul", "li", "a"}
    assert parser.tags.count("a") == 2  # the repository and the catalogue
    assert '<meta name="robots" content="noindex">' in page
    assert "Removed: " + HOSTILE_TEXT[:200] == _html_text(page, "title")
    # The site's search, as every page of the site links it; a site without an address
    # has no OpenSearch description to link.
    assert ('<link rel="search" type="application/opensearchdescription+xml" '
            'title="Err&quot;docs &lt;&amp;&gt;" href="../../opensearch.xml">') in page
    assert 'rel="search"' not in removed_page("id/x/index.html", removed, Addresses(),
                                              site_name="errdocs")


def test_index_pages_are_bounded_and_list_every_record_once() -> None:
    entries = [exports.IndexEntry(f"id-{n}", "m" * 1000, f"o/r/s{n}.md") for n in range(3000)]
    files = list(exports.index_files(entries, SITE))
    head = json.loads(files[0].content)
    assert head["records"] == 3000 and head["pages"] == 4 == len(files) - 1
    seen: list[str] = []
    for page in files[1:]:
        body = json.loads(page.content)
        assert len(page.content) < 600_000
        for row in body["records"]:
            assert len(row[1]) <= exports.INDEX_MESSAGE_CHARS + 1
            assert exports.index_page_of(row[0], 4) == body["page"]
            seen.append(row[0])
    assert sorted(seen) == sorted(e.record_id for e in entries)


# -- Paths ------------------------------------------------------------------------------------

@given(st.text(min_size=1))
def test_an_id_segment_is_safe_and_keeps_case_variants_apart(value: str) -> None:
    seg = exact_segment(value)
    assert re.fullmatch(r"[a-z0-9._-]+", seg) and seg not in (".", "..")
    assert value == value.lower() or exact_segment(value.lower()) != seg or \
        value.lower() == value.upper()


@needs_node
def test_the_hash_of_the_404_page_and_of_the_index_is_the_browsers() -> None:
    texts = ["id:2f61984c034089bc", "id:ünï/名前", "page:errors/o/r/s", "🙂 astral 𝔸", "",
             "x" * 300]
    assert run_node({"mode": "hash", "texts": texts}) == [fnv1a_utf16(t) for t in texts]


# -- The history ------------------------------------------------------------------------------

def _seen(*rows: tuple[str, bytes, str]) -> list[Seen]:
    return [Seen(i, d, p, f"message {i}", "o/r") for i, d, p in rows]


def _update(work: Path, name: str, rows: list[Seen], keep: int = 10,
            commit: bool = True) -> Snapshot:
    with History(work, keep) as past:
        snapshot = past.update(name, "2026-01-01T00:00:00Z", rows)
        if commit:
            past.commit()
    return snapshot


def test_two_versions_count_what_was_added_changed_and_removed(tmp_path: Path) -> None:
    first = _update(tmp_path, "v1", _seen(("a", b"1", "o/r/a.md"), ("b", b"1", "o/r/b.md"),
                                         ("c", b"1", "o/r/c.md")))
    assert (first.current.added, first.current.changed, first.current.removed) == (3, 0, 0)
    second = _update(tmp_path, "v2", _seen(("a", b"2", "o/r/a2.md"), ("b", b"1", "o/r/b.md"),
                                          ("d", b"1", "o/r/d.md")))
    v2 = second.current
    assert (v2.name, v2.added, v2.changed, v2.removed) == ("v2", 1, 1, 1)
    assert [i.id for i in v2.lists["removed"]] == ["c"]
    assert [g.id for g in second.gone] == ["c"] and second.gone[0].version == "v2"
    assert second.old_paths == (("o/r/a.md", "a"), ("o/r/c.md", "c"))
    assert [v.name for v in second.versions] == ["v2", "v1"]
    assert second.versions[1] == first.current  # an older version stays as it was


def test_a_versions_lists_are_bounded_and_its_page_says_how_many_more(tmp_path: Path) -> None:
    """A version that adds, changes and removes more than LIST_LIMIT records lists that many
    of each (its counts stay whole) and says how many it left out."""
    many = 2 * LIST_LIMIT + 30
    _update(tmp_path, "v1", _seen(*((f"r{n:03}", b"1", f"o/r/{n}.md") for n in range(many))))
    second = _update(tmp_path, "v2", _seen(
        *((f"r{n:03}", b"2", f"o/r/{n}.md") for n in range(LIST_LIMIT + 10)),  # changed
        *((f"new{n:03}", b"1", f"o/r/new{n}.md") for n in range(LIST_LIMIT + 20))))
    v2 = second.current
    assert (v2.added, v2.changed, v2.removed) == (LIST_LIMIT + 20, LIST_LIMIT + 10,
                                                  many - LIST_LIMIT - 10)
    assert {kind: len(items) for kind, items in v2.lists.items()} == dict.fromkeys(
        ("added", "changed", "removed"), LIST_LIMIT)
    page = next(p for p in changes.changes_pages(second, build_catalog([]), SITE, 10)
                if p.path == changes.changes_path("v2")).content
    assert page.count("\n- ") == 3 * LIST_LIMIT
    more = [int(n) for n in re.findall(r"…and (\d+) more\.", page)]
    assert more == [20, 10, many - 2 * LIST_LIMIT - 10]  # added, changed, removed


def test_a_rebuild_of_the_same_version_amends_it_and_a_failed_build_changes_nothing(
        tmp_path: Path) -> None:
    rows = _seen(("a", b"1", "o/r/a.md"), ("b", b"1", "o/r/b.md"))
    first = _update(tmp_path, "v1", rows)
    assert _update(tmp_path, "v1", rows) == first  # nothing changed, nothing new
    assert _update(tmp_path, "v2", rows[:1], commit=False).current.removed == 1
    with pytest.raises(RuntimeError), History(tmp_path) as past:
        past.update("v3", "t", [])
        raise RuntimeError("the build failed")
    again = _update(tmp_path, "v1", rows + _seen(("c", b"1", "o/r/c.md")))
    assert (again.current.name, again.current.added) == ("v1", 3)  # the failures left no trace
    assert [v.name for v in again.versions] == ["v1"]


_BUILDS = st.lists(st.tuples(
    st.sampled_from(["v1", "v2", "v3"]),
    st.lists(st.tuples(st.sampled_from("abcdef"), st.sampled_from([b"1", b"2"]),
                       st.sampled_from(["o/r", "o/s"])),  # (a page is its record's alone)
             max_size=6, unique_by=lambda row: row[0]),
    st.booleans()), min_size=1, max_size=5)


def _dump(work: Path) -> list[str]:
    import sqlite3
    from contextlib import closing

    with closing(sqlite3.connect(work / HISTORY_FILE)) as db:
        return list(db.iterdump())


@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(builds=_BUILDS, keep=st.integers(1, 3))
def test_an_update_written_down_and_made_again_elsewhere_leaves_the_same_history(
        tmp_path_factory: pytest.TempPathFactory,
        builds: list[tuple[str, list[tuple[str, bytes, str]], bool]], keep: int) -> None:
    # A build whose plan is made in a child process: the child's update (rolled back as it
    # ends) is written down, then made again by the build process from what was written.
    direct, elsewhere = tmp_path_factory.mktemp("direct"), tmp_path_factory.mktemp("elsewhere")
    writes = tmp_path_factory.mktemp("writes") / "writes"
    for name, rows, reset in builds:
        seen = [Seen(i, d, f"{folder}/{i}.md", f"message {i}", "o/r") for i, d, folder in rows]
        with History(direct, keep, reset=reset) as past:
            expected = past.update(name, "2026-01-01T00:00:00Z", seen)
            past.commit()
        before = _dump(elsewhere)
        with RecordedHistory(elsewhere, keep, reset=reset, to=writes) as past:
            assert past.update(name, "2026-01-01T00:00:00Z", seen) == expected
        assert _dump(elsewhere) == before  # the child's transaction ends with it
        with History(elsewhere, keep, reset=reset) as past:
            past.replay(writes)
            past.commit()
        assert _dump(elsewhere) == _dump(direct)


def test_what_a_version_changed_does_not_depend_on_the_builds_in_between(
        tmp_path: Path) -> None:
    """A version built three times (a record added then removed, one changed then changed
    back, one moved twice) ends as if built once: what it changed depends only on the history
    before it and on its records."""
    first = _seen(("a", b"1", "o/r/a.md"), ("b", b"1", "o/r/b.md"), ("c", b"1", "o/r/c.md"))
    final = _seen(("a", b"1", "o/r/a.md"), ("b", b"2", "o/r/b3.md"))
    direct, amended = tmp_path / "direct", tmp_path / "amended"
    for work in (direct, amended):
        _update(work, "v1", first)
    _update(amended, "v2", _seen(("a", b"2", "o/r/a.md"), ("b", b"1", "o/r/b2.md"),
                                 ("c", b"1", "o/r/c.md"), ("x", b"1", "o/r/x.md")))
    _update(amended, "v2", _seen(("a", b"1", "o/r/a.md"), ("b", b"2", "o/r/b2.md"),
                                 ("x", b"1", "o/r/x.md")))
    assert _update(amended, "v2", final) == _update(direct, "v2", final)
    snapshot = _update(direct, "v2", final)
    assert (snapshot.current.added, snapshot.current.changed, snapshot.current.removed) == (
        0, 1, 1)
    assert snapshot.old_paths == (("o/r/b.md", "b"), ("o/r/c.md", "c"))
    assert [g.id for g in snapshot.gone] == ["c"]


def test_removed_records_are_kept_for_keep_versions_and_moved_addresses_while_they_live(
        tmp_path: Path) -> None:
    _update(tmp_path, "v1", _seen(("a", b"1", "o/r/a.md"), ("b", b"1", "o/r/b.md")), keep=2)
    _update(tmp_path, "v2", _seen(("a", b"1", "o/r/a2.md")), keep=2)
    third = _update(tmp_path, "v3", _seen(("a", b"1", "o/r/a2.md")), keep=2)
    assert [g.id for g in third.gone] == ["b"]
    fourth = _update(tmp_path, "v4", _seen(("a", b"1", "o/r/a2.md")), keep=2)
    assert fourth.gone == () and [v.name for v in fourth.versions] == ["v4", "v3"]
    assert fourth.old_paths == (("o/r/a.md", "a"),)  # a lives: its old address still redirects
    back = _update(tmp_path, "v5", _seen(("a", b"1", "o/r/a.md")), keep=2)
    assert back.old_paths == (("o/r/a2.md", "a"),)  # its first address is its page again


def test_a_reset_starts_anew_and_an_unreadable_history_is_an_error(tmp_path: Path) -> None:
    _update(tmp_path, "v1", _seen(("a", b"1", "o/r/a.md")))
    with History(tmp_path, reset=True) as past:
        snapshot = past.update("v2", "t", _seen(("b", b"1", "o/r/b.md")))
    assert snapshot.gone == () and [v.name for v in snapshot.versions] == ["v2"]
    assert _update(tmp_path, "v2", _seen(("b", b"1", "o/r/b.md"))).current.removed == 1
    (tmp_path / "history.sqlite").write_bytes(b"not a database" * 100)
    with pytest.raises(HistoryError, match="reset-history"):
        History(tmp_path)


def test_the_build_version_is_the_one_most_records_carry() -> None:
    assert dataset_version(["v1", "v2", "v2", None]) == "v2"
    assert dataset_version(["a", "b"]) == "b"
    assert dataset_version([None]) == "unversioned"


# -- The feed ---------------------------------------------------------------------------------

def _version(seq: int, name: str, kind: str, count: int) -> Version:
    items = tuple(Listed(f"{name}-{n}", f"{HOSTILE_TEXT} {n}", f"o/r/{name}-{n}.md")
                  for n in range(count))
    lists = {"added": (), "changed": (), "removed": ()} | {kind: items}
    return Version(seq, name, f"2026-01-0{seq}T00:00:00Z", count * (kind == "added"),
                   count * (kind == "changed"), 0, lists)


def test_the_feed_is_valid_atom_bounded_and_newest_first() -> None:
    versions = (_version(2, "v2\x01<", "changed", 60), _version(1, "v1", "added", 80))
    snapshot = Snapshot(versions[0], versions, (), ())
    text = changes.feed(snapshot, build_catalog([]), SITE, "errdocs <&>")
    root = ET.fromstring(text.encode("utf-8"))
    ns = {"a": "http://www.w3.org/2005/Atom"}
    entries = root.findall("a:entry", ns)
    assert len(entries) == changes.FEED_ENTRIES
    assert [xml_attribute(e, "a:category", "term", ns) for e in entries].count("changed") == 60
    assert xml_text(entries[0], "a:title", ns).startswith('Bad "q" </script>')
    assert len({e.findtext("a:id", namespaces=ns) for e in entries}) == 100
    assert all(xml_attribute(e, "a:link", "href", ns).startswith(f"{SITE.site_url}id/")
               for e in entries)  # none of them lives in this (empty) catalogue
    assert root.findtext("a:updated", namespaces=ns) == "2026-01-02T00:00:00Z"


# -- OpenSearch -------------------------------------------------------------------------------

def _opensearch(site_url: str | None) -> str:
    """``overrides/opensearch.xml`` as MkDocs renders it (a static template)."""
    import jinja2

    env = jinja2.Environment(loader=jinja2.FileSystemLoader(ROOT / "overrides"))
    return env.get_template("opensearch.xml").render(
        config={"site_url": site_url, "site_name": "errdocs <&>"})


def test_the_opensearch_description_exists_only_with_the_sites_address() -> None:
    """A browser needs an absolute template and reads the description only from a site it
    visits over HTTP(S): without ``site_url`` (the offline bundle, a site built without an
    address) the template renders empty, and MkDocs writes no file for an empty template."""
    text = _opensearch("https://errors.example.org/docs/")
    assert text.startswith("<?xml ")  # nothing before the declaration
    root = ET.fromstring(text.encode("utf-8"))
    ns = {"o": "http://a9.com/-/spec/opensearch/1.1/"}
    assert xml_attribute(root, "o:Url", "template", ns) == (
        "https://errors.example.org/docs/?q={searchTerms}")
    assert root.findtext("o:ShortName", namespaces=ns) == "errdocs <&>"
    assert _opensearch(None).strip() == "" and _opensearch("").strip() == ""


# -- Commands ---------------------------------------------------------------------------------

def test_the_schema_command_prints_the_schema(project: Path) -> None:
    result = CliRunner().invoke(main, ["schema", "-f", str(project / "mkdocs.yml")])
    assert result.exit_code == 0
    assert json.loads(result.output) == json_schema()
    assert result.output == exports.schema_text(Addresses())


def test_export_writes_ndjson_and_sqlite_and_replaces_only_its_own_files(
        project: Path, tmp_path: Path) -> None:
    config = str(project / "mkdocs.yml")
    runner = CliRunner()
    out = tmp_path / "catalogue.ndjson"
    result = runner.invoke(main, ["export", "-f", config, "-o", str(out), str(SAMPLE)])
    assert result.output == f"40 records exported to {out} (ndjson); 0 errors, 0 warnings\n"
    lines = out.read_text("utf-8").splitlines()
    assert len(lines) == 40 and all(SCHEMA.is_valid(json.loads(line)) for line in lines)
    records = read_all([SAMPLE]).records
    assert [json.loads(line)["record"]["id"] for line in lines] == [r.id for r in records]
    db_file = tmp_path / "catalogue.sqlite"
    for _ in range(2):  # the second run replaces the first's file
        result = runner.invoke(main, ["export", "-f", config, "--format", "sqlite", "-o",
                                      str(db_file), str(SAMPLE)])
        assert result.exit_code == 0, result.output
    with sqlite3.connect(db_file) as db:
        rows = db.execute("SELECT id, path, tags, json FROM records ORDER BY id").fetchall()
    assert len(rows) == 40 and json.loads(rows[0][2]) == list(
        next(r for r in records if r.id == rows[0][0]).tags)
    assert [json.loads(r[3]) for r in rows] == sorted(map(json.loads, lines),
                                                      key=lambda v: v["record"]["id"])
    foreign = tmp_path / "notes.txt"
    foreign.write_text("mine\n")
    for form in ("ndjson", "sqlite"):
        result = runner.invoke(main, ["export", "-f", config, "--format", form, "-o",
                                      str(foreign), str(SAMPLE)])
        assert result.exit_code == 1
        assert result.output == (f"Error: {foreign}: exists and is not an errdocs {form} "
                                 "export; refusing to replace it (choose another --output); "
                                 "nothing was written\n")
    assert foreign.read_text() == "mine\n"


def test_an_export_to_a_reader_that_leaves_early_ends_quietly(project: Path) -> None:
    """``errdocs export | head``: the closed pipe is no error line (the export is larger than
    a pipe's buffer, so the writer does meet it)."""
    run = subprocess.Popen(
        [sys.executable, "-m", "errdocs", "export", "-f", str(project / "mkdocs.yml"),
         str(SAMPLE)], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert run.stdout is not None and run.stderr is not None
    first = run.stdout.readline()
    run.stdout.close()
    errors = run.stderr.read().decode()
    assert run.wait(timeout=60) == 1
    assert json.loads(first)["record"]["id"] and errors == ""


# -- The 404 page's data ----------------------------------------------------------------------

def _resolve(pages: list) -> dict[str, list[list[str]]]:
    found: dict[str, list[list[str]]] = {}
    manifest = json.loads(pages[0].content.split(",", 1)[1].rsplit(")", 1)[0])
    assert pages[0].path == "assets/resolve/manifest.js" and manifest["version"] == 1
    assert len(pages) == manifest["shards"] + 1
    for page in pages[1:]:
        name, _, body = page.content.removeprefix("__errdocsLookup(").partition(",")
        data = json.loads(body.rsplit(")", 1)[0])
        shard = int(json.loads(name).removeprefix("resolve-"))
        assert page.path == f"assets/resolve/r{shard:x}.js"
        assert all(fnv1a_utf16(key) % manifest["shards"] == shard for key in data)
        found.update(data)
    return found


def test_the_404_data_holds_odd_ids_and_left_addresses_not_plain_ids() -> None:
    records = [record("2f61984c034089bc", slug="plain"), record("ABC", slug="upper"),
               record("a/b", slug="slash"), record("über", slug="umlaut")]
    catalog = build_catalog(records)
    gone = (changes.Gone("Gone-1", "o/r/gone.md", "gone message", "o/r", "v2"),)
    snapshot = Snapshot(_version(2, "v2", "added", 0), (_version(2, "v2", "added", 0),), gone,
                        (("o/r/old-upper.md", "ABC"), ("o/r/gone.md", "Gone-1")))
    found = _resolve(changes.resolve_data(catalog, snapshot, SITE))
    assert found == {
        "id:abc": [["errors/o/r/upper/", "message of ABC"]],
        "id:a/b": [["errors/o/r/slash/", "message of a/b"]],
        "id:über": [["errors/o/r/umlaut/", "message of über"]],
        "id:gone-1": [[f"id/{exact_segment('Gone-1')}/", "gone message"]],
        "page:errors/o/r/old-upper": [["errors/o/r/upper/", "message of ABC"]],
        "page:errors/o/r/gone": [[f"id/{exact_segment('Gone-1')}/", "gone message"]],
    }


def test_a_removed_page_links_the_same_error_in_other_repositories() -> None:
    records = [record("a", repo="o/one", error_message="Unknown mode: {mode}"),
               record("b", repo="o/two", error_message="unknown mode: %s")]
    catalog = build_catalog(records)
    url = changes.family_url("Unknown mode: '{m}'", catalog, SITE)
    assert url is not None and url.startswith("errors/families/")
    assert changes.family_url("Another error", catalog, SITE) is None
    gone = changes.Gone("c", "o/three/x.md", "Unknown mode: {mode}", "o/three", "v2")
    snapshot = Snapshot(_version(2, "v2", "added", 0), (_version(2, "v2", "added", 0),), (gone,),
                        ())
    [page] = changes.left_pages(snapshot, catalog, SITE, "errdocs")
    assert page.path == "id/c/index.html"
    assert f'href="../../{url}"' in page.content  # and the repositories' list: o/three has none
    assert 'href="../../errors/repos/"' in page.content
