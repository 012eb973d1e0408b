"""What a worker is sent for a unit: in a refresh, the related lists of the pages it renders
only (issue 17: the whole unit's were ~1 MB a unit, pickled by the one feeder thread)."""

from __future__ import annotations

import json
import pickle
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Generic, TypeVar

import pytest

from errdocs.build import build_sharded
from errdocs.project import Settings, load_settings
from errdocs.units import build as unitbuild
from errdocs.units import plan as shards
from errdocs.units import workers
from errdocs.units.build import Context, UnitFailed
from errdocs.units.plan import Unit, UnitKind

from .conftest import ROOT
from .helpers import cold_site, site_tree

sys.path.insert(0, str(ROOT / "bench"))
import synth

pytestmark = pytest.mark.slow
T = TypeVar("T")


@pytest.fixture
def small_units(monkeypatch: pytest.MonkeyPatch) -> None:
    """Units of a few pages, so 60 records make several record units."""
    monkeypatch.setattr(shards, "UNIT_SIZE", 16)
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1767225600")


def _change(data: Path, *at: int) -> set[str]:
    """Change the solutions of the records on lines ``at`` (their pages only); their ids.
    Several units must change for the build to send them to workers (one is built here)."""
    lines = data.read_text("utf-8").splitlines(keepends=True)
    ids = set()
    for line in at:
        value = json.loads(lines[line])
        value["record"]["solutions"] = ["Changed."]
        lines[line] = json.dumps(value) + "\n"
        ids.add(str(value["record"]["id"]))
    data.write_text("".join(lines), "utf-8")
    return ids


