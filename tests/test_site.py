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
    numbers = re.findall(r'<a href="#__codelineno-0-(\d+)">(\d+)</a>', page)
    # Line 671 is the excerpt's empty last line, which the highlighter does not show.
    assert [int(shown) for _, shown in numbers] == list(range(640, 671))
    assert all(anchor == shown for anchor, shown in numbers)
    marked = re.findall(r'id="__codelineno-0-(\d+)"[^>]*></a><span class="hll">(.*?)</span>\n',
                        page)
    assert [line for line, _ in marked] == ["658"]
    assert _text(marked[0][1]) == 'raise ValueError(f"Unknown MLX async mode: {launch.mode}")'


def test_seed_page_links_to_the_pinned_source(site: Path) -> None:
    page = (site / SEED_PAGE).read_text("utf-8")
    seed = json.loads(SAMPLE.read_text().splitlines()[0])["record"]
    links = re.findall(r'<a href="(https://github\.com/[^"]+)"', page)
    assert html.unescape(links[0]) == seed["githubUrl"]
    assert f"/blob/{seed['analyzedSha']}/" in links[0]


def test_seed_page_has_every_solution_and_prevention_tip(site: Path) -> None:
    text = _text((site / SEED_PAGE).read_text("utf-8"))
    seed = json.loads(SAMPLE.read_text().splitlines()[0])["record"]
    for item in seed["solutions"] + seed["preventionTips"]:
        assert " ".join(item.split()) in text
    assert _text("<h1>" + html.escape(seed["errorMessage"]) + "</h1>") in text


def test_every_record_has_a_page_and_index_pages_link_them(site: Path) -> None:
    records = [json.loads(line)["record"] for line in SAMPLE.read_text().splitlines()]
    pages = list((site / "errors").glob("*/*/*/index.html"))
    assert len(pages) == len(records)
    home = (site / "errors" / "index.html").read_text("utf-8")
    assert f"{len(records)} documented errors from 7 repositories" in _text(home)
