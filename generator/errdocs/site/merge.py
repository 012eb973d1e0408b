"""Assemble the site from the units' outputs, atomically, linking only the files that changed.

Two trees of hard links to the units' files exist: the live one (the site) and a spare one,
one build behind, kept with the site's own state in ``.errdocs/sites/ID/``
(:mod:`errdocs.site.state`; beside the site when that is on another file system). A merge
brings the spare up to date — putting right whatever was changed in it by hand while it was
live, then removing the files of units that changed and linking their new files (only the
files their patches wrote, by the units' records) — then swaps it with the live site by
renames, so readers never see a half-made site and a failure leaves the previous site as it
was. A build that made much of the site again brings the spare up to date after the swap,
so that the next merge links only what it changes. When the spare cannot be trusted (first
build, missing file lists, an interrupted merge, a live site that is not the one the last
merge put there), both trees are made afresh by linking every file.

The swap is one step where the system allows it (Linux's ``renameat2(RENAME_EXCHANGE)``), so
a kill leaves either site, never none; elsewhere it is two renames and the next build puts the
previous site back if a kill came between them. It is the merge's commit: what follows (keeping
a spare tree) cannot fail the build.

Each unit's ``sitemap.xml`` is merged into one, and the site gets errdocs' marker
(:mod:`errdocs.site.owner`). Files are copied instead of linked when the work folder is on
another file system.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import functools
import gzip
import hashlib
import heapq
import itertools
import marshal
import os
import re
import secrets
import shutil
import stat
import tempfile
import time
from collections.abc import Callable, Container, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from errdocs.errors import BuildFailed, naming
from errdocs.pages.write import atomic_write
from errdocs.site.folders import (
    NOT_A_FOLDER,
    Ahead,
    Kept,
    TreeTimes,
    folder_time,
    folder_times,
    keep_tree_times,
    read_kept,
    times_file,
    write_sorted_times,
)
from errdocs.site.owner import MARKER, check_replaceable, discard, is_ours, mark
from errdocs.site.state import TIMES, Place, forget_others, live_is_known

SITEMAP = "sitemap.xml"
CANNOT_LINK = frozenset({errno.EXDEV, errno.EPERM, errno.EMLINK, errno.EOPNOTSUPP})
"""Why a hard link may fail where a copy works: another file system, one without links, a
file with too many links already."""
_URL = re.compile(r"<url>.*?</url>", re.DOTALL)
_LOC = re.compile(r"<loc>(.*?)</loc>", re.DOTALL)
REWROTE = ".rewrote"
"""``files-KEY.rewrote``: the key a unit's output was patched from, and the files the patch
wrote and removed (:func:`record_files`)."""


class MergeError(BuildFailed):
    """Two units produced the same file, or a unit's output is missing."""


@dataclass(frozen=True)
class UnitOutput:
    """A built unit, as the merge sees it."""

    name: str
    """The unit."""
    key: str
    """The key it was built from."""
    folder: Path
    """Its folder: ``site/`` and ``files-KEY.txt`` (the files of each built version)."""

    @property
    def site(self) -> Path:
        return self.folder / "site"

    def files(self, key: str | None = None) -> list[str] | None:
        """Relative paths of the version built from ``key`` (this one by default)."""
        try:
            text = (self.folder / f"files-{key or self.key}.txt").read_text("utf-8")
        except OSError:
            return None
        return text.splitlines()

    def changes(self, since: str, steps: int = 8) -> tuple[set[str], set[str]] | None:
        """The files to link again and the files to remove to bring a tree holding the
        version built from ``since`` to this one, from the records of the patches that made
        this version from it (:func:`record_files`): every other file of both is the same
        file. None when a step is not recorded (made from nothing, records lost or damaged,
        or a key seen twice: which version of it a record is about cannot be told)."""
        patches: list[tuple[list[str], list[str]]] = []
        seen: set[str] = set()
        key = self.key
        while key != since:
            if key in seen or len(seen) == steps:
                return None
            seen.add(key)
            try:
                head, _, body = (self.folder / f"files-{key}{REWROTE}").read_text(
                    "utf-8").partition("\n")
                key, digest = head.rsplit(" ", 1)
            except (OSError, ValueError):
                return None
            if digest != _digest(body):
                return None  # damaged
            lines = body.split("\n") if body else []
            patches.append(([n[1:] for n in lines if n[:1] == "+"],
                            [n[1:] for n in lines if n[:1] == "-"]))
        made: set[str] = set()
        changed: set[str] = set()
        for written, gone in reversed(patches):  # the oldest first
            made.difference_update(gone)
            made.update(written)
            changed.update(written, gone)
        return made, changed


