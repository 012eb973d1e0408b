"""Broken and hostile records through the real CLI: exact messages, good pages, a safe --strict.

``fixtures/hostile.jsonl`` holds one line per case of the issue (each record's id names its
case; it starts with a byte-order mark and has a CRLF line and blank lines). Its expected
messages are ``fixtures/hostile.expected.txt``: exactly what ``errdocs check`` prints. After an
intended change, refresh it with ``ERRDOCS_UPDATE_GOLDEN=1`` and review the diff.
"""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from mkdocs.utils.meta import get_data

from errdocs.cli import main
from errdocs.records.schema import MAX_EXCERPT_LINES, MAX_LIST_ITEMS

from .conftest import ROOT

FIXTURES = ROOT / "tests" / "fixtures"
HOSTILE = FIXTURES / "hostile.jsonl"
EXPECTED = FIXTURES / "hostile.expected.txt"
GOOD_IDS = {
    "good-plain", "good-crlf", "dup", "future-1", "future-2", "line-outside", "end-mismatch",
    "start-negative", "xss-everywhere", "title-front-matter", "markdown-syntax", "jinja-syntax",
    "code-fences", "html-declarations", "entities", "bad-links", "userinfo-link",
    "backslash-link", "percent-link", "quote-link", "path-dotdot", "path-backslash",
    "path-specials", "path-unicode", "path-reserved", "path-index-md", "link-only",
    "hostile-envelope", "collide-1", "collide-2", "collide-3", "unicode-text", "control-chars",
}
"""Every record of the fixture that must get its page: the broken ones are not here."""


def run(*args: str) -> Result:
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def expected_output() -> str:
    return EXPECTED.read_text("utf-8")


