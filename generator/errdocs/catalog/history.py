"""What earlier builds saw: the dataset versions, what each added, changed and removed, and
the addresses records left. Kept in one SQLite file per site folder
(``.errdocs/sites/ID/history.sqlite``, see :mod:`errdocs.site.state`).

A dataset version's changes are the differences between its records and those the previous
version left (the last build under it), by a digest of each record's content (the envelope's
``datasetVersion`` left out). The build's version is the ``datasetVersion`` most of its records
carry. A build under the latest version again (the same data, or data edited without a new
version) recomputes that version's changes from the same starting point: what a version
changed depends only on the history before it and on the records, never on the builds in
between, so a cold build given that history gives the same site. A new name starts a new
version.

Each build compares inside one transaction, renders the pages from the result, and commits
only once the site is in place: a failed or killed build leaves the history as it was
(SQLite's journal undoes a half-written transaction), and the next build computes the same
again. The history is never rebuilt from nothing except by an explicit reset (``errdocs build
--reset-history``); an unreadable file is an error, not a fresh start. Removed records (their
"removed" pages) and versions (their "what changed" pages) are kept for ``keep`` versions; the
addresses a living record had before are kept as long as it lives (their redirects).
"""

from __future__ import annotations

import hashlib
import json
import pickle
import sqlite3
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import BinaryIO

from errdocs.errors import ErrdocsError, sqlite_failure

HISTORY_FILE = "history.sqlite"
FORMAT = "2"
"""The layout of the file; another one is refused (with the reset that makes a new one)."""
DEFAULT_KEEP = 10
"""Versions whose "removed" and "what changed" pages the site keeps, by default."""
LIST_LIMIT = 100
"""Records a version's "what changed" page lists, of each kind (its counts are whole)."""
MESSAGE_CHARS = 300
"""A message is kept cut to this (it is shown, not searched)."""
UNVERSIONED = "unversioned"
"""The version of records whose envelope names none."""

_RECORDS = "id TEXT PRIMARY KEY, digest BLOB NOT NULL, path TEXT NOT NULL, " \
    "message TEXT NOT NULL, repo TEXT NOT NULL"
_SCHEMA = f"""
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS versions(
    seq INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, time TEXT NOT NULL,
    added INTEGER NOT NULL, changed INTEGER NOT NULL, removed INTEGER NOT NULL,
    lists TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS live({_RECORDS});
CREATE TABLE IF NOT EXISTS base({_RECORDS});
CREATE TABLE IF NOT EXISTS gone(
    id TEXT NOT NULL, seq INTEGER NOT NULL, path TEXT NOT NULL, message TEXT NOT NULL,
    repo TEXT NOT NULL, version TEXT NOT NULL, PRIMARY KEY (id, seq));
CREATE TABLE IF NOT EXISTS old_paths(
    path TEXT NOT NULL, seq INTEGER NOT NULL, id TEXT NOT NULL, PRIMARY KEY (path, seq));
"""
"""``live``: the last build's records; ``base``: those the previous version left (``live``
when the current version started); ``gone``: records each version removed; ``old_paths``: the
pages each version's records left (moved or removed)."""


_Row = tuple[str, bytes, str, str, str]
"""A record as the ``live`` and ``base`` tables hold it: id, digest, path, message (cut),
repository."""


class HistoryError(ErrdocsError):
    """The history file cannot be read or is of another layout."""

    consequence = "nothing was built"


@dataclass(frozen=True, slots=True)
class Seen:
    """A record as the history compares it."""

    id: str
    """Its id."""
    digest: bytes
    """A digest of its content (not of its envelope)."""
    path: str
    """Its page in the generated tree (``o/r/s.md``)."""
    message: str
    """Its message."""
    repo: str
    """Its repository."""


@dataclass(frozen=True)
class Listed:
    """A record in a version's lists."""

    id: str
    """Its id."""
    message: str
    """Its message then (cut)."""
    path: str
    """Its page then."""


@dataclass(frozen=True)
class Version:
    """One dataset version and what it changed."""

    seq: int
    """Its place in the history, from 1."""
    name: str
    """Its ``datasetVersion``."""
    time: str
    """When it was made (RFC 3339), for the feed."""
    added: int
    """Records it added."""
    changed: int
    """Records whose content it changed."""
    removed: int
    """Records it removed."""
    lists: dict[str, tuple[Listed, ...]]
    """``added``, ``changed``, ``removed``: at most :data:`LIST_LIMIT` of each."""


