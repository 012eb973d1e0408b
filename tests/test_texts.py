"""What listings show of a record beyond its entry (its summary and analysis time) is held by a
catalogue made in memory and read from the model's rows once they are written
(:mod:`errdocs.catalog.texts`): either way a listing gets the same text."""

from __future__ import annotations

import pickle
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from errdocs.catalog.lights import Light, Lights
from errdocs.catalog.memo import MODEL, Memo
from errdocs.catalog.model import Catalog, build_catalog
from errdocs.catalog.texts import HeldTexts, LightTexts, RowTexts
from errdocs.errors import BuildFailed
from errdocs.pages.short import describe_record, first_sentence

from .helpers import record

DOCUMENTATION = st.one_of(
    st.just(""), st.just("\n\n  "), st.just("Ends with its own … and more. Then another."),
    st.just("word " * 400), st.just("line one\r\nline two.\ttab"),
    st.text(max_size=300), st.text(alphabet="Üé…€😀 .", max_size=200))
TIMES = st.one_of(st.none(), st.just(""), st.just("2026-01-02T03:04:05Z"),
                  st.just("2026-01-02T03:04:05.123456+01:00"), st.text(max_size=40))


def _made(work: Path, catalog: Catalog, key: str = "k") -> Catalog:
    """``catalog`` as a build goes on with it once its rows are written."""
    memo = Memo(work)
    kept = memo.get_rows("catalog", key, lambda: catalog, MODEL)
    memo.save()
    return kept


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                  HealthCheck.function_scoped_fixture])
@given(st.lists(st.tuples(DOCUMENTATION, TIMES), min_size=1, max_size=12))
def test_the_rows_give_the_texts_the_catalogue_held(
        tmp_path_factory: pytest.TempPathFactory, shapes: list[tuple[str, str | None]]) -> None:
    work = tmp_path_factory.mktemp("work")
    records = [record(f"id{n}", slug=f"s{n}", documentation=doc, analyzed_at=at)
               for n, (doc, at) in enumerate(shapes)]
    made = build_catalog(records)
    ids = list(made.entries)
    held = (made.texts.summaries(ids), dict(made.texts.times()), list(made.texts.of(ids)))
    assert held[0] == {r.id: first_sentence(describe_record(r)) for r in records}
    assert held[1] == {r.id: r.analyzed_at for r in records}
    # As a build makes it: the texts read from the light copies, none held; the same entries.
    lights = Lights(Light(r, f"{n:032x}", 0, n, 1, b"") for n, r in enumerate(records))
    from_lights = build_catalog(records, texts=LightTexts(lights))
    assert from_lights.entries == made.entries and from_lights.groups == made.groups
    assert (from_lights.texts.summaries(ids), dict(from_lights.texts.times()),
            list(from_lights.texts.of(ids))) == held
    written = _made(work, from_lights)
    assert isinstance(made.texts, HeldTexts) and isinstance(written.texts, RowTexts)
    assert written.entries == made.entries
    assert (written.texts.summaries(ids), dict(written.texts.times()),
            list(written.texts.of(ids))) == held
    # Read back by a later build (the rows taken, not made): the same texts.
    taken = Memo(work).get_rows("catalog", "k", lambda: pytest.fail("made again"), MODEL)
    assert isinstance(taken.texts, RowTexts) and taken.entries == made.entries
    assert taken.texts.summaries(reversed(ids)) == held[0]
    assert list(taken.texts.of(reversed(ids))) == held[2][::-1]


def test_texts_are_read_in_batches_and_sent_without_their_connection(tmp_path: Path) -> None:
    records = [record(f"id{n:04d}", slug=f"s{n}", documentation=f"Record {n} fails.",
                      analyzed_at=f"2026-01-01T00:{n // 60 % 60:02d}:{n % 60:02d}Z")
               for n in range(1234)]  # more than a batch (500) a query
    written = _made(tmp_path, build_catalog(records))
    texts = written.texts
    assert isinstance(texts, RowTexts)
    ids = list(written.entries)
    assert texts.summaries(ids) == {r.id: f"Record {int(r.id[2:])} fails." for r in records}
    assert sorted(texts.times()) == sorted((r.id, r.analyzed_at) for r in records)
    texts.summaries(ids[:1])  # a connection opened ...
    copy = pickle.loads(pickle.dumps(texts))  # ... and not sent
    assert copy == texts and copy.summaries(ids[-3:]) == texts.summaries(ids[-3:])
    texts.close()


def test_a_record_without_texts_is_said_not_guessed(tmp_path: Path) -> None:
    written = _made(tmp_path, build_catalog([record("a1", slug="s")]))
    with pytest.raises(BuildFailed, match="no summary for record 'b2'"):
        written.texts.summaries(["a1", "b2"])
    with pytest.raises(BuildFailed, match="no summary for record 'b2'"):
        list(written.texts.of(["b2"]))
    with pytest.raises(BuildFailed, match="no summary kept for record 'b2'"):
        HeldTexts({"a1": "x"}).summaries(["b2"])
    with pytest.raises(BuildFailed, match="no light copy of record 'b2'"):
        LightTexts(Lights()).summaries(["b2"])
    (tmp_path / "catalog.sqlite").write_bytes(b"not a database " * 100)
    with pytest.raises(BuildFailed, match="cannot be read"):
        RowTexts(tmp_path / "catalog.sqlite", 1).summaries(["a1"])
