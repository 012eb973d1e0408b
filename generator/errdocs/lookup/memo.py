"""What the lookup reads from each pattern, remembered between builds.

Parsing every record's ``messagePattern`` (and converting it for the browser) was most of a
one-record rebuild: at 20,000 records about a second, all of it for records that did not change.
The results depend only on the pattern's text (and errdocs' code), so they are kept in the
catalogue (``.errdocs/catalog.sqlite``, :mod:`errdocs.catalog.store`) and reused; an entry no
build used is dropped. A message template's words are not kept: reading them again (0.13 s for
20,000 messages) costs less than saving and loading them (0.16 s), and a memo of every message
held every message's text at the top of a build's preparation (~40 MB at 310,000 records).
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from errdocs.catalog.store import Catalogue, unshared
from errdocs.lookup.jsregex import JsRegex
from errdocs.lookup.patterns import Requirements, words_of

VERSION = 4
"""Bump when what is remembered changes meaning."""


@dataclass(frozen=True, slots=True)
class PatternFacts:
    """What one pattern text gives the lookup."""

    requirements: Requirements | None
    """What a matching message contains; None when the pattern cannot be used."""
    javascript: JsRegex | None
    """Its browser form; None when it has none (or none was asked for)."""
    problem: str | None
    """Why it cannot be used (reported on every build, for every record with it)."""
    broken: bool = False
    """The pattern does not compile (else, when unusable, it has no word to find it by)."""
    slow: bool = False
    """It can take exponential time in the browser's engine (see :mod:`.backtrack`; only
    looked at with the browser form): the browser matches its record by the template."""
    linear: bool = True
    """RE2 has a form of it (see :mod:`.linear`; only looked at without the browser form):
    else ``errdocs lookup`` matches its record by the template."""


@dataclass
class Memo:
    """Pattern facts by text; ``used`` collects what this build looked up."""

    patterns: dict[tuple[str, bool], PatternFacts] = field(default_factory=dict)
    """By (pattern text, whether the browser form was asked for)."""
    used: Memo | None = None
    """The entries looked up this build (what :func:`save` keeps); ``None``: all of them (a
    memo that started empty holds only what this build looked up)."""


def code_key() -> str:
    """A hash of the lookup's code: a memo made by other code is not used."""
    digest = hashlib.sha256(str(VERSION).encode())
    for path in sorted(Path(__file__).parent.glob("*.py")):
        digest.update(path.name.encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


def load(work_dir: Path) -> Memo:
    """The memo of the last build made by this code; empty when there is none."""
    # Empty, everything it will hold is what this build looks up: no second dict to say so.
    empty = Memo()
    try:
        with Catalogue(work_dir, keep=False) as catalogue:
            db = catalogue.db
            if db is None or catalogue.meta("memo") != code_key():
                return empty
            patterns = {(text, bool(browser)): _facts(json.loads(facts)) for text, browser, facts
                        in db.execute("SELECT text, browser, facts FROM memo_patterns")}
    except (sqlite3.Error, ValueError, TypeError, KeyError):
        return empty  # damaged: made again
    return Memo(patterns, used=Memo())


def save(memo: Memo, work_dir: Path) -> None:
    """Keep what this build used, in one transaction (a failure keeps the previous memo)."""
    kept = memo.used if memo.used is not None else memo
    with Catalogue(work_dir) as catalogue, catalogue.writing():
        db = catalogue.db
        assert db is not None
        db.execute("DELETE FROM memo_patterns")
        db.executemany("INSERT INTO memo_patterns VALUES (?, ?, ?)",
                       ((unshared(text), browser, json.dumps(_plain(facts)))
                        for (text, browser), facts in kept.patterns.items()))
        db.execute("INSERT OR REPLACE INTO meta VALUES ('memo', ?)", (code_key(),))
        catalogue.commit(prune=False)


def _plain(facts: PatternFacts) -> dict[str, Any]:
    """``facts`` as JSON values (a frozenset as a sorted list)."""
    value = asdict(facts)
    if facts.requirements is not None:
        value["requirements"]["words"] = sorted(facts.requirements.words)
    return value


def _facts(value: dict[str, Any]) -> PatternFacts:
    """The inverse of :func:`_plain`."""
    need, script = value.pop("requirements"), value.pop("javascript")
    return PatternFacts(
        None if need is None else Requirements(words_of(need["words"]), need["literal_chars"]),
        None if script is None else JsRegex(**script), **value)
