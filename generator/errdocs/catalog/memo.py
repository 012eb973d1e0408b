"""The catalogue model and the plan's page units, kept between builds (a cache, never the truth).

Made from every record on every build, the catalogue model (:func:`build_catalog`: paths,
titles, groups, related lists) and the keys of the record and hub units
(:func:`errdocs.units.plan.page_units`: each page's inputs hashed) were most of what a build
with nothing to do spent (bench/README.md, issue 17). Both are functions of the light records,
which are functions of their JSON lines and errdocs' code, and the units also of the
:func:`errdocs.units.plan.global_key`. So they are kept in the catalogue (``memo_rows``, one
row each) under a *memo key*: a hash of errdocs' code, the Python version and what every light
record holds, in order (:func:`model_key`); for the units, of every record's line hash instead
(:func:`lines_key`: a record page's key hashes its line) and of the global key. A build whose
key is the row's takes the row; any other build makes them and writes the row. So are, beside
them, what else a build made from every record or every data file: the home page's summary,
the paged index, the data files' part keys and the data units. So a refresh that changes
records only in what no light record holds (their solutions, code, the rest of their prose)
makes the units' keys again, but not the model nor what is made from it alone.

A refresh (another key) makes the model and the units from the rows an earlier build kept when
they are of one model and of an errdocs of the same render key (:func:`earlier_model`, with
the line hashes of :data:`LINES`): the entries of records whose line did not change, and the
keys of pages whose inputs provably did not change (:class:`errdocs.units.plan.Previous`), are
taken from them, so its cost follows what changed. What it makes is what a cold build makes.
The earlier model is queried, never read whole (:func:`kept_entries`, :func:`previous_of`).

The model itself is not bytes but rows of tables of its own (:mod:`errdocs.catalog.rows`: its
entries, groups and related lists, queryable); its row's bytes only count them
(:meth:`Memo.get_rows`).

A row that cannot be used (another key, a digest that does not match its bytes, bytes that do
not decode to what was written, model rows that are not all there, no table, no catalogue) is a
miss: the model is made as a cold build makes it. A row's bytes (and the model's rows) are
written as soon as it is made (``memo_blobs``: held until the end, they were ~350 MB of the
build process at 310,000 records), and the rows are pointed at them (``memo_rows``) together,
in one transaction (:meth:`Memo.save`): until then every read finds the earlier build's rows.
What is in a row is a pure function of its key, so a build that fails later leaves rows that
are still true; bytes no row points to (a killed build's), and the model rows of those bytes,
go when the next build makes its first row, and with every save.
"""

from __future__ import annotations

import hashlib
import marshal
import sqlite3
import sys
from abc import ABC, abstractmethod
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, fields, replace
from operator import attrgetter
from pathlib import Path
from typing import Any, Generic, TypeVar

from errdocs.catalog.blobs import FAILED, read_items, write_items
from errdocs.catalog.lights import Light, Lights
from errdocs.catalog.model import Catalog, Entry, GroupKind
from errdocs.catalog.rows import SWEEP as MODEL_SWEEP
from errdocs.catalog.rows import TABLES as MODEL_TABLES
from errdocs.catalog.rows import (
    check_model,
    moved_entries,
    read_entries,
    read_groups,
    read_model,
    write_model,
)
from errdocs.catalog.store import FILE, Catalogue
from errdocs.catalog.texts import RowTexts
from errdocs.collector import collector_paused
from errdocs.pages.render import Page
from errdocs.records.record import Record
from errdocs.units.plan import (
    GroupThen,
    Previous,
    Unit,
    page_keys_of,
    shared_strings,
    units_data,
    units_from,
)

ROWS = "CREATE TABLE IF NOT EXISTS memo_rows (name TEXT PRIMARY KEY, blob INTEGER NOT NULL)"
"""A row's name and the blob holding its key and bytes."""
BLOBS = """CREATE TABLE IF NOT EXISTS memo_blobs (
    id INTEGER PRIMARY KEY, key TEXT NOT NULL, digest BLOB NOT NULL, data BLOB NOT NULL)"""
