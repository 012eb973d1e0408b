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
from collections.abc import Iterable
from dataclasses import dataclass

from .permalinks import Addresses, api_record_file, fnv1a_utf16
from .records import Record
from .render import Page
from .schema import ENVELOPE_VERSION, FIELDS, json_schema
from .shards import unit_count

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
    """The index page listing ``record_id``: a hash of the id, the one ``lookup.js`` has."""
    return fnv1a_utf16(record_id) % pages


def index_files(entries: Iterable[IndexEntry], addresses: Addresses) -> list[Page]:
    """``/api/index.json`` (how many pages, and where) and ``/api/index/<n>.json``: the ids,
    messages (cut) and page addresses of every record, ~:data:`INDEX_ENTRIES` a page, by a
    hash of the id. Paths are relative to the site's root."""
    listed = list(entries)
    pages = unit_count(len(listed), INDEX_ENTRIES)
    rows: list[list[list[str]]] = [[] for _ in range(pages)]
    for entry in listed:
        message = entry.message
        if len(message) > INDEX_MESSAGE_CHARS:
            message = message[:INDEX_MESSAGE_CHARS] + "…"
        rows[index_page_of(entry.record_id, pages)].append(
            [entry.record_id, message, addresses.page_url(entry.page),
             api_record_file(entry.record_id)])
    head = {"records": len(listed), "pages": pages, "page": f"{INDEX_FOLDER}/{{n}}.json",
            "hash": "32-bit FNV-1a of the id's UTF-16 code units, modulo pages",
            "columns": ["id", "message", "path", "record"]}
    files = [Page("api/index.json", to_json(head, indent=1))]
    for number, chosen in enumerate(rows):
        chosen.sort()
        body = {"page": number, "pages": pages, "columns": head["columns"], "records": chosen}
        files.append(Page(f"{INDEX_FOLDER}/{number}.json", _rows_json(body)))
    return files


def _rows_json(body: dict[str, object]) -> str:
    """JSON with one record a line (readable diffs)."""
    rows = body.pop("records")
    assert isinstance(rows, list)
    head = json.dumps(body, ensure_ascii=False)[:-1]
    lines = ",\n".join(json.dumps(row, ensure_ascii=False) for row in rows)
    return f'{head}, "records": [\n{lines}\n]}}\n'
