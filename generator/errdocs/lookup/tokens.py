"""Words of a message, as both matchers (Python here, JavaScript in the site) see them.

A token is a run of ASCII letters, digits and underscores, lower-cased. Everything else
separates tokens. The browser's ``lookup.js`` implements the same two functions; the tests run
both on the same inputs.
"""

from __future__ import annotations

import re

TOKEN = re.compile(r"[A-Za-z0-9_]+")
"""One token. ASCII only: the same definition works in Python and JavaScript."""


def tokens(text: str) -> list[str]:
    """The tokens of ``text`` in order, lower-cased (repeats kept)."""
    return [t.lower() for t in TOKEN.findall(text)]


TOKEN_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")
"""The characters of tokens."""


def is_token_char(char: str) -> bool:
    """Whether ``char`` can be part of a token."""
    return char in TOKEN_CHARS


def fnv1a(text: str) -> int:
    """32-bit FNV-1a of a token (ASCII), the shard hash shared with ``lookup.js``."""
    value = 0x811C9DC5
    for char in text:
        value ^= ord(char)
        value = (value * 0x01000193) & 0xFFFFFFFF
    return value
