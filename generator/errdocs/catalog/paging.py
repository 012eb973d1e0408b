"""Bounded listing pages: a list longer than :data:`PAGE_SIZE` is split over numbered pages.

Page 1 keeps the listing's own path (``tags/io.md``); page *n* goes to a folder named after
it (``tags/io/2.md``). No record or group page can take such a path: a record page never sits
in a folder of its repository, and ``index`` is a reserved segment, so ``owner/repo/index/2.md``
and ``tags/index/2.md`` are free. The pager shows a window of page numbers, never all of them,
so no page grows with the number of records.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TypeVar

PAGE_SIZE = 100
"""Rows on one listing page."""
WINDOW = 2
"""Page numbers shown on each side of the current one."""

T = TypeVar("T")


@dataclass(frozen=True)
class PagerLink:
    """One item of a pager."""

    label: str
    """What the reader sees: a number, "Previous" or "Next"."""
    number: int
    """The page it leads to (1-based)."""
    current: bool = False
    """True for the page being shown (printed without a link)."""


def page_count(total: int, size: int = PAGE_SIZE) -> int:
    """How many pages ``total`` rows need (at least one, even when empty)."""
    return max(1, -(-total // size))


def chunk(rows: Sequence[T], number: int, size: int = PAGE_SIZE) -> Sequence[T]:
    """Rows on page ``number`` (1-based)."""
    return rows[(number - 1) * size : number * size]


def page_path(first: str, number: int) -> str:
    """Path of page ``number`` of a listing whose first page is ``first`` (``x.md``)."""
    if number == 1:
        return first
    return f"{first.removesuffix('.md')}/{number}.md"


def pager(number: int, count: int) -> list[PagerLink]:
    """Previous, first, a window around ``number``, last, next: at most 9 links."""
    if count <= 1:
        return []
    shown = {1, count, *range(max(1, number - WINDOW), min(count, number + WINDOW) + 1)}
    links = [PagerLink("Previous", number - 1)] if number > 1 else []
    links += [PagerLink(str(n), n, n == number) for n in sorted(shown)]
    if number < count:
        links.append(PagerLink("Next", number + 1))
    return links
