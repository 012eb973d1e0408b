"""The sharded build: scan → plan units → build the changed ones in parallel → merge.

Plain functions the CLI calls. See README ("Big datasets") for the flow and how to spread
``--shard I/N`` runs over machines.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import pickle
import re
import shutil
import sqlite3
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, replace
from functools import cache, partial
from pathlib import Path
from typing import Protocol, cast

from errdocs.catalog.history import (
    DEFAULT_KEEP,
    History,
    HistoryError,
    RecordedHistory,
    Snapshot,
    dataset_version,
)
from errdocs.catalog.lights import Lights
from errdocs.catalog.memo import (
    CATALOG,
    HOME,
    INDEX_PAGES,
    MODEL,
    ROOT_PAGES,
    UNITS,
    Earlier,
    Memo,
    earlier_model,
    home_data,
    home_from,
    keep_lines,
    kept_entries,
    keys_data,
    keys_from,
    lines_key,
    model_key,
    previous_units,
    units_data_of,
    units_from_data,
    units_key,
)
from errdocs.catalog.model import Catalog, GroupKind, build_catalog
from errdocs.catalog.scan import scan
from errdocs.catalog.texts import LightTexts
from errdocs.collector import give_back, objects_spared, spare_existing
from errdocs.errors import ErrdocsError, InputError, naming, os_failure, sqlite_failure
from errdocs.pages.changes import (
    CHANGES_INDEX,
    FEED_FILE,
    changes_pages,
    feed,
    left_pages,
    resolve_data,
    seen,
    version_time,
)
from errdocs.pages.exports import SCHEMA_FILE, IndexEntry, index_files, schema_text
from errdocs.pages.permalinks import ID_FOLDER, Addresses
from errdocs.pages.render import Page, recent_entries, render_home_fragment
from errdocs.pages.render import root_pages as render_root_pages
from errdocs.pages.write import (
    MANIFEST,
    TEMPORARY,
    SortedPaths,
    Staged,
    claim,
    claim_beyond,
    drop_stale,
    remove_temporaries,
    update_manifest,
    write_changed,
)
from errdocs.plugins.unit import nav_paths
from errdocs.project import Settings, check_site_url
from errdocs.records.problems import Problem, Severity
from errdocs.search.boxdata import BOXES, FILTERS, BoxData, box_data, filter_files
from errdocs.search.boxdata import forget as forget_box_data
from errdocs.search.boxdata import keep as keep_box_data
from errdocs.search.units import build_search_unit, plan_search, searchable_pages
from errdocs.site import edits, journal
from errdocs.site.folders import Ahead, read_ahead
from errdocs.site.intact import live_intact
from errdocs.site.lastmod import carry
from errdocs.site.lock import project_lock
from errdocs.site.merge import MergeError, UnitOutput, merge
from errdocs.site.owner import check_site_dir
from errdocs.site.state import site_folder
from errdocs.units import scratch, settled
from errdocs.units.build import (
    NONE_ABSENT,
    Absent,
    Context,
    UnitResult,
    base_config,
    built_from,
    changed_records,
    dates_enabled,
    static_dir,
    to_render,
    unit_dates,
    unit_dir,
    unit_markdown,
    unit_pages,
)
from errdocs.units.child import Asking, in_child
from errdocs.units.keys import NO_KEYS, PathKeys
from errdocs.units.plan import (
    ROOT,
    FileKey,
    Unit,
    UnitKind,
    data_units,
    file_keys,
    files_key,
    from_history,
    global_key,
    group_pages,
    page_units,
    plan,
    render_key,
    shared_strings,
    stable_hash,
    units_for,
)
from errdocs.units.progress import Progress, announce, wanted
from errdocs.units.state import Built, adopt, current, hand_off
from errdocs.units.state import forget as forget_rows
from errdocs.units.state import keep as keep_row
from errdocs.units.state import read as read_rows
from errdocs.units.workers import Workers, spill, taken_row, write_row

_H1 = re.compile(rb"^# .*$", re.MULTILINE)
_DATED = (UnitKind.ROOT, UnitKind.HUB, UnitKind.RECORDS, UnitKind.CHANGES)
"""Units MkDocs builds, whose pages have sitemap dates."""
_OBSOLETE = frozenset({"scan-cache.pickle", "scan-cache.pickle.new", "lookup-memo.pickle",
                       journal.OBSOLETE})
"""What earlier errdocs kept in the work folder, now in the catalogue (``catalog.sqlite``)."""
_WRITTEN = (UnitKind.RECORDS, UnitKind.HUB, UnitKind.CHANGES)
"""Units that write their pages' Markdown (the root's is written before any unit)."""
ROW_BATCH = 1.0
"""Seconds the rows of the units built meanwhile wait, to be written in one commit: a commit
took ~10 ms at load 5.6, one a unit ~2.6 s of a 1% refresh of 100,000 records (256 record
units). The first unit's row (the root's, which ``errdocs serve`` shows first) is written at
once; a kill loses at most this long's rows (those units are built again)."""


@dataclass(frozen=True)
class Slice:
    """``--shard I/N``: build only every N-th unit, starting at the I-th (1-based)."""

    index: int
    """I, from 1 to N."""
    count: int
    """N."""

    def __contains__(self, position: int) -> bool:
        return position % self.count == self.index - 1


@dataclass(frozen=True)
class ShardedReport:
    """What a sharded build did."""

    records: int
    """Good records."""
    problems: list[Problem]
    """Everything wrong with the input."""
    units: int
    """Units in the plan."""
    built: int
    """Units built this run."""
    reused: int
    """Units whose earlier output was reused (their inputs did not change)."""
    pages_built: int
    """Pages MkDocs built (in built units, only the pages whose inputs changed)."""
    written: int
    """Markdown files written (content changed)."""
    removed: int
    """Stale Markdown files removed."""
    merged: bool
    """True when the site was assembled."""
    searchable: int | None = None
    """Pages in the site's search index (when the site was assembled)."""
    unchanged: int = 0
    """Generated files left as they were (not rewritten; in reused units, not even made)."""
    lookup_problems: tuple[Problem, ...] = ()
    """Record patterns the paste box's lookup could not use."""
    unconverted: int = 0
    """Patterns with no JavaScript form or too slow there (the paste box matches those by
    template)."""
    notes: tuple[str, ...] = ()
    """Warnings about what failed once the site was in place (the site stands)."""

    @property
    def errors(self) -> list[Problem]:
        return [p for p in self.problems if p.severity is Severity.ERROR]


Chooser = Callable[[Lights], Lights]
"""Picks the records a build makes pages for from those read (may raise to refuse)."""


class UnitWatch(Protocol):
    """Told, as a build learns it, which units' outputs are complete and current: ``errdocs
    serve`` answers from them before the site is assembled (:mod:`errdocs.site.preview`)."""

    def planned(self, units: int) -> None:
        """The plan has ``units`` units; every output told before is no longer known good."""

    def ready(self, unit: UnitOutput) -> None:
        """``unit``'s output is complete and built from the plan's key (its row is
        written): it was current already, or a worker just built it."""


class StrictProblems(InputError):
    """--strict and the input has problems: nothing was built."""


