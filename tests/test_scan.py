"""Pass 1 keeps light records, finds them again by offset, and skips re-validating clean ones."""

from __future__ import annotations

import gzip
import json
import os
import sqlite3
from collections.abc import Generator
from pathlib import Path

import pytest

from errdocs.catalog import store
from errdocs.catalog.scan import InputChanged, Scan, read_records, scan

from .helpers import read_all, traced_queries

REC = {"id": "a1", "repo": "o/r", "slug": "s", "errorMessage": "boom", "tags": ["x", "y"],
       "documentation": "What it means."}


def _rec(**changes: object) -> dict[str, object]:
    return {**REC, **changes}


def _jsonl(path: Path, *records: object) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), "utf-8")
    return path


def test_light_records_and_full_records_read_back_by_offset(tmp_path: Path) -> None:
    data = _jsonl(tmp_path / "d.jsonl", _rec(), {"record": _rec(id="b2", slug="t")})
    found = scan([data], tmp_path / "work")
    assert [x.record.id for x in found.lights] == ["a1", "b2"]
    light = found.lights[0].record
    assert light.source_code is None and light.solutions == ()  # light: no heavy text kept
    assert light.documentation == "What it means."  # its first sentences, for the search
    assert found.lights[1].record.tags == ("x", "y")
    full = list(read_records(found.sources, reversed(found.lights)))
    assert [r.id for r in full] == ["b2", "a1"]
    assert full[1].documentation == "What it means."
    assert full == list(reversed(read_all([data]).records))


def test_problems_match_check_on_every_run_even_when_cached(tmp_path: Path) -> None:
    data = tmp_path / "d.jsonl"
    data.write_text(json.dumps(_rec()) + "\n{broken\n" + json.dumps(_rec(id="b2", repo="bad"))
                    + "\n" + json.dumps(_rec(id="c3", extra=1)) + "\n", "utf-8")
    expected = [str(p) for p in read_all([data]).problems]
    assert len(expected) == 3
    for _ in range(2):  # the second run takes the clean record from the cache
        found = scan([data], tmp_path / "work")
        assert found.skipped == 0  # a file with problems is read again, always
        assert [str(p) for p in found.problems] == expected
        assert [x.record.id for x in found.lights] == ["a1", "c3"]


def test_duplicates_are_found_among_cached_records(tmp_path: Path) -> None:
    work = tmp_path / "work"
    first = _jsonl(tmp_path / "a.jsonl", _rec())
    scan([first], work)  # catalogues a1
    both = _jsonl(tmp_path / "b.jsonl", _rec(), _rec(), _rec(slug="other"))
    found = scan([both], work)
    assert [x.record.id for x in found.lights] == ["a1"]
    assert [str(p) for p in found.problems] == [str(p) for p in read_all([both]).problems]
    assert "duplicate id with different content" in str(found.problems[0])


@pytest.mark.parametrize("form", ["array", "single", "gz", "bom"])
def test_other_forms_are_spooled_or_read_in_place(tmp_path: Path, form: str) -> None:
    records = [_rec(), _rec(id="b2", slug="t")]
    path = tmp_path / "d.json"
    if form == "array":
        path.write_text(json.dumps(records, indent=2), "utf-8")
    elif form == "single":
        path.write_text(json.dumps(records[0], indent=2), "utf-8")
        records = records[:1]
    elif form == "gz":
        path = tmp_path / "d.jsonl.gz"
        path.write_bytes(gzip.compress("".join(json.dumps(r) + "\n" for r in records).encode()))
    else:
        path = tmp_path / "d.jsonl"
        path.write_bytes(b"\xef\xbb\xbf" + "".join(json.dumps(r) + "\n" for r in records).encode())
    found = scan([path], tmp_path / "work")
    full = list(read_records(found.sources, found.lights))
    assert full == read_all([path]).records
    assert [x.record.origin for x in found.lights] == [r.origin for r in full]


def test_a_changed_input_is_noticed_in_pass_two(tmp_path: Path) -> None:
    data = _jsonl(tmp_path / "d.jsonl", _rec())
    found = scan([data], tmp_path / "work")
    _jsonl(data, _rec(errorMessage="bang"))
    with pytest.raises(InputChanged, match="changed during the build"):
        list(read_records(found.sources, found.lights))


def _same(one: Scan, other: Scan) -> None:
    assert (one.lights, [str(p) for p in one.problems], one.sources) == (
        other.lights, [str(p) for p in other.problems], other.sources)


def test_an_unchanged_input_is_taken_from_the_catalogue_whole(tmp_path: Path) -> None:
    work = tmp_path / "work"
    data = _jsonl(tmp_path / "d.jsonl", _rec(), "", _rec(), {"record": _rec(id="b2", slug="t")})
    data.write_text(data.read_text("utf-8").replace('""\n', "\n"), "utf-8")  # a blank line
    cold = scan([data], work)
    assert cold.skipped == 0 and [x.record.id for x in cold.lights] == ["a1", "b2"]
    warm = scan([data], work)
    assert warm.skipped == 1
    _same(warm, cold)  # the same lights, origins and offsets, without reading a line
    assert list(read_records(warm.sources, warm.lights)) == read_all([data]).records
    # Another file with a1 of other content: the duplicate is found through the catalogue.
    other = _jsonl(tmp_path / "e.jsonl", _rec(slug="other"))
    both = scan([data, other], work)
    assert both.skipped == 1 and [x.record.id for x in both.lights] == ["a1", "b2"]
    assert [str(p) for p in both.problems] == [str(p) for p in read_all([data, other]).problems]


