"""A record's page as plain terminal text, readable without a browser (like ``rustc --explain``):
message, facts, what it means, the excerpt with real line numbers and the raising line marked,
solutions and prevention tips."""

from __future__ import annotations

import textwrap

from errdocs.lookup.match import Match
from errdocs.lookup.report import one_line, safe, why
from errdocs.pages.escape import safe_url
from errdocs.pages.excerpt import Excerpt, excerpt_of
from errdocs.records.record import Record

WIDTH = 88
"""Prose is wrapped to this many columns."""
CONTEXT = 8
"""Excerpt lines shown before and after the raising line."""


def show(record: Record, match: Match) -> str:
    """The whole terminal page of ``record``, found by ``match``."""
    sections = [_head(record, match), *_prose(record), _source(record),
                _numbered("Solutions", record.solutions, "{n:>2}. "),
                _numbered("Prevention tips", record.prevention_tips, " - ")]
    return "\n\n".join(s for s in sections if s) + "\n"


def _heading(title: str) -> str:
    return f"{title}\n{'-' * len(title)}"


def _head(record: Record, match: Match) -> str:
    message = one_line(record.error_message)
    facts = [("Repository", record.repo), ("Class", record.error_class),
             ("Type", record.error_type), ("Severity", record.severity),
             ("HTTP status", record.http_status), ("Error code", record.error_code),
             ("Handling", record.handling_strategy)]
    lines = [message, "=" * min(len(message), WIDTH), ""]
    lines += [f"{label + ':':<13}{one_line(str(value))}" for label, value in facts
              if value is not None and value != ""]
    if record.message_pattern:
        lines.append(f"{'Pattern:':<13}{one_line(record.message_pattern)}")
    lines.append(f"{'Page:':<13}{match.target.url}")
    lines.append(f"{'Found:':<13}{why(match)}")
    return "\n".join(lines)


def _prose(record: Record) -> list[str]:
    parts = [("What it means", record.documentation),
             ("What triggers it", record.trigger_scenarios),
             ("Common situations", record.common_situations)]
    return [f"{_heading(title)}\n{_wrap(text)}" for title, text in parts if text and text.strip()]


def _wrap(text: str, indent: str = "", first: str = "") -> str:
    paragraphs = [" ".join(p.split()) for p in text.split("\n\n") if p.strip()]
    wrapped = [textwrap.fill(safe(p), WIDTH, initial_indent=first if i == 0 and first else indent,
                             subsequent_indent=indent, break_on_hyphens=False)
               for i, p in enumerate(paragraphs)]
    return "\n\n".join(wrapped)


def _source(record: Record) -> str:
    excerpt = excerpt_of(record)
    where = record.file_path or ""
    if record.line_number is not None and where:
        where += f", line {record.line_number}"
    lines = [_heading("Where it is raised")]
    if where:
        lines.append(one_line(where))
    if url := safe_url(record.github_url, host="github.com"):
        lines.append(url)
    if excerpt is not None:
        lines += ["", *_excerpt_lines(excerpt)]
    return "\n".join(lines) if len(lines) > 1 else ""


def _excerpt_lines(excerpt: Excerpt) -> list[str]:
    """Up to ``2 * CONTEXT + 1`` lines around the mark, numbered when the record says where
    the excerpt starts (without ``sourceCodeStart`` no number would be true, so none is shown)."""
    code = excerpt.code.split("\n")
    start = max(0, excerpt.marked - 1 - CONTEXT) if excerpt.marked else 0
    shown = code[start : start + 2 * CONTEXT + 1]
    first = excerpt.first_line
    width = 0 if first is None else len(str(first + start + len(shown)))
    out = []
    for offset, text in enumerate(shown):
        mark = ">" if excerpt.marked and start + offset + 1 == excerpt.marked else " "
        number = "" if first is None else f" {first + start + offset:>{width}} |"
        out.append(f"{mark}{number} {safe(text.expandtabs(4))}".rstrip())
    return out


def _numbered(title: str, items: tuple[str, ...], bullet: str) -> str:
    if not items:
        return ""
    body = [_wrap(item, " " * len(bullet.format(n=1)), bullet.format(n=n))
            for n, item in enumerate(items, 1)]
    return f"{_heading(title)}\n" + "\n".join(body)
