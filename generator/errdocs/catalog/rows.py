"""The catalogue model as rows of the catalogue: its entries, its groups with their members, and
what each record page's related lists link to (issue 12: groups and links are catalogue rows).

The rows of one model are keyed by a number (``model``: the id of the memo blob that heads them,
:meth:`errdocs.catalog.memo.Memo.get_rows`), so an earlier build's model and this build's live
side by side until the memo's rows point at the new one. A group's members and a related list's
records are one ``members`` value each: the entries' numbers (``seq``) as an array of unsigned
32-bit integers, little-endian. One row a member (3 million at 310,000 records) took 2.5 s to
write and 2 s to read back; an array takes a small part of that, and a listing page's slice of
it is still a query (``substr(members, 4 * first + 1, 4 * count)``).

What a list holds that follows from the entries is not stored but derived when read: where
each repository's run of a family starts, and the file of each record of a category's list.
"""

from __future__ import annotations

import sqlite3
import sys
from array import array
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import closing
from dataclasses import fields
from operator import attrgetter
from pathlib import Path
from typing import Any

from errdocs.catalog.entries import CarriedTable, Entry, EntryList, EntryTable
from errdocs.catalog.model import Catalog, Group, GroupKind, group_key
from errdocs.catalog.related import Relations, repo_runs
from errdocs.catalog.store import unshared
from errdocs.catalog.texts import BATCH, READ_WAIT, RowTexts
from errdocs.errors import BuildFailed

TABLES = (
    """CREATE TABLE IF NOT EXISTS model_entries (
        model INTEGER NOT NULL, seq INTEGER NOT NULL, record_id TEXT NOT NULL,
        path TEXT NOT NULL, message TEXT NOT NULL, repo TEXT NOT NULL, file TEXT,
        line INTEGER, family TEXT, title TEXT, class TEXT, summary_key INTEGER NOT NULL,
        error_type TEXT, severity TEXT, handling TEXT, language TEXT NOT NULL,
        summary TEXT NOT NULL, analyzed_at TEXT, PRIMARY KEY (model, seq)) WITHOUT ROWID""",
    """CREATE INDEX IF NOT EXISTS model_entries_id ON model_entries (model, record_id)""",
    """CREATE TABLE IF NOT EXISTS model_groups (
        model INTEGER NOT NULL, kind TEXT NOT NULL, seq INTEGER NOT NULL, key TEXT NOT NULL,
        label TEXT NOT NULL, path TEXT NOT NULL, members BLOB NOT NULL,
        PRIMARY KEY (model, kind, seq))""",
    """CREATE TABLE IF NOT EXISTS model_links (
        model INTEGER NOT NULL, list TEXT NOT NULL, seq INTEGER NOT NULL, a TEXT NOT NULL,
        b TEXT NOT NULL, members BLOB NOT NULL, PRIMARY KEY (model, list, seq))""",
)
"""The model's tables. ``model_links``: a related list's records; ``list`` says which
(:data:`_LISTS`), ``a`` and ``b`` its key: a family's key and ``""``, a repository's folder and a
file, or a repository's folder and a category's key."""
SWEEP = tuple(f"DELETE FROM {table} WHERE model NOT IN (SELECT id FROM memo_blobs)"
              for table in ("model_entries", "model_groups", "model_links"))
"""Drop the rows of models whose memo blob went (an earlier build's, or a killed one's)."""

_ENTRY = tuple(f.name for f in fields(Entry))
_COLUMNS = ("record_id, path, message, repo, file, line, family, title, class, summary_key, "
            "error_type, severity, handling, language")
"""The columns of an entry's fields, in their order; a row's last two, ``summary`` and
``analyzed_at``, are the model's texts (:class:`~errdocs.catalog.texts.RowTexts` reads them
by the record id, through the index ``model_entries_id``)."""
_fields = attrgetter(*_ENTRY)
"""An entry's fields as a tuple, in its row's order."""
_KINDS = tuple(GroupKind)
_LISTS = ("families", "files", "categories")
"""The related lists stored, by the name of their :class:`Relations` field."""
_UINT32 = "I" if array("I").itemsize == 4 else "L"
_COMMON = tuple(_ENTRY.index(field) for field in (
    "repo", "family", "error_class", "error_type", "severity", "handling", "language"))
"""An entry's fields that many entries hold the same text of: read back, each row's is a string
of its own, so one of each is kept (:func:`_one_of`). :mod:`marshal` had done so by itself (it
writes an object held twice once). The likely cause of the ~106 MB the build process's peak
rose at 310,000 records with the model as rows (not yet measured with this)."""


class NotAModel(ValueError):
    """Rows that are not the whole model their header counts (lost, or another's)."""


