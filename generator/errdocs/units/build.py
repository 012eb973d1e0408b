"""Build one unit: write its Markdown pages, then run MkDocs on them alone.

Each unit has a folder under the work folder (``.errdocs/units/NAME/``) holding its MkDocs
config (``mkdocs.yml``, which INHERITs the project's), the page list MkDocs is given
(``pages.json``, written before each run) and its built output ``site/``. What that output was
built from is the unit's row of the catalogue (:mod:`errdocs.units.state`): a unit whose row
has its key is up to date and is not built again. The build removes the row before a unit is
built and writes it after (:func:`built_from`); a unit build is given the row it had
(:attr:`Context.built`) and only reads it.
"""

from __future__ import annotations

import copy
import functools
import json
import os
import posixpath
import shutil
import time
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from urllib.parse import quote as urlquote

import yaml
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import File

from errdocs.catalog.entries import carried
from errdocs.catalog.lights import Light, LightsById
from errdocs.catalog.model import Catalog, Group, GroupKind
from errdocs.catalog.rows import stored_lists
from errdocs.catalog.scan import read_records
from errdocs.catalog.texts import HeldTexts, Texts
from errdocs.errors import BuildFailed, naming
from errdocs.pages.exports import record_companions
from errdocs.pages.permalinks import Addresses, api_record_file, id_file
from errdocs.pages.render import Page, render_group, render_record
from errdocs.pages.write import TEMPORARY, atomic_write, write_changed
from errdocs.project import Settings, config_data
from errdocs.records.record import Record
from errdocs.site.merge import (
    CANNOT_LINK,
    SITEMAP,
    UnitOutput,
    keep_sitemap_entries,
    record_files,
)
from errdocs.units.mkdocs_run import BuildError, run_mkdocs
from errdocs.units.plan import Unit, UnitKind, group_pages, record_groups, related_targets
from errdocs.units.state import Built

LASTMOD = "errdocs-lastmod"
HOSTED_DROPS = frozenset({"search", "material/search"})
"""Plugins a hosted unit leaves out: Material's lunr index costs 44% of a build and ~4 KB a
page (1.2 GB at 310,000 pages); the hosted site is indexed with Pagefind instead."""


class UnitFailed(BuildFailed):
    """MkDocs failed on a unit (or, with --strict, warned)."""


@dataclass(frozen=True)
class Absent:
    """Which of the generated tree's pages and data files were missing when a build walked it:
    ``path in absent``, for a path a unit holds. The fewer of the missing and the found are
    held: a cold build finds none, and a set of every path was ~31 MB at 310,000 records."""

    paths: frozenset[str] = frozenset()
    """The paths missing or, when :attr:`found`, the generated tree's paths found."""
    found: bool = False
    """Whether :attr:`paths` are those found: every other generated-tree path is missing (a
    unit's static files, named ``/path``, are not in that tree: never missing)."""
    count: int = 0
    """How many are missing."""

    def __contains__(self, path: object) -> bool:
        if self.found:
            return isinstance(path, str) and not path.startswith("/") and path not in self.paths
        return path in self.paths

    def __bool__(self) -> bool:
        return self.count > 0


NONE_ABSENT = Absent()
"""Nothing missing."""


