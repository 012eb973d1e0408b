"""The good records a scan found (light copies: what the catalogue, the search data and the
plan read), kept out of the build process's memory.

As objects, every record's light copy stayed in memory from the scan to the build's end: ~1.6
KB a record, 490 MB of the build process at 310,000 records (bench/README, "Session 33"). Here
they are rows of a private temporary SQLite database (deleted when closed or when the process
ends), each record's fields packed with :mod:`marshal`, and a step reads them back in input order
(:meth:`Lights.__iter__`) or by id (:meth:`Lights.many`), a batch at a time. The values that
repeat across records (repositories, tags, categories, classes, files) are kept once, in
memory, and every record read back shares them.
"""

from __future__ import annotations

import marshal
import sqlite3
import tempfile
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from itertools import islice
from typing import Any, overload

from errdocs.catalog.packing import Numbered
from errdocs.catalog.store import unshared
from errdocs.errors import BuildFailed, sqlite_failure
from errdocs.records.record import Origin, Record


@dataclass(frozen=True, slots=True)
class Light:
    """A good record as pass 1 keeps it."""

    record: Record
    """A light Record: only the fields the catalogue and the lookup data use are set."""
    line_hash: str
    """Hash of the record's JSON line: changes whenever anything in the record changes."""
    source: int
    """Index into :attr:`errdocs.catalog.scan.Scan.sources` of the JSON Lines file holding it."""
    offset: int
    """Byte offset of its JSON text in that file."""
    size: int
    """Length of its JSON text in bytes."""
    digest: bytes
    """A digest of the record's content without its envelope: a new ``datasetVersion`` alone
    does not change it (the history compares records by it)."""


BATCH = 500
"""Rows read or written at a time (SQLite takes at most 999 parameters in older versions)."""

_Packed = tuple[Any, ...]
"""A light copy's fields as :func:`marshal.dumps` packs them (:meth:`Lights._pack`)."""


