"""Machine-readable exports: each record as JSON, the record schema, a paged index.

A record's export is the dataset's envelope, ``{"record": {...}, "datasetVersion": ...}``, with
the address of the record's page beside it (``path``, and ``url`` when the site's address is
known). The record holds every field errdocs knows, as validation read it (line ends as
``\\n``, control characters dropped, impossible line numbers left out) and whole, not cut as
its page shows it; fields it did not have are left out, as are unknown fields (which ``check``
reports and the pages leave out too). So an export is itself a valid record: ``errdocs check``
reads it back to the same record, and ``/api/schema.json`` validates it.
"""

from __future__ import annotations

import json
import os
import sqlite3
import sys
import tempfile
import zlib
from collections.abc import Iterable, Iterator
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path

from errdocs.catalog.model import Catalog, build_catalog
from errdocs.catalog.scan import read_records, scan
from errdocs.catalog.texts import LightTexts
from errdocs.errors import ErrdocsError
from errdocs.pages.permalinks import Addresses, api_record_file, id_file, redirect_page
from errdocs.pages.render import Page
from errdocs.records.problems import Problem
from errdocs.records.record import Record
from errdocs.records.schema import ENVELOPE_VERSION, FIELDS, MAX_RECORD_BYTES, Kind, json_schema
from errdocs.units.plan import unit_count

SCHEMA_FILE = "api/schema.json"
INDEX_FOLDER = "api/index"
INDEX_ENTRIES = 1024
"""Entries an index page aims at; the page count is a power of two, so adding a record
changes one page (until the count doubles)."""
INDEX_MESSAGE_CHARS = 300
"""A message is cut to this in the index (the record's file holds it whole)."""


def record_fields(record: Record) -> dict[str, object]:
    """The record's fields as JSON, in the schema's order; absent ones left out."""
    data: dict[str, object] = {}
    for spec in FIELDS:
        value = getattr(record, spec.attr)
        if value is None or value == ():
            continue
        data[spec.name] = list(value) if isinstance(value, tuple) else value
    return data


def record_export(record: Record, page: str, addresses: Addresses) -> dict[str, object]:
    """The export of one record whose page is the generated page ``page`` (``o/r/s.md``)."""
    url = addresses.page_url(page)
    data: dict[str, object] = {"path": url}
    absolute = addresses.absolute(url)
    if absolute:
        data["url"] = absolute
    if record.dataset_version is not None:
        data[ENVELOPE_VERSION] = record.dataset_version
    data["record"] = record_fields(record)
    return data


def to_json(value: object, *, indent: int | None = None) -> str:
    """JSON text of ``value``: UTF-8 as is, control characters escaped (records never hold a
    lone surrogate: validation drops such records)."""
    return json.dumps(value, ensure_ascii=False, indent=indent,
                      separators=None if indent else (",", ":")) + "\n"


def record_file(record: Record, page: str, addresses: Addresses) -> tuple[str, str]:
    """``/api/records/<id>.json``: its site path and text."""
    return api_record_file(record.id), to_json(record_export(record, page, addresses))


def schema_text(addresses: Addresses) -> str:
    """``/api/schema.json``: the schema, with its address as ``$id`` when the site has one."""
    return to_json(json_schema(addresses.absolute(SCHEMA_FILE)), indent=1)


@dataclass(frozen=True, slots=True)
class IndexEntry:
    """One record in the paged index."""

    record_id: str
    """Its id."""
    message: str
    """Its message."""
    page: str
    """Its page, in the generated tree (``o/r/s.md``)."""


def index_page_of(record_id: str, pages: int) -> int:
    """The index page listing ``record_id``: the CRC-32 of its UTF-8 (zlib's, any language
    has one), modulo the page count."""
    return zlib.crc32(record_id.encode("utf-8")) % pages