"""Each row's key, the digest of its bytes and the bytes (:mod:`marshal`'s)."""
_SWEEP = "DELETE FROM memo_blobs WHERE id NOT IN (SELECT blob FROM memo_rows)"
"""Drop the bytes no row points to: an earlier row's, or what a killed build wrote."""
_OLD = "model_memo"
"""The table of errdocs before the blobs (each row's bytes written at the end): dropped."""
CATALOG = "catalog"
"""The row of the catalogue model."""
UNITS = "units"
"""The row of the record and hub units (their members and keys)."""
ROOT_PAGES = "root-pages"
"""The row of the root unit's generated pages (made from the catalogue alone)."""
RETIRED = ("data-units",)
"""Rows an earlier errdocs kept and this one does not (the data units: made on every build),
removed when the memo is next saved."""
HOME = "home"
"""The row of the home page's summary and the record pages it lists (made from every
entry)."""
INDEX_PAGES = "index-pages"
"""The row of the paged index of every record (``/api/index/``): each file's path and
content hash (the files are on disk)."""
LINES = "lines"
"""The row of each record's line hash, by id, when the page units were made (kept with
them: :func:`previous_units`)."""
KEYS = "keys-"
"""The prefix of the rows of data files' part keys (:meth:`Memo.remember`): a build whose
records did not change hashes none of them again."""

T = TypeVar("T")
_MISS = object()
"""What a row that does not decode gives."""


def model_key(lights: Iterable[Light], code: str) -> str:
    """The key of the catalogue model made from ``lights``: what they hold (every field of
    each light record but where it was read, in order; none holds more than strings, numbers
    and tuples of strings), ``code`` (a hash of errdocs' code,
    :func:`errdocs.units.plan.render_key`) and the Python version (:mod:`marshal`'s format is
    the interpreter's). Not their lines: a record changed only in what no light record holds
    (its solutions, its code, the rest of its prose) leaves the model, and all that is made
    from the model alone, as they were."""
    digest = hashlib.sha256(f"{code}\0{sys.version}\0{marshal.version}\0".encode())
    for light in lights:
        digest.update(marshal.dumps(_held(light.record)))
    return digest.hexdigest()


_held = attrgetter(*(f.name for f in fields(Record) if f.name != "origin"))
"""A light record's fields but its origin, as a tuple (what :func:`model_key` hashes)."""


def lines_key(lines: Iterable[tuple[str, str]], code: str) -> str:
    """The key of what is made from the records' lines, not only from their light copies
    (the page units: a record page's key hashes its line): ``code`` and the line hashes of
    ``lines`` (each record's id and line hash, :meth:`Lights.lines`) in order."""
    digest = hashlib.sha256(f"{code}\0{sys.version}\0{marshal.version}\0".encode())
    digest.update("".join(line for _id, line in lines).encode())
    return digest.hexdigest()


def units_key(lines: str, global_key: str) -> str:
    """The key of the page units: the lines' key (:func:`lines_key`) and the global key."""
    return hashlib.sha256(f"{lines}\0{global_key}".encode()).hexdigest()