@dataclass(frozen=True)
class _Prepared:
    """Pass 1 and the plan."""

    ctx: Context
    units: list[Unit]
    generated: int
    """How many files errdocs makes in the generated tree (their paths are not kept: ~760,000
    at 310,000 records)."""
    stale: frozenset[str]
    """What the manifest lists beyond those files: deleted once the units are built."""
    absent: Absent
    """Generated pages missing from the generated tree (deleted by hand): their units are
    built again, which writes them."""
    problems: list[Problem]
    records: int
    written: int
    lookup_problems: tuple[Problem, ...]
    unconverted: int
    watched: frozenset[str] = frozenset()
    """What the settled row watches the stat of (docs-relative): every folder holding a
    generated file, and the pages a build rewrites whenever they differ (the root's
    generated pages) (:func:`settled.generated_outputs`)."""
    edited: frozenset[str] = frozenset()
    """Generated pages written into since the last build of the whole plan (by hand): their
    units are built, and the pages rendered and written again."""


def build_sharded(settings: Settings, paths: Iterable[Path], *, jobs: int, strict: bool = False,
                  selection: Slice | None = None, merge_only: bool = False,
                  show_progress: bool = True, full_text: bool = False,
                  keep_versions: int = DEFAULT_KEEP,
                  reset_history: bool = False, choose: Chooser | None = None,
                  watch: UnitWatch | None = None) -> ShardedReport:
    """Build the site unit by unit; rebuild only units whose inputs changed. ``full_text``
    also indexes the records' whole text with Pagefind (``site/pagefind/``). The history
    (what each dataset version changed; see :mod:`errdocs.catalog.history`) keeps ``keep_versions``
    versions and is kept only once the site is in place; ``reset_history`` starts it anew.
    ``choose`` picks the records to build from the good ones read (the bundle's subsets).
    ``watch`` is told the plan and each unit whose output is ready (current or just built).

    Every step that can fail comes before the merge's swap, the one step that changes the
    site: a failure or a kill anywhere leaves the previous site, and the next build (of any
    data) gives what a cold build gives.
    """
    work = settings.work_dir
    if selection is None:  # the site will be replaced: refuse a folder errdocs did not make
        check_site_dir(settings, work)
    paths = list(paths)
    # Only a plain build of the whole site may be taken from the settled row or write one.
    whole = selection is None and not merge_only and choose is None and watch is None
    # Workers forked first, while this process holds no records (see parallel.Workers), and
    # before the lock is taken, so no worker shares it; naming: the folder of a failed write
    # that names no file.
    with naming(settings.project_dir), Workers(1 if merge_only else jobs) as workers, \
            project_lock(work):
        _clean_leftovers(work)  # under the lock: no other build is using them
        options = f"{full_text} {keep_versions} {strict}"
        sources = _sources(settings, paths, options) if whole else None
        row = None if reset_history else _settled_row(work, sources)
        # Files of the site written into since it was made are looked for meanwhile: they
        # are errdocs' own copies too, so the units holding them are built again before
        # any unit is (or the settled row is taken), and the merge lists their folders.
        # A build that may take the row waits for nothing else: the look runs on threads
        # then; one that reads the records hides it behind the scan, and leaves it the cores.
        with edits.looking(work, settings.site_dir if selection is None else None,
                           workers.call, 1 if row is None else edits.LOOK_THREADS) as look:
            walk = _Walk(settings, workers.call)  # so is the docs folder, in the other worker
            try:
                done = None if row is None else _take_settled(settings, row, strict,
                                                              show_progress, look, walk)
                if done is not None:
                    return done
                return _build_all(settings, paths, jobs=jobs, strict=strict,
                                  selection=selection, merge_only=merge_only,
                                  show_progress=show_progress, full_text=full_text,
                                  keep_versions=keep_versions, reset_history=reset_history,
                                  choose=choose, watch=watch, workers=workers, look=look,
                                  walk=walk,
                                  settle=None if sources is None else (options, sources))
            finally:
                walk.discard()


def _build_all(settings: Settings, paths: list[Path], *, jobs: int, strict: bool,
               selection: Slice | None, merge_only: bool, show_progress: bool,
               full_text: bool, keep_versions: int, reset_history: bool,
               choose: Chooser | None, watch: UnitWatch | None, workers: Workers,
               look: edits.Looking, walk: _Walk,
               settle: tuple[str, settled.Sources] | None) -> ShardedReport:
    """:func:`build_sharded` when the settled row was not taken; ``look``: the live site's
    files written into by hand; ``walk``: the docs folder's; ``settle``: the options and the
    sources key as the build started, to write the row with once the site is in place (None:
    this build may not write one)."""
    work = settings.work_dir
    plan = partial(_plan, settings, paths, strict, selection, merge_only, show_progress,
                   full_text, choose)
    with contextlib.ExitStack() as stack:
        stack.enter_context(objects_spared())
        # With workers to build the units, the plan is made in a child process that ends
        # before they start: what it held goes with it (the catalogue and the records, ~900
        # MB at 310,000 records). The search pieces of the full text read the catalogue.
        if jobs > 1 and not full_text and not merge_only:
            plan_made = partial(_planned_in_child, plan, settings, keep_versions,
                                reset_history, selection is None, walk, look)
            keep = partial(_keep_recorded, settings, keep_versions, reset_history)
        else:
            past = stack.enter_context(History(site_folder(work, settings.site_dir),
                                               keep_versions, reset=reset_history))
            plan_made = partial(plan, past, walk.take, look.put_right)
            keep = partial(_keep_history, past)
        # (Made there, the plan is held by nothing here: the merge drops what it holds.)
        return _units_and_site(settings, paths, plan_made, selection, show_progress,
                               full_text, watch, workers, look, settle, keep)


@dataclass(frozen=True)
class _Planned:
    """What a build goes on with once the plan is made (:func:`_plan`)."""

    prepared: _Prepared
    """The preparation."""
    ctx: Context
    """What the units build from (the rows as the build found them)."""
    chosen: list[Unit]
    """The units of this build (of its slice, with ``--shard``)."""
    dirty: list[Unit]
    """Those to build."""
    pending: journal.Journal
    """The pages the units to build may write (:mod:`errdocs.site.journal`)."""
    elsewhere: Path | None = None
    """A plan made in a child process (:func:`_planned_elsewhere`): the work folder's file of
    the writes of its history update (:func:`_keep_recorded`); each unit to build has its slice
    and its row in its folder. None: made here (the context holds the catalogue)."""


def _plan(settings: Settings, paths: list[Path], strict: bool, selection: Slice | None,
          merge_only: bool, show_progress: bool, full_text: bool, choose: Chooser | None,
          past: History, docs: Callable[[], _Docs], put_right: Callable[[], object]
          ) -> _Planned:
    """Prepare (:func:`_prepare`), find the units to build and list the pages they may
    write in the journal. ``docs``: the docs folder's walk; ``put_right``: undo what was
    written into the live site's files (before the units' rows are read)."""
    work = settings.work_dir
    prepared = _prepare(settings, paths, strict, full_text, past, docs, choose)
    give_back()  # what the preparation dropped: this process waits while units build
    units = prepared.units
    # Slices leave the units made from the history to the merge (from_history).
    chosen = [u for i, u in enumerate(units) if selection is None
              or (i in selection and not from_history(u))]
    pending = journal.read(work)
    put_right()
    ctx, dirty = _to_build(prepared.ctx, [u for u in units if from_history(u)]
                           if merge_only else chosen, pending, prepared.absent,
                           prepared.edited)
    todo = {u.name: to_render(ctx, u) for u in dirty  # once a unit: it decodes its row
            if u.kind in _WRITTEN}
    announce(changed_records(ctx, dirty), sum(len(t) for t in todo.values())
             + sum(len(ctx.root_pages) for u in dirty if u.kind is UnitKind.ROOT),
             len(dirty), len(units), enabled=show_progress)
    _carry_dates(settings, prepared, dirty)
    pending = journal.record(work, pending, _writes(dirty, todo))  # before any unit writes
    del todo  # (every page of a cold build: not held while the units build)
    _invalidate(work, dirty, units)
    return _Planned(prepared, ctx, chosen, dirty, pending)


