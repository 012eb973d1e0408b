"""A rescan costs what changed (issue 17): an input is trusted by its stat unless it changed too
close to when it was read, a changed input's lines are looked up a batch at a time, and what
the scan finds is always what a cold scan finds."""

from __future__ import annotations

import gc
import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from errdocs.catalog import scan as scan_module
from errdocs.catalog import store
from errdocs.catalog.scan import Scan, read_records, scan
from errdocs.records.problems import Problem
from errdocs.records.read import Line, Sink
from errdocs.records.validate import Validator

from .helpers import read_all, traced_queries


def _rec(n: int, **changes: object) -> dict[str, object]:
    return {"id": f"r{n}", "repo": "o/r", "slug": f"s{n}", "errorMessage": f"boom {n}",
            "tags": ["x", "y"], **changes}


def _write(path: Path, *records: object) -> Path:
    path.write_text("".join(r if isinstance(r, str) else json.dumps(r) + "\n"
                            for r in records), "utf-8")
    return path


def _like_cold(found: Scan, paths: list[Path], fresh: Path) -> None:
    """``found`` is what a cold scan finds, and its records read back as every command reads."""
    cold = scan(paths, fresh)
    assert cold.skipped == 0
    assert (found.lights, [str(p) for p in found.problems], found.sources) == (
        cold.lights, [str(p) for p in cold.problems], cold.sources)
    assert list(read_records(found.sources, found.lights)) == read_all(paths).records