def index_files(entries: Iterable[IndexEntry], addresses: Addresses) -> Iterator[Page]:
    """``/api/index.json`` (how many pages, and where) and ``/api/index/<n>.json``: the ids,
    messages (cut) and page addresses of every record, ~:data:`INDEX_ENTRIES` a page, by a
    hash of the id. Paths are relative to the site's root. A page's rows are made when its
    text is: made for every record first (with the records' own messages), the static files
    step rose 112 MB above where it ended at 310,000 records (sampled; 4 MB now)."""
    listed = list(entries)
    pages = unit_count(len(listed), INDEX_ENTRIES)
    chosen: list[list[IndexEntry]] = [[] for _ in range(pages)]
    for entry in listed:
        chosen[index_page_of(entry.record_id, pages)].append(entry)
    head = {"records": len(listed), "pages": pages, "page": f"{INDEX_FOLDER}/{{n}}.json",
            "hash": "CRC-32 (zlib) of the id's UTF-8 bytes, modulo pages",
            "columns": ["id", "message", "path", "record"]}
    del listed
    yield Page("api/index.json", to_json(head, indent=1))
    for number, members in enumerate(chosen):
        rows = sorted(_index_row(entry, addresses) for entry in members)
        body = {"page": number, "pages": pages, "columns": head["columns"], "records": rows}
        chosen[number] = []
        yield Page(f"{INDEX_FOLDER}/{number}.json", to_json(body))


def _index_row(entry: IndexEntry, addresses: Addresses) -> list[str]:
    message = entry.message
    if len(message) > INDEX_MESSAGE_CHARS:
        message = message[:INDEX_MESSAGE_CHARS] + "…"
    return [entry.record_id, message, addresses.page_url(entry.page),
            api_record_file(entry.record_id)]


def record_companions(record: Record, page: str, addresses: Addresses) -> list[Page]:
    """A record's files beside its page ``page`` (``o/r/s.md``): ``/id/<id>/`` (a redirect to
    the page) and ``/api/records/<id>.json``, paths relative to the site's root. Both depend
    on nothing but the record and its page's path."""
    target = id_file(record.id)
    return [Page(target, redirect_page(target, addresses.page_url(page), record.error_message,
                                       addresses)),
            Page(*record_file(record, page, addresses))]


def every_export(records: Iterable[Record], catalog: Catalog,
                 addresses: Addresses) -> list[Page]:
    """All the exports of ``records`` (paths relative to the site's root): each record's
    ``/id/<id>/`` page and ``/api/records/<id>.json``, the schema and the paged index. What
    a site built in one piece, such as the offline bundle, writes; ``errdocs build`` makes the
    same files unit by unit."""
    chosen = list(records)
    files = [file for record in chosen
             for file in record_companions(record, catalog.entries[record.id].path, addresses)]
    files.append(Page(SCHEMA_FILE, schema_text(addresses)))
    files += index_files((IndexEntry(r.id, r.error_message, catalog.entries[r.id].path)
                          for r in chosen), addresses)
    return files


FORMATS = ("ndjson", "sqlite")
SQLITE_APPLICATION_ID = 0x65727264
"""``errd``: marks an SQLite file as an errdocs export (the only kind ``export`` replaces)."""


class ExportError(ErrdocsError):
    """The export could not be written; nothing was."""

    consequence = "nothing was written"


@dataclass(frozen=True)
class Exported:
    """What ``errdocs export`` read and wrote."""

    records: int
    """Records written."""
    problems: list[Problem]
    """What was wrong with the input (bad records are left out)."""


