"""The paste box's and the search box's data files, and the listings' filter data, made again
only for what changed.

The lookup index files each record under its rarest words, so one record's message can move
others between the paste box's shards, and both boxes number the records in index order: the
paste box's files and the search box's manifest and word shards are one *part*, keyed by a hash
of every field the index and the words read (:func:`box_keys`). The search box's record chunks
read only their own records (16 in index order), so each is a part keyed by those records. The
filter data likewise: the listings' files are one part (which records each listing holds, in
which order, their facets' values), each row file another (its records' entries,
:func:`filter_keys`). A refresh that changes what some records mean makes their chunks and
row files only; one that changes a message makes the boxes' data again from every record.

What the files on disk were made from is a row of the catalogue (``box_files``: the data key,
a hash of the parts' keys, and each part's key and files with their content hashes, written
and read a block at a time: :mod:`errdocs.catalog.blobs`), kept like
a unit's row (:mod:`errdocs.units.state`): removed before any of the files is rewritten and
written once all of them are (:func:`forget`, :func:`keep`), so a kill in between leaves no
row, and the next build makes every file again and compares it with the disk. A part whose
key is the row's keeps its files (only their paths and hashes are needed: the plan keys data
units by them); a file made again whose hash is the row's is not written.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import os
import sqlite3
from array import array
from collections.abc import Callable, Collection, Iterable, Iterator, Sequence
from dataclasses import dataclass, field, fields, replace
from itertools import islice
from operator import attrgetter
from pathlib import Path
from typing import Any, overload

from errdocs.catalog import facets
from errdocs.catalog.blobs import FAILED, read_items, write_items
from errdocs.catalog.lights import Lights
from errdocs.catalog.model import Catalog, Entry
from errdocs.catalog.store import Catalogue
from errdocs.lookup import build_index
from errdocs.lookup import memo as lookup_memo
from errdocs.pages.filters import filter_data, row_file_count, row_files, row_members, row_path
from errdocs.pages.render import Page
from errdocs.pages.write import Staged
from errdocs.project import Settings
from errdocs.records.problems import Problem, Severity
from errdocs.search.hosted import hand_pages
from errdocs.search.pastebox import site_data
from errdocs.search.searchbox import CHUNK, chunk_file, chunk_path, search_data
from errdocs.units.keys import KEY_BYTES, NO_KEYS, PathKeys, PathKeysBuilder
from errdocs.units.plan import file_digest

_TABLE = """CREATE TABLE IF NOT EXISTS box_files (
    name TEXT PRIMARY KEY, key TEXT NOT NULL, problems TEXT NOT NULL,
    unconverted INTEGER NOT NULL, digest BLOB NOT NULL, files BLOB NOT NULL)"""
"""The files last: written a block at a time (:func:`errdocs.catalog.blobs.write_items`)."""
_OLD_TABLE = "box_data"
"""The table before the files were written a block at a time (a row without a row id, its
files one :mod:`marshal` text): dropped."""
_ROW = "site"
BOXES = _ROW
"""The row of the paste box's and the search box's data."""
FILTERS = "filters"
"""The row of the listings' filter data (:func:`filter_files`), kept the same way."""


INDEX = "index"
"""The part of the boxes' data made from the lookup index: the paste box's files, the search
box's manifest and word shards (the record chunks are parts of their own, ``r<n>``)."""
LISTINGS = "listings"
"""The part of the filter data made from the listings: the manifest and every listing's
summary and value lists (the row files are parts of their own, ``r<n>``)."""

Part = tuple[str, str, PathKeys]
"""A part of the data files: its name, its key (a hash of what it is made from) and its
files. A part whose key is the one the files on disk were made for is not made again."""