class Lights(Sequence[Light]):
    """The light copies of a scan's good records, in input order."""

    def __init__(self, lights: Iterable[Light] = ()) -> None:
        try:
            # "": a private database on disk (SQLite's temporary folder), removed when closed;
            # only its page cache (2 MB) is in memory. A build's main process alone uses it.
            self._db = sqlite3.connect("", check_same_thread=False, isolation_level=None)
            self._db.executescript(
                "PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF;"
                "CREATE TABLE lights (seq INTEGER PRIMARY KEY, id TEXT NOT NULL,"
                " line TEXT NOT NULL, data BLOB NOT NULL)")
        except sqlite3.Error as exc:
            raise _failed(exc) from exc
        self._strings = Numbered()
        """The values that repeat across records, by number (what a row holds of them; 0 for
        none)."""
        self._pending: list[tuple[int, str, str, bytes]] = []
        self._count = 0
        self._indexed = False
        self.extend(lights)

    def append(self, light: Light) -> None:
        """Add ``light`` after the others."""
        record = light.record
        self._pending.append((self._count, record.id, light.line_hash,
                              marshal.dumps(self._pack(light))))
        self._count += 1
        if len(self._pending) >= BATCH:
            self._flush()

    def extend(self, lights: Iterable[Light]) -> None:
        for light in lights:
            self.append(light)

    def settle(self) -> None:
        """Once every record is added: the table that numbers the values as they are added
        goes (~25 MB at 310,000 records; made again should one more be added)."""
        self._strings.settle()

    def where(self, keep: Callable[[Light], bool]) -> Lights:
        """The light copies ``keep`` is true of, in the same order (a new store)."""
        kept = Lights(x for x in self if keep(x))
        kept.settle()
        return kept

    def __len__(self) -> int:
        return self._count

    def __iter__(self) -> Iterator[Light]:
        yield from self._read("SELECT id, line, data FROM lights ORDER BY seq", ())

    def lines(self) -> Iterator[tuple[str, str]]:
        """Each record's id and line hash, in order (quicker than the light copies: a step
        that reads only these makes no record)."""
        yield from self._rows("SELECT id, line FROM lights ORDER BY seq", ())

    @overload
    def __getitem__(self, index: int) -> Light: ...

    @overload
    def __getitem__(self, index: slice) -> list[Light]: ...

    def __getitem__(self, index: int | slice) -> Light | list[Light]:
        if isinstance(index, slice):
            return list(self)[index]
        number = index + self._count if index < 0 else index
        if not 0 <= number < self._count:
            raise IndexError(index)
        return next(self._read("SELECT id, line, data FROM lights WHERE seq = ?", (number,)))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Lights):
            return NotImplemented
        return len(self) == len(other) and all(a == b for a, b in zip(self, other, strict=True))

    __hash__ = None  # type: ignore[assignment]  # (mutable, as a list)

    def get(self, record_id: str) -> Light | None:
        """The light copy of the record ``record_id``, or ``None``."""
        return next(iter(self.many([record_id])), None)

    def many(self, record_ids: Iterable[str]) -> Iterator[Light]:
        """The light copies of ``record_ids`` (those there are), in that order, read
        :data:`BATCH` at a time."""
        self._index()
        ids = iter(record_ids)
        while batch := list(islice(ids, BATCH)):
            marks, values = _among(batch)
            found = {x.record.id: x for x in self._read(
                f"SELECT id, line, data FROM lights WHERE id IN ({marks})", values)}
            yield from (found[i] for i in batch if i in found)

    def line_hashes(self, record_ids: Iterable[str]) -> dict[str, str]:
        """The line hash of each of ``record_ids`` there is, read :data:`BATCH` at a time
        without making the records."""
        self._index()
        ids = iter(record_ids)
        found: dict[str, str] = {}
        while batch := list(islice(ids, BATCH)):
            marks, values = _among(batch)
            found.update(self._rows(f"SELECT id, line FROM lights WHERE id IN ({marks})", values))
        return found

    @property
    def by_id(self) -> LightsById:
        """The light copies by record id (each read when asked for)."""
        return LightsById(self)

    def close(self) -> None:
        """Remove the database (reading after raises)."""
        self._db.close()

    def _pack(self, light: Light) -> _Packed:
        r, number = light.record, self._strings.number
        return (number(r.repo), r.slug, r.error_message, r.message_pattern,
                number(r.origin.path), r.origin.line, r.analyzed_at,
                tuple(map(number, r.tags)), number(r.background_tag), number(r.error_class),
                r.documentation, number(r.file_path), r.line_number, number(r.dataset_version),
                number(r.error_type), number(r.severity), number(r.handling_strategy),
                light.source, light.offset, light.size, light.digest)

    def _unpack(self, record_id: str, line_hash: str, data: bytes) -> Light:
        # Positional, with the values that repeat taken by number: this runs for every record
        # on each step that reads them all (~6 us a record).
        (repo, slug, message, pattern, path, line, analyzed_at, tags, category, error_class,
         documentation, file_path, line_number, version, error_type, severity, handling,
         source, offset, size, digest) = marshal.loads(data)
        text = self._strings.values
        record = Record(record_id, text[repo], slug, message,
                        Origin(text[path], line), pattern,
                        text[error_type], text[error_class], None, None, text[severity],
                        text[file_path], line_number, None, None, None, None, documentation,
                        None, None, (), None, text[handling], None, None, None, (),
                        tuple([text[t] for t in tags]), text[category],
                        None, analyzed_at, None, text[version])
        return Light(record, line_hash, source, offset, size, digest)

    def _read(self, query: str, parameters: Sequence[object]) -> Iterator[Light]:
        yield from (self._unpack(*row) for row in self._rows(query, parameters))

    def _rows(self, query: str, parameters: Sequence[object]) -> Iterator[Any]:
        """The rows ``query`` gives, fetched :data:`BATCH` at a time."""
        self._flush()
        try:
            cursor = self._db.execute(query, parameters)
            while rows := cursor.fetchmany(BATCH):
                yield from rows
        except sqlite3.Error as exc:
            raise _failed(exc) from exc

    def _flush(self) -> None:
        if self._pending:
            try:
                self._db.executemany("INSERT INTO lights VALUES (?, ?, ?, ?)", self._pending)
            except sqlite3.Error as exc:
                raise _failed(exc) from exc
            self._pending = []

    def _index(self) -> None:
        """Index the ids once they are asked for (made after the rows: quicker)."""
        if not self._indexed:
            self._flush()
            try:
                self._db.execute("CREATE INDEX lights_id ON lights (id)")
            except sqlite3.Error as exc:
                raise _failed(exc) from exc
            self._indexed = True


class LightsById(Mapping[str, Light]):
    """:class:`Lights` by record id."""

    def __init__(self, lights: Lights) -> None:
        self._lights = lights

    def line_hashes(self, record_ids: Iterable[str]) -> dict[str, str]:
        """:meth:`Lights.line_hashes`."""
        return self._lights.line_hashes(record_ids)

    def __getitem__(self, record_id: str) -> Light:
        light = self._lights.get(record_id)
        if light is None:
            raise KeyError(record_id)
        return light

    def __iter__(self) -> Iterator[str]:
        return (x.record.id for x in self._lights)

    def __len__(self) -> int:
        return len(self._lights)


def _among(ids: list[str]) -> tuple[str, list[object]]:
    """The placeholders of an ``IN`` list of ``ids`` and its values, padded (with the first
    id again) to a power of two: sqlite3 keeps the last 128 statements it prepared, and one a
    count of ids (a unit's members) held ~7 MB. The ids are the catalogue's, kept to the
    build's end: bound as :func:`~errdocs.catalog.store.unshared` gives them."""
    size = 1 << (len(ids) - 1).bit_length()
    values = [unshared(i) for i in ids]
    return ",".join("?" * size), values + values[:1] * (size - len(values))


def _failed(exc: sqlite3.Error) -> Exception:
    """What the operating system refused (the temporary folder full, say), as an OSError."""
    folder = tempfile.gettempdir()
    return sqlite_failure(exc, folder) or BuildFailed(
        f"{folder}: the scan's records could not be kept in a temporary database: {exc}")
