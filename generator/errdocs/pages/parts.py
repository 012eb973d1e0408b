"""What a record page shows beyond its fields as given: the error as a program prints it, the
example fix split into "before" and "after", links to the raising line and to the analysed
commit, and dates a person reads.

Everything returned is plain text for the templates to escape, except :class:`Markup` values,
which are built here from checked parts only (a date errdocs formatted, a URL
:func:`escape.safe_url` accepted).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime

from markupsafe import Markup

from errdocs.pages import escape
from errdocs.pages.excerpt import language_for
from errdocs.pages.meta import github_repo_url, iso_timestamp
from errdocs.records.record import Record
from errdocs.records.schema import SOURCE_HOST

MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")
"""Month names of :func:`readable_date`, whatever the machine's locale."""
_CLASS_FIRST = {"python", "javascript", "typescript", "jsx", "tsx", "coffeescript"}
"""Languages whose uncaught errors print as ``Class: message``."""
_CLASS_NAME = re.compile(r"^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*$")
_SHA = re.compile(r"^[0-9a-f]{7,40}$")
_RANGE = re.compile(r"#L(\d+)(?:-L(\d+))?$")
_FIX_MARK = re.compile(
    r"^\s*(?:#+|//+|--|;+|/\*+|<!--)\s*(?P<word>before|after)\b(?P<rest>.*?)\s*(?:\*/|-->)?\s*$",
    re.IGNORECASE)
"""A comment line naming one part of an example fix: ``# before``, ``// After: fixed``."""


def printed_error(record: Record) -> tuple[str, bool]:
    """The error as the program prints it, and whether that shows its class.

    ``ValueError: Unknown mode: {mode}`` in Python and JavaScript (a ``KeyError`` prints its
    message quoted, as Python does), ``panic: ...`` for a Go panic, the message alone
    otherwise: Go and C++ errors, and Rust's, print their message without a type name.
    """
    message, name = record.error_message, " ".join((record.error_class or "").split())
    language = language_for(record.file_path or "")
    if language in _CLASS_FIRST and _CLASS_NAME.match(name):
        shown = repr(message) if (language, name) == ("python", "KeyError") else message
        return f"{name}: {shown}", True
    if language == "go" and name == "panic":
        return f"panic: {message}", True
    return message, False


@dataclass(frozen=True)
class FixPart:
    """One labelled part of an example fix."""

    note: str
    """What the marker comment says besides "before"/"after" (``new mode not finalized``)."""
    code: str
    """The part's code, without its marker line."""


def split_fix(text: str) -> tuple[FixPart, FixPart] | None:
    """The "before" and "after" parts of an example fix whose text marks them, each with its
    code; ``None`` when it does not mark exactly one of each, in that order, each non-empty.

    A marker is a comment line holding only the word (``# before``, ``// After:``), maybe
    followed by a note after ``:``, ``(`` or a dash (``// before (admin handler)``).
    """
    lines = text.split("\n")
    marks = [(n, m) for n, m in ((n, _FIX_MARK.match(line)) for n, line in enumerate(lines))
             if m and _is_note(m.group("rest"))]
    words = [m.group("word").lower() for _, m in marks]
    if words != ["before", "after"] or any(line.strip() for line in lines[:marks[0][0]]):
        return None
    (start, before), (middle, after) = marks
    parts = (FixPart(_note(before), "\n".join(lines[start + 1:middle])),
             FixPart(_note(after), "\n".join(lines[middle + 1:])))
    return parts if all(p.code.strip() for p in parts) else None


def _is_note(rest: str) -> bool:
    """True when what follows the marker word is nothing or a note (``: ...``, ``(...)``)."""
    rest = rest.strip()
    return not rest or rest[0] in ":(-—–"


def _note(mark: re.Match[str]) -> str:
    return mark.group("rest").strip().lstrip(":-—–").strip()


@dataclass(frozen=True)
class SourceLinks:
    """Where "View source" goes."""

    line: Markup | None
    """The raising line on GitHub (``...#L658``), when the link and the line are known."""
    whole: Markup | None
    """The record's own link (the excerpt's range, ``#L640-L671``, or the file)."""
    whole_label: str
    """What the record's own link shows: ``lines 640–671``, ``line 12`` or ``the file``."""


def source_links(record: Record) -> SourceLinks:
    """Links to the raising line and to the whole excerpt (one link when they are the same)."""
    url = escape.safe_url(record.github_url, host=SOURCE_HOST)
    if url is None:
        return SourceLinks(None, None, "")
    label = _range_label(url)
    line = record.line_number
    if line is None or "/blob/" not in url.split("#", 1)[0] or label == f"line {line}":
        return SourceLinks(None, _link(url), label)
    return SourceLinks(_link(f"{url.split('#', 1)[0]}#L{line}"), _link(url), label)


def _range_label(url: str) -> str:
    found = _RANGE.search(url)
    if found is None:
        return "the file"
    first, last = found.groups()
    return f"line {first}" if last is None or last == first else f"lines {first}–{last}"


def _link(url: str) -> Markup:
    """A URL :func:`escape.safe_url` accepted, as a Markdown link target: Markdown passes
    ``&amp;`` through as an entity, so a literal ``&`` is written so."""
    return Markup(url.replace("&", "&amp;"))


def commit_url(record: Record) -> Markup | None:
    """The analysed commit's tree on GitHub, when the repository and the hash are valid."""
    repo = github_repo_url(record.repo)
    sha = (record.analyzed_sha or "").strip().lower()
    if repo is None or not _SHA.match(sha):
        return None
    return Markup(f"{repo}/tree/{sha}")


def readable_date(value: str | None) -> Markup | None:
    """``<time datetime="2026-08-13T05:10:05Z">13 Aug 2026</time>`` for an ISO timestamp (in
    UTC), ``None`` for anything else. Made from the parsed date only, never from the text."""
    moment = iso_timestamp(value)
    if moment is None:
        return None
    day = datetime.fromisoformat(moment.replace("Z", "+00:00")).astimezone(UTC)
    return Markup(f'<time datetime="{moment}">{day.day} {MONTHS[day.month - 1]} '
                  f'{day.year}</time>')
