"""Sitemap dates that move only when a page's content does.

MkDocs dates every page with the build date, so a sitemap built that way says that every page
changed on every build. Here each page gets a digest of its content (for a record page, of the
record itself: see :func:`errdocs.pages.meta.record_digest`) and a small state file remembers
the date each digest was first seen. A page whose digest is unknown gets its record's
``analyzedAt`` date when it has one (so a first build, say on a fresh CI machine, still dates
records by their content), and the build date otherwise.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date
from pathlib import Path

from errdocs.pages.write import atomic_write

STATE_VERSION = 1


@dataclass(frozen=True)
class Stamp:
    """What is known about one page."""

    digest: str
    """Hash of the page's content (or of its record)."""
    date: str
    """ISO date (``YYYY-MM-DD``) the content got this digest."""


def stamp(previous: Stamp | None, digest: str, *, today: date,
          content_date: date | None = None) -> Stamp:
    """The stamp of a page now: the previous one while its content is the same."""
    if previous is not None and previous.digest == digest:
        return previous
    if previous is None and content_date is not None:
        return Stamp(digest, min(content_date, today).isoformat())
    return Stamp(digest, today.isoformat())


def read_state(path: Path) -> dict[str, Stamp]:
    """Stamps by source path; empty when the file is missing or not ours."""
    try:
        data = json.loads(path.read_text("utf-8"))
        if data.get("version") != STATE_VERSION:
            return {}
        return {key: Stamp(str(value["digest"]), str(value["date"]))
                for key, value in data["pages"].items()}
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return {}


def write_state(path: Path, stamps: dict[str, Stamp]) -> None:
    """Write the state atomically: a build that dies half-way leaves the old one."""
    path.parent.mkdir(parents=True, exist_ok=True)
    pages = {key: {"digest": s.digest, "date": s.date} for key, s in sorted(stamps.items())}
    # Without indentation: json's C encoder then writes it (each unit of a refresh writes
    # its state, ~1,200 pages: 10 ms with indent=1, in Python).
    body = json.dumps({"version": STATE_VERSION, "pages": pages}, separators=(",", ":"),
                      sort_keys=True)
    atomic_write(path, (body + "\n").encode("utf-8"))


def carry(sources: Iterable[Path], targets: Iterable[tuple[Path, Iterable[str]]]) -> None:
    """Write into each target file the dates, found in any of ``sources``, of its pages.

    Pages of a sharded build move between units when the number of units changes; their
    dates are in the state of the unit they were in, which a unit does not read.
    """
    known: dict[str, Stamp] = {}
    for source in sources:
        known.update(read_state(source))
    for target, pages in targets:
        write_state(target, {p: known[p] for p in pages if p in known})


def parse_date(value: object) -> date | None:
    """The date part of an ISO timestamp such as ``2026-08-28T05:10:05Z``, if it is one."""
    if not isinstance(value, str) or len(value) < 10:
        return None
    try:
        return date.fromisoformat(value[:10])
    except ValueError:
        return None
