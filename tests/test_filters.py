"""The listings' filter data (issue 13, item 3): what a listing's summary offers, the value
lists of large listings, the row files, and the bound on what one filter action downloads."""

from __future__ import annotations

import json
import random
import re
from collections import Counter
from collections.abc import Sequence
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from errdocs.catalog import facets
from errdocs.catalog.model import Entry, GroupKind, build_catalog
from errdocs.pages import filters
from errdocs.pages.render import render_group, render_home
from errdocs.pages.short import ROW_VALUE_CHARS

from .helpers import record

_SCRIPT = re.compile(r'\A__errdocsLookup\("(f[a-z0-9/-]+)",(.*)\);\n\Z', re.DOTALL)


def _data(files: list, path: str) -> Any:
    """The data a file registers (checked to be one call with a JSON argument)."""
    (content,) = [f.content for f in files if f.path == f"{filters.FOLDER}/{path}"]
    match = _SCRIPT.match(content)
    assert match, content[:200]
    return json.loads(match.group(2))


def _repo_records(count: int, classes: int, repos: int = 1) -> list:
    return [record(f"id{n:05d}", repo=f"o/r{n % repos}", slug=f"s{n}",
                   error_class=f"C{n % classes}",
                   severity="error" if n % 3 else "warning", error_type="io",
                   file_path=f"src/m{n}.py", line_number=n + 1) for n in range(count)]


def test_a_small_listing_offers_the_values_it_has_with_counts_and_each_records_values() -> None:
    records = [record("a", error_class="TypeError", severity="error", file_path="a.py"),
               record("b", slug="s2", error_class="ValueError", severity="error"),
               record("c", slug="s3", error_class="TypeError", severity=" warning "),
               record("d", slug="s4", severity="error", file_path="d.rs")]
    catalog = build_catalog(records)
    group = catalog.group_of(GroupKind.REPO, "o/r")
    key = facets.group_filter(group)
    summary = _data(list(filters.filter_data(catalog)), f"g/{key}.js")
    offered = {name: values for name, values, _ in summary["facets"]}
    assert list(offered) == ["class", "type", "severity", "handling", "language"]  # one repo
    assert offered["class"] == [["TypeError", 2], ["(none)", 1], ["ValueError", 1]]
    assert offered["severity"] == [["error", 3], ["warning", 1]]
    assert offered["language"] == [["text", 2], ["python", 1], ["rust", 1]]
    assert summary["total"] == 4 and summary["showRepo"] is False
    class_of = {row[0]: offered["class"][row[1]][0] for row in summary["records"]}
    assert class_of == {"a": "TypeError", "b": "ValueError", "c": "TypeError", "d": "(none)"}
    assert [row[0] for row in summary["records"]] == [e.record_id for e in group.entries]


def test_a_large_listing_has_a_list_file_a_page_of_each_shown_value() -> None:
    records = _repo_records(filters.SMALL + 150, classes=3)
    catalog = build_catalog(records)
    group = catalog.group_of(GroupKind.REPO, "o/r0")
    key = facets.group_filter(group)
    files = list(filters.filter_data(catalog))
    summary = _data(files, f"g/{key}.js")
    assert "records" not in summary
    (klass,) = [values for name, values, _ in summary["facets"] if name == "class"]
    value, count, name = klass[0]
    assert (value, count) == ("C0", 117) and name == filters.value_key("C0")
    pages = [_data(files, f"g/{key}/class-{name}-{n}.js") for n in (1, 2, 3)]
    assert [len(p) for p in pages] == [50, 50, 17]
    expected = [e.record_id for e in group.entries if e.error_class == "C0"]
    assert [i for page in pages for i in page] == expected  # in the listing's order


def test_a_large_listing_offers_its_most_common_values_and_counts_the_rest() -> None:
    records = _repo_records(filters.SMALL + 100, classes=filters.SMALL + 100, repos=2)
    summary = _data(list(filters.filter_data(build_catalog(records))), f"g/{facets.CATALOGUE}.js")
    offered = {name: (values, hidden) for name, values, hidden in summary["facets"]}
    values, hidden = offered["class"]
    assert len(values) == filters.SHOWN and hidden == len(records) - filters.SHOWN
    assert offered["repo"] == ([["o/r0", 150, filters.value_key("o/r0")],
                                ["o/r1", 150, filters.value_key("o/r1")]], 0)
    assert summary["showRepo"] is True


def test_rows_show_what_the_listing_shows_and_are_where_the_hash_says() -> None:
    records = _repo_records(100, classes=4)
    catalog = build_catalog(records)
    files = list(filters.filter_data(catalog))
    rows = _data(files, "manifest.js")["rows"]
    assert rows == 32  # 100 records, at most 6 a file on average
    for entry in catalog.entries.values():
        got = _data(files, f"r/{filters.row_file(entry.record_id, rows):x}.js")
        assert got[entry.record_id] == [
            entry.path.removesuffix(".md"), entry.message, entry.where,
            catalog.texts.summaries([entry.record_id])[entry.record_id],
            entry.error_class, "io", entry.severity, "(none)", "python", entry.repo]


