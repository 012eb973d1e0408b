"""Pages whose Markdown an unfinished build may have rewritten, kept until a build settles them.

A unit writes its pages' Markdown in ``docs/errors/`` before MkDocs runs, and a page that is not
rendered again keeps the Markdown it has: that is right while every page's Markdown is the one
its unit's row names. A build killed (or failed) half-way breaks it: it may have written a page
that a later build, of other data or with another number of units, finds in a unit that is
current and would never write it again. So before any unit is built, the build records the page
key (:attr:`Unit.page_keys`, which decides the Markdown) of every page it will render, in the
catalogue's table ``journal`` (a row a page and key, committed). A later build renders again,
whatever its unit, every recorded page whose key now is another than one recorded: its Markdown
may be either. The rows go once every unit of the plan is built. ``generate`` records the pages
it writes too: it seals the generated tree, so they do not look written into by hand
(:mod:`errdocs.site.edits`) to the next build, whose units may be current.

The pages stay in the catalogue: a build reads those of one unit at a time (a cold build
records every page: ~430,000 at 310,000 records, +179 MB to the next build's plan when it read
them whole from a JSON file). A catalogue emptied (another errdocs, or damaged) empties the
journal with the units' rows: every unit is then built again, every page rendered.
"""

from __future__ import annotations

import itertools
import sqlite3
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from errdocs.catalog.store import BATCH, Catalogue
from errdocs.units.plan import Unit, UnitKind

OBSOLETE = "journal.json"
"""Where an earlier errdocs kept the journal (its catalogue is emptied: every unit is built
again, so the file is removed unread)."""
_KEY = 8
"""Bytes of a page key kept: enough to tell two keys apart."""


@dataclass(frozen=True)
class Journal:
    """The journal of a project as a build read it: its pages stay in the catalogue."""

    work: Path
    """The work folder (the catalogue's)."""
    pages: bool = False
    """It holds pages (a build that did not finish recorded them)."""
    damaged: bool = False
    """It could not be read: every page is distrusted, as if written with another key."""

    def __bool__(self) -> bool:
        return self.pages or self.damaged


def read(work: Path) -> Journal:
    """The journal: whether it holds any page (none when there is no catalogue)."""
    with Catalogue(work, keep=False) as catalogue:
        db = catalogue.db
        if db is None:
            return Journal(work)
        try:
            return Journal(work, db.execute("SELECT 1 FROM journal LIMIT 1").fetchone()
                           is not None)
        except sqlite3.Error:
            return Journal(work, damaged=True)


def unsettled(journal: Journal, unit: Unit) -> set[str]:
    """The unit's pages whose Markdown may have been written for other inputs."""
    if not journal or unit.kind not in (UnitKind.RECORDS, UnitKind.HUB):
        return set()
    if journal.damaged:
        return set(unit.page_keys.paths)
    recorded = _recorded(journal.work, unit.page_keys.paths)
    return {page for page, key in unit.page_keys
            if page in recorded and recorded[page] != {_short(key)}}


def _recorded(work: Path, pages: tuple[str, ...]) -> dict[str, set[bytes]]:
    """The keys recorded for each of ``pages`` that has any, :data:`BATCH` pages a query."""
    found: dict[str, set[bytes]] = {}
    with Catalogue(work, keep=False) as catalogue:
        db = catalogue.db
        if db is None:
            return found
        for start in range(0, len(pages), BATCH):
            part = pages[start:start + BATCH]
            rows = db.execute("SELECT page, key FROM journal WHERE page IN "
                              f"({', '.join('?' * len(part))})", part)
            for page, key in rows:
                found.setdefault(page, set()).add(key)
    return found


def record(work: Path, journal: Journal, writes: Iterable[tuple[str, str]]) -> Journal:
    """Add ``writes`` (page path, page key as hex digits) before they are made, committed;
    the journal then. Nothing is written when there is none (a build with nothing to do)."""
    rows = _rows(writes)
    first = next(rows, None)
    if first is None:
        return journal
    with Catalogue(work) as catalogue, catalogue.writing():
        db = catalogue.db
        assert db is not None
        before = db.total_changes
        db.executemany("INSERT OR IGNORE INTO journal VALUES (?, ?)",
                       itertools.chain([first], rows))
        added = db.total_changes > before
        catalogue.commit(prune=False)
    # (The damaged mark was for this build's choice of units, made already.)
    return Journal(work, journal.pages or added)


def _rows(writes: Iterable[tuple[str, str]]) -> Iterator[tuple[str, bytes]]:
    for page, key in writes:
        yield page, _short(key)


def _short(key: str) -> bytes:
    """What the journal keeps of a page key given as hex digits."""
    return bytes.fromhex(key[:2 * _KEY])


def settle(work: Path, journal: Journal, units: Iterable[Unit] | None) -> None:
    """``units`` are built: forget their pages. None: every unit of the plan is (the pages
    outside it are removed: they are the manifest's stale files): every page goes."""
    if not journal:
        return
    with Catalogue(work) as catalogue, catalogue.writing():
        db = catalogue.db
        assert db is not None
        if units is None:
            db.execute("DELETE FROM journal")
        else:
            for unit in units:
                db.executemany("DELETE FROM journal WHERE page = ?",
                               ((page,) for page in unit.page_keys.paths))
        catalogue.commit(prune=False)
