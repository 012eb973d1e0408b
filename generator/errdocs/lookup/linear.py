"""Linear-time matching of records' patterns and templates in ``errdocs lookup`` (RE2).

A record's ``messagePattern`` is untrusted: with Python's backtracking ``re``, ``Bad value
(a+)+$`` takes minutes on ``Bad value aaaa…a!``. RE2 (``google-re2``) never backtracks, so a
match costs time linear in the message whatever the pattern. RE2's syntax and a few meanings
differ from Python's, so patterns are converted from Python's own parse tree (as
:mod:`.jsregex` does for the browser), keeping Python's meaning:

- ``\\w``, ``\\d`` become ``[\\pL\\pN_]``, ``\\p{Nd}``, and ``\\s`` Python's 29 space characters
  (RE2's are ASCII); ``\\Z`` becomes ``\\z``; groups do not capture (only *whether* a pattern
  matches is used); scoped flags stay scoped (``(?i:...)``).
- What RE2 lacks has no form: look-around, backreferences, conditionals, possessive
  quantifiers, atomic groups, and repeat counts over 1,000. Such a record is matched by its
  message template instead, as the browser does for what JavaScript lacks.
- What RE2 says differently for some messages is not asked for those messages (the pattern is
  then not used on that message; its template is): Python's ``$`` also matches before a final
  newline (messages have none: they are single lines); RE2's ``\\b`` is ASCII (asked only of
  messages without non-ASCII letters or digits); RE2's Unicode tables are newer than Python's
  (``\\w``/``\\d`` asked only of messages without characters Python's tables leave
  unassigned); case-insensitively Python also matches ``İ`` and ``ı`` to ``i`` (asked only of
  messages without them).

A pattern is compiled in up to two forms: one for ASCII messages (the usual case), where
every Unicode class is written as its ASCII part (RE2 compiles ``\\pL`` in ~1.4 ms, an ASCII
class in microseconds), and one for other messages, made when first needed.
"""

from __future__ import annotations

import re
import re._constants as sre  # opcodes of the parse tree (see patterns.py)
import unicodedata
from dataclasses import dataclass, field

import re2

from errdocs.lookup.jsregex import Emitter, Unconvertible
from errdocs.lookup.patterns import Argument, Item, SubPattern, children, parse

MAX_COUNT = 1000
"""RE2's largest repeat count."""
WORD = r"\pL\pN_"
DIGIT = r"\p{Nd}"
SPACE = (r"\t-\r\x{1c}-\x{20}\x{85}\x{a0}\x{1680}\x{2000}-\x{200a}\x{2028}\x{2029}\x{202f}"
         r"\x{205f}\x{3000}")
"""Python's Unicode ``\\s`` (``str.isspace``), exactly."""
ASCII_CLASSES = {sre.CATEGORY_DIGIT: "0-9", sre.CATEGORY_WORD: "A-Za-z0-9_",
                 sre.CATEGORY_SPACE: r"\t-\r\x{1c}-\x{20}"}
"""Python's Unicode classes as far as ASCII goes (its ``\\s`` holds ``\\x1c``-``\\x1f``)."""
UNDER_ASCII = {sre.CATEGORY_DIGIT: "0-9", sre.CATEGORY_WORD: "A-Za-z0-9_",
               sre.CATEGORY_SPACE: r"\t-\r "}
"""The classes under Python's ``(?a)`` flag."""
TOKEN_CLASS = "A-Za-z0-9_"
"""What the guards of a search keep out of the edges of a match (see ``patterns.guarded``)."""
DOTLESS = frozenset("İı")
"""Letters Python's ``(?i)`` matches to ``i`` and RE2's does not."""

# What a converted pattern may depend on, and a message may lack (see the module's docstring).
NEWLINE = "newline"
BOUNDARY = "boundary"
TABLES = "tables"
FOLD = "fold"

_NON_ASCII_WORD = re.compile(r"[^\W\x00-\x7f]")  # one character at a time: linear


def _options() -> re2.Options:
    options = re2.Options()
    options.log_errors = False  # a pattern RE2 refuses is reported by errdocs, not on stderr
    options.never_capture = True
    return options


OPTIONS = _options()