def _writes(units: list[Unit], todo: dict[str, set[str]]) -> Iterator[tuple[str, str]]:
    """The pages ``units`` may write with their keys, those of ``todo`` (by unit): each
    unit's set of them is let go once its pages are read (every page of a cold build, held
    beside the journal made of them, at the plan's peak)."""
    for unit in units:
        wanted = todo.pop(unit.name, None)
        if wanted is not None:
            yield from ((page, key) for page, key in unit.page_keys if page in wanted)


PLAN = f"{TEMPORARY}plan"
"""The work folder's file a child process hands its plan in (:func:`_planned_elsewhere`)."""
WRITES = f"{TEMPORARY}history"
"""The work folder's file of the writes its history update made (:func:`_keep_recorded`)."""


_Plan = Callable[[History, Callable[[], "_Docs"], Callable[[], object]], _Planned]
""":func:`_plan` with all but its last three arguments given."""


def _planned_elsewhere(asking: Asking, plan: _Plan, settings: Settings, keep_versions: int,
                       reset_history: bool, whole: bool) -> Path:
    """In the child of :func:`in_child`: :func:`_plan`, then each unit's slice and row in its
    folder, and what the build process needs of the plan (:func:`_kept_of`; ``whole``: a
    build of the whole plan) in the work folder's :data:`PLAN` file; its path. The walk and
    the look are the build process's."""
    work = settings.work_dir
    written = [work / WRITES, work / PLAN]
    try:
        with RecordedHistory(site_folder(work, settings.site_dir), keep_versions,
                             reset=reset_history, to=work / WRITES) as past:
            planned = plan(past, lambda: asking("docs"), lambda: asking("put_right"))
        for unit in planned.dirty:
            spill(planned.ctx, unit, written)
            write_row(planned.ctx, unit, built_from(planned.ctx, unit), written)
        with open(work / PLAN, "wb") as file:
            pickle.dump(_kept_of(planned, whole), file, pickle.HIGHEST_PROTOCOL)
    except BaseException:  # a failed build leaves none of its own files
        for path in written:
            path.unlink(missing_ok=True)
        raise
    return work / PLAN


def _kept_of(planned: _Planned, whole: bool) -> _Planned:
    """What the build process needs of a plan made in a child process, whose units have
    their slices and rows written: not the catalogue nor the records; nor, for a build of the
    whole plan (``whole``), the units' page keys (the merge needs their names and keys) or
    the pages found absent (each of these is every page in a cold build: ~430,000 at 310,000
    records), nor the units' members."""
    bare = _records_dropped(planned.prepared)
    if not whole:
        return replace(planned, prepared=bare, elsewhere=bare.ctx.work_dir / WRITES,
                       ctx=replace(planned.ctx, catalog=bare.ctx.catalog, lights={}))
    # Nor their members (a record id each: 310,000 at 310,000 records): the build process
    # orders the units by how many they have (workers.run), kept as one string shared.
    units = {u.name: replace(u, page_keys=NO_KEYS, members=("",) * len(u.members))
             for u in bare.units}
    return _Planned(replace(bare, units=list(units.values())),
                    bare.ctx, [units[u.name] for u in planned.chosen],
                    [units[u.name] for u in planned.dirty], planned.pending,
                    bare.ctx.work_dir / WRITES)


def _planned_in_child(plan: _Plan, settings: Settings, keep_versions: int,
                      reset_history: bool, whole: bool, walk: _Walk, look: edits.Looking
                      ) -> _Planned:
    """The plan made in a child process (:func:`_planned_elsewhere`), which asks this one
    for the walk of the docs folder and to put right the site's files written into."""
    look.threads_done()
    path = in_child(_planned_elsewhere, (plan, settings, keep_versions, reset_history, whole),
                    {"docs": walk.take, "put_right": look.put_right})
    with open(path, "rb") as file:
        path.unlink()
        return cast(_Planned, pickle.load(file))


def _units_and_site(settings: Settings, paths: list[Path], plan_made: Callable[[], _Planned],
                    selection: Slice | None, show_progress: bool, full_text: bool,
                    watch: UnitWatch | None, workers: Workers, look: edits.Looking,
                    settle: tuple[str, settled.Sources] | None,
                    keep: Callable[[], tuple[str, ...]]) -> ShardedReport:
    """Make the plan (``plan_made``), build its units, merge the site, keep the history
    (``keep``)."""
    work = settings.work_dir
    planned = plan_made()
    prepared, ctx, chosen, dirty = planned.prepared, planned.ctx, planned.chosen, planned.dirty
    units = prepared.units
    # Started now the scan has read the inputs; waited for as the row is written.
    as_read = settled.bytes_as_read(work, settle[1]) if settle else lambda: False
    ready = _watching(work, watch, units, chosen, dirty)
    # The merge's first step, the spare tree's folder stats, needs nothing the units
    # make: it runs while they build (the main process only waits for them then).
    with read_ahead(work, settings.site_dir, selection is None) as ahead:
        results = _build(ctx, dirty, workers, show_progress, ready,
                         spilled=planned.elsewhere is not None)
        removed, searchable = 0, None
        if selection is None:
            removed = drop_stale(settings.out_dir, prepared.stale)
        journal.settle(work, planned.pending, None if selection is None else chosen)
        if selection is None:
            if not full_text:  # (the search pieces read them: built in _assemble)
                del ctx, planned  # the merge reads neither the records nor the catalogue
                prepared = _records_dropped(prepared)
            searchable, merged = _assemble(settings, prepared, show_progress, full_text,
                                           ahead)
    notes = look.notes()
    if selection is None:
        # Every file of the generated tree is as this build left it (a failure to say so
        # only makes the next build render the pages written since again).
        with contextlib.suppress(OSError, ErrdocsError):
            edits.seal_generated(work)
        # The site is in place (a slice's history is the merge's business).
        kept = keep()
        notes += kept
        if not kept and settle is not None:
            _settle(settings, paths, settle, prepared, merged, searchable, as_read)
    else:  # the slice's units leave this machine without the catalogue
        hand_off(work, (u.name for u in chosen))
    written = prepared.written + sum(r.written for r in results)
    return ShardedReport(
        prepared.records, prepared.problems, len(units), len(dirty), len(chosen) - len(dirty),
        sum(r.pages for r in results), written, removed, selection is None, searchable,
        max(0, prepared.generated - written), prepared.lookup_problems,
        prepared.unconverted, notes)


def _records_dropped(prepared: _Prepared) -> _Prepared:
    """``prepared`` without the records' light copies and the catalogue, once every unit is
    built: the merge's own memory (~150 MB at 310,000 records) then reuses some of theirs
    (30 MB less at the build process's peak). Nor the units' lists of pages (every group's
    page, every record page the "what changed" pages link to, the pages found missing: all of
    them in a cold build; the pages of an unfinished build, each unit's row), which only the
    plan and the units read."""
    bare = Catalog({}, {kind: {} for kind in GroupKind})
    return replace(prepared, absent=NONE_ABSENT, ctx=replace(
        prepared.ctx, catalog=bare, lights={}, root_links=(), changes=(), changes_links=(),
        unsettled=frozenset(), built={}, absent=NONE_ABSENT))