class Memo:
    """The memo rows of one build: read as they are asked for, written together
    (:meth:`save`) once the build has made what was missing."""

    def __init__(self, work: Path) -> None:
        self.work = work
        self._new: dict[str, int] = {}
        """Rows made this build: name to the id of the blob written, pointed at by :meth:`save`."""
        self._swept = False
        """Whether the bytes no row points to (a killed build's) went, before this build's."""
        self._previous: dict[str, Any] = {}
        """What :meth:`previous` read, by row (each row is read and decoded once)."""
        self._taken: dict[str, tuple[str, object, Any]] = {}
        """The rows :meth:`get` took, by name: their key, the decoder and the value."""

    def get(self, name: str, key: str, make: Callable[[], T],
            encode: Callable[[T], Sequence[Any]], decode: Callable[[Any], T],
            each: Callable[[Any], Any] | None = None) -> T:
        """The value of row ``name`` when it was kept for ``key``, else ``make()`` (then kept
        by :meth:`save`). ``each``: what ``decode`` is given of each item of a kept row, made
        as the item is read (:func:`errdocs.catalog.blobs.items_of`)."""
        taken = self._take(name, key, decode, each)
        if taken is not _MISS:
            return taken  # type: ignore[return-value]
        value = make()
        self.keep(name, key, encode(value))
        return value

    def kept(self, name: str, key: str, decode: Callable[[Any], T]) -> T | None:
        """The value of row ``name`` when it was kept for ``key`` and decodes, else ``None``:
        for a caller that checks the value, and makes it and keeps it (:meth:`keep`) when it
        will not do."""
        taken = self._take(name, key, decode)
        return None if taken is _MISS else taken  # type: ignore[return-value]

    def get_rows(self, name: str, key: str, make: Callable[[], T], rows: Stored[T]) -> T:
        """:meth:`get` for a value kept as rows of tables of its own (``rows``)."""
        taken = self._take(name, key, rows)
        if taken is not _MISS:
            return taken  # type: ignore[return-value]
        value = make()
        self._write(name, key, lambda db, blob: (rows.write(db, blob, value),))
        return rows.written(value, self.work / FILE, self._new[name])

    def previous(self, name: str, decode: Callable[[Any], T] | Stored[T],
                 each: Callable[[Any], Any] | None = None) -> tuple[str, T] | None:
        """Row ``name`` whatever its key, with its key, when its bytes are the bytes written
        and decode: what an earlier build made for that key (rows made this build are not
        written yet). ``decode`` is the row's (a :class:`Stored` for one kept as rows): each
        row is read once. ``each``: as for :meth:`get`."""
        taken = self._taken.get(name)
        if name not in self._previous and taken is not None and taken[1] is decode:
            self._previous[name] = (taken[0], taken[2])  # not decoded twice (7 s at 310,000)
        if name not in self._previous:
            found = self._read(name, None, each)
            self._previous[name] = None
            if found is not None:
                value = self._decoded(found, decode)
                self._previous[name] = None if value is _MISS else (found[0], value)
        return self._previous[name]

    def _take(self, name: str, key: str, decode: Callable[[Any], T] | Stored[T],
              each: Callable[[Any], Any] | None = None) -> T | object:
        """The value of row ``name`` when it was kept for ``key`` and decodes, else
        :data:`_MISS` (not what this module wrote: made again, as without a row)."""
        found = self._read(name, key, each)
        taken = _MISS if found is None else self._decoded(found, decode)
        if found is not None and taken is not _MISS:
            # An earlier build's row: what previous() decodes, when it decodes alike.
            self._taken[name] = (found[0], decode, taken)
        return taken

    def _decoded(self, found: tuple[str, int, list[Any]],
                 decode: Callable[[Any], T] | Stored[T]) -> T | object:
        """What ``found`` decodes to, or :data:`_MISS`."""
        blob, data = found[1], found[2]
        if isinstance(decode, Stored):  # (rows of tables of their own: no value is None)
            value = self.query(lambda db: decode.read(db, blob, data[0]))
            return _MISS if value is None else value
        try:
            with collector_paused():
                return decode(data)
        except (*FAILED, sqlite3.Error):
            return _MISS

    def query(self, read: Callable[[sqlite3.Connection], T]) -> T | None:
        """What ``read`` gives of the catalogue, or ``None`` when it cannot be read (no
        catalogue, a damaged one: what a row that does not decode gives)."""
        try:
            with collector_paused(), Catalogue(self.work, keep=False) as catalogue:
                return None if catalogue.db is None else read(catalogue.db)
        except (*FAILED, sqlite3.Error):
            return None

    def keep(self, name: str, key: str, value: Collection[Any]) -> None:
        """Keep ``value`` (items :mod:`marshal` writes) as row ``name`` for ``key``: its bytes
        are written now, in a transaction of their own, and not held; the row is the earlier
        build's until :meth:`save`."""
        self._write(name, key, lambda _db, _blob: value)

    def _write(self, name: str, key: str,
               fill: Callable[[sqlite3.Connection, int], Collection[Any]]) -> None:
        """Write row ``name``'s blob for ``key`` in a transaction of its own: its items are
        what ``fill`` returns, given the connection and the blob's id (what it may write rows
        under first)."""
        with Catalogue(self.work) as catalogue, catalogue.writing():
            db = catalogue.db
            assert db is not None
            _tables(db)
            if not self._swept:  # their pages are free for this build's bytes to take
                _sweep(db)
                self._swept = True
            blob = db.execute("INSERT INTO memo_blobs (key, digest, data) VALUES (?, '', '')",
                              (key,)).lastrowid
            assert blob is not None
            items = fill(db, blob)
            write_items(db, "memo_blobs", "data", blob, items)
            catalogue.commit(prune=False)
        self._new[name] = blob

    def remember(self, model: str) -> Callable[[str, Callable[[], dict[str, str]]],
                                               dict[str, str]]:
        """What keeps the part keys of data files made from the catalogue model of key
        ``model`` (:data:`errdocs.search.boxdata.Remember`): a row a kind of keys (named by
        what precedes the first U+0000 of the string it is given), under a hash of ``model``
        and that string (what else the keys are made from)."""
        def remember(extra: str, make: Callable[[], dict[str, str]]) -> dict[str, str]:
            key = hashlib.sha256(f"{model}\0{extra}".encode()).hexdigest()
            return self.get(KEYS + extra.partition("\0")[0], key, make, keys_data, keys_from)
        return remember

    def forget_previous(self) -> None:
        """Drop the earlier rows :meth:`previous` decoded, once nothing will ask for them: at
        310,000 records the earlier line hashes and units were ~80 MB, held while the new
        units' row was written (the preparation's peak)."""
        self._previous.clear()

    def save(self) -> None:
        """Point the rows made this build at their bytes and drop the bytes no row points to
        (one transaction; nothing when no row was made), and forget the earlier rows read."""
        self.forget_previous()
        self._taken.clear()
        if not self._new:
            return
        with Catalogue(self.work) as catalogue, catalogue.writing():
            db = catalogue.db
            assert db is not None
            _tables(db)
            db.executemany("INSERT OR REPLACE INTO memo_rows VALUES (?, ?)", self._new.items())
            db.executemany("DELETE FROM memo_rows WHERE name = ?", ((n,) for n in RETIRED))
            _sweep(db)
            db.execute(f"DROP TABLE IF EXISTS {_OLD}")
            catalogue.commit(prune=False)
        self._new.clear()

    def _read(self, name: str, key: str | None, each: Callable[[Any], Any] | None = None
              ) -> tuple[str, int, list[Any]] | None:
        """The row's key, blob id and items when it was kept for ``key`` (any key: ``None``)
        and its bytes are the bytes written. The bytes are read in blocks, an item at a time,
        never whole (the units' row was 62 MB at 310,000 records)."""
        try:
            with Catalogue(self.work, keep=False) as catalogue:
                db = catalogue.db
                row = None if db is None else db.execute(
                    "SELECT b.key, b.digest, b.id FROM memo_rows r JOIN memo_blobs b "
                    "ON b.id = r.blob WHERE r.name = ? AND ? IN (b.key, '')",
                    (name, key or "")).fetchone()
                # The bytes are read only for the key asked for (a refresh's model has
                # another: its row was ~150 MB at 310,000 records).
                if db is None or row is None or (key is not None and row[0] != key):
                    return None
                items = read_items(db, "memo_blobs", "data", row[2], row[1], each)
                if items is None:
                    return None
        except (*FAILED, sqlite3.Error):  # no table yet, a damaged catalogue (the scan
            return None                    # remakes it), bytes not what this module wrote
        return str(row[0]), int(row[2]), items


