"""End to end: the real MkDocs (Material) build of the sample dataset, checked in the HTML."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from errdocs.cli import main

from .conftest import SAMPLE, copy_project

pytestmark = pytest.mark.slow
SEED_PAGE = "errors/sgl-project/sglang/unknown-mlx-async-mode-launch-mode/index.html"


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    project = copy_project(tmp_path_factory.mktemp("project"))
    result = CliRunner().invoke(main, ["build", str(SAMPLE), "--strict",
                                       "-f", str(project / "mkdocs.yml")])
    assert result.exit_code == 0, result.output
    assert result.stdout.endswith(f"Site built in {project / 'site'}\n")
    return project / "site"


def test_without_full_text_there_is_no_pagefind_index(site: Path) -> None:
    assert not (site / "pagefind").exists()
    manifest = (site / "errors" / "assets" / "search" / "manifest.js").read_text("utf-8")
    assert '"fullText":false' in manifest


def _text(fragment: str) -> str:
    """Visible text of an HTML fragment, whitespace collapsed."""
    return " ".join(html.unescape(re.sub(r"<[^>]+>", "", fragment)).split())


def test_seed_page_marks_line_658_with_its_real_number(site: Path) -> None:
    page = (site / SEED_PAGE).read_text("utf-8")
    (column,) = re.findall(r'<td class="linenos"><div class="linenodiv"><pre><span></span>'
                           r'(.*?)</pre></div></td>', page, re.S)
    # Plain numbers, one a line; the raising line's is emphasised.
    assert column.count('<span class="errdocs-mark">658</span>') == 1
    shown = [int(_text(n)) for n in column.split("\n")]
    # sourceCodeEnd 671 counts the empty rest after the excerpt's final newline: no line.
    assert shown == list(range(640, 671))
    (code,) = re.findall(r'<td class="code"><div><pre><span></span><code>(.*?)</code>', page,
                         re.S)
    *lines, last = code.split("\n")  # every line ends with a line break
    assert last == "" and len(lines) == len(shown)
    marked = [number for number, line in zip(shown, lines, strict=True)
              if line.startswith('<span class="hll">')]
    assert marked == [658]
    # A screen reader hears that this line raises the error (the text is visually hidden).
    assert _text(lines[658 - 640]) == (
        'Raises the error: raise ValueError(f"Unknown MLX async mode: {launch.mode}")')
    assert '<span class="hll"><span class="errdocs-sr">Raises the error: </span>' in code
    assert "__codelineno" not in page  # plain numbers: no anchor that nothing links to


def test_seed_page_links_to_the_pinned_source(site: Path) -> None:
    page = (site / SEED_PAGE).read_text("utf-8")
    seed = json.loads(SAMPLE.read_text().splitlines()[0])["record"]
    links = re.findall(r'<a href="(https://github\.com/[^"]+)"', page)
    # "View source" opens the raising line; the excerpt's whole range is the next link.
    assert html.unescape(links[0]) == seed["githubUrl"].replace("#L640-L671", "#L658")
    assert html.unescape(links[1]) == seed["githubUrl"]
    assert f"/blob/{seed['analyzedSha']}/" in links[0]


def test_seed_page_has_every_solution_and_prevention_tip(site: Path) -> None:
    text = _text((site / SEED_PAGE).read_text("utf-8"))
    seed = json.loads(SAMPLE.read_text().splitlines()[0])["record"]
    for item in seed["solutions"] + seed["preventionTips"]:
        assert " ".join(item.split()) in text
    assert _text("<h1>" + html.escape(seed["errorMessage"]) + "</h1>") in text


def test_every_record_has_a_page_and_index_pages_link_them(site: Path) -> None:
    records = [json.loads(line)["record"] for line in SAMPLE.read_text().splitlines()]
    pages = [p for p in (site / "errors").glob("*/*/*/index.html")
             if p.parent.parent.name != "index"]  # tags/index/by-name/: a list, no record
    assert len(pages) == len(records)
    home = (site / "errors" / "index.html").read_text("utf-8")
    assert f"{len(records)} errors 7 repositories 8 categories" in _text(home)  # the counts
