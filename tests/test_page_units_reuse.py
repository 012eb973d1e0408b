"""A refresh makes the catalogue model and the page units from what the previous build kept
(:class:`plan.Previous`): only the entries of records whose line changed are made again, only
the pages whose inputs may have changed are hashed again, and the model and units are exactly
those made from scratch, whatever changed (a message, tags, a repository, a category, a file
or line, an id, a record removed or added)."""

from __future__ import annotations

import gc
import json
import sqlite3
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from errdocs.catalog import memo, rows
from errdocs.catalog.lights import Light, Lights
from errdocs.catalog.model import Catalog, build_catalog
from errdocs.catalog.scan import scan
from errdocs.units import plan

from .conftest import ROOT
from .helpers import record

sys.path.insert(0, str(ROOT / "bench"))
import synth

Edit = Callable[[list[dict[str, Any]]], None]
"""Changes the data's records (each line's JSON, in order) in place."""


def _record(lines: list[dict[str, Any]], number: int) -> dict[str, Any]:
    return lines[number]["record"]


def _message(lines: list[dict[str, Any]]) -> None:
    _record(lines, 7)["errorMessage"] = "Refreshed: " + _record(lines, 7)["errorMessage"]


def _same_message(lines: list[dict[str, Any]]) -> None:
    """A message made another's: titles and families change."""
    _record(lines, 9)["errorMessage"] = _record(lines, 30)["errorMessage"]


def _tags(lines: list[dict[str, Any]]) -> None:
    _record(lines, 11)["tags"] = ["brand-new-tag", *_record(lines, 11)["tags"][1:]]


def _repo(lines: list[dict[str, Any]]) -> None:
    _record(lines, 13)["repo"] = _record(lines, 50)["repo"]


def _category(lines: list[dict[str, Any]]) -> None:
    _record(lines, 15)["backgroundTag"] = "a-new-category"


def _file_and_line(lines: list[dict[str, Any]]) -> None:
    _record(lines, 17)["filePath"] = _record(lines, 60)["filePath"]
    _record(lines, 17)["lineNumber"] = 3


def _documentation(lines: list[dict[str, Any]]) -> None:
    """What the error means: the record's own page and its listings' rows (its summary)."""
    _record(lines, 19)["documentation"] = "Now explained otherwise. " + _record(
        lines, 19)["documentation"]


def _identifier(lines: list[dict[str, Any]]) -> None:
    _record(lines, 21)["id"] = "renamed-" + _record(lines, 21)["id"]


def _removed(lines: list[dict[str, Any]]) -> None:
    del lines[23]


def _added(lines: list[dict[str, Any]]) -> None:
    twin = json.loads(json.dumps(lines[25]))
    twin["record"]["id"] = "added-" + twin["record"]["id"]
    lines.append(twin)


def _other_repos(lines: list[dict[str, Any]], count: int) -> list[int]:
    """The first records of ``count`` repositories."""
    firsts: dict[str, int] = {}
    for number, line in enumerate(lines):
        firsts.setdefault(line["record"]["repo"].casefold(), number)
    assert len(firsts) >= count
    return list(firsts.values())[:count]


def _shared_tag(lines: list[dict[str, Any]]) -> None:
    """Two records share a tag (both versions)."""
    for number in (40, 41):
        _record(lines, number)["tags"].insert(0, "shared-tag")


def _respelt_tag(lines: list[dict[str, Any]]) -> None:
    """One of them spells it otherwise: the tag's label (most common spelling, then the first
    in order) is the other record's page's too, which is not otherwise changed."""
    _record(lines, 40)["tags"][0] = "SHARED-TAG"


FAMILY = "A message of a family in two repositories"


def _family(lines: list[dict[str, Any]]) -> None:
    """Two records of two repositories share a message (both versions)."""
    for number in _other_repos(lines, 2):
        _record(lines, number)["errorMessage"] = FAMILY


