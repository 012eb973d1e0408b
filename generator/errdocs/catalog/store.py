"""The catalogue on disk: ``.errdocs/catalog.sqlite`` (the standard library's ``sqlite3``).

What the scan learns about the inputs, kept between runs:

- ``records``: one row per record line validated without any problem (by the hash of its JSON
  line): id, repository, slug, message, pattern, class, tags, category, analysis time, file
  and line, what it means cut to a meta description's length, and the digest of its content.
  A line whose hash is here is not parsed or validated again.
- ``inputs`` and ``lines``: every uncompressed JSON Lines input read without any problem, by
  its size, modification time and a hash of its bytes, with where each of its record lines is
  (offset, size, line number, line hash). An input whose three are unchanged is not read
  line by line at all: its records are taken from here.
- ``memo_patterns`` and ``memo_templates``: what the lookup read from each pattern and message
  text (:mod:`errdocs.lookup.memo`), written by the build in a transaction of its own.

Everything here is a fact about the inputs' bytes (a line's hash, a file's hash), never about a
build's outcome, so the scan commits it at once, in one transaction: a build that fails later
leaves a catalogue that is still true, and a kill before the commit leaves the previous one
(SQLite's journal). Rows no scan used last are dropped at the commit.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, NamedTuple

from errdocs.code import code_digest
from errdocs.errors import BuildFailed, sqlite_failure

FILE = "catalog.sqlite"
FORMAT = "2"
"""The layout; a catalogue of another is emptied (it is only a cache of the inputs)."""
BLOCK = 1 << 20
"""Bytes hashed at a time when hashing an input."""

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS records (
    hash BLOB PRIMARY KEY, id TEXT NOT NULL, repo TEXT NOT NULL, slug TEXT NOT NULL,
    message TEXT NOT NULL, pattern TEXT, analyzed_at TEXT, tags TEXT NOT NULL,
    category TEXT, class TEXT, file TEXT, line INTEGER, description TEXT NOT NULL,
    digest TEXT NOT NULL, dataset_version TEXT, error_type TEXT, severity TEXT, handling TEXT,
    used INTEGER NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS inputs (
    path TEXT PRIMARY KEY, size INTEGER NOT NULL, mtime_ns INTEGER NOT NULL,
    blocks BLOB NOT NULL, used INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS lines (
    path TEXT NOT NULL, seq INTEGER NOT NULL, hash BLOB NOT NULL, offset INTEGER NOT NULL,
    size INTEGER NOT NULL, line INTEGER NOT NULL, PRIMARY KEY (path, seq)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS memo_patterns (
    text TEXT NOT NULL, browser INTEGER NOT NULL, facts TEXT NOT NULL,
    PRIMARY KEY (text, browser)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS memo_templates (
    text TEXT PRIMARY KEY, words TEXT NOT NULL, chars INTEGER NOT NULL) WITHOUT ROWID
"""
_TABLES = ("meta", "records", "inputs", "lines", "memo_patterns", "memo_templates")


class Cached(NamedTuple):
    """What a clean record's line gave when it was validated."""

    id: str
    repo: str
    slug: str
    error_message: str
    message_pattern: str | None
    analyzed_at: str | None
    tags: tuple[str, ...]
    background_tag: str | None
    error_class: str | None
    file_path: str | None
    line_number: int | None
    description: str
    digest: str
    dataset_version: str | None
    error_type: str | None
    severity: str | None
    handling_strategy: str | None


class Placed(NamedTuple):
    """A record line of an unchanged input, as the catalogue has it."""

    key: bytes
    """The hash of its JSON line."""
    offset: int
    """Where its JSON text starts in the file."""
    size: int
    """Its length in bytes."""
    line: int
    """The 1-based line it starts on."""
    fields: Cached
    """What it gave."""


class Stamp(NamedTuple):
    """What tells an input file's bytes apart."""

    size: int
    mtime_ns: int
    blocks: bytes
    """A hash of its bytes, read :data:`BLOCK` at a time."""


class CatalogueError(BuildFailed):
    """The catalogue cannot be read or written (not a database, a full disk...)."""


def stamp_of(path: Path) -> Stamp:
    """The size, modification time and hash of the bytes of ``path``."""
    info = path.stat()
    digest = hashlib.blake2b(digest_size=16)
    with path.open("rb") as handle:
        while block := handle.read(BLOCK):
            digest.update(block)
    return Stamp(info.st_size, info.st_mtime_ns, digest.digest())