def _keep_history(past: History) -> tuple[str, ...]:
    """Commit the history once the new site is in place. Failing now (a full disk) cannot
    undo the site: it is said, and the build stands, its history not kept; the next build
    compares its records with the previous version's again, which gives the same pages."""
    try:
        past.commit()
    except (OSError, ErrdocsError) as exc:
        return _history_not_kept(exc)
    return ()


def _keep_recorded(settings: Settings, keep_versions: int, reset: bool) -> tuple[str, ...]:
    """:func:`_keep_history` for a plan made in a child process: the writes of its history
    update, as the child wrote them down (:class:`RecordedHistory`), made again here and
    kept."""
    work = settings.work_dir
    try:
        with History(site_folder(work, settings.site_dir), keep_versions,
                     reset=reset) as past:
            try:
                past.replay(work / WRITES)
            except sqlite3.Error as exc:
                raise sqlite_failure(exc, past.path) or HistoryError(
                    f"{past.path}: {exc}") from exc
            return _keep_history(past)
    except (OSError, ErrdocsError) as exc:
        return _history_not_kept(exc)
    finally:
        (work / WRITES).unlink(missing_ok=True)


def _history_not_kept(exc: OSError | ErrdocsError) -> tuple[str, ...]:
    line = os_failure(exc) if isinstance(exc, OSError) else str(exc)
    return (f"Warning: {line}; the site was built, but its history was not kept: the next "
            "build compares the records with the previous version's again",)


def generate_tree(settings: Settings, paths: Iterable[Path], *, strict: bool = False,
                  keep_versions: int = DEFAULT_KEEP) -> ShardedReport:
    """Write the whole generated tree (``docs/errors/``: every page and the data files) as a
    build writes it, and build nothing: plain ``mkdocs build`` then makes the site's pages.

    The same steps as :func:`build_sharded` up to the plan, then every unit's Markdown,
    rendered in this process. The pages of units that are not current are listed in the
    journal first, as a build does before its units write: the next build renders them
    again even if it is given other data. The history is read, never kept (no site moved).
    """
    work = settings.work_dir
    with naming(settings.project_dir), project_lock(work), History(
            site_folder(work, settings.site_dir), keep_versions) as past:
        _clean_leftovers(work)
        prepared = _prepare(settings, paths, strict, False, past, _Walk(settings).take)
        pending = journal.read(work)
        ctx, dirty = _to_build(prepared.ctx, prepared.units, pending, prepared.absent,
                               prepared.edited)
        journal.record(work, pending, ((page, key) for unit in dirty if unit.kind in _WRITTEN
                                       for page, key in unit.page_keys))
        written = prepared.written
        for unit in prepared.units:
            written += write_changed(settings.out_dir, unit_markdown(ctx, unit))[0]
        removed = drop_stale(settings.out_dir, prepared.stale)
        with contextlib.suppress(OSError, ErrdocsError):  # every page written as it differed
            edits.seal_generated(work)
    return ShardedReport(
        prepared.records, prepared.problems, len(prepared.units), 0, 0, 0, written, removed,
        False, None, max(0, prepared.generated - written), prepared.lookup_problems,
        prepared.unconverted)


def _to_build(ctx: Context, chosen: list[Unit], pending: journal.Journal,
              absent: Absent, edited: frozenset[str]) -> tuple[Context, list[Unit]]:
    """The units to build: those not current, those holding pages an unfinished build may
    have rewritten or somebody wrote into (``edited``; the context then names them, so they
    are rendered again), and those whose Markdown pages are missing from the generated tree."""
    dirty, unsettled = [], set()
    work = ctx.work_dir
    rows = read_rows(work)
    for unit in chosen:
        redo = journal.unsettled(pending, unit)
        if edited and unit.kind in _WRITTEN:  # (the others' pages are written as they differ)
            redo = redo | {page for page in unit.page_keys.paths if page in edited}
        if redo or not current(work, rows, unit.name, unit.key) or (
                absent and any(page in absent for page in unit.page_keys.paths)):
            dirty.append(unit)
            unsettled |= redo
    built = read_rows(work, {u.name for u in dirty})  # what their outputs were built from
    return replace(ctx, unsettled=frozenset(unsettled), absent=absent,
                   built={u.name: built[u.name] for u in dirty if u.name in built}), dirty


def _clean_leftovers(work: Path) -> None:
    """Remove what killed builds left in the work folder: only files and folders errdocs
    names itself (temporary files, unit outputs being made, dead bundles' folders, the caches
    of earlier versions). Staging
    trees are the merge's to clear (``sitestate.Place.clear``); temporary pages in the
    generated tree go on ``_hand_written``'s walk."""
    if not work.is_dir():
        return
    scratch.remove_dead(work)
    folders = [work, work / "templates", *(work / "units").glob("*/"),
               *(work / "units").glob("*/.errdocs/")]
    for folder in folders:
        for child in folder.iterdir() if folder.is_dir() else ():
            name = child.name
            if name == "site.new" and folder.parent.name == "units" and child.is_dir():
                shutil.rmtree(child)
            elif child.is_file() and (name.startswith(TEMPORARY) or name.endswith(".tmp")
                                      or (folder == work and name in _OBSOLETE)):
                child.unlink()
    adopt(work)  # the units' stamp.json (a slice's, or an earlier errdocs'): now rows


def _assemble(settings: Settings, prepared: _Prepared, show_progress: bool,
              full_text: bool, ahead: Ahead | None) -> tuple[int | None, list[Unit]]:
    """Check every unit is current, index the search pieces that changed (``full_text``
    only), merge the site (``ahead``: the spare tree's folder stats, read meanwhile). The
    pages in the full-text index, and the units merged."""
    ctx, units = prepared.ctx, prepared.units
    work = ctx.work_dir
    rows = read_rows(work)
    stale = [u.name for u in units if not current(work, rows, u.name, u.key)]
    if stale:
        more = f" and {len(stale) - 5} more" if len(stale) > 5 else ""
        raise MergeError(f"{len(stale)} units are missing or were built from other inputs "
                         f"({', '.join(stale[:5])}{more}); build them first")
    record_units = units_for(prepared.records)
    search = plan_search(units, record_units, ctx.global_key) if full_text else []
    todo = [u for u in search if not current(work, rows, u.name, u.key)]
    progress = Progress("search pieces", len(todo), enabled=show_progress and wanted())
    forget_rows(work, (u.name for u in todo))  # before their outputs are touched
    for unit in todo:
        count = build_search_unit(ctx, unit, len(search)).pages
        rows[unit.name] = built_from(ctx, unit, searchable=count)
        keep_row(work, {unit.name: rows[unit.name]})
        progress.step(count)
    progress.close()
    everything = units + search
    merge([UnitOutput(u.name, u.key, unit_dir(work, u.name)) for u in everything],
          settings.site_dir, work, ahead)
    _prune_units(work, {u.name for u in everything})
    return searchable_pages(rows, search) if full_text else None, everything


def _sources(settings: Settings, paths: list[Path], options: str) -> settled.Sources | None:
    """The settled row's sources key (:func:`settled.sources_key`); None when a hand-written
    file's stat cannot be trusted (the build then neither takes nor writes a row)."""
    # The settings' paths (the profile and site address are in the global key; a repr of
    # its frozenset would change order between runs).
    places = (settings.config_file, settings.docs_dir, settings.site_dir, settings.subtree)
    extra = "\0".join([_global_key(settings), options, *map(str, places),
                        os.environ.get("SOURCE_DATE_EPOCH", "")])
    try:
        return settled.sources_key(settings.docs_dir, settings.subtree, paths, extra)
    except settled.Racy:
        return None


