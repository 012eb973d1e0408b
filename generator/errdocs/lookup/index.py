"""The lookup index: every record as the matcher sees it, filed under its rarest words.

A pattern or template match needs every required word of the record in the message (see
:mod:`.patterns`). Each record is filed under one or two of its rarest required words
(its *keys*), chosen so that any pattern match and any template match implies a key in the
message. A lookup then checks only the records filed under the message's words instead of
running every regex. The site's lookup data is split into shards by the same keys.
"""

from __future__ import annotations

import re
from array import array
from collections import Counter
from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass, field
from typing import overload

from errdocs.catalog.model import Catalog, Entry
from errdocs.catalog.packing import PackedRows
from errdocs.lookup.backtrack import exponential
from errdocs.lookup.jsregex import JsRegex, Unconvertible, from_tree
from errdocs.lookup.linear import Linear, lacks
from errdocs.lookup.memo import Memo, PatternFacts
from errdocs.lookup.patterns import (
    Requirements,
    SubPattern,
    Words,
    parse,
    pattern_requirements,
    template_regex,
    template_requirements,
)
from errdocs.records.problems import Problem, Severity
from errdocs.records.record import Origin, Record

COMPILED_CACHE = 20_000
"""Patterns and templates kept compiled between lookups."""
SECOND_KEY_MAX = 64
"""A second key (there for the similarity stage) is only used when at most this many records,
or one in 2,000, have the word: filing records under common words would make every lookup
with such a word check them all."""


@dataclass(frozen=True, slots=True)
class Target:
    """One record, ready to be matched."""

    record_id: str
    """The record's id."""
    path: str
    """Its page in the generated subtree, ``owner/repo/slug.md``."""
    repo: str
    """``owner/name``."""
    message: str
    """The message template."""
    pattern: str | None
    """The ``messagePattern`` the matcher uses (``None``: absent, bad or matching anything;
    in a site's index, :func:`build_index` ``site``, never held: its JavaScript form is)."""
    pattern_chars: int
    """Literal characters the pattern requires."""
    template_chars: int
    """Literal characters of the template."""
    words: Words
    """The template's words: a template match contains them all; the similarity stage
    compares them with the message's."""
    pattern_words: Words
    """Words a pattern match contains (the same object as :attr:`words` when equal)."""
    keys: tuple[str, ...]
    """The words it is filed under."""
    origin: Origin | None
    """Where the record was read from (to read it again for ``--show``); ``None`` in a
    site's index."""
    javascript: JsRegex | None = None
    """The pattern for the browser, when asked for and the pattern has one."""
    unconverted: bool = False
    """Whether the record has a usable pattern (asked for in JavaScript) with no JavaScript
    form: the browser matches it by its template."""

    @property
    def url(self) -> str:
        """The page's URL path in the site."""
        return f"/errors/{self.path.removesuffix('.md')}/"

    @property
    def template(self) -> str:
        """Regex of the message template (see :func:`.patterns.template_regex`)."""
        return template_regex(self.message)


