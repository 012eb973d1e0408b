"""YAML front matter, written the way ``yaml.safe_dump`` writes it, ten times faster.

The front matter of every generated page is a small tree of strings, lists and mappings.
PyYAML's pure-Python emitter spent a third of the time it takes to render a record page on
it; this writes the very same bytes (``yaml.safe_dump(data, allow_unicode=True,
sort_keys=True, width=2**31, default_style='"')``, a property test compares the two) with one
regular expression per string. Every string is double-quoted on one line: newlines and the
characters YAML also breaks lines on (NEL, LS, PS) become escapes, so no value can end the
front matter early or come back changed.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

Tree = str | Sequence[str] | Mapping[str, "Tree"]
"""What front matter may hold."""

# What PyYAML's double-quoted style escapes with allow_unicode: quotes, backslashes, the line
# breaks, the byte-order mark, and every character YAML does not call printable in the BMP
# (astral characters too: PyYAML writes them as \U escapes).
_ESCAPED = re.compile('["\\\\\x85\u2028\u2029\ufeff]|[^\x20-\x7e\xa0-\ud7ff\ue000-\ufffd]')
_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_-]{0,63}")
_SHORT = {
    "\0": "0",
    "\x07": "a",
    "\x08": "b",
    "\x09": "t",
    "\x0a": "n",
    "\x0b": "v",
    "\x0c": "f",
    "\x0d": "r",
    "\x1b": "e",
    '"': '"',
    "\\": "\\",
    "\x85": "N",
    "\u2028": "L",
    "\u2029": "P",
}


def dump(data: Mapping[str, Tree]) -> str:
    """``data`` as a YAML document body (no ``---`` lines), keys sorted."""
    lines: list[str] = []
    _mapping(data, "", lines)
    return "".join(line + "\n" for line in lines)


def quoted(text: str) -> str:
    """``text`` as a YAML double-quoted scalar."""
    return '"' + _ESCAPED.sub(_escape, text) + '"'


def _escape(match: re.Match[str]) -> str:
    char = match.group()
    if char in _SHORT:
        return "\\" + _SHORT[char]
    code = ord(char)
    if code <= 0xFF:
        return f"\\x{code:02X}"
    return f"\\u{code:04X}" if code <= 0xFFFF else f"\\U{code:08X}"


def _mapping(data: Mapping[str, Tree], indent: str, lines: list[str]) -> None:
    for key in sorted(data):
        if not _KEY.fullmatch(key):  # PyYAML writes other keys in its "complex key" form
            raise ValueError(f"front matter keys are plain names like 'repo_url', not {key!r}")
        _entry(f"{indent}{quoted(key)}:", data[key], indent, lines)


def _entry(head: str, value: Tree, indent: str, lines: list[str]) -> None:
    """``head`` (a key and its colon) followed by ``value``."""
    if isinstance(value, str):
        lines.append(f"{head} {quoted(value)}")
    elif isinstance(value, Mapping):
        lines.append(head if value else f"{head} {{}}")
        _mapping(value, indent + "  ", lines)
    elif isinstance(value, Sequence) and all(isinstance(item, str) for item in value):
        # PyYAML does not indent a list under its key ("indentless" sequences).
        lines.append(head if value else f"{head} []")
        lines.extend(f"{indent}- {quoted(item)}" for item in value)
    else:
        raise TypeError(f"front matter holds strings, lists of strings and mappings, not {value!r}")
