"""Turn untrusted record text into Markdown that renders as exactly that text.

Nothing in a record may become markup: every character that Markdown, its extensions
(attr_list, tables, tabbed, emoji, ...) or HTML would interpret is escaped, so the reader sees
the text literally. Inline code in backticks is the one construct prose fields keep.
"""

from __future__ import annotations

import re
from urllib.parse import quote, urlsplit

from markupsafe import Markup

# Python-Markdown's own backslash escapes: readable in the .md file. "-", ".", "+" and "!"
# only mean something at the start of a line (lists, rules) or before "[" (images, escaped).
_BACKSLASHED = frozenset("\\`*_{}[]()#")
_LINE_START = re.compile(r"^(\d*)([-.+!)])")
# Characters extensions give meaning to (tables, emoji, tabs, mark, caret, tilde, details,
# abbreviations) or HTML does: written as character references, which Markdown passes on.
_ENTITIES = {"&": "&amp;", "<": "&lt;", ">": "&gt;", "|": "&#124;", ":": "&#58;",
             "=": "&#61;", "~": "&#126;", "^": "&#94;", "?": "&#63;", "$": "&#36;",
             "@": "&#64;"}
_TABLE = {ord(c): "\\" + c for c in _BACKSLASHED} | {ord(c): e for c, e in _ENTITIES.items()}
_CODE_SPAN = re.compile(r"(?<!`)(`+)(?!`)(.+?)(?<!`)\1(?!`)")
_WHITESPACE = re.compile(r"[ \t\f\v\u00a0\u2028\u2029]+")


def text(value: str) -> Markup:
    """Escape a one-line text: newlines become spaces, every special character is escaped."""
    return Markup(_escape_start(_flatten(value).translate(_TABLE)))


def inline(value: str) -> Markup:
    """Like :func:`text`, but backtick spans stay inline code."""
    flat = _flatten(value)
    out: list[str] = []
    pos = 0
    for match in _CODE_SPAN.finditer(flat):
        out.append(flat[pos:match.start()].translate(_TABLE))
        code = match.group(2)
        # The reader still sees the blank at either end of the span, outside the <code>.
        out.append(" " * code[0].isspace() + code_span(code) + " " * code[-1].isspace())
        pos = match.end()
    out.append(flat[pos:].translate(_TABLE))
    return Markup(_escape_start("".join(out)))


def prose(value: str) -> Markup:
    """Paragraphs (split on blank lines) of :func:`inline` text."""
    paragraphs = (p for p in re.split(r"\n\s*\n", value.strip()) if p.strip())
    return Markup("\n\n".join(inline(p) for p in paragraphs))


def code_span(value: str) -> Markup:
    """Inline code: a ``<code>`` element around :func:`text`, not a backtick span.

    Markdown keeps ``<`` raw inside a backtick span, and MkDocs scans the page source as HTML
    before Markdown runs: ``<![x`` there stops the whole build. A backtick span starting with
    ``#!lang`` or ``:::lang`` would also become highlighted code (pymdownx.inlinehilite).
    """
    return Markup(f"<code>{text(value)}</code>")


def fence_for(code: str) -> str:
    """A backtick fence no line of ``code`` can close early."""
    return "`" * max(3, _longest_run(code, "`") + 1)


def safe_url(url: str | None, *, host: str | None = None) -> str | None:
    """``url`` if it is an absolute http(s) link (to ``host`` when given), percent-encoded
    where Markdown or HTML could misread it; ``None`` otherwise."""
    if not url or any(c.isspace() or ord(c) < 32 for c in url):
        return None
    try:
        parts = urlsplit(url)
    except ValueError:
        return None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return None
    if host is not None and (parts.scheme != "https" or parts.netloc != host):
        return None
    return quote(url, safe=":/?#@!$&*+,;=%-._~")


def _flatten(value: str) -> str:
    """One line: Markdown block syntax only starts lines, so a single line has no blocks."""
    return _WHITESPACE.sub(" ", " ".join(value.split("\n"))).strip()


def _escape_start(escaped: str) -> str:
    """Escape what would start a list or a rule: ``- x``, ``1. x``, ``+ x``."""
    return _LINE_START.sub(lambda m: f"{m.group(1)}\\{m.group(2)}", escaped, count=1)


def _longest_run(value: str, char: str) -> int:
    runs = re.findall(f"{re.escape(char)}+", value)
    return max((len(r) for r in runs), default=0)
