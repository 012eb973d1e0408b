"""``errdocs-record``: a record page's breadcrumb first, its raising line marked beyond colour."""

from __future__ import annotations

import re
from typing import Any

from mkdocs.plugins import BasePlugin

_NUMBERED = re.compile(r'(<td class="linenos"><div class="linenodiv"><pre>)(.*?)(</pre>.*?'
                       r'<td class="code"><div><pre>)(.*?)(</pre>)', re.DOTALL)
"""A numbered code block: its line numbers' ``<pre>``, then its code's ``<pre>``."""
_MARKED = '<span class="hll">'
"""How Pygments wraps a highlighted line (``hl_lines``): errdocs marks only raising lines."""
RAISES_HERE = "Raises the error: "
"""What a screen reader says before the marked line (it is not shown, nor copied)."""


def mark_raising_lines(html: str) -> str:
    """Make the marked line of each numbered code block more than a colour.

    Its line number is emphasised (``<span class="errdocs-mark">``: the numbers and the code
    are two columns, so nothing else ties them), and the line itself starts with text that
    only screen readers read (``errdocs-sr``; errdocs.css hides it while Material copies the
    code). Blocks without a marked line are left as they are.
    """
    return _NUMBERED.sub(_mark_one, html) if _MARKED in html else html


def _mark_one(match: re.Match[str]) -> str:
    head, numbers, middle, code, tail = match.groups()
    at = code.find(_MARKED)
    if at < 0:
        return match.group(0)
    index = code.count("\n", 0, at)
    lines = numbers.split("\n")
    if index >= len(lines):
        return match.group(0)
    lines[index] = re.sub(r'(?:<span class="normal">)?(\d+)(?:</span>)?$',
                          r'<span class="errdocs-mark">\1</span>', lines[index])
    at += len(_MARKED)
    code = f'{code[:at]}<span class="errdocs-sr">{RAISES_HERE}</span>{code[at:]}'
    return f"{head}{chr(10).join(lines)}{middle}{code}{tail}"


_TITLE_THEN_CRUMBS = re.compile(
    r'\A(\s*<h1\b.*?</h1>)(\s*)(<nav [^<>]*\bclass="errdocs-crumbs".*?</nav>)', re.DOTALL)
"""A record page's title, then its breadcrumb (see :func:`crumbs_first`)."""


def crumbs_first(html: str) -> str:
    """Put a record page's breadcrumb before its title.

    The Markdown has the title first: MkDocs takes a page's title from its first element
    only, when that is an ``<h1>``. Readers (and screen readers) expect the trail first.
    """
    return _TITLE_THEN_CRUMBS.sub(r"\3\2\1", html, count=1)


class RecordPagePlugin(BasePlugin):  # no options
    """``errdocs-record``: on every page's content, :func:`crumbs_first` and
    :func:`mark_raising_lines`."""

    def on_page_content(self, html: str, **kwargs: Any) -> str:
        return mark_raising_lines(crumbs_first(html))