class Stored(ABC, Generic[T]):
    """How a memo row's value is kept as rows of tables of its own (:meth:`Memo.get_rows`):
    the row's bytes are only what :meth:`write` returns (counts, to check what is read)."""

    @abstractmethod
    def write(self, db: sqlite3.Connection, blob: int, value: T) -> Any:
        """Write ``value``'s rows under ``blob`` (in the memo's transaction); what to check
        them by (what :mod:`marshal` writes)."""

    @abstractmethod
    def read(self, db: sqlite3.Connection, blob: int, counts: Any) -> T:
        """The value of the rows under ``blob`` (raising one of :data:`FAILED` or
        :class:`sqlite3.Error` when they are not what ``counts`` says)."""

    def written(self, value: T, path: Path, blob: int) -> T:
        """What the build goes on with once ``value``'s rows are written under ``blob`` in
        the database ``path``: ``value`` itself, unless it reads from its rows what it held
        until then."""
        return value


class ModelRows(Stored[Catalog]):
    """The catalogue model's rows (:mod:`errdocs.catalog.rows`)."""

    def write(self, db: sqlite3.Connection, blob: int, value: Catalog) -> Any:
        return write_model(db, blob, value)

    def read(self, db: sqlite3.Connection, blob: int, counts: Any) -> Catalog:
        return read_model(db, blob, counts)

    def written(self, value: Catalog, path: Path, blob: int) -> Catalog:
        # Its texts read from its rows from now on, as a catalogue read from them does: held,
        # they were ~85 MB at 310,000 records (errdocs.catalog.texts).
        return replace(value, texts=RowTexts(path, blob))


MODEL = ModelRows()
"""How the catalogue model's row is kept: one reader for every step (:meth:`Memo.previous`
decodes a row once a reader)."""