@dataclass(frozen=True, slots=True)
class Parts(Sequence[Part]):
    """Parts (:data:`Part`) held together: their names, their keys and every part's files in
    one :class:`PathKeys`, each part's read back as it is asked for. Held a tuple and a
    :class:`PathKeys` a part, the filter data's 65,537 parts (a row file each) took ~30 MB at
    310,000 records, to the preparation's end."""

    names: tuple[str, ...] = ()
    """Each part's name, in order."""
    keys: tuple[str, ...] = ()
    """Each part's key."""
    files: PathKeys = NO_KEYS
    """Every part's files, one part's after the other's."""
    ends: array[int] = field(default_factory=lambda: array("L"))
    """Where each part's files end in :attr:`files`."""

    @classmethod
    def of(cls, parts: Iterable[Part]) -> Parts:
        names: list[str] = []
        keys: list[str] = []
        files = PathKeysBuilder()
        ends = array("L")
        for name, key, part in parts:
            names.append(name)
            keys.append(key)
            for number, path in enumerate(part.paths):
                files.add(path, part.digest(number))
            ends.append(len(files))
        return cls(tuple(names), tuple(keys), files.keys(), ends)

    def __len__(self) -> int:
        return len(self.names)

    @overload
    def __getitem__(self, index: int) -> Part: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[Part]: ...

    def __getitem__(self, index: int | slice) -> Part | Sequence[Part]:
        if isinstance(index, slice):
            return [self[n] for n in range(len(self))[index]]
        number = index + len(self) if index < 0 else index
        if not 0 <= number < len(self):
            raise IndexError(index)
        start, end = self.ends[number - 1] if number else 0, self.ends[number]
        return self.names[number], self.keys[number], PathKeys(
            self.files.paths[start:end], self.files.digests[start * KEY_BYTES:end * KEY_BYTES])

    def __iter__(self) -> Iterator[Part]:
        return (self[number] for number in range(len(self)))


@dataclass(frozen=True)
class BoxData:
    """The data files of both boxes (or of the filters), and what the lookup could not use."""

    key: str
    """The data key they were made for: a hash of the parts' keys."""
    made: bool
    """Whether files were made again (those not as on disk were written under temporary
    names, put in place by the caller: :class:`~errdocs.pages.write.Staged`); False when the
    files on disk are the ones :attr:`key` gives and nothing was made."""
    problems: tuple[Problem, ...]
    """Record patterns the paste box's lookup could not use."""
    unconverted: int
    """Patterns with no JavaScript form or too slow there."""
    parts: Parts = field(default_factory=Parts)
    """What :func:`keep` records: each part's name, key and files."""

    @property
    def files(self) -> PathKeys:
        """Each file's path in the generated subtree and the hash of its content
        (:func:`errdocs.units.plan.file_keys`), in the order a cold build makes them (the
        paste box's, then the search box's): the parts' files, one after the other."""
        return self.parts.files


@dataclass(frozen=True)
class _Row:
    """What a ``box_data`` row says the files on disk were made from."""

    key: str
    """The data key."""
    parts: dict[str, tuple[str, PathKeys]]
    """Each part's key and files, by name."""
    problems: tuple[Problem, ...]
    """The lookup's problems then."""
    unconverted: int
    """Patterns then with no JavaScript form."""

    def files(self) -> PathKeys:
        """Every file of every part."""
        return PathKeys.joined(files for _key, files in self.parts.values())


Keys = dict[str, str]
"""Each part's name and key."""
Remember = Callable[[str, Callable[[], Keys]], Keys]
"""Gives the keys kept for the same records, catalogue and code under a key (a string of
what else they are made from), else makes them and keeps them: the caller's memo
(:mod:`errdocs.catalog.memo`), so a build whose records did not change hashes none of them."""


def _made(_extra: str, make: Callable[[], Keys]) -> Keys:
    """No memo: the keys are made."""
    return make()