def _joins_family(lines: list[dict[str, Any]]) -> None:
    """A record of a third repository takes their message: their pages' related lists list
    it, and nothing else of their pages changes (their titles name their repositories)."""
    _record(lines, _other_repos(lines, 3)[2])["errorMessage"] = FAMILY


LONG = "The first sentence of a long message is the title of its page. " + "Padding " * 40


def _long_message(lines: list[dict[str, Any]]) -> None:
    """A record with a message whose title is its first sentence (both versions)."""
    _record(lines, 44)["errorMessage"] = LONG + "about the cache"


def _same_title(lines: list[dict[str, Any]]) -> None:
    """Another record's message gets the same title (not the same message: no family): the
    first record's title changes (it names its repository), its line does not."""
    _record(lines, 45)["errorMessage"] = LONG + "about the network"


def _one_tag(lines: list[dict[str, Any]]) -> None:
    """Every record has one tag (both versions): its listing has several pages."""
    for line in lines:
        line["record"]["tags"].insert(0, "everywhere")


def _summaries(lines: list[dict[str, Any]]) -> None:
    """What some records mean, on every page of that listing: rows change, not their order."""
    for number in range(0, len(lines), 10):
        _record(lines, number)["documentation"] = "Said otherwise. " + _record(
            lines, number)["documentation"]


def _lights(lines: list[dict[str, Any]], folder: Path) -> Lights:
    data = folder / "data.jsonl"
    folder.mkdir()
    data.write_text("".join(json.dumps(v) + "\n" for v in lines), "utf-8")
    return scan([data], folder / "work").lights


