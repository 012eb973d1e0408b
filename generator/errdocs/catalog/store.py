"""The catalogue on disk: ``.errdocs/catalog.sqlite`` (the standard library's ``sqlite3``).

What the scan learns about the inputs, kept between runs:

- ``records``: one row per record line validated without any problem (by the hash of its JSON
  line): id, repository, slug, message, pattern, class, tags, category, analysis time, file
  and line, what it means cut to a meta description's length, and the digest of its content.
  A line whose hash is here is not parsed or validated again. Rows are kept in the order they
  were added, the inputs' order, and found by hash through an index: an unchanged input's
  lines are joined with their records reading the table nearly in order (a table ordered by
  hash was read at random: 7 s instead of 5 s at 310,000 records).
- ``inputs`` and ``lines``: every uncompressed JSON Lines input read without any problem, by
  what the file system says of it (size, modification and change times, inode, device: its
  :class:`Stat`), with where each of its record lines is (offset, size, line number, line
  hash). An input whose stat is unchanged is not read at all: its records are taken from here
  (git's rule for its index). A stat cannot tell two writes apart within the clock's tick: an
  input read within :data:`RACY_NS` of a change to it is also kept by a hash of its bytes,
  and its bytes are hashed again before it is trusted.
- ``memo_patterns``: what the lookup read from each pattern's text (:mod:`errdocs.lookup.memo`),
  written by the build in a transaction of its own.
- ``units``: what each unit's output was built from (:mod:`errdocs.units.state`), a fact about
  an output on disk, written by the build in transactions of their own: removed before the
  output is touched and written once it is complete.
- ``journal``: the pages an unfinished build may have rewritten (:mod:`errdocs.site.journal`),
  written by the build before its units write, removed once they are all built.

Everything else here is a fact about the inputs' bytes (a line's hash, a file's hash), never about a
build's outcome, so the scan commits it at once, in one transaction: a build that fails later
leaves a catalogue that is still true, and a kill before the commit leaves the previous one
(SQLite's journal). Rows no scan used last are dropped at the commit: inputs it did not look
at, with their lines, and records no kept line holds and no other line read used.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import closing, contextmanager
from pathlib import Path
from typing import Any, NamedTuple

from errdocs.code import code_digest
from errdocs.errors import BuildFailed, sqlite_failure

FILE = "catalog.sqlite"
FORMAT = "7"
"""The layout; a catalogue of another is emptied (it is only a cache of the inputs and of what
the units' outputs were built from: their units are built again)."""
BLOCK = 1 << 20
"""Bytes hashed at a time when hashing an input."""
RACY_NS = 2_000_000_000
"""An input changed this close (2 s) before a scan looked at it may be written again without
its stat changing (file systems keep times in ticks, of up to 2 s on some)."""
BATCH = 500
"""Line hashes looked up in one query (SQLite takes at most 999 parameters in older
versions)."""
JOIN_CACHE_KIB = 65536
"""SQLite's page cache while a scan joins an unchanged input's lines with their records,
found by hash all over the table (64 MiB: 5 s instead of 7 s at 310,000 records); given back
once the lines are taken (:meth:`Catalogue.unchanged`)."""
CACHE_KIB = 2048
"""SQLite's page cache otherwise (its default): every other use reads or writes its rows
once, in order (the memo's rows a block at a time, its sweep of every model row, the lookup
memo's rows), or looks up a few hundred at a time (a changed input's lines by hash: 13.6 s
with it, 13.4 s with 64 MiB, at 310,000 records). Filled, a 64 MiB cache stayed in the heap
once freed: the memo's sweep alone left 47 MB (sampled at 310,000 records, at the
preparation's end); a refresh's scan 27 MB at its filter data's end (598 MB against 572)."""

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS records (
    hash BLOB NOT NULL UNIQUE, id TEXT NOT NULL, repo TEXT NOT NULL, slug TEXT NOT NULL,
    message TEXT NOT NULL, pattern TEXT, analyzed_at TEXT, category TEXT, class TEXT,
    file TEXT, line INTEGER, description TEXT NOT NULL, digest TEXT NOT NULL,
    dataset_version TEXT, error_type TEXT, severity TEXT, handling TEXT, tags TEXT NOT NULL,
    used INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS inputs (
    path TEXT PRIMARY KEY, size INTEGER NOT NULL, mtime_ns INTEGER NOT NULL,
    ctime_ns INTEGER NOT NULL, inode INTEGER NOT NULL, device INTEGER NOT NULL,
    looked_ns INTEGER NOT NULL, blocks BLOB, used INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS lines (
    path TEXT NOT NULL, seq INTEGER NOT NULL, hash BLOB NOT NULL, offset INTEGER NOT NULL,
    size INTEGER NOT NULL, line INTEGER NOT NULL, PRIMARY KEY (path, seq)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS memo_patterns (
    text TEXT NOT NULL, browser INTEGER NOT NULL, facts TEXT NOT NULL,
    PRIMARY KEY (text, browser)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS units (
    name TEXT PRIMARY KEY, key TEXT NOT NULL, global TEXT NOT NULL, render TEXT NOT NULL,
    pages TEXT NOT NULL, lines TEXT NOT NULL, searchable INTEGER NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS journal (
    page TEXT NOT NULL, key BLOB NOT NULL, PRIMARY KEY (page, key)) WITHOUT ROWID
"""
_TABLES = ("meta", "records", "inputs", "lines", "memo_patterns", "memo_templates", "units",
           "journal", "model_entries", "model_groups", "model_links")
"""Emptied with another layout. The ``model_`` tables are the memo's
(:mod:`errdocs.catalog.rows`): another errdocs' may have other columns. ``memo_templates`` is
an earlier errdocs' (the lookup's memo of message templates), dropped with the rest."""


class Cached(NamedTuple):
    """What a clean record's line gave when it was validated."""

    id: str
    repo: str
    slug: str
    error_message: str
    message_pattern: str | None
    analyzed_at: str | None
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
    tags: tuple[str, ...]
    """Last: the one column decoded (a JSON list)."""


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


class Stat(NamedTuple):
    """What the file system says of an input file: writing its bytes changes one of these (its
    change time at least), unless within :data:`RACY_NS` of the last write."""

    size: int
    mtime_ns: int
    ctime_ns: int
    inode: int
    device: int


class Look(NamedTuple):
    """An input file as a scan found it, before reading it."""

    stat: Stat
    at_ns: int
    """The clock just before the stat: a write after it leaves the file a later time."""

    @property
    def racy(self) -> bool:
        """Changed so close to the look that a later write may leave the same stat."""
        return max(self.stat.mtime_ns, self.stat.ctime_ns) > self.at_ns - RACY_NS


class CatalogueError(BuildFailed):
    """The catalogue cannot be read or written (not a database, a full disk...)."""


def stat_of(path: Path) -> Stat:
    """What the file system says of ``path``."""
    info = path.stat()
    return Stat(info.st_size, info.st_mtime_ns, info.st_ctime_ns, info.st_ino, info.st_dev)


def look(path: Path) -> Look:
    """The stat of ``path`` and when it was taken."""
    at_ns = time.time_ns()
    return Look(stat_of(path), at_ns)


def blocks_of(path: Path) -> bytes:
    """A hash of the bytes of ``path``."""
    digest = hashlib.blake2b(digest_size=16)
    with path.open("rb") as handle:
        while block := handle.read(BLOCK):
            digest.update(block)
    return digest.digest()


def still_as_read(work: Path, paths: Iterable[Path]) -> bool:
    """Whether each of ``paths`` has the stat the last scan kept for it and still holds the
    bytes it read then (their hash, kept as the scan found the stat racy). False when the
    catalogue cannot tell: no row, no hash, or no catalogue to read."""
    try:
        uri = f"{(work / FILE).as_uri()}?mode=ro"
        with closing(sqlite3.connect(uri, uri=True)) as db:
            for path in paths:
                row = db.execute("SELECT size, mtime_ns, ctime_ns, inode, device, blocks "
                                 "FROM inputs WHERE path = ?", (str(path.resolve()),)
                                 ).fetchone()
                if (row is None or row[5] is None or Stat(*row[:5]) != stat_of(path)
                        or blocks_of(path) != row[5]):
                    return False
    except (sqlite3.Error, OSError):
        return False
    return True


class Catalogue:
    """The catalogue, opened for one scan. Writable: every change is in one transaction that
    :meth:`commit` ends; read-only (``keep=False``, as ``lookup`` opens it, holding no lock):
    nothing is ever written, and a missing catalogue is an empty one."""

    def __init__(self, work_dir: Path, *, keep: bool = True) -> None:
        self.path = work_dir / FILE
        self.keep = keep
        self._db: sqlite3.Connection | None = None
        self.run = 0
        self._dropped = False
        """Lines went (an input's replaced, or those of an input not looked at): records may
        be left that no kept line holds."""
        self._loose = False
        """Records were used by lines not kept (:meth:`used`)."""
        try:
            self._open(work_dir)
        except sqlite3.DatabaseError as exc:
            self.close()
            if not keep:
                return  # a lookup does without it
            if sqlite_failure(exc, self.path) is not None:
                raise self._failed(exc) from exc
            # Not a database errdocs can read (damaged, or another file put there): it is only
            # a cache (of the inputs, and of which units are built: without rows they are built
            # again), in errdocs' own folder, so it is made again.
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
        if self._db is not None:
            self._db.execute(f"PRAGMA cache_size = -{CACHE_KIB}")
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

    def known(self, keys: Iterable[bytes]) -> dict[bytes, Cached]:
        """What the clean lines hashed ``keys`` gave, for those seen before: :data:`BATCH`
        keys a query (a refreshed input's lines are mostly known; one query a line cost 5 s
        at 20,000 records)."""
        found: dict[bytes, Cached] = {}
        if self._db is None:
            return found
        wanted = list(keys)
        for start in range(0, len(wanted), BATCH):
            part = wanted[start:start + BATCH]
            rows = self._db.execute(f"SELECT hash, {_FIELDS} FROM records WHERE hash IN "
                                    f"({', '.join('?' * len(part))})", part)
            found.update((row[0], _cached(row[1:])) for row in rows)
        return found

    def add(self, key: bytes, fields: Cached) -> None:
        """Remember a line validated without any problem."""
        if self.keep:
            assert self._db is not None
            self._db.execute(f"INSERT OR REPLACE INTO records (hash, {_FIELDS}, used) VALUES "
                             f"(?, {', '.join('?' * len(fields))}, ?)",
                             (key, *map(unshared, fields[:-1]), json.dumps(fields.tags),
                              self.run))

    def used(self, keys: list[bytes]) -> None:
        """The lines hashed ``keys`` were read from an input whose lines are not kept (it has
        a problem, or is not read in place): keep their records."""
        if self.keep and keys:
            assert self._db is not None
            self._db.executemany("UPDATE records SET used = ? WHERE hash = ?",
                                 ((self.run, key) for key in keys))
            self._loose = True

    def unchanged(self, path: Path, seen: Look,
                  blocks: Callable[[], bytes]) -> Iterator[Placed] | None:
        """The record lines of ``path``, in order, when it was read before without any
        problem and its bytes are the same (and marks it used); ``None`` otherwise. ``blocks``
        hashes its bytes, called only when its stat alone does not tell. The lines are read
        as they are taken (read whole, with what each gave, they were ~700 MB at 310,000
        records): take them all before using the catalogue again."""
        if self._db is None:
            return None
        name = str(path.resolve())
        row = self._db.execute("SELECT size, mtime_ns, ctime_ns, inode, device, looked_ns, "
                               "blocks FROM inputs WHERE path = ?", (name,)).fetchone()
        if row is None or not self._same(name, Look(Stat(*row[:5]), row[5]), row[6], seen,
                                         blocks):
            return None
        joined = "FROM lines AS l JOIN records AS r ON r.hash = l.hash WHERE l.path = ?"
        self._cache(JOIN_CACHE_KIB)
        found = self._db.execute(f"SELECT count(*) {joined}", (name,)).fetchone()[0]
        count = self._db.execute("SELECT count(*) FROM lines WHERE path = ?",
                                 (name,)).fetchone()[0]
        if found != count:
            self._cache(CACHE_KIB)
            return None  # a line's record is gone: read the file
        if self.keep:
            self._db.execute("UPDATE inputs SET used = ? WHERE path = ?", (self.run, name))
        rows = self._db.execute(f"SELECT l.hash, l.offset, l.size, l.line, {_JOINED} {joined} "
                                "ORDER BY l.seq", (name,))
        return self._placed(rows)

    def _placed(self, rows: sqlite3.Cursor) -> Iterator[Placed]:
        try:
            for r in rows:
                yield Placed(r[0], r[1], r[2], r[3], _cached(r[4:]))
        finally:
            self._cache(CACHE_KIB)

    def _cache(self, kib: int) -> None:
        """SQLite's page cache made ``kib`` KiB, and what it holds beyond given back (nothing
        once closed: a scan that failed half-way through an input's lines closes it first)."""
        if self._db is not None:
            self._db.execute(f"PRAGMA cache_size = -{kib}")
            self._db.execute("PRAGMA shrink_memory")

    def _same(self, name: str, before: Look, blocks: bytes | None, now: Look,
              hashed: Callable[[], bytes]) -> bool:
        """Whether an input's bytes are those it had when it was read (``before``)."""
        if now.stat == before.stat and not before.racy:
            return True
        if blocks is None or now.stat.size != before.stat.size or hashed() != blocks:
            return False
        if self.keep:  # the same bytes: the next scan trusts this stat, once no longer racy
            assert self._db is not None
            self._db.execute("UPDATE inputs SET size = ?, mtime_ns = ?, ctime_ns = ?, "
                             "inode = ?, device = ?, looked_ns = ? WHERE path = ?",
                             (*now.stat, now.at_ns, name))
        return True

    def read_clean(self, path: Path, seen: Look, blocks: bytes | None,
                   lines: list[tuple[bytes, int, int, int]]) -> None:
        """``path`` was read without any problem, as ``seen`` before the read: remember its
        stat (and ``blocks``, the hash of the bytes read, when ``seen`` is racy) and its record
        lines (hash, offset, size, line), so that next time it need not be read."""
        if not self.keep:
            return
        assert self._db is not None
        name = str(path.resolve())
        if self._db.execute("DELETE FROM lines WHERE path = ?", (name,)).rowcount:
            self._dropped = True
        self._db.execute("INSERT OR REPLACE INTO inputs VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                         (name, *seen.stat, seen.at_ns, blocks, self.run))
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
            if prune:
                self._prune()
            self._db.execute("COMMIT")
        except sqlite3.Error as exc:
            raise self._failed(exc) from exc
        finally:
            self.close()

    def _prune(self) -> None:
        """Drop the inputs this scan did not look at with their lines, then the records no
        kept line holds that no line read by this scan used. That last needs a pass over
        every record: it is left out when no line went since the last prune, which left
        none (``tight``), as after a scan of unchanged inputs."""
        assert self._db is not None
        if self._db.execute("DELETE FROM lines WHERE path IN "
                            "(SELECT path FROM inputs WHERE used <> ?)", (self.run,)).rowcount:
            self._dropped = True
        self._db.execute("DELETE FROM inputs WHERE used <> ?", (self.run,))
        if self._dropped or self.meta("tight") != "1":
            self._db.execute("DELETE FROM records WHERE used <> ? AND hash NOT IN "
                             "(SELECT hash FROM lines)", (self.run,))
        self._db.execute("INSERT OR REPLACE INTO meta VALUES ('tight', ?)",
                         ("0" if self._loose else "1",))

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


def unshared(value: object) -> object:
    """What to bind to SQLite for ``value``, a string the build keeps: the string itself when
    ASCII, else a copy. ``sqlite3`` binds a string through its UTF-8 form, which CPython then
    keeps inside the string for its life (``sys.getsizeof`` of 150 letters and "…": 376
    bytes, 530 once bound). Light records' descriptions are cut with "…": traced at 20,000
    records, their UTF-8 copies were 3.1 MB (~160 B a record), held to the build's end. The
    copy is bound and dropped."""
    if isinstance(value, str) and not value.isascii():
        return value.encode().decode()
    return value


_FIELDS = ("id, repo, slug, message, pattern, analyzed_at, category, class, file, line, "
           "description, digest, dataset_version, error_type, severity, handling, tags")
"""The columns of a record, in the order of :class:`Cached`'s fields."""
_JOINED = ", ".join(f"r.{column}" for column in _FIELDS.split(", "))


def _cached(row: tuple[Any, ...]) -> Cached:
    """A row of :data:`_FIELDS`."""
    return Cached._make((*row[:-1], _tags(row[-1])))


def _tags(text: str) -> tuple[str, ...]:
    """Tags as :meth:`Catalogue.add` wrote them, a JSON list: without a backslash, no tag holds
    a quote or anything ``json.dumps`` escapes, so its text is cut at its separators (three
    times faster than ``json.loads``, for every record of an unchanged input)."""
    if text == "[]":
        return ()
    if "\\" not in text:
        return tuple(text[2:-2].split('", "'))
    return tuple(json.loads(text))


def _made_by() -> str:
    """The layout and the code (:func:`errdocs.code.code_digest`) the rows are made by: the
    light fields of a record (its description, the tags its pages show), the lookup's reading
    of a pattern are errdocs' derivations, so another errdocs, older or newer, empties the
    catalogue rather than reuse them (its next build is a cold build's)."""
    return f"{FORMAT}:{code_digest()}"