def snapshot(folder: Path) -> dict[str, bytes]:
    """Every file below ``folder`` (hidden ones too) with its bytes."""
    return {p.relative_to(folder).as_posix(): p.read_bytes()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def record_pages(out_dir: Path) -> dict[str, Path]:
    """Generated record pages by the id in their front matter."""
    pages = {}
    for path in out_dir.rglob("*.md"):
        meta = get_data(path.read_text("utf-8"))[1]
        if meta.get("errdocs", {}).get("kind") == "record":
            pages[meta["errdocs"]["id"]] = path
    return pages


@pytest.fixture
def hostile_project(project: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A project folder holding the fixture as ``hostile.jsonl``, made the working directory
    so messages name the file as a user would type it."""
    shutil.copy(HOSTILE, project / "hostile.jsonl")
    monkeypatch.chdir(project)
    return project


def test_the_fixture_keeps_its_bom_crlf_and_blank_lines() -> None:
    data = HOSTILE.read_bytes()
    assert data.startswith(b"\xef\xbb\xbf") and b"\r\n" in data and b"\n\n" in data


@pytest.mark.usefixtures("hostile_project")
def test_check_names_every_problem_then_counts() -> None:
    result = run("check", "hostile.jsonl")
    if os.environ.get("ERRDOCS_UPDATE_GOLDEN"):
        EXPECTED.write_text(result.output, "utf-8")
    assert result.output == expected_output()
    assert result.exit_code == 1
    assert result.stdout == f"{len(GOOD_IDS)} records checked: 15 errors, 11 warnings\n"


def test_build_reports_the_same_and_gives_every_good_record_its_page(
        hostile_project: Path) -> None:
    outside = {k: v for k, v in snapshot(hostile_project).items() if not k.startswith("docs/")}
    hand_written = snapshot(hostile_project / "docs")
    result = run("build", "hostile.jsonl")
    assert result.exit_code == 0, result.output
    problems, count = expected_output().rsplit("\n", 2)[0], expected_output().splitlines()[-1]
    assert result.stderr == problems + "\n"
    out_dir = hostile_project / "docs" / "errors"
    # The generated files: the pages, and the paste box's and the search box's data.
    written = [p for p in snapshot(out_dir) if p.endswith((".md", ".js"))]
    summary = count.split(": ", 1)[1]
    assert result.stdout == (f"{len(GOOD_IDS)} records, {summary}; pages: {len(written)} written, "
                             f"0 unchanged, 0 removed; units: 6 built, 0 reused\n"
                             f"Site built in {hostile_project / 'site'}\n")
    pages = record_pages(out_dir)
    assert set(pages) == GOOD_IDS
    for page in pages.values():
        relative = page.relative_to(out_dir).with_suffix("")
        assert (hostile_project / "site" / "errors" / relative / "index.html").is_file()
    # Nothing outside docs/errors, site/ and errdocs' own state (.errdocs/) changed; the
    # hand-written pages are as they were.
    after = snapshot(hostile_project)
    assert {k: v for k, v in after.items()
            if not k.startswith(("docs/", "site/", ".errdocs/"))} == outside
    assert {k: v for k, v in snapshot(hostile_project / "docs").items()
            if not k.startswith("errors/")} == hand_written


def test_strict_build_fails_and_leaves_the_previous_site_and_all_else_byte_for_byte(
        hostile_project: Path) -> None:
    good_line = HOSTILE.read_text("utf-8-sig").splitlines()[0]
    (hostile_project / "good.jsonl").write_text(good_line + "\n", "utf-8")
    assert run("build", "good.jsonl").exit_code == 0
    before = snapshot(hostile_project)
    assert any(k.startswith("site/") for k in before) and any(k.startswith("docs/errors/")
                                                              for k in before)
    result = run("build", "--strict", "hostile.jsonl")
    assert result.exit_code == 1
    problems = expected_output().rsplit("\n", 2)[0]
    assert result.output == (problems + "\nError: 15 errors, 11 warnings in the records; "
                             "nothing was written (--strict)\n")
    assert snapshot(hostile_project) == before  # site/, docs/ and all else, byte for byte


def test_an_oversized_record_gets_a_bounded_page_and_warnings(
        project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(project)
    code = "\n".join(f"line_{n} = {n}" for n in range(1, 20_001))
    big = {"id": "big", "repo": "acme/widgets", "slug": "big", "errorMessage": "Too big",
           "sourceCode": code, "sourceCodeStart": 1, "sourceCodeEnd": 20_000,
           "lineNumber": 15_000, "filePath": "big.py",
           "githubUrl": "https://github.com/acme/widgets/blob/a/big.py#L1-L20000",
           "solutions": [f"Solution {n}" for n in range(10_000)],
           "documentation": "word " * 10_000}
    Path("big.jsonl").write_text(json.dumps(big) + "\n", "utf-8")
    result = run("build", "big.jsonl")
    assert result.exit_code == 0, result.output
    assert result.stderr == (
        "big.jsonl:1: record 'big': field 'sourceCode': warning: excerpt has 20000 lines; the "
        "page shows 200 around the raising line\n"
        "big.jsonl:1: record 'big': field 'documentation': warning: 50000 characters; the page "
        "shows the first 20000\n"
        "big.jsonl:1: record 'big': field 'solutions': warning: 10000 items; the page shows the "
        "first 100\n")
    page = (project / "docs" / "errors" / "acme" / "widgets" / "big.md").read_text("utf-8")
    fence = page.split('``` python linenums="14900" hl_lines="101"\n', 1)[1].split("\n```", 1)[0]
    assert fence.splitlines() == [f"line_{n} = {n}" for n in range(14_900, 15_100)]
    assert len(fence.splitlines()) == MAX_EXCERPT_LINES
    assert page.count("\n1. Solution ") == MAX_LIST_ITEMS
    assert "*9900 more solutions are not shown.*" in page
    assert ("*The excerpt is long: 200 lines around the raising line are shown; the whole of it "
            "is on GitHub.*") in page
    assert ("[View source on GitHub](https://github.com/acme/widgets/blob/a/big.py#L15000) · "
            "[lines 1–20000](https://github.com/acme/widgets/blob/a/big.py#L1-L20000)") in page
    assert len(page.encode()) < 40_000
    assert (project / "site" / "errors" / "acme" / "widgets" / "big" / "index.html").is_file()


def test_broken_bytes_and_many_tags_cost_their_own_record_in_check_and_build_alike(
        hostile_project: Path) -> None:
    """Findings 5 and 6 and issue 12's bare CR: a Latin-1 byte in the first record, a line
    ended by a lone CR, a NUL and a record with 150 tags. ``check`` and ``build`` print the
    same problems and every other record gets its page; the page shows the first 100 tags."""
    lines = HOSTILE.read_bytes().split(b"\n")
    lines[0] = lines[0].replace(b"must get its page", b"caf\xe9 must get its page")
    lines[10] += b"\r" + lines.pop(11)  # the first two "dup" lines, joined by a lone CR
    lines.insert(12, b'{"id": "nul\x00", "repo": "acme/widgets"}')  # the line the pop freed
    tags = [f"tag-{n:03}" for n in range(150)]
    many = {"id": "many-tags", "repo": "acme/widgets", "slug": "many-tags",
            "errorMessage": "Widget many-tags failed", "tags": tags}
    Path("broken.jsonl").write_bytes(b"\n".join(lines) + json.dumps(many).encode() + b"\n")
    checked = run("check", "broken.jsonl")
    assert checked.stderr.startswith(
        'broken.jsonl:1: not UTF-8: byte 0xE9 at column 164, after "lain record that caf"; save '
        "the file as UTF-8 (it may be Latin-1 or Windows-1252)\n")
    assert ("broken.jsonl:13: record 'dup': field 'id': duplicate id with different content; "
            "keeping the record from broken.jsonl:11\n"  # line 12 (after the CR) was merged
            "broken.jsonl:14: not valid JSON: Invalid control character at (column 12)\n"
            ) in checked.stderr
    assert checked.stderr.endswith(
        "broken.jsonl:52: record 'many-tags': field 'tags': warning: 150 items; the page shows "
        "the first 100\n")
    good = GOOD_IDS - {"good-plain"} | {"many-tags"}
    assert checked.stdout == f"{len(good)} records checked: 17 errors, 12 warnings\n"

    built = run("build", "broken.jsonl")
    assert built.exit_code == 0, built.output
    assert built.stderr == checked.stderr
    assert built.stdout.startswith(f"{len(good)} records, 17 errors, 12 warnings; ")
    out_dir = hostile_project / "docs" / "errors"
    assert set(record_pages(out_dir)) == good
    page = (hostile_project / "site" / "errors" / "acme" / "widgets" / "many-tags" /
            "index.html").read_text("utf-8")
    shown = sorted(set(re.findall(r'href="\.\./\.\./\.\./tags/(tag-\d+)/"', page)))
    assert shown == tags[:MAX_LIST_ITEMS]
    tag_pages = {p.name for p in (hostile_project / "site" / "errors" / "tags").iterdir()}
    assert set(tags[:MAX_LIST_ITEMS]) <= tag_pages and not set(tags[MAX_LIST_ITEMS:]) & tag_pages
