"""The hosted site's search index as units of the build.

The records are indexed in pieces (:func:`errdocs.search.fulltext.piece_count`); piece *p* holds
the records of the record units whose number is *p* modulo the piece count, so one changed
record re-indexes one piece. Piece 0 also indexes the hand-written pages (the root unit's pages
marked ``data-pagefind-body``) and is written to ``site/pagefind/``; the others go to
``site/pagefind/more/N/``, which the site's search merges (``errdocs-pieces.json``).
"""

from __future__ import annotations

import os
import shutil
import time
from collections.abc import Iterator, Mapping
from pathlib import Path

from errdocs.catalog.scan import read_records
from errdocs.search.fulltext import piece_count, search_record, write_piece
from errdocs.site.merge import record_files
from errdocs.units.build import Context, UnitResult, finish, unit_dir
from errdocs.units.plan import Unit, UnitKind, stable_hash
from errdocs.units.state import Built

VERSION = "1"
"""Bump when the indexed text changes, so every piece is indexed again."""


def plan_search(units: list[Unit], record_units: int, global_key: str) -> list[Unit]:
    """One search unit per piece, keyed by its record units' keys (and the root's, for 0)."""
    pieces = piece_count(record_units)
    root = next(u for u in units if u.kind is UnitKind.ROOT)
    members: list[list[Unit]] = [[] for _ in range(pieces)]
    for unit in units:
        if unit.kind is UnitKind.RECORDS:
            members[int(unit.name.split("-")[1]) % pieces].append(unit)
    planned = []
    for piece, chosen in enumerate(members):
        key = stable_hash(global_key, VERSION, str(pieces), root.key if piece == 0 else "",
                          *(u.key for u in chosen))
        ids = tuple(i for u in chosen for i in u.members)
        planned.append(Unit(f"search-{piece:04d}", UnitKind.SEARCH, ids, key))
    return planned


def build_search_unit(ctx: Context, unit: Unit, pieces: int) -> UnitResult:
    """Index one piece into the unit's ``site.new`` folder, then swap it in (the caller
    removes the unit's row before and writes it after, with the count of pages indexed)."""
    start = time.perf_counter()
    folder = unit_dir(ctx.work_dir, unit.name)
    piece = int(unit.name.split("-")[1])
    fresh = folder / "site.new"
    shutil.rmtree(fresh, ignore_errors=True)
    target = fresh / "pagefind" if piece == 0 else fresh / "pagefind" / "more" / str(piece)
    lights = [ctx.lights[i] for i in unit.members]
    records = (search_record(r, ctx.catalog) for r in read_records(ctx.sources, lights))
    html = _marked_pages(unit_dir(ctx.work_dir, "root") / "site") if piece == 0 else iter(())
    count = write_piece(records, target, pieces, html)
    record_files(folder, unit.key, fresh)
    finish(folder)
    return UnitResult(unit.name, count, 0, time.perf_counter() - start)


def searchable_pages(rows: Mapping[str, Built], units: list[Unit]) -> int:
    """Pages in the search index, as its units' rows recorded."""
    return sum(rows[u.name].searchable for u in units if u.name in rows)


def _marked_pages(site: Path) -> Iterator[tuple[str, str]]:
    """(URL, HTML) of the built pages that ask to be indexed (``data-pagefind-body``)."""
    for folder, dirs, files in os.walk(site):
        dirs.sort()
        if "index.html" in files:
            path = Path(folder, "index.html")
            text = path.read_text("utf-8")
            if "data-pagefind-body" in text:
                relative = Path(folder).relative_to(site).as_posix()
                yield ("/" if relative == "." else f"/{relative}/"), text
