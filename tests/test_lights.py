"""The scan's light records are kept in a temporary database, not as objects, and read back
exactly as they were kept: in order, by position and by id."""

from __future__ import annotations

import gc
import sys
import tracemalloc
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from errdocs.catalog.lights import BATCH, Light, Lights, _among
from errdocs.records.record import Origin, Record

from .conftest import ROOT
from .helpers import build_project

sys.path.insert(0, str(ROOT / "bench"))
import synth

TEXT = st.text(max_size=60)
"""Any text (validated text has no control character, but the store does not care)."""
MAYBE = st.none() | TEXT
REPEATED = st.sampled_from(["o/r", "O/R", "a/b", "é/ü", "x" * 300])
"""Values many records share (repositories, tags, files)."""


@st.composite
def lights(draw: st.DrawFn) -> list[Light]:
    """Light records with every field a light record sets given a value (or none), ids
    unique."""
    count = draw(st.integers(0, 40))
    ids = draw(st.lists(TEXT, min_size=count, max_size=count, unique=True))
    made = []
    for record_id in ids:
        record = Record(
            id=record_id, repo=draw(REPEATED), slug=draw(TEXT), error_message=draw(TEXT),
            origin=Origin(draw(REPEATED), draw(st.integers(1, 2**40))),
            message_pattern=draw(MAYBE), analyzed_at=draw(MAYBE),
            tags=tuple(draw(st.lists(REPEATED | TEXT, max_size=5))),
            background_tag=draw(st.none() | REPEATED), error_class=draw(MAYBE),
            documentation=draw(MAYBE), file_path=draw(st.none() | REPEATED),
            line_number=draw(st.none() | st.integers(-1, 2**40)),
            dataset_version=draw(MAYBE), error_type=draw(MAYBE), severity=draw(MAYBE),
            handling_strategy=draw(MAYBE))
        made.append(Light(record, draw(st.text("0123456789abcdef", min_size=32, max_size=32)),
                          draw(st.integers(0, 9)), draw(st.integers(0, 2**50)),
                          draw(st.integers(0, 2**31)), draw(st.binary(max_size=16))))
    return made


@given(lights())
def test_light_records_read_back_as_they_were_kept(kept: list[Light]) -> None:
    store = Lights(kept)
    assert len(store) == len(kept)
    assert list(store) == kept
    assert list(store.lines()) == [(x.record.id, x.line_hash) for x in kept]
    assert [store[n] for n in range(-len(kept), len(kept))] == kept + kept
    assert store[1:-1] == kept[1:-1]
    ids = [x.record.id for x in reversed(kept)]
    assert list(store.many([*ids, "not one of them"])) == kept[::-1]
    assert dict(store.by_id) == {x.record.id: x for x in kept}
    assert store.by_id.line_hashes([*ids, "not one of them"]) == {
        x.record.id: x.line_hash for x in kept}
    assert store.where(lambda x: x.record.line_number is None) == Lights(
        x for x in kept if x.record.line_number is None)
    store.close()


@given(lights(), lights())
def test_records_added_once_settled_read_back_as_they_were_kept(first: list[Light],
                                                               then: list[Light]) -> None:
    """The scan settles the store (its table numbering the shared values goes); a record
    added after still reads back with its values, the earlier ones too."""
    then = [x for x in then if x.record.id not in {y.record.id for y in first}]
    store = Lights(first)
    store.settle()
    store.extend(then)
    assert list(store) == first + then
    store.settle()
    assert list(store) == first + then
    store.close()


def test_the_values_records_share_are_read_back_shared() -> None:
    kept = [Light(Record(f"r{n}", "owner/repo", "s", "m", Origin("data.jsonl", n),
                         tags=("tag",), file_path="src/a.py"), "0" * 32, 0, n, 1, b"")
            for n in range(3)]
    first, *rest = Lights(kept)
    for other in rest:
        assert other.record.repo is first.record.repo
        assert other.record.tags[0] is first.record.tags[0]
        assert other.record.file_path is first.record.file_path
        assert other.record.origin.path is first.record.origin.path


def _many(count: int) -> Iterator[Light]:
    """``count`` light records of ~1 KB of text each, all of it their own."""
    for n in range(count):
        text = f"{n:08d}" * 40
        yield Light(Record(f"id-{n}", "o/r", f"slug-{n}", f"message {text}",
                           Origin("data.jsonl", n + 1), message_pattern=f"pattern {text}",
                           documentation=f"What it means: {text}"), f"{n:032x}", 0, n, 1,
                    b"0123456789abcdef")


def test_light_records_are_not_held_in_memory() -> None:
    count = 4 * BATCH + 7
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        store = Lights(_many(count))
        held = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    # As objects they were ~1.6 KB a record; kept, a few bytes (the values they share, a
    # batch not yet written, SQLite's page cache outside Python's heap).
    assert held < 100 * count, held
    assert sum(1 for _ in store) == count
    assert store[count - 1].record.id == f"id-{count - 1}"


def test_queries_by_id_take_a_few_sizes_of_lists() -> None:
    """sqlite3 keeps the last 128 statements prepared: a query a count of ids (the members
    of each unit) held ~7 MB of them, so the lists are padded to a power of two."""
    ids = [f"id-{n}" for n in range(BATCH)]
    sizes = set()
    for count in range(1, BATCH + 1):
        marks, values = _among(ids[:count])
        assert marks.count("?") == len(values) and set(values) == set(ids[:count])
        sizes.add(len(values))
    assert sizes == {1 << n for n in range(10)}


def test_a_build_holds_no_record_once_prepared(tmp_path: Path, project: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """Through the real build: once the preparation is done (catalogue, data files, plan),
    no record is alive in the build process; they are read back when a step needs them."""
    from errdocs import build

    def records() -> list[object]:
        gc.unfreeze()  # (the build freezes what it keeps: counted too)
        gc.collect()
        return [o for o in gc.get_objects() if isinstance(o, (Record, Light))]

    before = {id(o) for o in records()}  # other tests' (a session's fixtures)
    prepare, alive = build._prepare, []

    def counted(*args: Any, **kwargs: Any) -> Any:
        prepared = prepare(*args, **kwargs)
        alive.append(len([o for o in records() if id(o) not in before]))
        return prepared

    monkeypatch.setattr(build, "_prepare", counted)
    build_project(project, synth.write(200, tmp_path / "data.jsonl", seed=21))
    assert alive == [0]
    assert len(list((project / "site").rglob("index.html"))) > 200


def test_ids_asked_for_are_bound_as_copies_when_not_ascii() -> None:
    """sqlite3 binds a string through its UTF-8 form, which CPython keeps inside it: an id the
    catalogue holds to the build's end must not carry that copy after a query by id."""
    kept = [Light(Record(f"é-{n}", "o/r", "s", "m", Origin("d.jsonl", n)), "0" * 32, 0, n, 1,
                  b"") for n in range(3)]
    store = Lights(kept)
    ids = [f"é-{n}" for n in range(3)]
    sizes = [sys.getsizeof(i) for i in ids]
    assert store.line_hashes(ids) == {i: "0" * 32 for i in ids}
    assert [x.record.id for x in store.many(ids)] == ids
    assert [sys.getsizeof(i) for i in ids] == sizes
