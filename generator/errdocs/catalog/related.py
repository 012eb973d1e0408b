"""The related errors a record page lists: the same error elsewhere (:mod:`errdocs.catalog.family`),
other errors raised in the same file (nearest lines first), then in the same category of the
repository.

Each list holds at most :data:`MAX_RELATED` records and costs O(MAX_RELATED + log n) a page,
so no page grows with the number of records and the whole catalogue costs O(N log N). The
index (:class:`Relations`) is built once: three dicts of sorted tuples of record ids, holding
only records that have a relative (one pointer a record in each), not a list per record.
"""

from __future__ import annotations

import math
import sys
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import chain, islice
from typing import Any, Protocol, TypeVar

MAX_RELATED = 10
"""Records in one related list."""

K = TypeVar("K")


class Located(Protocol):
    """What the index needs of a record's catalogue entry (:class:`errdocs.catalog.model.Entry`)."""

    @property
    def path(self) -> str:
        """Its page, ``owner/repo/slug.md``: distinct per record, one folder per repository."""
    @property
    def file(self) -> str | None:
        """The raising file."""
    @property
    def line(self) -> int | None:
        """The raising line."""


@dataclass(frozen=True, slots=True)
class Related:
    """What one record page lists besides itself: record ids, at most MAX_RELATED a list."""

    same_message: tuple[str, ...] = ()
    """Records of the same family (other repositories first, then its own)."""
    same_file: tuple[str, ...] = ()
    """Records raised in the same file of the same repository, nearest lines first."""
    same_category: tuple[str, ...] = ()
    """Records of the same category in the same repository, raised in other files."""
    family_size: int = 1
    """Records of its family, itself included."""
    family_repos: int = 1
    """Repositories of its family: a family over two or more has a page."""


@dataclass(frozen=True)
class Relations:
    """Who is related to whom, for every record (built once by :func:`build_relations`)."""

    families: dict[str, tuple[str, ...]] = field(default_factory=dict)
    """Family key to its records, sorted by page path (so each repository's are together);
    only families of two or more records."""
    family_repos: dict[str, tuple[int, ...]] = field(default_factory=dict)
    """Family key to where each repository's run starts in :attr:`families`; only families
    of two or more repositories."""
    files: dict[tuple[str, str], tuple[str, ...]] = field(default_factory=dict)
    """(repository folder, file) to its records, sorted by line and path; two or more."""
    categories: dict[tuple[str, str], tuple[str, ...]] = field(default_factory=dict)
    """(repository folder, category key) to its records, sorted by file, line and path."""
    category_files: dict[tuple[str, str], tuple[str, ...]] = field(default_factory=dict)
    """The file of each record of :attr:`categories` ("" for none), in the same order: a
    record's file's run is found by bisecting plain strings."""
    fixed: dict[str, Related] = field(default_factory=dict)
    """Lists already computed: all a worker gets, for its unit's records (:meth:`only`)."""

    def of(self, record_id: str, family: str | None, category: str,
           entries: Mapping[str, Located]) -> Related:
        """The lists of one record, given its family key (None when it has no relative of
        its message) and category key ("" for none)."""
        known = self.fixed.get(record_id)
        if known is not None:
            return known
        me = entries[record_id]
        repo = _repo_dir(me.path)
        members = self.families.get(family, ()) if family is not None else ()
        starts = self.family_repos.get(family, (0,)) if family is not None else (0,)
        return Related(
            _same_message(members, starts, me.path, entries),
            _same_file(self.files.get((repo, me.file or ""), ()), me, entries),
            _same_category(self.categories.get((repo, category), ()),
                           self.category_files.get((repo, category), ()), me, entries),
            max(1, len(members)), len(starts))

    def only(self, lists: dict[str, Related]) -> Relations:
        """An index that knows only ``lists`` (a unit's slice: no sorted tuples)."""
        return Relations(fixed=lists)


def build_relations(rows: Iterable[tuple[str, str, str]],
                    entries: Mapping[str, Located]) -> Relations:
    """The index of ``rows``: (record id, family key, category key or ""), in any order, with
    every row's entry. O(N log N) time; while building, a dict item a family (holding the id
    of a family of one, not a list)."""
    families: dict[str, str | list[str]] = {}
    files: dict[tuple[str, str], str | list[str]] = {}
    categories: dict[tuple[str, str], str | list[str]] = {}
    for record_id, family, category in rows:
        entry = entries[record_id]
        repo = sys.intern(_repo_dir(entry.path))  # one string a repository, not a record
        _add(families, family, record_id)
        if entry.file:
            _add(files, (repo, entry.file), record_id)
        if category:
            _add(categories, (repo, category), record_id)
    by_family = _sorted(families, lambda i: entries[i].path)
    by_category = _sorted(categories, lambda i: _place(entries[i]))
    return Relations(
        by_family,
        {key: starts for key, ids in by_family.items()
         if len(starts := repo_runs(ids, entries)) > 1},
        _sorted(files, lambda i: (entries[i].line or 0, entries[i].path)),
        by_category,
        {key: tuple(entries[i].file or "" for i in ids) for key, ids in by_category.items()})


