"""What an index page shows of a record (:class:`Entry`), and every record's, packed
(:class:`EntryTable`).

As objects, the catalogue's entries were ~855 bytes a record of the build process's memory
(~265 MB at 310,000 records) from the catalogue step to the build's end: the entry, its own
strings (path, message, file, id), its ints, the dict slot and the groups' tuples. The table
keeps each record's id and page path as strings (what the page units, the generated tree's
paths and the lookup index hold too: the same strings, not copies), the values records share
(a repository, a file, a class, a family...) once, by number, and its other fields packed
with :mod:`marshal`, one row after the other; it makes an :class:`Entry` each time one is
asked for (~1.5 us); a group's records are its entries' row numbers (:class:`EntryList`). Pickled,
both are what they stand for as plain objects (a dict, a tuple): a unit's slice never
carries the whole table.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, overload

from errdocs.catalog.packing import Numbered, PackedRows


@dataclass(frozen=True, slots=True)
class Entry:
    """What an index page shows of a record."""

    record_id: str
    """The record's id."""
    path: str
    """The record page, relative to the generated subtree, e.g. ``o/r/slug.md``."""
    message: str
    """The error message template."""
    repo: str
    """``owner/name`` as written in the record."""
    file: str | None = None
    """The raising file, as written in the record."""
    line: int | None = None
    """The raising line."""
    family: str | None = None
    """Its family's key (:func:`errdocs.catalog.family.message_key`) when the family has two or more
    records: kept so a page's lists need not normalise its message again."""
    title: str | None = None
    """The page's title when its message alone does not tell it from another record's page
    (:func:`errdocs.catalog.model.record_titles`); ``None`` otherwise."""
    error_class: str | None = None
    """The exception or error class, e.g. ``ValueError``."""
    summary_key: int = 0
    """A hash of its summary (:func:`errdocs.catalog.texts.summary_key`), the first sentence of
    what the error means, which listings show under its message. The summary itself is not
    held here (:mod:`errdocs.catalog.texts`: :attr:`errdocs.catalog.model.Catalog.texts`),
    only what tells a changed one: a listing page's key and a filter row file's hash it."""
    error_type: str | None = None
    """``errorType``, e.g. ``validation``: listings filter and chart by it."""
    severity: str | None = None
    """``severity``, e.g. ``error``: listings filter and chart by it."""
    handling: str | None = None
    """``handlingStrategy``, e.g. ``type-guard``: listings filter by it."""
    language: str = "text"
    """The raising file's language (:func:`errdocs.pages.excerpt.language_for`)."""

    @property
    def where(self) -> str:
        """``file:line`` (or what of them the record has; empty when neither)."""
        path = " ".join((self.file or "").split())
        if self.line is None:
            return path
        return f"{path}:{self.line}" if path else f"line {self.line}"

    @property
    def sort_key(self) -> tuple[str, str, str]:
        return (self.message.casefold(), self.repo.casefold(), self.path)


MADE = 256
"""Entries an :class:`EntryTable` keeps once made."""


