"""The journal of pages an unfinished build may have rewritten (:mod:`errdocs.site.journal`):
written a part at a time as the one JSON object it always was, read back as written."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from errdocs.site import journal

_KEYS = st.text("0123456789abcdef", min_size=16, max_size=64)
_WRITES = st.lists(st.tuples(st.text(st.characters(codec="utf-8"), min_size=1, max_size=10),
                             _KEYS), max_size=20)


@settings(max_examples=60, deadline=None)
@given(first=_WRITES, then=_WRITES, part=st.integers(1, 3))
def test_the_journal_is_written_as_one_json_object_and_read_back(
        tmp_path_factory: pytest.TempPathFactory, first: list[tuple[str, str]],
        then: list[tuple[str, str]], part: int) -> None:
    work = tmp_path_factory.mktemp("work")
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(journal, "_PART", part)
        kept = journal.record(work, journal.record(work, {}, first), then)
    expected: dict[str, set[str]] = {}
    for page, key in first + then:
        expected.setdefault(page, set()).add(key[:16])
    assert kept == {page: tuple(sorted(keys)) for page, keys in expected.items()}
    if not expected:
        assert not (work / journal.FILE).exists()
        return
    text = (work / journal.FILE).read_text("utf-8")
    assert text == json.dumps({"pages": {p: sorted(k) for p, k in sorted(expected.items())}})
    assert journal.read(work) == kept


def test_a_journal_not_as_written_distrusts_every_page(tmp_path: Path) -> None:
    (tmp_path / journal.FILE).write_text('{"pages": {"a": [1]}}', "utf-8")
    assert journal.read(tmp_path) == {"": ()}


def test_a_build_of_the_whole_plan_removes_the_journal_whatever_it_was_given(
        tmp_path: Path) -> None:
    # A build process that had its plan made in a child process drops the journal's pages
    # (every page in a cold build): once every unit is built, the journal goes all the same.
    journal.record(tmp_path, {}, [("a.md", "0123456789abcdef"), ("b.md", "fedcba9876543210")])
    assert (tmp_path / journal.FILE).is_file()
    journal.settle(tmp_path, {}, None)
    assert not (tmp_path / journal.FILE).exists()
    assert journal.read(tmp_path) == {}
    journal.settle(tmp_path, {}, None)  # no journal: nothing to do


@settings(max_examples=60, deadline=None)
@given(writes=_WRITES, then=_WRITES, part=st.integers(1, 3))
def test_a_journal_not_held_reads_back_as_a_held_one(
        tmp_path_factory: pytest.TempPathFactory, writes: list[tuple[str, str]],
        then: list[tuple[str, str]], part: int) -> None:
    """A build of the whole plan holds no journal: written as its pages come (each once),
    it reads back as the held one; over a journal there already, it is the held one."""
    writes = list(dict(writes).items())  # a page once (a page is one unit's)
    held, unheld = tmp_path_factory.mktemp("held"), tmp_path_factory.mktemp("unheld")
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(journal, "_PART", part)
        kept = journal.record(held, {}, writes)
        assert journal.record(unheld, {}, iter(writes), held=False) == {}
        assert (unheld / journal.FILE).exists() == bool(writes)
        assert journal.read(unheld) == journal.read(held) == kept
        if kept:  # a killed build's journal there: merged as when held, emptied, not copied
            then = list(dict(then).items())
            given = dict(kept)
            assert journal.record(unheld, given, then, held=False) == {} == given
            assert journal.read(unheld) == journal.record(held, dict(kept), then)


def test_an_unreadable_journal_not_held_gives_way_to_this_builds_pages(tmp_path: Path) -> None:
    (tmp_path / journal.FILE).write_text("{not json", "utf-8")
    pending = journal.read(tmp_path)
    assert pending == {"": ()}
    journal.record(tmp_path, pending, [("a.md", "0123456789abcdef0123")], held=False)
    assert journal.read(tmp_path) == {"a.md": ("0123456789abcdef",)}