@dataclass(frozen=True)
class Context:
    """What unit builds need. Workers get it cut down to one unit's slice (:func:`for_unit`)."""

    settings: Settings
    """Project paths."""
    work_dir: Path
    """``.errdocs`` of the project."""
    catalog: Catalog
    """Where every page goes."""
    lights: Mapping[str, Light]
    """Record id to where its line is (in a worker's slice: of the records it may render)."""
    sources: list[str]
    """Files the records are re-read from."""
    root_pages: tuple[str, ...]
    """Docs-relative paths the root unit owns (hand-written and generated)."""
    root_links: tuple[str, ...]
    """Generated-tree paths the root unit's pages link to (every group's first page), sorted:
    the catalogue's strings (held docs-relative, each was a new string: ~8 MB at 310,000
    records); the root unit prefixes them as it is staged."""
    strict: bool
    """Turn MkDocs warnings into failures."""
    global_key: str
    """Hash of what every page depends on (code, templates, config, theme, nav titles)."""
    unsettled: frozenset[str] = frozenset()
    """Generated-tree paths whose Markdown an unfinished build may have written otherwise
    (:mod:`errdocs.site.journal`): rendered and built again, never taken from before."""
    addresses: Addresses = field(default_factory=Addresses)
    """How pages are addressed (record units write each record's ``/id/`` page and JSON)."""
    changes: tuple[Page, ...] = ()
    """The "what changed" pages (rendered: a few, bounded) and, for the changes unit, ..."""
    changes_links: tuple[str, ...] = ()
    """... the generated-tree paths of the record pages they link to."""
    render_key: str = ""
    """Hash of what errdocs' rendering of a page depends on besides the page's key
    (:func:`errdocs.units.plan.render_key`); empty: render every page MkDocs builds."""
    detailed: frozenset[str] | None = None
    """Records whose page this context can render (a worker's slice holds their light copy,
    related lists and groups: :func:`for_unit`); None: every record (the whole catalogue)."""
    built: Mapping[str, Built] = field(default_factory=dict)
    """Each unit's row (what its output was built from) when this build started, read before
    the rows of the units it builds were removed (in a worker's slice: its unit's)."""
    absent: Absent = NONE_ABSENT
    """Generated-tree paths of the pages whose Markdown was missing when this build walked
    the generated tree (``errdocs.build._hand_written``): their units are built, and the
    pages written again. Empty in a worker's slice: a worker looks at its pages itself."""


@dataclass(frozen=True)
class UnitResult:
    """What building one unit did."""

    name: str
    """The unit."""
    pages: int
    """Pages it owns."""
    written: int
    """Markdown files written (content changed)."""
    seconds: float
    """Wall time of the unit."""


def unit_dir(work_dir: Path, name: str) -> Path:
    return work_dir / "units" / name


def previous(ctx: Context, unit: Unit) -> Built | None:
    """What the unit's output was built from when this build started; None when it has no
    row (built from nothing, then) or no output."""
    row = ctx.built.get(unit.name)
    if row is None or not (unit_dir(ctx.work_dir, unit.name) / "site").is_dir():
        return None
    return row


def built_from(ctx: Context, unit: Unit, searchable: int = 0) -> Built:
    """The unit's row once :func:`build_unit` built it."""
    lines = _lines(ctx, unit.members) if unit.kind is UnitKind.RECORDS else {}
    return Built(unit.key, ctx.global_key, ctx.render_key, json.dumps(dict(unit.page_keys)),
                 json.dumps(lines), searchable)


def build_unit(ctx: Context, unit: Unit) -> UnitResult:
    """Build what changed in the unit: render and write those pages, run MkDocs on them alone,
    and take every other page's HTML from the unit's previous output."""
    return finish_unit(stage_unit(ctx, unit))


@dataclass(frozen=True)
class StagedUnit:
    """A unit whose Markdown pages are written: what the rest of its build needs, without the
    context its pages were rendered from. A worker drops its slice of the catalogue then,
    before MkDocs runs: a hub unit's slice holds every entry of its groups (145,000 entries for
    one tag at 310,000 records), which MkDocs' pages would otherwise be piled on."""

    unit: Unit
    """The unit."""
    folder: Path
    """Its folder in the work folder."""
    start: float
    """When its build started (``time.perf_counter``)."""
    written: int
    """Markdown files written (content changed)."""
    config_file: Path | None = None
    """Its MkDocs config; None for a data unit (copied, no MkDocs run)."""
    strict: bool = False
    """Turn MkDocs warnings into failures."""
    owned: int = 0
    """Pages it owns (those MkDocs builds)."""
    kept: list[str] = field(default_factory=list)
    """Docs-relative paths of the pages whose HTML is taken from the previous output."""
    unwritten: set[str] = field(default_factory=set)
    """Generated-tree paths of the pages not written again (their records' companions are
    linked from the previous output)."""
    companions: dict[str, str] = field(default_factory=dict)
    """The companions of the records whose page was written (site path to text)."""
    row: Built | None = None
    """What its output was built from when this build started (:func:`previous`)."""
    before: list[str] | None = None
    """The files of that output, when it can be patched in place."""