def _add(groups: dict[K, str | list[str]], key: K, record_id: str) -> None:
    held = groups.get(key)
    if held is None:
        groups[key] = record_id
    elif isinstance(held, str):
        groups[key] = [held, record_id]
    else:
        held.append(record_id)


def _sorted(groups: dict[K, str | list[str]],
            order: Callable[[str], Any]) -> dict[K, tuple[str, ...]]:
    """Groups of two or more, each sorted; a group of one relates nothing."""
    return {key: tuple(sorted(ids, key=order))
            for key, ids in groups.items() if not isinstance(ids, str)}


def repo_runs(ids: Sequence[str], entries: Mapping[str, Located]) -> tuple[int, ...]:
    """Where each repository's run of ``ids`` (sorted by path) starts."""
    starts, previous = [], None
    for index, record_id in enumerate(ids):
        repo = _repo_dir(entries[record_id].path)
        if repo != previous:
            starts.append(index)
            previous = repo
    return tuple(starts)


def _same_message(members: Sequence[str], starts: Sequence[int], path: str,
                  entries: Mapping[str, Located]) -> tuple[str, ...]:
    """One record of each other repository (the first of its run), taking the repositories
    after the record's own in turn; then the other records of other repositories; then the
    rest of its own repository's run. Lazy: at most MAX_RELATED are looked at past the
    first phase (which runs into the second only when there are fewer repositories)."""
    if not members:
        return ()
    index = bisect_left(members, path, key=lambda i: entries[i].path)
    run = bisect_right(starts, index) - 1
    first = starts[run]
    end = starts[run + 1] if run + 1 < len(starts) else len(members)
    firsts = (members[starts[(run + step) % len(starts)]] for step in range(1, len(starts)))
    rest = (members[i] for i in _around(first, end, len(members))
            if starts[bisect_right(starts, i) - 1] != i)
    own = (members[first + (index - first + step) % (end - first)]
           for step in range(1, end - first))
    return tuple(islice(chain(firsts, rest, own), MAX_RELATED))


def _same_file(members: Sequence[str], me: Located,
               entries: Mapping[str, Located]) -> tuple[str, ...]:
    """The records nearest to ``me`` by line, in one file (the lower line first on a tie)."""
    if not members:
        return ()
    line = me.line or 0
    index = bisect_left(members, (line, me.path),
                        key=lambda i: (entries[i].line or 0, entries[i].path))
    below, above = index - 1, index + 1
    chosen: list[str] = []
    while len(chosen) < MAX_RELATED and (below >= 0 or above < len(members)):
        down = line - (entries[members[below]].line or 0) if below >= 0 else math.inf
        up = (entries[members[above]].line or 0) - line if above < len(members) else math.inf
        if down <= up:
            chosen.append(members[below])
            below -= 1
        else:
            chosen.append(members[above])
            above += 1
    return tuple(chosen)


def _same_category(members: Sequence[str], files: Sequence[str], me: Located,
                   entries: Mapping[str, Located]) -> tuple[str, ...]:
    """Records of the category in other files: those after ``me``'s file in path order, then
    those before it. A record without a file is its own "file"."""
    if not members:
        return ()
    start, end = bisect_left(files, me.file or ""), bisect_right(files, me.file or "")
    if not me.file:  # ``me`` alone, among the records without a file
        start = bisect_left(members, _place(me), start, end, key=lambda i: _place(entries[i]))
        end = start + 1
    after = tuple(members[end:end + MAX_RELATED])
    return after + tuple(members[:min(start, MAX_RELATED - len(after))])


def _around(start: int, end: int, count: int) -> Iterator[int]:
    """Indices after ``[start, end)``, then before it."""
    yield from range(end, count)
    yield from range(0, start)


def _place(entry: Located) -> tuple[str, int, str]:
    return (entry.file or "", entry.line or 0, entry.path)


def _repo_dir(path: str) -> str:
    """A page's repository folder: one per repository
    (see :func:`errdocs.catalog.model.build_catalog`)."""
    return path.rsplit("/", 1)[0]
