"""Text cut short for a title, a meta description or a search result."""

from __future__ import annotations

import re

from errdocs.records.record import Record

MESSAGE_CHARS = 300
"""The error message kept for page titles, Open Graph and JSON-LD; the page shows all of it."""
DESCRIPTION_CHARS = 160
"""Search engines show about this much of a meta description."""
ROW_VALUE_CHARS = 200
"""A listing row's class (and, in the filters' rows, its kind, severity, handling strategy,
language and repository) is cut to this: they are free text of any length, and a row is on
a page and in a data file with many others."""


def shorten(text: str, limit: int) -> str:
    """``text`` on one line, cut at a sentence or word end to at most ``limit`` characters."""
    flat = " ".join(text.split())
    if len(flat) <= limit:
        return flat
    head = flat[: limit - 1]
    sentence = max(head.rfind(". "), head.rfind("; "))
    if sentence >= limit // 2:
        return head[: sentence + 1]
    word = head.rfind(" ")
    return (head[:word] if word >= limit // 2 else head).rstrip(" ,;:") + "…"


def clip(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters and "…", when longer; else as it is. Nothing else
    changes, so a clipped value is never equal to a value of at most ``limit`` characters."""
    return text if len(text) <= limit else text[:limit] + "…"


_SENTENCE_END = re.compile(r"(?<!\be\.g)(?<!\bi\.e)[.!?](?=\s+[A-Z0-9`\"'(“‘])")
"""A sentence's end: its stop, then a blank and what can start a sentence (not "e.g. x")."""


def first_sentence(text: str, shortest: int = 20) -> str:
    """The first sentence of ``text`` (on one line): up to the first ".", "!" or "?" followed
    by a blank and a capital, a digit, a quote or a bracket, at least ``shortest`` characters in
    (so neither "e.g. x" nor a short "Bad. It" ends it)."""
    flat = " ".join(text.split())
    for match in _SENTENCE_END.finditer(flat, shortest):
        return flat[: match.end()]
    # Kept for every record of a build: the text itself when it is the one sentence, not a copy.
    return text if flat == text else flat


def describe_record(record: Record) -> str:
    """One or two sentences for the meta description: the start of what the error means."""
    for text in (record.documentation, record.trigger_scenarios, record.common_situations):
        if text and text.strip():
            return shorten(text.replace("`", ""), DESCRIPTION_CHARS)
    return shorten(f"What the error “{record.error_message}” raised in {record.repo} means "
                   "and how to fix it.", DESCRIPTION_CHARS)


def summary_of(record: Record) -> str:
    """The first sentence of what the error means (:func:`first_sentence` of the record's meta
    description), which listings show under its message and which tells rows of one message
    apart: a full and a light record (whose description is this one's) give the same."""
    return first_sentence(describe_record(record))
