"""The listings' filters: the data a listing page's script loads to narrow its list down.

Repository, category and tag pages and the catalogue's page filter their records by class,
kind (``errorType``), severity, handling strategy, language and, where they span several,
repository, in the browser, hosted or opened from disk, at any number of records. The data are
scripts (``__errdocsLookup(name, data)``, like the search box's: see :mod:`.pastebox`), in
``assets/filter/`` of the generated subtree, and no file grows with the number of records:

- ``manifest.js``: the format and the number of row files.
- rows, ``r/<hex>.js``: what a listing's row shows of each record (its page, message,
  ``file:line``, first sentence) and its facet values, about :data:`ROWS_PER_FILE` records a
  file, chosen by the FNV-1a hash of the id's UTF-8 bytes (``errdocs-filter.js`` computes the
  same). A page of results loads at most :data:`PAGE` of them.
- a listing's summary, ``g/<key>.js`` (:func:`~errdocs.catalog.facets.filter_key`): its facets'
  values with their counts, most first. Each facet offers its most common values, as many as
  fit in :data:`FACET_BYTES` (at most :data:`SHOWN`; a value longer than :data:`VALUE_BYTES`
  is never offered), and counts the records of the rest, which the filter bar says are not
  offered. A listing of at most :data:`SMALL` records whose ids fit in :data:`IDS_BYTES` also
  lists each record's id and the place of each of its values among those offered, so the
  browser filters it by any mix of facets exactly. A larger one gives each offered value its
  records' ids, in the listing's order, in files of :data:`PAGE`
  (``g/<key>/<facet>-<value>-<n>.js``): one value is one file a page; with several facets
  chosen, the browser reads the list of the rarest and keeps the rows matching the others.
  So no summary is longer than :data:`SUMMARY_BYTES`, whatever the records' number, values,
  value lengths or ids.

Files are made from the catalogue's entries and placed in data units by the plan like every
data file, so a changed record rewrites its row file and the files of the lists it is on.
"""

from __future__ import annotations

import hashlib
import json
from array import array
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from itertools import islice
from typing import cast

from errdocs.catalog import facets
from errdocs.catalog.entries import EntryList, EntryTable
from errdocs.catalog.model import Catalog, Entry, GroupKind
from errdocs.catalog.paging import page_count
from errdocs.catalog.texts import Texts
from errdocs.lookup.tokens import fnv1a
from errdocs.pages.render import WHERE_CHARS, Page
from errdocs.pages.short import MESSAGE_CHARS, ROW_VALUE_CHARS, clip, shorten

FOLDER = "assets/filter"
"""Where the data go in the generated subtree, beside the search box's."""
VERSION = 1
"""Format of the data; ``errdocs-filter.js`` refuses other versions."""
PAGE = 50
"""Records a page of filtered results shows, and ids a list file holds."""
SMALL = 200
"""Listings of at most this many records are filtered in the browser from their summary."""
SHOWN = 100
"""Values a facet offers at most (the most common; the rest are counted)."""
FACET_BYTES = 3_000
"""Bytes a facet's offered values take at most in a summary (JSON as written, value lists'
names included): the most common values are offered while they fit, so a facet's part of a
summary depends neither on the number of values (a tag listing spanning 200 repositories)
nor on their length."""
VALUE_BYTES = 200
"""A value whose entry in a summary would be longer than this is never offered (it would
crowd out the others): a facet offers at least :data:`FACET_BYTES` / this of the others."""
IDS_BYTES = 5_000
"""A listing of at most :data:`SMALL` records is filtered from its summary only if its ids
take at most this many bytes there (200 ids of 22 characters); else from value lists."""
ROWS_PER_FILE = 6
"""Records a row file holds at most on average (between half of it and it: the count is a power
of two): a page of results loads at most :data:`PAGE` row files of about 2 KB. At 310,000
records, 8 gives 65,536 files as well."""


@dataclass(frozen=True)
class Param:
    """A facet as the page's address names it."""

    name: str
    """The query parameter, e.g. ``class``."""
    facet: facets.Facet
    """What it filters by."""


PARAMS = (Param("class", facets.CLASS), Param("type", facets.ERROR_TYPE),
          Param("severity", facets.SEVERITY), Param("handling", facets.HANDLING),
          Param("language", facets.LANGUAGE), Param("repo", facets.REPO))