class SiteTargets(Sequence[Target]):
    """The targets of a site's index (:func:`build_index` ``site``), packed: each is made when
    read. As objects they were ~500 bytes a record at the top of a build's preparation (~150
    MB at 310,000 records, the index held while the paste box's and search box's files are
    written): the target, its message, its keys. The strings records share with the catalogue
    (id, page, repository) and the values targets share (words, the browser's pattern, from
    the memo of each message and pattern) are kept by reference; the rest is packed with
    :mod:`marshal`, one target after the other."""

    def __init__(self) -> None:
        # A list a field (a tuple a target took 96 bytes more than its 6 pointers).
        self._ids: list[str] = []
        self._paths: list[str] = []
        self._repos: list[str] = []
        self._words: list[Words] = []
        self._pattern_words: list[Words] = []
        self._javascript: list[JsRegex | None] = []
        self._rows = PackedRows()
        """Each target's message, literal characters, keys and whether it is unconverted."""

    def append(self, target: Target) -> None:
        if target.pattern is not None or target.origin is not None:
            raise ValueError("a site's target holds neither its pattern nor its origin")
        self._ids.append(target.record_id)
        self._paths.append(target.path)
        self._repos.append(target.repo)
        self._words.append(target.words)
        self._pattern_words.append(target.pattern_words)
        self._javascript.append(target.javascript)
        self._rows.append((target.message, target.pattern_chars, target.template_chars,
                           target.keys, target.unconverted))

    @overload
    def __getitem__(self, index: int) -> Target: ...

    @overload
    def __getitem__(self, index: slice) -> list[Target]: ...

    def __getitem__(self, index: int | slice) -> Target | list[Target]:
        if isinstance(index, slice):
            return [self[n] for n in range(len(self))[index]]
        number = range(len(self))[index]  # (IndexError past the end, negative from it)
        message, pattern_chars, template_chars, keys, unconverted = self._rows[number]
        return Target(self._ids[number], self._paths[number], self._repos[number], message,
                      None, pattern_chars, template_chars, self._words[number],
                      self._pattern_words[number], keys, None, self._javascript[number],
                      unconverted)

    def __len__(self) -> int:
        return len(self._ids)


@dataclass
class LookupIndex:
    """Targets and the postings of their keys."""

    targets: Sequence[Target]
    """Every record, in catalogue path order."""
    postings: dict[str, list[int]]
    """Key word to the positions in :attr:`targets` of the records filed under it."""
    problems: list[Problem]
    """Patterns that do not compile, one each (those records are matched by their template)."""
    unusable: list[Problem] = field(default_factory=list)
    """Patterns with no whole word to file the record under (matched by their template too):
    a limit of the lookup rather than a fault of the record, so only ``errdocs lookup`` says
    so."""
    _compiled: dict[str, Linear] = field(default_factory=dict, repr=False)

    @classmethod
    def of(cls, targets: Sequence[Target], problems: list[Problem],
           unusable: list[Problem] | None = None) -> LookupIndex:
        """The index of ``targets`` (in their order), with the postings of their keys."""
        postings: dict[str, list[int]] = {}
        for position, target in enumerate(targets):
            for key in target.keys:
                postings.setdefault(key, []).append(position)
        return cls(targets, postings, problems, unusable or [])

    def linear(self, source: str) -> Linear:
        """The linear-time matcher of a source :func:`.patterns.parse` accepted (compiled when
        first needed: compiling every pattern up front would take minutes at scale)."""
        compiled = self._compiled.get(source)
        if compiled is None:
            if len(self._compiled) >= COMPILED_CACHE:
                self._compiled.clear()
            compiled = self._compiled[source] = Linear(source)
        return compiled

    def candidates(self, words: Iterable[str]) -> list[int]:
        """Positions of the records filed under any of ``words``, in index order."""
        found: set[int] = set()
        for word in set(words):
            found.update(self.postings.get(word, ()))
        return sorted(found)