class EarlierModel(Stored[int]):
    """An earlier build's model, for a refresh: not read whole (read and held beside this
    build's, a refresh's catalogue step ended 187 MB higher at 310,000 records, bench/README
    Session 37), only checked; its value is the number its rows are kept under, what
    :func:`kept_entries` and :func:`previous_units` query."""

    def write(self, db: sqlite3.Connection, blob: int, value: int) -> Any:
        raise NotImplementedError("an earlier model is read, never written")

    def read(self, db: sqlite3.Connection, blob: int, counts: Any) -> int:
        check_model(db, blob, counts)
        return blob


EARLIER = EarlierModel()


def _tables(db: sqlite3.Connection) -> None:
    for statement in (ROWS, BLOBS, *MODEL_TABLES):
        db.execute(statement)


def _sweep(db: sqlite3.Connection) -> None:
    """Drop the bytes no row points to, and the rows of those bytes."""
    for statement in (_SWEEP, *MODEL_SWEEP):
        db.execute(statement)


def keep_lines(memo: Memo, key: str, model: str, code: str, lights: Lights) -> None:
    """Keep each record's id and line hash (with ``code``, the render key they were read with,
    and ``model``, the key of the catalogue model made of them) as the :data:`LINES` row of
    ``key`` (their :func:`lines_key`): what the next build's :func:`previous_units` needs."""
    memo.keep(LINES, key, _Lines((code, model), lights))


@dataclass(frozen=True)
class _Lines(Collection[Any]):
    """The items of a :data:`LINES` row, read from the light copies each time they are
    iterated (the row is written in two passes), never held together (at 310,000 records, a
    tuple of every pair held ~70 MB)."""

    head: tuple[str, str]
    lights: Lights

    def __len__(self) -> int:
        return len(self.head) + len(self.lights)

    def __iter__(self) -> Iterator[Any]:
        yield from self.head
        yield from self.lights.lines()

    def __contains__(self, item: object) -> bool:
        return item in iter(self)


@dataclass(frozen=True)
class Earlier:
    """The catalogue model an earlier build kept, as a refresh uses it (:func:`earlier_model`):
    where its rows are, not its entries, and which records' lines changed since."""

    lines: str
    """The key of the lines it was made from (:func:`lines_key`): the page units of that key
    were made from it."""
    model: str
    """Its key (:func:`model_key`)."""
    rows: int
    """The number its rows are kept under (:mod:`errdocs.catalog.rows`)."""
    redone: set[str]
    """Ids of this build's records whose line is not the line it was made from (or that it
    did not have)."""


def earlier_model(memo: Memo, code: str, lines: Iterable[tuple[str, str]]) -> Earlier | None:
    """The catalogue model an earlier build kept, against this build's ``lines`` (each
    record's id and line hash, :meth:`Lights.lines`), or ``None``. Only one an errdocs of
    render key ``code`` made: the rows outlive errdocs' code, and another errdocs may make
    other entries and keys of the same lines. Its line hashes are read, compared and dropped
    (a dict of every record's)."""
    catalog = memo.previous(CATALOG, EARLIER)
    then = memo.previous(LINES, _lines_from) if catalog else None
    memo.forget_previous()
    if catalog is None or then is None or then[1][0] != code or catalog[0] != then[1][1]:
        return None  # another errdocs's, or not of one model (a lost or damaged row)
    hashes = then[1][2]
    return Earlier(then[0], catalog[0], catalog[1],
                   {i for i, line in lines if hashes.get(i) != line})


def kept_entries(memo: Memo, earlier: Earlier | None) -> dict[str, Entry]:
    """The entries the ``earlier`` model has of the records whose line did not change, by id
    (what :func:`errdocs.catalog.model.build_catalog` reuses; those of records gone too)."""
    if earlier is None:
        return {}
    redone = earlier.redone
    return memo.query(lambda db: read_entries(db, earlier.rows,
                                              lambda i: i not in redone)) or {}


def previous_units(memo: Memo, earlier: Earlier | None, model: str,
                   catalog: Catalog) -> Previous | None:
    """What the page units an earlier build kept tell against this build's model ``catalog``
    (of key ``model``): when they were made from the ``earlier`` model, its entries compared,
    its groups and lists read (:func:`previous_of`); or ``None``."""
    # Read with this model's strings where it has the same (its record pages' paths, its
    # listings' first pages'): read as kept, the earlier units were ~60 MB of strings, beside
    # the dict of every page's key made of them (a 1% refresh's plan peaked at 675 MB at
    # 310,000 records).
    units = memo.previous(UNITS, _page_keys_from, shared_strings(catalog)) if earlier else None
    if earlier is None or units is None or units[1][0] != earlier.lines:
        return None
    keys = units[1][1]
    memo.forget_previous()  # (held by the memo, they would not go with the Previous)
    if earlier.model == model:  # the same model (a mkdocs.yml edit; lines changed past entries)
        return Previous.between(catalog, catalog, earlier.redone, keys)
    return memo.query(lambda db: previous_of(db, earlier.rows, catalog, earlier.redone, keys))