class EntryTable(Mapping[str, Entry]):
    """Entries by record id, in the order they were added, packed. A row's path, title and
    family may be set after it was added (:meth:`place`): the catalogue adds each record's
    entry as it reads the records, and places them once it has them all."""

    def __init__(self, entries: Iterable[Entry] = ()) -> None:
        self._ids: list[str] = []
        """Each row's record id."""
        self._paths: list[str] = []
        """Each row's page path."""
        self._families = array("I")
        """Each row's family key, by its number in :attr:`_strings`."""
        self._titles: dict[int, str] = {}
        """The rows that have a title (a few), with it."""
        self._rows = PackedRows()
        """Each row's other fields (:meth:`_pack`)."""
        self._at: dict[str, int] = {}
        """Each record id's row."""
        self._strings = Numbered()
        """The values rows share (repositories, files, classes, families...), by number."""
        self._made: dict[int, Entry] = {}
        """The entries made last, by row: a step asks for one record's entry several times
        in a row (a page's key, its related lists...), and making one takes ~1.6 us."""
        for entry in entries:
            self.add(entry)
        self.settle()

    def add(self, entry: Entry) -> None:
        """Add ``entry`` after the others (ValueError when its record has one already)."""
        if entry.record_id in self._at:
            raise ValueError(f"record {entry.record_id!r} has an entry already")
        row = self._at[entry.record_id] = len(self._ids)
        self._ids.append(entry.record_id)
        self._paths.append(entry.path)
        self._families.append(self._strings.number(entry.family))
        if entry.title is not None:
            self._titles[row] = entry.title
        self._rows.append(self._pack(entry))

    def place(self, record_id: str, *, path: str | None = None, title: str | None = None,
              family: str | None = None) -> None:
        """Set the path, title or family (those given) of ``record_id``'s entry."""
        row = self._at[record_id]
        self._made.pop(row, None)
        if path is not None:
            self._paths[row] = path
        if title is not None:
            self._titles[row] = title
        if family is not None:
            self._families[row] = self._strings.number(family)

    def settle(self) -> None:
        """Once every entry is added: the table numbering their shared values goes (made
        again should one more be added or placed)."""
        self._strings.settle()

    def row(self, number: int) -> Entry:
        """The entry of row ``number``."""
        made = self._made.get(number)
        if made is None:
            if len(self._made) >= MADE:
                self._made.clear()
            made = self._made[number] = self._make(number)
        return made

    def _make(self, number: int) -> Entry:
        (message, repo, file, line, error_class, summary_key, error_type, severity, handling,
         language) = self._rows[number]
        text = self._strings.values
        return Entry(self._ids[number], self._paths[number], message, text[repo], text[file],
                     line, text[self._families[number]], self._titles.get(number),
                     text[error_class], summary_key, text[error_type], text[severity],
                     text[handling], text[language])

    def row_of(self, record_id: str) -> int:
        """The row of ``record_id``'s entry (KeyError when it has none)."""
        return self._at[record_id]

    def own(self, record_ids: Iterable[str], paths: Iterable[str]
            ) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """``record_ids`` and ``paths`` (each record's page path), one for one, with this
        table's strings (equal, not copies) where it has the record and its page has that
        path; ValueError when they are not as many."""
        ids_out, paths_out = [], []
        at, own_ids, own_paths = self._at, self._ids, self._paths
        for record_id, path in zip(record_ids, paths, strict=True):
            row = at.get(record_id)
            if row is not None:
                record_id = own_ids[row]
                path = own_paths[row] if own_paths[row] == path else path
            ids_out.append(record_id)
            paths_out.append(path)
        return tuple(ids_out), tuple(paths_out)

    def members(self, record_ids: Iterable[str]) -> EntryList:
        """The entries of ``record_ids``, in that order, as rows of this table."""
        return EntryList(self, array("I", map(self._at.__getitem__, record_ids)))

    def __getitem__(self, record_id: str) -> Entry:
        return self.row(self._at[record_id])

    def __contains__(self, record_id: object) -> bool:
        return record_id in self._at

    def __iter__(self) -> Iterator[str]:
        return iter(self._ids)

    def __len__(self) -> int:
        return len(self._ids)

    def __reduce__(self) -> tuple[Any, ...]:
        # Pickled as the dict it stands for (a slice is small; its numbering is of no use).
        return (dict, (dict(self.items()),))

    def _pack(self, entry: Entry) -> tuple[Any, ...]:
        number = self._strings.number
        return (entry.message, number(entry.repo), number(entry.file), entry.line,
                number(entry.error_class), entry.summary_key, number(entry.error_type),
                number(entry.severity), number(entry.handling), number(entry.language))


class CarriedTable(EntryTable):
    """A few entries a unit's slice carries to its worker (a hub unit's listings'), pickled
    as they are held: packed, each once, however many of its listings show it (as objects, a
    hub with a large listing made its slice ~130 MB higher at 310,000 records)."""

    def __reduce__(self) -> tuple[Any, ...]:
        state = dict(self.__dict__, _made={})
        return (_carried, (state,))


def carried(lists: Iterable[Sequence[Entry]]) -> list[EntryList]:
    """``lists`` of entries as rows of one :class:`CarriedTable`, made an entry at a time."""
    table = CarriedTable()
    made = []
    for entries in lists:
        ids = []
        for entry in entries:
            if entry.record_id not in table:
                table.add(entry)
            ids.append(entry.record_id)
        made.append(table.members(ids))
    table.settle()
    return made


def _carried(state: dict[str, Any]) -> CarriedTable:
    table = CarriedTable.__new__(CarriedTable)
    table.__dict__.update(state)
    return table


class EntryList(Sequence[Entry]):
    """Some rows of an :class:`EntryTable`, in order: a group's records."""

    __slots__ = ("_rows", "_table")

    def __init__(self, table: EntryTable, rows: array[int]) -> None:
        self._table = table
        self._rows = rows

    @property
    def table(self) -> EntryTable:
        """The table its entries are rows of."""
        return self._table

    def rows_of(self, table: EntryTable) -> array[int] | None:
        """Its rows, when they are rows of ``table`` (else ``None``)."""
        return self._rows if self._table is table else None

    @overload
    def __getitem__(self, index: int) -> Entry: ...

    @overload
    def __getitem__(self, index: slice) -> EntryList: ...

    def __getitem__(self, index: int | slice) -> Entry | EntryList:
        if isinstance(index, slice):
            return EntryList(self._table, self._rows[index])
        return self._table.row(self._rows[index])

    def __iter__(self) -> Iterator[Entry]:
        return map(self._table.row, self._rows)

    def __len__(self) -> int:
        return len(self._rows)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Sequence) or isinstance(other, str | bytes):
            return NotImplemented
        return len(self) == len(other) and all(a == b for a, b in zip(self, other, strict=True))

    def __hash__(self) -> int:
        return hash(tuple(self))

    def __reduce__(self) -> tuple[Any, ...]:
        if isinstance(self._table, CarriedTable):  # (pickled once, however many lists)
            return (EntryList, (self._table, self._rows))
        # Pickled as the tuple it stands for: never with a catalogue's whole table.
        return (tuple, (tuple(self),))

    def __repr__(self) -> str:
        return f"EntryList({list(self)!r})"
