"""What a record's ``messagePattern`` and message template require of a message.

Both are reduced to a sequence of *required* pieces: literal characters, boundaries (text or
zero-width assertions that never contain a token character) and wildcards (anything else).
From that sequence come the words every matching message must contain (used to index the
record) and the number of literal characters (how specific a match is).

Patterns are read with Python's own regex parser (``re._parser``, the module behind ``re``), so
whatever ``re`` accepts is understood exactly; :mod:`.jsregex` converts the same parse tree.
"""

from __future__ import annotations

import re
import re._constants as sre  # the parse tree's opcodes; private, but stable across 3.11-3.13
import re._parser as sre_parse
import sys
import warnings
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, TypeAlias

from errdocs.lookup.tokens import is_token_char

WILD = object()
"""A piece that may match token characters (a group, ``\\w+``, ``.``): words next to it are
not whole words of the message."""
BOUNDARY = object()
"""A piece that never holds a token character (``\\s+``, ``^``, ``\\b``)."""
Piece = str | object
SubPattern: TypeAlias = Any
"""A parsed regex: a ``re._parser.SubPattern`` (iterable over :data:`Item`, with ``state``
and ``getwidth()``); ``re._parser`` declares no types."""
Argument: TypeAlias = Any
"""An opcode's argument in the parse tree: a code point, a tuple, a list of items or a
subpattern, depending on the opcode (``re._parser`` declares no types)."""
Item: TypeAlias = tuple[object, Argument]
"""One item of a parsed regex: its opcode and the opcode's argument."""

PLACEHOLDER = re.compile(r"\{\{|\}\}|\{[^{}]*\}")
"""``{name}`` in a template; ``{{`` and ``}}`` are literal braces (format-string style)."""
_SPACE_RUN = re.compile(r"[ \t\n\r\f\v]+")  # spelled out: the same in lookup.js
_TEMPLATE_SPECIAL = frozenset("\\^$.|?*+()[]{}/")

GUARD_BEFORE = "(?<![A-Za-z0-9_])"
"""Put before a pattern searched for inside a message: the match starts a word..."""
GUARD_AFTER = "(?![A-Za-z0-9_])"
"""...and ends one, so the words at its edges are whole words of the message (as the index
assumes). ``lookup.js`` adds these guards; RE2, which has no look-around, gets their
equivalent (see :func:`.linear.re2_form`)."""

_ANCHORS = frozenset({sre.AT_BEGINNING, sre.AT_BEGINNING_STRING, sre.AT_END,
                      sre.AT_END_STRING, sre.AT_BOUNDARY})
_REPEATS = frozenset({sre.MAX_REPEAT, sre.MIN_REPEAT, sre.POSSESSIVE_REPEAT})
_TOKEN_CHARS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_"


Words: TypeAlias = tuple[str, ...]
"""Distinct words, sorted and interned. A tuple, not a frozenset: the build holds two a record
while it makes the lookup data, and a frozenset of a few words takes 216 bytes (728 past
four), its table's empty slots included, against 40 and 8 a word for a tuple: 12.1 MB of sets
against 1.9 MB of tuples at 20,000 records (traced; bench/README, "Session 36"). Whoever needs set
operations makes a set for the moment (:func:`.index.choose_keys`) or asks the other side,
a message's set of words (``message_words.issuperset(words)``)."""


def words_of(words: Iterable[str]) -> Words:
    """``words`` as :data:`Words`."""
    return tuple(sorted({sys.intern(w) for w in words}))


@dataclass(frozen=True, slots=True)
class Requirements:
    """What any message matching a pattern or template contains."""

    words: Words
    """Whole tokens (lower-cased) that every matching message contains."""
    literal_chars: int
    """Required literal characters: the larger, the more specific a match."""