def box_data(settings: Settings, lights: Lights, catalog: Catalog, code: str, *,
             full_text: bool, staged: Staged, remember: Remember = _made,
             edited: frozenset[str] = frozenset()) -> BoxData:
    """The data files for ``lights``: from the catalogue's row when the files on disk were made
    for the same data key (and are all there); else only the parts whose key changed are made
    (``code``: a hash of errdocs' code, :func:`errdocs.units.plan.render_key`). The record
    chunks read only their records, so a change to what records mean remakes the chunks of
    those records alone; anything the lookup index reads remakes everything. ``remember``
    keeps the parts' keys for these records, catalogue and code. ``edited``: files of the
    generated tree written into by somebody since errdocs wrote them (then not known).
    ``staged``: where the files made again are written, as they are made."""
    work = settings.work_dir
    hand = hand_pages(settings)
    profile = _profile(settings)
    sort: list[list[str]] = []

    def order() -> list[str]:
        """The records' ids in the index's order (sorted once, when needed; the catalogue is
        made of these records)."""
        if not sort:
            entries = catalog.entries
            sort.append(sorted(entries, key=lambda i: entries[i].path))
        return sort[0]

    keys = remember(f"boxes\0{full_text}\0{profile}\0{hand!r}", lambda: box_keys(
        lights, order(), catalog, code, hand, full_text, profile))
    key = _joined(keys)
    old = _read_any(settings, work, BOXES, edited)
    if old is not None and any(p.record_id is None for p in old.problems):
        old = None  # not a lookup problem: cannot be placed again
    if old is not None and old.key == key:
        return BoxData(key, False, _placed(old.problems, lights), old.unconverted,
                       _parts(keys, old.parts))
    known = old.parts if old is not None else {}
    made: Iterable[Page]
    if old is not None and known.get(INDEX, ("",))[0] == keys[INDEX]:
        entries = catalog.entries
        made = (chunk_file(n, [(entries[x.record.id].path, x.record)
                               for x in lights.many(order()[n * CHUNK:(n + 1) * CHUNK])])
                for n in range(len(keys) - 1) if known.get(_chunk(n), ("",))[0] != keys[_chunk(n)])
        problems, unconverted = _placed(old.problems, lights), old.unconverted
    else:
        # The memo is kept (and let go) once every record was read, before the targets are
        # made: what the next build needs is on disk.
        lookup = build_index((x.record for x in lights), catalog, javascript=True,
                             memo=lookup_memo.load(work), site=True,
                             remembered=lambda memo: lookup_memo.save(memo, work))
        data = site_data(lookup)
        made = itertools.chain(data.pages, search_data(
            lookup, lambda ids: (x.record for x in lights.many(ids)), hand, full_text=full_text))
        problems, unconverted = tuple(lookup.problems), data.unconverted
    chunks = {chunk_path(n): _chunk(n) for n in range(len(keys) - 1)}
    return _assembled(key, keys, known, made, lambda path: chunks.get(path, INDEX),
                      problems, unconverted, staged)


def _placed(problems: Iterable[Problem], lights: Lights) -> tuple[Problem, ...]:
    """``problems`` (each of a record, about its pattern) where their records are read now:
    the same records in the same order may come from another file or line."""
    problems = tuple(problems)
    ids = dict.fromkeys(p.record_id for p in problems if p.record_id is not None)
    where = {x.record.id: x.record.origin for x in lights.many(ids)}
    return tuple(replace(p, path=where[p.record_id].path, line=where[p.record_id].line)
                 for p in problems if p.record_id is not None)  # (all are: see box_data)