"""Every facet, in the order the filter bar shows them (``repo`` where a page spans several
repositories)."""
SUMMARY_BYTES = 256 + len(PARAMS) * (FACET_BYTES + 40) + IDS_BYTES + SMALL * 24
"""What a summary takes at most: its header, each facet's offered values and the count of the
rest, and a small listing's table (each id, and the places of its six values, at most two
characters each)."""


def filter_data(catalog: Catalog) -> Iterator[Page]:
    """Every filter data file of the catalogue's listings, one at a time: at 310,000 records
    they were ~420 MB made whole (sampled), and a build writes each as it comes
    (:class:`~errdocs.pages.write.Staged`)."""
    rows = row_file_count(len(catalog.entries))
    yield Page(f"{FOLDER}/manifest.js", _script("filter", {
        "version": VERSION, "rows": rows, "page": PAGE}))
    values = FacetValues(catalog.entries)  # once a record
    yield from row_files(enumerate(row_members(catalog.entries, rows)), catalog.texts,
                         values)
    yield from listing_files(facets.CATALOGUE, catalog.listing(), show_repo=True, values=values)
    for kind in facets.FILTERED:
        for group in catalog.groups[kind].values():
            yield from listing_files(facets.filter_key(kind.value, group.key), group.entries,
                                     show_repo=kind is not GroupKind.REPO, values=values)


def facet_values(entry: Entry) -> tuple[str, ...]:
    """The entry's value of each of :data:`PARAMS`, as filters count them."""
    return tuple(facets.value_of(entry, p.facet) for p in PARAMS)


class FacetValues(Mapping[str, tuple[str, ...]]):
    """:func:`facet_values` of every entry of a catalogue, by record id, kept as numbers (a
    dict of every record's tuple was ~40 MB at 310,000 records, at the preparation's peak)."""

    def __init__(self, entries: Mapping[str, Entry]) -> None:
        self._entries = entries
        self._rows: dict[str, int] | None = None if isinstance(entries, EntryTable) else {
            record_id: n for n, record_id in enumerate(entries)}
        """Each record's row (a table numbers its own)."""
        self._names: list[str] = []
        """The values, by number."""
        self._codes = array("I")
        """Each row's values' numbers, :data:`PARAMS`' count a row."""
        numbers: dict[str, int] = {}
        for entry in entries.values():
            for value in facet_values(entry):
                number = numbers.get(value)
                if number is None:
                    number = numbers[value] = len(self._names)
                    self._names.append(value)
                self._codes.append(number)

    def columns(self, entries: Sequence[Entry]) -> list[list[str]]:
        """The values of ``entries`` (all of them the catalogue's), one list per
        :data:`PARAMS`."""
        rows = entries.rows_of(self._entries) if (
            isinstance(entries, EntryList) and isinstance(self._entries, EntryTable)) else None
        if rows is None:
            rows = array("I", (self._row(e.record_id) for e in entries))
        width, names, codes = len(PARAMS), self._names, self._codes
        return [[names[codes[width * row + n]] for row in rows] for n in range(width)]

    def _row(self, record_id: str) -> int:
        if self._rows is None:
            return cast(EntryTable, self._entries).row_of(record_id)
        return self._rows[record_id]

    def __getitem__(self, record_id: str) -> tuple[str, ...]:
        start = len(PARAMS) * self._row(record_id)
        return tuple(self._names[c] for c in self._codes[start:start + len(PARAMS)])

    def __iter__(self) -> Iterator[str]:
        return iter(self._entries)

    def __len__(self) -> int:
        return len(self._entries)


def row_file_count(records: int) -> int:
    """The smallest power of two giving at most :data:`ROWS_PER_FILE` records a file: it
    changes only when the number of records doubles or halves."""
    count = 1
    while count * ROWS_PER_FILE < records:
        count *= 2
    return count


def row_file(record_id: str, count: int) -> int:
    """The row file of a record: FNV-1a of its id's UTF-8 bytes, modulo ``count``."""
    return fnv1a(record_id.encode().decode("latin-1")) % count