def stage_unit(ctx: Context, unit: Unit) -> StagedUnit:
    """The first part of :func:`build_unit`: write the unit's Markdown pages that changed
    and its MkDocs config (a data unit: copy its files)."""
    start = time.perf_counter()
    folder = unit_dir(ctx.work_dir, unit.name)
    if unit.kind is UnitKind.DATA:
        _copy_data(ctx, unit, folder)
        return StagedUnit(unit, folder, start, 0)
    keys = dict(unit.page_keys)
    todo = to_render(ctx, unit)
    fresh = _to_write(ctx, unit, todo)
    reused = {p for p in keys if p not in todo}
    out = f"{ctx.settings.out_dir}/"  # strings, not paths: this runs for every page of the unit
    missing = {p for p in keys if p not in fresh and not os.path.isfile(out + p)}
    companions: dict[str, str] = {}
    written, _ = write_changed(ctx.settings.out_dir,
                               _pages(ctx, unit, fresh | missing, fresh, companions))
    sub = ctx.settings.subtree
    if unit.kind is UnitKind.ROOT:
        owned, stubs = ctx.root_pages, tuple(f"{sub}/{p}" for p in ctx.root_links)
    else:
        owned = tuple(f"{sub}/{p}" for p in sorted(todo))
        stubs = tuple(f"{sub}/{p}" for p in sorted(_links(ctx, unit, todo)))
    kept = [f"{sub}/{p}" for p in sorted(reused)]
    config_file = _write_config(ctx, unit, folder, owned, stubs, kept)
    row = previous(ctx, unit) if unit.kind is not UnitKind.ROOT else None
    return StagedUnit(unit, folder, start, written, config_file, ctx.strict, len(owned), kept,
                      {p for p in keys if p not in fresh}, companions, row,
                      _output_files(folder, row))


def finish_unit(staged: StagedUnit) -> UnitResult:
    """The rest of :func:`build_unit`: run MkDocs on the pages :func:`stage_unit` wrote, and
    take every other page's HTML from the unit's previous output."""
    unit, folder, row, before = staged.unit, staged.folder, staged.row, staged.before
    if staged.config_file is not None:
        config = _run_mkdocs(staged.config_file, unit, strict=staged.strict)
        others = _companion_files(unit, staged.unwritten) if (
            unit.kind is UnitKind.RECORDS) else []
        if row is not None and before is not None:  # only what changed goes into the output
            _write_companions(folder, staged.companions, [])
            _keep_sitemap(folder, config, staged.kept, folder / "site" / SITEMAP)
            after = {page_address(p, config.use_directory_urls)[0]
                     for p in staged.kept} | set(others)
            _patch(folder, unit.key, row.key, before, after)
        else:
            _reuse_outputs(folder, config, staged.kept)
            if unit.kind is UnitKind.RECORDS:
                _write_companions(folder, staged.companions, others)
            record_files(folder, unit.key, folder / "site.new")
            finish(folder)
    return UnitResult(unit.name, staged.owned, staged.written,
                      time.perf_counter() - staged.start)


def _output_files(folder: Path, row: Built | None) -> list[str] | None:
    """The files of the unit's output, when it is complete and listed (``row``, its row,
    names the key its file list is kept under): it can then be patched in place."""
    return None if row is None else UnitOutput("", row.key, folder).files()


def _patch(folder: Path, key: str, patched: str, before: list[str], kept: set[str]) -> None:
    """Bring the unit's output, built from ``patched``, to the version of ``key`` in place:
    each file MkDocs (or a record's companions) made in ``site.new`` replaces its namesake by
    rename, the files of ``before`` that are neither made nor ``kept`` go, the sitemap is the
    new one. Renames and unlinks never change a file's content, so the live site and the
    merge's spare tree, which link the same files, keep theirs. The unit has no row meanwhile
    (:mod:`errdocs.units.state`): a kill leaves it to be built again from nothing."""
    old, fresh = folder / "site", folder / "site.new"
    made = _walk(fresh)
    for relative in made:
        target = old / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        os.replace(fresh / relative, target)
    for name in (SITEMAP, SITEMAP + ".gz"):
        if (fresh / name).is_file():
            os.replace(fresh / name, old / name)
    files = set(made) | {f for f in before if f in kept}
    gone = [f for f in before if f not in files]
    for relative in gone:
        (old / relative).unlink(missing_ok=True)
    _prune({(old / r).parent for r in gone}, old)
    record_files(folder, key, old, names=sorted(files), rewrote=(patched, made, gone))
    shutil.rmtree(fresh)