def test_listing_pages_carry_the_filter_box_and_families_do_not() -> None:
    records = [record("a", repo="x/y", error_message="boom", tags=("t",)),
               record("b", repo="z/w", error_message="boom", tags=("t",))]
    catalog = build_catalog(records)
    for kind in (GroupKind.REPO, GroupKind.TAG, GroupKind.CATEGORY):
        for group in catalog.groups[kind].values():
            page = next(render_group(group, catalog.texts)).content
            key = facets.group_filter(group)
            marker = f'<div class="errdocs-filter" data-errdocs-filter="{key}" hidden></div>'
            assert marker in page
            assert page.index(marker) < page.index('<div class="errdocs-rows"')
    for group in catalog.groups[GroupKind.FAMILY].values():
        assert "errdocs-filter" not in next(render_group(group, catalog.texts)).content
    assert 'data-errdocs-filter="all" hidden' in render_home(catalog).content


def test_one_filter_action_downloads_little_and_no_file_is_large() -> None:
    """Skewed data (a few large repositories, common classes, many rare ones): for every
    listing, facet and value, the files of its first page of results."""
    rng = random.Random(7)
    records = [record(f"{n:x}", repo=f"o/r{min(int(rng.paretovariate(1.2)), 40)}",
                      slug=f"s{n}", error_message=f"message {n} " + "word " * rng.randint(2, 30),
                      error_class=f"E{min(int(rng.paretovariate(0.8)), 400)}",
                      severity=rng.choice(("error", "warning", "fatal")),
                      handling_strategy=rng.choice(("retry", "fail-fast", None)),
                      tags=tuple(f"t{rng.randint(0, 60)}" for _ in range(3)),
                      file_path=f"src/{'deep/' * rng.randint(0, 6)}m{n}.py", line_number=n,
                      documentation="It fails. " * rng.randint(1, 20)) for n in range(3000)]
    catalog = build_catalog(records)
    files = list(filters.filter_data(catalog))
    size = {f.path: len(f.content.encode()) for f in files}
    assert max(size.values()) < 60_000
    rows = filters.row_file_count(len(records))
    listings: list[tuple[str, Sequence[Entry]]] = [
        (facets.CATALOGUE, sorted(catalog.entries.values(), key=lambda e: e.sort_key))]
    listings += [(facets.group_filter(g), g.entries) for kind in facets.FILTERED
                 for g in catalog.groups[kind].values()]
    worst = 0
    for key, entries in listings:
        summary = _data(files, f"g/{key}.js")
        for name, values, _ in summary["facets"]:
            param = next(p for p in filters.PARAMS if p.name == name)
            for value in values:
                paths = filters.action_files(key, entries, param, value[0], rows)
                worst = max(worst, sum(size[p] for p in paths))
    assert 20_000 < worst < 200_000


def _pathological() -> list:
    """Records whose values make a summary as long as it can be: long classes, handling
    strategies and languages, all different; long repository names, 300 repositories; hundreds
    of tags on each record (a tag listing spans every repository); ids long enough that the
    small listings are filtered from value lists."""
    rng = random.Random(13)
    word = "Ünïcödé" * 4  # escaped in the ASCII-only JSON: 6 bytes a character

    def long(prefix: str, n: int) -> str:
        return f"{prefix}{n}{word}" + "x" * rng.randint(0, 150)

    tags = tuple(f"tag-{t}" for t in range(300))
    records = [record(f"{'i' * (n % 7) * 9}{n:05d}", repo=f"{long('owner', n % 300)}/repo",
                      slug=f"s{n}", error_class=long("Cls", n), error_type=long("kind", n),
                      severity=long("sev", n), handling_strategy=long("strategy", n),
                      file_path=f"src/m{n}.{('py', 'rs', 'go', 'java')[n % 4]}",
                      tags=tags if n < 200 else ()) for n in range(600)]
    records += [record(f"{'s' * 16}{n:04d}", repo=f"{'o' * 90}/{n % 150}", slug=f"t{n}",
                       error_class=f"C{n}", tags=("few",)) for n in range(200)]  # a small one
    return records


