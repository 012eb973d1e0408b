"""What each unit's output was built from: the ``units`` table of the catalogue.

A unit's output is ``.errdocs/units/NAME/site``; its row (:class:`Built`) names the key it was
built from, with what the next build of the unit reuses (each page's key, each record's line
hash). A row only ever names a complete output: the rows of the units a build is about to
build are removed, in one committed transaction, before any of their outputs is touched
(:func:`forget`), and a unit's row is written once its output is complete (:func:`keep`). So
a kill anywhere leaves units either with a row naming what is there or with no row, and a unit
without a row is built again from nothing, as a cold build builds it.

Only the build's main process writes rows, one short transaction at a time, when a unit's
result comes back from a worker: workers get the row of their unit with their slice of the
context and never open the catalogue, so no two processes write it at once (no lock to wait
for or fail on) and a worker killed with its build leaves nothing half-written.

A unit folder leaves its machine without the catalogue (``--shard`` slices collected into one
project for ``errdocs merge``): a slice writes each of its current units' row beside its output
(``stamp.json``, :func:`hand_off`, as earlier errdocs kept them there), and every build first
takes the ``stamp.json`` files it finds into the table and removes them (:func:`adopt`),
before it touches any output; an output is not touched between a slice's end and the next
build's start, so the file names what is there.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path

from errdocs.catalog.store import Catalogue
from errdocs.pages.write import atomic_write

HAND_OFF = "stamp.json"
"""A unit's row, in its folder, for another machine (see the module's docstring)."""


@dataclass(frozen=True)
class Built:
    """What a unit's output was built from (a row of ``units``)."""

    key: str
    """The unit's key."""
    global_key: str = ""
    """The global key then (:attr:`errdocs.units.build.Context.global_key`)."""
    render: str = ""
    """The render key then (:attr:`errdocs.units.build.Context.render_key`)."""
    pages: str = "{}"
    """Each page's key (generated-tree path to key), as JSON text: decoded only for the units
    a build builds (:meth:`page_keys`)."""
    lines: str = "{}"
    """Each record's short line hash (id to hash; record units), as JSON text."""
    searchable: int = 0
    """Pages a search unit indexed."""

    def page_keys(self) -> dict[str, str]:
        """:attr:`pages`, decoded."""
        return _decoded(self.pages)

    def line_hashes(self) -> dict[str, str]:
        """:attr:`lines`, decoded."""
        return _decoded(self.lines)


def _decoded(text: str) -> dict[str, str]:
    value = json.loads(text)
    return value if isinstance(value, dict) else {}


def read(work: Path, full: Collection[str] = ()) -> dict[str, Built]:
    """Every unit's row, by name (none when there is no catalogue, one of another errdocs or
    one that cannot be read: its units are built again); the page keys and line hashes only
    in the rows of ``full``, the units a build builds (at 310,000 records every unit's are
    ~50 MB)."""
    with Catalogue(work, keep=False) as catalogue:
        db = catalogue.db
        if db is None:
            return {}
        try:
            rows = {name: Built(key, global_key, render, searchable=searchable)
                    for name, key, global_key, render, searchable in db.execute(
                        "SELECT name, key, global, render, searchable FROM units")}
            for name in full:
                if name in rows:
                    pages, lines = db.execute("SELECT pages, lines FROM units WHERE name = ?",
                                              (name,)).fetchone()
                    rows[name] = replace(rows[name], pages=pages, lines=lines)
        except sqlite3.Error:  # damaged: the next write (the scan's first) says so
            return {}
    return rows


def current(work: Path, rows: Mapping[str, Built], name: str, key: str) -> bool:
    """True when unit ``name``'s output is there and was built from ``key``."""
    row = rows.get(name)
    return row is not None and row.key == key and (work / "units" / name / "site").is_dir()


def forget(work: Path, names: Iterable[str]) -> None:
    """Remove the rows of ``names`` (committed): before their outputs are touched."""
    wanted = list(names)
    if wanted:
        _write(work, wanted, {})


def keep(work: Path, rows: Mapping[str, Built]) -> None:
    """Write ``rows`` (committed): once their outputs are complete."""
    _write(work, [], rows)


def _write(work: Path, gone: list[str], rows: Mapping[str, Built]) -> None:
    """Remove the rows of ``gone`` and write ``rows``, in one transaction."""
    with Catalogue(work) as catalogue, catalogue.writing():
        db = catalogue.db
        assert db is not None
        db.executemany("DELETE FROM units WHERE name = ?", ((name,) for name in gone))
        db.executemany("INSERT OR REPLACE INTO units VALUES (?, ?, ?, ?, ?, ?, ?)",
                       ((name, row.key, row.global_key, row.render, row.pages, row.lines,
                         row.searchable) for name, row in rows.items()))
        catalogue.commit(prune=False)


def hand_off(work: Path, names: Iterable[str]) -> None:
    """Write the rows of ``names`` (those that have one) into their folders: a ``--shard``
    slice's units, which leave this machine without the catalogue."""
    wanted = set(names)
    rows = read(work, wanted)
    for name in wanted:
        row = rows.get(name)
        if row is not None:
            atomic_write(work / "units" / name / HAND_OFF, json.dumps({
                "key": row.key, "global": row.global_key, "render": row.render,
                "pages": row.page_keys(), "lines": row.line_hashes(),
                "searchable": row.searchable}).encode("utf-8"))


def adopt(work: Path) -> None:
    """Take the ``stamp.json`` files of the unit folders (a slice's hand-off, or what an
    earlier errdocs kept there) into the table, then remove them: before any output is
    touched. A file that is not such a row is removed and its unit built again."""
    files = sorted((work / "units").glob(f"*/{HAND_OFF}"))
    if not files:
        return
    rows = {}
    for file in files:
        row = _from_file(file)
        if row is not None:
            rows[file.parent.name] = row
    # A file that holds no row still says the unit's earlier row is not its output's.
    _write(work, [f.parent.name for f in files if f.parent.name not in rows], rows)
    for file in files:
        file.unlink(missing_ok=True)


def _from_file(file: Path) -> Built | None:
    """The row a ``stamp.json`` holds; None when it holds none."""
    try:
        data = json.loads(file.read_text("utf-8"))
        key = data["key"]
        pages, lines = data.get("pages", {}), data.get("lines", {})
        searchable = data.get("searchable", 0)
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None
    if not (isinstance(key, str) and isinstance(pages, dict) and isinstance(lines, dict)
            and isinstance(searchable, int)):
        return None
    return Built(key, str(data.get("global", "")), str(data.get("render", "")),
                 json.dumps(pages), json.dumps(lines), searchable)