def record_files(folder: Path, key: str, site: Path, keep: int = 3,
                 names: list[str] | None = None,
                 rewrote: tuple[str, Iterable[str], Iterable[str]] | None = None) -> None:
    """List the files of a unit's output (for merges); keep the lists of recent versions.
    ``names``: the list, when the caller knows it (sorted; the output is not walked).
    ``rewrote``: when the output was patched from an earlier one, that one's key, the files
    the patch wrote and those it removed (every other file of both is the same file): a
    merge then links and removes only those (:meth:`UnitOutput.changes`). None: made from
    nothing."""
    if names is None:
        names = sorted(
            os.path.relpath(os.path.join(d, f), site) for d, _s, files in os.walk(site)
            for f in files if not (d == str(site) and f in (SITEMAP, SITEMAP + ".gz")))
    record = folder / f"files-{key}{REWROTE}"
    if rewrote is None:
        record.unlink(missing_ok=True)  # a record of an earlier build of this key
    else:
        body = "\n".join([*(f"+{n}" for n in sorted(rewrote[1])),
                          *(f"-{n}" for n in sorted(rewrote[2]))])
        atomic_write(record, f"{rewrote[0]} {_digest(body)}\n{body}".encode())
    # By rename: a later merge removes exactly these files from the spare tree.
    atomic_write(folder / f"files-{key}.txt", "\n".join(names).encode("utf-8"))
    lists = sorted(folder.glob("files-*.txt"), key=lambda p: p.stat().st_mtime_ns, reverse=True)
    for old in lists[keep:]:
        old.unlink(missing_ok=True)
    for old in folder.glob(f"files-*{REWROTE}"):
        if not old.with_suffix(".txt").exists():
            old.unlink(missing_ok=True)


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def merge(units: Sequence[UnitOutput], target: Path, work: Path,
          ahead: Ahead | None = None) -> None:
    """Make ``target`` hold exactly the units' files (and one sitemap), atomically.

    ``target`` must be missing, empty or a site errdocs built (:mod:`errdocs.site.owner`).
    ``ahead``: the spare tree's folder stats, read while the units built
    (:func:`errdocs.site.folders.read_ahead`)."""
    for unit in units:
        if not unit.site.is_dir():
            raise MergeError(f"{unit.site}: a unit's output is missing; build it first")
    check_replaceable(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    place = Place.of(work, target)
    _recover(place)
    place.clear()
    forget_others(work, place)
    state = place.read()
    live_before = state.get("live") if live_is_known(place, state) else None
    place.write(live_before if isinstance(live_before, dict) else None, None)  # spare changing
    spare, spare_before = place.spare, state.get("spare")
    with naming(place.home):  # what fails to be written and names no file
        if isinstance(spare_before, dict) and is_ours(spare) and _updated(
                spare, spare_before, units, work, place.folder, ahead, goes_live=True):
            staging, fresh_spare = spare, False
        else:
            discard(spare, work)
            staging, fresh_spare = _fresh(units, place, goes_live=True), True
        try:
            _finish_tree(staging, units)
            _swap(staging, place, work)  # the commit: from here on the new site is live
        except BaseException:
            _recover(place)
            if staging != spare:
                shutil.rmtree(staging, ignore_errors=True)
            raise
    # The site is built: a failure now only leaves no spare (the state says so), and the
    # next build makes one afresh.
    with contextlib.suppress(OSError):
        _keep_spare(staging, None if fresh_spare else live_before, units, place, work)
        forget_times(place.folder, (place.target, place.spare))
    # Sealed last: every file of the live site now has a time errdocs gave it (by writing
    # a new file, never into one), so a later time is somebody else's write
    # (errdocs.site.edits). Unsealed (a full disk), the next build cannot look for those.
    with contextlib.suppress(OSError):
        place.seal()


def _swap(staging: Path, place: Place, work: Path) -> None:
    """Put ``staging`` in the site's place; ``staging`` then holds the previous site (or
    nothing, on a first build)."""
    target, previous = place.target, place.previous
    if not os.path.lexists(target):
        staging.rename(target)
    elif not _exchange(staging, target):  # two renames: a kill between them is put right by
        discard(previous, work)            # the next merge (_recover)
        target.rename(previous)
        staging.rename(target)
        previous.rename(staging)


def _keep_spare(old: Path, old_units: object, units: Sequence[UnitOutput], place: Place,
                work: Path) -> None:
    """After the swap ``old`` holds the previous site: it becomes the spare when its units are
    known (it was the spare being updated), brought up to date at once when it is far behind
    (:func:`_far_behind`); else a spare is made afresh."""
    wanted = {u.name: u.key for u in units}
    if isinstance(old_units, dict) and old == place.spare and is_ours(old):
        if not _far_behind(old_units, units):
            place.write(wanted, old_units)
            return
        # Much of the site changed (a new errdocs or mkdocs.yml: every page made again):
        # the spare is brought up to date now, by the build that changed it, rather than
        # by the next merge, a refresh that would link all that again.
        place.write(wanted, None)  # the spare changing: a kill leaves it to be made afresh
        if _updated(old, old_units, units, work, place.folder, None, goes_live=False):
            place.write(wanted, wanted)
            return
    if os.path.lexists(old):
        discard(old, work)
    made = _fresh(units, place, goes_live=False)
    _finish_tree(made, units)
    made.rename(place.spare)
    place.write(wanted, wanted)


def _far_behind(old_units: dict[str, str], units: Sequence[UnitOutput]) -> bool:
    """Whether a tree holding the files of ``old_units`` must link again more than an eighth
    of the files of ``units`` to hold theirs: it is then brought up to date at once, in the
    build that changed that much, not in the next merge, a refresh people wait for. (At
    once, a repair also reads the stat of each of its folders, about one a page, which the
    next merge reads while the units build; unlinking and linking a file again takes ~20
    times a stat here. At 20,000 records the catch-up cost a site rename ~20 s, in one run,
    and saved the next refresh 12 s: the cost is moved, not made smaller.) Counted in
    bytes of their names, from each unit's file list's size and the records of its patches
    (the lists themselves, over a million lines at 310,000 records, are not read): at
    20,000 records a new site name (every page made again, not the records' data files)
    gives 38%, a refresh of 1% of the records 0.6%."""
    again = total = 0
    for unit in units:
        try:
            size = (unit.folder / f"files-{unit.key}.txt").stat().st_size + 1
        except OSError:
            return False  # no list: the next merge makes the spare afresh anyway
        total += size
        old = old_units.get(unit.name)
        if old != unit.key:
            recorded = None if old is None else unit.changes(old)
            again += size if recorded is None else sum(len(p) + 1 for p in recorded[0])
    return again * 8 > total


_AT_FDCWD = -100
_RENAME_EXCHANGE = 2


@functools.cache
def _renameat2() -> Callable[..., int] | None:
    try:
        return ctypes.CDLL(None, use_errno=True).renameat2
    except (OSError, AttributeError):  # not Linux with glibc 2.28 or later
        return None


def _exchange(a: Path, b: Path) -> bool:
    """Swap two paths atomically (``renameat2(RENAME_EXCHANGE)``); False where the system
    or the file system cannot."""
    call = _renameat2()
    if call is None:
        return False
    if call(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE) == 0:
        return True
    code = ctypes.get_errno()
    if code in (errno.EINVAL, errno.ENOSYS, errno.EOPNOTSUPP):
        return False
    raise OSError(code, os.strerror(code), str(b))


def _recover(place: Place) -> None:
    """Put the previous site back when a merge stopped between its two renames."""
    if not os.path.lexists(place.target) and is_ours(place.previous):
        place.previous.rename(place.target)


def _finish_tree(tree: Path, units: Sequence[UnitOutput]) -> None:
    """What a site tree holds besides the units' files: the merged sitemap and the marker."""
    _write_sitemap(tree, [u.site / SITEMAP for u in units if (u.site / SITEMAP).is_file()])
    mark(tree)


def _fresh(units: Iterable[UnitOutput], place: Place, *, goes_live: bool) -> Path:
    """A new tree linking every unit's file, its folder times kept (``goes_live``: swapped in
    as the site next, see :func:`_trusted_from`)."""
    staging = _new_folder(place.home, place.staging_prefix)
    stale = times_file(place.folder, staging)  # a removed tree's, whose inode it got
    if stale is not None:
        stale.unlink(missing_ok=True)
    try:
        for unit in units:
            _link_all(unit, staging)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    if stale is not None:
        _note_times(staging, stale, goes_live)
    return staging


def _note_times(tree: Path, file: Path, goes_live: bool) -> None:
    """Keep the folder times of a tree just made, as a repair would after listing it all: the
    first repair of a new tree (the next builds' spare) lists only what changed since. The
    time is taken before the folders' times are read (see :data:`RACY_NS`)."""
    taken = time.time_ns()
    keep_tree_times(tree, file, lambda times: _trusted_from(times, taken, goes_live))


def _new_folder(home: Path, prefix: str) -> Path:
    """A new folder ``prefix`` + 8 hex digits, with the usual permissions (mkdtemp's are
    0700, and this one becomes the site a web server reads)."""
    while True:
        folder = home / f"{prefix}{secrets.token_hex(4)}"
        try:
            folder.mkdir()
            return folder
        except FileExistsError:
            continue


def _link_all(unit: UnitOutput, tree: Path) -> None:
    """Link the unit's files into ``tree``, making its folders. Plain strings: a new tree
    links every file of the site (~760,000 at 310,000 records), and a ``Path`` a file took
    5.3 µs against 1.5 (its parts parsed, and each interned)."""
    site, into = os.fspath(unit.site), os.fspath(tree)
    for folder, _dirs, files in os.walk(site):
        relative = os.path.relpath(folder, site)
        out = into if relative == "." else os.path.join(into, relative)
        try:
            os.mkdir(out)
        except FileExistsError:
            if not os.path.isdir(out):
                raise
        for name in files:
            if relative == "." and name in (SITEMAP, SITEMAP + ".gz"):
                continue
            _link(os.path.join(folder, name), os.path.join(out, name), unit.name)


def _updated(tree: Path, before: dict[str, str], units: Sequence[UnitOutput],
             work: Path, folder: Path, ahead: Ahead | None, *, goes_live: bool) -> bool:
    """Repair ``tree`` (:func:`_repair`), then :func:`_update` it; False when it turns out
    not to hold what ``before`` says (a file already where a changed unit's file goes) or a
    unit's file list is missing: then it is made afresh, where a clash does mean two units
    wrote one file. ``folder``: where the tree's folder times are kept; ``goes_live``: the
    tree is swapped in as the site next (see :func:`_trusted_from`)."""
    try:
        return _repair(tree, before, units, work, folder, ahead, goes_live)
    except MergeError:
        return False


RACY_NS = 2_000_000_000
"""A folder time this close to when it was read (or later) is not trusted: a change made
within the file system clock's tick after the read would leave the same time."""
SETTLE_FOLDERS = 2000
"""Folder times too recent to trust (:data:`RACY_NS`) a tree's kept times may hold before
the merge waits the margin out to trust them (:func:`_trusted_from`): the tree's next repair
would list each of them again, reading every unit output that has it. A refresh of 3,100 of
310,000 records leaves ~10,000 (21 s of a later build); a new tree, every folder."""
SKIPPED = (SITEMAP, SITEMAP + ".gz", MARKER)
"""Written afresh for every tree (:func:`_finish_tree`)."""
_KNOWN = frozenset[str]()
"""What :meth:`_Repair.held` says of a folder found unchanged: it holds the known folders."""


@dataclass
class _Repair:
    """One repair of a tree: what it should hold and what it found."""

    root: str
    """The tree."""
    wanted: Wanted
    """What the units have in each folder."""
    times: TreeTimes
    """Each folder's modification time, read before it was listed: the next repair lists
    only the folders whose time changed."""
    unchanged: bytearray
    """1 for each kept folder (in the kept times' order) found unchanged: it holds the
    folders it held (a byte a folder, where a dict of every folder was held)."""
    real: dict[str, set[str]]
    """Folders listed (and put right), to the folders they hold (not links to folders)."""
    emptied: set[Path]
    """Folders a file was removed from."""
    _last: tuple[str | None, int] = (None, -1)
    """The last folder :meth:`held` found among the kept ones, and where: the folders come
    sorted, most after a sibling, so most ask for the parent asked for before."""

    def held(self, folder: str) -> Container[str] | None:
        """The folders ``folder`` was found to hold: what its listing found, :data:`_KNOWN`
        when it was found unchanged; None when it was not looked at (gone, replaced, or
        under such a folder)."""
        found = self.real.get(folder)
        if found is not None:
            return found
        kept = self.times.kept
        if kept is None:
            return None
        if self._last[0] != folder:
            self._last = (folder, kept.index(folder))
        at = self._last[1]
        return _KNOWN if at >= 0 and self.unchanged[at] else None


def _repair(tree: Path, before: dict[str, str], units: Sequence[UnitOutput], work: Path,
            folder: Path, ahead: Ahead | None = None, goes_live: bool = True) -> bool:
    """Make ``tree`` hold exactly the units' files, whatever befell it while it was the live
    site: a page deleted, replaced or added there by hand would otherwise be published again
    by the swap after next. Reading the folders is enough (a linked file has its unit file's
    inode), and only the folders whose modification time changed since the last repair
    (every change of what a folder holds sets its time; a folder replaced or removed changes
    its parent's): the times are kept in ``folder``, one file a tree (by its identity), and
    without them every folder is listed. Those folders are put right first, so the update
    that follows (:func:`_update`, which leaves them alone) writes only into folders as
    errdocs left them; the folders it changes are not listed, their times read again. False
    when a unit's file list is missing. What the units have in a folder is read from their
    outputs when it is listed (:class:`Wanted`). The folders' stats are ``ahead``'s when
    it read them from the same kept times."""
    file = times_file(folder, tree)
    early = None if ahead is None else ahead.take(file)
    taken = ahead.taken if early and ahead else time.time_ns()
    kept = early.kept if early else _kept_times(file)
    job = _Repair(str(tree), Wanted(units), TreeTimes(kept),
                  bytearray(len(kept.folders) if kept else 0), {}, set())
    if kept is None:
        _list_all(job, "")  # every folder put right: nothing left to update
    else:
        stats = early.stats if early else folder_times(job.root, kept.folders)
        _list_changed(job, kept, stats)
        touched = _update(tree, before, units, work, job.real)
        if touched is None:
            return False
        _read_again(job, touched)
    _prune(job.emptied, tree)
    if file is not None:
        # Folders this repair changed keep the time read before: they are listed next time.
        taken = _trusted_from(job.times.values(), taken, goes_live)
        write_sorted_times(file, job.times.items(), taken)
    return True


def _kept_times(file: Path | None) -> Kept | None:
    """The kept times in ``file``, None when there are none."""
    return None if file is None else read_kept(file)


def _trusted_from(times: Iterable[int], taken: int, goes_live: bool) -> int:
    """The time to keep ``times`` with, read from a tree that is not live (the spare, or a
    tree not yet swapped in) from ``taken`` on: ``taken``; or, when many are within
    :data:`RACY_NS` of it (folders the merge itself just wrote), a time just past
    :data:`RACY_NS` after the newest, so that the next repair or intact check, which trusts
    only times older than the kept time less :data:`RACY_NS`, trusts them all. That is sound
    once any change made from now on gets its folder a time the kept one cannot equal:
    before the swap, the merge waits until a write would be stamped after the newest time
    (:func:`_margin`: a few ms where the times are fine, at most :data:`RACY_NS`). A change
    made meanwhile moved its folder's time already (but within the file system's clock tick
    of errdocs' own write to it, which no stat can tell).

    A tree that does not go live (``goes_live`` False: the spare, made or brought up to date
    after the swap) is not waited for: nobody edits it by hand before its next repair, which
    keeps its times again before it goes live. (A cold build waited 2 s for each of its two
    trees: 4 of the 6 seconds of its merge at 5,000 records.)"""
    count, recent = _recent(times, taken - RACY_NS)
    if count < SETTLE_FOLDERS:
        return taken
    newest = recent[-1]
    if goes_live:
        margin = _margin(recent)
        while (now := time.time_ns()) <= newest + margin:
            time.sleep((newest + margin - now) / 1e9 + 0.001)
    return newest + RACY_NS + 1


def _recent(times: Iterable[int], since: int) -> tuple[int, list[int]]:
    """How many of ``times`` are ``since`` or later, and the newest :data:`MARGIN_TIMES`
    distinct ones of those, sorted."""
    count, newest = 0, set[int]()
    for mtime in times:
        if mtime >= since:
            count += 1
            newest.add(mtime)
            if len(newest) >= 2 * MARGIN_TIMES:
                newest = set(sorted(newest)[-MARGIN_TIMES:])
    return count, sorted(newest)[-MARGIN_TIMES:]


MARGIN_TIMES = 4096
"""The newest distinct recent folder times the margin is read from (:func:`_margin`): any
two distinct times differ by at least the file system's step, so their gaps bound it as all
the times' would, and all were held: a file system with fine times gives nearly every folder
of a new tree its own (this machine's ext4, Linux 6.18: 5,941 distinct among 6,061 folders
just made; ~745,000 folders at 310,000 records), and the times, their set, its sorted list
and the gaps were all held at once."""
FINE_SLACK_NS = 20_000_000
"""Added to a margin read from the folder times (:func:`_margin`): at least one tick of the
coarse clock a file system may stamp times with while the folders' own times are finer (10 ms
at the kernel's slowest tick), so a write after the wait gets a later time than the newest."""


def _margin(recent: Iterable[int]) -> int:
    """How long after the newest of ``recent`` (folder times the merge just wrote) a change is
    sure to get a later time: :data:`RACY_NS`, or less on a file system whose times are finer
    than that. Two different times a file system gave differ by at least the step it stamps
    times in (its granularity, or the tick of the clock it reads: ext4's follows the kernel's
    tick, 1-10 ms; FAT's is 2 s), so the smallest gap between two of them bounds that step;
    twice it, plus :data:`FINE_SLACK_NS`, is past the newest time's step."""
    distinct = sorted(set(recent))
    gaps = [later - earlier for earlier, later in itertools.pairwise(distinct)]
    if not gaps:
        return RACY_NS
    return min(RACY_NS, 2 * min(gaps) + FINE_SLACK_NS)


def _read_again(job: _Repair, folders: set[str]) -> None:
    """Note the times of the folders the update changed (made, or removed)."""
    for relative in folders:
        try:
            info = os.lstat(os.path.join(job.root, relative))
        except OSError:
            job.times.forget(relative)
            continue
        if stat.S_ISDIR(info.st_mode):
            job.times.note(relative, info.st_mtime_ns)


def _list_changed(job: _Repair, known: Kept, stats: Sequence[int]) -> None:
    """List the folders of ``known`` whose time changed, parents first (a folder is taken
    only through parents seen to be folders, never through a link put there: their stats,
    all read ahead at once, are of the folders before any was put right, and a folder whose
    parent was is looked at again), and every folder found in them that ``known`` does not
    have. ``stats``: the :func:`folder_time` of each of its folders, in their order (a parent
    sorts before what it holds)."""
    times, prefix, settled = job.times, job.root + "/", known.taken - RACY_NS
    rows = zip(known.folders, known.times, stats, strict=True)
    for at, (relative, before, early) in enumerate(rows):
        mtime = early
        if relative:
            held = job.held(relative.rpartition("/")[0])
            if held is None or (held is not _KNOWN and relative not in held):
                continue  # gone or replaced (seen listing its parent), or under such a folder
            if held is not _KNOWN:  # its parent was just put right: what it holds now
                mtime = folder_time(prefix + relative)
        if mtime == NOT_A_FOLDER:
            continue
        times.note(relative, mtime, at)
        if relative and mtime == before and mtime < settled:
            # Unchanged: it holds what it held, and its folders are the known ones.
            job.unchanged[at] = 1
            continue
        _list(job, relative, known)


def _list_all(job: _Repair, relative: str) -> None:
    """List ``relative`` and every folder below it."""
    info = os.lstat(os.path.join(job.root, relative))
    job.times.note(relative, info.st_mtime_ns)
    _list(job, relative, {})


def _list(job: _Repair, relative: str, known: Container[str]) -> None:
    """Put one folder right: remove what the units do not have there, link again what is not
    their file, make the folders they have that it lacks; list the folders ``known`` does
    not have (new ones)."""
    path = os.path.join(job.root, relative) if relative else job.root
    wanted = job.wanted.of(relative)
    seen: set[str] = set()
    folders: set[str] = set()
    with os.scandir(path) as entries:
        found = list(entries)
    for entry in found:
        child = f"{relative}/{entry.name}" if relative else entry.name
        if entry.is_dir(follow_symlinks=False):
            folders.add(child)
            continue
        if not relative and entry.name in SKIPPED:
            continue
        source = wanted.files.get(entry.name)
        if source is not None:
            seen.add(entry.name)
            if same_content(entry, *source):
                continue
        os.unlink(entry.path)
        if source is None:
            job.emptied.add(Path(entry.path).parent)
        else:
            _link(source[0], entry.path, child)
    for name, source in wanted.files.items():
        if name not in seen:
            _link(source[0], os.path.join(path, name), f"{relative}/{name}")
    for name in sorted(wanted.folders):
        child = f"{relative}/{name}" if relative else name
        if child not in folders:  # gone, or replaced by a file (removed above)
            os.mkdir(os.path.join(path, name))
            folders.add(child)
    job.real[relative] = folders
    for child in sorted(folders):
        if child not in known:
            _list_all(job, child)


@dataclass
class UnitFolder:
    """What the units have in one folder."""

    files: dict[str, tuple[str, int]]
    """File name to the unit file it links and that file's inode."""
    folders: dict[str, list[str]]
    """Folder name to the unit outputs (their ``site``) that have it."""


class Wanted:
    """What the units have in each folder, read from their outputs as folders are asked
    about (a listing gives the inodes, which a ``stat`` a file would cost one call each): a
    folder of the tree is looked for only in the outputs that have its parent."""

    def __init__(self, units: Sequence[UnitOutput]) -> None:
        self._units = units
        self._folders: dict[str, UnitFolder] = {}

    def of(self, relative: str) -> UnitFolder:
        found = self._folders.get(relative)
        if found is None:
            if relative:
                parent, _, name = relative.rpartition("/")
                sites = self.of(parent).folders.get(name, [])
            else:
                sites = [str(u.site) for u in self._units]
            found = self._folders[relative] = _read_folder(relative, sites)
        return found


def _read_folder(relative: str, sites: list[str]) -> UnitFolder:
    """One folder of the units' outputs ``sites`` (each has it)."""
    folder = UnitFolder({}, {})
    for site in sites:
        path = os.path.join(site, relative) if relative else site
        try:
            with os.scandir(path) as entries:
                found = list(entries)
        except OSError as exc:
            raise MergeError(f"{path}: a unit's output is missing") from exc
        for entry in found:
            if entry.is_dir(follow_symlinks=False):
                folder.folders.setdefault(entry.name, []).append(site)
            elif not relative and entry.name in (SITEMAP, SITEMAP + ".gz"):
                continue
            elif entry.name in folder.files:
                raise MergeError(f"two units both wrote {relative}/{entry.name}")
            else:
                folder.files[entry.name] = (entry.path, entry.inode())
    return folder


def same_content(entry: os.DirEntry[str], source: str, inode: int) -> bool:
    """``entry`` is the unit's file: its link, or its copy (another file system) with the
    same size and time."""
    if entry.inode() == inode:
        return True
    try:
        mine, theirs = entry.stat(follow_symlinks=False), os.stat(source)
    except OSError:
        return False
    return (entry.is_file(follow_symlinks=False) and mine.st_size == theirs.st_size
            and mine.st_mtime_ns == theirs.st_mtime_ns)


def forget_times(folder: Path, keep: Iterable[Path]) -> None:
    """Drop the folder times of trees other than ``keep`` (gone, or made afresh: a new
    folder may get a removed one's inode)."""
    wanted = {f.name for f in (times_file(folder, t) for t in keep) if f is not None}
    for file in folder.glob(f"{TIMES}*.json"):
        if file.name not in wanted:
            file.unlink(missing_ok=True)


def _update(tree: Path, before: dict[str, str], units: Sequence[UnitOutput], work: Path,
            done: Container[str]) -> set[str] | None:
    """Bring ``tree`` from the units of ``before`` to ``units``, but in the folders ``done``
    (listed: they hold the units' files already); the folders it changed (relative, with
    their parents), or None when it cannot (a unit's file list is missing)."""
    now = {u.name: u for u in units}
    changes: list[tuple[Iterable[str], Iterable[str], UnitOutput | None]] = []
    for name, key in before.items():
        unit = now.get(name)
        if unit is None or unit.key != key:
            folder = unit.folder if unit else work / "units" / name
            change = _changes(tree, UnitOutput(name, key, folder), unit)
            if change is None:
                return None
            changes.append((*change, unit))
    for unit in units:
        if unit.name not in before:
            new = unit.files()
            if new is None:
                return None
            changes.append(((), new, unit))
    touched: set[str] = set()
    emptied: set[Path] = set()
    for gone, _made, _unit in changes:
        for relative in gone:
            parent = relative.rpartition("/")[0]
            if parent not in done:
                (tree / relative).unlink(missing_ok=True)
                emptied.add((tree / relative).parent)
                touched.add(parent)
    for _gone, made, unit in changes:
        for relative in made:
            parent = relative.rpartition("/")[0]
            if unit is not None and parent not in done:
                target = tree / relative
                target.parent.mkdir(parents=True, exist_ok=True)
                _link(unit.site / relative, target, unit.name)
                touched.add(parent)
    _prune(emptied, tree)
    return _with_parents(touched)


def _changes(tree: Path, old: UnitOutput, new: UnitOutput | None
             ) -> tuple[Iterable[str], Iterable[str]] | None:
    """The files of ``tree`` to remove and those to link to bring one unit from ``old`` to
    ``new`` (None: the unit is gone): by the unit's records of its patches, or its file
    lists (None when one is missing) and whether the tree links a file both list already."""
    recorded = None if new is None else new.changes(old.key)
    if recorded is not None:
        made, changed = recorded  # (a file of the tree changed by hand: see _repair)
        return sorted(changed), sorted(made)  # in one order: a build's writes are repeatable
    before = old.files(old.key)
    after = None if new is None else new.files()
    if before is None or (new is not None and after is None):
        return None
    if new is None or after is None:
        return before, ()
    same = set(_kept(tree, before, after, new))
    return [r for r in before if r not in same], [r for r in after if r not in same]


def _with_parents(folders: set[str]) -> set[str]:
    """``folders`` and the folders holding them (relative)."""
    found: set[str] = set()
    for folder in folders:
        while folder not in found:
            found.add(folder)
            if not folder:
                break
            folder = folder.rpartition("/")[0]
    return found


def _kept(tree: Path, old: list[str], new: list[str], unit: UnitOutput) -> Iterable[str]:
    """The files of ``unit`` in both lists that ``tree`` already links (strings and
    ``os.stat``, not paths: this runs for every file of every changed unit)."""
    before = set(old)
    root, site = str(tree), str(unit.site)
    for relative in new:
        if relative in before:
            try:
                mine, theirs = os.stat(f"{root}/{relative}"), os.stat(f"{site}/{relative}")
            except OSError:
                continue
            if mine.st_ino == theirs.st_ino and mine.st_dev == theirs.st_dev:
                yield relative


def _prune(folders: set[Path], stop: Path) -> None:
    for folder in sorted(folders, key=lambda p: len(p.parts), reverse=True):
        while folder != stop and folder.is_dir() and not any(folder.iterdir()):
            folder.rmdir()
            folder = folder.parent


def _link(source: str | Path, target: str | Path, unit: str) -> None:
    try:
        os.link(source, target)
    except FileExistsError as exc:
        raise MergeError(f"unit {unit} and another unit both wrote {target}") from exc
    except OSError as exc:
        if exc.errno not in CANNOT_LINK:
            raise  # a full disk, a read-only folder: copying would not do better
        shutil.copy2(source, target)  # another file system: copy instead


def _write_sitemap(tree: Path, sitemaps: list[Path]) -> None:
    """One sitemap holding every unit's URLs once (the first unit's entry of a URL), sorted;
    and its gzip twin (fixed mtime). The entries are sorted :data:`SITEMAP_RUN` at a time,
    each run kept in an unnamed temporary file in ``tree``, then the runs merged as the
    sitemap is written: the sitemaps, their entries, the sitemap and its bytes were all held
    at once (every page of the site four times over: ~760,000 pages at 310,000 records)."""
    for name in (SITEMAP, SITEMAP + ".gz"):
        (tree / name).unlink(missing_ok=True)
    if not sitemaps:
        return
    with tempfile.TemporaryFile(dir=tree) as spilled:
        head, runs = _sitemap_runs(sitemaps, spilled)
        # Without site_url MkDocs writes an empty sitemap: it is kept as it is.
        parts = (_sitemap_text(head, heapq.merge(*runs)) if runs
                 else iter((sitemaps[0].read_text("utf-8"),)))
        with (open(tree / SITEMAP, "wb") as plain,
              gzip.GzipFile(tree / (SITEMAP + ".gz"), "wb", mtime=0) as packed):
            while text := "".join(itertools.islice(parts, 1024)):
                data = text.encode("utf-8")
                plain.write(data)
                packed.write(data)


SITEMAP_RUN = 4096
"""Sitemap entries sorted at once (:func:`_write_sitemap`)."""
_SITEMAP_CHUNK = 64
"""Entries of a run written (and read back) at once: the merge holds a chunk of every run
(~190 runs at 310,000 records)."""
_Entry = tuple[str, int, str]
"""A sitemap entry: its URL, its place among all the entries read, its text."""


def _sitemap_runs(sitemaps: list[Path], spilled: BinaryIO
                  ) -> tuple[str, list[Iterable[_Entry]]]:
    """The sitemap's head (what comes before the first sitemap's first entry) and its
    entries in sorted runs: all but the last written to file ``spilled``, read back a chunk
    at a time."""
    head, run, runs, offset = "", list[_Entry](), list[Iterable[_Entry]](), 0
    for path in sitemaps:
        text = path.read_text("utf-8")
        if not head:
            first = _URL.search(text)
            head = text[:first.start() if first else text.find("</urlset>")]
        for match in _URL.finditer(text):
            loc = _LOC.search(match.group(0))
            run.append((loc.group(1) if loc else match.group(0), offset + len(run),
                        match.group(0)))
            if len(run) == SITEMAP_RUN:
                runs.append(_spill(sorted(run), spilled))
                offset += len(run)
                run = []
    if run:
        runs.append(sorted(run))
    spilled.flush()  # (read back by position)
    return head, runs


def _spill(run: list[_Entry], file: BinaryIO) -> Iterator[_Entry]:
    """Write ``run`` at the end of ``file``; an iterator reading it back a chunk at a time,
    by position (the runs are read side by side), once ``file`` is flushed."""
    chunks = []
    for start in range(0, len(run), _SITEMAP_CHUNK):
        data = marshal.dumps(run[start:start + _SITEMAP_CHUNK])
        chunks.append((file.tell(), len(data)))
        file.write(data)
    fd = file.fileno()
    return (entry for at, size in chunks for entry in marshal.loads(os.pread(fd, size, at)))


def _sitemap_text(head: str, entries: Iterable[_Entry]) -> Iterator[str]:
    """The sitemap's text, in parts: each URL's first entry, by URL."""
    yield head
    last = None
    for loc, _at, entry in entries:
        if loc != last:
            yield entry if last is None else f"\n{entry}"
            last = loc
    yield "\n</urlset>\n"


def keep_sitemap_entries(old: Path, new: Path, urls: set[str], site_url: str) -> None:
    """Add to ``new`` the entries of ``old`` for pages whose output was reused (by URL)."""
    if not old.is_file() or not new.is_file():
        return
    base = site_url.rstrip("/") + "/" if site_url else ""
    wanted = {base + url for url in urls}
    kept = [m.group(0) for m in _URL.finditer(old.read_text("utf-8"))
            if (loc := _LOC.search(m.group(0))) and loc.group(1) in wanted]
    if kept:
        text = new.read_text("utf-8")
        end = text.rfind("</urlset>")
        new.write_text(text[:end] + "\n".join(kept) + "\n" + text[end:], "utf-8")
