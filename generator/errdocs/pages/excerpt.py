"""The source excerpt of a record: language, the window shown, real line numbers, the mark."""

from __future__ import annotations

import fnmatch
import re
import textwrap
from dataclasses import dataclass
from functools import lru_cache
from pathlib import PurePosixPath

from pygments.lexers import find_lexer_class_for_filename
from pygments.lexers._mapping import LEXERS

from errdocs.records.record import Record, excerpt_lines
from errdocs.records.schema import MAX_EXCERPT_LINES, MAX_TEXT_CHARS

MAX_LINE_CHARS = 2_000
"""A longer excerpt line is cut (with :data:`CUT_MARK`): a minified line says nothing more."""
CUT_MARK = " …"


@dataclass(frozen=True)
class Excerpt:
    """What the page shows of ``sourceCode``."""

    code: str
    """The lines shown, joined with newlines."""
    language: str
    """Pygments lexer alias chosen from the file name, ``text`` when unknown."""
    first_line: int | None
    """Real line number of the first shown line; ``None`` when the record does not say."""
    marked: int | None
    """1-based position of the raising line within the shown lines, if it is shown."""
    cut: bool
    """True when the excerpt was longer than the page shows."""

    @property
    def options(self) -> str:
        """The code fence's options: real line numbers and the marked line, when known."""
        numbers = "" if self.first_line is None else f'linenums="{self.first_line}"'
        mark = "" if self.marked is None else f'hl_lines="{self.marked}"'
        return f"{numbers} {mark}".strip()


def excerpt_of(record: Record) -> Excerpt | None:
    """The excerpt to show, bounded to :data:`MAX_EXCERPT_LINES` lines and
    :data:`MAX_TEXT_CHARS` characters around the raising line.

    Without ``sourceCodeStart`` nothing says which file lines these are: the excerpt is shown
    without numbers and without a mark. Whatever is cut, whole lines go (a line too long alone
    is shortened), so the lines shown keep their real numbers and the raising line stays.
    """
    if not record.source_code:
        return None
    lines = excerpt_lines(record.source_code)
    start, target = record.source_code_start, record.line_number
    inside = start is not None and target is not None and start <= target < start + len(lines)
    centre = target - start if inside else 0  # type: ignore[operator]
    offset = _window(len(lines), centre)
    window = _dedent(lines[offset : offset + MAX_EXCERPT_LINES])
    shown = [_shorten(line) for line in window]
    first, last = _narrow([len(line) + 1 for line in shown], centre - offset)
    marked = centre - offset - first + 1 if inside else None
    number = None if start is None else start + offset + first
    language = language_for(record.file_path or "")
    cut = last - first < len(lines) or any(len(line) > MAX_LINE_CHARS for line in window)
    return Excerpt("\n".join(shown[first:last]), language, number, marked, cut)


def _narrow(sizes: list[int], centre: int) -> tuple[int, int]:
    """The slice ``[first, last)`` of lines kept so that their sizes add up to at most
    :data:`MAX_TEXT_CHARS`: lines farthest from ``centre`` go first, ``centre`` stays."""
    first, last, total = 0, len(sizes), sum(sizes)
    centre = min(max(centre, 0), len(sizes) - 1)
    while total > MAX_TEXT_CHARS and last - first > 1:
        if last - 1 - centre >= centre - first:
            last -= 1
            total -= sizes[last]
        else:
            total -= sizes[first]
            first += 1
    return first, last


def _dedent(lines: list[str]) -> list[str]:
    """The lines without their common indentation: an excerpt from deep inside a function
    otherwise spends a phone's whole width on blanks before any code. Blank lines stay (as
    empty lines)."""
    return textwrap.dedent("\n".join(lines)).split("\n")


def _shorten(line: str) -> str:
    return line if len(line) <= MAX_LINE_CHARS else line[:MAX_LINE_CHARS] + CUT_MARK


def _window(total: int, centre: int) -> int:
    """First index of a ``MAX_EXCERPT_LINES`` window around ``centre``."""
    if total <= MAX_EXCERPT_LINES:
        return 0
    return max(0, min(centre - MAX_EXCERPT_LINES // 2, total - MAX_EXCERPT_LINES))


def language_for(file_path: str) -> str:
    """Pygments alias for a file name (by its ending), or ``text``.

    Pygments tries each of its ~930 file name patterns on every name, which cost more than the
    rest of rendering a record page. Nearly all are ``*.ext``, which only look at what follows
    the first dot, so the answer is cached by that ending; names that one of the other few
    patterns (``Makefile.*``, ``CMakeLists.txt``...) matches are looked up whole.
    """
    name = _file_name(file_path)
    dot = name.find(".")
    if dot < 0 or _special_names().match(name):
        return _lexer_alias(name)
    return _lexer_alias("\0" + name[dot:])  # no pattern but ``*...`` can match the NUL


def _file_name(file_path: str) -> str:
    """``PurePosixPath(file_path).name``, without making a path (once a record on every
    build, making one was a third of the catalogue's time) when nothing in ``file_path``
    is one a path normalises: an empty, ``.`` or doubled slash-separated part."""
    if "//" in file_path or "/." in file_path or file_path.startswith(".") or (
            file_path.endswith("/")) or not file_path:
        return PurePosixPath(file_path).name
    return file_path.rpartition("/")[2]


@lru_cache(maxsize=4096)
def _lexer_alias(name: str) -> str:
    if not name:
        return "text"
    # The class, not an instance: making a lexer compiles all its regular expressions (a
    # tenth of a build that has nothing to do), and only its name is wanted.
    found = find_lexer_class_for_filename(name)
    return found.aliases[0] if found is not None and found.aliases else "text"


@lru_cache(maxsize=1)
def _special_names() -> re.Pattern[str]:
    """One regular expression for Pygments' file name patterns that are not ``*.ext``."""
    plain = re.compile(r"\*\.[^*?\[\]]+")
    special = [p for lexer in LEXERS.values() for p in lexer[3] if not plain.fullmatch(p)]
    return re.compile("|".join(fnmatch.translate(p) for p in special) or "(?!)")