def _walk(site: Path) -> list[str]:
    """The files below ``site`` (relative), but its sitemap."""
    return [os.path.relpath(os.path.join(d, f), site) for d, _s, files in os.walk(site)
            for f in files if not (d == str(site) and f in (SITEMAP, SITEMAP + ".gz"))]


def _prune(folders: set[Path], stop: Path) -> None:
    """Remove the folders a patch emptied, up to ``stop``."""
    for folder in sorted(folders, key=lambda p: len(p.parts), reverse=True):
        while folder != stop and folder.is_dir() and not any(folder.iterdir()):
            folder.rmdir()
            folder = folder.parent


def page_address(page: str, directory_urls: bool) -> tuple[str, str]:
    """MkDocs' ``File(page, ...).dest_uri`` and ``.url`` of a docs-relative page, by its rule
    without making a ``File``: a unit asks this of every page it keeps (~600,000 times in a
    refresh at 310,000 records, where the ``File`` objects cost 20 s). Checked against the
    engine's own ``File`` (tests/test_unit_build_cost.py)."""
    if not page.endswith(".md"):  # not a page errdocs writes: MkDocs' own rule
        file = File(page, None, "", directory_urls)
        return file.dest_uri, file.url
    parent, filename = posixpath.split(page)
    stem = filename[:-3]
    name = "index" if stem == "README" else stem
    if not directory_urls or name == "index":
        dest = posixpath.join(parent, name + ".html")
    else:
        dest = posixpath.join(parent, name, "index.html")
    folder, last = posixpath.split(dest)
    url = (folder or ".") + "/" if directory_urls and last == "index.html" else dest
    return dest, urlquote(url)


def _keep_sitemap(folder: Path, config: MkDocsConfig, pages: list[str], old: Path) -> None:
    """Add to ``site.new``'s sitemap the entries of ``old`` for ``pages`` (reused)."""
    urls = {page_address(p, config.use_directory_urls)[1] for p in pages}
    if urls:
        keep_sitemap_entries(old, folder / "site.new" / SITEMAP, urls, config.site_url or "")


def to_render(ctx: Context, unit: Unit) -> set[str]:
    """The pages a records or hub unit renders: those not built before from the same inputs
    (and the same code, config and theme), and the unsettled ones."""
    keys = dict(unit.page_keys)
    reused = _reusable(previous(ctx, unit), ctx.global_key, keys)
    return {p for p in keys if p not in reused or p in ctx.unsettled}


def changed_records(ctx: Context, units: Iterable[Unit]) -> int:
    """Records of ``units`` whose JSON line is not the one their unit was last built from
    (new records included): what a refresh found changed."""
    count = 0
    for unit in units:
        if unit.kind is UnitKind.RECORDS:
            row = ctx.built.get(unit.name)
            before = row.line_hashes() if row is not None else {}
            lines = _lines(ctx, unit.members)
            count += sum(before.get(i) != lines.get(i) for i in unit.members)
    return count


def _lines(ctx: Context, record_ids: Sequence[str]) -> dict[str, str]:
    """A short form of the hash of each record's line, in order, for the unit's row (in the
    build's main process, which reads every record's light copy: their hashes alone, a batch
    at a time)."""
    lights = ctx.lights
    assert isinstance(lights, LightsById)  # (a worker's slice holds a dict: it writes no row)
    hashes = lights.line_hashes(record_ids)
    return {i: hashes[i][:16] for i in record_ids}


def _to_write(ctx: Context, unit: Unit, todo: set[str]) -> set[str]:
    """Of the pages MkDocs builds, those errdocs renders again: all of them, but when the
    unit was built before with the same rendering (:attr:`Context.render_key`: code,
    templates, addresses), only those whose own inputs changed and the unsettled ones. The
    Markdown (and the companions) of the others are what that build wrote: a ``mkdocs.yml``
    edit converts every page again, it does not render them again."""
    row = previous(ctx, unit)
    if not ctx.render_key or row is None or row.render != ctx.render_key:
        return todo
    before = row.page_keys()
    keys = dict(unit.page_keys)
    return {p for p in todo if before.get(p) != keys[p] or p in ctx.unsettled}