def _settled_row(work: Path, sources: settled.Sources | None) -> settled.Settled | None:
    """The settled row when it is of these sources (all trusted): the build may take it
    (:func:`_take_settled` checks the rest)."""
    if sources is None or sources.racy:
        return None
    row = settled.read(work)
    return row if row is not None and row.sources == sources.key else None


def _take_settled(settings: Settings, row: settled.Settled, strict: bool,
                  show_progress: bool, look: edits.Looking, walk: _Walk
                  ) -> ShardedReport | None:
    """When nothing else changed since the build that wrote ``row`` (the settled row, of this
    build's sources: :func:`_settled_row`): merge its units
    (which puts back a page of the site deleted, added or replaced by hand, or written into:
    ``look``), unless the live site is still the one they make (:mod:`errdocs.site.intact`),
    and say what it said. None: build."""
    work = settings.work_dir
    if ((strict and row.outcome.problems)
            or not settled.outputs_unchanged(settings.docs_dir, row.outputs)
            or walk.edited()):
        return None
    look.put_right()  # a unit holding a file written into is no longer current
    rows = read_rows(work)
    if not all(current(work, rows, name, key) for name, key in row.units):
        return None
    done = row.outcome
    announce(0, 0, 0, done.units, enabled=show_progress)  # as a full build counts: the plan's
    outputs = [UnitOutput(name, key, unit_dir(work, name)) for name, key in row.units]
    # The merge would make the site it finds again, swapped in for nothing.
    if look.found() or not live_intact(work, settings.site_dir, outputs):
        merge(outputs, settings.site_dir, work)
    return ShardedReport(done.records, done.problems, done.units, 0, done.units, 0, 0, 0, True,
                         done.searchable, done.generated, tuple(done.lookup_problems),
                         done.unconverted, look.notes())


def _settle(settings: Settings, paths: list[Path], settle: tuple[str, settled.Sources],
            prepared: _Prepared, merged: list[Unit], searchable: int | None,
            as_read: Callable[[], bool]) -> None:
    """Write the settled row, when the sources did not change while the build ran (an input
    whose stat was racy as it started: its bytes neither). Failing to is not a failure: the
    next build is then a full one."""
    options, sources = settle
    try:
        if not _unchanged_since(settings, paths, options, sources, as_read):
            return
        outputs = settled.output_stats(settings.docs_dir, prepared.watched)
        settled.keep(settings.work_dir, settled.Settled(
            sources.key, outputs, [(u.name, u.key) for u in merged], settled.Outcome(
                prepared.records, prepared.problems, list(prepared.lookup_problems),
                prepared.unconverted, prepared.generated, searchable,
                len(prepared.units))))
    except (settled.Racy, OSError):
        return


def _unchanged_since(settings: Settings, paths: list[Path], options: str,
                     sources: settled.Sources, as_read: Callable[[], bool]) -> bool:
    """Whether the sources are as the build found them, by stats that can be trusted now.
    An input whose stat was racy then (written just before the build) may have been written
    again in its tick after the scan read it: ``as_read`` says whether its bytes, hashed once
    its stat could be trusted, are those the scan read (:func:`settled.bytes_as_read`); the
    stats are looked at after, so a write during the hash is seen."""
    if not as_read():
        return False
    now = _sources(settings, paths, options)
    return now is not None and not now.racy and now.key == sources.key


def _prepare(settings: Settings, paths: Iterable[Path], strict: bool,
             full_text: bool, past: History, docs_walked: Callable[[], _Docs],
             choose: Chooser | None = None) -> _Prepared:
    """Scan, catalogue, update the history, write the root's generated pages and the data
    and static files, and plan the units."""
    work = settings.work_dir
    found = scan(paths, work, strict=strict)
    give_back()  # what reading the records decoded and dropped
    spare_existing()  # the records live to the build's end: no collection walks them again
    if choose is not None:
        found = replace(found, lights=choose(found.lights))
    if strict and found.problems:
        raise StrictProblems(found.problems)
    # Whatever comes next may change the units, the generated tree or the site: the settled
    # row no longer names them (the scan before only wrote facts about the inputs).
    settled.forget(work)
    docs = docs_walked()  # before any is written
    # A data file written into is the very file a data unit (and the site) links: that
    # unit is built again from nothing once the file is written anew (below).
    edits.forget_holding(work, docs.linked)
    addresses = site_addresses(settings)
    rendering = render_key(addresses)
    # The catalogue model and the page units are kept between builds, under a hash of what
    # they are made from (a cache: any doubt makes them as a cold build does).
    memo = Memo(work)
    model = model_key(found.lights, rendering)
    # What a refresh makes its model and units from (read once, when first asked for).
    earlier = cache(lambda: earlier_model(memo, rendering, found.lights.lines()))
    catalog = memo.get_rows(CATALOG, model, lambda: build_catalog(
        (x.record for x in found.lights), kept_entries(memo, earlier()),
        LightTexts(found.lights)), MODEL)
    spare_existing()  # the catalogue too
    # The data files are written as they are made, under temporary names, and put in place
    # once claimed (made whole, the filter data were +420 MB sampled at 310,000 records).
    with Staged(settings.out_dir) as staged:
        # The paste box's and the search box's data files (made again only when what they
        # show changed: else only their paths and hashes are known, the files are on disk).
        boxes = box_data(settings, found.lights, catalog, rendering, full_text=full_text,
                         remember=memo.remember(model), edited=docs.edited, staged=staged)
        lights = found.lights
        version = dataset_version(x.record.dataset_version for x in lights)
        snapshot = past.update(version, version_time(
            version, (x.record.analyzed_at for x in lights)), seen(lights, catalog))
        root = _root_pages(memo, model, settings, staged, catalog)
        # Not a page (a dot file MkDocs skips): the root unit's home page reads it
        # (errdocs-home). Kept with the pages it links (the root unit's only record pages):
        # both are made from every entry.
        home, recent = memo.get(HOME, stable_hash(model, settings.subtree), lambda: (
            render_home_fragment(catalog, settings.subtree, changes=True),
            [e.path for e in recent_entries(catalog)]), home_data, home_from)
        changed_pages = changes_pages(snapshot, catalog, addresses, past.keep)
        # The listings' filters' data files (made again only for the records that changed).
        filters = filter_files(settings, catalog, rendering, remember=memo.remember(model),
                               edited=docs.edited, staged=staged)
        resolve = resolve_data(catalog, snapshot, addresses)
        generated = _generated_paths(catalog, itertools.chain(
            root.hashes, (p.path for p in (home, *resolve, *changed_pages)),
            boxes.files.paths, filters.files.paths))
        # Listed as errdocs' before any is written: a killed build's pages are never taken
        # for hand-written ones, and the next build removes those it does not make again.
        stale = frozenset(claim_beyond(settings.out_dir, generated))
        # Held to the build's end, the manifest and the docs folder's list were ~190 MB at
        # 310,000 records: only what the end needs of them is kept.
        edited = frozenset(path for path in docs.edited if path in generated)
        root_files = (*root.hashes, *(p.path for p in [home, *resolve]))
        watched = frozenset(settled.generated_outputs(settings.subtree, generated, root_files))
        made = len(generated)
        hand_written, absent = _hand_written(settings, docs, generated, stale)
        del generated  # (every generated file's path: ~760,000 at 310,000 records)
        _check_reserved(hand_written)
        docs = docs.dropped()
        # Written before any unit is built: every unit reads the nav's titles from them, and
        # data units copy their files from there.
        written = write_changed(settings.out_dir, [home, *resolve])[0]
        written += _place_data(settings, staged, ((boxes, BOXES), (filters, FILTERS)))
    static_keys, past_files = _write_static(work, lambda staged: _static_files(
        settings, snapshot, catalog, addresses, memo, model, staged))
    everything = _global_key(settings)
    lines = lines_key(lights.lines(), rendering)
    pages = memo.get(UNITS, units_key(lines, everything),
                     lambda: _page_units(memo, (lines, model), rendering, lights, catalog,
                                         everything, earlier),
                     units_data_of(lines), lambda data: units_from_data(data)[1],
                     shared_strings(catalog))
    files = PathKeys.joined((boxes.files, filters.files, PathKeys.of(static_keys)))
    # Made on every build (~0.5 s at 310,000 records), not kept: read from the memo, their
    # files' paths were new strings (+32 MB held to the plan's end); made, they are ``files``'.
    data_made = data_units(files, everything)
    memo.save()
    units = plan(lights, catalog, _root_inputs(settings, {**root.hashes, **dict(file_keys(
        [home]))}, hand_written),
                 everything, files, changed_pages, resolve + past_files, pages, data_made)
    sub = settings.subtree
    listed = {catalog.entries[item.id].path for version in snapshot.versions
              for items in version.lists.values() for item in items
              if item.id in catalog.entries}  # what the "what changed" pages link to
    ctx = Context(settings, work, catalog, found.lights.by_id,
                  found.sources,
                  tuple(hand_written) + tuple(f"{sub}/{path}" for path in root.hashes),
                  tuple(sorted({g.path for kind in GroupKind
                                for g in catalog.groups[kind].values()}
                               | {*recent, CHANGES_INDEX})), strict, everything,
                  addresses=addresses, changes=tuple(changed_pages),
                  changes_links=tuple(sorted(listed)), render_key=rendering)
    spare_existing()  # and the plan
    return _Prepared(ctx, units, made, stale, absent,
                     found.problems, len(found.lights), written, boxes.problems,
                     boxes.unconverted, watched, edited)


