"""Property: every excerpt line shows under its real line number, and the raising line is the
one marked, whatever the excerpt holds: leading or trailing blank lines, tabs, CRLF, form
feeds, lines of thousands of characters, lines of white space only.

Checked through the real build (``errdocs build``'s sharded build, MkDocs and the project's
plugins), on the built HTML. Each example builds a small site of several records into the
same project, so the builds after the first are incremental.
"""

from __future__ import annotations

import html
import json
import re
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from errdocs.plugins.record import RAISES_HERE
from errdocs.records.record import excerpt_lines
from errdocs.records.schema import MAX_TEXT_CHARS

from . import sites

pytestmark = pytest.mark.slow

RECORDS = 4
"""Records per build: one build costs ~1 s, whatever its few pages."""
TOKEN = re.compile(r"tok(\d+)_")
"""Each line that is not blank holds ``tok<its index>_``, so a shown line says which it is."""
INDENTS = ["", " ", "    ", "\t", "\t  ", "        ", "\f", "  \f"]
BLANKS = ["", " ", "\t", "   \t ", "\f", " \f ", "\u00a0"]
BODY = st.text(st.characters(exclude_categories=("Cs", "Cc"), include_characters="\t\f\u2028",
                             exclude_characters="_\n\r\x0b\x1c\x1d\x1e\x85"), max_size=30)
LANGUAGES = ["worker.py", "ring.go", "shape.rs", "app.ts", "notes.txt", "Makefile"]


@dataclass(frozen=True)
class Shape:
    """One excerpt and how its record numbers it."""

    lines: list[str | None]
    """``None`` for a line of text (made unique by its index), else a blank line's text."""
    sizes: list[int]
    """Extra characters of each text line (a few lines get thousands)."""
    bodies: list[str]
    """Each text line's own characters."""
    indents: list[str]
    """Each line's indentation."""
    crlf: bool
    """Lines end with CRLF."""
    final_newline: bool
    """The excerpt ends with a newline."""
    start: int
    """``sourceCodeStart``."""
    raising: int | None
    """Index of the raising line; ``None`` for a ``lineNumber`` outside the excerpt."""
    end_counts_newline: bool | None
    """``sourceCodeEnd``: ``None`` absent, else whether it counts the empty rest after a
    final newline as a line."""
    file: str
    """``filePath``: decides the highlighter."""

    def texts(self) -> list[str]:
        """The excerpt's lines as the record holds them."""
        out = []
        for n, blank in enumerate(self.lines):
            if blank is not None:
                out.append(blank)
            else:
                out.append(f"{self.indents[n]}tok{n}_{self.bodies[n]}{'x' * self.sizes[n]}")
        return out

    def code(self) -> str:
        """``sourceCode``."""
        newline = "\r\n" if self.crlf else "\n"
        return newline.join(self.texts()) + (newline if self.final_newline else "")

    def shown(self) -> list[str]:
        """The lines a page shows: a newline at the very end ends the last line, so an
        excerpt of blank lines without one shows one line less."""
        return excerpt_lines(self.code().replace("\r\n", "\n"))

    def record(self, number: int) -> dict[str, object]:
        code = self.code()
        last = self.start + len(self.lines) - 1
        data: dict[str, object] = {
            "id": f"r{number}", "repo": "o/r", "slug": f"s{number}",
            "errorMessage": f"excerpt {number}", "filePath": self.file, "sourceCode": code,
            "sourceCodeStart": self.start,
            "lineNumber": last + 5 if self.raising is None else self.start + self.raising,
            "githubUrl": f"https://github.com/o/r/blob/abc/{self.file}#L{self.start}-L{last}"}
        if self.end_counts_newline is not None:
            data["sourceCodeEnd"] = last + (self.final_newline and self.end_counts_newline)
        return data