def _copy_data(ctx: Context, unit: Unit, folder: Path) -> None:
    """A data unit's output: its files, linked from the generated tree or, for a member
    starting with ``/`` (a file at a site path, not in the generated subtree: the exports,
    the feed, the pages at addresses records left), from :func:`static_dir` (both written
    before units are built). A link is safe: those files are replaced, never rewritten in
    place (write.write_changed), so a later change cannot reach this output or the live site."""
    fresh = folder / "site.new"
    shutil.rmtree(fresh, ignore_errors=True)
    keys = dict(unit.page_keys)
    row = previous(ctx, unit)
    before = _output_files(folder, row)
    if row is not None and before is not None:
        # Patched in place: only the files whose content changed are linked again.
        old = row.page_keys()
        site = folder / "site"
        placed = []
        for path in unit.members:
            if old.get(path) != keys[path]:
                source, target = _data_file(ctx, path, site)
                _place(source, target, temporary=True)
                placed.append(str(target.relative_to(site)))
        now = {_data_file(ctx, p, site)[1] for p in unit.members}
        gone = [site / f for f in before if site / f not in now]
        for target in gone:
            target.unlink(missing_ok=True)
        _prune({t.parent for t in gone}, site)
        record_files(folder, unit.key, site, names=sorted(str(t.relative_to(site))
                                                          for t in now),
                     rewrote=(row.key, placed, [str(t.relative_to(site)) for t in gone]))
        return
    for path in unit.members:
        _place(*_data_file(ctx, path, fresh))
    record_files(folder, unit.key, fresh)
    finish(folder)


def _data_file(ctx: Context, path: str, site: Path) -> tuple[Path, Path]:
    """Where a data unit's member is written, and where it goes in the output ``site``."""
    if path.startswith("/"):
        return static_dir(ctx.work_dir) / path[1:], site / path[1:]
    return ctx.settings.out_dir / path, site / ctx.settings.subtree / path


def _place(source: Path, target: Path, *, temporary: bool = False) -> None:
    """Link ``source`` at ``target`` (a copy on another file system); ``temporary``: through
    a temporary name and a rename, replacing what is there without changing its content."""
    target.parent.mkdir(parents=True, exist_ok=True)
    at = target.with_name(f"{TEMPORARY}{target.name}") if temporary else target
    if temporary:
        at.unlink(missing_ok=True)
    try:
        os.link(source, at)
    except OSError as exc:
        if exc.errno not in CANNOT_LINK:
            raise
        shutil.copyfile(source, at)  # another file system
    if temporary:
        os.replace(at, target)


def static_dir(work_dir: Path) -> Path:
    """Where the static files at site paths outside the generated subtree are written."""
    return work_dir / "static"


def for_unit(ctx: Context, unit: Unit) -> tuple[Context, Unit]:
    """The context cut down to what ``unit``'s pages need, to send to a worker: its records'
    light copies and catalogue entries, the groups its pages list (hub) or link to (records,
    without their rows: a record page shows a group's label and path only), and the related
    lists (with the entries they show) of the records whose page it may render."""
    groups: dict[GroupKind, dict[str, Group]] = {kind: {} for kind in GroupKind}
    entries, lights, related = {}, {}, {}
    catalog = ctx.catalog
    detailed: set[str] | None = None
    if unit.kind is UnitKind.RECORDS:
        # A refresh renders a few pages of a unit: only their records' light copies, entries,
        # related lists (with the entries they show, ~2.5 KB a record) and groups are sent.
        # The other members' pages are in the unit's page keys: their entries, pickled one
        # by one, took 90% of a slice's pickling (0.54 s against 0.05 s for 16 units at
        # 20,000 records), in the process feeding the workers.
        render, detailed = may_render(ctx, unit), set()
        for record_id, page in member_pages(unit):
            if page not in render:
                continue
            detailed.add(record_id)
            entries[record_id] = catalog.entries[record_id]
            lights[record_id] = light = ctx.lights[record_id]
            family = catalog.family_of(light.record)
            for group in (*record_groups(light.record, catalog), *([family] if family else [])):
                groups[group.kind][group.key] = replace(group, entries=())
            # The related lists, computed here: a worker gets them, not the whole index.
            related[record_id] = lists = catalog.related(light.record)
            for other in (*lists.same_message, *lists.same_file, *lists.same_category):
                entries[other] = catalog.entries[other]
    texts: Texts = HeldTexts()
    if unit.kind is UnitKind.HUB:
        chosen = list(_groups(ctx, unit))
        stored = stored_lists([g.entries for g in chosen], catalog)
        if stored is not None:  # read by the worker, summaries too (the rows hold them)
            listed, texts = stored, catalog.texts
        else:
            listed = carried(g.entries for g in chosen)  # each entry packed once
            # The summaries its listings show (read here: the catalogue holds none).
            texts = HeldTexts(catalog.texts.summaries(listed[0].table if listed else ()))
        for group, members in zip(chosen, listed, strict=True):
            groups[group.kind][group.key] = replace(group, entries=members)
    root, changes = unit.kind is UnitKind.ROOT, unit.kind is UnitKind.CHANGES
    sliced = Catalog(entries, groups, catalog.relations.only(related), texts)
    return replace(ctx, catalog=sliced, lights=lights,
                   root_pages=ctx.root_pages if root else (),
                   root_links=ctx.root_links if root else (),
                   unsettled=frozenset(p for p in unit.page_keys.paths if p in ctx.unsettled),
                   changes=ctx.changes if changes else (),
                   changes_links=ctx.changes_links if changes else (),
                   detailed=None if detailed is None else frozenset(detailed),
                   built={unit.name: ctx.built[unit.name]} if unit.name in ctx.built
                   else {}, absent=NONE_ABSENT), unit