def _place_data(settings: Settings, staged: Staged, data: Iterable[tuple[BoxData, str]]
                ) -> int:
    """Put the data files made again in place (``staged``); how many were written. The rows of
    those made (``data``: each with its row's name) are removed before and written after: a
    kill in between leaves no row, and the next build makes them again."""
    made = [(files, row) for files, row in data if files.made]
    for _files, row in made:
        forget_box_data(settings.work_dir, row)  # the files on disk are no longer known ...
    written = staged.place()
    for files, row in made:
        keep_box_data(settings.work_dir, files, row)  # ... until all are written
    return written


def _page_units(memo: Memo, keys: tuple[str, str], rendering: str, lights: Lights,
                catalog: Catalog, everything: str, earlier: Callable[[], Earlier | None]
                ) -> list[Unit]:
    """The page units, made with what an earlier build kept (:func:`previous_units`: the
    pages whose inputs did not change keep their keys), and the line hashes they are made
    from kept with them (``keys``: the lines' key and the model's). ``earlier``: the earlier
    model (:func:`earlier_model`)."""
    units = page_units(lights, catalog, everything,
                       previous_units(memo, earlier(), keys[1], catalog))
    memo.forget_previous()  # the last to read them
    keep_lines(memo, *keys, rendering, lights)
    return units


def _carry_dates(settings: Settings, prepared: _Prepared, dirty: list[Unit]) -> None:
    """When pages move between units (the number of record or hub units changed, or a unit's
    folder is gone), give each unit about to be built the sitemap dates of its pages from
    the units they were in. Nothing is read otherwise: a unit keeps its own pages' dates."""
    work = prepared.ctx.work_dir
    if not dirty:
        return
    have = {p.parent.parent.name: p for p in work.glob("units/*/.errdocs/lastmod.json")}
    if not have or {u.name for u in prepared.units if u.kind in _DATED} == set(have) or (
            not dates_enabled(settings)):
        return  # a first build, or no page moved
    carry(have.values(), [(unit_dates(unit_dir(work, u.name))[1], unit_pages(prepared.ctx, u))
                          for u in dirty if u.kind in _DATED])


def _watching(work: Path, watch: UnitWatch | None, units: list[Unit], chosen: list[Unit],
              dirty: list[Unit]) -> Callable[[str], None] | None:
    """Tell ``watch`` the plan and the chosen units already current; return what tells it
    of a unit just built (by name), None without ``watch``."""
    if watch is None:
        return None
    outputs = {u.name: UnitOutput(u.name, u.key, unit_dir(work, u.name)) for u in units}
    watch.planned(len(units))
    building = {u.name for u in dirty}
    for unit in chosen:
        if unit.name not in building:
            watch.ready(outputs[unit.name])
    return lambda name: watch.ready(outputs[name])


def _build(ctx: Context, units: list[Unit], workers: Workers, show_progress: bool,
           built: Callable[[str], None] | None = None, *, spilled: bool = False
           ) -> list[UnitResult]:
    """Build ``units`` on the workers, showing progress on a terminal; ``built`` (``serve``'s
    preview) is told the name of each unit once its output is complete and its row written.
    Rows are written at most once every :data:`ROW_BATCH` seconds, but for ``built``: each as
    its unit ends (a batch waits for the next unit's end, and the units after the root may
    take minutes, or wait, as a test's do). ``spilled``: each unit's slice and row are in its
    folder (a plan made in a child process); else they are made from ``ctx``."""
    progress = Progress("units", len(units), enabled=show_progress and wanted())
    results: list[UnitResult] = []
    by_name = {u.name: u for u in units}
    rows: dict[str, Built] = {}
    last: float | None = None
    batch = ROW_BATCH if built is None else 0.0

    def write() -> None:
        nonlocal last
        keep_row(ctx.work_dir, rows)
        if built is not None:
            for name in rows:
                built(name)
        rows.clear()
        last = time.monotonic()

    def done(result: UnitResult) -> None:
        # The unit's output is complete: its row is written here, by this process alone,
        # when a worker's result comes back (see errdocs.units.state: one writer, so no
        # worker waits for, or fails on, the catalogue's lock).
        unit = by_name[result.name]
        rows[result.name] = taken_row(ctx.work_dir, unit) if spilled else built_from(ctx, unit)
        results.append(result)
        progress.step(result.pages)
        if last is None or time.monotonic() - last >= batch:
            write()

    try:
        workers.run(ctx, units, done, spilled=spilled)
    finally:
        progress.close()
        if rows:  # their outputs are complete, whatever failed since
            write()
    return results


RESERVED_SITE_PATHS = (f"{ID_FOLDER}/", "api/", FEED_FILE)
"""Site paths errdocs build writes outside the generated subtree (see :func:`_static_files`
and the record units' companions): no hand-written file may be there."""


def _check_reserved(hand_written: list[str]) -> None:
    clashes = [p for p in hand_written
               if p == FEED_FILE or p.startswith(RESERVED_SITE_PATHS[:2])]
    if clashes:
        raise InputError(f"docs/{clashes[0]}: errdocs writes the site's /{ID_FOLDER}/, /api/ "
                         f"and /{FEED_FILE}; move this file elsewhere (e.g. docs/about/)")


