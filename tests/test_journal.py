"""The journal of pages an unfinished build may have rewritten (:mod:`errdocs.site.journal`):
rows of the catalogue, read a unit's pages at a time."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from errdocs.catalog.store import FILE, Catalogue
from errdocs.site import journal
from errdocs.units.keys import PathKeys
from errdocs.units.plan import Unit, UnitKind

_KEYS = st.text("0123456789abcdef", min_size=32, max_size=32)
_PAGES = st.text(st.characters(codec="utf-8"), min_size=1, max_size=10)
_WRITES = st.lists(st.tuples(_PAGES, _KEYS), max_size=20)


def _unit(pages: dict[str, str], kind: UnitKind = UnitKind.RECORDS) -> Unit:
    return Unit("rec-0000", kind, (), "key", PathKeys.of(pages.items()))


@settings(max_examples=60, deadline=None)
@given(first=_WRITES, then=_WRITES, now=st.dictionaries(_PAGES, _KEYS, max_size=20),
       batch=st.integers(1, 3))
def test_a_page_is_unsettled_when_a_key_recorded_for_it_is_not_its_key_now(
        tmp_path_factory: pytest.TempPathFactory, first: list[tuple[str, str]],
        then: list[tuple[str, str]], now: dict[str, str], batch: int) -> None:
    work = tmp_path_factory.mktemp("work")
    Catalogue(work).commit()  # a build's scan made it
    assert not journal.read(work)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(journal, "BATCH", batch)  # pages a query
        kept = journal.record(work, journal.record(work, journal.read(work), first), then)
        recorded: dict[str, set[str]] = {}
        for page, key in first + then:
            recorded.setdefault(page, set()).add(key[:16])
        assert bool(kept) == bool(recorded) == bool(journal.read(work))
        # Also a page written again with its key now: recorded with another, it may hold either.
        now = {**now, **dict(then[:2])}
        expected = {page for page, key in now.items()
                    if page in recorded and recorded[page] != {key[:16]}}
        assert journal.unsettled(journal.read(work), _unit(now)) == expected
        assert journal.unsettled(journal.read(work), _unit(now, UnitKind.DATA)) == set()


def test_no_page_to_record_writes_nothing(tmp_path: Path) -> None:
    pending = journal.read(tmp_path)
    assert journal.record(tmp_path, pending, iter([])) is pending
    assert not (tmp_path / FILE).exists()  # (nor a catalogue made for it)


def test_a_build_of_the_whole_plan_empties_the_journal(tmp_path: Path) -> None:
    pages = {"a.md": "0123456789abcdef" * 2, "b.md": "fedcba9876543210" * 2}
    kept = journal.record(tmp_path, journal.read(tmp_path), pages.items())
    assert journal.unsettled(journal.read(tmp_path), _unit({"a.md": "1" * 32})) == {"a.md"}
    journal.settle(tmp_path, kept, [_unit({"a.md": "1" * 32})])  # a slice's unit built
    assert journal.unsettled(journal.read(tmp_path), _unit({"a.md": "1" * 32,
                                                            "b.md": "2" * 32})) == {"b.md"}
    journal.settle(tmp_path, kept, None)
    assert not journal.read(tmp_path)
    assert journal.unsettled(kept, _unit({"b.md": "2" * 32})) == set()


def test_a_journal_that_cannot_be_read_distrusts_every_page(tmp_path: Path) -> None:
    journal.record(tmp_path, journal.read(tmp_path), [("a.md", "0" * 32)])
    with sqlite3.connect(tmp_path / FILE) as db:  # damaged as no errdocs writes it
        db.execute("ALTER TABLE journal RENAME TO other")
    pending = journal.read(tmp_path)
    assert pending.damaged
    assert journal.unsettled(pending, _unit({"b.md": "1" * 32, "c.md": "2" * 32})) == {
        "b.md", "c.md"}
