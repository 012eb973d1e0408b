"""Convert a Python regex into a JavaScript one with the same meaning, or say why not.

The conversion works on Python's parse tree, not on the text, so escapes, verbose mode and
character classes are read exactly as ``re`` reads them. The output uses the ``u`` flag, and
spells out what differs between the two engines:

- ``(?P<x>...)`` becomes ``(?<x>...)``, ``(?P=x)`` becomes ``\\k<x>``;
- ``\\A`` and ``\\Z`` become ``^`` and ``$`` (JavaScript without the ``m`` flag);
- Python's ``$`` (end, or before a final newline) becomes ``(?=\\n?$)``, and with ``(?m)``
  ``^``/``$`` become lookarounds on ``\\n``;
- ``.`` becomes ``[^\\n]`` (JavaScript's ``.`` also stops at ``\\r``, U+2028 and U+2029);
- ``\\w``, ``\\d``, ``\\s`` and ``\\b`` get Python's Unicode meaning (``[\\p{L}\\p{N}_]`` ...);
- a leading ``(?i)`` becomes the ``i`` flag; ``(?s)``, ``(?m)``, ``(?a)`` and ``(?x)`` are
  applied during the conversion, also when scoped.

Possessive quantifiers, atomic groups, conditionals and a scoped ``(?i:...)`` have no
JavaScript equivalent (in the engines the site supports): such a pattern is not converted and
the browser matches that record by its message template instead.
"""

from __future__ import annotations

import re
import re._constants as sre  # opcodes of the parse tree (see patterns.py)
from dataclasses import dataclass

from errdocs.lookup.patterns import Argument, Item, SubPattern, parse


class Unconvertible(Exception):
    """The pattern uses Python-only syntax."""


@dataclass(frozen=True, slots=True)
class JsRegex:
    """A JavaScript regular expression: ``new RegExp(source, flags)``."""

    source: str
    """The pattern text."""
    flags: str
    """``u``, or ``iu`` for a case-insensitive pattern."""


WORD = r"\p{L}\p{N}_"
"""Python's Unicode ``\\w`` (letters, numbers, underscore) inside a class."""
DIGIT = r"\p{Nd}"
"""Python's Unicode ``\\d``."""
SPACE = r"\s\x1c-\x1f\x85"
"""Python's Unicode ``\\s`` (what ``str.isspace`` accepts), inside a class: JavaScript's
``\\s`` plus the four separators and NEL it lacks. (It also holds U+FEFF, which Python's
does not: a byte order mark inside an error message is not worth 60 bytes a pattern.)"""
ASCII_SPACE = r"\t-\r "
"""Python's ``\\s`` under ``(?a)``."""

_CLASS_SYNTAX = frozenset("\\]^-[")
_ENGLISH = re.compile(r"[ -~]")


def convert(source: str) -> JsRegex:
    """The JavaScript form of a Python pattern; :class:`Unconvertible` or :class:`re.error`
    when there is none."""
    return from_tree(parse(source))


def from_tree(tree: SubPattern) -> JsRegex:
    """The JavaScript form of a parsed Python pattern; :class:`Unconvertible` when none."""
    flags = tree.state.flags
    names = {number: name for name, number in tree.state.groupdict.items()}
    emitter = Emitter(names, bool(flags & sre.SRE_FLAG_IGNORECASE), _sure_groups(list(tree)))
    body = emitter.sequence(list(tree), flags)
    return JsRegex(body, "iu" if emitter.ignore_case else "u")