@dataclass(frozen=True)
class Gone:
    """A record that left the dataset, while the site keeps its "removed" page."""

    id: str
    """Its id."""
    path: str
    """The page it had."""
    message: str
    """Its message (cut)."""
    repo: str
    """Its repository."""
    version: str
    """The version it left in."""


@dataclass(frozen=True)
class Snapshot:
    """The history after this build's records: what the site shows of it."""

    current: Version
    """This build's version."""
    versions: tuple[Version, ...]
    """The versions kept, newest first (``current`` first)."""
    gone: tuple[Gone, ...]
    """Records removed in the versions kept, by id."""
    old_paths: tuple[tuple[str, str], ...]
    """Addresses records left (page path, id), by path: the record lives elsewhere now (a
    redirect) or was removed (a "removed" page)."""


def dataset_version(versions: Iterable[str | None]) -> str:
    """The build's version: the one most records carry (ties: the greatest)."""
    counts: dict[str, int] = {}
    for version in versions:
        if version is not None:
            counts[version] = counts.get(version, 0) + 1
    if not counts:
        return UNVERSIONED
    return max(counts, key=lambda v: (counts[v], v))


class History:
    """The history file, opened for one build: :meth:`update` in a transaction that only
    :meth:`commit` keeps (leaving the ``with`` block without it undoes everything)."""

    def __init__(self, work_dir: Path, keep: int = DEFAULT_KEEP, *, reset: bool = False) -> None:
        """Open (or create) the history; ``reset`` empties it, in the same transaction (a
        build that then fails keeps the old history)."""
        self.path = work_dir / HISTORY_FILE
        self.keep = keep
        self._record: BinaryIO | None = None
        """Where :class:`RecordedHistory` writes down :meth:`update`'s writes."""
        work_dir.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(self.path, isolation_level=None)
        try:
            self._db.execute("BEGIN IMMEDIATE")
            for statement in _SCHEMA.split(";"):
                self._db.execute(statement)
            if reset:
                for table in ("meta", "versions", "live", "base", "gone", "old_paths"):
                    self._db.execute(f"DELETE FROM {table}")
            self._check_format()
        except sqlite3.DatabaseError as exc:
            self._db.close()
            raise HistoryError(f"{self.path}: not a history errdocs can read ({exc}); "
                               "`errdocs build --reset-history` starts a new one") from exc

    def __enter__(self) -> History:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        if self._db.in_transaction:
            self._db.execute("ROLLBACK")
        self._db.close()

    def commit(self) -> None:
        """Keep what :meth:`update` did (a full disk or an I/O error said as any other)."""
        try:
            self._db.execute("COMMIT")
        except sqlite3.Error as exc:
            raise sqlite_failure(exc, self.path) or HistoryError(
                f"{self.path}: {exc}; `errdocs build --reset-history` starts a new one") from exc

    def replay(self, path: Path) -> None:
        """Make the writes a :class:`RecordedHistory`'s update wrote down in ``path`` (in a
        history as that one was when opened)."""
        with open(path, "rb") as file:
            while True:
                try:
                    statement, values = pickle.load(file)
                except EOFError:
                    return
                if values == _MANY:
                    self._db.executemany(statement, _batches(file))
                else:
                    self._db.execute(statement, values)

    def _write(self, statement: str, values: Sequence[object] = ()) -> None:
        self._db.execute(statement, values)
        if self._record is not None:
            pickle.dump((statement, tuple(values)), self._record, pickle.HIGHEST_PROTOCOL)

    def _write_many(self, statement: str, rows: Iterable[Sequence[object]]) -> None:
        if self._record is None:
            self._db.executemany(statement, rows)
            return
        pickle.dump((statement, _MANY), self._record, pickle.HIGHEST_PROTOCOL)
        self._db.executemany(statement, _teed(rows, self._record))

    def _check_format(self) -> None:
        row = self._db.execute("SELECT value FROM meta WHERE key = 'format'").fetchone()
        if row is None:
            self._db.execute("INSERT INTO meta VALUES ('format', ?)", (FORMAT,))
        elif row[0] != FORMAT:
            raise sqlite3.DatabaseError(f"layout {row[0]!r}, this errdocs knows {FORMAT!r}")

    def update(self, name: str, time: str, records: Iterable[Seen]) -> Snapshot:
        """The history with ``records`` (this build's) as version ``name``."""
        rows = [(r.id, r.digest, r.path, _cut(r.message), r.repo) for r in records]
        # The same records under the same version and keep as last time (a rebuild): nothing
        # to compare. A digest of them all costs a fraction of comparing them.
        state = _state(name, time, self.keep, rows)
        if self._meta("state") == state:
            return self._snapshot(int(self._meta("seq") or 0), rows)
        seq, new = self._version(name, time)
        if new:  # the previous version's records are where this one starts from
            self._write("DELETE FROM base")
            self._write("INSERT INTO base SELECT * FROM live")
        self._changes(seq, name, rows)
        self._keep_live(rows)
        self._forget(seq - self.keep + 1)
        self._write_many("INSERT OR REPLACE INTO meta VALUES (?, ?)",
                             (("state", state), ("seq", str(seq))))
        return self._snapshot(seq, rows)

    def _meta(self, key: str) -> str | None:
        row = self._db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def _version(self, name: str, time: str) -> tuple[int, bool]:
        """The seq of version ``name``, and whether it is new (else the latest one again)."""
        db = self._db
        latest = db.execute("SELECT seq, name FROM versions ORDER BY seq DESC LIMIT 1").fetchone()
        if latest is not None and latest[1] == name:
            self._write("UPDATE versions SET time = ? WHERE seq = ?", (time, latest[0]))
            return int(latest[0]), False
        self._write("DELETE FROM versions WHERE name = ?", (name,))  # an older name again
        seq = (int(latest[0]) if latest else 0) + 1
        self._write("INSERT INTO versions VALUES (?, ?, ?, 0, 0, 0, '{}')", (seq, name, time))
        return seq, True

    def _changes(self, seq: int, name: str, rows: list[_Row]) -> None:
        """Version ``seq``'s changes, made again from ``base`` (one read, compared in Python):
        its counts and lists, the records it removed and the pages its records left."""
        db = self._db
        before = {r[0]: r for r in db.execute("SELECT * FROM base")}
        added: list[_Row] = []
        changed: list[_Row] = []
        left: list[tuple[str, int, str]] = []
        for row in rows:
            known = before.pop(row[0], None)
            if known is None:
                added.append(row)
                continue
            if known[1] != row[1]:
                changed.append(row)
            if known[2] != row[2]:
                left.append((known[2], seq, row[0]))
        removed = list(before.values())
        del before
        left += [(r[2], seq, r[0]) for r in removed]
        self._write("DELETE FROM gone WHERE seq = ?", (seq,))
        self._write_many("INSERT INTO gone VALUES (?, ?, ?, ?, ?, ?)",
                       ((r[0], seq, r[2], r[3], r[4], name) for r in removed))
        self._write("DELETE FROM old_paths WHERE seq = ?", (seq,))
        self._write_many("INSERT INTO old_paths VALUES (?, ?, ?)", left)
        lists = {kind: [[r[0], r[3], r[2]] for r in sorted(found, key=lambda r: (r[3], r[0]))
                        [:LIST_LIMIT]]
                 for kind, found in (("added", added), ("changed", changed),
                                     ("removed", removed))}
        self._write("UPDATE versions SET added = ?, changed = ?, removed = ?, lists = ? "
                   "WHERE seq = ?", (len(added), len(changed), len(removed),
                                     json.dumps(lists, ensure_ascii=False), seq))

    def _keep_live(self, rows: list[_Row]) -> None:
        """Make ``live`` this build's records, writing only the rows that differ."""
        db = self._db
        before = {i: (d, p) for i, d, p in db.execute("SELECT id, digest, path FROM live")}
        fresh = []
        for row in rows:
            known = before.pop(row[0], None)
            if known is None or known != (row[1], row[2]):
                fresh.append(row)
        self._write_many("DELETE FROM live WHERE id = ?", ((i,) for i in before))
        self._write_many("INSERT OR REPLACE INTO live VALUES (?, ?, ?, ?, ?)", fresh)

    def _forget(self, oldest: int) -> None:
        """Drop the versions before ``oldest`` and what they removed; the pages a living
        record left stay (its redirects)."""
        self._write("DELETE FROM versions WHERE seq < ?", (oldest,))
        self._write("DELETE FROM gone WHERE seq < ?", (oldest,))
        self._write("DELETE FROM old_paths WHERE seq < ? AND id NOT IN (SELECT id FROM live)",
                   (oldest,))

    def _snapshot(self, seq: int, rows: list[_Row]) -> Snapshot:
        """What the site shows: the versions kept; of each record removed and not back, its
        latest removal; of each page left and not a page again, its latest record."""
        db = self._db
        versions = tuple(_version_of(row) for row in db.execute(
            "SELECT * FROM versions ORDER BY seq DESC"))
        live = {r[0] for r in rows}
        latest_gone: dict[str, Gone] = {}
        for row in db.execute("SELECT id, path, message, repo, version FROM gone ORDER BY seq"):
            if row[0] not in live:
                latest_gone[row[0]] = Gone(*row)
        pages = {r[2] for r in rows}
        latest_left = {p: i for p, i in db.execute(
            "SELECT path, id FROM old_paths ORDER BY seq") if p not in pages}
        current = next(v for v in versions if v.seq == seq)
        return Snapshot(current, versions, tuple(latest_gone[i] for i in sorted(latest_gone)),
                        tuple(sorted(latest_left.items())))