@dataclass(frozen=True)
class Subject:
    """A message as RE2 reads it, and what it lacks for some converted patterns."""

    text: str
    """The message."""
    data: bytes
    """Its UTF-8 (a lone surrogate, which UTF-8 cannot hold, becomes U+FFFD: no class tells
    them apart, and no converted pattern holds a surrogate)."""
    ascii: bool
    """Whether every character is ASCII."""
    lacks: frozenset[str]
    """Which of :data:`NEWLINE`, :data:`BOUNDARY`, :data:`TABLES`, :data:`FOLD` this message
    cannot be asked about."""

    @classmethod
    def of(cls, text: str) -> Subject:
        """The subject of a candidate message."""
        lacks = {NEWLINE} if "\n" in text else set()
        if text.isascii():
            return cls(text, text.encode(), True, frozenset(lacks))
        if _NON_ASCII_WORD.search(text):
            lacks.add(BOUNDARY)
        if any(unicodedata.category(c) == "Cn" for c in text if not c.isascii()):
            lacks.add(TABLES)
        if DOTLESS.intersection(text):
            lacks.add(FOLD)
        return cls(text, _utf8(text), False, frozenset(lacks))


def _utf8(text: str) -> bytes:
    try:
        return text.encode()
    except UnicodeEncodeError:
        return re.sub("[\ud800-\udfff]", "\ufffd", text).encode()


@dataclass(frozen=True)
class Form:
    """A pattern in RE2's syntax, for ASCII messages or for any."""

    whole: str
    """The pattern (for a match of the whole message)."""
    part: str
    """The pattern between guards (for a match of part of the message, at word edges)."""
    needs: frozenset[str]
    """What the message must not lack (see :class:`Subject`)."""


@dataclass
class Linear:
    """A Python pattern matched by RE2; each form is compiled when first needed."""

    source: str
    """The Python pattern."""
    _compiled: dict[tuple[bool, bool], tuple[re2._Regexp, frozenset[str]] | None] = field(
        default_factory=dict, repr=False)

    def fullmatch(self, subject: Subject) -> bool | None:
        """Whether the pattern matches the whole message; ``None`` when RE2 cannot say."""
        compiled = self._regex(subject, part=False)
        return None if compiled is None else compiled.fullmatch(subject.data) is not None

    def search(self, subject: Subject) -> bool | None:
        """Whether it matches part of the message, starting and ending at word edges (see
        :func:`.patterns.guarded`); ``None`` when RE2 cannot say."""
        compiled = self._regex(subject, part=True)
        return None if compiled is None else compiled.search(subject.data) is not None

    def _regex(self, subject: Subject, *, part: bool) -> re2._Regexp | None:
        key = (subject.ascii, part)
        if key not in self._compiled:
            self._compiled[key] = _compile(self.source, subject.ascii, part)
        found = self._compiled[key]
        if found is None or found[1] & subject.lacks:
            return None
        return found[0]


def _compile(source: str, ascii_subject: bool,
             part: bool) -> tuple[re2._Regexp, frozenset[str]] | None:
    """The compiled form, or ``None`` when RE2 has none (or refuses it: a program over its
    memory limit)."""
    try:
        form = convert(source, ascii_subject=ascii_subject)
        return re2.compile(form.part if part else form.whole, OPTIONS), form.needs
    except (Unconvertible, re2.error, re.error, RecursionError, OverflowError):
        return None


def convert(source: str, *, ascii_subject: bool = False) -> Form:
    """The RE2 form of a Python pattern; :class:`Unconvertible` or :class:`re.error` when it
    has none."""
    return re2_form(parse(source), ascii_subject=ascii_subject)


def re2_form(tree: SubPattern, *, ascii_subject: bool = False) -> Form:
    """The RE2 form of a parsed Python pattern (for ASCII messages only, with
    ``ascii_subject``); :class:`Unconvertible` when it has none."""
    flags = tree.state.flags
    emitter = Re2Emitter({}, bool(flags & sre.SRE_FLAG_IGNORECASE), set(),
                         ascii_subject=ascii_subject)
    body = emitter.sequence(list(tree), flags)
    lead = "(?i)" if emitter.ignore_case else ""
    guard = f"(?i:[^{TOKEN_CLASS}])" if emitter.ignore_case else f"[^{TOKEN_CLASS}]"
    if emitter.ignore_case:
        emitter.needs.add(FOLD)
    part = f"(?:\\A|{guard})(?:{lead}{body})(?:{guard}|\\z)"
    return Form(lead + body, part, frozenset(emitter.needs))


