"""What listings are charted (and would be filtered) by: a few fields of each record's entry.

Functions over :class:`~errdocs.catalog.model.Entry` only (the light records' fields), so
they can become queries on a catalogue database. Every result is bounded: at most
:data:`SHOWN` values and the rest counted together.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from errdocs.catalog.model import Entry


@dataclass(frozen=True)
class Facet:
    """A field of an entry listings are charted by."""

    name: str
    """The record's field, e.g. ``errorType``."""
    label: str
    """What a reader calls it, e.g. ``kind``."""
    value: Callable[[Entry], str | None]
    """The entry's value (``None`` when the record has none)."""


ERROR_TYPE = Facet("errorType", "kind", lambda e: e.error_type)
SEVERITY = Facet("severity", "severity", lambda e: e.severity)
CLASS = Facet("errorClass", "class", lambda e: e.error_class)
HANDLING = Facet("handlingStrategy", "handling strategy", lambda e: e.handling)
LANGUAGE = Facet("language", "language", lambda e: e.language)
SHOWN = 8
"""Values a chart shows; the rest are one bar, "other"."""
NONE = "(none)"
"""The bar of records without a value."""


def counts(entries: Iterable[Entry], facet: Facet, shown: int = SHOWN) -> list[tuple[str, int]]:
    """The ``shown`` most common values of ``facet`` among ``entries``, most first (ties by
    value), then ``other`` for the rest, when there is a rest. Values are compared as written
    with blanks collapsed; a blank or missing value counts as :data:`NONE`."""
    found: Counter[str] = Counter()
    for entry in entries:
        found[" ".join((facet.value(entry) or "").split()) or NONE] += 1
    return top(found, shown)


def top(found: Counter[str], shown: int = SHOWN) -> list[tuple[str, int]]:
    """The ``shown`` largest of ``found`` (ties by name) and, if any are left, ``other``."""
    ranked = sorted(found.items(), key=lambda item: (-item[1], item[0]))
    head, rest = ranked[:shown], ranked[shown:]
    if rest:
        head.append(("other", sum(count for _, count in rest)))
    return head
