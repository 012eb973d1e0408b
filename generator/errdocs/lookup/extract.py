"""Find the error message in what a user pasted: a bare message, a log line or a traceback.

The result is a short list of candidate messages, most likely first; the matcher tries them all
and fuzzy-matches the first. ``lookup.js`` implements the same rules for the site, and the tests
run both on the same inputs.
"""

from __future__ import annotations

import re

MAX_INPUT = 20_000
"""Characters of the paste that are read (the end is kept: that is where messages are)."""
MAX_LINE = 1_000
"""Characters of one candidate that are matched, bounding every regex's work."""
MAX_CANDIDATES = 12
"""Candidates tried per lookup."""

# The rules are written in the common part of Python's and JavaScript's regex syntax (ASCII
# classes, blanks spelled out) so that lookup.js can use them as they are.
_A = re.ASCII
BLANKS = " \t\n\r\f\v"
"""What ``strip`` removes, here and in lookup.js (not Unicode spaces: they may be the text)."""
# Shapes that say exactly where the message is, each with the message in group "m".
_EXPLICIT = (
    re.compile(r"^[ \t]*what\(\):[ \t]+(?P<m>.+)$", _A),  # C++ std::terminate
    re.compile(r"panicked at '(?P<m>.+)', [^ \t]+:\d+(?::\d+)?$", _A),  # Rust before 1.73
    re.compile(r"^(?:panic|fatal error): (?P<m>.+?)(?: \[recovered\])?$", _A),  # Go
)
_RUST_PANIC = re.compile(r"panicked at [^ \t]+:\d+(?::\d+)?:$", _A)  # message on next line
# "ValueError: msg", "std::io::Error: msg", "error[E0423]: msg", "Error: msg" (Node, anyhow).
_CLASS_PREFIX = re.compile(
    r"^(?:[A-Za-z_$][\w$]*(?:(?:\.|::)[A-Za-z_$][\w$]*)*)(?:\[[\w-]+\])?:[ \t]+(?P<m>.+)$", _A)
_ERRORISH = re.compile(r"(?:Error|Exception|Exit|Interrupt|Warning|Panic|Fault|Failure"
                       r"|error|panic|fatal)(?:\[[\w-]+\])?: ", _A)
# Noise in front of a message: pytest's "E   ", log timestamps and levels.
_LINE_PREFIXES = (
    re.compile(r"^E[ \t]{2,}", _A),
    re.compile(r"^\d{4}[-/]\d\d[-/]\d\d[T ][\d:.,]+(?:Z|[+-]\d\d:?\d\d)?[ \t]+", _A),
    re.compile(r"^\[?(?:ERROR|FATAL|CRITICAL|WARN|WARNING|error|fatal)\]?(?::[^ \t]*:)?:?[ \t]+",
               _A),
)
# Lines that are never the message: stack frames and traceback chrome.
_FRAME = re.compile(
    r"^(?:Traceback \(most recent call last\):|During handling of the above exception"
    r"|The above exception was the direct cause|goroutine \d+ \[|stack backtrace:"
    r"|note: run with `RUST_BACKTRACE|exit status \d+$|[ \t]*\^+[ \t]*$)", _A)


def candidates(text: str) -> list[str]:
    """Candidate messages in ``text``, most likely first, without repeats, each cut to
    :data:`MAX_LINE` characters (whatever the paste's size, no regex sees more)."""
    return [m[:MAX_LINE] for m in _found(text)]


def cut_notes(text: str) -> list[str]:
    """What of ``text`` a lookup leaves out, in words, when it leaves anything out (the paste
    box says the same: ``lookup.js``)."""
    notes = []
    if len(text) > MAX_INPUT:
        notes.append(f"Only the last {MAX_INPUT:,} characters of the {len(text):,} given "
                     "were read.")
    longest = max((len(m) for m in _found(text)), default=0)
    if longest > MAX_LINE:
        notes.append(f"Only the first {MAX_LINE:,} characters of a line of {longest:,} were "
                     "matched.")
    return notes


def _found(text: str) -> list[str]:
    """The candidates, uncut."""
    lines = _lines(text)
    if len(lines) == 1:
        explicit, plain = _explicit(lines, 0), [lines[0]]
    else:
        explicit = [m for i in range(len(lines)) for m in _explicit(lines, i)]
        plain = [line for line in reversed(lines) if line and line[0] not in BLANKS
                 and not _FRAME.match(line)]
    found: list[str] = []
    for message in [*_last_first(explicit), *plain]:
        for variant in _variants(message):
            if variant and variant not in found:
                found.append(variant)
    return found[:MAX_CANDIDATES]


def _lines(text: str) -> list[str]:
    text = text[-MAX_INPUT:].replace("\r\n", "\n").replace("\r", "\n")
    lines = [_strip_prefixes(line.rstrip(BLANKS)) for line in text.strip(BLANKS).split("\n")]
    return lines if len(lines) > 1 else [lines[0].strip(BLANKS)]


def _strip_prefixes(line: str) -> str:
    for prefix in _LINE_PREFIXES:
        line = prefix.sub("", line, count=1)
    return line


def _explicit(lines: list[str], index: int) -> list[str]:
    """Messages that line ``index`` points at exactly, if any."""
    line = lines[index]
    for shape in _EXPLICIT:
        if match := shape.search(line):
            return [match.group("m").strip(BLANKS)]
    if _RUST_PANIC.search(line) and index + 1 < len(lines):
        return [lines[index + 1].strip(BLANKS)]
    if _CLASS_PREFIX.match(line) and _errorish(line):
        return [line]
    return []


def _last_first(messages: list[str]) -> list[str]:
    """Tracebacks end with the exception that was raised last: prefer it."""
    return list(reversed(messages))


def _variants(message: str) -> list[str]:
    """The message, then without an ``ErrorClass:`` prefix (which might be its own text)."""
    message = message.strip(BLANKS)
    stripped = _CLASS_PREFIX.match(message)
    if stripped is None:
        return [message]
    inner = stripped.group("m").strip(BLANKS)
    return [inner, message] if _errorish(message) else [message, inner]


def _errorish(line: str) -> bool:
    """Whether the line's first word names an error (``ValueError:``, ``error[E1]:``)."""
    return bool(_ERRORISH.search(line.split(" ", 1)[0] + " "))