def row_of(entry: Entry, summary: str, values: tuple[str, ...] | None = None) -> list[str]:
    """``[page, message, file:line, first sentence, class, kind, severity, handling,
    language, repository]``: the page without ``.md``, its ``summary``
    (:mod:`errdocs.catalog.texts`), the values as filters count them (``values``, when
    :func:`facet_values` gave them already), each cut to
    :data:`~errdocs.pages.short.ROW_VALUE_CHARS` characters. The browser matches rows by
    these values, and a cut one still matches no value a facet offers: it is longer than
    :data:`VALUE_BYTES` once written, so it is never offered, and it equals no shorter value."""
    return [entry.path.removesuffix(".md"), shorten(entry.message, MESSAGE_CHARS),
            shorten(entry.where, WHERE_CHARS), summary,
            *(clip(v, ROW_VALUE_CHARS) for v in values or facet_values(entry))]


def listing_files(key: str, entries: Sequence[Entry], *, show_repo: bool,
                  values: FacetValues | None = None) -> Iterator[Page]:
    """The summary of the listing filed under ``key`` (its ``entries`` in listing order) and,
    unless it is :func:`small`, its value lists. ``show_repo``: its rows name their
    repository (as the page's own rows do); ``values``: :func:`facet_values` of every entry,
    when known."""
    if values is None:
        values = FacetValues({e.record_id: e for e in entries})
    ids = [e.record_id for e in entries]  # (each entry made once)
    columns = [(p, column) for p, column in zip(PARAMS, values.columns(entries), strict=True)
               if p.facet is not facets.REPO or len(set(column)) > 1]
    summary: dict[str, object] = {"version": VERSION, "total": len(entries),
                                  "showRepo": show_repo}
    is_small = small(ids)
    offered: list[list[object]] = []
    lists: list[tuple[str, str, list[str]]] = []  # each value list: facet, value's name, ids
    table: list[list[object]] = [[i] for i in ids] if is_small else []
    for param, column in columns:
        shown = offer(facets.ranked(Counter(column)))
        hidden = len(column) - sum(c for _, c in shown)
        if is_small:
            place = {value: n for n, (value, _) in enumerate(shown)}
            for row, value in zip(table, column, strict=True):
                row.append(place.get(value, -1))  # -1: a value not offered
            offered.append([param.name, [[v, c] for v, c in shown], hidden])
            continue
        members: dict[str, list[str]] = {value: [] for value, _ in shown}
        for record_id, value in zip(ids, column, strict=True):
            if value in members:
                members[value].append(record_id)
        listed = []
        for value, count in shown:
            name = value_key(value)
            lists.append((param.name, name, members[value]))
            listed.append([value, count, name])
        offered.append([param.name, listed, hidden])
    summary["facets"] = offered
    if is_small:
        summary["records"] = table
    yield Page(f"{FOLDER}/g/{key}.js", _script(f"g{key}", summary))
    # Made as they are written: the catalogue's listing has a file per 50 records a facet.
    for param_name, name, listed_ids in lists:
        yield from _list_files(key, param_name, name, listed_ids)


def small(ids: Sequence[str]) -> bool:
    """Whether a listing of the records ``ids`` is filtered from its summary alone: at most
    :data:`SMALL` records, whose ids take at most :data:`IDS_BYTES` there."""
    if len(ids) > SMALL:
        return False
    return sum(len(_json(i)) for i in ids) <= IDS_BYTES


def offer(counted: Sequence[tuple[str, int]]) -> list[tuple[str, int]]:
    """The values a facet offers of ``counted`` (every value with its count, most first): the
    first ones, as many as fit in :data:`FACET_BYTES` (entries measured as a large listing's,
    with their list files' name) and at most :data:`SHOWN`, skipping any longer than
    :data:`VALUE_BYTES`."""
    shown: list[tuple[str, int]] = []
    room = FACET_BYTES
    for value, count in counted:
        size = len(_json([value, count, value_key(value)])) + 1  # and a comma
        if size > VALUE_BYTES:
            continue
        if size > room or len(shown) == SHOWN:
            break
        shown.append((value, count))
        room -= size
    return shown