class _Recorded(Generic[T]):
    """What the build recorded in whichever process it ran (the slices are cut where the plan
    is made: with workers, in a child process of the build's), pickled to ``path``."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def add(self, item: T) -> None:
        with open(self.path, "ab") as file:
            pickle.dump(item, file)

    def __iter__(self) -> Iterator[T]:
        if not self.path.is_file():
            return
        with open(self.path, "rb") as file:
            while True:
                try:
                    yield pickle.load(file)
                except EOFError:
                    return

    def __len__(self) -> int:
        return sum(1 for _item in self)

    def clear(self) -> None:
        self.path.unlink(missing_ok=True)


def _sent(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> _Recorded[tuple[Context, Unit]]:
    """The (context, unit) slices the build sends to its workers."""
    sent: _Recorded[tuple[Context, Unit]] = _Recorded(tmp_path / "sent.pickle")

    def spy(ctx: Context, unit: Unit) -> tuple[Context, Unit]:
        cut = unitbuild.for_unit(ctx, unit)
        sent.add(cut)
        return cut

    monkeypatch.setattr(workers, "for_unit", spy)
    return sent


def test_a_refresh_sends_the_related_lists_of_the_changed_pages_only(
        tmp_path: Path, project: Path, small_units: None,
        monkeypatch: pytest.MonkeyPatch) -> None:
    data = synth.write(60, tmp_path / "data.jsonl", seed=3)
    settings = load_settings(project / "mkdocs.yml")
    build_sharded(settings, [data], jobs=2, show_progress=False)
    changed = _change(data, 5, 30, 55)
    sent = _sent(monkeypatch, tmp_path)
    build_sharded(settings, [data], jobs=2, show_progress=False)
    records = [(ctx, unit) for ctx, unit in sent if unit.kind is UnitKind.RECORDS]
    assert len(records) >= 2 and changed <= {i for _c, u in records for i in u.members}
    for ctx, unit in records:
        mine = changed & set(unit.members)
        assert mine and len(unit.members) > len(mine)
        assert ctx.detailed == mine
        assert set(ctx.catalog.relations.fixed) == mine
        assert set(ctx.lights) == mine
        assert set(ctx.built) <= {unit.name}  # its own row only
        # Of the other members, no entry: their pages are the unit's page keys.
        shown = {i for lists in ctx.catalog.relations.fixed.values()
                 for i in (*lists.same_message, *lists.same_file, *lists.same_category)}
        assert set(ctx.catalog.entries) == mine | shown
        assert not set(unit.members) - mine <= shown
    assert site_tree(project / "site") == cold_site(project, data, tmp_path / "fresh")


def _a_unit_sent(tmp_path: Path, project: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[
        Path, Settings, _Recorded[tuple[Context, Unit]], Context, Unit, str]:
    """A project built, three records changed and built again: the data, the settings, the
    slices that build sent (recorded from then on), the first record unit's slice and a
    member of it that did not change."""
    data = synth.write(60, tmp_path / "data.jsonl", seed=3)
    settings = load_settings(project / "mkdocs.yml")
    build_sharded(settings, [data], jobs=2, show_progress=False)
    changed = _change(data, 5, 30, 55)
    sent = _sent(monkeypatch, tmp_path)
    build_sharded(settings, [data], jobs=2, show_progress=False)  # to learn the units' members
    ctx, unit = next((c, u) for c, u in sent if u.kind is UnitKind.RECORDS)
    return data, settings, sent, ctx, unit, next(i for i in unit.members if i not in changed)


def test_a_page_gone_from_the_generated_tree_is_sent_and_rendered(
        tmp_path: Path, project: Path, small_units: None,
        monkeypatch: pytest.MonkeyPatch) -> None:
    data, settings, sent, ctx, unit, other = _a_unit_sent(tmp_path, project, monkeypatch)
    page = settings.out_dir / dict(unitbuild.member_pages(unit))[other]
    page.unlink()
    # and a record of another unit changed again, so that two units go to the workers
    elsewhere = next(u for _c, u in sent if u.kind is UnitKind.RECORDS and other not in u.members)
    ids = [json.loads(line)["record"]["id"] for line in data.read_text("utf-8").splitlines()]
    _change(data, ids.index(elsewhere.members[0]))
    sent.clear()
    build_sharded(settings, [data], jobs=2, show_progress=False)
    ctx = next(c for c, u in sent if other in u.members)
    assert ctx.detailed is not None and other in ctx.detailed
    assert page.is_file()
    assert site_tree(project / "site") == cold_site(project, data, tmp_path / "fresh")


def test_a_worker_refuses_a_page_its_slice_was_not_made_for(
        tmp_path: Path, project: Path, small_units: None,
        monkeypatch: pytest.MonkeyPatch) -> None:
    _data, settings, _sent_slices, ctx, unit, other = _a_unit_sent(tmp_path, project, monkeypatch)
    # Its Markdown goes missing after the slice was made: without its related lists the
    # page would be rendered without them, silently; the unit fails instead.
    (settings.out_dir / dict(unitbuild.member_pages(unit))[other]).unlink()
    with pytest.raises(UnitFailed, match=f"record {other} changed while"):
        unitbuild.build_unit(ctx, unit)


def test_slices_are_cut_without_a_stat_of_each_page(
        tmp_path: Path, project: Path, small_units: None,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The process feeding the workers knows the pages missing from the generated tree from
    the build's walk of it: it stats no page (300,000 stats in a 1% refresh at 310,000
    records), and a page deleted by hand is still sent and written again."""
    data = synth.write(60, tmp_path / "data.jsonl", seed=3)
    settings = load_settings(project / "mkdocs.yml")
    build_sharded(settings, [data], jobs=2, show_progress=False)
    changed = _change(data, 5, 30, 55)
    gone = next(p for p in sorted(settings.out_dir.rglob("*.md"))
                if p.stem not in {"index", "404"} and "/repos/" not in p.as_posix()
                and not any(i in p.read_text("utf-8") for i in changed))
    gone.unlink()
    looked: _Recorded[str] = _Recorded(tmp_path / "looked.pickle")
    real = Path.stat

    def counted(self: Path, **kwargs: bool) -> object:
        looked.add(self.suffix)
        return real(self, **kwargs)

    sent = _sent(monkeypatch, tmp_path)
    cut = workers.for_unit

    def spied(ctx: Context, unit: Unit) -> tuple[Context, Unit]:
        with monkeypatch.context() as patch:
            patch.setattr(Path, "stat", counted)
            return cut(ctx, unit)

    monkeypatch.setattr(workers, "for_unit", spied)
    build_sharded(settings, [data], jobs=2, show_progress=False)
    assert len(sent) >= 2
    assert [suffix for suffix in looked if suffix == ".md"] == []
    assert gone.is_file()
    assert site_tree(project / "site") == cold_site(project, data, tmp_path / "fresh")