def test_no_summary_is_longer_than_its_budget_whatever_the_values() -> None:
    """The largest summary is bounded by construction (filters.SUMMARY_BYTES, under 30 KB),
    not by the number of values a facet has nor their length; each facet still offers its
    most common values (a prefix of the ranking), and counts the records of the others."""
    records = _pathological()
    catalog = build_catalog(records)
    files = list(filters.filter_data(catalog))
    listings: list[tuple[str, Sequence[Entry]]] = [
        (facets.CATALOGUE, sorted(catalog.entries.values(), key=lambda e: e.sort_key))]
    listings += [(facets.group_filter(g), g.entries) for kind in facets.FILTERED
                 for g in catalog.groups[kind].values()]
    size = {f.path: len(f.content.encode()) for f in files}
    summaries = [size[f"{filters.FOLDER}/g/{key}.js"] for key, _ in listings]
    assert len(listings) > 700
    assert max(summaries) < 30_000  # 208 KB before the budget
    assert max(summaries) <= filters.SUMMARY_BYTES < 30_000
    hidden_somewhere = 0
    for key, entries in listings:
        summary = _data(files, f"g/{key}.js")
        for name, values, hidden in summary["facets"]:
            param = next(p for p in filters.PARAMS if p.name == name)
            ranked = facets.ranked(Counter(facets.value_of(e, param.facet) for e in entries))
            short = [(v, c) for v, c in ranked  # as a large listing's entry, ASCII
                     if len(json.dumps([v, c, "0" * 12], separators=(",", ":"))) < 200]
            assert [tuple(v[:2]) for v in values] == short[:len(values)]
            assert sum(v[1] for v in values) + hidden == len(entries)
            assert values or not short
            hidden_somewhere += hidden
        if "records" in summary:  # a small listing: a value not offered is -1
            for row, entry in zip(summary["records"], entries, strict=True):
                for column, (name, values, _) in enumerate(summary["facets"], 1):
                    param = next(p for p in filters.PARAMS if p.name == name)
                    value = facets.value_of(entry, param.facet)
                    place = [v[0] for v in values].index(value) if row[column] >= 0 else -1
                    assert row[column] == place
                    assert place >= 0 or value not in [v[0] for v in values]
    assert hidden_somewhere > 0
    few, many = (facets.group_filter(catalog.group_of(GroupKind.TAG, t)) for t in ("few", "tag-0"))
    table = _data(files, f"g/{few}.js")["records"]  # 200 ids of 20 characters
    assert any(-1 in row for row in table)  # repositories not offered
    assert "records" not in _data(files, f"g/{many}.js")  # 200 longer ids: value lists


_TEXT = st.text(st.characters(blacklist_categories=["Cs"]), min_size=1, max_size=40)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(_TEXT, _TEXT, _TEXT), min_size=1, max_size=6))
def test_record_text_reaches_the_data_as_json_strings_only(texts: list) -> None:
    """Quotes, ``</script>``, line separators, anything: each file is one call with JSON
    (ASCII only), which gives back the very values."""
    records = [record(f"{n}\"</script>", slug=f"s{n}", error_message=message + "<script>",
                      error_class=klass, file_path=path, line_number=1)
               for n, (message, klass, path) in enumerate(texts)]
    catalog = build_catalog(records)
    files = list(filters.filter_data(catalog))
    assert all(f.content.isascii() and _SCRIPT.match(f.content) for f in files)
    assert all(re.fullmatch(r"[a-z0-9/.-]+", f.path) for f in files)  # no text in a path
    rows = filters.row_file_count(len(records))
    for entry in catalog.entries.values():
        row = _data(files, f"r/{filters.row_file(entry.record_id, rows):x}.js")[entry.record_id]
        assert row[1] == " ".join(entry.message.split()) or row[1].endswith("…")
        assert row[4] == facets.value_of(entry, facets.CLASS)


def test_long_values_are_cut_in_rows_and_still_filter_exactly() -> None:
    """A class, kind, severity or handling strategy is free text of any length (20,000
    characters here): a listing page's rows and the filters' row files hold at most
    ROW_VALUE_CHARS of each, and a cut value is never offered, so choosing an offered value
    still keeps exactly its records."""
    long = "Ü" * 20_000
    records = _repo_records(60, classes=3)
    records += [record(f"long{n}", repo="o/r0", slug=f"l{n}", error_class=long + str(n),
                       error_type=long, severity=long, handling_strategy=long,
                       file_path=f"src/l{n}.py", line_number=1) for n in range(6)]
    catalog = build_catalog(records)
    files = list(filters.filter_data(catalog))
    rows = {k: v for f in files if f.path.startswith(f"{filters.FOLDER}/r/")
            for k, v in _data(files, f.path.removeprefix(f"{filters.FOLDER}/")).items()}
    assert len(rows) == 66
    for row in rows.values():
        assert all(len(value) <= ROW_VALUE_CHARS + 1 for value in row[4:]), row[4][:40]
    assert max(len(f.content.encode()) for f in files) < 20_000
    group = catalog.group_of(GroupKind.REPO, "o/r0")
    page = next(render_group(group, catalog.texts)).content
    assert long not in page and "Ü" * ROW_VALUE_CHARS + "…" in page
    summary = _data(files, f"g/{facets.group_filter(group)}.js")
    offered = {v[0] for _name, values, _hidden in summary["facets"] for v in values}
    assert not any(v.startswith("Ü") for v in offered)
    classes = [row[4] for row in rows.values()]
    assert classes.count("C0") == 20 and all(c in offered for c in ("C0", "C1", "C2"))
