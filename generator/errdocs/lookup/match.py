"""Rank records against a pasted message: pattern, then template, then similar words.

For every candidate message (see :mod:`.extract`) and every record filed under one of its
words (see :mod:`.index`):

1. the record's ``messagePattern`` matching the whole message (Python ``fullmatch``);
2. its message template matching the whole message, ``{placeholders}`` as wildcards;
3. the pattern matching part of the message (``search``), e.g. when more text follows;
4. the template matching part of the message.

Records found by none of these are compared by their literal words with the first candidate
(a recall-weighted F-score, F2, with words weighted by length), so a reworded message still
finds its page. ``lookup.js`` ranks the same way; the tests check that both agree.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from dataclasses import dataclass
from enum import Enum

from errdocs.lookup.extract import candidates
from errdocs.lookup.index import LookupIndex, Target
from errdocs.lookup.linear import Subject
from errdocs.lookup.tokens import tokens

MIN_SIMILARITY = 0.35
"""Below this word similarity a record is not shown."""
MAX_WORDS = 16
"""Words of the candidates (in order, first occurrences) whose records are considered. Bounds
the work of a lookup, and the site's shards loaded per lookup (one shard per word)."""


class How(Enum):
    """How a record matched; the value is the name printed and put in JSON."""

    PATTERN = "pattern"
    TEMPLATE = "template"
    PATTERN_PART = "pattern-part"
    TEMPLATE_PART = "template-part"
    SIMILAR = "similar"


_TIER = {How.PATTERN: 4, How.TEMPLATE: 3, How.PATTERN_PART: 2, How.TEMPLATE_PART: 1,
         How.SIMILAR: 0}


@dataclass(frozen=True)
class Match:
    """One record found for a lookup."""

    target: Target
    """The record."""
    how: How
    """Which stage found it."""
    score: float
    """Share of the message explained by the record's literal text (stages 1-4), or the word
    similarity (stage 5); 0 to 1."""
    candidate: int
    """Which candidate message it matched (0: the most likely one)."""
    message: str
    """That candidate message."""

    @property
    def rank_key(self) -> tuple[object, ...]:
        """Sort key, best first: exact matches of likelier candidates, then by stage and
        score; the page path breaks ties so the order is stable."""
        exact = self.how is not How.SIMILAR
        return (not exact, self.candidate if exact else 0, -_TIER[self.how], -self.score,
                self.target.url)


def lookup(index: LookupIndex, text: str, limit: int = 10) -> list[Match]:
    """The best ``limit`` records for pasted ``text``, best first."""
    messages = candidates(text)
    if not messages:
        return []
    words = [frozenset(tokens(m)) for m in messages]
    subjects = [Subject.of(m) for m in messages]
    best: dict[int, Match] = {}
    for position in index.candidates(lookup_words(messages)):
        target = index.targets[position]
        found = _exact(index, target, subjects, words) or _similar(target, messages[0],
                                                                   words[0])
        if found is not None:
            best[position] = found
    return sorted(best.values(), key=lambda m: m.rank_key)[:limit]


def lookup_words(messages: list[str]) -> list[str]:
    """The words whose records a lookup considers: the first :data:`MAX_WORDS` distinct
    tokens of the candidate messages, most likely message first."""
    return list(dict.fromkeys(t for m in messages for t in tokens(m)))[:MAX_WORDS]


def _exact(index: LookupIndex, target: Target, subjects: list[Subject],
           words: list[frozenset[str]]) -> Match | None:
    """The best pattern or template match of ``target`` on any candidate message."""
    found: list[Match] = []
    for number, (subject, message_words) in enumerate(zip(subjects, words, strict=True)):
        if not message_words.intersection(target.keys):
            continue  # cannot match: every match contains a key
        match = _on_message(index, target, subject, message_words)
        if match is not None:
            found.append(Match(target, match[0], match[1], number, subject.text))
    return min(found, key=lambda m: m.rank_key, default=None)


def _on_message(index: LookupIndex, target: Target, subject: Subject,
                message_words: frozenset[str]) -> tuple[How, float] | None:
    # A match contains every required word, so a missing word rules it out without running
    # the regex (the browser runs it; the result is the same). Patterns and templates run on
    # RE2 (see .linear): linear in the message, whatever the record says. A pattern RE2 cannot
    # say (look-around, backreferences), or cannot say for this message, answers None: the
    # record is then matched by its template, as in the browser.
    pattern = index.linear(target.pattern) \
        if target.pattern and message_words.issuperset(target.pattern_words) else None
    template = index.linear(target.template) \
        if target.words and message_words.issuperset(target.words) else None
    length = max(len(subject.text), 1)
    pattern_score = min(1.0, target.pattern_chars / length)
    template_score = min(1.0, target.template_chars / length)
    if pattern and pattern.fullmatch(subject):
        return How.PATTERN, pattern_score
    if template and template.fullmatch(subject):
        return How.TEMPLATE, template_score
    if pattern and pattern.search(subject):
        return How.PATTERN_PART, pattern_score
    if template and template.search(subject):
        return How.TEMPLATE_PART, template_score
    return None


def _similar(target: Target, message: str, words: frozenset[str]) -> Match | None:
    score = similarity(words, target.words)
    if score < MIN_SIMILARITY:
        return None
    return Match(target, How.SIMILAR, score, 0, message)


def similarity(message_words: frozenset[str], record_words: Collection[str]) -> float:
    """F2 of the shared words, each weighted by its length: recall (how much of the record's
    wording is in the message) counts more than precision (the message also holds values)."""
    shared = _weight(message_words.intersection(record_words))
    if not shared:
        return 0.0
    precision = shared / _weight(message_words)
    recall = shared / _weight(record_words)
    return 5 * precision * recall / (4 * precision + recall)


def _weight(words: Iterable[str]) -> int:
    return sum(len(w) for w in words)