def test_an_unchanged_input_whose_records_went_from_the_catalogue_is_read_again(
        tmp_path: Path) -> None:
    work = tmp_path / "work"
    data = _jsonl(tmp_path / "d.jsonl", _rec(), _rec(id="b2", slug="t"))
    cold = scan([data], work)
    with sqlite3.connect(work / store.FILE) as db:
        db.execute("DELETE FROM records WHERE id = 'b2'")
    again = scan([data], work)
    assert again.skipped == 0  # a line without its record: the file is read, not replayed
    _same(again, cold)
    assert scan([data], work).skipped == 1  # read whole again: taken next time


def test_an_unchanged_inputs_lines_are_read_as_they_are_taken(tmp_path: Path) -> None:
    work = tmp_path / "work"
    records = [_rec(id=f"r{n}", slug=f"s{n}") for n in range(300)]
    data = _jsonl(tmp_path / "d.jsonl", *records)
    scan([data], work)
    with store.Catalogue(work) as catalogue, catalogue.writing():
        lines = catalogue.unchanged(data, store.look(data), lambda: store.blocks_of(data))
        assert lines is not None and not isinstance(lines, list)
        first = next(iter(lines))
        assert (first.line, first.fields.id) == (1, "r0")
        db = catalogue.db
        assert db is not None

        def cache() -> tuple[int]:
            return tuple(db.execute("PRAGMA cache_size").fetchone())
        assert cache() == (-store.JOIN_CACHE_KIB,)  # the join's, while its lines are taken
        assert [p.fields.id for p in lines] == [f"r{n}" for n in range(1, 300)]
        assert cache() == (-store.CACHE_KIB,)  # then given back


def test_lines_left_untaken_when_the_catalogue_closed_end_quietly(tmp_path: Path) -> None:
    # (a scan failing half-way through an input's lines closes the catalogue first; the
    # lines' generator ends later, when collected)
    work = tmp_path / "work"
    data = _jsonl(tmp_path / "d.jsonl", _rec(), _rec(id="b2", slug="t"))
    scan([data], work)
    with store.Catalogue(work) as catalogue, catalogue.writing():
        lines = catalogue.unchanged(data, store.look(data), lambda: store.blocks_of(data))
        assert isinstance(lines, Generator)
        assert next(lines).fields.id == "a1"
    lines.close()


def test_a_changed_input_is_read_again_even_with_its_size_and_time(tmp_path: Path) -> None:
    work = tmp_path / "work"
    data = _jsonl(tmp_path / "d.jsonl", _rec())
    scan([data], work)
    before = data.stat()
    data.write_text(data.read_text("utf-8").replace("boom", "bang"), "utf-8")
    os.utime(data, ns=(before.st_atime_ns, before.st_mtime_ns))  # same size, same time
    found = scan([data], work)
    assert found.skipped == 0 and found.lights[0].record.error_message == "bang"


def test_a_lookup_scan_writes_nothing_and_the_catalogue_forgets_what_no_scan_used(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    work = tmp_path / "work"
    data = _jsonl(tmp_path / "d.jsonl", _rec(), _rec(id="b2", slug="t"))
    scan([data], work, keep=False)
    assert not work.exists()  # read-only: no catalogue made, no folder
    scan([data], work)
    assert scan([data], work, keep=False).skipped == 1  # ... but read when there is one
    os.chdir(tmp_path)  # as `errdocs lookup` reads it: .errdocs/, relative to the folder
    assert scan([data], Path("work"), keep=False).skipped == 1
    _jsonl(data, _rec(id="b2", slug="t"))
    scan([data], work)
    with sqlite3.connect(work / store.FILE) as db:
        assert db.execute("SELECT id FROM records").fetchall() == [("b2",)]
        assert db.execute("SELECT count(*) FROM lines").fetchone() == (1,)


def test_a_damaged_catalogue_is_made_again(tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    (work / store.FILE).write_bytes(b"not a database, " * 100)
    data = _jsonl(tmp_path / "d.jsonl", _rec())
    assert scan([data], work, keep=False).lights  # a lookup does without it
    assert scan([data], work).lights  # a build replaces it (a cache, in errdocs' own folder)
    assert scan([data], work).skipped == 1


def test_a_refreshed_input_looks_its_unchanged_lines_up_at_once(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # A refresh changes a few lines of a big input: its other lines' records were looked up
    # one query a line (20,000 at 20,000 records, issue 17); now store.BATCH lines a query.
    work = tmp_path / "work"
    records = [_rec(id=f"r{n}", slug=f"s{n}") for n in range(30)]
    data = _jsonl(tmp_path / "d.jsonl", *records)
    cold = scan([data], work)
    records[7] = _rec(id="r7", slug="s7", errorMessage="changed")
    _jsonl(data, *records, _rec(id="new", slug="new"))
    queries = traced_queries(monkeypatch)
    found = scan([data], work)
    lookups = [q for q in queries if "FROM records WHERE hash" in q]
    assert len(lookups) == 1  # the 31 lines, the changed one and the new one with the others
    assert [x.record.error_message for x in found.lights] == (
        ["boom"] * 7 + ["changed"] + ["boom"] * 23)
    assert [x.line_hash for x in found.lights[:7]] == [x.line_hash for x in cold.lights[:7]]
    monkeypatch.undo()
    # The rows it used are kept, the changed line's old row is not; the next scan of the same
    # bytes takes the input whole.
    with sqlite3.connect(work / store.FILE) as db:
        assert db.execute("SELECT count(*) FROM records").fetchone() == (31,)
        assert db.execute("SELECT count(*) FROM records WHERE message = 'boom'"
                          ).fetchone() == (30,)  # 29 unchanged and the new one
    assert scan([data], work).skipped == 1
