"""The paste box's and the search box's data files, made again only when what they show changed.

Both are made from every record (the lookup index files each record under its rarest words, so
one record's message can move others between shards, and both number the records in catalogue
order): at 20,000 records the lookup index, the two data sets and the pattern memo were about a
quarter of what a build with nothing to do prepares (bench/README.md). What they read of the
records is a few fields of each light record (id, page, repository, message, pattern, class,
tags, category, what it means, where it was read), the hand-written pages of the nav, errdocs'
code and the profile: their hash is the *data key*. When it is the one the files on disk were
written for, the files are not made again: only their paths and content hashes are needed (the
plan's data units are keyed by them).

What the files on disk were made from is a row of the catalogue (``box_data``), kept like a
unit's stamp: removed before any of the files is rewritten and written once all of them are
(:func:`forget`, :func:`keep`), so a kill in between leaves no row, and the next build makes
the files again.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from errdocs.catalog.model import Catalog
from errdocs.catalog.scan import Light
from errdocs.catalog.store import Catalogue
from errdocs.lookup import build_index
from errdocs.lookup import memo as lookup_memo
from errdocs.pages.render import Page
from errdocs.project import Settings
from errdocs.records.problems import Problem, Severity
from errdocs.search.hosted import hand_pages
from errdocs.search.pastebox import site_data
from errdocs.search.searchbox import search_data
from errdocs.units.plan import FileKey, file_keys

_TABLE = """CREATE TABLE IF NOT EXISTS box_data (
    name TEXT PRIMARY KEY, key TEXT NOT NULL, files TEXT NOT NULL, problems TEXT NOT NULL,
    unconverted INTEGER NOT NULL) WITHOUT ROWID"""
_ROW = "site"
BOXES = _ROW
"""The row of the paste box's and the search box's data."""
FILTERS = "filters"
"""The row of the listings' filter data (:func:`filter_files`), kept the same way."""


@dataclass(frozen=True)
class BoxData:
    """The data files of both boxes, and what the lookup could not use."""

    key: str
    """The data key they were made for (see the module's docstring)."""
    files: list[FileKey]
    """Each file's path in the generated subtree and the hash of its content
    (:func:`errdocs.units.plan.file_keys`), in the order they are made: the paste box's, then
    the search box's."""
    pages: list[Page] | None
    """The files themselves when they were made in this build; ``None`` when the files on
    disk are the ones :attr:`key` gives and were not made again."""
    problems: tuple[Problem, ...]
    """Record patterns the paste box's lookup could not use."""
    unconverted: int
    """Patterns with no JavaScript form or too slow there."""


def box_data(settings: Settings, lights: Sequence[Light], catalog: Catalog, code: str, *,
             full_text: bool) -> BoxData:
    """The data files for ``lights``: from the catalogue's row when the files on disk were made
    for the same data key (and are all there), else made (``code``: a hash of errdocs' code,
    :func:`errdocs.units.plan.render_key`)."""
    work = settings.work_dir
    hand = hand_pages(settings)
    key = data_key(lights, catalog, code, hand, full_text, _profile(settings))
    kept = _read(work, key)
    if kept is not None and _all_there(settings, kept):
        return kept
    memo = lookup_memo.load(work)
    lookup = build_index([x.record for x in lights], catalog, javascript=True, memo=memo)
    lookup_memo.save(memo, work)
    del memo  # what the next build needs is on disk
    data = site_data(lookup)
    search = search_data(lookup, (x.record for x in lights), hand, full_text=full_text)
    pages = data.pages + search
    return BoxData(key, file_keys(pages), pages,
                   tuple(lookup.problems), data.unconverted)


def data_key(lights: Iterable[Light], catalog: Catalog, code: str, hand: Iterable[object],
             full_text: bool, profile: str) -> str:
    """Hash of everything the data files are made from. Validated text holds no control
    character, so U+0000 and U+0001 separate fields and records unambiguously."""
    digest = hashlib.sha256(f"{code}\0{full_text}\0{profile}\0{hand!r}".encode())
    entries = catalog.entries
    for light in lights:
        record = light.record
        digest.update("\0".join((
            record.id, entries[record.id].path, record.repo, record.error_message,
            record.message_pattern or "\2", record.error_class or "\2",
            record.background_tag or "\2", "\3".join(record.tags),
            record.documentation or "\2", record.origin.path, str(record.origin.line),
        )).encode() + b"\1")
    return digest.hexdigest()


def filter_files(settings: Settings, lights: Sequence[Light], code: str,
                 make: Callable[[], list[Page]]) -> BoxData:
    """The listings' filter data (``make``), made again only when a light record changed: the
    catalogue they are made from is made from the light records alone, so a hash of every
    field of every one of them (and of errdocs' code and the profile) is their data key."""
    digest = hashlib.sha256(f"{code}\0{_profile(settings)}".encode())
    for light in lights:
        digest.update(repr(light.record).encode() + b"\1")
    key = digest.hexdigest()
    kept = _read(settings.work_dir, key, FILTERS)
    if kept is not None and _all_there(settings, kept):
        return kept
    pages = make()
    return BoxData(key, file_keys(pages), pages, (), 0)


def _profile(settings: Settings) -> str:
    profile = settings.profile  # (sorted: a set's order changes between runs)
    return (f"{profile.name} {profile.folder} {profile.site_url} "
            f"{sorted(profile.dropped)}")


def _all_there(settings: Settings, data: BoxData) -> bool:
    """Every data file is on disk. Their folders are listed, not each file looked up: ~28,000
    files in ~100 folders at 20,000 records, on every build."""
    folders: dict[str, set[str]] = {}
    for path, _hash in data.files:
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
        db.execute(_TABLE)
        db.execute("DELETE FROM box_data WHERE name = ?", (name,))
        catalogue.commit(prune=False)


def keep(work: Path, data: BoxData, name: str = _ROW) -> None:
    """Once every data file is written: they are the ones ``data.key`` gives."""
    problems = [[p.path, p.line, p.message, p.record_id, p.field, p.severity.value]
                for p in data.problems]
    with Catalogue(work) as catalogue, catalogue.writing():
        db = catalogue.db
        assert db is not None
        db.execute(_TABLE)
        db.execute("INSERT OR REPLACE INTO box_data VALUES (?, ?, ?, ?, ?)",
                   (name, data.key, json.dumps(data.files), json.dumps(problems),
                    data.unconverted))
        catalogue.commit(prune=False)


def _read(work: Path, key: str, name: str = _ROW) -> BoxData | None:
    """The row, when the files on disk were made for ``key``."""
    try:
        with Catalogue(work, keep=False) as catalogue:
            db = catalogue.db
            row = None if db is None else db.execute(
                "SELECT key, files, problems, unconverted FROM box_data WHERE name = ?",
                (name,)).fetchone()
    except sqlite3.OperationalError:  # no table yet
        return None
    if row is None or row[0] != key:
        return None
    try:
        files = [(str(p), str(h)) for p, h in json.loads(row[1])]
        problems = tuple(Problem(str(p), int(n), str(m), r, f, Severity(s))
                         for p, n, m, r, f, s in json.loads(row[2]))
    except (ValueError, TypeError):
        return None  # not what :func:`keep` writes: made again
    return BoxData(key, files, None, problems, int(row[3]))
