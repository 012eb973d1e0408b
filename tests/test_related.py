"""Related errors (errdocs.catalog.related): bounded lists, each what it says, checked against a
brute-force reading of the catalogue; and what a record page's input hash holds of them."""

from __future__ import annotations

import posixpath

from hypothesis import given, settings
from hypothesis import strategies as st

from errdocs.catalog.family import message_key
from errdocs.catalog.lights import Light
from errdocs.catalog.model import Catalog, GroupKind, build_catalog, group_key
from errdocs.catalog.related import MAX_RELATED
from errdocs.pages.render import render_record
from errdocs.records.record import Record
from errdocs.units.plan import plan

from .helpers import record


def test_four_records_of_one_message_in_one_repository_list_each_other() -> None:
    records = [record(f"r{n}", repo="BurntSushi/ripgrep", slug=f"s{n}",
                      error_message="value is not valid UTF-8", file_path=f"f{n}.rs")
               for n in range(4)]
    catalog = build_catalog(records)
    for mine in records:
        lists = catalog.related(mine)
        assert sorted(lists.same_message) == sorted(r.id for r in records if r is not mine)
        assert (lists.family_size, lists.family_repos) == (4, 1)
    assert catalog.groups[GroupKind.FAMILY] == {}  # one repository: no family page
    page = render_record(records[0], catalog).content
    assert "<h3>Same message in this repository</h3>" in page
    assert "- [value is not valid UTF-8](s1.md) — <code>f1.rs</code>" in page


def test_a_message_in_several_repositories_gets_a_family_page() -> None:
    messages = ["Unknown MLX async mode: {launch.mode}", "unknown MLX async mode: %s",
                "Unknown MLX async mode: '{0}'", "Unknown MLX async mode: {mode}"]
    records = [record(f"r{n}", repo=f"o{n % 3}/r", slug="unknown", error_message=m)
               for n, m in enumerate(messages)]
    catalog = build_catalog(records)
    (family,) = catalog.groups[GroupKind.FAMILY].values()
    assert family.label == "Unknown MLX async mode: …"
    assert family.path.startswith("families/") and family.repo_count == 3
    assert sorted(e.record_id for e in family.entries) == ["r0", "r1", "r2", "r3"]
    lists = catalog.related(records[0])
    # One of each other repository first, then the rest of its own.
    assert [catalog.entries[i].repo for i in lists.same_message] == ["o1/r", "o2/r", "o0/r"]
    page = render_record(records[0], catalog).content
    assert "<h3>Same error in other projects</h3>" in page
    assert f"Raised in 3 projects: [all 4 records](../../{family.path})." in page


def test_same_file_lists_the_nearest_lines_first_and_category_the_other_files() -> None:
    lines = [100, 10, 95, 130, 101, 400, *range(500, 520)]
    records = [record(f"f{n:02d}", slug=f"s{n:02d}", file_path="a.py", line_number=line,
                      background_tag="io") for n, line in enumerate(lines)]
    records += [record(f"g{n}", slug=f"t{n}", file_path=f"b{n % 2}.py", line_number=n,
                       background_tag=" IO ") for n in range(12)]
    records.append(record("other", repo="p/q", file_path="a.py", background_tag="io"))
    catalog = build_catalog(records)
    lists = catalog.related(records[0])  # line 100
    assert [catalog.entries[i].line for i in lists.same_file] == [
        101, 95, 130, 10, 400, 500, 501, 502, 503, 504]
    assert len(lists.same_category) == MAX_RELATED
    assert {catalog.entries[i].file for i in lists.same_category} == {"b0.py", "b1.py"}
    page = render_record(records[0], catalog).content
    assert "<h3>Same file</h3>" in page
    assert "<h3>Same category in this repository</h3>" in page
    assert "— line 101" in page and "— <code>b0.py</code>" in page


def test_a_record_with_no_relative_has_no_related_section() -> None:
    catalog = build_catalog([record("a", file_path="x.py"), record("b", repo="p/q")])
    assert "Related errors" not in render_record(record("a", file_path="x.py"), catalog).content


# --- property: every list is what it says, against a brute-force reading -------------------

REPOS = st.sampled_from(["o/a", "O/A", "o/b", "p/c", "q/d"])
MESSAGES = st.sampled_from(["Bad mode: {m}", "bad mode: %s", "Bad mode: 'x'", "Other {x}",
                            "other 5", "Third"])
FILES = st.sampled_from([None, "", "a.py", "b.py", "src/c.py"])
CATEGORIES = st.sampled_from([None, "", "io", " IO", "config"])


ROWS = st.lists(st.tuples(REPOS, st.sampled_from(["s", "t"]), MESSAGES, FILES,
                          st.one_of(st.none(), st.integers(0, 40)), CATEGORIES), max_size=30)


