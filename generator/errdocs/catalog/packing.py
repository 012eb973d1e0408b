"""What per-record stores are packed with: the values that repeat across records
(repositories, classes, files...) kept once and taken by number (:class:`Numbered`: the light
copies, :mod:`errdocs.catalog.lights`, and the catalogue's entries,
:mod:`errdocs.catalog.entries`), and rows of fields marshalled one after the other
(:class:`PackedRows`: the entries, and a site's lookup targets,
:class:`errdocs.lookup.index.SiteTargets`)."""

from __future__ import annotations

import marshal
from array import array
from typing import Any


class Numbered:
    """Strings numbered as they are first given (0 stands for none)."""

    def __init__(self) -> None:
        self.values: list[str | None] = [None]
        """The strings, by number."""
        self._numbers: dict[str, int] | None = {}
        """Each string's number, while strings are added (:meth:`settle`)."""

    def number(self, value: str | None) -> int:
        """``value``'s number (a new one if it has none yet; 0 for ``None``)."""
        if value is None:
            return 0
        if self._numbers is None:
            self._numbers = {text: n for n, text in enumerate(self.values) if text is not None}
        number = self._numbers.get(value)
        if number is None:
            number = self._numbers[value] = len(self.values)
            self.values.append(value)
        return number

    def settle(self) -> None:
        """Once every string is given: the table numbering them goes (~25 MB for the light
        copies at 310,000 records; made again should one more be given)."""
        self._numbers = None

    def __getstate__(self) -> list[str | None]:
        return self.values  # (the numbering table is made again when needed)

    def __setstate__(self, values: list[str | None]) -> None:
        self.values, self._numbers = values, None


class PackedRows:
    """Rows of :mod:`marshal`-able fields, one after the other in one ``bytearray``: a
    ``bytes`` a row took 49 bytes more (its header, malloc's, a list's pointer), and
    :func:`marshal.dumps`' results, grown past 512 bytes as they are written, sat in the C
    heap apart from Python's arenas."""

    def __init__(self) -> None:
        self._packed = bytearray()
        self._ends = array("Q", [0])
        """Where each row ends in :attr:`_packed` (row ``n`` starts at ``_ends[n]``)."""

    def append(self, fields: tuple[Any, ...]) -> None:
        """Add a row after the others."""
        self._packed += marshal.dumps(fields)
        self._ends.append(len(self._packed))

    def __getitem__(self, number: int) -> Any:
        """Row ``number``'s fields (a tuple; ``number`` counts from 0, never from the end)."""
        return marshal.loads(self._packed[self._ends[number]:self._ends[number + 1]])

    def __len__(self) -> int:
        return len(self._ends) - 1
