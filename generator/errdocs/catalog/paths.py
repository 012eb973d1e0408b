"""Safe, stable path segments for URLs and files, whatever the record text holds."""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections.abc import Iterator
from functools import lru_cache

_UNSAFE = re.compile(r"[^a-z0-9._-]+")
_MAX_LEN = 80
_PLAIN = re.compile(r"[a-z0-9]{1,80}")
"""Text :func:`segment` keeps as it is (when not a reserved name)."""
RESERVED = frozenset({"index", "index.md", "tags", "categories", "repos", "families", "assets",
                      "search",
                      "stylesheets", "javascripts", "404", "sitemap.xml"})
"""Names the site itself uses next to record folders; a segment never takes one of them."""
WINDOWS_DEVICES = frozenset({"con", "prn", "aux", "nul", *(f"com{n}" for n in range(10)),
                             *(f"lpt{n}" for n in range(10))})
"""Names Windows cannot store with any extension (``con``, ``nul.md``): the offline bundle is
unpacked there too, so no segment starts with one of them."""


def short_hash(value: str, length: int = 6) -> str:
    """A short, stable hex digest of ``value``."""
    return hashlib.sha1(value.encode("utf-8", "surrogatepass")).hexdigest()[:length]


@lru_cache(maxsize=1 << 16)  # repositories and tags repeat across records: a third of a catalogue
def segment(value: str, *, reserved: frozenset[str] = RESERVED) -> str:
    """One path segment from arbitrary text: lowercase ASCII ``[a-z0-9._-]``.

    When the text had to change beyond lowercasing (``../``, slashes, Unicode, ``?#%``), a
    hash of the original is appended so two different texts never share a segment.
    """
    ascii_text = unicodedata.normalize("NFKD", value).encode("ascii", "ignore").decode()
    cleaned = _UNSAFE.sub("-", ascii_text.lower())
    cleaned = re.sub(r"-{2,}", "-", cleaned).strip("-.")[:_MAX_LEN].strip("-.")
    reserved_name = _is_reserved(cleaned, reserved)
    if cleaned and cleaned == value.lower() and not reserved_name:
        return cleaned
    if reserved_name:
        cleaned = cleaned.replace(".", "-")  # "aux.md-1a2b3c" would still be "aux" to Windows
    return f"{cleaned or 'x'}-{short_hash(value)}"


def unique_segment(value: str) -> str:
    """:func:`segment` of a text that does not repeat (a record's id or slug), not kept in its
    cache: one a record only pushed out the repositories and tags that repeat, and the cache
    held them to its size (at 20,000 records, 40,000 ids and slugs: 4.1 MB traced)."""
    return segment.__wrapped__(value)


def exact_segment(value: str) -> str:
    """A path segment that keeps apart texts differing only in case (record ids, dataset
    versions): :func:`segment`, with a hash appended when lowercasing alone changed the text.
    ``2f61984c034089bc`` stays as it is; ``ABC`` and ``abc`` get different segments, on any
    file system (the offline bundle is unpacked on case-insensitive ones too)."""
    if _PLAIN.fullmatch(value) and value not in RESERVED:
        return value  # the common case (hex ids), without segment()'s cache or work
    cleaned = segment(value)
    if cleaned == value or cleaned != value.lower():
        return cleaned  # unchanged, or already given a hash of the original
    return f"{cleaned}-{short_hash(value)}"


def _is_reserved(cleaned: str, reserved: frozenset[str]) -> bool:
    return cleaned in reserved or cleaned.split(".", 1)[0] in WINDOWS_DEVICES


def disambiguate(wanted: str, taken: set[str], suffix: str) -> str:
    """``wanted`` if free, else ``wanted-suffix``, else numbered; records the result in taken."""
    for candidate in _candidates(wanted, suffix):
        if candidate not in taken:
            taken.add(candidate)
            return candidate
    raise AssertionError("unreachable: _candidates is infinite")


def _candidates(wanted: str, suffix: str) -> Iterator[str]:
    yield wanted
    yield f"{wanted}-{suffix}"
    number = 2
    while True:
        yield f"{wanted}-{suffix}-{number}"
        number += 1