@settings(max_examples=80, deadline=None)
@given(ROWS)
def test_each_list_is_bounded_and_holds_what_it_says(rows: list[tuple]) -> None:
    records = [record(f"id{n}", repo=repo, slug=slug, error_message=message, file_path=file,
                      line_number=line, background_tag=category)
               for n, (repo, slug, message, file, line, category) in enumerate(rows)]
    catalog = build_catalog(records)
    keys = {r.id: message_key(r.error_message) for r in records}
    for mine in records:
        lists = catalog.related(mine)
        _check_same_message(catalog, records, mine, lists.same_message, keys)
        _check_same_file(catalog, records, mine, lists.same_file)
        _check_same_category(catalog, records, mine, lists.same_category)
        family = [r for r in records if keys[r.id] == keys[mine.id]]
        assert lists.family_size == len(family)
        assert lists.family_repos == len({_repo(catalog, r.id) for r in family})
        page = catalog.family_of(mine)
        assert (page is not None) == (lists.family_repos > 1)


def _repo(catalog: Catalog, record_id: str) -> str:
    return posixpath.dirname(catalog.entries[record_id].path)


def _check_same_message(catalog: Catalog, records: list[Record], mine: Record,
                        chosen: tuple[str, ...], keys: dict[str, str]) -> None:
    eligible = [r.id for r in records if r is not mine and keys[r.id] == keys[mine.id]]
    _check_chosen(chosen, eligible)
    here = _repo(catalog, mine.id)
    repos = [_repo(catalog, i) for i in chosen]
    other_repos = {_repo(catalog, i) for i in eligible} - {here}
    expected_firsts = min(len(other_repos), MAX_RELATED)
    assert len(set(repos[:expected_firsts])) == expected_firsts  # one of each repository
    assert here not in repos[:expected_firsts]


def _check_same_file(catalog: Catalog, records: list[Record], mine: Record,
                     chosen: tuple[str, ...]) -> None:
    eligible = [r.id for r in records if r is not mine and mine.file_path
                and r.file_path == mine.file_path and _repo(catalog, r.id) == _repo(
                    catalog, mine.id)]
    _check_chosen(chosen, eligible)

    def distance(record_id: str) -> int:
        return abs((catalog.entries[record_id].line or 0) - (mine.line_number or 0))

    distances = [distance(i) for i in chosen]
    assert distances == sorted(distances)  # nearest lines first
    left = [distance(i) for i in eligible if i not in chosen]
    assert not left or not distances or max(distances) <= min(left)


def _check_same_category(catalog: Catalog, records: list[Record], mine: Record,
                         chosen: tuple[str, ...]) -> None:
    key = group_key(GroupKind.CATEGORY, mine.background_tag or "")
    eligible = [r.id for r in records if r is not mine and key
                and group_key(GroupKind.CATEGORY, r.background_tag or "") == key
                and _repo(catalog, r.id) == _repo(catalog, mine.id)
                and not (mine.file_path and r.file_path == mine.file_path)]
    _check_chosen(chosen, eligible)


def _check_chosen(chosen: tuple[str, ...], eligible: list[str]) -> None:
    assert len(chosen) == len(set(chosen)) == min(len(eligible), MAX_RELATED)
    assert set(chosen) <= set(eligible)


# --- the page's input hash ------------------------------------------------------------------


def _page_keys(records: list[Record]) -> dict[str, str]:
    catalog = build_catalog(records)
    lights = [Light(r, f"hash-of-{r.id}", 0, 0, 0, r.id.encode()) for r in records]
    units = plan(lights, catalog, [], "global")
    return {path: key for unit in units for path, key in unit.page_keys}


def test_a_change_to_a_related_record_changes_the_hash_of_the_pages_listing_it() -> None:
    def records(message_b: str, repo_c: str) -> list[Record]:
        return [record("a", slug="a", file_path="f.py", line_number=1),
                record("b", slug="b", file_path="f.py", line_number=2, error_message=message_b),
                record("c", repo=repo_c, slug="c", error_message="message of a"),
                record("d", repo="x/y", slug="d")]
    before = _page_keys(records("message of b", "p/q"))
    changed = _page_keys(records("changed message", "p/q"))  # b's line is the same here
    assert changed["o/r/a.md"] != before["o/r/a.md"]  # a lists b (same file)
    assert changed["x/y/d.md"] == before["x/y/d.md"]  # d lists nothing of b
    moved = _page_keys(records("message of b", "p/z"))  # c's page moves to p/z/c.md
    assert moved["o/r/a.md"] != before["o/r/a.md"]  # a lists c (the same message)
    assert moved["x/y/d.md"] == before["x/y/d.md"]
