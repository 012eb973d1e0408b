"""A catalogue's entries packed in a table (:mod:`errdocs.catalog.entries`) read back as the
entries they were made from, whatever their text; the groups, the catalogue's listing, the
filters' values and row files made from the table are those of the entries as objects."""

from __future__ import annotations

import pickle
from collections import defaultdict
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from errdocs.catalog.entries import MADE, Entry, EntryList, EntryTable, carried
from errdocs.catalog.model import Catalog, GroupKind, build_catalog, group_key
from errdocs.pages.filters import FacetValues, facet_values, row_members
from errdocs.records.record import Record

from .helpers import record

TEXT = st.one_of(
    st.just(""), st.just("\n"), st.just("  \t "), st.just("a\r\nb"), st.just("x" * 20_000),
    st.just("\ud800 lone surrogate"), st.just("Üé…€😀"), st.text(max_size=60))
OPTIONAL = st.one_of(st.none(), TEXT)
LINES = st.one_of(st.none(), st.integers(-2**63, 2**63 - 1))


@st.composite
def entries(draw: st.DrawFn) -> list[Entry]:
    ids = draw(st.lists(TEXT, min_size=1, max_size=12, unique=True))
    return [Entry(i, draw(TEXT), draw(TEXT), draw(TEXT), draw(OPTIONAL), draw(LINES),
                  draw(OPTIONAL), draw(OPTIONAL), draw(OPTIONAL),
                  draw(st.integers(0, 2**62 - 1)), draw(OPTIONAL), draw(OPTIONAL),
                  draw(OPTIONAL), draw(TEXT)) for i in ids]


@settings(max_examples=60, deadline=None)
@given(entries(), st.data())
def test_a_table_gives_back_the_entries_it_was_given(made: list[Entry],
                                                     data: st.DataObject) -> None:
    table = EntryTable(made)
    assert len(table) == len(made) and list(table) == [e.record_id for e in made]
    assert [table[e.record_id] for e in made] == made
    assert list(table.values()) == made and table == {e.record_id: e for e in made}
    assert "not an id of it" not in table or "not an id of it" in {e.record_id for e in made}
    chosen = data.draw(st.lists(st.sampled_from(made), max_size=20))
    listed = table.members(e.record_id for e in chosen)
    assert list(listed) == chosen and len(listed) == len(chosen) and listed == chosen
    cut = data.draw(st.slices(len(chosen)))
    assert list(listed[cut]) == chosen[cut]
    if chosen:
        at = data.draw(st.integers(-len(chosen), len(chosen) - 1))
        assert listed[at] == chosen[at]
    # Pickled (a unit's slice), each is the plain object it stands for: no table travels.
    assert pickle.loads(pickle.dumps(listed)) == tuple(chosen)
    assert pickle.loads(pickle.dumps(table)) == {e.record_id: e for e in made}


def test_a_record_has_one_entry_and_a_missing_one_is_said() -> None:
    table = EntryTable([Entry("a", "o/r/a.md", "m", "o/r")])
    with pytest.raises(ValueError, match="'a' has an entry already"):
        table.add(Entry("a", "o/r/b.md", "m", "o/r"))
    with pytest.raises(KeyError):
        table["b"]
    assert table.get("b") is None and "b" not in table and "a" in table


CLASSES = st.sampled_from(["ValueError", "TypeError", " value error ", None])
TAGS = st.lists(st.sampled_from(["io", "IO", " net ", "parse", "", "db"]), max_size=4)


@st.composite
def catalogues(draw: st.DrawFn) -> list[Record]:
    count = draw(st.integers(1, 25))
    return [record(f"id{n}", repo=draw(st.sampled_from(["o/a", "O/A", "o/b", "x/y"])),
                   slug=draw(st.sampled_from(["s", "t", f"u{n}"])),
                   error_message=draw(st.sampled_from(["Boom", "boom", "Failed to open x",
                                                       "Failed to open y", "\u00c9chec"])),
                   error_class=draw(CLASSES), tags=tuple(draw(TAGS)),
                   background_tag=draw(st.sampled_from([None, "io", "IO", "parse"])),
                   file_path=draw(st.sampled_from([None, "a.py", "b/c.js", "d.rs"])),
                   line_number=draw(st.one_of(st.none(), st.integers(1, 400))))
            for n in range(count)]


