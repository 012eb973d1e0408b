"""The catalogue model and the page units are kept between builds (:mod:`errdocs.catalog.memo`):
a build with nothing to do takes them from the catalogue's memo rows; a changed
record, a changed ``mkdocs.yml``, a lost, damaged or foreign row make them again; and the site
is a cold build's each time."""

from __future__ import annotations

import io
import json
import marshal
import sqlite3
import sys
from pathlib import Path
from typing import Any

import pytest

from errdocs import build
from errdocs.catalog import blobs, memo, rows
from errdocs.catalog.model import Catalog, GroupKind, build_catalog
from errdocs.catalog.scan import scan
from errdocs.search import boxdata

from .conftest import ROOT
from .helpers import build_project, cold_site, prefix_field, site_tree

sys.path.insert(0, str(ROOT / "bench"))
import synth

pytestmark = pytest.mark.slow
ALL_ONCE = {"catalog": 1, "units": 1, "root": 1, "index": 1, "home": 1, "keys": 2}
ALL_TWICE = {"catalog": 2, "units": 2, "root": 2, "index": 2, "home": 2, "keys": 4}
KEY_ROWS = (f"{memo.KEYS}boxes", f"{memo.KEYS}filters")
"""The rows of the data files' part keys (:meth:`memo.Memo.remember`)."""


