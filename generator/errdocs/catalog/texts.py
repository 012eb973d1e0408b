"""What listings show of a record that its catalogue entry does not hold: the first sentence of
what the error means (its summary) and when it was analysed.

Held in every entry, these two were ~270 bytes a record of the build process's memory (~85 MB
at 310,000 records) from the catalogue step to the plan's end, though only a few steps read
them: the model's rows (written once), the listings' filter rows, the home pages' list of the
records analysed last and the listing pages a hub unit renders. A catalogue made here holds
them until its model's rows are written (:class:`HeldTexts`); from then on they are read from
those rows, a batch at a time (:class:`RowTexts`). An entry keeps a hash of its summary
(:attr:`errdocs.catalog.model.Entry.summary_key`), which is what the keys of listing pages and
filter rows need to change when a summary does.
"""

from __future__ import annotations

import hashlib
import sqlite3
from abc import ABC, abstractmethod
from collections.abc import Iterable, Iterator, Mapping
from itertools import islice
from pathlib import Path
from typing import Any

from errdocs.catalog.lights import Lights
from errdocs.errors import BuildFailed
from errdocs.pages.short import summary_of

BATCH = 500
"""Records whose summaries one query reads (SQLite takes at most 999 parameters in older
versions)."""
READ_WAIT = 60.0
"""Seconds a read of the catalogue's rows waits for a writer's lock: a hub unit's worker reads
them while the build process writes each built unit's row (short transactions; SQLite's
default wait, 5 s, is short on a loaded machine)."""


def summary_key(summary: str) -> int:
    """A hash of ``summary`` as an int below 2**62: what an entry keeps of it (a listing page's
    key, a filter row file's, whether a refresh moved an entry)."""
    digest = hashlib.blake2b(summary.encode(), digest_size=8).digest()
    return int.from_bytes(digest, "little") >> 2


class Texts(ABC):
    """Each record's summary and analysis time, by record id."""

    def summaries(self, record_ids: Iterable[str]) -> dict[str, str]:
        """The summary of each of ``record_ids`` (all must be the catalogue's)."""
        ids = list(record_ids)
        return {i: summary for i, (summary, _at) in zip(ids, self.of(ids), strict=True)}

    @abstractmethod
    def times(self) -> Iterator[tuple[str, str | None]]:
        """Every record's id and ``analyzedAt`` as written (``None`` when it has none)."""

    @abstractmethod
    def of(self, record_ids: Iterable[str]) -> Iterator[tuple[str, str | None]]:
        """Each of ``record_ids``' summary and ``analyzedAt``, in their order."""


class HeldTexts(Texts):
    """Texts held in memory: what :func:`errdocs.catalog.model.build_catalog` makes, and what a
    hub unit's slice of the catalogue carries of its listings' records."""

    def __init__(self, summaries: Mapping[str, str] | None = None,
                 times: Mapping[str, str | None] | None = None) -> None:
        self._summaries = dict(summaries or {})
        self._times = dict(times or {})

    def times(self) -> Iterator[tuple[str, str | None]]:
        return iter(self._times.items())

    def of(self, record_ids: Iterable[str]) -> Iterator[tuple[str, str | None]]:
        for record_id in record_ids:
            try:
                yield self._summaries[record_id], self._times.get(record_id)
            except KeyError:
                raise BuildFailed(f"no summary kept for record {record_id!r}") from None

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, HeldTexts) and self._summaries == other._summaries
                and self._times == other._times)

    def __repr__(self) -> str:
        return f"HeldTexts({len(self._summaries)} summaries)"


class LightTexts(Texts):
    """Texts made again from a scan's light copies, a batch at a time (what a build makes its
    catalogue with: each summary made from the light copy's description, as its entry's hash
    was, and dropped; none is held)."""

    def __init__(self, lights: Lights) -> None:
        self._lights = lights

    def times(self) -> Iterator[tuple[str, str | None]]:
        return ((x.record.id, x.record.analyzed_at) for x in self._lights)

    def of(self, record_ids: Iterable[str]) -> Iterator[tuple[str, str | None]]:
        wanted = iter(record_ids)
        while batch := list(islice(wanted, BATCH)):
            found = {x.record.id: (summary_of(x.record), x.record.analyzed_at)
                     for x in self._lights.many(batch)}
            yield from (found.get(i) or _missing(i) for i in batch)


def _missing(record_id: str) -> tuple[str, str | None]:
    raise BuildFailed(f"no light copy of record {record_id!r} to read its summary from; "
                      "build again")


class RowTexts(Texts):
    """Texts read from the rows of model ``model`` in the catalogue database ``path``
    (:mod:`errdocs.catalog.rows`), a batch at a time, on a read-only connection opened when
    first asked (and not pickled: a copy opens its own)."""

    def __init__(self, path: Path, model: int) -> None:
        self.path, self.model = path, model
        self._db: sqlite3.Connection | None = None

    def times(self) -> Iterator[tuple[str, str | None]]:
        # A batch a query (each read whole, so no statement stays open between them: the
        # memo writes to the same database meanwhile).
        seq = -1
        while rows := self._rows("SELECT seq, record_id, analyzed_at FROM model_entries "
                                 "WHERE model = ? AND seq > ? ORDER BY seq LIMIT ?",
                                 (self.model, seq, BATCH * 4)):
            yield from ((i, at) for _seq, i, at in rows)
            seq = rows[-1][0]

    def of(self, record_ids: Iterable[str]) -> Iterator[tuple[str, str | None]]:
        wanted = iter(record_ids)
        while batch := list(islice(wanted, BATCH)):
            marks = ", ".join("?" * len(batch))
            found = {i: (text, at) for i, text, at in self._rows(
                "SELECT record_id, summary, analyzed_at FROM model_entries "
                f"INDEXED BY model_entries_id WHERE model = ? AND record_id IN ({marks})",
                (self.model, *batch))}
            yield from (found.get(i) or self._missing(i) for i in batch)

    def _missing(self, record_id: str) -> tuple[str, str | None]:
        raise BuildFailed(f"{self.path}: no summary for record {record_id!r} in the "
                          "catalogue's rows; build again")

    def _rows(self, query: str, parameters: tuple[Any, ...]) -> list[Any]:
        try:
            if self._db is None:
                self._db = sqlite3.connect(f"{self.path.resolve().as_uri()}?mode=ro", uri=True,
                                           isolation_level=None, check_same_thread=False,
                                           timeout=READ_WAIT)
            return self._db.execute(query, parameters).fetchall()
        except sqlite3.Error as exc:
            raise BuildFailed(f"{self.path}: the catalogue's rows cannot be read ({exc}); "
                              "build again") from None

    def close(self) -> None:
        if self._db is not None:
            self._db.close()
            self._db = None

    def __getstate__(self) -> dict[str, Any]:
        return {"path": self.path, "model": self.model}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.path, self.model, self._db = state["path"], state["model"], None

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, RowTexts) and (self.path, self.model)
                == (other.path, other.model))

    def __repr__(self) -> str:
        return f"RowTexts({str(self.path)!r}, {self.model})"