def member_pages(unit: Unit) -> Iterator[tuple[str, str]]:
    """Each record of a records unit with its page's generated-tree path: the unit's page
    keys are its members' pages, in their order (a worker's slice holds the entries of the
    records it renders only)."""
    return zip(unit.members, unit.page_keys.paths, strict=True)


def may_render(ctx: Context, unit: Unit) -> set[str]:
    """The pages :func:`build_unit` may render: those :func:`to_render` names and those whose
    Markdown was missing when the build walked the generated tree (a superset of what it
    renders, pages deleted since aside)."""
    # The build's walk of the generated tree, not a stat of each page: this runs in the
    # process feeding the workers, for every page of every unit built (300,000 stats, 10 s,
    # in a 1% refresh at 310,000 records). A page deleted since is found by the worker, which
    # then refuses to render it without its related lists (_check_detailed).
    todo = to_render(ctx, unit)
    return todo | {p for p in unit.page_keys.paths if p in ctx.absent} if ctx.absent else todo


def _check_detailed(ctx: Context, unit: Unit, record_id: str) -> None:
    """Fail, rather than render a page without its related lists, when a worker is asked
    for a page its slice was not made for (its Markdown went missing in between)."""
    if ctx.detailed is not None and record_id not in ctx.detailed:
        raise UnitFailed(f"unit {unit.name}: the page of record {record_id} changed while the "
                         "unit was being built; build again")


def _reusable(row: Built | None, global_key: str, keys: dict[str, str]) -> set[str]:
    """Pages built before from the same inputs (and the same code, config and theme)."""
    if row is None or row.global_key != global_key:
        return set()
    before = row.page_keys()
    return {p for p, k in keys.items() if before.get(p) == k}


def _pages(ctx: Context, unit: Unit, wanted: set[str], todo: set[str],
           companions: dict[str, str]) -> Iterable[Page]:
    """The unit's pages whose generated-tree path is in ``wanted``; for records whose page is
    in ``todo``, their ``/id/`` page and JSON go into ``companions`` (site path to text)."""
    catalog = ctx.catalog
    if unit.kind is UnitKind.RECORDS:
        pages = {i: page for i, page in member_pages(unit) if page in wanted}
        for record_id in pages:
            _check_detailed(ctx, unit, record_id)
        lights = [ctx.lights[i] for i in pages]
        for record in read_records(ctx.sources, lights):
            page = pages[record.id]
            if page in todo:
                companions.update(_companions(record, page, ctx.addresses))
            yield render_record(record, catalog)
    elif unit.kind is UnitKind.HUB:
        for group in _groups(ctx, unit):
            if any(p in wanted for p in group_pages(group)):
                yield from (p for p in render_group(group, catalog.texts) if p.path in wanted)
    elif unit.kind is UnitKind.CHANGES:
        yield from (p for p in ctx.changes if p.path in wanted)


def unit_markdown(ctx: Context, unit: Unit) -> Iterable[Page]:
    """Every Markdown page of a records, hub or changes unit, rendered as the unit renders
    them (what ``errdocs generate`` writes); nothing for the root and data units, whose files
    the build writes before any unit."""
    if unit.kind not in (UnitKind.RECORDS, UnitKind.HUB, UnitKind.CHANGES):
        return ()
    return _pages(ctx, unit, set(unit.page_keys.paths), set(), {})


