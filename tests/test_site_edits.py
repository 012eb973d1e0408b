"""A file errdocs wrote and somebody wrote into in place (:mod:`errdocs.site.edits`) is put
right by the next build: the live site's files are hard links to errdocs' own copies (the
units' outputs, the spare tree, the generated data files), so such a write reached them too,
and no folder time showed it. The builds after it give what a cold build gives."""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from errdocs.build import ShardedReport, build_sharded
from errdocs.cli import main
from errdocs.project import load_settings
from errdocs.site import edits
from errdocs.site.edits import written_since
from errdocs.site.state import Place
from errdocs.units.workers import Workers

from .conftest import ROOT
from .helpers import cold_site, site_tree

sys.path.insert(0, str(ROOT / "bench"))
import synth

pytestmark = pytest.mark.slow

MARK = b"<!-- written into by hand -->"


def _record_markdown(project: Path) -> Path:
    """A record's page in the generated tree (``OWNER/REPO/SLUG.md``), built by a unit."""
    groups = ("assets", "categories", "changes", "repos", "tags")
    return next(p for p in sorted((project / "docs" / "errors").glob("*/*/*.md"))
                if p.name != "index.md" and p.parts[-3] not in groups)


def _record_page(project: Path) -> Path:
    """A record's page in the live site."""
    relative = _record_markdown(project).relative_to(project / "docs").with_suffix("")
    return project / "site" / relative / "index.html"


PICK: dict[str, Callable[[Path], list[Path]]] = {
    "site record page": lambda p: [_record_page(p)],
    "site record json": lambda p: sorted((p / "site" / "api" / "records").glob("*.json"))[:1],
    "site sitemap": lambda p: [p / "site" / "sitemap.xml"],
    "every file of the site": lambda p: sorted(f for f in (p / "site").rglob("*")
                                               if f.is_file()),
    "generated record page": lambda p: [_record_markdown(p)],
    "generated group page": lambda p: [p / "docs" / "errors" / "tags" / "index.md"],
    "generated data file": lambda p: [p / "docs" / "errors" / "assets" / "search" / "w0.js"],
}


def _build(project: Path, data: Path) -> ShardedReport:
    report = build_sharded(load_settings(project / "mkdocs.yml"), [data], jobs=1,
                           show_progress=False)
    time.sleep(0.02)  # the next write comes after the kernel's clock passed the seal
    return report


def _write_into(path: Path) -> None:
    """Append to ``path`` in place: the same file (inode), as an editor keeping hard links
    writes it."""
    before = path.stat().st_ino
    with path.open("ab") as handle:
        handle.write(MARK)
    assert path.stat().st_ino == before


def _with_mark(root: Path) -> list[str]:
    return [p for p, body in site_tree(root).items() if MARK in body]


@pytest.mark.parametrize("where", sorted(PICK))
def test_a_file_written_into_in_place_is_put_right_by_the_next_builds(
        tmp_path: Path, project: Path, monkeypatch: pytest.MonkeyPatch, where: str) -> None:
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1767225600")
    data = synth.write(12, tmp_path / "data.jsonl", seed=11)
    _build(project, data)
    _build(project, data)  # the spare tree now links the same files as the site
    for path in PICK[where](project):
        _write_into(path)
    assert _with_mark(project / "site") or _with_mark(project / "docs")
    (tmp_path / "fresh").mkdir()
    cold = cold_site(project, data, tmp_path / "fresh")
    cold_docs = site_tree(tmp_path / "fresh" / "docs" / "errors")
    for _ in range(2):  # the second finds nothing to do and leaves the site as it is
        _build(project, data)
        assert _with_mark(project / "site") == []
        assert site_tree(project / "site") == cold
        assert site_tree(project / "docs" / "errors") == cold_docs
    # A page deleted by hand: the next build merges, and swaps in the spare tree, which may
    # have linked the files written into (or be the very tree written into): put right.
    _record_page(project).unlink()
    _build(project, data)
    assert _with_mark(project / "site") == []
    assert site_tree(project / "site") == cold
    assert _with_mark(project / ".errdocs") == []  # the other tree, now the spare


