"""The paste box's and the search box's data are made again only when what they show changed
(:mod:`errdocs.search.boxdata`): a build with nothing to do, or a change to what the boxes do
not show, makes no lookup index; a change to what they show, a lost row, a missing file or a
build stopped between rewriting the files and keeping the row makes them again; and the site
is a cold build's each time."""

from __future__ import annotations

import json
import sqlite3
import sys
import tracemalloc
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from errdocs import build
from errdocs.catalog.blobs import read_items
from errdocs.catalog.model import build_catalog
from errdocs.pages.render import Page
from errdocs.pages.write import TEMPORARY, Staged
from errdocs.project import load_settings
from errdocs.search import boxdata
from errdocs.units.keys import PathKeys

from .conftest import ROOT
from .helpers import build_project, cold_site, prefix_field, record, site_tree

sys.path.insert(0, str(ROOT / "bench"))
import synth

pytestmark = pytest.mark.slow


def _counted(monkeypatch: pytest.MonkeyPatch, module: object, name: str) -> list[int]:
    """How many times the builds call ``module.name`` (one entry a call)."""
    made: list[int] = []
    real = getattr(module, name)

    def counted(*args: object, **kwargs: object) -> object:
        made.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(module, name, counted)
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1767225600")
    return made


@pytest.fixture
def indexed(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """How many lookup indexes the builds made (one when the data are made again)."""
    return _counted(monkeypatch, boxdata, "build_index")


def _data_files(project: Path, *more: str) -> dict[str, bytes]:
    tree = site_tree(project / "docs" / "errors" / "assets")
    return {name: text for name, text in tree.items()
            if name.startswith(("lookup/", "search/", *more))}


def test_nothing_the_boxes_show_changed_makes_no_index(tmp_path: Path, project: Path,
                                                       indexed: list[int]) -> None:
    data = synth.write(10, tmp_path / "data.jsonl", seed=21)
    build_project(project, data)
    assert len(indexed) == 1
    before = _data_files(project)
    build_project(project, data)  # nothing changed
    prefix_field(data, 3, "exampleFix", "# refreshed\n")  # a change the boxes do not show
    build_project(project, data)
    assert len(indexed) == 1
    assert _data_files(project) == before
    assert site_tree(project / "site") == cold_site(project, data, tmp_path / "cold")


def test_a_changed_message_makes_the_data_again(tmp_path: Path, project: Path,
                                                indexed: list[int]) -> None:
    data = synth.write(10, tmp_path / "data.jsonl", seed=22)
    build_project(project, data)
    before = _data_files(project)
    prefix_field(data, 5, "errorMessage", "Quokka overflow in ")
    build_project(project, data)
    assert len(indexed) == 2
    after = _data_files(project)
    assert after != before and any(b"quokka" in text for text in after.values())
    assert site_tree(project / "site") == cold_site(project, data, tmp_path / "cold")


def test_a_lost_row_or_a_missing_file_makes_the_data_again(tmp_path: Path, project: Path,
                                                           indexed: list[int]) -> None:
    data = synth.write(10, tmp_path / "data.jsonl", seed=23)
    build_project(project, data)
    with sqlite3.connect(project / ".errdocs" / "catalog.sqlite") as db:
        db.execute("DELETE FROM box_files")
    build_project(project, data)
    assert len(indexed) == 2
    (project / "docs" / "errors" / "assets" / "search" / "manifest.js").unlink()
    build_project(project, data)
    assert len(indexed) == 3
    assert (project / "docs" / "errors" / "assets" / "search" / "manifest.js").is_file()
    assert site_tree(project / "site") == cold_site(project, data, tmp_path / "cold")


def test_a_build_stopped_before_keeping_the_row_is_not_trusted(
        tmp_path: Path, project: Path, indexed: list[int],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Dataset A built; a build of B rewrites the data files and stops before keeping its
    row (a kill, a full disk); the next build of A must not take B's files for A's."""
    first = synth.write(10, tmp_path / "a.jsonl", seed=24)
    second = tmp_path / "b.jsonl"
    second.write_bytes(first.read_bytes())
    prefix_field(second, 2, "errorMessage", "Wombat refused ")
    build_project(project, first)
    site_a = site_tree(project / "site")

    def stopped(work: Path, data: boxdata.BoxData, row: str = boxdata.BOXES) -> None:
        raise OSError(28, "No space left on device", str(work / "catalog.sqlite"))

    monkeypatch.setattr("errdocs.build.keep_box_data", stopped)
    with pytest.raises(OSError):
        build_project(project, second)
    assert any(b"wombat" in text for text in _data_files(project).values())
    assert site_tree(project / "site") == site_a  # the previous site, as it was
    monkeypatch.undo()
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1767225600")
    build_project(project, first)
    assert not any(b"wombat" in text for text in _data_files(project).values())
    assert site_tree(project / "site") == site_a
    assert site_tree(project / "site") == cold_site(project, first, tmp_path / "cold")


def test_the_filter_data_are_made_again_only_when_a_record_changed(
        tmp_path: Path, project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The listings' filter data (every record's row, every listing's values) are made from
    the light records alone: a build with nothing to do makes none; a changed file path (which
    a filtered row shows, and no listing reads) makes that record's row file alone; a lost
    filter file makes them all again."""
    made = _counted(monkeypatch, boxdata, "filter_data")
    rows_made: list[str] = []  # the row files made alone (not by filter_data)
    real = boxdata.row_files

    def counted(*args: Any, **kwargs: Any) -> Iterator[Page]:
        for page in real(*args, **kwargs):
            rows_made.append(page.path)
            yield page
    monkeypatch.setattr(boxdata, "row_files", counted)
    data = synth.write(10, tmp_path / "data.jsonl", seed=25)
    build_project(project, data)
    build_project(project, data)
    assert len(made) == 1 and not rows_made
    prefix_field(data, 4, "filePath", "moved/")
    build_project(project, data)
    assert len(made) == 1 and len(rows_made) == 1
    rows = project / "docs" / "errors" / "assets" / "filter" / "r"
    assert any(b"moved/" in p.read_bytes() for p in rows.iterdir())
    next(rows.iterdir()).unlink()
    build_project(project, data)
    assert len(made) == 2
    assert site_tree(project / "site") == cold_site(project, data, tmp_path / "cold")


def _edit(data: Path, how: str) -> None:
    """Change the dataset as a refresh may: see :func:`test_a_refresh_gives_a_cold_builds_data`."""
    lines = data.read_text("utf-8").splitlines(keepends=True)
    values = [json.loads(line) for line in lines]
    records = [v["record"] for v in values]
    if how == "meaning":  # what two records mean (the start: the light copy keeps only it)
        for record in records[3], records[17]:
            record["documentation"] = "Quokka " + record["documentation"]
    elif how == "message":  # moves the record between the paste box's shards
        records[7]["errorMessage"] = "Wombat quagmire in " + records[7]["errorMessage"]
    elif how == "removed":
        del values[11]
    elif how == "tag":  # a tag renamed wherever it is used: listings and word shards
        # A common one (a listing), renamed in place (the listings' order unchanged): only
        # its name tells the listing moved.
        names = sorted({t for r in records for t in r["tags"]})
        tag, new = next((t, t + end) for t, count in Counter(
            t for r in records for t in r["tags"]).most_common() for end in "0az"
            if count > 1 and (t == names[-1] or t + end < names[names.index(t) + 1]))
        for record in records:
            record["tags"] = [new if t == tag else t for t in record["tags"]]
    elif how == "id":  # moves the record to another filter row file
        records[5]["id"] = "moved-" + records[5]["id"]
    elif how == "repo":  # moves its page: every later record's place in the index shifts
        records[2]["repo"] = "aaa-first/" + records[2]["repo"].split("/")[1]
    elif how == "severity":  # a facet's value: the listings' summaries
        records[9]["severity"] = "critical" if records[9]["severity"] != "critical" else "info"
    elif how == "file":  # another input file, the same records at the same lines
        return
    data.write_text("".join(json.dumps(v, ensure_ascii=False) + "\n" for v in values), "utf-8")


@pytest.mark.parametrize("how", ["meaning", "message", "removed", "tag", "id", "repo",
                                 "severity", "file"])
def test_a_refresh_gives_a_cold_builds_data(tmp_path: Path, project: Path, how: str,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """Whatever a refresh changes, the data files it keeps and the parts it makes again are
    exactly a cold build's (in the generated tree and the site), and the lookup's problems
    name where the records are read now; a change to what records mean makes their record
    chunks alone, without a lookup index or the listings' filter data."""
    indexed = _counted(monkeypatch, boxdata, "build_index")
    listed = _counted(monkeypatch, boxdata, "filter_data")
    data = synth.write(40, tmp_path / "data.jsonl", seed=26)
    records = [json.loads(line) for line in data.read_text("utf-8").splitlines()]
    records[6]["record"].update(errorMessage="Bad value {v}",  # a lookup problem: slow
                                messagePattern=r"Bad value (a+)+$")
    data.write_text("".join(json.dumps(v) + "\n" for v in records), "utf-8")
    build_project(project, data)
    changed = tmp_path / "changed.jsonl"
    changed.write_bytes(data.read_bytes())
    _edit(changed, how)
    prepare = build._prepare
    seen: list[tuple[str, ...]] = []

    def prepared(*args: object, **kwargs: object) -> object:
        result = prepare(*args, **kwargs)  # type: ignore[arg-type]
        seen.append(tuple(str(p) for p in result.lookup_problems))
        return result

    monkeypatch.setattr(build, "_prepare", prepared)
    build_project(project, changed)
    if how == "meaning":
        assert (len(indexed), len(listed)) == (1, 1)  # the first build's only
    placed = seen[0]  # the refresh's (the cold build below appends its own)
    kept = _data_files(project, "filter/")
    fresh = tmp_path / "cold"
    site = cold_site(project, changed, fresh)
    assert kept == _data_files(fresh, "filter/")
    assert site_tree(project / "site") == site
    assert placed == seen[-1] and placed and all(str(changed) in p for p in placed)


def _row_items(work: Path) -> list[object] | None:
    with sqlite3.connect(work / "catalog.sqlite") as db:
        row, digest = db.execute("SELECT rowid, digest FROM box_files").fetchone()
        return read_items(db, "box_files", "files", row, digest)


def test_a_row_gives_the_parts_it_was_kept_with(tmp_path: Path) -> None:
    """The parts' files are written and read a block at a time (at 310,000 records the
    listings' row was ~50 MB, made whole and copied by SQLite at the preparation's peak); a
    row whose bytes are damaged is no row, nor is the table of an older errdocs: the files
    are made again and compared with the disk."""
    with sqlite3.connect(tmp_path / "catalog.sqlite") as db:  # an older errdocs' row
        db.execute("CREATE TABLE box_data (name TEXT PRIMARY KEY, key TEXT) WITHOUT ROWID")
    many = [(f"a/r{n}.js", f"{n:032x}") for n in range(3000)]  # several blocks of bytes
    one = [("a/x.js", "ab" * 16)]
    data = boxdata.BoxData("key", False, (), 0, boxdata.Parts.of((
        ("index", "k1", PathKeys.of(one)), ("r0", "k2", PathKeys.of(many)),
        ("r1", "k3", PathKeys()))))
    assert list(data.files) == one + many
    boxdata.keep(tmp_path, data)
    items = _row_items(tmp_path)
    assert items is not None
    assert boxdata._parts_from(items) == {"index": ("k1", PathKeys.of(one)),
                                          "r0": ("k2", PathKeys.of(many)),
                                          "r1": ("k3", PathKeys())}
    with sqlite3.connect(tmp_path / "catalog.sqlite") as db:
        tables = {name for (name,) in db.execute("SELECT name FROM sqlite_master")}
        assert "box_data" not in tables
        db.execute("UPDATE box_files SET files = CAST(zeroblob(length(files)) AS BLOB)")
    assert _row_items(tmp_path) is None
    for other in ([("index", "k1", 2), ("a/x.js", "h1")], [("index", "k1", 1), ("a/x.js", 1)],
                  [["a/x.js", "h1"]], [("index", "k1", 1), ("a/x.js", "h1")]):
        with pytest.raises((TypeError, ValueError)):
            boxdata._parts_from(other)


def test_the_filter_data_are_never_whole_in_memory(project: Path) -> None:
    """Made whole before they were written, the listings' filter data were the largest step
    of a cold build's preparation at 310,000 records (+420 MB sampled): each file is written
    as it is made (under a temporary name, placed once the build has claimed it), so what is
    held is a fraction of what is written."""
    # Rows as long as they get (each value near its cut), so the files' text outweighs
    # what is held a record while they are made (its facets' values, its file's key).
    catalog = build_catalog([record(
        f"id{n:05d}", repo=f"o/r{n % 40}", slug=f"s{n}",
        error_class=f"C{n % 7}" + "Error" * 38, error_type=f"kind{n % 5}" + "k" * 190,
        handling_strategy=f"h{n % 3}" + "-guard" * 32,
        error_message=f"{n} could not be loaded from the worker's queue " * 8,
        documentation=f"The {n}th record's documentation says what went wrong " * 4 + ".",
        file_path=f"src/{'pkg/' * 12}m{n}.py", line_number=n + 1) for n in range(3000)])
    settings = load_settings(project / "mkdocs.yml")
    with Staged(settings.out_dir) as staged:
        tracemalloc.start()
        try:
            data = boxdata.filter_files(settings, catalog, "code", staged=staged)
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        assert not any((settings.out_dir / path).exists() for path, _hash in data.files)
        assert staged.place() == len(data.files)
    assert not list(settings.out_dir.rglob(f"{TEMPORARY}*"))
    size = sum((settings.out_dir / path).stat().st_size for path, _hash in data.files)
    assert peak < 0.8 * size, (peak, size)  # made whole: 1.6 times the size


def test_a_build_failing_before_its_data_files_are_placed_leaves_them_as_they_were(
        tmp_path: Path, project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The data files a build makes are written under temporary names before the build claims
    them: a build failing in between (here, its claim) leaves the files the last build wrote,
    and no temporary file; the next build gives a cold build's site."""
    first = synth.write(10, tmp_path / "a.jsonl", seed=24)
    second = tmp_path / "b.jsonl"
    second.write_bytes(first.read_bytes())
    prefix_field(second, 2, "errorMessage", "Wombat refused ")
    build_project(project, first)
    docs = project / "docs" / "errors"
    before = _data_files(project, "filter/")

    def failed(*args: object) -> None:
        raise OSError(28, "No space left on device", str(docs / "x"))

    monkeypatch.setattr(build, "claim_beyond", failed)
    with pytest.raises(OSError):
        build_project(project, second)
    assert not [p for p in docs.rglob("*") if p.name.startswith(".tmp-")]
    assert _data_files(project, "filter/") == before
    monkeypatch.undo()
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1767225600")
    build_project(project, second)
    assert any(b"wombat" in text for text in _data_files(project, "filter/").values())
    assert site_tree(project / "site") == cold_site(project, second, tmp_path / "cold")


_PATH_KEYS = st.lists(st.tuples(st.text("ab/.", min_size=1, max_size=6),
                                st.binary(min_size=16, max_size=16)), max_size=6).map(PathKeys.of)


@given(st.lists(st.tuples(st.text(max_size=4), st.text("0123456789abcdef", max_size=64),
                          _PATH_KEYS), max_size=8))
def test_parts_held_together_read_back_as_they_were_given(
        given_parts: list[tuple[str, str, PathKeys]]) -> None:
    parts = boxdata.Parts.of(given_parts)
    assert list(parts) == given_parts and len(parts) == len(given_parts)
    assert [parts[n] for n in range(-len(parts), 0)] == given_parts
    assert list(parts[1:3]) == given_parts[1:3]
    assert parts.files == PathKeys.joined(files for _name, _key, files in given_parts)
    assert boxdata.BoxData("k", False, (), 0, parts).files == parts.files
    with pytest.raises(IndexError):
        parts[len(parts)]
