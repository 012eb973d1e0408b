"""Paths with their keys, held compactly: what a unit's pages (or data files) and their input
hashes are. Held as pairs of a path and a 32-hex-digit string, each key took ~145 bytes (a
tuple and a string) beside its path: ~110 MB at 310,000 records, to the build's end. Here a
key takes its 16 bytes in one ``bytes`` object and its path a slot of one tuple."""

from __future__ import annotations

import hashlib
from array import array
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from itertools import chain
from typing import Any, overload

KEY_BYTES = 16
"""A key's size: every page, unit and data file has one, held to the build's end. 128 bits
tell changed inputs apart as surely as 256 would at any size a site reaches."""


@dataclass(frozen=True, slots=True)
class PathKeys(Sequence[tuple[str, str]]):
    """Paths, each with its key: a sequence of ``(path, key)`` pairs, the key as 32 hex
    digits (made when a pair is read: what a unit's row and hashes are made of)."""

    paths: tuple[str, ...] = ()
    """The paths, in order (a unit's generated-tree paths of its pages, or of its files)."""
    digests: bytes = b""
    """Each path's key, :data:`KEY_BYTES` bytes each, in the order of :attr:`paths`."""

    def __post_init__(self) -> None:
        # What a memo row decodes to is checked here: a row of another shape is made again.
        if not (isinstance(self.paths, tuple) and isinstance(self.digests, bytes)
                and len(self.digests) == KEY_BYTES * len(self.paths)):
            raise ValueError("not one key of 16 bytes a path")

    @classmethod
    def of(cls, pairs: Iterable[tuple[str, str | bytes]]) -> PathKeys:
        """The keys of ``pairs`` of a path and its key (32 hex digits, or its 16 bytes)."""
        paths: list[str] = []
        digests = bytearray()
        for path, key in pairs:
            paths.append(path)
            digests += bytes.fromhex(key) if isinstance(key, str) else key
        return cls(tuple(paths), bytes(digests))

    @classmethod
    def joined(cls, many: Iterable[PathKeys]) -> PathKeys:
        """The paths and keys of ``many``, one after the other."""
        many = list(many)
        return cls(tuple(chain.from_iterable(k.paths for k in many)),
                   b"".join(k.digests for k in many))

    def key(self, number: int) -> str:
        """The key of path ``number``, as 32 hex digits."""
        return self.digest(number).hex()

    def digest(self, number: int) -> bytes:
        """The key of path ``number``, its :data:`KEY_BYTES` bytes."""
        start = number * KEY_BYTES
        return self.digests[start:start + KEY_BYTES]

    def __len__(self) -> int:
        return len(self.paths)

    @overload
    def __getitem__(self, index: int) -> tuple[str, str]: ...

    @overload
    def __getitem__(self, index: slice) -> PathKeys: ...

    def __getitem__(self, index: int | slice) -> tuple[str, str] | PathKeys:
        if isinstance(index, slice):
            return PathKeys.of(list(self)[index])
        number = index + len(self.paths) if index < 0 else index
        return self.paths[index], self.key(number)

    def __iter__(self) -> Iterator[tuple[str, str]]:
        for number, path in enumerate(self.paths):
            yield path, self.key(number)


def digest(*parts: str | bytes) -> bytes:
    """A 128-bit BLAKE2b of the parts, each length-prefixed (so parts never run together): a
    key's :data:`KEY_BYTES` bytes (``.hex()``: what :func:`errdocs.units.plan.stable_hash`
    gives)."""
    made = hashlib.blake2b(digest_size=KEY_BYTES)
    for part in parts:
        data = part.encode() if isinstance(part, str) else part
        made.update(len(data).to_bytes(8, "big"))
        made.update(data)
    return made.digest()


NO_KEYS = PathKeys()
"""No path: a unit without pages of its own (the root, a search unit)."""


class PathKeysBuilder:
    """:class:`PathKeys` made a pair at a time (:meth:`add`, then :meth:`keys`)."""

    __slots__ = ("_digests", "_paths")

    def __init__(self) -> None:
        self._paths: list[str] = []
        self._digests = bytearray()

    def add(self, path: str, digest: bytes) -> None:
        """Add ``path`` with its key's :data:`KEY_BYTES` bytes."""
        self._paths.append(path)
        self._digests += digest

    def keys(self) -> PathKeys:
        """The keys added, in order."""
        return PathKeys(tuple(self._paths), bytes(self._digests))

    def __len__(self) -> int:
        return len(self._paths)


class KeysByPath(Mapping[str, bytes]):
    """The keys of several :class:`PathKeys` by path (each path in one of them), packed: a
    slot of one tuple and 16 bytes a path, found by its ``hash`` in an open-addressed table of
    positions. What a refresh holds of every earlier page while it makes its units: as a dict
    of ``bytes``, 36 MB at 310,000 records (427,492 pages), ~14 MB so, made with no more."""

    def __init__(self, many: Iterable[PathKeys]) -> None:
        many = list(many)
        self._paths = tuple(chain.from_iterable(k.paths for k in many))
        """Every path, in the order of ``many``."""
        self._digests = b"".join(k.digests for k in many)
        """Each path's key, :data:`KEY_BYTES` bytes each, in the order of :attr:`_paths`."""
        size = 1 << (2 * len(self._paths)).bit_length()  # at most half full: probes are short
        self._mask = size - 1
        self._table = array("i", [-1]) * size
        """Where each path is in :attr:`_paths`, in the slot its ``hash`` gives (or the next
        free one); -1: a free slot. The hashes are this process's: pickled, it is made again."""
        table, mask = self._table, self._mask
        for at, path in enumerate(self._paths):
            slot = hash(path) & mask
            while table[slot] != -1:
                slot = (slot + 1) & mask
            table[slot] = at

    def get(self, path: str, default: Any = None) -> Any:
        table, mask, paths = self._table, self._mask, self._paths
        slot = hash(path) & mask
        while (at := table[slot]) != -1:
            if paths[at] == path:
                return self._digests[at * KEY_BYTES:(at + 1) * KEY_BYTES]
            slot = (slot + 1) & mask
        return default

    def __getitem__(self, path: str) -> bytes:
        found: bytes | None = self.get(path)
        if found is None:
            raise KeyError(path)
        return found

    def __contains__(self, path: object) -> bool:
        return isinstance(path, str) and self.get(path) is not None

    def __iter__(self) -> Iterator[str]:
        return iter(self._paths)

    def __len__(self) -> int:
        return len(self._paths)

    def __reduce__(self) -> tuple[Any, ...]:
        # (another process hashes strings otherwise)
        return (KeysByPath, ([PathKeys(self._paths, self._digests)],))
