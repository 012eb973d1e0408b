"""Pass 1 of a sharded build: read every record once and keep only what the catalogue needs.

Memory stays bounded: for each good record only a light :class:`Record` (id, repository, slug,
message, pattern, class, tags, category, analysis time, file and line, kind, severity and
handling strategy (listings filter and chart by them), and what the error means cut to a meta
description's length, for the site's search) is kept, with a hash of its
JSON line and where to read it again (a file and a byte offset). Pass 2 re-reads records unit
by unit (:func:`read_records`).

Uncompressed JSON Lines files are read in place. Anything else (a JSON array, a single record,
a ``.gz`` file) is copied once into a spool file of JSON Lines, so every record can be found
again by offset.

What earlier runs learnt is in the catalogue (:mod:`errdocs.catalog.store`,
``.errdocs/catalog.sqlite``). A record whose JSON line was validated without any problem before
(same line hash) is not parsed or validated again (the lines of an input are looked up
:data:`~errdocs.catalog.store.BATCH` at a time), and an uncompressed JSON Lines input read
without any problem whose stat is unchanged (and bytes, when the stat alone cannot tell) is not
even read: its records come from the catalogue. Either way only their ids are registered, so
duplicate ids are still found. Records with any problem (and the files holding them) are always
read and validated again, so every problem is reported on every run.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import IO

from errdocs.catalog.lights import Light, Lights
from errdocs.catalog.model import shown_tags
from errdocs.catalog.store import (
    BATCH,
    Cached,
    Catalogue,
    Look,
    Placed,
    blocks_of,
    look,
)
from errdocs.collector import collector_paused
from errdocs.errors import BuildFailed
from errdocs.pages.meta import describe_record
from errdocs.records.problems import Problem
from errdocs.records.read import Line, Sink, iter_files, read_file
from errdocs.records.record import Origin, Record
from errdocs.records.validate import Validator


@dataclass(frozen=True)
class Scan:
    """Everything pass 1 found."""

    lights: Lights
    """Good records, in input order."""
    problems: list[Problem]
    """Errors and warnings, in input order."""
    sources: list[str]
    """JSON Lines files to re-read records from (inputs or spool files)."""
    skipped: int = 0
    """Input files taken from the catalogue whole, unchanged since they were read."""


def scan(paths: Iterable[Path], work_dir: Path, spool_dir: Path | None = None, *,
         keep: bool = True, strict: bool = False) -> Scan:
    """Read and validate every record of ``paths``, using the catalogue in ``work_dir`` and
    (``keep``) updating it; the spool files go to ``spool_dir`` (default:
    ``work_dir/spool``). ``strict``: the catalogue is kept as it was when the input has
    problems (a ``--strict`` build that stops there writes nothing)."""
    validator = Validator()
    lights = Lights()
    places = _Places(spool_dir or work_dir / "spool")
    skipped = 0
    with (Catalogue(work_dir, keep=keep) as catalogue,
          catalogue.writing(), collector_paused()):
        try:
            for path in iter_files(paths):
                places.start(path)
                seen = _look(path)
                placed = None if seen is None else catalogue.unchanged(
                    path, seen, partial(_blocks, path))
                if placed is None:
                    _read(path, seen, places, catalogue, validator, lights)
                else:
                    skipped += 1
                    lights.extend(_replay(path, placed, places.in_place(), validator))
        finally:
            places.close()
        if strict and validator.problems:
            catalogue.close()  # undone
        else:
            catalogue.commit()
    lights.settle()
    return Scan(lights, validator.problems, places.names, skipped)


def _look(path: Path) -> Look | None:
    """The stat of ``path``, when it can be read in place; ``None`` when it cannot be read at
    all, which the reader then says in its own words."""
    if path.suffix == ".gz":
        return None
    try:
        return look(path)
    except OSError:
        return None


def _blocks(path: Path) -> bytes:
    """The hash of the bytes of ``path``; none (it is then read) when it cannot be read."""
    try:
        return blocks_of(path)
    except OSError:
        return b""


@dataclass
class _Found:
    """The record lines reading one input found, for the catalogue."""

    keys: list[bytes] = field(default_factory=list)
    """The hash of each, in order."""
    spots: list[tuple[int, int, int]] | None = field(default_factory=list)
    """Where each is (offset, size, line); ``None`` when the input is not read in place."""

    def add(self, line: Line, key: bytes) -> None:
        self.keys.append(key)
        if line.offset is None or self.spots is None:
            self.spots = None  # spooled: found again only through this run's spool
        else:
            self.spots.append((line.offset, len(line.raw), line.origin.line))


def _read(path: Path, seen: Look | None, places: _Places, catalogue: Catalogue,
          validator: Validator, lights: Lights) -> None:
    """Read ``path`` line by line (the reader ``check`` uses too); when it has no problem and
    is read in place, keep where its lines are for the next run."""
    problems = len(validator.problems)
    # A stat taken within RACY_NS of a write cannot tell a next write apart: the bytes read
    # are hashed, so that the next scan can tell by hashing them again.
    blocks = hashlib.blake2b(digest_size=16) if seen is not None and seen.racy else None
    found = _Found()
    for looked in _looked_up(read_file(path, _sink(blocks)), catalogue):
        if isinstance(looked, Problem):
            validator.problems.append(looked)
            continue
        line, key, known = looked
        found.add(line, key)
        light = _light(line, key, places.place(line), known, catalogue, validator)
        if light is not None:
            places.keep(line)
            lights.append(light)
    # The stat kept is the one taken before the read: a write while reading changes it (or, in
    # its tick, the hash of the bytes read), and the next scan reads the input again.
    if seen is not None and found.spots and len(validator.problems) == problems:
        catalogue.read_clean(path, seen, None if blocks is None else blocks.digest(),
                             [(key, *spot) for key, spot in zip(found.keys, found.spots,
                                                                strict=True)])
    else:
        catalogue.used(found.keys)


def _sink(blocks: hashlib.blake2b | None) -> Sink | None:
    return None if blocks is None else blocks.update


_Looked = tuple[Line, bytes, dict[bytes, Cached]] | Problem
"""A line with its hash and what the catalogue knows of its batch, or a reader's problem."""