@dataclass
class Re2Emitter(Emitter):
    """Writes a parse tree in RE2's syntax (see the module's docstring)."""

    ascii_subject: bool = False
    """Write classes for ASCII messages only."""
    needs: set[str] = field(default_factory=set)
    """What the written pattern depends on (see :class:`Subject`)."""

    SYNTAX = frozenset("\\^$.|?*+()[]{}")
    ENGINE = "RE2"

    def lookaround(self, op: object, av: Argument, flags: int) -> str:
        raise Unconvertible("RE2 has no look-around")

    def groupref(self, number: int) -> str:
        raise Unconvertible("RE2 has no backreferences")

    def negated_alternation(self, matchers: list[str]) -> str:
        raise Unconvertible("RE2 cannot exclude a negated class from a class")

    def repeat(self, op: object, av: Argument, flags: int) -> str:
        low, high, _sub = av
        if low > MAX_COUNT or (high is not sre.MAXREPEAT and high > MAX_COUNT):
            raise Unconvertible(f"RE2 repeats at most {MAX_COUNT} times")
        return super().repeat(op, av, flags)

    def group(self, av: Argument, flags: int) -> str:
        _number, add, remove, sub = av
        inner = (flags | add) & ~remove
        body = self.sequence(list(sub), inner)
        case = inner & sre.SRE_FLAG_IGNORECASE
        if case != flags & sre.SRE_FLAG_IGNORECASE:
            if case:
                self.needs.add(FOLD)
            return f"(?{'' if case else '-'}i:{body})"
        return f"(?:{body})"

    def item(self, op: object, av: Argument, flags: int) -> str:
        if flags & sre.SRE_FLAG_IGNORECASE and op in (sre.LITERAL, sre.NOT_LITERAL, sre.IN) \
                and _holds_dotless(op, av):
            raise Unconvertible("case-insensitive İ or ı (RE2 does not fold them as Python)")
        return super().item(op, av, flags)

    def categories(self, flags: int) -> dict[object, str]:
        if flags & sre.SRE_FLAG_ASCII:
            return UNDER_ASCII
        if self.ascii_subject:
            return ASCII_CLASSES
        self.needs.add(TABLES)  # RE2's \pL and \pN (\s, spelled out, would not need it)
        return {sre.CATEGORY_DIGIT: DIGIT, sre.CATEGORY_WORD: WORD, sre.CATEGORY_SPACE: SPACE}

    def anchor(self, at: object, flags: int) -> str:
        multiline = bool(flags & sre.SRE_FLAG_MULTILINE)
        if at is sre.AT_END and not multiline:
            self.needs.add(NEWLINE)  # \z, and messages are single lines
        if at in (sre.AT_BOUNDARY, sre.AT_NON_BOUNDARY) and not flags & sre.SRE_FLAG_ASCII:
            self.needs.add(BOUNDARY)  # RE2's is ASCII: the same when letters are
        anchors = {
            sre.AT_BEGINNING: "(?m:^)" if multiline else "\\A",
            sre.AT_END: "(?m:$)" if multiline else "\\z",
            sre.AT_BEGINNING_STRING: "\\A",
            sre.AT_END_STRING: "\\z",
            sre.AT_BOUNDARY: "\\b",
            sre.AT_NON_BOUNDARY: "\\B",
        }
        if at not in anchors:
            raise Unconvertible(f"{str(at).lower()} has no RE2 equivalent")
        return anchors[at]

    def escape(self, code: int) -> str:
        if 0xD800 <= code <= 0xDFFF:
            raise Unconvertible("a lone surrogate (RE2 reads UTF-8)")
        return f"\\x{{{code:x}}}"


def _holds_dotless(op: object, av: Argument) -> bool:
    codes = {0x130, 0x131}
    if op in (sre.LITERAL, sre.NOT_LITERAL):
        return av in codes
    for member, value in av:
        if member is sre.LITERAL and value in codes:
            return True
        if member is sre.RANGE and any(value[0] <= c <= value[1] for c in codes):
            return True
    return False


_LACKED = frozenset({sre.ASSERT, sre.ASSERT_NOT, sre.GROUPREF, sre.GROUPREF_EXISTS,
                     sre.ATOMIC_GROUP, sre.POSSESSIVE_REPEAT})


def lacks(items: list[Item]) -> bool:
    """Whether a parse tree uses what RE2 lacks (look-around, backreferences, conditionals,
    atomic and possessive groups, counts over :data:`MAX_COUNT`): a quick look, for telling
    the user, made once per pattern when the index is built. (:func:`re2_form`, which also
    refuses a few rarer cases, decides.)"""
    for op, av in items:
        if op is sre.LITERAL:
            continue  # most items
        if op in _LACKED:
            return True
        if op in (sre.MAX_REPEAT, sre.MIN_REPEAT) and max(
                av[0], 0 if av[1] is sre.MAXREPEAT else av[1]) > MAX_COUNT:
            return True
        if any(lacks(list(child)) for child in children(op, av)):
            return True
    return False