@st.composite
def shapes(draw: st.DrawFn) -> Shape:
    count = draw(st.integers(1, 24))
    lines = draw(st.lists(st.one_of(st.none(), st.sampled_from(BLANKS)), min_size=count,
                          max_size=count))
    if draw(st.booleans()):  # blank lines first: what Pygments' stripnl used to drop
        blank: list[str | None] = [draw(st.sampled_from(BLANKS))
                                   for _ in range(draw(st.integers(1, 3)))]
        lines = blank + lines
    # Most lines short, some of thousands of characters: an excerpt over MAX_TEXT_CHARS
    # (20,000) loses the lines farthest from the raising line, but now and then.
    size = st.one_of(st.just(0), st.integers(0, 40), st.just(0), st.integers(0, 40),
                     st.just(0), st.integers(0, 40), st.integers(1_000, 6_000))
    return Shape(
        lines=lines,
        sizes=[draw(size) for _ in lines],
        bodies=[draw(BODY) for _ in lines],
        indents=[draw(st.sampled_from(INDENTS)) for _ in lines],
        crlf=draw(st.booleans()),
        final_newline=draw(st.booleans()),
        start=draw(st.integers(1, 100_000)),
        raising=draw(st.one_of(st.none(), st.integers(0, len(lines) - 1))),
        end_counts_newline=draw(st.sampled_from([None, False, True])),
        file=draw(st.sampled_from(LANGUAGES)))


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One project for every example: builds after the first reuse what did not change."""
    return sites.copy_project(tmp_path_factory.mktemp("excerpts"))


@settings(max_examples=12, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                 HealthCheck.function_scoped_fixture])
@given(st.lists(shapes(), min_size=RECORDS, max_size=RECORDS))
def test_every_line_shows_under_its_number_and_the_raising_line_is_marked(
        project: Path, excerpts: list[Shape]) -> None:
    data = project / "records.jsonl"
    data.write_text("".join(json.dumps(s.record(n)) + "\n" for n, s in enumerate(excerpts)),
                    "utf-8")
    settings_, report = sites.build_project(project, records=data, site_url=None)
    # Neither way of counting the last line is worth a warning.
    assert [p for p in report.problems if p.field != "lineNumber"] == []
    for number, shape in enumerate(excerpts):
        page = (settings_.site_dir / "errors" / "o" / "r" / f"s{number}" / "index.html")
        if shape.code():  # an empty excerpt is no excerpt
            _check(shape, _numbered_block(page.read_text("utf-8")))


@dataclass(frozen=True)
class Block:
    """What the built page shows of its excerpt."""

    numbers: list[int]
    """The line numbers, top to bottom."""
    lines: list[str]
    """The code lines, as a reader sees them (without the text for screen readers)."""
    emphasised: list[int]
    """Line numbers shown emphasised."""
    marked: list[int]
    """Indexes of the highlighted lines."""
    announced: list[int]
    """Indexes of the lines that start with the text for screen readers."""


def _numbered_block(page: str) -> Block:
    (table,) = re.findall(r'<table class="highlighttable">.*?</table>', page, re.S)
    numbers_html, code_html = re.findall(r"<pre>(.*?)</pre>", table, re.S)
    code_html = code_html.removeprefix("<span></span>").removeprefix("<code>")
    code_html = code_html.removesuffix("</code>")
    code_lines = code_html.split("\n")
    assert _text(code_lines[-1]) == ""  # Pygments ends the last line with a newline
    code_lines.pop()
    sr = f'<span class="errdocs-sr">{RAISES_HERE}</span>'
    return Block(
        numbers=[int(_text(n)) for n in numbers_html.split("\n")],
        lines=[_text(line.replace(sr, "")) for line in code_lines],
        emphasised=[int(n) for n in re.findall(r'<span class="errdocs-mark">(\d+)</span>',
                                               numbers_html)],
        marked=[n for n, line in enumerate(code_lines) if '<span class="hll">' in line],
        announced=[n for n, line in enumerate(code_lines) if sr in line])


def _text(fragment: str) -> str:
    return html.unescape(re.sub(r"<[^>]*>", "", fragment))


def _check(shape: Shape, block: Block) -> None:
    texts = shape.shown()
    assert len(block.numbers) == len(block.lines) >= 1
    first = block.numbers[0]
    assert block.numbers == list(range(first, first + len(block.lines)))
    assert shape.start <= first and block.numbers[-1] < shape.start + len(texts)
    for number, shown in zip(block.numbers, block.lines, strict=True):
        expected = texts[number - shape.start]
        token = TOKEN.search(expected)
        if token is None:
            assert shown.strip() == "", (number, shown)
        else:  # the same line: its token, and nothing of another line
            assert TOKEN.findall(shown) == [token.group(1)], (number, shown[:80])
    total = sum(len(t) + 1 for t in texts)
    if total <= MAX_TEXT_CHARS and max(map(len, texts)) <= 2_000:
        assert block.numbers[0] == shape.start and len(block.lines) == len(texts)
    if shape.raising is None or shape.raising >= len(texts):
        assert block.marked == block.emphasised == block.announced == []
    else:
        raising = shape.start + shape.raising
        assert raising in block.numbers  # never cut away
        index = block.numbers.index(raising)
        assert block.marked == block.announced == [index]
        assert block.emphasised == [raising]
