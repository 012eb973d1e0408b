"""A zip archive written a member at a time, holding nothing per member.

:class:`zipfile.ZipFile` keeps a ``ZipInfo`` (~500 bytes) for every member until it closes, to
write the central directory then: ~700 MB for the ~1,380,000 files of a 310,000-record site,
which the offline bundle zips. :class:`ZipWriter` writes each member's central directory
record to a spool file as the member is written and copies the spool after the last one.
It writes what ``ZipFile`` writes for the bundle (deflated with zlib's default level, a fixed
date, Unix permissions, UTF-8 names flagged, ZIP64 records past its limits), and any zip
reader reads it.
"""

from __future__ import annotations

import shutil
import struct
import tempfile
import zlib
from pathlib import Path
from types import TracebackType
from typing import BinaryIO

ZIP64_LIMIT = (1 << 31) - 1
"""Offsets and sizes past this take ZIP64 records (``zipfile``'s limit: some readers take
the 32-bit fields as signed)."""
COUNT_LIMIT = 0xFFFF
"""Members past this take the ZIP64 end records."""
COPY_CHUNK = 1 << 20
"""Bytes of a file read and compressed at a time."""

_LOCAL = struct.Struct("<4s2B4HL2L2H")
_CENTRAL = struct.Struct("<4s4B4HL2L5H2L")
_END64 = struct.Struct("<4sQ2H2L4Q")
_LOCATOR64 = struct.Struct("<4sLQL")
_END = struct.Struct("<4s4H2LH")
_CRC_AT = 14
"""Where a local header's CRC-32 and sizes start (patched once a streamed member is in)."""
_DEFLATED = 8
_UTF8_NAME = 0x800
_VERSION, _VERSION64 = 20, 45
_UNIX = 3
_MODE = 0o644
"""Every member's permissions (read by all, written by its owner)."""


class ZipTooLarge(ValueError):
    """A member over the writer's limit (2 GiB): ZIP64 sizes in local headers are not
    written (no file of a site comes near)."""


class ZipWriter:
    """Members written to ``target`` (a new file, at its start) in a ``with`` block, whose
    end without an exception writes the central directory (:meth:`finish`).

    ``date_time`` is every member's date; ``spool_dir`` the folder of the spool (beside the
    zip: its file system has room for it, ~4% of the zip); ``zip64_limit`` (offsets) and
    ``count_limit`` (members) are there for tests: ZIP64 records without gigabytes."""

    def __init__(self, target: BinaryIO, date_time: tuple[int, int, int, int, int, int],
                 spool_dir: Path | None = None, *, zip64_limit: int = ZIP64_LIMIT,
                 count_limit: int = COUNT_LIMIT) -> None:
        self._target = target
        self._spool = tempfile.TemporaryFile(dir=spool_dir)  # noqa: SIM115 - see __exit__
        year, month, day, hour, minute, second = date_time
        self._date = (year - 1980) << 9 | month << 5 | day
        self._time = hour << 11 | minute << 5 | second // 2
        self._zip64_limit, self._count_limit = zip64_limit, count_limit
        self._count = 0

    def __enter__(self) -> ZipWriter:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        try:
            if kind is None:
                self.finish()
        finally:
            self._spool.close()

    def add_bytes(self, name: str, data: bytes) -> None:
        """One member holding ``data``."""
        packer = zlib.compressobj(zlib.Z_DEFAULT_COMPRESSION, zlib.DEFLATED, -15)
        packed = packer.compress(data) + packer.flush()
        encoded, flags = _name(name)
        offset = self._target.tell()
        crc = zlib.crc32(data)
        self._check(name, len(data), len(packed))
        self._target.write(self._local(encoded, flags, crc, len(packed), len(data)))
        self._target.write(packed)
        self._central(encoded, flags, crc, len(packed), len(data), offset)

    def add_file(self, name: str, path: Path) -> None:
        """One member holding the file ``path``, read and compressed a chunk at a time (its
        header's CRC and sizes written once they are known)."""
        packer = zlib.compressobj(zlib.Z_DEFAULT_COMPRESSION, zlib.DEFLATED, -15)
        encoded, flags = _name(name)
        offset = self._target.tell()
        self._target.write(self._local(encoded, flags, 0, 0, 0))
        crc = size = packed = 0
        with open(path, "rb") as source:
            while chunk := source.read(COPY_CHUNK):
                crc, size = zlib.crc32(chunk, crc), size + len(chunk)
                packed += self._write(packer.compress(chunk))
        packed += self._write(packer.flush())
        self._check(name, size, packed)
        end = self._target.tell()
        self._target.seek(offset + _CRC_AT)
        self._target.write(struct.pack("<3L", crc, packed, size))
        self._target.seek(end)
        self._central(encoded, flags, crc, packed, size, offset)

    def finish(self) -> None:
        """Write the central directory (the spool's copy) and the end records."""
        start = self._target.tell()
        self._spool.seek(0)
        shutil.copyfileobj(self._spool, self._target, COPY_CHUNK)
        self._end(start, self._target.tell() - start)

    def _write(self, data: bytes) -> int:
        self._target.write(data)
        return len(data)

    def _check(self, name: str, size: int, packed: int) -> None:
        if max(size, packed) > ZIP64_LIMIT:
            raise ZipTooLarge(f"{name}: {size:,} bytes, over the {ZIP64_LIMIT:,} a member "
                              "may hold")

    def _local(self, name: bytes, flags: int, crc: int, packed: int, size: int) -> bytes:
        return _LOCAL.pack(b"PK\x03\x04", _VERSION, 0, flags, _DEFLATED, self._time,
                           self._date, crc, packed, size, len(name), 0) + name

    def _central(self, name: bytes, flags: int, crc: int, packed: int, size: int,
                 offset: int) -> None:
        extra, version = b"", _VERSION
        if offset > self._zip64_limit:  # the offset in a ZIP64 extra field
            extra, version, offset = struct.pack("<2HQ", 1, 8, offset), _VERSION64, 0xFFFFFFFF
        self._spool.write(_CENTRAL.pack(
            b"PK\x01\x02", version, _UNIX, version, 0, flags, _DEFLATED, self._time,
            self._date, crc, packed, size, len(name), len(extra), 0, 0, 0,
            _MODE << 16, offset) + name + extra)
        self._count += 1

    def _end(self, start: int, size: int) -> None:
        count, limit = self._count, self._zip64_limit
        if count > self._count_limit or start > limit or size > limit:
            at = self._target.tell()
            self._target.write(_END64.pack(b"PK\x06\x06", 44, _VERSION64, _VERSION64, 0, 0,
                                           count, count, size, start))
            self._target.write(_LOCATOR64.pack(b"PK\x06\x07", 0, at, 1))
            count, start, size = (min(count, 0xFFFF), min(start, 0xFFFFFFFF),
                                  min(size, 0xFFFFFFFF))
        self._target.write(_END.pack(b"PK\x05\x06", 0, 0, count, count, size, start, 0))


def _name(name: str) -> tuple[bytes, int]:
    """The name's bytes and flags as ``zipfile`` writes them: ASCII, else UTF-8 flagged."""
    try:
        return name.encode("ascii"), 0
    except UnicodeEncodeError:
        return name.encode("utf-8"), _UTF8_NAME