def _looked_up(items: Iterable[Line | Problem], catalogue: Catalogue) -> Iterator[_Looked]:
    """Each of ``items`` in order, a line with its hash and what the catalogue knows of the
    lines of its batch (:data:`BATCH` lines, at most :data:`BATCH_BYTES`): one query a batch,
    not one a line."""
    for batch in _batches(items):
        keys = [_key(item.raw) if isinstance(item, Line) else b"" for item in batch]
        known = catalogue.known(key for key in keys if key)
        for item, key in zip(batch, keys, strict=True):
            yield item if isinstance(item, Problem) else (item, key, known)


BATCH_BYTES = 1 << 24
"""The lines of a batch (:func:`_looked_up`) hold at most about this many bytes (16 MiB)."""


def _batches(items: Iterable[Line | Problem]) -> Iterator[list[Line | Problem]]:
    batch: list[Line | Problem] = []
    size = 0
    for item in items:
        batch.append(item)
        size += len(item.raw) if isinstance(item, Line) else 0
        if len(batch) == BATCH or size >= BATCH_BYTES:
            yield batch
            batch, size = [], 0
    if batch:
        yield batch


def _key(raw: bytes) -> bytes:
    """The hash of a record's JSON line (the catalogue's key, and what pass 2 checks)."""
    return hashlib.blake2b(raw, digest_size=16).digest()