def write_model(db: sqlite3.Connection, model: int, catalog: Catalog) -> tuple[int, ...]:
    """Write ``catalog`` as the rows of ``model``, in the order of its dicts (every order a
    build iterates in is kept); what :func:`read_model` checks: how many entries, groups and
    lists."""
    seq = {record_id: n for n, record_id in enumerate(catalog.entries)}
    texts = catalog.texts.of(catalog.entries)
    db.executemany(f"INSERT INTO model_entries VALUES ({', '.join('?' * (len(_ENTRY) + 4))})",
                   ((model, n, *(unshared(getattr(e, name)) for name in _ENTRY),
                     unshared(summary), analyzed_at)
                    for n, (e, (summary, analyzed_at)) in enumerate(
                        zip(catalog.entries.values(), texts, strict=True))))
    groups = 0
    for kind in _KINDS:
        rows = [(model, kind.value, n, unshared(g.key), unshared(g.label), unshared(g.path),
                 _packed(_rows(g.entries, catalog.entries, seq)))
                for n, g in enumerate(catalog.groups[kind].values())]
        db.executemany("INSERT INTO model_groups VALUES (?, ?, ?, ?, ?, ?, ?)", rows)
        groups += len(rows)
    links = 0
    for name in _LISTS:
        lists: dict[Any, tuple[str, ...]] = getattr(catalog.relations, name)
        db.executemany("INSERT INTO model_links VALUES (?, ?, ?, ?, ?, ?)", (
            (model, name, n, *_key_of(key), _packed(map(seq.__getitem__, ids)))
            for n, (key, ids) in enumerate(lists.items())))
        links += len(lists)
    return len(seq), groups, links


def read_model(db: sqlite3.Connection, model: int, counts: Any) -> Catalog:
    """The catalogue :func:`write_model` wrote as ``model`` with ``counts`` (:class:`NotAModel`
    when the rows are not those), its texts read from those rows when asked for."""
    common: dict[str, str] = {}
    # Packed as they are read (the table's rows are the model's, in its order: a group's
    # members are rows of it as stored).
    entries = EntryTable(Entry(*_one_of(list(row), common))
                         for row in db.execute(f"SELECT {_COLUMNS} FROM model_entries "
                                               "WHERE model = ? ORDER BY seq", (model,)))
    by_kind: dict[GroupKind, dict[str, Group]] = {kind: {} for kind in _KINDS}
    for kind, key, label, path, members in db.execute(
            "SELECT kind, key, label, path, members FROM model_groups WHERE model = ? "
            "ORDER BY kind, seq", (model,)):
        group_kind = GroupKind(kind)
        key = common.setdefault(key, key)  # (a family's key is its entries' family)
        rows = _unpacked(members)
        if rows and max(rows) >= len(entries):
            raise NotAModel(f"a member of group {key!r} past the model's entries")
        by_kind[group_kind][key] = Group(group_kind, key, label, path, EntryList(entries, rows))
    lists = _lists(db, model, list(entries), common)
    found = (len(entries), sum(map(len, by_kind.values())), sum(map(len, lists.values())))
    if tuple(counts) != found:
        raise NotAModel(f"model rows {found}, counted {counts}")
    return Catalog(entries, _in_order(by_kind), _relations(lists, entries),
                   RowTexts(database_file(db), model))


def database_file(db: sqlite3.Connection) -> Path:
    """The file of ``db``'s main database."""
    return Path(db.execute("PRAGMA database_list").fetchone()[2])


def stored_lists(lists: Sequence[Sequence[Entry]], catalog: Catalog) -> list[EntryList] | None:
    """``lists`` (a hub unit's listings, groups of ``catalog``) as rows of one
    :class:`StoredTable`: what the model's rows ``catalog`` was written as or read from hold
    of them; ``None`` when it is not such rows (its texts are not read from them)."""
    entries, texts = catalog.entries, catalog.texts
    if not isinstance(texts, RowTexts) or type(entries) is not EntryTable:
        return None
    rows = []
    for members in lists:
        numbers = members.rows_of(entries) if isinstance(members, EntryList) else None
        if numbers is None:
            return None
        rows.append(numbers)
    # (a table's rows are numbered in its order, as the model's seq is: see _rows)
    wanted = bytearray(len(entries))
    for numbers in rows:
        for seq in numbers:
            wanted[seq] = 1
    seqs = array(_UINT32, (seq for seq, flag in enumerate(wanted) if flag))
    position = array(_UINT32, bytes(4 * len(entries)))
    for at, seq in enumerate(seqs):
        position[seq] = at
    table = StoredTable(texts.path, texts.model, seqs)
    return [EntryList(table, array("I", map(position.__getitem__, numbers))) for numbers in rows]