def site_addresses(settings: Settings) -> Addresses:
    """How the site's pages are addressed: ``mkdocs.yml`` with ``--site-url``."""
    base = base_config(settings.config_file)
    profile = settings.profile
    directory_urls = base.get("use_directory_urls") is not False
    if not profile.site_url:  # a subset's bundle: its pages are not the host's
        return Addresses(settings.subtree, directory_urls, None)
    site_url = settings.site_url
    if site_url is None and base.get("site_url"):
        try:
            site_url = check_site_url(str(base["site_url"]))
        except ValueError:
            site_url = None  # MkDocs reports it; the exports only lose absolute addresses
    return Addresses(settings.subtree, directory_urls, site_url)


def _root_pages(memo: Memo, model: str, settings: Settings, staged: Staged,
                catalog: Catalog) -> _Files:
    """The root unit's pages (made from the catalogue model of key ``model`` alone: the
    lists of every group and the home page), written to ``staged`` as they are made when
    those on disk are not the model's (:func:`_kept_files`)."""
    return _kept_files(memo, ROOT_PAGES, model, settings.out_dir, staged,
                       lambda: render_root_pages(catalog, changes=True))


def _static_files(settings: Settings, snapshot: Snapshot, catalog: Catalog,
                  addresses: Addresses, memo: Memo, model: str, staged: Staged) -> _Static:
    """The files at site paths outside the generated subtree that data units hold: the record
    schema and the paged index (written to ``staged`` as it is made); and, made from the
    history, the pages at addresses records left and the feed."""
    title = str(base_config(settings.config_file).get("site_name") or "errdocs")
    past = left_pages(snapshot, catalog, addresses, title)
    past.append(Page(FEED_FILE, feed(snapshot, catalog, addresses, title)))
    folder = static_dir(memo.work)
    index = _kept_files(memo, INDEX_PAGES, model, folder, staged, lambda: index_files(
        # The catalogue's records, with its strings (read back from the light copies, each
        # message was a copy of its own).
        (IndexEntry(e.record_id, e.message, e.path) for e in catalog.entries.values()),
        addresses))  # the model's key covers the addresses
    return _Static([Page(SCHEMA_FILE, schema_text(addresses))], past, index)


@dataclass
class _Static:
    """The static files a build writes (:func:`_write_static`)."""

    files: list[Page]
    """The record schema."""
    past: list[Page]
    """Made from the history: the pages at addresses records left, and the feed."""
    index: _Files
    """The paged index of every record (``/api/index/``)."""


@dataclass
class _Files:
    """Files made from the catalogue model alone, kept in the memo as their hashes
    (:func:`_kept_files`)."""

    hashes: dict[str, str]
    """Each file's path and content hash (:func:`file_keys`), in order."""


def _kept_files(memo: Memo, name: str, model: str, folder: Path, staged: Staged,
                make: Callable[[], Iterable[Page]]) -> _Files:
    """The files ``make`` gives for the catalogue model of key ``model``, in ``folder``. Only
    their hashes are kept (memo row ``name``): when the files on disk have them, a build
    holds none of their contents (at 310,000 records the rows of the files themselves were
    55 MB for the paged index and 25 MB for the root's pages, read and decoded at the peak of
    a refresh whose model is taken); else they are made, each written to ``staged`` (a
    folder's, put in place by the caller) as it comes: held until all were made, their text
    was ~80 MB of the preparation's peak at 310,000 records."""
    key = stable_hash(model, "hashes")  # not the key of an errdocs that kept the files
    kept = memo.kept(name, key, keys_from)
    if kept is not None and all(_holds(folder / path, digest) for path, digest in kept.items()):
        return _Files(kept)
    hashes = {}
    for page in make():
        hashes[page.path] = stable_hash(page.content)
        staged.add(page)
    memo.keep(name, key, keys_data(hashes))
    return _Files(hashes)


def _holds(file: Path, digest: str) -> bool:
    """Whether ``file`` is there with content of hash ``digest`` (:func:`file_keys`'s)."""
    try:
        return stable_hash(file.read_bytes()) == digest
    except OSError:
        return False


def _write_static(work: Path, make: Callable[[Staged], _Static]
                  ) -> tuple[list[FileKey], list[Page]]:
    """Write the static files whose content changed into the work folder's static tree
    (``make`` writes the paged index to the folder's :class:`Staged` as it makes it), remove
    those of earlier builds that are gone; return the keys of the schema and the index
    (``/path``, :func:`file_keys`) and the pages made from the history, as data members."""
    folder = static_dir(work)
    remove_temporaries(folder)  # what a killed build left (a few hundred files: a quick walk)
    with Staged(folder) as staged:
        static = make(staged)
        hashes = static.index.hashes
        everything = [*static.files, *static.past]
        paths = [f.path for f in everything] + list(hashes)
        known = claim(folder, paths)  # listed first: a killed build's
        staged.place()
        write_changed(folder, everything)
        update_manifest(folder, paths, known)
    keys = [(f"/{path}", digest) for path, digest in file_keys(static.files) + list(hashes.items())]
    return keys, [Page(f"/{f.path}", f.content) for f in static.past]


def _generated_paths(catalog: Catalog, others: Iterable[str]) -> SortedPaths:
    """Every path of the generated tree: the record pages, the groups' pages and ``others``
    (the root's pages and the data files)."""
    return SortedPaths.of(itertools.chain(
        (e.path for e in catalog.entries.values()),
        (page for kind in GroupKind for group in catalog.groups[kind].values()
         for page in group_pages(group)), others))


@dataclass(frozen=True)
class _Docs:
    """The docs folder's files, as a build found them before writing any."""

    files: list[str]
    """Docs-relative paths held (a test's: a build's are :attr:`written`)."""
    edited: frozenset[str]
    """The generated tree's paths of its files written into since the last build of the
    whole plan ended (:mod:`errdocs.site.edits`): written again."""
    linked: list[edits.Edited]
    """Of those, the data files (not pages), by their path in the site: units link them."""
    written: Path | None = None
    """Where the walk wrote the paths it found (:data:`DOCS`), a folder's at a time, for
    :meth:`paths` to read: neither the build process, which may walk for the process that
    prepares the build, nor that one holds them (at 310,000 records ~760,000 paths, ~80 MB,
    held through the data files' making when they were read at the preparation's start)."""

    def paths(self) -> Iterator[str]:
        """Every file's docs-relative path (those held, then those written), each once, in
        no set order; read again on each call."""
        yield from self.files
        if self.written is not None:
            with open(self.written, "rb") as file:
                while True:
                    try:
                        yield from cast(list[str], pickle.load(file))
                    except EOFError:
                        return

    def dropped(self) -> _Docs:
        """These docs without their paths, the file of them removed."""
        if self.written is not None:
            self.written.unlink(missing_ok=True)
        return replace(self, files=[], written=None)