@pytest.fixture
def made(monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    """How many times the builds made the catalogue model, the page units, the root's pages,
    the paged index, the home page's summary and the data files' part keys (the boxes' and
    the filters')."""
    counts = {"catalog": 0, "units": 0, "root": 0, "index": 0, "home": 0, "keys": 0}
    for module, name, count in ((build, "build_catalog", "catalog"),
                                (build, "page_units", "units"),
                                (build, "render_root_pages", "root"),
                                (build, "index_files", "index"),
                                (build, "render_home_fragment", "home"),
                                (boxdata, "box_keys", "keys"),
                                (boxdata, "filter_keys", "keys")):
        real = getattr(module, name)

        def counted(*args: object, _real: object = real, _count: str = count,
                    **kwargs: object) -> object:
            counts[_count] += 1
            return _real(*args, **kwargs)  # type: ignore[operator]

        monkeypatch.setattr(module, name, counted)
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1767225600")
    return counts


def _rows(project: Path) -> dict[str, tuple[str, bytes, bytes]]:
    with sqlite3.connect(project / ".errdocs" / "catalog.sqlite") as db:
        return {r[0]: (r[1], r[2], r[3]) for r in db.execute(
            "SELECT r.name, b.key, b.digest, b.data FROM memo_rows r JOIN memo_blobs b "
            "ON b.id = r.blob")}


def _items(data: bytes) -> list[object]:
    """The items a row's bytes hold."""
    return blobs.items_of(io.BytesIO(data))


def _set_data(project: Path, name: str, data: bytes, *, digest: bool) -> None:
    """Replace row ``name``'s bytes (and its digest, ``digest``: bytes that pass the check)."""
    with sqlite3.connect(project / ".errdocs" / "catalog.sqlite") as db:
        blob = "(SELECT blob FROM memo_rows WHERE name = ?)"
        db.execute(f"UPDATE memo_blobs SET data = ? WHERE id = {blob}", (data, name))
        if digest:
            db.execute(f"UPDATE memo_blobs SET digest = ? WHERE id = {blob}",
                       (blobs.digest_of(io.BytesIO(data)), name))


def test_nothing_changed_takes_the_model_from_the_memo(tmp_path: Path, project: Path,
                                                       made: dict[str, int]) -> None:
    data = synth.write(12, tmp_path / "data.jsonl", seed=5)
    build_project(project, data)
    assert made == ALL_ONCE
    assert set(_rows(project)) == {memo.CATALOG, memo.UNITS, memo.ROOT_PAGES, memo.INDEX_PAGES,
                                   memo.LINES, memo.HOME, *KEY_ROWS}
    build_project(project, data)  # nothing changed
    assert made == ALL_ONCE
    assert site_tree(project / "site") == cold_site(project, data, tmp_path / "cold")


@pytest.mark.parametrize(("row", "folder", "count"), [
    (memo.INDEX_PAGES, ".errdocs/static", "index"), (memo.ROOT_PAGES, "docs/errors", "root")])
@pytest.mark.parametrize("damage", ["changed", "lost"])
def test_files_of_the_model_are_kept_as_hashes_and_checked_on_disk(
        tmp_path: Path, project: Path, made: dict[str, int], damage: str, row: str, folder: str,
        count: str) -> None:
    """The memo keeps the paged index's and the root pages' hashes, not the files: a build
    whose model is taken holds none of them, unless one on disk is not what its hash says
    (then all are made again)."""
    data = synth.write(12, tmp_path / "data.jsonl", seed=5)
    build_project(project, data)
    kept = memo.keys_from(_items(_rows(project)[row][2]))
    assert len(kept) > 1 and all(len(digest) == 32 for digest in kept.values())  # hashes
    for path, digest in kept.items():
        assert build.stable_hash((project / folder / path).read_bytes()) == digest
    build_project(project, data)
    assert made[count] == 1
    one = project / folder / sorted(kept)[-1]
    text = one.read_text("utf-8")
    if damage == "changed":
        one.write_text(text + "\n", "utf-8")
    else:
        one.unlink()
    build_project(project, data)
    assert made[count] == 2
    assert one.read_text("utf-8") == text
    assert site_tree(project / "site") == cold_site(project, data, tmp_path / "cold")


def _refreshed(tmp_path: Path, project: Path, made: dict[str, int], seed: int, field: str,
               text: str) -> tuple[dict[str, tuple[str, bytes, bytes]], dict[str, int]]:
    """Build, put ``text`` in front of one record's ``field``, build again (its site is a cold
    build's): the memo rows after the first build, and what the two builds made."""
    data = synth.write(12, tmp_path / "data.jsonl", seed=seed)
    build_project(project, data)
    before = _rows(project)
    prefix_field(data, 4, field, text)
    build_project(project, data)
    counts = dict(made)  # (the cold build below makes its own)
    assert site_tree(project / "site") == cold_site(project, data, tmp_path / "cold")
    return before, counts


def test_a_changed_record_makes_the_model_again(tmp_path: Path, project: Path,
                                                made: dict[str, int]) -> None:
    # The message: the record's title, its listings' rows and its family change.
    before, counts = _refreshed(tmp_path, project, made, 6, "errorMessage", "Refreshed: ")
    assert counts == ALL_TWICE
    assert _rows(project)[memo.CATALOG][0] != before[memo.CATALOG][0]


def test_a_record_changed_past_its_light_copy_keeps_the_model(tmp_path: Path, project: Path,
                                                               made: dict[str, int]) -> None:
    """A refresh that changes a record only in what no light record holds (here its example
    fix: the common daily refresh) makes the page units' keys again, and neither the
    catalogue model nor anything made from it alone; the changed page is rebuilt."""
    before, counts = _refreshed(tmp_path, project, made, 11, "exampleFix", "# Refreshed fix\n")
    assert counts == {"catalog": 1, "units": 2, "root": 1, "index": 1, "home": 1, "keys": 2}
    after = _rows(project)
    assert after[memo.CATALOG] == before[memo.CATALOG]
    assert after[memo.LINES][0] != before[memo.LINES][0]
    assert any(b"Refreshed fix" in text for text in site_tree(project / "site").values())


def test_a_changed_config_makes_the_units_again(tmp_path: Path, project: Path,
                                                made: dict[str, int]) -> None:
    data = synth.write(12, tmp_path / "data.jsonl", seed=7)
    build_project(project, data)
    config = project / "mkdocs.yml"
    config.write_text(config.read_text("utf-8").replace(
        "site_name: errdocs", "site_name: errdocs (memo)", 1), "utf-8")
    build_project(project, data)
    counts = dict(made)  # (the cold build below makes its own)
    assert site_tree(project / "site") == cold_site(project, data, tmp_path / "cold")
    # The model (and what is made from it alone) is not made from the config.
    assert counts == {"catalog": 1, "units": 2, "root": 1, "index": 1, "home": 1, "keys": 2}


@pytest.mark.parametrize("damage", ["truncated", "foreign", "garbage", "table", "file"])
def test_a_damaged_or_lost_memo_is_a_miss(tmp_path: Path, project: Path, made: dict[str, int],
                                          damage: str) -> None:
    data = synth.write(12, tmp_path / "data.jsonl", seed=8)
    build_project(project, data)
    rows = _rows(project)
    assert len(rows) == 6 + len(KEY_ROWS)
    for name, (_key, _digest, blob) in rows.items():
        if damage == "truncated":  # bytes cut short: the digest does not match
            _set_data(project, name, blob[:-10], digest=False)
        elif damage == "foreign":  # another value, written with its digest: not what was kept
            _set_data(project, name, marshal.dumps((("x", "nope", (), "k", ()),)), digest=True)
        elif damage == "garbage":  # bytes that are no marshal data at all, with their digest
            _set_data(project, name, b"\xff" * 64, digest=True)
    if damage == "table":
        with sqlite3.connect(project / ".errdocs" / "catalog.sqlite") as db:
            db.execute("DROP TABLE memo_rows")
    elif damage == "file":  # the whole catalogue: a file that is not a database
        (project / ".errdocs" / "catalog.sqlite").write_bytes(b"not a database" * 100)
    # And a record changed too, so a model wrongly taken from the damaged row would show.
    prefix_field(data, 2, "errorMessage", "Damaged: ")
    build_project(project, data)
    assert made == ALL_TWICE
    build_project(project, data)  # the row written again is used
    assert made == ALL_TWICE
    assert site_tree(project / "site") == cold_site(project, data, tmp_path / "cold")


def _with_relatives(data: Path) -> Path:
    """``data`` and copies of its first records under other ids: the same message in another
    repository (a family) and in the same file of the same repository (a file's list)."""
    lines = data.read_text(encoding="utf-8").splitlines()
    for number, line in enumerate(lines[:6]):
        copy = json.loads(line)
        record = copy["record"]
        record["id"] = f"{record['id']}-copy"
        if number % 2:
            record["repo"] = f"{record['repo']}-fork"
        else:
            record["lineNumber"] = record["lineNumber"] + 1
        lines.append(json.dumps(copy))
    data.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return data


def _written(catalog: Catalog, model: int) -> tuple[sqlite3.Connection, tuple[int, ...]]:
    """A database holding ``catalog`` as the rows of ``model``, and their counts."""
    db = sqlite3.connect(":memory:")
    for statement in rows.TABLES:
        db.execute(statement)
    return db, rows.write_model(db, model, catalog)


def _round_trip(catalog: Catalog) -> Catalog:
    """``catalog`` written as the rows of a model and read back."""
    db, counts = _written(catalog, 7)
    rows.write_model(db, 8, build_catalog([]))  # another model beside it is not read
    return rows.read_model(db, 7, marshal.loads(marshal.dumps(counts)))


def _models(project: Path) -> dict[str, set[int]]:
    """The models each table of the model's rows holds rows of."""
    with sqlite3.connect(project / ".errdocs" / "catalog.sqlite") as db:
        return {table: {r[0] for r in db.execute(f"SELECT DISTINCT model FROM {table}")}
                for table in ("model_entries", "model_groups", "model_links")}


def _catalog_blob(project: Path) -> int:
    with sqlite3.connect(project / ".errdocs" / "catalog.sqlite") as db:
        return int(db.execute("SELECT blob FROM memo_rows WHERE name = ?",
                              (memo.CATALOG,)).fetchone()[0])


@pytest.mark.parametrize("damage", ["entries", "groups", "links", "table"])
def test_lost_model_rows_make_the_model_again(tmp_path: Path, project: Path,
                                              made: dict[str, int], damage: str) -> None:
    """The model's row is only counts: rows gone from its tables make it again (what is made
    from the model alone is kept: its key did not change), and the site is a cold build's."""
    data = _with_relatives(synth.write(12, tmp_path / "data.jsonl", seed=8))
    build_project(project, data)
    with sqlite3.connect(project / ".errdocs" / "catalog.sqlite") as db:
        if damage == "table":
            db.execute("DROP TABLE model_groups")
        else:
            db.execute(f"DELETE FROM model_{damage} WHERE seq = "
                       f"(SELECT max(seq) FROM model_{damage})")
    build_project(project, data)
    assert made == {**ALL_ONCE, "catalog": 2}
    build_project(project, data)  # the rows written again are used
    assert made == {**ALL_ONCE, "catalog": 2}
    assert site_tree(project / "site") == cold_site(project, data, tmp_path / "cold")


@pytest.mark.parametrize("table", ["groups", "links"])
def test_a_refresh_past_damaged_members_makes_its_units_afresh(tmp_path: Path, project: Path,
                                                              table: str) -> None:
    """Rows whose counts are right but whose members are not an array of entry numbers: a
    refresh reads them only to compare (never the earlier model whole), finds them wrong and
    makes every page's key afresh; its site is a cold build's."""
    data = _with_relatives(synth.write(12, tmp_path / "data.jsonl", seed=8))
    build_project(project, data)
    with sqlite3.connect(project / ".errdocs" / "catalog.sqlite") as db:
        db.execute(f"UPDATE model_{table} SET members = x'01'")
    prefix_field(data, 2, "errorMessage", "Refreshed: ")
    hashed: list[str] = []
    real = memo.previous_of

    def counted(*args: Any) -> Any:
        hashed.append("read")
        return real(*args)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(memo, "previous_of", counted)
        build_project(project, data)
    assert hashed == ["read"]  # (the rows were read, and found wrong)
    assert site_tree(project / "site") == cold_site(project, data, tmp_path / "cold")


def test_only_the_models_rows_kept_stay(tmp_path: Path, project: Path) -> None:
    """A refresh's save drops the earlier model's rows, and the rows of a model written by a
    build killed before its save go with the next save."""
    data = _with_relatives(synth.write(12, tmp_path / "data.jsonl", seed=6))
    build_project(project, data)
    first = _catalog_blob(project)
    assert _models(project) == {table: {first} for table in _models(project)}
    kept = memo.Memo(project / ".errdocs")  # a build killed after writing its model's rows
    kept.get_rows(memo.CATALOG, "another key", lambda: build_catalog([]), memo.MODEL)
    assert _models(project)["model_entries"] == {first}  # (an empty model: no entry rows)
    prefix_field(data, 2, "errorMessage", "Changed: ")
    build_project(project, data)
    second = _catalog_blob(project)
    assert second != first
    assert _models(project) == {table: {second} for table in _models(project)}


def test_the_memo_gives_the_model_it_was_made_from(tmp_path: Path) -> None:
    """What a model's rows read back to is the catalogue that was kept, equal and in the same
    order (every dict a build iterates), and so are the units a row decodes to."""
    from errdocs.units.plan import page_units, units_data, units_from

    data = _with_relatives(synth.write(40, tmp_path / "data.jsonl", seed=9))
    lights = scan([data], tmp_path / "work").lights
    catalog = build_catalog(x.record for x in lights)
    again = _round_trip(catalog)
    assert list(again.entries.items()) == list(catalog.entries.items())
    for kind, groups in catalog.groups.items():
        assert list(again.groups[kind].items()) == list(groups.items())
    assert list(again.groups) == list(catalog.groups)
    assert again.relations == catalog.relations
    for name in ("families", "family_repos", "files", "categories", "category_files"):
        assert list(getattr(again.relations, name)) == list(getattr(catalog.relations, name))
    assert catalog.relations.family_repos and catalog.relations.files  # (lists to compare)
    assert catalog.groups[GroupKind.FAMILY]
    for x in lights:
        assert again.related(x.record) == catalog.related(x.record)
    for ids in (*again.relations.categories.values(), *again.relations.families.values()):
        assert all(i is again.entries[i].record_id for i in ids)  # one string of each id
    units = page_units(lights, catalog, "key")
    assert units_from(marshal.loads(marshal.dumps(units_data(units)))) == units


def test_model_rows_that_are_not_all_there_are_not_a_model(tmp_path: Path) -> None:
    data = _with_relatives(synth.write(20, tmp_path / "data.jsonl", seed=3))
    catalog = build_catalog(x.record for x in scan([data], tmp_path / "work").lights)
    db, counts = _written(catalog, 1)
    db.execute("DELETE FROM model_links WHERE rowid = (SELECT max(rowid) FROM model_links)")
    with pytest.raises(rows.NotAModel):
        rows.read_model(db, 1, counts)
    db.execute("UPDATE model_groups SET members = x'01'")
    with pytest.raises(rows.NotAModel):
        rows.read_model(db, 1, counts)


def test_earlier_rows_are_held_until_forgotten(tmp_path: Path, project: Path) -> None:
    """An earlier row is decoded once, held for whoever asks again, and not held once the
    build forgets the earlier rows (its last reader is done)."""
    build_project(project, synth.write(12, tmp_path / "data.jsonl", seed=11))
    kept = memo.Memo(project / ".errdocs")
    decoded: list[object] = []

    def spy(data: object) -> object:
        decoded.append(data)
        return data

    first = kept.previous(memo.LINES, spy)
    assert first is not None and kept.previous(memo.LINES, spy) is first and len(decoded) == 1
    kept.forget_previous()
    assert kept.previous(memo.LINES, spy) == first and len(decoded) == 2


def test_only_this_errdocs_rows_make_the_next_units(tmp_path: Path, project: Path) -> None:
    """The rows outlive errdocs' code (the memo key tells them apart): an earlier build's
    units are reused in part only when made by an errdocs of the same render key."""
    build_project(project, synth.write(12, tmp_path / "data.jsonl", seed=10))
    code, _model, *_lines = _items(_rows(project)[memo.LINES][2])
    kept = memo.Memo(project / ".errdocs")
    earlier = memo.earlier_model(kept, str(code), [])  # this build: no record
    previous = memo.previous_units(kept, earlier, "another model", build_catalog([]))
    assert previous is not None and len(previous.moved) == 12 and not previous.redone
    repos = {r["record"]["repo"] for r in map(json.loads, (tmp_path / "data.jsonl").open())}
    record_and_repo_pages = [p for p in previous.keys if not p.startswith(("tags/", "categories/"))]
    assert len(record_and_repo_pages) == 12 + len(repos)  # (the pages' keys then)
    assert memo.earlier_model(kept, "another errdocs", []) is None


def test_rows_are_decoded_with_the_collector_paused(tmp_path: Path) -> None:
    """Decoding makes only acyclic values: no collection runs meanwhile, and the collector
    is as it was afterwards (on, or off when the caller had turned it off)."""
    import gc

    kept = memo.Memo(tmp_path)
    kept.get("row", "key", lambda: ("value",), lambda v: v, tuple)
    kept.save()
    seen: list[bool] = []

    def decode(data: list[str]) -> tuple[str, ...]:
        seen.append(gc.isenabled())
        return tuple(data)

    assert memo.Memo(tmp_path).get("row", "key", lambda: (), lambda v: v, decode) == ("value",)
    assert memo.Memo(tmp_path).previous("row", decode) == ("key", ("value",))
    assert seen == [False, False] and gc.isenabled()
    gc.disable()
    try:
        memo.Memo(tmp_path).get("row", "key", lambda: (), lambda v: v, decode)
        assert not gc.isenabled()
    finally:
        gc.enable()


def _blobs(project: Path) -> int:
    with sqlite3.connect(project / ".errdocs" / "catalog.sqlite") as db:
        return int(db.execute("SELECT count(*) FROM memo_blobs").fetchone()[0])


def test_a_row_made_is_written_at_once_but_read_as_the_earlier_builds_until_saved(
        tmp_path: Path, project: Path) -> None:
    # Its bytes are not held to the end of the preparation, yet a build that fails before
    # the save leaves the rows of the build before it; the bytes no row points to then go
    # with the next save.
    data = synth.write(12, tmp_path / "data.jsonl", seed=5)
    build_project(project, data)
    work = project / ".errdocs"
    before = _rows(project)
    assert _blobs(project) == len(before)
    kept = memo.Memo(work)
    kept.keep(memo.HOME, "another key", ("a value", ()))
    assert _blobs(project) == len(before) + 1  # written, not held
    assert kept.previous(memo.HOME, memo.home_from) == (before[memo.HOME][0], memo.home_from(
        _items(before[memo.HOME][2])))
    assert _rows(project) == before  # the build is killed here: nothing points at it
    prefix_field(data, 2, "errorMessage", "Changed: ")  # the next build makes rows again
    build_project(project, data)
    after = _rows(project)
    assert after[memo.HOME][0] != "another key" and after[memo.CATALOG] != before[memo.CATALOG]
    assert _blobs(project) == len(after) == len(before)


def test_the_memo_table_of_an_earlier_errdocs_is_dropped_and_its_rows_made_again(
        tmp_path: Path, project: Path, made: dict[str, int]) -> None:
    data = synth.write(12, tmp_path / "data.jsonl", seed=5)
    build_project(project, data)
    rows = _rows(project)
    with sqlite3.connect(project / ".errdocs" / "catalog.sqlite") as db:
        db.execute("DROP TABLE memo_rows")
        db.execute("DROP TABLE memo_blobs")
        db.execute("CREATE TABLE model_memo (name TEXT PRIMARY KEY, key TEXT NOT NULL, "
                   "digest BLOB NOT NULL, data BLOB NOT NULL) WITHOUT ROWID")
        db.executemany("INSERT INTO model_memo VALUES (?, ?, ?, ?)",
                       ((name, *row) for name, row in rows.items()))
    build_project(project, data)
    assert made == ALL_TWICE
    assert _rows(project) == rows
    with sqlite3.connect(project / ".errdocs" / "catalog.sqlite") as db:
        assert not db.execute("SELECT name FROM sqlite_master WHERE name = 'model_memo'"
                              ).fetchall()


def test_model_tables_of_another_layout_are_made_again(tmp_path: Path, project: Path) -> None:
    """An errdocs of another layout may have kept the model's tables with other columns: they
    are emptied with the rest of the catalogue, and the build is a cold build's."""
    data = synth.write(12, tmp_path / "data.jsonl", seed=13)
    build_project(project, data)
    with sqlite3.connect(project / ".errdocs" / "catalog.sqlite") as db:
        db.execute("DROP TABLE model_entries")
        db.execute("CREATE TABLE model_entries (model INTEGER, seq INTEGER, record_id TEXT)")
        db.execute("UPDATE meta SET value = 'another layout' WHERE key = 'format'")
    prefix_field(data, 2, "errorMessage", "Changed: ")
    build_project(project, data)
    assert site_tree(project / "site") == cold_site(project, data, tmp_path / "cold")
    assert set(_models(project)["model_entries"]) == {_catalog_blob(project)}


def test_a_model_read_back_holds_one_string_of_each_common_text(tmp_path: Path) -> None:
    """Many entries hold one repository, class, language...: read back, they hold one string of
    it (as :mod:`marshal` gave), and a family's key is its entries' family."""
    data = _with_relatives(synth.write(40, tmp_path / "data.jsonl", seed=14))
    lights = {x.record.id: x for x in scan([data], tmp_path / "work").lights}
    catalog = build_catalog(x.record for x in lights.values())
    db, counts = _written(catalog, 5)
    again = rows.read_model(db, 5, counts)
    for field in ("repo", "error_class", "language", "severity"):
        texts = [getattr(e, field) for e in again.entries.values()]
        assert len({id(t) for t in texts}) == len(set(texts)) < len(texts)
    for key, ids in again.relations.families.items():
        assert all(again.entries[i].family is key for i in ids)


def test_a_rows_bytes_are_never_whole_in_memory(tmp_path: Path) -> None:
    """A row is written and read an item at a time, in blocks: the largest (the units', 62 MB
    at 310,000 records) was made and read whole at the preparation's peak."""
    import tracemalloc

    value = tuple(f"{n:08}" + "x" * 10_000 for n in range(2_000))  # ~20 MB of items
    size = sum(map(len, value))
    kept = memo.Memo(tmp_path)
    tracemalloc.start()
    try:
        kept.keep("big", "key", value)
        written = tracemalloc.get_traced_memory()[1]
        kept.save()
        tracemalloc.reset_peak()
        read = memo.Memo(tmp_path).get("big", "key", lambda: (), tuple, tuple)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert read == value
    assert written < size / 4  # a few blocks, not the bytes of every item
    assert peak < size * 1.25  # the items read, and a few blocks


def _unbound(text: object) -> bool:
    """``text`` holds no UTF-8 copy of itself (what sqlite3's binding leaves in a string)."""
    return not isinstance(text, str) or sys.getsizeof(text) == sys.getsizeof(
        text.encode().decode())


def test_the_strings_a_build_keeps_are_bound_to_sqlite_as_copies(tmp_path: Path) -> None:
    """``sqlite3`` binds a string through its UTF-8 form, and CPython keeps that form inside
    the string: bound as they were, the light records' descriptions (cut with "…") took ~160
    bytes more each, to the build's end. The scan's rows and the model's bind copies."""
    data = synth.write(20, tmp_path / "d.jsonl", seed=5)
    found = scan([data], tmp_path / "work")
    texts = [x.record.documentation for x in found.lights]
    assert len(texts) == 20 and not any(t is None or t.isascii() for t in texts)
    assert all(_unbound(getattr(x.record, f)) for x in found.lights
               for f in ("documentation", "error_message", "message_pattern", "file_path"))
    catalog = build_catalog(x.record for x in found.lights)
    _written(catalog, 1)
    assert all(_unbound(getattr(e, f)) for e in catalog.entries.values()
               for f in rows._ENTRY)
    assert all(_unbound(g.label) for kind in GroupKind for g in catalog.groups[kind].values())


def test_a_hubs_listings_are_sent_as_where_their_rows_are_and_read_where_taken(
        tmp_path: Path) -> None:
    """A hub unit's slice carries its listings as the model's rows they are (the database,
    the model, the rows' numbers): the worker reads the entries, each once, in the lists'
    order; read without pickling, they are the same. Rows gone by then fail in one line."""
    import pickle
    from contextlib import closing
    from dataclasses import replace

    from errdocs.catalog.entries import CarriedTable, carried
    from errdocs.catalog.texts import RowTexts
    from errdocs.errors import BuildFailed

    data = _with_relatives(synth.write(60, tmp_path / "data.jsonl", seed=11))
    catalog = build_catalog(x.record for x in scan([data], tmp_path / "work").lights)
    path = tmp_path / "catalog.sqlite"
    with closing(sqlite3.connect(path)) as db:
        for statement in rows.TABLES:
            db.execute(statement)
        rows.write_model(db, 4, build_catalog([]))  # another model beside it is not read
        rows.write_model(db, 3, catalog)
        db.commit()
    written = replace(catalog, texts=RowTexts(path, 3))  # (what the memo goes on with)
    groups = [g.entries for kind in (GroupKind.TAG, GroupKind.CATEGORY, GroupKind.REPO)
              for g in list(catalog.groups[kind].values())[:2]]
    assert rows.stored_lists(groups, catalog) is None  # its texts are not the rows'
    lists = rows.stored_lists(groups, written)
    assert lists is not None
    sent = pickle.dumps(lists)
    back = pickle.loads(sent)
    for made in (back, lists):
        assert [list(m) for m in made] == [list(g) for g in groups]
    assert type(back[0].table) is CarriedTable and back[0].table is back[-1].table
    shown = {e.record_id for g in groups for e in g}
    assert 0 < len(back[0].table) == len(shown) < len(catalog.entries)
    assert list(back[0].table) == [i for i in catalog.entries if i in shown]  # (model order)
    # Four bytes a row, not the entries (their text, each once: what was sent before).
    assert 4 * len(sent) < len(pickle.dumps(carried(groups)))
    assert written.texts.summaries(shown) == catalog.texts.summaries(shown)
    with closing(sqlite3.connect(path)) as db:
        db.execute("DELETE FROM model_entries WHERE model = 3 AND seq = ?",
                   (list(catalog.entries).index(next(iter(shown))),))
        db.commit()
    with pytest.raises(BuildFailed, match="model 3 are gone; build again"):
        pickle.loads(sent)


def test_the_data_units_are_made_with_the_files_strings_and_their_old_row_goes(
        tmp_path: Path, project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The data units are made on every build from the data files' paths and keys, holding
    those very strings (read from the memo, as an earlier errdocs kept them, they were new
    strings: 32 MB at 310,000 records); the row that earlier errdocs kept goes."""
    data = synth.write(12, tmp_path / "data.jsonl", seed=5)
    build_project(project, data)
    with sqlite3.connect(project / ".errdocs" / "catalog.sqlite") as db:
        db.execute("INSERT INTO memo_blobs (key, digest, data) VALUES ('k', x'00', x'00')")
        db.execute("INSERT INTO memo_rows VALUES ('data-units', last_insert_rowid())")
    shared: list[bool] = []
    real = build.plan

    def planned(*args: Any, **kwargs: Any) -> Any:
        files, units = args[4], args[8]
        held = {id(path) for path in files.paths}
        shared.append(bool(units) and all(id(p) in held for u in units for p in u.members))
        return real(*args, **kwargs)

    monkeypatch.setattr(build, "plan", planned)
    prefix_field(data, 3, "exampleFix", "# Refreshed fix\n")  # a row is made and saved
    build_project(project, data)
    assert shared == [True]
    with sqlite3.connect(project / ".errdocs" / "catalog.sqlite") as db:
        assert db.execute("SELECT count(*) FROM memo_rows WHERE name = 'data-units'"
                          ).fetchone() == (0,)
        assert db.execute("SELECT count(*) FROM memo_blobs WHERE key = 'k'").fetchone() == (0,)
