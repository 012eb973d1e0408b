"""What listings are charted and filtered by: a few fields of each record's entry.

Functions over :class:`~errdocs.catalog.model.Entry` only (the light records' fields), so
they can become queries on a catalogue database. Every result is bounded: at most
:data:`SHOWN` values and the rest counted together.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from errdocs.catalog.model import Entry, Group, GroupKind


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
REPO = Facet("repo", "repository", lambda e: e.repo)
SHOWN = 8
"""Values a chart shows; the rest are one bar, "other"."""
NONE = "(none)"
"""The bar of records without a value."""


def counts(entries: Iterable[Entry], facet: Facet, shown: int = SHOWN) -> list[tuple[str, int]]:
    """The ``shown`` most common values of ``facet`` among ``entries``, most first (ties by
    value), then ``other`` for the rest, when there is a rest. Values are compared as written
    with blanks collapsed; a blank or missing value counts as :data:`NONE`."""
    return top(Counter(value_of(entry, facet) for entry in entries), shown)


def ranked(found: Counter[str]) -> list[tuple[str, int]]:
    """Every value of ``found`` with its count, most first (ties by value)."""
    return sorted(found.items(), key=lambda item: (-item[1], item[0]))


def value_of(entry: Entry, facet: Facet) -> str:
    """``entry``'s value of ``facet`` as charts and filters count it: blanks collapsed, and
    :data:`NONE` when blank or missing."""
    return " ".join((facet.value(entry) or "").split()) or NONE


def top(found: Counter[str], shown: int = SHOWN) -> list[tuple[str, int]]:
    """The ``shown`` largest of ``found`` (ties by name) and, if any are left, ``other``."""
    every = ranked(found)
    head, rest = every[:shown], every[shown:]
    if rest:
        head.append(("other", sum(count for _, count in rest)))
    return head


CATALOGUE = "all"
"""The filter key of the catalogue's page (every record)."""
FILTERED = (GroupKind.REPO, GroupKind.CATEGORY, GroupKind.TAG)
"""The groups whose pages have filters (besides the catalogue's page)."""


def group_filter(group: Group) -> str:
    """The filter key of ``group``'s pages; empty for a group whose pages have none."""
    return filter_key(group.kind.value, group.key) if group.kind in FILTERED else ""


def filter_key(kind: str, key: str) -> str:
    """The name a listing's filter data is filed under (:mod:`errdocs.pages.filters`): a hash
    of its group's kind and key, 16 hex digits, so no record text reaches a path or a page."""
    return hashlib.blake2b(f"{kind}:{key}".encode(), digest_size=8).hexdigest()
