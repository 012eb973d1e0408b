"""The lookup index: every record as the matcher sees it, filed under its rarest words.

A pattern or template match needs every required word of the record in the message (see
:mod:`.patterns`). Each record is filed under one or two of its rarest required words
(its *keys*), chosen so that any pattern match and any template match implies a key in the
message. A lookup then checks only the records filed under the message's words instead of
running every regex. The site's lookup data is split into shards by the same keys.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field

from ..model import Catalog
from ..problems import Problem, Severity
from ..records import Record
from .patterns import (
    Requirements,
    parse,
    pattern_requirements,
    template_regex,
    template_requirements,
)

SECOND_KEY_MAX = 64
"""A second key (there for the similarity stage) is only used when at most this many records,
or one in 2,000, have the word: filing records under common words would make every lookup
with such a word check them all."""


@dataclass(frozen=True)
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
    """The ``messagePattern`` the matcher uses (``None``: absent, bad or matching anything)."""
    pattern_chars: int
    """Literal characters the pattern requires."""
    template_chars: int
    """Literal characters of the template."""
    words: frozenset[str]
    """The template's literal words, compared by the similarity stage."""
    keys: tuple[str, ...]
    """The words it is filed under."""

    @property
    def url(self) -> str:
        """The page's URL path in the site."""
        return f"/errors/{self.path.removesuffix('.md')}/"

    @property
    def template(self) -> str:
        """Regex of the message template (see :func:`.patterns.template_regex`)."""
        return template_regex(self.message)


@dataclass
class LookupIndex:
    """Targets and the postings of their keys."""

    targets: list[Target]
    """Every record, in catalogue path order."""
    postings: dict[str, list[int]]
    """Key word to the positions in :attr:`targets` of the records filed under it."""
    problems: list[Problem]
    """Bad or useless patterns, one each (those records are matched by their template)."""
    _compiled: dict[str, re.Pattern[str]] = field(default_factory=dict, repr=False)

    def regex(self, source: str) -> re.Pattern[str]:
        """The compiled regex for a pattern or template source (compiled once)."""
        compiled = self._compiled.get(source)
        if compiled is None:
            compiled = self._compiled[source] = re.compile(source)
        return compiled

    def candidates(self, words: Iterable[str]) -> list[int]:
        """Positions of the records filed under any of ``words``, in index order."""
        found: set[int] = set()
        for word in set(words):
            found.update(self.postings.get(word, ()))
        return sorted(found)


@dataclass(frozen=True)
class _Prepared:
    record: Record
    pattern: str | None
    pattern_req: Requirements | None
    template_req: Requirements


def build_index(records: Iterable[Record], catalog: Catalog) -> LookupIndex:
    """Index ``records`` (whose pages ``catalog`` placed)."""
    problems: list[Problem] = []
    prepared = [_prepare(r, problems) for r in records]
    prepared.sort(key=lambda p: catalog.entries[p.record.id].path)
    frequency = Counter(w for p in prepared for w in _all_words(p))
    common = max(SECOND_KEY_MAX, len(prepared) // 2000)
    targets: list[Target] = []
    postings: dict[str, list[int]] = {}
    for position, item in enumerate(prepared):
        target = _target(item, catalog.entries[item.record.id].path, frequency, common)
        targets.append(target)
        for key in target.keys:
            postings.setdefault(key, []).append(position)
    return LookupIndex(targets, postings, problems)


def _prepare(record: Record, problems: list[Problem]) -> _Prepared:
    """Read the record's pattern; a bad or useless one is reported and set aside."""
    template_req = template_requirements(record.error_message)
    source = record.message_pattern
    if not source or not source.strip():
        return _Prepared(record, None, None, template_req)
    try:
        re.compile(source)
        requirements = pattern_requirements(parse(source))
    except (re.error, RecursionError, OverflowError) as exc:
        problems.append(_problem(record, f"does not compile ({exc}); it is matched by its "
                                 "message template instead"))
        return _Prepared(record, None, None, template_req)
    if not requirements.words:
        problems.append(_problem(record, "requires no whole word, so it would match almost any "
                                 "message; it is matched by its message template instead"))
        return _Prepared(record, None, None, template_req)
    return _Prepared(record, source, requirements, template_req)


def _problem(record: Record, text: str) -> Problem:
    origin = record.origin
    return Problem(origin.path, origin.line, text, record.id, "messagePattern", Severity.WARNING)


def _all_words(item: _Prepared) -> frozenset[str]:
    pattern_words = item.pattern_req.words if item.pattern_req else frozenset()
    return pattern_words | item.template_req.words


def _target(item: _Prepared, path: str, frequency: Counter[str], common: int) -> Target:
    record = item.record
    return Target(
        record_id=record.id,
        path=path,
        repo=record.repo,
        message=record.error_message,
        pattern=item.pattern,
        pattern_chars=item.pattern_req.literal_chars if item.pattern_req else 0,
        template_chars=item.template_req.literal_chars,
        words=item.template_req.words,
        keys=choose_keys(item.pattern_req.words if item.pattern_req else frozenset(),
                         item.template_req.words, frequency, common),
    )


def choose_keys(pattern_words: frozenset[str], template_words: frozenset[str],
                frequency: Counter[str], common: int = SECOND_KEY_MAX) -> tuple[str, ...]:
    """One or two rarest words such that a pattern match and a template match each
    imply one of them in the message; an optional second key must be in at most ``common``
    records."""

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
