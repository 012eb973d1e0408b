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
(same line hash) is not parsed or validated again, and an uncompressed JSON Lines input read
without any problem whose size, modification time and bytes are unchanged is not even read line
by line: its records come from the catalogue. Either way only their ids are registered, so
duplicate ids are still found. Records with any problem (and the files holding them) are always
read and validated again, so every problem is reported on every run.
"""

from __future__ import annotations

import hashlib
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

from errdocs.catalog.model import shown_tags
from errdocs.catalog.store import Cached, Catalogue, Placed, Stamp, stamp_of
from errdocs.errors import BuildFailed
from errdocs.pages.meta import describe_record
from errdocs.records.problems import Problem
from errdocs.records.read import Line, iter_files, read_file
from errdocs.records.record import Origin, Record
from errdocs.records.validate import Validator


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
    skipped: int = 0
    """Input files taken from the catalogue whole, unchanged since they were read."""


def scan(paths: Iterable[Path], work_dir: Path, spool_dir: Path | None = None, *,
         keep: bool = True, strict: bool = False) -> Scan:
    """Read and validate every record of ``paths``, using the catalogue in ``work_dir`` and
    (``keep``) updating it; the spool files go to ``spool_dir`` (default:
    ``work_dir/spool``). ``strict``: the catalogue is kept as it was when the input has
    problems (a ``--strict`` build that stops there writes nothing)."""
    validator = Validator()
    lights: list[Light] = []
    places = _Places(spool_dir or work_dir / "spool")
    skipped = 0
    with Catalogue(work_dir, keep=keep) as catalogue, catalogue.writing():
        try:
            for path in iter_files(paths):
                places.start(path)
                stamp = _stamp(path)
                placed = None if stamp is None else catalogue.unchanged(path, stamp)
                if placed is None:
                    catalogue.expect(path)
                    _read(path, stamp, places, catalogue, validator, lights)
                    catalogue.expect(None)
                else:
                    skipped += 1
                    lights += _replay(path, placed, places.in_place(), validator)
        finally:
            places.close()
        if strict and validator.problems:
            catalogue.close()  # undone
        else:
            catalogue.commit()
    return Scan(lights, validator.problems, places.names, skipped)


def _stamp(path: Path) -> Stamp | None:
    """What tells the bytes of ``path`` apart, when it can be read in place; ``None`` when it
    cannot be read at all, which the reader then says in its own words."""
    if path.suffix == ".gz":
        return None
    try:
        return stamp_of(path)
    except OSError:
        return None


def _read(path: Path, stamp: Stamp | None, places: _Places, catalogue: Catalogue,
          validator: Validator, lights: list[Light]) -> None:
    """Read ``path`` line by line (the reader ``check`` uses too); when it has no problem and
    is read in place, keep where its lines are for the next run."""
    problems = len(validator.problems)
    lines: list[tuple[bytes, int, int, int]] | None = []
    for item in read_file(path):
        if isinstance(item, Problem):
            validator.problems.append(item)
            continue
        key = hashlib.blake2b(item.raw, digest_size=16).digest()
        light = _light(item, key, places.place(item), catalogue, validator)
        if item.offset is None or lines is None:
            lines = None  # spooled: found again only through this run's spool
        else:
            lines.append((key, item.offset, len(item.raw), item.origin.line))
        if light is not None:
            places.keep(item)
            lights.append(light)
    if stamp is not None and lines and len(validator.problems) == problems:
        catalogue.read_clean(path, stamp, lines)


def _replay(path: Path, placed: list[Placed], source: int,
            validator: Validator) -> Iterator[Light]:
    """The lights of an unchanged input, from the catalogue: its ids registered in order, so
    duplicates across files are found as if it had been read."""
    for item in placed:
        origin = Origin(str(path), item.line)
        if validator.accept_known(item.fields.id, item.fields.digest, origin):
            yield _make_light(item.fields, origin, (source, item.offset), item.size, item.key,
                              item.fields.digest)


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


def _light(line: Line, key: bytes, place: tuple[int, int], catalogue: Catalogue,
           validator: Validator) -> Light | None:
    """The light copy of the record of ``line`` (hashed ``key``): from the catalogue when it
    was validated cleanly before, else validated (and kept there when clean)."""
    known = catalogue.known(key)
    if known is not None:
        if not validator.accept_known(known.id, known.digest, line.origin):
            return None
        return _make_light(known, line.origin, place, len(line.raw), key, known.digest)
    record = validator.take(line)
    if record is None:
        return None
    digest = validator.digest_of(record.id)
    if validator.last_clean and digest is not None:
        catalogue.add(key, Cached(
            record.id, record.repo, record.slug, record.error_message, record.message_pattern,
            record.analyzed_at, tuple(shown_tags(record)), record.background_tag,
            record.error_class, record.file_path, record.line_number, describe_record(record),
            digest, record.dataset_version, record.error_type, record.severity,
            record.handling_strategy))
    return _make_light(record, line.origin, place, len(line.raw), key, digest)


def _make_light(fields: Cached | Record, origin: Origin, place: tuple[int, int], size: int,
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
                    message_pattern=fields.message_pattern, origin=origin,
                    analyzed_at=fields.analyzed_at, tags=tuple(map(sys.intern, tags)),
                    background_tag=_intern(fields.background_tag),
                    error_class=_intern(fields.error_class), documentation=description,
                    # Page titles tell records with one message apart by file and line; the
                    # related lists show other errors of the same file, nearest lines first.
                    file_path=_intern(fields.file_path), line_number=fields.line_number,
                    dataset_version=_intern(fields.dataset_version),
                    # Listings are filtered and charted by these (errdocs.catalog.facets).
                    error_type=_intern(fields.error_type), severity=_intern(fields.severity),
                    handling_strategy=_intern(fields.handling_strategy))
    # Without a digest (never: a kept record has one) the line's hash stands in.
    content = bytes.fromhex(digest)[:16] if digest else key
    return Light(record, key.hex(), *place, size, content)


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