class _Walk:
    """The docs folder walked (:func:`_walk_docs_written`) from the build's start, in another
    process when there is an idle worker (``elsewhere``,
    :meth:`errdocs.units.workers.Workers.call`): at 310,000 records ~760,000 files, a walk the
    build would otherwise wait for after the scan. Nothing writes into the folder before
    :func:`_prepare` takes it."""

    def __init__(self, settings: Settings, elsewhere: edits.Elsewhere | None = None) -> None:
        self._settings = settings
        self.sealed = edits.generated_sealed(settings.work_dir)
        """When the last build of the whole plan sealed the generated tree (None: unknown)."""
        self._waiting = None if elsewhere is None else elsewhere(_walk_docs_written,
                                                                 settings, self.sealed)
        self._docs: _Docs | None = None

    def docs(self) -> _Docs:
        """The walk's files (waited for once)."""
        if self._docs is None:
            self._docs = (self._waiting() if self._waiting is not None
                          else _walk_docs_written(self._settings, self.sealed))
            self._waiting = None  # (its future holds the walk's files too)
        return self._docs

    def take(self) -> _Docs:
        """The walk's files, no longer held here: the build drops them once it has sorted
        them (at 310,000 records the list is ~83 MB, else held while every unit builds)."""
        docs = self.docs()
        self._docs = replace(docs, files=[], written=None)  # what edited() reads stays
        return docs

    def edited(self) -> bool:
        """True when a file of the generated tree was written into since the build that left
        it (or that cannot be told): the folders' stats the settled row watches do not show
        it."""
        return self.sealed is None or bool(self.docs().edited)

    def discard(self) -> None:
        """Remove the file of the walk's files (:data:`DOCS`) if the build did not read it
        (it was taken from the settled row, or failed first). Not waited for: a walk still
        running leaves its file to the next build's clean-up (:func:`_clean_leftovers`)."""
        (self._settings.work_dir / DOCS).unlink(missing_ok=True)


DOCS = f"{TEMPORARY}docs"
"""The work folder's file of the docs folder's files (:attr:`_Docs.written`)."""


def _walk_docs_written(settings: Settings, sealed: int | None) -> _Docs:
    """Every file of docs_dir, written to the work folder's :data:`DOCS` file a folder at a
    time, and those of the generated tree written since ``sealed`` (none when None).
    Temporary files killed runs left in the generated tree are deleted on the way.

    Plain strings and scandir, not pathlib: at 310,000 pages this walk runs on every build.
    """
    docs, sub = str(settings.docs_dir), settings.subtree
    edited: set[str] = set()
    linked: list[edits.Edited] = []
    stack = [""]
    written = settings.work_dir / DOCS
    with open(written, "wb") as file:
        while stack:
            relative = stack.pop()
            found: list[str] = []
            with os.scandir(os.path.join(docs, relative) if relative else docs) as entries:
                for entry in entries:
                    path = f"{relative}/{entry.name}" if relative else entry.name
                    ours = path.startswith(f"{sub}/")
                    if entry.is_dir(follow_symlinks=True):
                        stack.append(path)
                    elif entry.name.startswith(TEMPORARY):
                        if ours:
                            os.unlink(entry.path)
                    else:
                        found.append(path)
                        if not ours or sealed is None:
                            continue
                        info = entry.stat()
                        if info.st_mtime_ns > sealed:
                            edited.add(path[len(sub) + 1:])
                            if not path.endswith(".md"):  # a data file: units link it
                                linked.append(edits.Edited(path, info.st_dev, info.st_ino))
            if found:
                pickle.dump(found, file, pickle.HIGHEST_PROTOCOL)
    return _Docs([], frozenset(edited), sorted(linked, key=lambda e: e.path), written)


def _hand_written(settings: Settings, docs: _Docs, generated: SortedPaths,
                  stale: frozenset[str]) -> tuple[list[str], Absent]:
    """Docs-relative paths of every file of ``docs`` that errdocs did not generate (nor list
    in its manifest: ``generated`` and ``stale``), and the generated tree's paths of
    ``generated`` it did not find: a flag a generated path says which were found, so what is
    left is what is absent (its strings are the catalogue's). A set of the found paths held
    new strings, ~40 MB at 310,000 records; a copy of ``generated`` to take them out of, and
    the frozenset of that, two more tables of every generated path. When more are missing
    than found (a cold build: all), the found are held instead (:class:`Absent`)."""
    sub = f"{settings.subtree}/"
    found: list[str] = []
    seen = bytearray(len(generated))
    there = 0
    for path in docs.paths():  # (each path once: a folder's listing)
        relative = path[len(sub):] if path.startswith(sub) else None
        at = generated.position(relative)
        if at is not None:
            there += 1
            seen[at] = 1
        elif relative is None or (relative not in stale and relative != MANIFEST):
            found.append(path)
    missing = len(generated) - there
    found.sort()  # (the walk's order is its folders')
    # Either way the paths held are ``generated``'s strings, which the catalogue and the data
    # files' keys hold: those read from the walk were new (~33 MB for the 332,583 data files
    # found after a cold build killed before its pages, at 310,000 records).
    wanted = missing > there  # hold the found ones
    return found, Absent(frozenset(path for path, was in zip(generated, seen, strict=True)
                                   if was == wanted), found=wanted, count=missing)


def _root_inputs(settings: Settings, root_pages: dict[str, str],
                 hand_written: list[str]) -> list[bytes]:
    """What the root unit is built from: its generated pages (path and content hash) and the
    hand-written pages (path and content)."""
    parts = [f"{path}\0{digest}".encode() for path, digest in root_pages.items()]
    for path in hand_written:
        parts += [path.encode(), (settings.docs_dir / path).read_bytes()]
    return parts


def _global_key(settings: Settings) -> str:
    """Code, templates, config, theme overrides, and the titles every page's nav shows."""
    base = base_config(settings.config_file)
    extra: list[bytes] = []
    theme = base.get("theme")
    if isinstance(theme, dict) and theme.get("custom_dir"):
        extra += files_key(settings.project_dir / str(theme["custom_dir"]))
    extra.append(f"site_url={settings.site_url or base.get('site_url') or ''}".encode())
    profile = settings.profile  # the profile's units are its own (sorted: no hash order)
    extra.append(f"profile={profile.name} {profile.site_url} "
                 f"{sorted(profile.dropped)}".encode())
    for path in nav_paths(base.get("nav") or []):  # type: ignore[arg-type]
        try:
            match = _H1.search((settings.docs_dir / path).read_bytes())
        except OSError:
            match = None
        extra.append(path.encode() + b"\0" + (match.group(0) if match else b""))
    return global_key(settings.config_file, extra)


def _invalidate(work: Path, dirty: list[Unit], plan: list[Unit]) -> None:
    """Before any unit is built, in one transaction: remove the rows of the units to build
    (:mod:`errdocs.units.state`), and those of the records and hub units of other plans
    (another unit count), whose pages' Markdown is now this plan's, so they must never count
    as current again (their folders stay until the merge, which reads their file lists, then
    :func:`_prune_units`).

    All at once, rather than each unit's as a worker takes it up: one commit, not one more a
    unit, and the rows' one writer stays this process's main thread. A kill then leaves
    the units not built yet to be built from nothing, as a cold build builds them."""
    names = {u.name for u in plan}
    forget_rows(work, [u.name for u in dirty] + [
        name for name in read_rows(work)
        if name not in names and name.startswith(("rec-", "hub-"))])


def _prune_units(work: Path, keep: set[str]) -> None:
    """Drop outputs of units that are no longer in the plan (the unit count changed), and
    their rows. After the merge, so it may not fail the build: what stays is pruned next
    time."""
    folder = work / "units"
    with contextlib.suppress(OSError, ErrdocsError):
        forget_rows(work, [name for name in read_rows(work) if name not in keep])
        for child in folder.iterdir() if folder.is_dir() else ():
            if child.name not in keep and child.name != ROOT:
                shutil.rmtree(child, ignore_errors=True)