@dataclass
class Emitter:
    """Writes a parse tree in another engine's syntax; this class writes JavaScript's, and
    :mod:`.linear` subclasses it for RE2's. Raises :class:`Unconvertible` for what the target
    engine cannot say."""

    names: dict[int, str]
    ignore_case: bool
    sure: set[int]
    """Groups that take part in every match (see :func:`_sure_groups`)."""

    SYNTAX = frozenset("\\^$.|?*+()[]{}/")
    """Characters escaped outside a class."""

    def sequence(self, items: list[Item], flags: int) -> str:
        return "".join(self.item(op, av, flags) for op, av in items)

    def item(self, op: object, av: Argument, flags: int) -> str:
        if op is sre.LITERAL:
            return self.literal(av)
        if op is sre.NOT_LITERAL:
            return f"[^{self.class_literal(av)}]"
        if op is sre.ANY:
            return r"[\s\S]" if flags & sre.SRE_FLAG_DOTALL else r"[^\n]"
        if op is sre.IN:
            return self.char_class(av, flags)
        if op in (sre.MAX_REPEAT, sre.MIN_REPEAT):
            return self.repeat(op, av, flags)
        if op is sre.SUBPATTERN:
            return self.group(av, flags)
        if op is sre.BRANCH:
            _, alternatives = av
            return "(?:" + "|".join(self.sequence(list(a), flags) for a in alternatives) + ")"
        if op is sre.AT:
            return self.anchor(av, flags)
        if op in (sre.ASSERT, sre.ASSERT_NOT):
            return self.lookaround(op, av, flags)
        if op is sre.GROUPREF:
            return self.groupref(av)
        raise Unconvertible(f"{str(op).lower()} has no {self.ENGINE} equivalent")

    ENGINE = "JavaScript"
    """The target engine's name, for messages."""

    def lookaround(self, op: object, av: Argument, flags: int) -> str:
        direction, sub = av
        kind = ("=" if op is sre.ASSERT else "!")
        return f"(?{'<' if direction < 0 else ''}{kind}{self.sequence(list(sub), flags)})"

    def groupref(self, number: int) -> str:
        if number not in self.sure:  # Python fails where JavaScript matches the empty string
            raise Unconvertible("a backreference to a group that may not take part")
        name = self.names.get(number)
        return f"\\k<{name}>" if name else f"(?:\\{number})"

    def repeat(self, op: object, av: Argument, flags: int) -> str:
        low, high, sub = av
        items = list(sub)
        body = self.sequence(items, flags)
        if not _is_atom(items):
            body = f"(?:{body})"
        if high is sre.MAXREPEAT:
            quantifier = {0: "*", 1: "+"}.get(low, f"{{{low},}}")
        elif low == high:
            quantifier = f"{{{low}}}"
        else:
            quantifier = "?" if (low, high) == (0, 1) else f"{{{low},{high}}}"
        return body + quantifier + ("?" if op is sre.MIN_REPEAT else "")

    def group(self, av: Argument, flags: int) -> str:
        number, add, remove, sub = av
        inner = (flags | add) & ~remove
        if bool(inner & sre.SRE_FLAG_IGNORECASE) != self.ignore_case:
            raise Unconvertible("a scoped (?i:...) flag has no JavaScript equivalent")
        body = self.sequence(list(sub), inner)
        if number is None:
            return f"(?:{body})"
        name = self.names.get(number)
        return f"(?<{name}>{body})" if name else f"({body})"

    def char_class(self, items: list[Item], flags: int) -> str:
        negate = bool(items) and items[0][0] is sre.NEGATE
        members = items[1:] if negate else items
        simple = [m for m in members if self.excluded(m, flags) is None]
        complements = [f"[^{self.excluded(m, flags)}]" for m in members
                       if self.excluded(m, flags) is not None]
        if not complements:
            parts = "".join(self.class_member(op, av, flags) for op, av in simple)
            return f"[{'^' if negate else ''}{parts}]"
        if not simple and len(complements) == 1:  # \S is [^\s...], and [^\S] is [\s...]
            excluded = self.excluded(members[0], flags)
            return f"[{excluded}]" if negate else f"[^{excluded}]"
        # \W, \D, \S mixed with other members: a class cannot hold their complement, so
        # spell the class as an alternation of one-character matchers.
        if simple:
            complements.insert(0, "[" + "".join(self.class_member(o, a, flags)
                                                for o, a in simple) + "]")
        return self.negated_alternation(complements) if negate \
            else f"(?:{'|'.join(complements)})"

    def negated_alternation(self, matchers: list[str]) -> str:
        """One character matched by none of ``matchers``."""
        return f"(?:(?!{'|'.join(matchers)})[\\s\\S])"

    def class_member(self, op: object, av: Argument, flags: int) -> str:
        if op is sre.LITERAL:
            return self.class_literal(av)
        if op is sre.RANGE:
            low, high = av
            return f"{self.class_literal(low)}-{self.class_literal(high)}"
        if op is sre.CATEGORY:
            positive = self.categories(flags).get(av)
            if positive is not None:
                return positive
        raise Unconvertible(f"{str(av).lower()} inside a character class")

    def categories(self, flags: int) -> dict[object, str]:
        """What ``\\d``, ``\\w`` and ``\\s`` hold, as class members, under ``flags``."""
        ascii_only = bool(flags & sre.SRE_FLAG_ASCII)
        return {
            sre.CATEGORY_DIGIT: "0-9" if ascii_only else DIGIT,
            sre.CATEGORY_WORD: "A-Za-z0-9_" if ascii_only else WORD,
            sre.CATEGORY_SPACE: ASCII_SPACE if ascii_only else SPACE,
        }

    def excluded(self, member: Item, flags: int) -> str | None:
        """For a ``\\D``/``\\W``/``\\S`` class member, what it excludes (to print as
        ``[^...]``); ``None`` for any other member."""
        op, category = member
        positive = _NEGATED.get(category) if op is sre.CATEGORY else None
        return None if positive is None else self.categories(flags)[positive]

    def anchor(self, at: object, flags: int) -> str:
        multiline = bool(flags & sre.SRE_FLAG_MULTILINE)
        word = "A-Za-z0-9_" if flags & sre.SRE_FLAG_ASCII else WORD
        anchors = {
            sre.AT_BEGINNING: r"(?<![^\n])" if multiline else "^",
            sre.AT_END: r"(?![^\n])" if multiline else r"(?=\n?$)",
            sre.AT_BEGINNING_STRING: "^",
            sre.AT_END_STRING: "$",
            sre.AT_BOUNDARY: f"(?:(?<=[{word}])(?![{word}])|(?<![{word}])(?=[{word}]))",
            sre.AT_NON_BOUNDARY: f"(?:(?<=[{word}])(?=[{word}])|(?<![{word}])(?![{word}]))",
        }
        if at not in anchors:
            raise Unconvertible(f"{str(at).lower()} has no JavaScript equivalent")
        return anchors[at]

    def literal(self, code: int) -> str:
        char = chr(code)
        if char in self.SYNTAX:
            return "\\" + char
        return char if _ENGLISH.fullmatch(char) else self.escape(code)

    def class_literal(self, code: int) -> str:
        char = chr(code)
        if char in _CLASS_SYNTAX:
            return "\\" + char
        return char if _ENGLISH.fullmatch(char) else self.escape(code)

    def escape(self, code: int) -> str:
        """A character written by its code point."""
        return f"\\u{{{code:x}}}"


_NEGATED = {sre.CATEGORY_NOT_DIGIT: sre.CATEGORY_DIGIT, sre.CATEGORY_NOT_WORD: sre.CATEGORY_WORD,
            sre.CATEGORY_NOT_SPACE: sre.CATEGORY_SPACE}


def _sure_groups(items: list[Item]) -> set[int]:
    """Capture groups that take part in every match: not inside an alternative, an optional
    repeat or a lookaround. A backreference to any other group can fail in Python where it
    matches nothing in JavaScript."""
    sure: set[int] = set()
    for op, av in items:
        if op is sre.SUBPATTERN:
            number, _add, _remove, sub = av
            if number is not None:
                sure.add(number)
            sure |= _sure_groups(list(sub))
        elif op in (sre.MAX_REPEAT, sre.MIN_REPEAT) and av[0] >= 1:
            sure |= _sure_groups(list(av[2]))
    return sure


def _is_atom(items: list[Item]) -> bool:
    """Whether a quantifier can follow the converted ``items`` without a group."""
    if len(items) != 1:
        return False
    op = items[0][0]
    return op in (sre.LITERAL, sre.NOT_LITERAL, sre.ANY, sre.IN, sre.SUBPATTERN)