def _replay(path: Path, placed: Iterable[Placed], source: int,
            validator: Validator) -> Iterator[Light]:
    """The lights of an unchanged input, from the catalogue: its ids registered in order, so
    duplicates across files are found as if it had been read."""
    name = str(path)
    for item in placed:
        origin = Origin(name, item.line)
        if validator.accept_known(item.fields.id, item.fields.digest, origin):
            yield _make_light(item.fields, origin, (source, item.offset), item.size, item.key)


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
            return self.in_place(), line.offset
        if self._spool is None:
            self.spool_dir.mkdir(parents=True, exist_ok=True)
            spool = self.spool_dir / f"{len(self.names)}.jsonl"
            self._spool = spool.open("wb")
            self.names.append(str(spool))
            self._spool_index = len(self.names) - 1
        return self._spool_index, self._spool.tell()

    def in_place(self) -> int:
        """The source index of the current input, read in place (an unchanged input)."""
        assert self._path is not None
        if self._in_place is None:
            self.names.append(str(self._path.resolve()))
            self._in_place = len(self.names) - 1
        return self._in_place

    def keep(self, line: Line) -> None:
        """Make ``line`` readable where :meth:`place` said."""
        if line.offset is None:
            assert self._spool is not None
            self._spool.write(line.raw + b"\n")

    def close(self) -> None:
        if self._spool is not None:
            self._spool.close()
            self._spool = None


def _light(line: Line, key: bytes, place: tuple[int, int], known: dict[bytes, Cached],
           catalogue: Catalogue, validator: Validator) -> Light | None:
    """The light copy of the record of ``line`` (hashed ``key``): from ``known`` (the
    catalogue) when it was validated cleanly before, else validated (and kept there when
    clean)."""
    fields = known.get(key)
    if fields is None:
        fields = _validated(line, validator)
        if fields is None:
            return None
        if validator.last_clean and fields.digest:
            catalogue.add(key, fields)
            known[key] = fields  # its repeats later in the batch are known, as in later ones
    elif not validator.accept_known(fields.id, fields.digest, line.origin):
        return None
    return _make_light(fields, line.origin, place, len(line.raw), key)


def _validated(line: Line, validator: Validator) -> Cached | None:
    """What the catalogue keeps of the record of ``line``, validated; ``None`` when it has
    none (its problems are the validator's)."""
    record = validator.take(line)
    if record is None:
        return None
    # Without a digest (never: a kept record has one) the line's hash stands in.
    digest = validator.digest_of(record.id) or ""
    return Cached(
        record.id, record.repo, record.slug, record.error_message, record.message_pattern,
        record.analyzed_at, record.background_tag, record.error_class, record.file_path,
        record.line_number, describe_record(record), digest, record.dataset_version,
        record.error_type, record.severity, record.handling_strategy,
        tuple(shown_tags(record)))


def _make_light(fields: Cached, origin: Origin, place: tuple[int, int], size: int,
                key: bytes) -> Light:
    # The light record's documentation is only its first sentences (describe_record), which
    # the site's search shows under each result; pages are rendered from the full record.
    # Its tags are those pages show (at most MAX_LIST_ITEMS), whatever the record holds.
    # Repositories, tags, categories and classes repeat across records: the light copies'
    # store keeps one copy of each (not interned here: the interpreter's table of interned
    # strings would grow to every file path and tag, ~28 MB at 310,000 records, and keep
    # its size to the end).
    record = Record(id=fields.id, repo=fields.repo, slug=fields.slug,
                    error_message=fields.error_message,
                    message_pattern=fields.message_pattern, origin=origin,
                    analyzed_at=fields.analyzed_at, tags=tuple(fields.tags),
                    background_tag=fields.background_tag,
                    error_class=fields.error_class, documentation=fields.description,
                    # Page titles tell records with one message apart by file and line; the
                    # related lists show other errors of the same file, nearest lines first.
                    file_path=fields.file_path, line_number=fields.line_number,
                    dataset_version=fields.dataset_version,
                    # Listings are filtered and charted by these (errdocs.catalog.facets).
                    error_type=fields.error_type, severity=fields.severity,
                    handling_strategy=fields.handling_strategy)
    content = bytes.fromhex(fields.digest)[:16] if fields.digest else key
    return Light(record, key.hex(), *place, size, content)



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
            if _key(raw).hex() != light.line_hash:
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
