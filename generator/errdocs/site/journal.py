"""Pages whose Markdown an unfinished build may have rewritten, kept until a build settles them.

A unit writes its pages' Markdown in ``docs/errors/`` before MkDocs runs, and a page that is not
rendered again keeps the Markdown it has: that is right while every page's Markdown is the one
its unit's row names. A build killed (or failed) half-way breaks it: it may have written a page
that a later build, of other data or with another number of units, finds in a unit that is
current and would never write it again. So before any unit is built, the build records the page
key (:attr:`Unit.page_keys`, which decides the Markdown) of every page it will render
(``.errdocs/journal.json``). A later build renders again, whatever its unit, every recorded page
whose key now is another than one recorded: its Markdown may be either. The journal is deleted
once every unit of the plan is built, so a build that does not fail pays one small file.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import cast

from errdocs.pages.write import atomic_write, json_members, json_parts
from errdocs.units.plan import Unit, UnitKind

FILE = "journal.json"
_KEY = 16
"""Hex digits of a page key kept: enough to tell two keys apart."""

Journal = dict[str, tuple[str, ...]]
"""Page path to the (shortened) keys builds that did not finish set out to write it with,
sorted (a tuple: a set a page was ~170 bytes more, ~70 MB when a cold build at 310,000 records
records every page)."""
_PART = 4096
"""Pages written at once (:func:`record`)."""


def read(work: Path) -> Journal:
    """The journal; empty when there is none."""
    try:
        journal = json.loads((work / FILE).read_bytes())["pages"]
        # Each page's list made a tuple in place: not a second dict of every page beside the
        # first (a cold build's journal holds ~400,000 pages at 310,000 records).
        for page, keys in journal.items():
            if not isinstance(keys, list) or not all(isinstance(k, str) for k in keys):
                raise TypeError("not keys")
            journal[page] = tuple(sorted(set(keys)))
        return cast(Journal, journal)
    except FileNotFoundError:
        return {}
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        # Not readable (it is written by rename, so only a person could make it so): distrust
        # every page, as if each had been written with another key.
        return {"": ()}


def unsettled(journal: Journal, unit: Unit) -> set[str]:
    """The unit's pages whose Markdown may have been written for other inputs."""
    if not journal or unit.kind not in (UnitKind.RECORDS, UnitKind.HUB):
        return set()
    if "" in journal:
        return set(unit.page_keys.paths)
    return {page for page, key in unit.page_keys
            if page in journal and journal[page] != (key[:_KEY],)}


def record(work: Path, journal: Journal, writes: Iterable[tuple[str, str]], *,
           held: bool = True) -> Journal:
    """Add ``writes`` (page path, page key; each page once) before they are made; return the
    journal. ``held=False``: the caller does not read the journal again (a build of the whole
    plan deletes it at its end, whatever it holds): the pages are written as they come, each
    with the keys ``journal`` had for it, then ``journal``'s others, and none is held (a cold
    build records every page: its journal was ~52 MB at 310,000 records, at the plan's peak;
    ``journal`` is emptied as it is written, not copied); an empty journal is returned."""
    if not held:
        _write_unheld(work, _merged(journal, writes))
        return {}
    updated = {page: keys for page, keys in journal.items() if page}
    for page, key in writes:
        keys, short = updated.get(page, ()), key[:_KEY]
        if short not in keys:
            updated[page] = tuple(sorted((*keys, short)))
    if updated != journal:
        work.mkdir(parents=True, exist_ok=True)
        atomic_write(work / FILE, _parts(updated))
    return updated


def _merged(journal: Journal, writes: Iterable[tuple[str, str]]
            ) -> Iterator[tuple[str, tuple[str, ...]]]:
    """Each page of ``writes`` with its keys, those ``journal`` had for it added, then the
    other pages of ``journal`` (but an unreadable one's mark): ``journal`` emptied as they go."""
    for page, key in writes:
        keys, short = journal.pop(page, ()), key[:_KEY]
        yield page, keys if short in keys else tuple(sorted((*keys, short)))
    journal.pop("", None)
    while journal:
        yield journal.popitem()


def _write_unheld(work: Path, members: Iterable[tuple[str, tuple[str, ...]]]) -> None:
    """The journal of ``members`` (page, keys; each page once), written a part at a time in
    their order (none when there is none)."""
    members = iter(members)
    first = next(members, None)
    if first is None:
        return
    work.mkdir(parents=True, exist_ok=True)
    atomic_write(work / FILE, itertools.chain(
        [b'{"pages": {'], json_parts(itertools.chain([first], members), _PART, b", "),
        [b"}}"]))


def _parts(journal: Journal) -> Iterator[bytes]:
    """The journal's JSON text (``{"pages": {page: [key, ...]}}``, pages sorted), made a few
    thousand pages at a time (a cold build records every page: ~400,000 at 310,000
    records)."""
    yield b'{"pages": {'
    yield from json_members(journal, _PART, b", ")
    yield b"}}"


def settle(work: Path, journal: Journal, units: Iterable[Unit] | None) -> None:
    """``units`` are built: forget their pages. None: every unit of the plan is, and the
    pages outside it are removed (they are the manifest's stale files): the journal goes,
    whatever ``journal`` holds (a build process may have dropped its pages)."""
    if units is None:
        (work / FILE).unlink(missing_ok=True)
        return
    if not journal:
        return
    done = {page for unit in units for page in unit.page_keys.paths}
    left = {p: k for p, k in journal.items() if p not in done}
    if not left:
        (work / FILE).unlink(missing_ok=True)
    elif left != journal:
        record(work, {}, ((page, key) for page, keys in left.items() for key in keys))