@settings(max_examples=40, deadline=None)
@given(catalogues())
def test_the_groups_and_listing_of_a_packed_catalogue_are_its_entries_in_order(
        records: list[Record]) -> None:
    catalog = build_catalog(records)
    assert isinstance(catalog.entries, EntryTable)
    entries = dict(catalog.entries.items())
    assert set(entries) == {r.id for r in records}
    # Each group lists its records once, sorted as listings are.
    expected: dict[tuple[GroupKind, str], set[str]] = defaultdict(set)
    for r in records:
        expected[GroupKind.REPO, group_key(GroupKind.REPO, r.repo)].add(r.id)
        if r.background_tag:
            expected[GroupKind.CATEGORY, group_key(GroupKind.CATEGORY, r.background_tag)].add(
                r.id)
        for tag in r.tags:
            if group_key(GroupKind.TAG, tag):
                expected[GroupKind.TAG, group_key(GroupKind.TAG, tag)].add(r.id)
    for kind in (GroupKind.REPO, GroupKind.CATEGORY, GroupKind.TAG):
        for key, group in catalog.groups[kind].items():
            members = list(group.entries)
            assert {e.record_id for e in members} == expected.pop((kind, key))
            assert len(members) == len({e.record_id for e in members})
            assert members == sorted(members, key=lambda e: e.sort_key)
            assert all(e == entries[e.record_id] for e in members)
    assert not expected
    everything = sorted(entries.values(), key=lambda e: e.sort_key)
    assert list(catalog.listing()) == everything
    # The same catalogue with its entries as a dict: the same listing, values and row files.
    plain = Catalog(entries, catalog.groups, catalog.relations, catalog.texts)
    assert list(plain.listing()) == everything
    packed, held = FacetValues(catalog.entries), FacetValues(entries)
    assert dict(packed) == dict(held) == {i: facet_values(e) for i, e in entries.items()}
    for listed in (catalog.listing(), everything, everything[::-1]):
        columns = [list(c) for c in zip(*(facet_values(e) for e in listed), strict=True)]
        assert packed.columns(listed) == held.columns(listed) == (columns or [[]] * 6)
    for count in (1, 2, 8):
        assert [list(m) for m in row_members(catalog.entries, count)] == [
            list(m) for m in row_members(entries, count)]


def test_a_slice_of_a_group_stays_rows_of_the_table() -> None:
    table = EntryTable(Entry(f"i{n}", f"o/r/{n}.md", f"m{n}", "o/r") for n in range(5))
    group = table.members(["i4", "i0", "i2"])
    part = group[1:]
    assert isinstance(part, EntryList) and part.rows_of(table) is not None
    assert [e.record_id for e in part] == ["i0", "i2"]
    assert group.rows_of(EntryTable()) is None


@settings(max_examples=40, deadline=None)
@given(entries(), st.data())
def test_a_row_placed_after_it_was_added_reads_back_placed(made: list[Entry],
                                                           data: st.DataObject) -> None:
    table = EntryTable()
    half = len(made) // 2
    for entry in made[:half]:
        table.add(replace(entry, path="", title=None, family=None))
    table.settle()  # adding again after it numbers the shared values anew
    for entry in made[half:]:
        table.add(replace(entry, path="", title=None, family=None))
    for entry in data.draw(st.permutations(made)):
        table.place(entry.record_id, path=entry.path, title=entry.title, family=entry.family)
    assert list(table.values()) == made
    table.place(made[0].record_id)  # nothing given: nothing changes
    assert table[made[0].record_id] == made[0]


def test_entries_read_past_those_kept_made_are_made_again_the_same() -> None:
    made = [Entry(f"i{n}", f"o/r/{n}.md", f"m{n}", "o/r", f"f{n % 7}", n, family=f"k{n % 3}")
            for n in range(3 * MADE)]
    table = EntryTable(made)
    for order in (made, made[::-1], made[::7] * 3):
        assert [table[e.record_id] for e in order] == order
    assert table["i1"] == made[1]  # (kept: placing it forgets it)
    table.place("i1", path="o/r/moved.md", title="T", family="k9")
    assert table["i1"] == replace(made[1], path="o/r/moved.md", title="T", family="k9")


def test_a_hubs_listings_travel_with_one_table_of_their_entries() -> None:
    table = EntryTable(Entry(f"i{n}", f"o/r/{n}.md", f"m{n}", "o/r", line=n) for n in range(50))
    groups = [table.members(f"i{n}" for n in range(0, 50, step)) for step in (1, 2, 5)]
    lists = carried(groups)
    assert [list(m) for m in lists] == [list(g) for g in groups]
    assert len({id(m.table) for m in lists}) == 1 and len(lists[0].table) == 50
    sent = pickle.dumps(lists)
    back = pickle.loads(sent)
    assert [list(m) for m in back] == [list(g) for g in groups]
    assert back[0].table is back[2].table  # one table, however many lists show an entry
    # Each entry once: the three lists pickled weigh little more than the first alone.
    assert len(sent) < 1.3 * len(pickle.dumps(carried(groups[:1])))
    assert list(back[1][2:4]) == list(groups[1][2:4])