class RecordedHistory(History):
    """A history whose :meth:`update` also writes down its writes (each statement and its
    values) in ``to``, for :meth:`History.replay` to make them again in the history opened
    by another process: a build prepared in a child process, whose transaction ends with it,
    keeps the history once the site is in place. Its writes, not its input: made again from
    the records, the update held every record twice in the build process (+13 MB of its RSS
    at the build's end at 20,000 records, against none now)."""

    def __init__(self, work_dir: Path, keep: int = DEFAULT_KEEP, *, reset: bool = False,
                 to: Path) -> None:
        super().__init__(work_dir, keep, reset=reset)
        self.to = to
        """The file the update's writes are written to (only once it runs)."""

    def update(self, name: str, time: str, records: Iterable[Seen]) -> Snapshot:
        with open(self.to, "wb") as self._record:
            try:
                return super().update(name, time, records)
            finally:
                self._record = None


_MANY = "many"
"""In a record of writes: the statement's values follow, a batch at a time, then ``[]``."""
_BATCH = 4096
"""Rows of an ``executemany`` written down together."""


def _teed(rows: Iterable[Sequence[object]], file: BinaryIO) -> Iterator[Sequence[object]]:
    """``rows``, also pickled to ``file`` a batch at a time as they pass, then ``[]``."""
    batch: list[Sequence[object]] = []
    for row in rows:
        batch.append(tuple(row))
        if len(batch) == _BATCH:
            pickle.dump(batch, file, pickle.HIGHEST_PROTOCOL)
            batch = []
        yield row
    if batch:
        pickle.dump(batch, file, pickle.HIGHEST_PROTOCOL)
    pickle.dump([], file, pickle.HIGHEST_PROTOCOL)


def _batches(file: BinaryIO) -> Iterator[Sequence[object]]:
    while batch := pickle.load(file):
        yield from batch


def _version_of(row: tuple[object, ...]) -> Version:
    seq, name, time, added, changed, removed, lists = row
    parsed = json.loads(str(lists))
    return Version(int(seq), str(name), str(time), int(added), int(changed),  # type: ignore[call-overload]
                   int(removed),  # type: ignore[call-overload]
                   {kind: tuple(Listed(*item) for item in parsed.get(kind, ()))
                    for kind in ("added", "changed", "removed")})


def _state(name: str, time: str, keep: int, rows: list[_Row]) -> str:
    """A digest of one build's input to the history."""
    digest = hashlib.blake2b(json.dumps([FORMAT, name, time, keep]).encode(), digest_size=16)
    for record_id, content, path, message, repo in rows:
        digest.update(b"\0".join((record_id.encode(), content, path.encode(), message.encode(),
                                  repo.encode())) + b"\1")
    return digest.hexdigest()


def _cut(message: str) -> str:
    return message if len(message) <= MESSAGE_CHARS else message[:MESSAGE_CHARS] + "…"
