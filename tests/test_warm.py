"""The warm rebuild: after a change that touches every page but no record, what did not change
is reused (Markdown bodies by source and conversion settings, errdocs' rendering when only
the MkDocs config changed), what did change is made again, and the site is a cold build's."""

from __future__ import annotations

import io
import json
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path

import markdown
import pytest

from errdocs import code
from errdocs.build import build_sharded
from errdocs.pages.permalinks import Addresses
from errdocs.project import load_settings
from errdocs.units import build as unit_build
from errdocs.units import plan
from errdocs.units.state import read as read_rows

from .conftest import ROOT
from .helpers import cold_site, site_tree

sys.path.insert(0, str(ROOT / "bench"))
import synth

pytestmark = pytest.mark.slow


class _Counts:
    """Markdown conversions and record renderings done in this process (``jobs=1``)."""

    def __init__(self) -> None:
        self.converted = self.rendered = 0


@pytest.fixture
def counts(monkeypatch: pytest.MonkeyPatch) -> Iterator[_Counts]:
    found = _Counts()
    convert, render = markdown.Markdown.convert, unit_build.render_record

    def counted_convert(self: markdown.Markdown, source: str) -> str:
        found.converted += 1
        return convert(self, source)

    def counted_render(*args: object, **kwargs: object) -> object:
        found.rendered += 1
        return render(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(markdown.Markdown, "convert", counted_convert)
    monkeypatch.setattr(unit_build, "render_record", counted_render)
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1767225600")
    yield found


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text("utf-8")
    assert old in text, old
    path.write_text(text.replace(old, new, 1), "utf-8")


def test_a_config_edit_reuses_every_body_and_rendering_and_equals_a_cold_build(
        tmp_path: Path, project: Path, counts: _Counts) -> None:
    data = synth.write(12, tmp_path / "data.jsonl", seed=11)
    settings = load_settings(project / "mkdocs.yml")
    cold = build_sharded(settings, [data], jobs=1, show_progress=False)
    assert counts.rendered == 12 and counts.converted > 12
    counts.converted = counts.rendered = 0
    _edit(project / "mkdocs.yml", "site_name: errdocs", "site_name: Warm errdocs")
    warm = build_sharded(settings, [data], jobs=1, show_progress=False)
    assert warm.built == cold.built  # every page is built again with the new config ...
    assert (counts.rendered, counts.converted, warm.written) == (0, 0, 0)  # ... from before
    site = site_tree(project / "site")
    assert b"Warm errdocs" in site["index.html"]
    assert site == cold_site(project, data, tmp_path / "cold")


def test_a_changed_extension_setting_converts_every_page_again(
        tmp_path: Path, project: Path, counts: _Counts) -> None:
    data = synth.write(12, tmp_path / "data.jsonl", seed=12)
    settings = load_settings(project / "mkdocs.yml")
    build_sharded(settings, [data], jobs=1, show_progress=False)
    first = counts.converted
    counts.converted = counts.rendered = 0
    _edit(project / "mkdocs.yml", "permalink: true", "permalink: '¤'")
    build_sharded(settings, [data], jobs=1, show_progress=False)
    assert counts.converted == first and counts.rendered == 0
    site = site_tree(project / "site")
    assert any("¤</a>".encode() in text for name, text in site.items()
               if name.startswith("errors/") and name.endswith(".html"))
    assert site == cold_site(project, data, tmp_path / "cold")


class _Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_a_changed_record_and_theme_template_make_again_what_they_touch(
        tmp_path: Path, project: Path, counts: _Counts, monkeypatch: pytest.MonkeyPatch) -> None:
    data = synth.write(12, tmp_path / "data.jsonl", seed=13)
    settings = load_settings(project / "mkdocs.yml")
    build_sharded(settings, [data], jobs=1, show_progress=False)
    counts.converted = counts.rendered = 0
    lines = data.read_text("utf-8").splitlines(keepends=True)
    lines[4] = lines[4].replace('"documentation":"', '"documentation":"Now warmer. ', 1)
    data.write_text("".join(lines), "utf-8")
    header = project / "overrides" / "partials" / "header.html"
    header.write_text("<!-- warm -->\n" + header.read_text("utf-8"), "utf-8")
    terminal, stderr = _Tty(), sys.stderr
    monkeypatch.setattr(sys, "stderr", terminal)
    monkeypatch.delenv("CI", raising=False)
    monkeypatch.delenv("ERRDOCS_PROGRESS", raising=False)
    build_sharded(settings, [data], jobs=1, show_progress=True)
    monkeypatch.setattr(sys, "stderr", stderr)
    # Said before building: one record changed, every page is built again (the template).
    assert terminal.getvalue().startswith("To do: 1 record changed; ")
    assert " units to build.\n" in terminal.getvalue()
    # The changed record's page is rendered again. It and the listings that show its first
    # sentence (its repository, category and tags; the catalogue's and the home page's
    # recent lists) are converted again; every other page only goes through the new theme
    # template.
    site = site_tree(project / "site")
    showing = sorted(name for name, text in site.items()
                     if name.endswith(".html") and b"Now warmer." in text)
    assert counts.rendered == 1
    assert counts.converted == len(showing)
    assert sum(name.count("/") == 4 for name in showing) == 1  # the record's own page
    assert {"index.html", "errors/index.html"} < set(showing)
    assert all(b"<!-- warm -->" in text for name, text in site.items()
               if name.endswith(".html") and name.startswith("errors/"))
    assert site == cold_site(project, data, tmp_path / "cold")


def test_the_keys_hash_errdocs_templates_and_the_config(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest) -> None:
    """A changed errdocs template (anywhere in the package) changes both keys; a changed
    ``mkdocs.yml`` only the global one, and a changed address only the rendering one."""
    package = tmp_path / "errdocs"
    shutil.copytree(Path(code.__file__).parent, package,
                    ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.setattr(code, "__file__", str(package / "code.py"))
    request.addfinalizer(code.code_digest.cache_clear)  # later tests: the real code's digest
    code.code_digest.cache_clear()
    config = tmp_path / "mkdocs.yml"
    config.write_text("site_name: a\n", "utf-8")
    here = Addresses()
    before = (plan.global_key(config), plan.render_key(here))
    template = package / "pages" / "templates" / "record.md.j2"
    template.write_text(template.read_text("utf-8") + "\n", "utf-8")
    code.code_digest.cache_clear()  # a process reads the code once: this is the next run
    after = (plan.global_key(config), plan.render_key(here))
    assert before[0] != after[0] and before[1] != after[1]
    config.write_text("site_name: b\n", "utf-8")
    assert plan.global_key(config) != after[0] and plan.render_key(here) == after[1]
    assert plan.render_key(Addresses(site_url="https://example.org/")) != after[1]


def _is_record_page(path: str) -> bool:
    parts = path.split("/")  # errors/<owner>/<repo>/<slug>/index.html
    return (len(parts) == 5 and parts[0] == "errors" and parts[-1] == "index.html"
            and parts[1] not in ("tags", "categories", "repos", "changes") and parts[3] != "index")


def test_a_refresh_patches_unit_outputs_and_the_site_file_by_file(
        tmp_path: Path, project: Path, counts: _Counts, monkeypatch: pytest.MonkeyPatch) -> None:
    """Only the changed page's files are replaced (the others keep their file in the units'
    outputs and in the site), a removed record's files go, each unit's file list is what its
    output holds, and the site is a cold build's."""
    monkeypatch.setattr(plan, "UNIT_SIZE", 16)
    data = synth.write(12, tmp_path / "data.jsonl", seed=14)
    settings = load_settings(project / "mkdocs.yml")
    build_sharded(settings, [data], jobs=1, show_progress=False)
    site, units = project / "site", project / ".errdocs" / "units"

    def inodes(root: Path) -> dict[str, int]:
        return {p.relative_to(root).as_posix(): p.stat().st_ino
                for p in root.rglob("*.html") if p.is_file()}

    before = inodes(site)
    lines = data.read_text("utf-8").splitlines(keepends=True)
    lines[4] = lines[4].replace('"documentation":"', '"documentation":"Refreshed. ', 1)
    data.write_text("".join(lines), "utf-8")
    build_sharded(settings, [data], jobs=1, show_progress=False)
    after = inodes(site)
    records = [p for p in before if _is_record_page(p)]
    assert len(records) == 12
    assert sum(before[p] != after[p] for p in records) == 1  # the others were not touched
    gone = json.loads(lines.pop(7))["record"]["id"]
    data.write_text("".join(lines), "utf-8")
    build_sharded(settings, [data], jobs=1, show_progress=False)
    assert f"id/{gone}/index.html" in after and f"id/{gone}/index.html" not in inodes(site)
    rows = read_rows(units.parent)
    for unit in units.iterdir():
        listed = (unit / f"files-{rows[unit.name].key}.txt").read_text("utf-8").split("\n")
        held = sorted(name for name in site_tree(unit / "site")
                      if name not in ("sitemap.xml", "sitemap.xml.gz"))
        assert sorted(x for x in listed if x) == held, unit.name
    assert site_tree(site) == cold_site(project, data, tmp_path / "cold")


def _highlighted(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The code Pygments highlights for pymdownx.highlight in this process (``jobs=1``)."""
    import pymdownx.highlight

    done: list[str] = []
    real = pymdownx.highlight.highlight

    def counted(code: str, *args: object) -> str:
        done.append(code)
        return real(code, *args)

    monkeypatch.setattr(pymdownx.highlight, "highlight", counted)
    return done


def test_a_page_converted_again_takes_its_unchanged_code_blocks_from_the_store(
        tmp_path: Path, project: Path, counts: _Counts, monkeypatch: pytest.MonkeyPatch) -> None:
    """A record whose prose changed is converted again without highlighting its code again;
    a changed excerpt is highlighted (that block only), and each site is a cold build's."""
    data = synth.write(12, tmp_path / "data.jsonl", seed=15)
    settings = load_settings(project / "mkdocs.yml")
    highlighted = _highlighted(monkeypatch)
    build_sharded(settings, [data], jobs=1, show_progress=False)
    assert len(highlighted) > 12  # an excerpt and handling code a record page at least
    lines = data.read_text("utf-8").splitlines(keepends=True)
    record = json.loads(lines[4])
    record["record"]["documentation"] = "Now with other prose. " + record["record"]["documentation"]
    lines[4] = json.dumps(record) + "\n"
    data.write_text("".join(lines), "utf-8")
    highlighted.clear()
    counts.converted = counts.rendered = 0
    build_sharded(settings, [data], jobs=1, show_progress=False)
    assert counts.rendered == 1 and counts.converted >= 1  # the page was converted again ...
    assert highlighted == []  # ... without highlighting its code again
    site = site_tree(project / "site")
    assert site == cold_site(project, data, tmp_path / "cold")
    source = record["record"]["sourceCode"].split("\n")
    source[0] = "changed_excerpt_line = 1"
    record["record"]["sourceCode"] = "\n".join(source)
    lines[4] = json.dumps(record) + "\n"
    data.write_text("".join(lines), "utf-8")
    highlighted.clear()  # (the cold build highlighted every block)
    build_sharded(settings, [data], jobs=1, show_progress=False)
    assert highlighted == [record["record"]["sourceCode"]]
    site = site_tree(project / "site")
    assert any(b"changed_excerpt_line" in text for text in site.values())
    assert site == cold_site(project, data, tmp_path / "cold2")