@dataclass
class _Prepared:
    """What each target takes of its record, a list a field, in the order the records were
    read. Not the records: at 310,000 records the build reads them one at a time, and holding
    every one till the index was made was ~150 MB more. Not an object a record either: with
    its own copy of the message (the catalogue's entry makes one when read) that was ~200
    bytes a record at the top of a build's preparation (~60 MB at 310,000 records); the
    repository and message are the catalogue's, read again as each target is made."""

    ids: list[str] = field(default_factory=list)
    """Each record's id (the catalogue's string)."""
    pattern_req: list[Requirements | None] = field(default_factory=list)
    """What its pattern requires (``None``: no usable pattern)."""
    template_req: list[Requirements] = field(default_factory=list)
    """What its message template requires."""
    javascript: list[JsRegex | None] = field(default_factory=list)
    """Its pattern for the browser, when asked for and there is one."""
    unconverted: bytearray = field(default_factory=bytearray)
    """1 where a usable pattern, asked for in JavaScript, has no JavaScript form."""
    patterns: list[str | None] = field(default_factory=list)
    """Its pattern's source, when usable (empty for a site's index, which holds none)."""
    origins: list[Origin] = field(default_factory=list)
    """Where it was read from (empty for a site's index, which holds none)."""

    def add(self, record: Record, entry: Entry, facts: PatternFacts | None, javascript: bool,
            site: bool) -> None:
        """Add ``record`` (``entry`` in the catalogue), whose pattern gave ``facts``
        (``None``: no usable pattern)."""
        # The entry's strings, equal to the record's: the catalogue holds its id anyway, and a
        # record read back brings copies of its own (2.1 MB traced at 20,000 records).
        self.ids.append(entry.record_id)
        self.pattern_req.append(None if facts is None else facts.requirements)
        self.template_req.append(template_requirements(entry.message))
        self.javascript.append(None if facts is None else facts.javascript)
        self.unconverted.append(javascript and facts is not None and facts.javascript is None)
        if not site:
            self.patterns.append(None if facts is None else record.message_pattern)
            self.origins.append(record.origin)


