"""What the lookup reads from each pattern and message, remembered between builds.

Parsing every record's ``messagePattern`` (and converting it for the browser) was most of a
one-record rebuild: at 20,000 records about a second, all of it for records that did not change.
The results depend only on the pattern's or the message's text (and errdocs' code), so they are
kept in ``.errdocs/lookup-memo.pickle`` and reused; an entry no build used is dropped.
"""

from __future__ import annotations

import hashlib
import pickle
from dataclasses import dataclass, field
from pathlib import Path

from errdocs.errors import naming
from errdocs.lookup.jsregex import JsRegex
from errdocs.lookup.patterns import Requirements

FILE = "lookup-memo.pickle"
VERSION = 2
"""Bump when what is remembered changes meaning."""


@dataclass(frozen=True)
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
    """Pattern and template facts by text; ``used`` collects what this build looked up."""

    patterns: dict[tuple[str, bool], PatternFacts] = field(default_factory=dict)
    """By (pattern text, whether the browser form was asked for)."""
    templates: dict[str, Requirements] = field(default_factory=dict)
    """By message text."""
    used: Memo | None = None
    """The entries looked up this build (what :func:`save` keeps)."""


def code_key() -> str:
    """A hash of the lookup's code: a memo made by other code is not used."""
    digest = hashlib.sha256(str(VERSION).encode())
    for path in sorted(Path(__file__).parent.glob("*.py")):
        digest.update(path.name.encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


def load(work_dir: Path) -> Memo:
    """The memo of the last build made by this code; empty when there is none."""
    key = code_key()
    try:
        with (work_dir / FILE).open("rb") as handle:
            stored = pickle.load(handle)
    except (OSError, pickle.UnpicklingError, EOFError, AttributeError, ImportError):
        return Memo(used=Memo())
    if not (isinstance(stored, tuple) and stored[:2] == (VERSION, key)):
        return Memo(used=Memo())
    return Memo(stored[2], stored[3], used=Memo())


def save(memo: Memo, work_dir: Path) -> None:
    """Keep what this build used (written aside, then renamed: never half a file)."""
    key = code_key()
    kept = memo.used if memo.used is not None else memo
    work_dir.mkdir(parents=True, exist_ok=True)
    tmp = work_dir / (FILE + ".tmp")
    with naming(tmp), tmp.open("wb") as handle:
        pickle.dump((VERSION, key, kept.patterns, kept.templates), handle,
                    protocol=pickle.HIGHEST_PROTOCOL)
    tmp.replace(work_dir / FILE)