class StoredTable(CarriedTable):
    """Some entries of a model as where they are: the database, the model, their rows'
    numbers (``seq``, ascending); pickled so, and read when unpickled (a
    :class:`CarriedTable` of them, in that order), or when first read here. A hub unit's
    slice carries its listings' entries so: the worker reads them. Made in the process
    feeding the workers, at the build's peak, the table and the summaries of a hub with a
    large listing (one tag lists 145,000 records at 310,000) took that process ~117 MB
    higher for ~3 s (sampled)."""

    def __init__(self, path: Path, model: int, seqs: array[int]) -> None:
        super().__init__()
        self._where = (path, model, seqs)
        self._read = False

    def _entries(self) -> EntryTable:
        if not self._read:
            self._read = True
            for entry in read_stored(*self._where):
                self.add(entry)
            self.settle()
        return self

    def row(self, number: int) -> Entry:
        return EntryTable.row(self._entries(), number)

    def row_of(self, record_id: str) -> int:
        return EntryTable.row_of(self._entries(), record_id)

    def members(self, record_ids: Iterable[str]) -> EntryList:
        return EntryTable.members(self._entries(), record_ids)

    def __getitem__(self, record_id: str) -> Entry:
        return EntryTable.__getitem__(self._entries(), record_id)

    def __contains__(self, record_id: object) -> bool:
        return EntryTable.__contains__(self._entries(), record_id)

    def __iter__(self) -> Iterator[str]:
        return EntryTable.__iter__(self._entries())

    def __len__(self) -> int:
        return EntryTable.__len__(self._entries())

    def __reduce__(self) -> tuple[Any, ...]:
        return (_stored, self._where)


def _stored(path: Path, model: int, seqs: array[int]) -> CarriedTable:
    return CarriedTable(read_stored(path, model, seqs))


def read_stored(path: Path, model: int, seqs: array[int]) -> Iterator[Entry]:
    """The entries of rows ``seqs`` (ascending) of ``model`` in the database ``path``, in
    that order, a batch a query (:class:`BuildFailed` when one is not there)."""
    common: dict[str, str] = {}
    try:
        with closing(sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True,
                                     isolation_level=None, timeout=READ_WAIT)) as db:
            for start in range(0, len(seqs), BATCH):
                batch = seqs[start:start + BATCH]
                found = db.execute(
                    f"SELECT seq, {_COLUMNS} FROM model_entries WHERE model = ? AND seq IN "
                    f"({', '.join('?' * len(batch))}) ORDER BY seq", (model, *batch)).fetchall()
                if [row[0] for row in found] != list(batch):
                    raise BuildFailed(f"{path}: entries of the catalogue's model {model} are "
                                      "gone; build again")
                yield from (Entry(*_one_of(list(row[1:]), common)) for row in found)
    except sqlite3.Error as exc:
        raise BuildFailed(f"{path}: the catalogue's rows cannot be read ({exc}); "
                          "build again") from None


def check_model(db: sqlite3.Connection, model: int, counts: Any) -> None:
    """Raise :class:`NotAModel` unless ``model`` has the rows ``counts`` counts (what
    :func:`write_model` gave), without reading them."""
    found = tuple(db.execute(f"SELECT count(*) FROM {table} WHERE model = ?", (model,))
                  .fetchone()[0] for table in ("model_entries", "model_groups", "model_links"))
    if tuple(counts) != found:
        raise NotAModel(f"model rows {found}, counted {counts}")


def read_entries(db: sqlite3.Connection, model: int,
                 wanted: Callable[[str], bool]) -> dict[str, Entry]:
    """The entries of ``model`` whose record id is ``wanted``, by id, in the model's order:
    read a row at a time (not the whole model)."""
    common: dict[str, str] = {}
    return {row[0]: Entry(*_one_of(list(row), common))
            for row in db.execute(f"SELECT {_COLUMNS} FROM model_entries "
                                  "WHERE model = ? ORDER BY seq", (model,)) if wanted(row[0])}


def moved_entries(db: sqlite3.Connection, model: int, entries: Mapping[str, Entry]) -> set[str]:
    """The ids of the records whose entry in ``entries`` is not theirs in ``model``, or that
    only one of them has: each row compared as it is read (no entry of ``model`` is made)."""
    moved: set[str] = set()
    present = 0  # rows of a record ``entries`` has: fewer than it has, some were added
    for row in db.execute(f"SELECT {_COLUMNS} FROM model_entries WHERE model = ?", (model,)):
        entry = entries.get(row[0])
        present += entry is not None
        if entry is None or _fields(entry) != row:
            moved.add(row[0])
    if present < len(entries):
        then = {row[0] for row in db.execute(
            "SELECT record_id FROM model_entries WHERE model = ?", (model,))}
        moved.update(i for i in entries if i not in then)
    return moved