def build_index(records: Iterable[Record], catalog: Catalog, *, javascript: bool = False,
                memo: Memo | None = None, site: bool = False,
                remembered: Callable[[Memo], None] | None = None) -> LookupIndex:
    """Index ``records`` (whose pages ``catalog`` placed); with ``javascript``, also convert
    the patterns for the browser (parsing each pattern once for both). ``memo`` remembers
    what each pattern gave, between builds (see :mod:`.memo`); ``remembered`` is given it
    once every record was read (to keep it: the index then lets it go, before the targets
    are made). ``site`` (with ``javascript``): what a site's data files need only, for an
    index that matches nothing in Python: no pattern's source, no origin (~55 MB at 310,000
    records, at the top of the preparation)."""
    problems: list[Problem] = []
    unusable: list[Problem] = []
    memo = memo if memo is not None else Memo()
    entries = catalog.entries
    prepared = _Prepared()
    for record in records:
        facts = _prepare(record, problems, unusable, javascript, memo)
        prepared.add(record, entries[record.id], facts, javascript, site)
    if remembered is not None:
        remembered(memo)
    del memo
    ids = prepared.ids
    # Record numbers in page order: 4 bytes each, not an int object and a list's slot.
    order = array("I", sorted(range(len(ids)), key=lambda n: entries[ids[n]].path))
    frequency = Counter(w for n in range(len(ids)) for w in _all_words(prepared, n))
    common = max(SECOND_KEY_MAX, len(ids) // 2000)
    targets: list[Target] | SiteTargets = SiteTargets() if site else []
    for number in order:
        targets.append(_target(prepared, number, entries[ids[number]], frequency, common))
    return LookupIndex.of(targets, problems, unusable)


def _prepare(record: Record, problems: list[Problem], unusable: list[Problem],
             javascript: bool, memo: Memo) -> PatternFacts | None:
    """Read the record's pattern: its facts, or ``None`` when it has none or a bad or useless
    one (reported and set aside)."""
    source = record.message_pattern
    if not source or not source.strip():
        return None
    facts = _pattern(source, javascript, memo)
    if facts.requirements is None:
        (problems if facts.broken else unusable).append(_problem(record, facts.problem or ""))
        return None
    if facts.slow:
        problems.append(_problem(record, SLOW))
    if not facts.linear:
        unusable.append(_problem(record, NOT_LINEAR))
    return facts


SLOW = ("can take exponential time in a backtracking regex engine (a repeat inside a repeat, "
        "or repeated alternatives that overlap, as in (a+)+ or (a|aa)+); the site's paste box "
        "matches it by its message template instead")
NOT_LINEAR = ("uses what linear-time matching lacks (look-around, a backreference, a "
              "possessive or atomic group, a repeat count over 1000); it is matched by its "
              "message template instead")


def _pattern(source: str, javascript: bool, memo: Memo) -> PatternFacts:
    key = (source, javascript)
    found = memo.patterns.get(key)
    if found is None:
        found = memo.patterns[key] = _read_pattern(source, javascript)
    if memo.used is not None:
        memo.used.patterns[key] = found
    return found


def _read_pattern(source: str, javascript: bool) -> PatternFacts:
    try:
        tree = parse(source)
        requirements = pattern_requirements(tree)
    except (re.error, RecursionError, OverflowError) as exc:
        return PatternFacts(None, None, f"does not compile ({exc}); it is matched by its "
                            "message template instead", broken=True)
    if not requirements.words:
        return PatternFacts(None, None, "has no whole word to find the record by; it is "
                            "matched by its message template instead")
    if javascript:
        slow = exponential(tree)
        return PatternFacts(requirements, None if slow else _javascript(tree), None, slow=slow)
    return PatternFacts(requirements, None, None, linear=_linear(tree))


def _javascript(tree: SubPattern) -> JsRegex | None:
    try:
        return from_tree(tree)
    except Unconvertible:
        return None  # the browser matches the record by its template


def _linear(tree: SubPattern) -> bool:
    """Whether RE2 has a form of the pattern (see :func:`.linear.lacks`)."""
    return not lacks(list(tree))


def _problem(record: Record, text: str) -> Problem:
    origin = record.origin
    return Problem(origin.path, origin.line, text, record.id, "messagePattern", Severity.WARNING)


_GONE = Requirements((), 0)
"""Where a made target's requirements were (see :func:`_target`)."""


def _all_words(prepared: _Prepared, number: int) -> set[str]:
    pattern_req = prepared.pattern_req[number]
    return {*(pattern_req.words if pattern_req else ()), *prepared.template_req[number].words}


def _target(prepared: _Prepared, number: int, entry: Entry, frequency: Counter[str],
            common: int) -> Target:
    """Record ``number``'s target, its requirements let go from ``prepared`` (what a target
    keeps of them is their words: the rest goes as the targets are made, not after)."""
    template_req, pattern_req = prepared.template_req[number], prepared.pattern_req[number]
    prepared.template_req[number] = prepared.pattern_req[number] = _GONE
    words = template_req.words
    pattern_words = pattern_req.words if pattern_req else ()
    return Target(
        record_id=entry.record_id,
        path=entry.path,
        repo=entry.repo,
        message=entry.message,
        pattern=prepared.patterns[number] if prepared.patterns else None,
        pattern_chars=pattern_req.literal_chars if pattern_req else 0,
        template_chars=template_req.literal_chars,
        words=words,
        pattern_words=words if pattern_words == words else pattern_words,
        keys=choose_keys(pattern_words, words, frequency, common),
        origin=prepared.origins[number] if prepared.origins else None,
        javascript=prepared.javascript[number],
        unconverted=bool(prepared.unconverted[number]),
    )


def choose_keys(pattern_words: Collection[str], template_words: Collection[str],
                frequency: Counter[str], common: int = SECOND_KEY_MAX) -> tuple[str, ...]:
    """One or two rarest words such that a pattern match and a template match each
    imply one of them in the message; an optional second key must be in at most ``common``
    records."""
    pattern_words, template_words = frozenset(pattern_words), frozenset(template_words)

    def order(word: str) -> tuple[int, int, str]:
        # Rarest first; among equals the longer (more telling), then alphabetical (stable).
        return (frequency[word], -len(word), word)

    candidates = (pattern_words & template_words) or pattern_words or template_words
    if not candidates:
        return ()
    first = min(candidates, key=order)
    if template_words and first not in template_words:
        # The template stage must find the record too: file it under a template word.
        return (first, min(template_words, key=order))
    rest = (pattern_words | template_words) - {first}
    second = min(rest, key=order, default=None)
    if second is None or frequency[second] > common:
        return (first,)
    return (first, second)
