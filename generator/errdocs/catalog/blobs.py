"""Values kept as blobs of the catalogue, written and read in blocks, never whole.

A value is a sequence of items, each :mod:`marshal`'s bytes alone after a head that marks and
counts them, checked by a digest before anything is decoded (bytes a disk damaged could ask
:mod:`marshal` for any amount of memory). Bound whole, a large value's bytes were made at once,
copied by SQLite and passed through its page cache: the units' memo row was 62 MB at 310,000
records, and writing the data files' rows added ~110 MB (sampled; the listings' row is 281 KB
at 2,000 records), both at the preparation's peak.
"""

from __future__ import annotations

import hashlib
import io
import marshal
import sqlite3
from collections.abc import Callable, Collection, Iterator
from typing import Any, Protocol

from errdocs.collector import collector_paused

BLOCK = 1 << 20
"""Bytes written or read at once."""
MARK = "errdocs memo items"
"""What a blob's bytes begin with (then how many items)."""
FAILED = (ValueError, TypeError, EOFError, KeyError, IndexError, AttributeError)
"""What decoding bytes that are not what :func:`write_items` wrote may raise."""


def hasher() -> Any:
    """The digest a blob's bytes are checked by."""
    return hashlib.blake2b(digest_size=16)


def blocks(items: Collection[Any]) -> Iterator[bytes]:
    """The bytes of ``items`` (each item alone, after a head that counts them), in blocks of
    about :data:`BLOCK` bytes."""
    block = [marshal.dumps((MARK, len(items)))]
    size = len(block[0])
    for item in items:
        data = marshal.dumps(item)
        block.append(data)
        size += len(data)
        if size >= BLOCK:
            yield b"".join(block)
            block, size = [], 0
    if block:
        yield b"".join(block)


def write_items(db: sqlite3.Connection, table: str, column: str, rowid: int,
                items: Collection[Any]) -> None:
    """Write ``items`` as the blob in ``column`` of row ``rowid`` of ``table`` (in the
    caller's transaction, through a small page cache: the catalogue's own,
    :data:`errdocs.catalog.store.CACHE_KIB`), and their digest in its ``digest`` column.
    Made item by item, twice (the size and digest first: a blob does not grow). The row is
    not written after its blob: SQLite reads a row whole to rewrite it (a digest set
    afterwards put the units' 62 MB back in memory at once, +120 MB sampled), and ``column``
    must be the table's last, or SQLite makes the zeros of ``zeroblob`` in memory to write
    the columns after it."""
    size, digest = 0, hasher()
    for part in blocks(items):
        size += len(part)
        digest.update(part)
    db.execute(f"UPDATE {table} SET digest = ?, {column} = zeroblob(?) WHERE rowid = ?",
               (bytes(digest.digest()), size, rowid))
    with db.blobopen(table, column, rowid) as handle:
        for part in blocks(items):
            handle.write(part)


def read_items(db: sqlite3.Connection, table: str, column: str, rowid: int,
               digest: bytes, each: Callable[[Any], Any] | None = None) -> list[Any] | None:
    """The items :func:`write_items` wrote there, read a block at a time (``each``: what is
    kept of each item, as it is read); ``None`` when the bytes are not the ones ``digest`` was
    made of. Raises one of :data:`FAILED` when they are but do not decode (another errdocs'
    bytes)."""
    with db.blobopen(table, column, rowid, readonly=True) as handle:
        if digest_of(handle) != digest:
            return None
        handle.seek(0)
        with collector_paused():
            return items_of(handle, each)


class Source(Protocol):
    """What a blob's bytes are read from: an open blob (or bytes in memory)."""

    def read(self, length: int = -1, /) -> bytes: ...


class _Reader(io.RawIOBase):
    """Bytes read from a :class:`Source`, for :func:`marshal.load` (through a buffer)."""

    def __init__(self, handle: Source) -> None:
        self.handle = handle

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        data = self.handle.read(len(buffer))
        buffer[:len(data)] = data
        return len(data)


def digest_of(handle: Source) -> bytes:
    """The digest of what ``handle`` holds, read in blocks."""
    digest = hasher()
    while block := handle.read(BLOCK):
        digest.update(block)
    return bytes(digest.digest())


def items_of(handle: Source, each: Callable[[Any], Any] | None = None) -> list[Any]:
    """The items of bytes :func:`blocks` made, read a block at a time (raising one of
    :data:`FAILED` when they are not such bytes); ``each``: what is kept of each item, made
    as it is read (the item read is let go at once)."""
    reader = io.BufferedReader(_Reader(handle), BLOCK)
    mark, count = marshal.load(reader)
    if mark != MARK or not isinstance(count, int):
        raise TypeError("not items of errdocs")
    items = [marshal.load(reader) for _ in range(count)] if each is None else [
        each(marshal.load(reader)) for _ in range(count)]
    if reader.read(1):
        raise ValueError("bytes after the items")
    return items