def test_only_the_unit_holding_a_page_written_into_is_built_again(
        tmp_path: Path, project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1767225600")
    data = synth.write(12, tmp_path / "data.jsonl", seed=11)
    first = _build(project, data)
    assert _build(project, data).built == 0
    _write_into(_record_page(project))
    again = _build(project, data)
    assert (again.built, again.units) == (1, first.units)
    assert _build(project, data).built == 0


@pytest.mark.parametrize("threads", [1, 2, 3])
def test_listed_files_written_after_the_seal_are_found_on_any_number_of_threads(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, threads: int) -> None:
    monkeypatch.setattr(edits, "LOOK_RUN", 3)  # runs of 3 paths: several tasks a thread
    tree = tmp_path / "tree"
    paths = [f"d{i % 4}/p{i}.html" for i in range(20)]
    for path in paths:
        (tree / path).parent.mkdir(parents=True, exist_ok=True)
        (tree / path).write_text("x", "utf-8")
    time.sleep(0.02)
    sealed = time.time_ns()
    time.sleep(0.02)
    written = sorted(paths[i] for i in (1, 7, 8, 19))
    for path in written:
        with (tree / path).open("a", encoding="utf-8") as handle:
            handle.write("y")
    (tree / paths[2]).unlink()  # gone: left to the merge
    found = edits.listed_since(str(tree), [*paths, "missing.html"], sealed, threads=threads)
    assert [e.path for e in found] == written
    assert [e.inode for e in found] == [(tree / p).stat().st_ino for p in written]


def test_files_written_after_the_seal_are_found_and_none_before(tmp_path: Path) -> None:
    tree = tmp_path / "tree"
    (tree / "a" / "b").mkdir(parents=True)
    for name in ("a/one.html", "a/b/two.html", "three.xml"):
        (tree / name).write_text("x", "utf-8")
    time.sleep(0.02)
    sealed = time.time_ns()
    assert written_since(str(tree), sealed) == []
    time.sleep(0.02)
    with (tree / "a" / "b" / "two.html").open("a", encoding="utf-8") as handle:
        handle.write("y")
    found = written_since(str(tree), sealed)
    assert [e.path for e in found] == ["a/b/two.html"]
    assert found[0].inode == (tree / "a" / "b" / "two.html").stat().st_ino
    assert written_since(str(tmp_path / "missing"), sealed) == []


def test_the_seal_is_kept_while_the_live_folder_is_the_same_one(tmp_path: Path) -> None:
    work, target = tmp_path / "work", tmp_path / "site"
    target.mkdir()
    place = Place.of(work, target)
    place.write({"u": "k"}, None)
    place.seal()
    sealed = place.read()["sealed"]
    assert isinstance(sealed, int)
    place.write({"u": "k2"}, {"u": "k"})
    assert place.read()["sealed"] == sealed
    target.rename(tmp_path / "old")
    target.mkdir()  # another folder in the site's place: its files were not sealed
    place.write({"u": "k2"}, None)
    assert "sealed" not in place.read()


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_the_build_says_which_files_of_the_site_it_put_back(
        tmp_path: Path, project: Path, monkeypatch: pytest.MonkeyPatch, jobs: str) -> None:
    # With workers one of them looks, idle until the units: on a thread of the build the
    # look held the interpreter lock the scan needs (the scan took ~55% longer).
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1767225600")
    data = synth.write(12, tmp_path / "data.jsonl", seed=11)
    args = ["build", str(data), "-f", str(project / "mkdocs.yml"), "-j", jobs]
    for _ in range(2):
        assert CliRunner().invoke(main, args).exit_code == 0
    time.sleep(0.02)
    page = _record_page(project)
    _write_into(page)
    on_threads: list[str] = []
    look = edits.Looking._look

    def spying(self: edits.Looking) -> None:
        on_threads.append(threading.current_thread().name)
        look(self)

    monkeypatch.setattr(edits.Looking, "_look", spying)
    in_workers: list[str] = []
    call = Workers.call

    def calling(self: Workers, function: Callable[..., Any], *args: object) -> object:
        waiting = call(self, function, *args)
        if waiting is not None:
            in_workers.append(function.__name__)
        return waiting

    monkeypatch.setattr(Workers, "call", calling)
    result = CliRunner().invoke(main, args)
    assert on_threads == ([] if jobs == "2" else ["errdocs-site-edits"])
    # So does the walk of the docs folder (the other worker).
    assert in_workers == (["site_edits", "_walk_docs_written"] if jobs == "2" else [])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[-1] == f"Site built in {project / 'site'}"
    assert lines[-2] == (f"Note: 1 file of the site changed by hand since the last build "
                         f"({page}): put back as errdocs makes them")
    again = CliRunner().invoke(main, args)
    assert "Note:" not in again.output and MARK not in page.read_bytes()


def test_looking_stops_when_told(tmp_path: Path) -> None:
    tree = tmp_path / "tree"
    for number in range(3):
        (tree / f"d{number}").mkdir(parents=True)
        (tree / f"d{number}" / "index.html").write_text("x", "utf-8")
    stop = threading.Event()
    assert len(written_since(str(tree), 0, stop)) == 3
    stop.set()
    assert written_since(str(tree), 0, stop) == []