def test_a_worker_drops_its_slice_before_mkdocs_runs(
        tmp_path: Path, project: Path, small_units: None,
        monkeypatch: pytest.MonkeyPatch) -> None:
    # A hub unit's slice holds every entry of its groups (145,000 for one tag at 310,000
    # records): once the unit's Markdown is written, MkDocs' pages are not piled on it.
    import gc
    import os

    from errdocs.catalog.model import Catalog

    seen = tmp_path / "seen.txt"
    run = unitbuild._run_mkdocs

    # What this process holds (earlier tests' garbage) the workers inherit at the same address.
    inherited = {id(o) for o in gc.get_objects() if isinstance(o, Catalog)}

    def counted(*args: object, **kwargs: object) -> object:
        alive = sum(isinstance(o, Catalog) and id(o) not in inherited for o in gc.get_objects())
        with open(seen, "a", encoding="utf-8") as out:  # written by the workers
            out.write(f"{os.getpid()} {alive}\n")
        return run(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(unitbuild, "_run_mkdocs", counted)  # before the workers fork
    data = synth.write(60, tmp_path / "data.jsonl", seed=5)
    build_sharded(load_settings(project / "mkdocs.yml"), [data], jobs=2, show_progress=False)
    runs = [line.split() for line in seen.read_text("utf-8").splitlines()]
    in_workers = [alive for pid, alive in runs if int(pid) != os.getpid()]
    assert len(in_workers) >= 4
    assert set(in_workers) == {"0"}
    assert not list((project / ".errdocs" / "units").glob(f"*/{workers.SLICE}"))


def _reached(held: object, wanted: Callable[[str], bool]) -> int:
    """How many ``wanted`` strings ``held`` reaches through its fields and containers."""
    import dataclasses

    seen: set[int] = set()
    todo, count = [held], 0
    while todo:
        item = todo.pop()
        if id(item) in seen:
            continue
        seen.add(id(item))
        if isinstance(item, str):
            count += wanted(item)
        elif isinstance(item, dict):
            todo += [*item.keys(), *item.values()]
        elif isinstance(item, tuple | list | set | frozenset):
            todo += item
        elif dataclasses.is_dataclass(item) and not isinstance(item, type):
            todo += [getattr(item, f.name) for f in dataclasses.fields(item)]
    return count


@pytest.mark.parametrize("jobs", [2, 1])
def test_the_build_process_holds_no_catalogue_while_units_build(
        tmp_path: Path, project: Path, small_units: None, monkeypatch: pytest.MonkeyPatch,
        jobs: int) -> None:
    # With workers, the plan is made in a child process that ends before the units build:
    # what it made (the catalogue, the records' light copies: ~900 MB at 310,000 records,
    # fragmented once freed) goes with it, and the build process holds none of it while the
    # units build or the site is merged. The site is the one a plan made in this process
    # gives (one job: the units build here, from the catalogue, dropped for the merge).
    import gc

    from errdocs import build as sharded
    from errdocs.catalog.lights import Lights
    from errdocs.catalog.model import Catalog

    inherited = {id(o) for o in gc.get_objects() if isinstance(o, Catalog | Lights)}
    held: list[tuple[str, int]] = []
    pages: list[int] = []

    def alive(step: str) -> None:
        gc.unfreeze()  # (the build leaves what it holds out of the collections: not listed)
        held.append((step, sum(
            id(o) not in inherited and (isinstance(o, Lights) or (
                isinstance(o, Catalog) and bool(o.entries))) for o in gc.get_objects())))

    keep_row, merge = sharded.keep_row, sharded.merge
    build_units, assemble = sharded._build, sharded._assemble

    # Nor lists of the generated tree's pages (every record page, every group page: ~760,000
    # paths at 310,000 records) in what it goes on with: the manifest and the settled row
    # are written without them, and the units read theirs from their slices.
    def units_from(ctx: object, *args: object, **kwargs: object) -> object:
        pages.append(_reached((ctx, args[0]), markdown))
        ids.append(_reached((ctx, args[0]), records.__contains__))
        return build_units(ctx, *args, **kwargs)  # type: ignore[arg-type]

    def assembled(settings: object, prepared: object, *args: object) -> object:
        pages.append(_reached(prepared, markdown))
        ids.append(_reached(prepared, records.__contains__))
        return assemble(settings, prepared, *args)  # type: ignore[arg-type]

    def markdown(text: str) -> bool:
        return text.endswith(".md")

    records: set[str] = set()
    ids: list[int] = []
    # Nor the docs folder's files, walked in a worker for the process preparing the build.
    handed: list[int] = []
    take = sharded._Walk.take

    def taken(walk: sharded._Walk) -> object:
        docs = take(walk)
        handed.append(len(docs.files))
        return docs

    monkeypatch.setattr(sharded._Walk, "take", taken)
    monkeypatch.setattr(sharded, "_build", units_from)
    monkeypatch.setattr(sharded, "_assemble", assembled)

    def kept(*args: object) -> None:
        alive("units")
        keep_row(*args)  # type: ignore[arg-type]

    def merged(*args: object) -> None:
        alive("merge")
        merge(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(sharded, "keep_row", kept)
    monkeypatch.setattr(sharded, "merge", merged)
    data = synth.write(60, tmp_path / "data.jsonl", seed=5)
    records.update(json.loads(line)["record"]["id"] for line in data.read_text().splitlines())
    report = build_sharded(load_settings(project / "mkdocs.yml"), [data], jobs=jobs,
                           show_progress=False)
    assert report.built >= 6
    assert {step for step, _count in held} == {"units", "merge"}
    assert [count for step, count in held if jobs > 1 or step == "merge"] == [0] * (
        len(held) if jobs > 1 else 1)
    if jobs > 1:  # (with one, the plan is made here: its context holds them all)
        assert len(pages) == 2 and max(pages) < 40, pages  # (hand-written, the root's: 19)
        assert ids == [0, 0], ids  # (the units' members: the build process needs their count)
        assert handed == [0], handed
    work = project / ".errdocs"
    assert not [p.name for p in work.rglob(".tmp-*")]
    assert site_tree(project / "site") == cold_site(project, data, tmp_path / "fresh")
