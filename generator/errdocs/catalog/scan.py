"""Pass 1 of a sharded build: read every record once and keep only what the catalogue needs.

Memory stays bounded: for each good record only a light :class:`Record` (id, repository, slug,
message, pattern, class, tags, category, analysis time, file and line, and what the error
means cut to a meta description's length, for the site's search) is kept, with a hash of its
JSON line and where to read it again (a file and a byte offset). Pass 2 re-reads records unit
by unit (:func:`read_records`).

Uncompressed JSON Lines files are read in place. Anything else (a JSON array, a single record,
a ``.gz`` file) is copied once into a spool file of JSON Lines, so every record can be found
again by offset.

A record whose JSON line was validated without any problem in an earlier run (same line hash,
in the scan cache) is not parsed or validated again; only its id is registered, so duplicate
ids are still found. Records with any problem are always validated again, so every problem is
reported on every run.
"""

from __future__ import annotations

import hashlib
import os
import pickle
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import IO, NamedTuple

from errdocs.catalog.model import shown_tags
from errdocs.errors import BuildFailed, naming
from errdocs.pages.meta import describe_record
from errdocs.records.problems import Problem
from errdocs.records.read import Line, iter_files, read_file
from errdocs.records.record import Record
from errdocs.records.validate import Validator

CACHE_VERSION = 6
CACHE_FILE = "scan-cache.pickle"
STAGED_FILE = "scan-cache.pickle.new"


class Cached(NamedTuple):
    """What a clean record's line gave last time."""

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


@dataclass(frozen=True, slots=True)
class Light:
    """A good record as pass 1 keeps it."""

    record: Record
    """A light Record: only the fields the catalogue and the lookup data use are set."""
    line_hash: str
    """Hash of the record's JSON line: changes whenever anything in the record changes."""
    source: int
    """Index into :attr:`Scan.sources` of the JSON Lines file holding it."""
    offset: int
    """Byte offset of its JSON text in that file."""
    size: int
    """Length of its JSON text in bytes."""
    digest: bytes
    """A digest of the record's content without its envelope: a new ``datasetVersion`` alone
    does not change it (the history compares records by it)."""


@dataclass(frozen=True)
class Scan:
    """Everything pass 1 found."""

    lights: list[Light]
    """Good records, in input order."""
    problems: list[Problem]
    """Errors and warnings, in input order."""
    sources: list[str]
    """JSON Lines files to re-read records from (inputs or spool files)."""
    clean: dict[bytes, Cached]
    """The clean records of this run, by line hash: the next run's cache (:func:`save`)."""
    staged: bool = False
    """The cache was written aside by :func:`stage` (and ``clean`` dropped)."""


def scan(paths: Iterable[Path], work_dir: Path, spool_dir: Path | None = None) -> Scan:
    """Read and validate every record of ``paths``, using the cache in ``work_dir``; the
    spool files go to ``spool_dir`` (default: ``work_dir/spool``)."""
    cache = _read_cache(work_dir / CACHE_FILE)
    fresh: dict[bytes, Cached] = {}
    validator = Validator()
    lights: list[Light] = []
    places = _Places(spool_dir or work_dir / "spool")
    try:
        for path in iter_files(paths):
            places.start(path)
            for item in read_file(path):  # the reader `check` uses too
                if isinstance(item, Problem):
                    validator.problems.append(item)
                    continue
                light = _light(item, places.place(item), cache, fresh, validator)
                if light is not None:
                    places.keep(item)
                    lights.append(light)
    finally:
        places.close()
    return Scan(lights, validator.problems, places.names, fresh)


@dataclass
class _Places:
    """Where pass 2 finds each kept record again: in its input file (uncompressed JSON Lines)
    or in a spool file of JSON Lines made for an input that cannot be read by offset."""

    spool_dir: Path
    """Where spool files go (``.errdocs/spool/``)."""
    names: list[str] = field(default_factory=list)
    """The files to re-read, by source index (:attr:`Scan.sources`)."""
    _path: Path | None = None
    _in_place: int | None = None
    _spool: IO[bytes] | None = None
    _spool_index: int = -1

    def start(self, path: Path) -> None:
        """The next input file."""
        self.close()
        self._path, self._in_place = path, None

    def place(self, line: Line) -> tuple[int, int]:
        """The source index and byte offset ``line`` is (or will be, once kept) found at."""
        assert self._path is not None
        if line.offset is not None:
            if self._in_place is None:
                self.names.append(str(self._path.resolve()))
                self._in_place = len(self.names) - 1
            return self._in_place, line.offset
        if self._spool is None:
            self.spool_dir.mkdir(parents=True, exist_ok=True)
            spool = self.spool_dir / f"{len(self.names)}.jsonl"
            self._spool = spool.open("wb")
            self.names.append(str(spool))
            self._spool_index = len(self.names) - 1
        return self._spool_index, self._spool.tell()

    def keep(self, line: Line) -> None:
        """Make ``line`` readable where :meth:`place` said."""
        if line.offset is None:
            assert self._spool is not None
            self._spool.write(line.raw + b"\n")

    def close(self) -> None:
        if self._spool is not None:
            self._spool.close()
            self._spool = None