def _hashed_pages(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The ids of the records whose page's inputs are hashed from now on."""
    hashed: list[str] = []
    real = plan._record_input

    def counted(light: Light, catalog: Any) -> str:
        hashed.append(light.record.id)
        return real(light, catalog)

    monkeypatch.setattr(plan, "_record_input", counted)
    return hashed


def _written(catalog: Catalog) -> sqlite3.Connection:
    """A database holding ``catalog`` as the rows of model 7 (another model beside it)."""
    db = sqlite3.connect(":memory:")
    for statement in rows.TABLES:
        db.execute(statement)
    rows.write_model(db, 6, build_catalog([]))
    rows.write_model(db, 7, catalog)
    return db


def _nothing(_lines: list[dict[str, Any]]) -> None:
    pass


@pytest.mark.parametrize(("prepare", "edit"), [
    *((_nothing, e) for e in (_message, _same_message, _tags, _repo, _category, _file_and_line,
                              _documentation, _identifier, _removed, _added)),
    (_shared_tag, _respelt_tag), (_family, _joins_family), (_long_message, _same_title),
    (_one_tag, _summaries), (_one_tag, _documentation)])
def test_units_made_from_the_previous_ones_are_those_made_afresh(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, prepare: Edit, edit: Edit) -> None:
    source = synth.write(300, tmp_path / "data.jsonl", seed=12)
    lines = [json.loads(line) for line in source.read_text("utf-8").splitlines()]
    prepare(lines)
    before = _lights(lines, tmp_path / "before")
    catalog = build_catalog(x.record for x in before)
    then = {x.record.id: x.line_hash for x in before}
    units = plan.page_units(before, catalog, "global")
    db = _written(catalog)
    edit(lines)
    after = _lights(lines, tmp_path / "after")
    now = build_catalog(x.record for x in after)
    # What the memo reads of the earlier model's rows is what the model whole tells.
    redone = {x.record.id for x in after if then.get(x.record.id) != x.line_hash}
    keys = plan.page_keys_of(units)
    previous = memo.previous_of(db, 7, now, redone, keys)
    assert previous == plan.Previous.between(catalog, now, redone, keys)
    # The entries of the records whose line did not change are taken from the earlier model.
    kept = rows.read_entries(db, 7, lambda i: i not in redone)
    assert kept == {i: e for i, e in catalog.entries.items() if i not in redone}
    again = build_catalog((x.record for x in after), kept)
    assert again == now and list(again.entries.items()) == list(now.entries.items())
    afresh = plan.page_units(after, now, "global")
    hashed = _hashed_pages(monkeypatch)
    assert plan.page_units(after, now, "global", previous) == afresh
    assert 0 < len(hashed) < len(after)  # the others' keys were the previous ones


def test_a_new_global_key_keeps_every_page_key(tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """A changed ``mkdocs.yml`` changes every unit's key, and no page's inputs."""
    lights = scan([synth.write(100, tmp_path / "data.jsonl", seed=13)], tmp_path / "w").lights
    catalog = build_catalog(x.record for x in lights)
    previous = plan.Previous.between(catalog, catalog, set(), plan.page_keys_of(
        plan.page_units(lights, catalog, "global")))
    afresh = plan.page_units(lights, catalog, "other")
    monkeypatch.setattr(plan, "_record_input", None)  # never called
    monkeypatch.setattr(plan, "_group_page_keys", None)
    assert plan.page_units(lights, catalog, "other", previous) == afresh


def test_units_read_from_the_memo_hold_the_catalogues_strings(tmp_path: Path) -> None:
    """The units a build takes from the memo are those it kept, read with the catalogue's
    own strings (:func:`plan.shared_strings`): each record unit's record ids and page paths,
    each hub unit's groups' first pages; not copies."""
    lights = scan([synth.write(300, tmp_path / "data.jsonl", seed=5)], tmp_path / "w").lights
    catalog = build_catalog(x.record for x in lights)
    units = plan.page_units(lights, catalog, "global")
    kept = memo.Memo(tmp_path / "w")
    made = kept.get(memo.UNITS, "key", lambda: units, memo.units_data_of("lines"),
                    lambda data: memo.units_from_data(data)[1])
    kept.save()
    read = memo.Memo(tmp_path / "w").get(
        memo.UNITS, "key", lambda: pytest.fail("not taken"), memo.units_data_of("lines"),
        lambda data: memo.units_from_data(data)[1], plan.shared_strings(catalog))
    assert read == made == units
    kinds = {u.kind for u in read}
    assert kinds == {plan.UnitKind.RECORDS, plan.UnitKind.HUB}
    firsts = {g.path: g for kind in catalog.groups for g in catalog.groups[kind].values()}
    shared = 0
    for unit in read:
        if unit.kind is plan.UnitKind.RECORDS:
            for record_id, path in zip(unit.members, unit.page_keys.paths, strict=True):
                entry = catalog.entries[record_id]
                assert record_id is entry.record_id and path is entry.path
                shared += 1
        else:
            for path in unit.page_keys.paths:
                assert path not in firsts or path is firsts[path].path
                shared += path in firsts
    assert shared == len(lights) + len(firsts)
    # A refresh reads them as the earlier build's page keys, with the same strings.
    earlier = memo.Memo(tmp_path / "w").previous(memo.UNITS, memo._page_keys_from,
                                                 plan.shared_strings(catalog))
    assert earlier is not None and earlier[1] == ("lines", plan.page_keys_of(units))
    own = {e.path: e.path for e in catalog.entries.values()} | {p: p for p in firsts}
    assert all(path is own[path] for path in earlier[1][1] if path in own)
    assert len(own.keys() & earlier[1][1].keys()) == len(own)


def test_a_line_changed_past_its_entry_hashes_its_page_alone(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Records changed only in what listings and related lists do not show (their example
    fix): their own pages are hashed again, and no listing is."""
    source = synth.write(300, tmp_path / "data.jsonl", seed=14)
    lines = [json.loads(line) for line in source.read_text("utf-8").splitlines()]
    before = _lights(lines, tmp_path / "before")
    catalog = build_catalog(x.record for x in before)
    then = {x.record.id: x.line_hash for x in before}
    units = plan.page_units(before, catalog, "global")
    for number in range(0, 300, 30):  # one record in 30, spread: most tags hold one
        _record(lines, number)["exampleFix"] = "# Refreshed\n" + _record(lines, number)[
            "exampleFix"]
    after = _lights(lines, tmp_path / "after")
    assert build_catalog(x.record for x in after) == catalog
    redone = {x.record.id for x in after if then[x.record.id] != x.line_hash}
    previous = memo.previous_of(_written(catalog), 7, catalog, redone, plan.page_keys_of(units))
    afresh = plan.page_units(after, catalog, "global")
    hashed = _hashed_pages(monkeypatch)
    monkeypatch.setattr(plan, "_group_page_keys", None)  # never called
    assert plan.page_units(after, catalog, "global", previous) == afresh
    assert sorted(hashed) == sorted(_record(lines, n)["id"] for n in range(0, 300, 30))


_RECORDS = st.lists(st.tuples(
    st.sampled_from([f"id-{n}" for n in range(12)]),
    st.sampled_from(["o/a", "o/b", "p/a"]),
    st.sampled_from(["Not found: {x}", "Not found: {y}", "Timeout after {n} ms", "Bad value"]),
    st.lists(st.sampled_from(["io", "IO", "net", "db"]), max_size=3),
    st.sampled_from([None, "invalid-input", "network"]),
    st.sampled_from([None, "a.py", "b.py"]),
    st.sampled_from([None, 1, 2]),
    st.sampled_from(["First. Second.", "Only one"])), max_size=12)
"""Records of a dozen ids at most, few messages (families, clashing titles), repositories,
tags (two spellings of one), categories, files and lines: what the lists and groups join."""


def _catalog(rows: list[tuple[Any, ...]]) -> Catalog:
    records = {row[0]: record(row[0], repo=row[1], slug=row[0], error_message=row[2],
                              tags=tuple(row[3]), background_tag=row[4], file_path=row[5],
                              line_number=row[6], documentation=row[7])
               for row in rows}
    return build_catalog(records.values())


@settings(max_examples=60, deadline=None)
@given(_RECORDS, _RECORDS, st.sets(st.sampled_from([f"id-{n}" for n in range(12)])))
def test_the_earlier_model_read_from_its_rows_is_the_model_whole(
        before: list[tuple[Any, ...]], after: list[tuple[Any, ...]], redone: set[str]) -> None:
    """Whatever two models hold (records moved, added, removed, retitled, regrouped), what
    the memo reads of the earlier one's rows tells what the earlier model whole tells, and
    its entries read back are its entries."""
    then, now = _catalog(before), _catalog(after)
    db = _written(then)
    keys = {"x.md": bytes(16)}
    assert memo.previous_of(db, 7, now, redone, keys) == plan.Previous.between(
        then, now, redone, keys)
    assert rows.read_entries(db, 7, lambda i: i not in redone) == {
        i: e for i, e in then.entries.items() if i not in redone}


def test_what_the_record_units_do_not_read_is_let_go_before_them(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A refresh's earlier groups and related lists (~50 MB at 310,000 records) are not held
    while the record units are made: only the earlier page keys and the dirty records are."""
    lights = scan([synth.write(60, tmp_path / "data.jsonl", seed=14)], tmp_path / "w").lights
    catalog = build_catalog(x.record for x in lights)
    afresh = plan.page_units(lights, catalog, "global")
    keys = plan.page_keys_of(afresh)
    seen: list[tuple[object, object]] = []
    real = plan._record_units

    def recorded(*args: Any) -> list[plan.Unit]:
        known = args[-1]
        seen.append((known.groups, [x for x in gc.get_objects()
                                    if isinstance(x, plan.Previous)]))
        return real(*args)

    monkeypatch.setattr(plan, "_record_units", recorded)
    units = plan.page_units(lights, catalog, "global", plan.Previous.between(
        catalog, catalog, set(), keys))
    assert seen == [({}, [])]
    assert units == afresh