def parse(source: str) -> SubPattern:
    """Parse a Python regex; raises :class:`re.error` when ``re.compile`` would, without the
    cost of compiling (compiled patterns are made when a lookup needs them). Python's
    warnings about a pattern (``[a--b]``: "possible set difference") are not printed: the
    pattern is a record's, and its page shows it as written."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        tree = sre_parse.parse(source)
    if "(?<=" in source or "(?<!" in source:
        _check_lookbehinds(list(tree))
    return tree


def _check_lookbehinds(items: list[Item]) -> None:
    """The one check ``re`` makes when compiling rather than parsing."""
    for op, av in items:
        if op in (sre.ASSERT, sre.ASSERT_NOT) and av[0] < 0:
            low, high = av[1].getwidth()
            if low != high:
                raise re.error("look-behind requires fixed-width pattern")
        for sub in children(op, av):
            _check_lookbehinds(list(sub))


def children(op: object, av: Argument) -> list[Argument]:
    """The sequences inside an item of a parse tree (look-around bodies included)."""
    if op in (sre.ASSERT, sre.ASSERT_NOT):
        return [av[1]]
    if op is sre.SUBPATTERN:
        return [av[3]]
    if op in _REPEATS:
        return [av[2]]
    if op is sre.ATOMIC_GROUP:
        return [av]
    if op is sre.BRANCH:
        return list(av[1])
    if op is sre.GROUPREF_EXISTS:
        return [a for a in av[1:] if a is not None]
    return []


def pattern_requirements(tree: SubPattern) -> Requirements:
    """Required words and literal characters of a parsed pattern."""
    return _requirements(list(_pieces(list(tree), tree.state.flags)))


def template_requirements(template: str) -> Requirements:
    """Required words and literal characters of a message template."""
    return _requirements(list(_template_pieces(template)))


def template_regex(template: str) -> str:
    """A regex for concrete messages of a template: placeholders match any non-empty text,
    whitespace runs any whitespace. Valid, with the same meaning, in Python and in JavaScript
    (``u`` flag); ``lookup.js`` builds it the same way."""
    out: list[str] = []
    pos = 0
    for match in PLACEHOLDER.finditer(template):
        out.append(_escape_literal(template[pos:match.start()]))
        token = match.group()
        out.append("\\" + token[0] if token in ("{{", "}}") else "([\\s\\S]+?)")
        pos = match.end()
    out.append(_escape_literal(template[pos:]))
    return "".join(out)


def _escape_literal(text: str) -> str:
    parts = _SPACE_RUN.split(text)
    escaped = ("".join("\\" + c if c in _TEMPLATE_SPECIAL else c for c in p) for p in parts)
    return "\\s+".join(escaped)


def _template_pieces(template: str) -> list[Piece]:
    pieces: list[Piece] = []
    pos = 0
    for match in PLACEHOLDER.finditer(template):
        pieces.extend(template[pos:match.start()])
        token = match.group()
        pieces.append(token[0] if token in ("{{", "}}") else WILD)
        pos = match.end()
    pieces.extend(template[pos:])
    return pieces


def _requirements(pieces: list[Piece]) -> Requirements:
    words: set[str] = set()
    literal_chars = 0
    run: list[str] = []
    bounded_before = True  # the start of the text is a boundary
    for piece in [*pieces, BOUNDARY]:
        if isinstance(piece, str):
            literal_chars += 1
            if is_token_char(piece):
                run.append(piece)
                continue
        closes_word = piece is BOUNDARY or isinstance(piece, str)
        if run and bounded_before and closes_word:
            words.add("".join(run).lower())  # (interned by words_of: shared by the records)
        run = []
        bounded_before = closes_word
    return Requirements(words_of(words), literal_chars)


def _pieces(items: list[Item], flags: int) -> list[Piece]:
    """Flatten the required part of a parse tree into pieces."""
    pieces: list[Piece] = []
    for op, av in items:
        if op is sre.LITERAL:
            pieces.append(chr(av))
        elif op is sre.SUBPATTERN:
            _group, add, remove, sub = av
            pieces.extend(_pieces(list(sub), (flags | add) & ~remove))
        elif op is sre.ATOMIC_GROUP:
            pieces.extend(_pieces(list(av), flags))
        elif op is sre.AT:
            pieces.append(BOUNDARY if av in _ANCHORS else WILD)
        elif op in (sre.ASSERT, sre.ASSERT_NOT):
            continue  # zero-width and says nothing about its neighbours' characters
        elif op in _REPEATS:
            low, _high, sub = av
            pieces.append(BOUNDARY if low >= 1 and _never_token(list(sub), flags) else WILD)
        else:
            pieces.append(BOUNDARY if _never_token([(op, av)], flags) else WILD)
    return pieces


def _never_token(items: list[Item], flags: int) -> bool:
    """True when ``items`` is one element that matches one character, never a token char."""
    if len(items) != 1:
        return False
    op, av = items[0]
    if op is sre.LITERAL:
        return not is_token_char(chr(av))
    if op is sre.IN:
        return _class_never_token(tuple(av), flags & sre.SRE_FLAG_IGNORECASE)
    return False


@lru_cache(maxsize=4096)
def _class_never_token(items: tuple[Item, ...], ignore_case: int) -> bool:
    """Whether a character class matches no token character (classes repeat a lot)."""
    return not any(_class_matches(list(items), c, ignore_case) for c in _TOKEN_CHARS)


def _class_matches(items: list[Item], char: str, flags: int) -> bool:
    """Whether a character class (a parsed ``[...]``) matches ``char``."""
    negate = bool(items) and items[0][0] is sre.NEGATE
    variants = {char, char.lower(), char.upper()} if flags & sre.SRE_FLAG_IGNORECASE else {char}
    found = any(_class_item(op, av, c) for op, av in items for c in variants)
    return found != negate


def _class_item(op: object, av: Argument, char: str) -> bool:
    code = ord(char)
    if op is sre.LITERAL:
        return av == code
    if op is sre.RANGE:
        low, high = av
        return low <= code <= high
    if op is sre.CATEGORY:
        return char in _CATEGORY_CHARS.get(av, "")
    return False


# The token characters each category matches (a token character is never a space).
_CATEGORY_CHARS = {
    sre.CATEGORY_DIGIT: "0123456789", sre.CATEGORY_NOT_DIGIT: _TOKEN_CHARS[:52] + "_",
    sre.CATEGORY_SPACE: "", sre.CATEGORY_NOT_SPACE: _TOKEN_CHARS,
    sre.CATEGORY_WORD: _TOKEN_CHARS, sre.CATEGORY_NOT_WORD: "",
}