def previous_of(db: sqlite3.Connection, model: int, catalog: Catalog, redone: set[str],
                keys: Mapping[str, bytes]) -> Previous:
    """What the earlier model kept as the rows of ``model`` tells against ``catalog`` (as
    :meth:`Previous.between` of that model, whole), with the records whose line changed and
    the page keys then: its entries compared a row at a time, its groups and lists read as
    record ids."""
    moved = moved_entries(db, model, catalog.entries)
    group_rows, lists = read_groups(db, model, catalog.entries)
    groups: dict[GroupKind, dict[str, GroupThen]] = {kind: {} for kind in GroupKind}
    for kind, key, label, path, ids, repos in group_rows:
        now = catalog.groups[kind].get(key)  # its strings, where they are the same
        if now is not None:
            key, label, path = now.key, _same(now.label, label), _same(now.path, path)
        groups[kind][key] = GroupThen(label, path, ids, repos)
    return Previous(moved, groups, (lists["families"], lists["files"], lists["categories"]),
                    redone, keys)


def _same(now: str, then: str) -> str:
    return now if now == then else then


def _page_keys_from(data: Any) -> tuple[str, Mapping[str, bytes]]:
    """The lines key and the page keys (:func:`page_keys_of`) of the page units
    :func:`units_data_of` kept."""
    lines, *units = data
    if not isinstance(lines, str):
        raise TypeError("not a lines key")
    return lines, page_keys_of(units_from(units))


def _lines_from(data: Any) -> tuple[str, str, dict[str, str]]:
    code, model, *lines = data
    if not isinstance(code, str) or not isinstance(model, str):
        raise TypeError("not a render key and a model key")
    return code, model, keys_from(lines)


def units_data_of(lines: str) -> Callable[[list[Unit]], tuple[Any, ...]]:
    """What the memo keeps of page units made from the lines of key ``lines``: the key, then
    each unit."""
    return lambda units: (lines, *units_data(units))


def units_from_data(data: Any) -> tuple[str, list[Unit]]:
    """The lines key and page units :func:`units_data_of` kept."""
    lines, *units = data
    if not isinstance(lines, str):
        raise TypeError("not a lines key")
    return lines, units_from(units)


def keys_data(keys: Mapping[str, str]) -> tuple[tuple[str, str], ...]:
    """A dict of strings (part keys, file hashes) as the memo keeps it: its items."""
    return tuple(keys.items())


def keys_from(data: Any) -> dict[str, str]:
    """A dict of strings kept as its items (part keys, file hashes, line hashes; TypeError or
    ValueError when ``data`` is not such a value)."""
    keys = dict(data)
    if not all(isinstance(k, str) and isinstance(v, str) for k, v in keys.items()):
        raise TypeError("not part keys")
    return keys


def home_data(home: tuple[Page, list[str]]) -> tuple[tuple[str, str], tuple[str, ...]]:
    """The home page's summary and the paths of the record pages it lists, as strings."""
    return pages_data([home[0]])[0], tuple(home[1])


def home_from(data: Any) -> tuple[Page, list[str]]:
    """What :func:`home_data` gave ``data`` for (TypeError or ValueError when it is not such
    a value)."""
    page, paths = data
    if not all(isinstance(p, str) for p in paths):
        raise TypeError("not paths")
    return pages_from([page])[0], list(paths)


def pages_data(pages: Iterable[Page]) -> tuple[tuple[str, str], ...]:
    """``pages`` as tuples of strings (path, content; plain ``str``: :mod:`marshal` writes no
    subclass such as ``Markup``)."""
    return tuple((str.__str__(p.path), str.__str__(p.content)) for p in pages)


def pages_from(data: Any) -> list[Page]:
    """The pages :func:`pages_data` gave ``data`` for (TypeError when it is not such a
    value)."""
    pages = []
    for path, content in data:
        if not (isinstance(path, str) and isinstance(content, str)):
            raise TypeError("not a page")
        pages.append(Page(path, content))
    return pages