def box_keys(lights: Lights, order: Sequence[str], catalog: Catalog, code: str,
             hand: Iterable[object], full_text: bool, profile: str) -> dict[str, str]:
    """Each part's key: :data:`INDEX`'s hashes everything the lookup index, the paste box and
    the search box's words read (every light record's id, page, repository, message, pattern,
    class, tags, category; the nav's hand-written pages) but not where each record was read
    (only the lookup's problems say it, and they are placed again: :func:`_placed`); record chunk
    *n*'s hashes what a result shows of its records, ``order`` being the index's. Validated
    text holds no control character, so U+0000 and U+0001 separate fields and records
    unambiguously."""
    digest = hashlib.sha256(f"{code}\0{full_text}\0{profile}\0{hand!r}".encode())
    entries = catalog.entries
    for light in lights:
        record = light.record
        digest.update("\0".join((
            record.id, entries[record.id].path, record.repo, record.error_message,
            record.message_pattern or "\2", record.error_class or "\2",
            record.background_tag or "\2", "\3".join(record.tags),
        )).encode() + b"\1")
    keys = {INDEX: digest.hexdigest()}
    records = (x.record for x in lights.many(order))  # read a batch at a time
    for number in range((len(order) + CHUNK - 1) // CHUNK):
        digest = hashlib.sha256(f"{code}\0{number}".encode())
        for record in islice(records, CHUNK):
            digest.update("\0".join((
                entries[record.id].path, record.repo, record.error_message,
                record.error_class or "\2", record.documentation or "\2",
                record.trigger_scenarios or "\2", record.common_situations or "\2",
            )).encode() + b"\1")
        keys[_chunk(number)] = digest.hexdigest()
    return keys


def filter_files(settings: Settings, catalog: Catalog, code: str, *, staged: Staged,
                 remember: Remember = _made, edited: frozenset[str] = frozenset()) -> BoxData:
    """The listings' filter data (:func:`errdocs.pages.filters.filter_data`), kept like the
    boxes': a row file reads only its records' entries, so a changed record remakes its row
    file; anything a listing reads (which records, in which order, their facets' values)
    remakes everything. ``remember`` keeps the parts' keys for this catalogue and code;
    ``edited``, ``staged``: as :func:`box_data`'s."""
    profile = _profile(settings)
    keys = remember(f"filters\0{profile}", lambda: filter_keys(catalog, code, profile))
    key = _joined(keys)
    old = _read_any(settings, settings.work_dir, FILTERS, edited)
    if old is not None and old.key == key:
        return BoxData(key, False, (), 0, _parts(keys, old.parts))
    known = old.parts if old is not None else {}
    members = row_members(catalog.entries, row_file_count(len(catalog.entries)))
    made: Iterable[Page]
    if known.get(LISTINGS, ("",))[0] == keys[LISTINGS]:
        made = row_files(((n, chosen) for n, chosen in enumerate(members)
                          if known.get(_chunk(n), ("",))[0] != keys[_chunk(n)]), catalog.texts)
    else:
        made = filter_data(catalog)
    rows = {row_path(n): _chunk(n) for n in range(len(members))}
    return _assembled(key, keys, known, made, lambda path: rows.get(path, LISTINGS), (), 0,
                      staged)


def filter_keys(catalog: Catalog, code: str, profile: str) -> Keys:
    """Each part's key. :data:`LISTINGS`' hashes every listing's records in order and each
    record's values of the facets (the fields they are made from); row file *n*'s hashes
    every field of its entries (a row shows some and filters by others)."""
    entries = catalog.entries
    members = row_members(entries, row_file_count(len(entries)))
    count = len(members)
    digest = hashlib.sha256(f"{code}\0{profile}\0{count}".encode())
    for entry in entries.values():
        digest.update("\0".join((entry.record_id, *map(str, (
            entry.error_class, entry.error_type, entry.severity, entry.handling,
            entry.language, entry.repo)))).encode() + b"\1")
    digest.update("\0".join(e.record_id for e in catalog.listing()).encode() + b"\2")
    for kind in facets.FILTERED:
        for group in catalog.groups[kind].values():
            digest.update("\0".join((kind.value, group.key,
                                      *(e.record_id for e in group.entries))).encode() + b"\2")
    keys = {LISTINGS: digest.hexdigest()}
    for number, chosen in enumerate(members):
        digest = hashlib.sha256(f"{code}\0{profile}\0{count}\0{number}".encode())
        for entry in chosen:
            digest.update(repr(_FIELDS(entry)).encode() + b"\1")
        keys[_chunk(number)] = digest.hexdigest()
    return keys


_FIELDS = attrgetter(*(f.name for f in fields(Entry)))
"""Every field of an entry, as a tuple: its ``repr`` tells entries apart as the entry's own
does, written in C (the dataclass's is Python, once a record on every refresh)."""


def _chunk(number: int) -> str:
    """The name of the part of record chunk or row file ``number``."""
    return f"r{number}"


def _joined(keys: dict[str, str]) -> str:
    """The data key: a hash of every part's name and key."""
    return hashlib.sha256("\0".join(f"{n}\1{k}" for n, k in keys.items()).encode()).hexdigest()


def _parts(keys: dict[str, str], parts: dict[str, tuple[str, PathKeys]]) -> Parts:
    return Parts.of((name, key, parts[name][1]) for name, key in keys.items())


def _assembled(key: str, keys: dict[str, str], known: dict[str, tuple[str, PathKeys]],
               made: Iterable[Page], part_of: Callable[[str], str], problems: tuple[Problem, ...],
               unconverted: int, staged: Staged) -> BoxData:
    """The data of ``keys``' parts: each made one's files from ``made``, each other's from
    ``known`` (the files on disk). A made file not on disk as it is goes to ``staged`` as it
    comes, so no text is held. A cold build makes them in the order of ``made`` (all of them),
    which the parts keep: each part's files are in one run."""
    files: dict[str, PathKeysBuilder] = {}
    on_disk = {f for _key, kept in known.values() for f in kept}
    for page in made:
        digest = file_digest(page)
        part = part_of(page.path)
        if part not in files:
            files[part] = PathKeysBuilder()
        files[part].add(page.path, digest)
        if (page.path, digest.hex()) not in on_disk:
            staged.add(page)
    parts = Parts.of((name, part_key, files.pop(name).keys() if name in files else known[name][1])
                     for name, part_key in keys.items())
    return BoxData(key, True, problems, unconverted, parts)


def _profile(settings: Settings) -> str:
    profile = settings.profile  # (sorted: a set's order changes between runs)
    return (f"{profile.name} {profile.folder} {profile.site_url} "
            f"{sorted(profile.dropped)}")


def _all_there(settings: Settings, files: PathKeys) -> bool:
    """Every data file is on disk. Their folders are listed, not each file looked up: ~28,000
    files in ~100 folders at 20,000 records, on every build."""
    folders: dict[str, set[str]] = {}
    for path in files.paths:
        folder, _, name = path.rpartition("/")
        folders.setdefault(folder, set()).add(name)
    for folder, names in folders.items():
        try:
            with os.scandir(settings.out_dir / folder) as entries:
                # A file, or a link to one: what os.path.isfile says.
                there = {e.name for e in entries if e.name in names and e.is_file()}
        except OSError:
            return False
        if len(there) != len(names):
            return False
    return True


def forget(work: Path, name: str = _ROW) -> None:
    """Before any data file is rewritten: the files on disk are no longer known."""
    with Catalogue(work) as catalogue, catalogue.writing():
        db = catalogue.db
        assert db is not None
        _tables(db)
        db.execute("DELETE FROM box_files WHERE name = ?", (name,))
        catalogue.commit(prune=False)


def keep(work: Path, data: BoxData, name: str = _ROW) -> None:
    """Once every data file is written: they are the ones ``data.key`` gives."""
    problems = [[p.path, p.line, p.message, p.record_id, p.field, p.severity.value]
                for p in data.problems]
    with Catalogue(work) as catalogue, catalogue.writing():
        db = catalogue.db
        assert db is not None
        _tables(db)
        row = db.execute("INSERT OR REPLACE INTO box_files VALUES (?, ?, ?, ?, '', '')",
                         (name, data.key, json.dumps(problems), data.unconverted)).lastrowid
        assert row is not None
        write_items(db, "box_files", "files", row, _Items(data.parts))
        catalogue.commit(prune=False)


def _tables(db: sqlite3.Connection) -> None:
    db.execute(f"DROP TABLE IF EXISTS {_OLD_TABLE}")
    db.execute(_TABLE)


@dataclass(frozen=True)
class _Items(Collection[object]):
    """The items of a row's files, written a block at a time
    (:func:`errdocs.catalog.blobs.write_items`): each part's name, key and number of files,
    then its files. A part's files are not one item: one part can hold most of them (the
    listings' part: 1,698 of 2,210 files at 2,000 records)."""

    parts: Parts

    def __len__(self) -> int:
        return sum(1 + len(files) for _name, _key, files in self.parts)

    def __iter__(self) -> Iterator[object]:
        for name, key, files in self.parts:
            yield (name, key, len(files))
            yield from files

    def __contains__(self, item: object) -> bool:
        return item in iter(self)


def _parts_from(items: list[Any]) -> dict[str, tuple[str, PathKeys]]:
    """The parts :class:`_Items` wrote as ``items``, by name. TypeError or ValueError when
    they are not such items."""
    parts = {}
    at = 0
    while at < len(items):
        name, key, count = items[at]
        files = items[at + 1:at + 1 + count]
        if not (isinstance(name, str) and isinstance(key, str) and isinstance(count, int)
                and len(files) == count
                and all(isinstance(p, str) and isinstance(h, str) for p, h in files)):
            raise TypeError("not a part")
        parts[name] = (key, PathKeys.of(files))  # (ValueError: a key that is no hex digest)
        at += 1 + count
    return parts


def _read_any(settings: Settings, work: Path, name: str,
              edited: frozenset[str] = frozenset()) -> _Row | None:
    """The row, whatever its key, when every file it names is on disk as errdocs wrote it
    (none is in ``edited``); else ``None`` (the files on disk are then not known, and
    everything is made and compared with them)."""
    try:
        with Catalogue(work, keep=False) as catalogue:
            db = catalogue.db
            if db is None:
                return None
            row = db.execute("SELECT rowid, key, digest, problems, unconverted FROM box_files "
                             "WHERE name = ?", (name,)).fetchone()
            items = None if row is None else read_items(db, "box_files", "files", row[0],
                                                        row[2])
        if row is None or items is None:
            return None
        parts = _parts_from(items)
        problems = tuple(Problem(str(p), int(n), str(m), r, f, Severity(s))
                         for p, n, m, r, f, s in json.loads(row[3]))
    except (*FAILED, sqlite3.Error):  # no table yet; not what :func:`keep` writes: made again
        return None
    found = _Row(str(row[1]), parts, problems, int(row[4]))
    files = found.files()
    if edited and any(path in edited for path in files.paths):
        return None
    return found if _all_there(settings, files) else None