def action_files(key: str, entries: Sequence[Entry], param: Param, value: str,
                 rows: int) -> list[str]:
    """The files a browser loads to show the first page of the listing filed under ``key``
    (its ``entries``) filtered by ``param`` = ``value``, with ``rows`` row files: the
    manifest, the summary, the value's first list file (a large listing) and the row files of
    its first :data:`PAGE` records. What the benchmark and the tests measure."""
    ids = [e.record_id for e in entries if facets.value_of(e, param.facet) == value][:PAGE]
    paths = [f"{FOLDER}/manifest.js", f"{FOLDER}/g/{key}.js"]
    if not small([e.record_id for e in entries]):
        paths.append(f"{FOLDER}/g/{key}/{param.name}-{value_key(value)}-1.js")
    return paths + sorted({f"{FOLDER}/r/{row_file(i, rows):x}.js" for i in ids})


def value_key(value: str) -> str:
    """A value's part of its list files' names: a hash, so no record text reaches a path."""
    return hashlib.blake2b(value.encode(), digest_size=6).hexdigest()


def _list_files(key: str, param: str, value: str, ids: list[str]) -> Iterator[Page]:
    for number in range(1, page_count(len(ids), PAGE) + 1):
        name = f"{key}/{param}-{value}-{number}"
        yield Page(f"{FOLDER}/g/{name}.js", _script(f"g{name}",
                                                     ids[(number - 1) * PAGE:number * PAGE]))


def row_members(entries: Mapping[str, Entry], count: int) -> list[Sequence[Entry]]:
    """The entries of each of ``count`` row files (:func:`row_file`), in ``entries``' order
    (a table's as its rows: none is made)."""
    if isinstance(entries, EntryTable):
        rows = [array("I") for _ in range(count)]
        for number, record_id in enumerate(entries):  # (a table's ids come in its rows' order)
            rows[row_file(record_id, count)].append(number)
        return [EntryList(entries, chosen) for chosen in rows]
    members: list[Sequence[Entry]] = [[] for _ in range(count)]
    for entry in entries.values():
        cast(list[Entry], members[row_file(entry.record_id, count)]).append(entry)
    return members


ROW_FILES_READ = 64
"""Row files whose records' summaries are read at once (:func:`row_files`): a few hundred
records, one query."""


def row_files(chosen: Iterable[tuple[int, Sequence[Entry]]], texts: Texts,
              values: Mapping[str, tuple[str, ...]] | None = None) -> Iterator[Page]:
    """The row files of ``chosen`` (each file's number and members), one record a line
    (readable diffs), their summaries read from ``texts`` for :data:`ROW_FILES_READ` files at
    a time."""
    numbered = iter(chosen)
    while batch := list(islice(numbered, ROW_FILES_READ)):
        summaries = texts.summaries(e.record_id for _n, members in batch for e in members)
        yield from (row_file_page(n, members, summaries, values) for n, members in batch)


def row_file_page(number: int, members: Iterable[Entry], summaries: Mapping[str, str],
                  values: Mapping[str, tuple[str, ...]] | None = None) -> Page:
    """Row file ``number``: the rows of ``members`` (the entries :func:`row_file` puts there),
    by id, with their ``summaries``. It reads nothing else, so it can be made alone
    (:mod:`errdocs.search.boxdata`)."""
    lines = [f"\n{_json(e.record_id)}:"
             f"{_json(row_of(e, summaries[e.record_id], values[e.record_id] if values else None))}"
             for e in sorted(members, key=lambda e: e.record_id)]
    return Page(row_path(number), _script(f"r{number}", "{" + ",".join(lines) + "\n}"))


def row_path(number: int) -> str:
    """Row file ``number``, relative to the generated subtree."""
    return f"{FOLDER}/r/{number:x}.js"


def _script(name: str, data: object) -> str:
    """A script registering ``data`` (a string is JSON already)."""
    body = data if isinstance(data, str) else _json(data)
    return f"__errdocsLookup({json.dumps('f' + name)},{body});\n"


def _json(value: object) -> str:
    """Compact JSON, ASCII only (no charset question however the file is opened)."""
    return _ENCODER.encode(value)


_ENCODER = json.JSONEncoder(ensure_ascii=True, separators=(",", ":"))
"""One encoder for every file (``json.dumps`` with options makes one a call)."""