def _companions(record: Record, page: str, addresses: Addresses) -> dict[str, str]:
    """A record's files beside its page: ``/id/<id>/`` (a redirect to the page) and
    ``/api/records/<id>.json``. Both depend on nothing but the record and its page's path,
    which the page's key holds: they are made and reused with the page."""
    return {file.path: file.content for file in record_companions(record, page, addresses)}


def _companion_files(unit: Unit, reused: set[str]) -> list[str]:
    """The site paths of the companions of the records whose page was reused."""
    return [path for i, page in member_pages(unit) if page in reused
            for path in (id_file(i), api_record_file(i))]


def _write_companions(folder: Path, made: dict[str, str], reused: list[str]) -> None:
    """Put the companions made into the unit's new output; link the reused ones from its
    previous output (the records and their paths did not change)."""
    old, fresh = folder / "site", folder / "site.new"
    for path, text in made.items():
        target = fresh / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, "utf-8")
    for path in reused:
        target = fresh / path
        target.parent.mkdir(parents=True, exist_ok=True)
        os.link(old / path, target)


def _groups(ctx: Context, unit: Unit) -> Iterable[Group]:
    by_kind = {kind.value: groups for kind, groups in ctx.catalog.groups.items()}
    for member in unit.members:
        kind, key = member.split(":", 1)
        yield by_kind[kind][key]


def _links(ctx: Context, unit: Unit, todo: set[str]) -> set[str]:
    """Generated-tree paths the pages being built link to."""
    catalog = ctx.catalog
    targets: set[str] = set()
    if unit.kind is UnitKind.RECORDS:
        for record_id, page in member_pages(unit):
            if page in todo:
                _check_detailed(ctx, unit, record_id)
                record = ctx.lights[record_id].record
                targets.update(g.path for g in record_groups(record, catalog))
                targets.update(related_targets(record, catalog))
    elif unit.kind is UnitKind.CHANGES:  # the records listed, and the other versions' pages
        targets.update(ctx.changes_links)
        targets.update(p for p in unit.members if p not in todo)
    else:
        for group in _groups(ctx, unit):
            pages = group_pages(group)
            if any(p in todo for p in pages):
                targets.update(e.path for e in group.entries)
                targets.update(pages)
    return targets


def _reuse_outputs(folder: Path, config: MkDocsConfig, pages: list[str]) -> None:
    """Link the earlier HTML of unchanged pages (and their sitemap entries) into site.new."""
    old, fresh = folder / "site", folder / "site.new"
    if not pages:
        return
    urls: set[str] = set()
    for path in pages:
        dest, url = page_address(path, config.use_directory_urls)
        target = fresh / dest
        target.parent.mkdir(parents=True, exist_ok=True)
        os.link(old / dest, target)
        urls.add(url)
    keep_sitemap_entries(old / SITEMAP, fresh / SITEMAP, urls, config.site_url or "")


def finish(folder: Path) -> None:
    """Replace the unit's output with the new one (``site.new``). The unit has no row
    meanwhile (:mod:`errdocs.units.state`): a kill leaves it to be built again."""
    fresh, final = folder / "site.new", folder / "site"
    if final.exists():
        shutil.rmtree(final)  # what fails here is said, not a later "Directory not empty"
    os.replace(fresh, final)