def _freeze_stats(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every input's modification and change times stay those of now, whatever is written:
    as when writes fall within one tick of a file system's clock."""
    now = store.time.time_ns()
    real = store.stat_of
    monkeypatch.setattr(store, "stat_of",
                        lambda path: real(path)._replace(mtime_ns=now, ctime_ns=now))


def _count_hashes(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """The inputs whose bytes the scan hashes to tell whether they changed, as it does so."""
    hashed: list[Path] = []
    real = scan_module.blocks_of

    def counting(path: Path) -> bytes:
        hashed.append(path)
        return real(path)

    monkeypatch.setattr(scan_module, "blocks_of", counting)
    return hashed


def test_an_input_written_again_within_its_stat_is_read_again(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _freeze_stats(monkeypatch)
    work = tmp_path / "work"
    data = _write(tmp_path / "d.jsonl", _rec(1), _rec(2))
    scan([data], work)
    _write(data, _rec(1), _rec(2, errorMessage="bang 2"))  # same size, same stat
    found = scan([data], work)
    assert found.skipped == 0
    assert [x.record.error_message for x in found.lights] == ["boom 1", "bang 2"]
    _like_cold(found, [data], tmp_path / "cold")


def test_an_unchanged_input_is_hashed_only_until_its_stat_can_tell(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    hashed = _count_hashes(monkeypatch)
    work = tmp_path / "work"
    data = _write(tmp_path / "d.jsonl", _rec(1), _rec(2))
    cold = scan([data], work)  # just written: its bytes are hashed as they are read
    again = scan([data], work)  # ... and hashed again, its stat being too recent to tell
    assert again.skipped == 1 and hashed == [data]
    assert again.lights == cold.lights
    # Once the write is older than the clock's tick (here any write before the scan), the
    # stat alone tells: no byte of the input is read.
    monkeypatch.setattr(store, "RACY_NS", 0)
    assert scan([data], work).skipped == 1 and hashed == [data]
    _write(data, _rec(1), _rec(2, errorMessage="changed"))  # a new size: read, not hashed
    found = scan([data], work)
    assert found.skipped == 0 and hashed == [data]
    _like_cold(found, [data], tmp_path / "cold")


def test_an_input_written_while_it_is_read_is_read_again(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(store, "RACY_NS", 0)  # the stat alone tells: no hash to fall back on
    work = tmp_path / "work"
    data = _write(tmp_path / "d.jsonl", _rec(1), _rec(2))
    real = scan_module.read_file

    def written_meanwhile(path: Path, seen: Sink | None = None) -> Iterator[Line | Problem]:
        items = real(path, seen)
        yield next(items)
        with path.open("a", encoding="utf-8") as handle:
            handle.write(json.dumps(_rec(3)) + "\n")
        yield from items

    monkeypatch.setattr(scan_module, "read_file", written_meanwhile)
    scan([data], work)  # (whether it read the new line depends on the reader's buffer)
    monkeypatch.setattr(scan_module, "read_file", real)
    found = scan([data], work)
    assert found.skipped == 0 and [x.record.id for x in found.lights] == ["r1", "r2", "r3"]


def test_moved_lines_are_looked_up_a_batch_at_a_time(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(scan_module, "BATCH", 3)
    work = tmp_path / "work"
    records = [_rec(n) for n in range(10)]
    scan([_write(tmp_path / "d.jsonl", *records)], work)
    # The refresh under another name (as bench/run.py's): lines in another order at other
    # offsets, a changed one starting a batch, new ones repeated within a batch and across
    # one, a known one repeated, and a broken line. Batches of three:
    refreshed = _write(tmp_path / "e.jsonl",
                       records[9], records[8], "\n", records[7],   # blank lines are no item
                       _rec(5, errorMessage="changed"), records[0], records[1],
                       records[2], records[3], _rec(10),
                       _rec(10), records[4], "{broken\n",
                       records[0], _rec(11), _rec(11),
                       records[6])
    taken: list[Line] = []
    real_take = Validator.take

    def take(self: Validator, item: Line) -> object:
        taken.append(item)
        return real_take(self, item)

    monkeypatch.setattr(Validator, "take", take)
    queries = traced_queries(monkeypatch)
    found = scan([refreshed], work)
    monkeypatch.undo()
    # Only the lines the catalogue did not know were validated, each once.
    assert [x.origin.line for x in taken] == [5, 10, 13, 15]
    assert len([q for q in queries if "FROM records WHERE hash IN" in q]) == 6
    assert "duplicate" not in str(found.problems)
    _like_cold(found, [refreshed], tmp_path / "cold")
    again = scan([refreshed], tmp_path / "cold")  # a broken line: read again, every time
    assert again.skipped == 0 and [str(p) for p in again.problems] == [
        str(p) for p in found.problems]


def _record_ids(work: Path) -> list[str]:
    with sqlite3.connect(work / store.FILE) as db:
        return sorted(row[0] for row in db.execute("SELECT id FROM records"))


def test_records_used_only_by_an_input_with_problems_go_when_it_does(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    work = tmp_path / "work"
    clean = _write(tmp_path / "a.jsonl", _rec(1))
    broken = _write(tmp_path / "b.jsonl", _rec(2), "{broken\n")
    scan([clean, broken], work)
    scan([clean, broken], work)  # the broken input is read again: its clean line is kept
    assert _record_ids(work) == ["r1", "r2"]
    queries = traced_queries(monkeypatch)
    assert scan([clean], work).skipped == 1
    assert _record_ids(work) == ["r1"]
    assert any(q.startswith("DELETE FROM records") for q in queries)
    queries.clear()
    # Nothing changed since a scan that left no record unheld: no pass over the records.
    assert scan([clean], work).skipped == 1
    assert not any(q.startswith("DELETE FROM records") for q in queries)
    assert not any(q.startswith("UPDATE records") for q in queries)
    assert _record_ids(work) == ["r1"]


def test_the_cycle_collector_is_paused_while_scanning_and_only_then(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    data = _write(tmp_path / "d.jsonl", _rec(1))
    real = scan_module.read_file
    during: list[bool] = []

    def reading(path: Path, seen: Sink | None = None) -> Iterator[Line | Problem]:
        during.append(gc.isenabled())
        if len(during) == 2:
            raise OSError("unreadable")
        return real(path, seen)

    monkeypatch.setattr(scan_module, "read_file", reading)
    assert gc.isenabled()
    scan([data], tmp_path / "one")
    with pytest.raises(OSError):
        scan([data], tmp_path / "two")
    assert during == [False, False] and gc.isenabled()
    gc.disable()
    try:
        scan([data], tmp_path / "three")
        assert not gc.isenabled()  # the caller's choice stays
    finally:
        gc.enable()


def _rows(work: Path) -> dict[str, list[tuple[object, ...]]]:
    with sqlite3.connect(work / store.FILE) as db:
        return {table: sorted(db.execute(f"SELECT * FROM {table}"))
                for table in ("meta", "records", "inputs", "lines")}


def test_a_strict_scan_that_finds_problems_leaves_the_catalogue_as_it_was(tmp_path: Path) -> None:
    work = tmp_path / "work"
    clean = _write(tmp_path / "a.jsonl", _rec(1))
    scan([clean], work)
    before = _rows(work)
    # The clean input is hashed again (written just now) and its stat noted; a new clean line
    # is validated: none of it is kept when the scan stops on the broken line.
    broken = _write(tmp_path / "b.jsonl", _rec(2), "{broken\n")
    assert scan([clean, broken], work, strict=True).problems
    assert _rows(work) == before