GroupRow = tuple[GroupKind, str, str, str, tuple[str, ...], int]
"""A group of a model as :func:`read_groups` gives it: kind, key, label, path, its records'
ids in order, and how many repositories they are raised in (families only, else 0)."""


def read_groups(db: sqlite3.Connection, model: int, entries: Mapping[str, Entry]
                ) -> tuple[list[GroupRow], dict[str, dict[Any, tuple[str, ...]]]]:
    """The groups and the related lists of ``model`` as record ids, not entries (none is
    made); an id ``entries`` has is its key's string (not held twice)."""
    ids: list[str] = []
    repos: list[str] = []
    common: dict[str, str] = {}
    for record_id, repo in db.execute("SELECT record_id, repo FROM model_entries "
                                      "WHERE model = ? ORDER BY seq", (model,)):
        now = entries.get(record_id)
        ids.append(record_id if now is None else now.record_id)
        repos.append(common.setdefault(repo, repo))
    groups = []
    for kind, key, label, path, members in db.execute(
            "SELECT kind, key, label, path, members FROM model_groups WHERE model = ? "
            "ORDER BY kind, seq", (model,)):
        numbers = list(_unpacked(members))
        group_kind = GroupKind(kind)
        count = len({group_key(GroupKind.REPO, repos[n]) for n in numbers}) if (
            group_kind is GroupKind.FAMILY) else 0
        groups.append((group_kind, key, label, path, tuple(map(ids.__getitem__, numbers)), count))
    return groups, _lists(db, model, ids, common)


def _lists(db: sqlite3.Connection, model: int, ids: list[str],
           common: dict[str, str]) -> dict[str, dict[Any, tuple[str, ...]]]:
    """The related lists of ``model`` by name (:data:`_LISTS`), ``ids`` its entries' ids."""
    lists: dict[str, dict[Any, tuple[str, ...]]] = {name: {} for name in _LISTS}
    for name, a, b, members in db.execute(
            "SELECT list, a, b, members FROM model_links WHERE model = ? ORDER BY list, seq",
            (model,)):
        lists[name][common.setdefault(a, a) if name == "families" else (sys.intern(a), b)] = tuple(
            map(ids.__getitem__, _unpacked(members)))
    return lists


def _one_of(values: list[Any], common: dict[str, str]) -> list[Any]:
    """``values`` (an entry's row), its fields of :data:`_COMMON` the first string of their text
    ``common`` was given."""
    for at in _COMMON:
        text = values[at]
        if text is not None:
            values[at] = common.setdefault(text, text)
    return values


def _in_order(by_kind: dict[GroupKind, dict[str, Group]]) -> dict[GroupKind, dict[str, Group]]:
    # (read ordered by kind's text: the build made them in the enum's order)
    return {kind: by_kind[kind] for kind in _KINDS}


def _relations(lists: dict[str, dict[Any, tuple[str, ...]]],
               entries: Mapping[str, Entry]) -> Relations:
    """The relations of the stored lists, with what follows from them and the entries."""
    families, categories = lists["families"], lists["categories"]
    return Relations(
        families,
        {key: starts for key, ids in families.items()
         if len(starts := repo_runs(ids, entries)) > 1},
        lists["files"], categories,
        {key: tuple(entries[i].file or "" for i in ids) for key, ids in categories.items()})


def _rows(members: Sequence[Entry], entries: Mapping[str, Entry],
          seq: Mapping[str, int]) -> Iterable[int]:
    """The numbers of ``members`` among ``entries`` (numbered ``seq``, in their order)."""
    if isinstance(members, EntryList) and isinstance(entries, EntryTable):
        rows = members.rows_of(entries)
        if rows is not None:  # (a table's rows are numbered in its order, as seq is)
            return rows
    return (seq[e.record_id] for e in members)


def _key_of(key: str | tuple[str, str]) -> tuple[str, str]:
    return (key, "") if isinstance(key, str) else key


def _packed(numbers: Iterable[int]) -> bytes:
    packed = array(_UINT32, numbers)
    if sys.byteorder != "little":
        packed.byteswap()
    return packed.tobytes()


def _unpacked(data: bytes) -> array[int]:
    if not isinstance(data, bytes) or len(data) % 4:
        raise NotAModel("not an array of entry numbers")
    numbers = array(_UINT32)
    numbers.frombytes(data)
    if sys.byteorder != "little":
        numbers.byteswap()
    return numbers