class Catalogue:
    """The catalogue, opened for one scan. Writable: every change is in one transaction that
    :meth:`commit` ends; read-only (``keep=False``, as ``lookup`` opens it, holding no lock):
    nothing is ever written, and a missing catalogue is an empty one."""

    def __init__(self, work_dir: Path, *, keep: bool = True) -> None:
        self.path = work_dir / FILE
        self.keep = keep
        self._db: sqlite3.Connection | None = None
        self.run = 0
        self._expected: dict[bytes, Cached] = {}
        """The records of an input's lines when it was last read (:meth:`expect`)."""
        self._used: list[bytes] = []
        """Lines found in :attr:`_expected`, marked used at the commit (at once)."""
        try:
            self._open(work_dir)
        except sqlite3.DatabaseError as exc:
            self.close()
            if not keep:
                return  # a lookup does without it
            if sqlite_failure(exc, self.path) is not None:
                raise self._failed(exc) from exc
            # Not a database errdocs can read (damaged, or another file put there): it is only
            # a cache of the inputs, in errdocs' own folder, so it is made again.
            self.path.unlink()
            try:
                self._open(work_dir)
            except sqlite3.Error as again:
                self.close()
                raise self._failed(again) from again

    def _open(self, work_dir: Path) -> None:
        if self.keep:
            work_dir.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(self.path, isolation_level=None)
            self._db.execute("BEGIN IMMEDIATE")
            self._prepare()
        elif self.path.is_file():
            self._db = sqlite3.connect(f"{self.path.resolve().as_uri()}?mode=ro", uri=True,
                                       isolation_level=None)
            if self._format() != _made_by():
                self.close()
        self.run = self._run()

    def _prepare(self) -> None:
        assert self._db is not None
        if self._format() not in (None, _made_by()):
            for table in _TABLES:
                self._db.execute(f"DROP TABLE IF EXISTS {table}")
        for statement in _SCHEMA.split(";"):
            self._db.execute(statement)
        self._db.execute("INSERT OR REPLACE INTO meta VALUES ('format', ?)", (_made_by(),))

    def _format(self) -> str | None:
        """The layout and code of the errdocs that made the catalogue (:func:`_made_by`)."""
        assert self._db is not None
        try:
            row = self._db.execute("SELECT value FROM meta WHERE key = 'format'").fetchone()
        except sqlite3.OperationalError:  # no table yet
            return None
        return None if row is None else str(row[0])

    def _run(self) -> int:
        """This scan's number: rows it uses are marked with it, the others dropped."""
        if self._db is None:
            return 0  # (a memo's transaction bumps it too: only its order counts)
        row = self._db.execute("SELECT value FROM meta WHERE key = 'run'").fetchone()
        run = int(row[0]) + 1 if row else 1
        if self.keep:
            self._db.execute("INSERT OR REPLACE INTO meta VALUES ('run', ?)", (str(run),))
        return run

    @property
    def db(self) -> sqlite3.Connection | None:
        """The connection (``None`` when read-only and there is no catalogue)."""
        return self._db

    def meta(self, key: str) -> str | None:
        """A value of the ``meta`` table."""
        if self._db is None:
            return None
        row = self._db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def known(self, key: bytes) -> Cached | None:
        """What the clean line hashed ``key`` gave, if it was seen before (and marks it used)."""
        if self._db is None:
            return None
        expected = self._expected.get(key)
        if expected is not None:
            if self.keep:
                self._used.append(key)
            return expected
        row = self._db.execute(f"SELECT {_FIELDS} FROM records WHERE hash = ?",
                               (key,)).fetchone()
        if row is None:
            return None
        if self.keep:
            self._db.execute("UPDATE records SET used = ? WHERE hash = ?", (self.run, key))
        return _cached(row)

    def add(self, key: bytes, fields: Cached) -> None:
        """Remember a line validated without any problem."""
        if self.keep:
            assert self._db is not None
            self._db.execute("INSERT OR REPLACE INTO records VALUES "
                             "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                             (key, *fields[:6], json.dumps(fields.tags), *fields[7:],
                              self.run))

    def expect(self, path: Path | None) -> None:
        """``path`` changed and is about to be read: what its lines gave when it was last
        read is looked up at once (one query, not one a line; most lines of a refreshed input
        are the same). Only for this input: the next call replaces it (``None``: forgets it,
        once the input is read)."""
        self._expected = {}
        if self._db is None or path is None:
            return
        columns = ", ".join(f"r.{column}" for column in _FIELDS.split(", "))
        rows = self._db.execute(
            f"SELECT l.hash, {columns} FROM lines AS l JOIN records AS r ON r.hash = l.hash "
            "WHERE l.path = ?", (str(path.resolve()),)).fetchall()
        self._expected = {r[0]: _cached(r[1:]) for r in rows}

    def unchanged(self, path: Path, stamp: Stamp) -> list[Placed] | None:
        """The record lines of ``path`` when it was read before without any problem and its
        bytes are the same (and marks them used); ``None`` otherwise."""
        if self._db is None:
            return None
        name = str(path.resolve())
        row = self._db.execute("SELECT size, mtime_ns, blocks FROM inputs WHERE path = ?",
                               (name,)).fetchone()
        if row is None or Stamp(*row) != stamp:
            return None
        columns = ", ".join(f"r.{column}" for column in _FIELDS.split(", "))
        rows = self._db.execute(
            f"SELECT l.hash, l.offset, l.size, l.line, {columns} FROM lines AS l "
            "JOIN records AS r ON r.hash = l.hash WHERE l.path = ? ORDER BY l.seq",
            (name,)).fetchall()
        count = self._db.execute("SELECT count(*) FROM lines WHERE path = ?",
                                 (name,)).fetchone()[0]
        if len(rows) != count:
            return None  # a line's record is gone: read the file
        if self.keep:
            self._db.execute("UPDATE inputs SET used = ? WHERE path = ?", (self.run, name))
            self._db.execute("UPDATE records SET used = ? WHERE hash IN "
                             "(SELECT hash FROM lines WHERE path = ?)", (self.run, name))
        return [Placed(r[0], r[1], r[2], r[3], _cached(r[4:])) for r in rows]

    def read_clean(self, path: Path, stamp: Stamp,
                   lines: list[tuple[bytes, int, int, int]]) -> None:
        """``path`` was read without any problem: remember its stamp and its record lines
        (hash, offset, size, line), so that next time it need not be read."""
        if not self.keep:
            return
        assert self._db is not None
        name = str(path.resolve())
        self._db.execute("DELETE FROM lines WHERE path = ?", (name,))
        self._db.execute("INSERT OR REPLACE INTO inputs VALUES (?, ?, ?, ?, ?)",
                         (name, *stamp, self.run))
        self._db.executemany("INSERT INTO lines VALUES (?, ?, ?, ?, ?, ?)",
                             ((name, seq, *line) for seq, line in enumerate(lines)))

    @contextmanager
    def writing(self) -> Iterator[None]:
        """Say a failure of SQLite inside the block as :meth:`_failed` does."""
        try:
            yield
        except sqlite3.Error as exc:
            raise self._failed(exc) from exc

    def commit(self, *, prune: bool = True) -> None:
        """Keep what was written; ``prune``: drop first the records and inputs this scan did
        not use."""
        if self._db is None or not self.keep:
            self.close()
            return
        try:
            self._db.executemany("UPDATE records SET used = ? WHERE hash = ?",
                                 ((self.run, key) for key in self._used))
            self._used.clear()
            if prune:
                self._db.execute("DELETE FROM records WHERE used <> ?", (self.run,))
                self._db.execute("DELETE FROM lines WHERE path IN "
                                 "(SELECT path FROM inputs WHERE used <> ?)", (self.run,))
                self._db.execute("DELETE FROM inputs WHERE used <> ?", (self.run,))
            self._db.execute("COMMIT")
        except sqlite3.Error as exc:
            raise self._failed(exc) from exc
        finally:
            self.close()

    def close(self) -> None:
        """Close it; what was not committed is undone."""
        if self._db is not None:
            self._db.close()
            self._db = None

    def _failed(self, exc: sqlite3.Error) -> Exception:
        """What the operating system refused, as an OSError; else a damaged catalogue."""
        return sqlite_failure(exc, self.path) or CatalogueError(
            f"{self.path}: {exc}; delete it (it is a cache: the next build reads every record "
            "again)")

    def __enter__(self) -> Catalogue:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()


_FIELDS = ("id, repo, slug, message, pattern, analyzed_at, tags, category, class, file, line, "
           "description, digest, dataset_version, error_type, severity, handling")


def _cached(row: tuple[Any, ...]) -> Cached:
    """A row of :data:`_FIELDS` (tags as a JSON list)."""
    return Cached._make((*row[:6], tuple(json.loads(row[6])), *row[7:]))


def _made_by() -> str:
    """The layout and the code (:func:`errdocs.code.code_digest`) the rows are made by: the
    light fields of a record (its description, the tags its pages show), the lookup's reading
    of a pattern are errdocs' derivations, so another errdocs, older or newer, empties the
    catalogue rather than reuse them (its next build is a cold build's)."""
    return f"{FORMAT}:{code_digest()}"