def _write_config(ctx: Context, unit: Unit, folder: Path, owned: Iterable[str],
                  stubs: Iterable[str], kept: Iterable[str]) -> Path:
    """The unit's mkdocs.yml (INHERITs the project's) and page list: ``owned`` pages are
    built, ``stubs`` only linked to, ``kept`` pages keep their earlier HTML."""
    folder.mkdir(parents=True, exist_ok=True)
    empty = ctx.work_dir / "empty-docs"
    empty.mkdir(exist_ok=True)
    pages = folder / "pages.json"
    atomic_write(pages, json.dumps({
        "docs_dir": str(ctx.settings.docs_dir), "owned": list(owned), "stubs": list(stubs),
        "kept": list(kept), "root": unit.kind is UnitKind.ROOT,
        "template_cache": str(ctx.work_dir / "templates"),
        "bodies": str(folder / "bodies.sqlite"),
    }).encode("utf-8"))
    base = base_config(ctx.settings.config_file)
    profile = ctx.settings.profile
    plugins = [_unit_dates(p, folder) for p in _plugin_list(base.get("plugins"))
               if _plugin_name(p) not in HOSTED_DROPS | profile.dropped]
    config: dict[str, object] = {
        "INHERIT": str(ctx.settings.config_file),
        "docs_dir": str(empty),
        "site_dir": str(folder / "site.new"),
        "plugins": [*plugins, {"errdocs-unit": {"pages": str(pages)}}],
    }
    if not profile.site_url:
        config["site_url"] = ""
    elif ctx.settings.site_url:
        config["site_url"] = ctx.settings.site_url
    theme = base.get("theme")
    if isinstance(theme, dict) and theme.get("custom_dir"):
        # Relative paths resolve against the config that names them: make them absolute.
        config["theme"] = {"custom_dir": str(ctx.settings.project_dir / str(theme["custom_dir"]))}
    hooks = base.get("hooks")
    if isinstance(hooks, list):
        config["hooks"] = [str(ctx.settings.project_dir / str(h)) for h in hooks]
    config_file = folder / "mkdocs.yml"
    atomic_write(config_file, yaml.safe_dump(config, sort_keys=False).encode("utf-8"))
    return config_file


def _unit_dates(entry: object, folder: Path) -> object:
    """``errdocs-lastmod`` of a unit: the dates of its own pages, in its folder (units are
    built at once), and of the pages that moved into it (see :func:`unit_dates`)."""
    if _plugin_name(entry) != LASTMOD:
        return entry
    own, moved = unit_dates(folder)
    return {LASTMOD: {**_options(entry), "state_file": str(own), "base_state": str(moved)}}


def unit_dates(folder: Path) -> tuple[Path, Path]:
    """A unit's sitemap dates: of its pages (written by each build of the unit), and of pages
    that were in other units before (written by :func:`errdocs.build` when they move)."""
    return folder / ".errdocs" / "lastmod.json", folder / ".errdocs" / "moved-in.json"


def dates_enabled(settings: Settings) -> bool:
    """True when the project's config has ``errdocs-lastmod``."""
    return any(_plugin_name(e) == LASTMOD
               for e in _plugin_list(base_config(settings.config_file).get("plugins")))


def unit_pages(ctx: Context, unit: Unit) -> list[str]:
    """Docs-relative paths of every page a MkDocs unit owns."""
    if unit.kind is UnitKind.ROOT:
        return list(ctx.root_pages)
    return [f"{ctx.settings.subtree}/{p}" for p in unit.page_keys.paths]


def _options(entry: object) -> dict[str, object]:
    value = entry.get(LASTMOD) if isinstance(entry, dict) else None
    return dict(value) if isinstance(value, dict) else {}


def base_config(config_file: Path) -> dict[str, object]:
    """The top level of the project's mkdocs.yml (MkDocs' own tags such as !ENV read as null).

    A copy, parsed once per content: every unit reads it, and PyYAML took ~10 ms a parse
    (10 s of a 310,000-record refresh's 976 units)."""
    return copy.deepcopy(_parsed_config(str(config_file), config_file.read_bytes()))


@functools.lru_cache(maxsize=4)
def _parsed_config(_path: str, _text: bytes) -> dict[str, object]:
    """The top level of the file whose bytes are ``_text`` (the cache's key: an edited file
    is parsed again)."""
    return config_data(Path(_path), _text)


def _plugin_list(value: object) -> list[object]:
    if isinstance(value, dict):
        return [{k: v} if v else k for k, v in value.items()]
    return list(value) if isinstance(value, list) else []


def _plugin_name(entry: object) -> str:
    return next(iter(entry)) if isinstance(entry, dict) else str(entry)


def _run_mkdocs(config_file: Path, unit: Unit, *, strict: bool) -> MkDocsConfig:
    """Build the unit into its ``site.new`` folder (the unit config's site_dir)."""
    folder = config_file.parent
    shutil.rmtree(folder / "site.new", ignore_errors=True)
    try:
        with naming(folder / "site.new"):  # what MkDocs fails to write, it does not name
            return run_mkdocs(config_file, None, strict=strict)
    except BuildError as exc:
        shutil.rmtree(folder / "site.new", ignore_errors=True)
        raise UnitFailed(f"unit {unit.name}: {exc}") from exc