def stage(found: Scan, work_dir: Path) -> Scan:
    """Write this run's cache aside now and drop it from memory: only the next run reads it,
    and at 100,000 records it holds ~30 MB the build has no use for. :func:`save` then only
    puts the file in place."""
    work_dir.mkdir(parents=True, exist_ok=True)
    _write_cache(work_dir / STAGED_FILE, found.clean)
    return replace(found, clean={}, staged=True)


def save(found: Scan, work_dir: Path) -> None:
    """Keep this run's clean records for the next run (call it when the build succeeded: a
    failed build leaves the work folder as it was)."""
    work_dir.mkdir(parents=True, exist_ok=True)
    if found.staged:
        os.replace(work_dir / STAGED_FILE, work_dir / CACHE_FILE)
    else:
        _write_cache(work_dir / CACHE_FILE, found.clean)


def _light(line: Line, place: tuple[int, int], cache: dict[bytes, Cached],
           fresh: dict[bytes, Cached], validator: Validator) -> Light | None:
    key = hashlib.blake2b(line.raw, digest_size=16).digest()
    known = cache.get(key)
    if known is not None:
        if not validator.accept_known(known.id, known.digest, line.origin):
            return None
        fresh[key] = known
        return _make_light(known, line, place, key, known.digest)
    record = validator.take(line)
    if record is None:
        return None
    digest = validator.digest_of(record.id)
    if validator.last_clean and digest is not None:
        fresh[key] = Cached(record.id, record.repo, record.slug, record.error_message,
                            record.message_pattern, record.analyzed_at, tuple(shown_tags(record)),
                            record.background_tag, record.error_class, record.file_path,
                            record.line_number, describe_record(record), digest,
                            record.dataset_version)
    return _make_light(record, line, place, key, digest)


def _make_light(fields: Cached | Record, line: Line, place: tuple[int, int],
                key: bytes, digest: str | None) -> Light:
    # The light record's documentation is only its first sentences (describe_record), which
    # the site's search shows under each result; pages are rendered from the full record.
    # Its tags are those pages show (at most MAX_LIST_ITEMS), whatever the record holds.
    if isinstance(fields, Cached):
        description, tags = fields.description, fields.tags
    else:
        description, tags = describe_record(fields), tuple(shown_tags(fields))
    # Repositories, tags, categories and classes repeat across records: keep one copy of each.
    record = Record(id=fields.id, repo=sys.intern(fields.repo), slug=fields.slug,
                    error_message=fields.error_message,
                    message_pattern=fields.message_pattern, origin=line.origin,
                    analyzed_at=fields.analyzed_at, tags=tuple(map(sys.intern, tags)),
                    background_tag=_intern(fields.background_tag),
                    error_class=_intern(fields.error_class), documentation=description,
                    # Page titles tell records with one message apart by file and line; the
                    # related lists show other errors of the same file, nearest lines first.
                    file_path=_intern(fields.file_path), line_number=fields.line_number,
                    dataset_version=_intern(fields.dataset_version))
    # Without a digest (never: a kept record has one) the line's hash stands in.
    content = bytes.fromhex(digest)[:16] if digest else key
    return Light(record, key.hex(), *place, len(line.raw), content)


def _intern(value: str | None) -> str | None:
    return None if value is None else sys.intern(value)


def read_records(sources: list[str], lights: Iterable[Light]) -> Iterator[Record]:
    """Pass 2: the full records of ``lights``, read again from their files by offset and
    decoded and validated as pass 1 did."""
    handles: dict[int, IO[bytes]] = {}
    try:
        for light in lights:
            handle = handles.get(light.source)
            if handle is None:
                handle = handles[light.source] = open(sources[light.source], "rb")  # noqa: SIM115
            handle.seek(light.offset)
            raw = handle.read(light.size)
            if hashlib.blake2b(raw, digest_size=16).hexdigest() != light.line_hash:
                raise InputChanged(f"{light.record.origin}: the input changed during the build")
            record = Validator().take(Line(raw, light.record.origin, light.offset))
            if record is None:
                raise InputChanged(f"{light.record.origin}: record no longer valid")
            yield record
    finally:
        for handle in handles.values():
            handle.close()


class InputChanged(BuildFailed):
    """A record read in pass 2 is not the one pass 1 saw."""


def _read_cache(path: Path) -> dict[bytes, Cached]:
    """The previous run's clean records; empty when missing, old or unreadable."""
    try:
        with path.open("rb") as handle:
            version, entries = pickle.load(handle)  # our own file in the work folder
    except (OSError, pickle.UnpicklingError, EOFError, ValueError, TypeError):
        return {}
    return entries if version == CACHE_VERSION else {}


def _write_cache(path: Path, entries: dict[bytes, Cached]) -> None:
    tmp = path.with_name(path.name + ".tmp")
    with naming(tmp), tmp.open("wb") as handle:
        pickle.dump((CACHE_VERSION, entries), handle, protocol=pickle.HIGHEST_PROTOCOL)
    os.replace(tmp, path)