def export_catalogue(paths: Iterable[Path], output: Path | None, form: str,
                     addresses: Addresses) -> Exported:
    """Write every good record's export (:func:`record_export`) as JSON Lines (to ``output``,
    or to stdout when None) or into an SQLite file, in input order. Records are read twice,
    as the build reads them (a light pass for the catalogue's addresses, then one record at a
    time), so memory does not grow with the records' text."""
    if output is not None:
        _check_replaceable(output, form)
    with tempfile.TemporaryDirectory(prefix="errdocs-export-") as tmp:
        found = scan(paths, Path(tmp))
        catalog = build_catalog((x.record for x in found.lights),
                                texts=LightTexts(found.lights))
        exports = (record_export(r, catalog.entries[r.id].path, addresses)
                   for r in read_records(found.sources, found.lights))
        if output is None:
            for item in exports:
                sys.stdout.write(to_json(item))
        else:
            _write_atomically(output, form, exports)
    return Exported(len(found.lights), found.problems)


def _check_replaceable(output: Path, form: str) -> None:
    """Refuse to replace a file that is not an earlier export of the same form."""
    if not output.exists():
        return
    if not output.is_file() or not (_is_sqlite_export(output) if form == "sqlite"
                                    else _is_ndjson_export(output)):
        raise ExportError(f"{output}: exists and is not an errdocs {form} export; refusing to "
                          "replace it (choose another --output)")


def _is_sqlite_export(path: Path) -> bool:
    try:
        with closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as db:
            return bool(db.execute("PRAGMA application_id").fetchone()[0]
                        == SQLITE_APPLICATION_ID)
    except sqlite3.DatabaseError:
        return False


def _is_ndjson_export(path: Path) -> bool:
    with path.open("rb") as handle:
        first = handle.readline(MAX_RECORD_BYTES)
    if not first.strip():
        return path.stat().st_size == 0
    try:
        value = json.loads(first)
    except ValueError:
        return False
    return isinstance(value, dict) and "record" in value and "path" in value


def _write_atomically(output: Path, form: str, exports: Iterable[dict[str, object]]) -> None:
    output.parent.mkdir(parents=True, exist_ok=True)
    partial = output.with_name(f".{output.name}.partial")
    partial.unlink(missing_ok=True)
    try:
        if form == "sqlite":
            _write_sqlite(partial, exports)
        else:
            with partial.open("w", encoding="utf-8", newline="\n") as handle:
                for item in exports:
                    handle.write(to_json(item))
        os.replace(partial, output)
    except BaseException:
        partial.unlink(missing_ok=True)
        raise


def _write_sqlite(path: Path, exports: Iterable[dict[str, object]]) -> None:
    """One table, ``records``: a column per field (lists as JSON text), the page's address,
    and the whole export as ``json``."""
    columns = ["id", "path", "url", "dataset_version", *(f.attr for f in FIELDS if f.name != "id"),
               "json"]
    kinds = {f.attr: "INTEGER" if f.kind is Kind.INT else "TEXT" for f in FIELDS}
    schema = ", ".join(f"{c} {kinds.get(c, 'TEXT')}{' PRIMARY KEY' if c == 'id' else ''}"
                       for c in columns)
    with closing(sqlite3.connect(path)) as db:
        db.execute(f"PRAGMA application_id = {SQLITE_APPLICATION_ID}")
        db.execute(f"CREATE TABLE records ({schema})")
        rows = (_sqlite_row(item) for item in exports)
        db.executemany(f"INSERT INTO records VALUES ({', '.join('?' * len(columns))})", rows)
        db.commit()


def _sqlite_row(item: dict[str, object]) -> tuple[object, ...]:
    record = item["record"]
    assert isinstance(record, dict)
    values: list[object] = [record["id"], item["path"], item.get("url"),
                            item.get(ENVELOPE_VERSION)]
    for spec in FIELDS:
        if spec.name == "id":
            continue
        value = record.get(spec.name)
        if isinstance(value, list):
            value = json.dumps(value, ensure_ascii=False)
        elif isinstance(value, int) and not -(1 << 63) <= value < 1 << 63:
            value = str(value)  # SQLite's integers are 64-bit; the dataset's need not be
        values.append(value)
    values.append(to_json(item).rstrip("\n"))
    return tuple(values)
