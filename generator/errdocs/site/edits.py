"""Files errdocs wrote that somebody wrote into since: the next build puts them right.

errdocs never writes into a file it made: a page, a data file or a site file is replaced by a
rename (:func:`errdocs.pages.write.atomic_write`) or linked anew. So every file it leaves has a
modification time no later than the moment the build that left it ended (its *seal*), and a
file with a later time was written into by somebody else: an editor that keeps hard links
(Vim does, for a file with several), ``echo >>``, a script opening the file for writing.

Two trees are watched:

- **The live site.** Its files are hard links to the units' outputs (and to the spare tree's;
  a data file to the generated tree's or the static files'), so a write into one changes
  errdocs' own copy too, and no folder time tells. A build first looks at every file of the
  live site (:func:`site_edits`); for each written since the last merge sealed the site, the
  unit whose output holds that very file (same inode) is built again from nothing, and the
  merge lists the folder holding it in both site trees, since the spare may link it too
  (:func:`put_right`).
- **The generated tree** (``docs/errors``). A page written into is rendered and written again
  (its unit is built); a data file written into makes the data files all made again and
  compared with those on disk. Sealed when a build of the whole plan ends
  (:func:`seal_generated`).

Not seen: a write that sets the file's time back (``cp -p``, ``rsync --inplace --times``,
``touch -r``), or one made while a build runs or within the clock's tick after its seal (the
kernel stamps files with a clock that may lag the one read for the seal by that tick).
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import stat
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from errdocs.catalog.store import FILE
from errdocs.errors import sqlite_failure
from errdocs.site.folders import relist
from errdocs.site.merge import SKIPPED, UnitOutput
from errdocs.site.state import Place, live_is_known
from errdocs.units.state import forget as forget_rows
from errdocs.units.state import read as read_rows

LOOK_THREADS = 2
"""Threads looking at the live site's files at once in a build that may take the settled row
(it waits for nothing else; one that reads the records leaves the cores to the scan). With
the inodes out of the cache each ``lstat`` costs the kernel ~40 us of work, and one thread
took 58 s for the 1,380,000 files of 310,000 records; two took 21 s (four 21-28 s, sixteen
36 s: they contend). With the inodes cached, one took 5.8 s, two 7.1 s (this function timed
alone, session 25)."""
LOOK_RUN = 2048
"""Files a thread looks at in one task (in the lists' order: a unit's files together)."""
_TABLE = "CREATE TABLE IF NOT EXISTS seals (name TEXT PRIMARY KEY, ns INTEGER NOT NULL)"
_GENERATED = "generated"


@dataclass(frozen=True)
class Edited:
    """A file written into since its tree was sealed."""

    path: str
    """Relative to the tree, with ``/``."""
    device: int
    """Its device: with :attr:`inode`, which unit output holds the same file."""
    inode: int
    """Its inode."""


def written_since(root: str, sealed: int,
                  stop: threading.Event | None = None) -> list[Edited]:
    """The regular files below ``root`` whose modification time is later than ``sealed``
    (ns), sorted; none when ``root`` is missing. Plain strings and scandir, on one thread
    (the time goes to the kernel: ``find`` takes as long, and threads took twice as long
    with the inodes cached, at 20,000 records): this runs on every build. Once ``stop`` is
    set, the folders not yet listed are not."""
    found: list[Edited] = []
    stack = [""]
    while stack and not (stop is not None and stop.is_set()):
        relative = stack.pop()
        try:
            with os.scandir(f"{root}/{relative}" if relative else root) as entries:
                listed = list(entries)
        except (FileNotFoundError, NotADirectoryError):
            continue  # gone meanwhile (or no tree yet): the merge puts the tree right
        for entry in listed:
            path = f"{relative}/{entry.name}" if relative else entry.name
            if entry.is_dir(follow_symlinks=False):
                stack.append(path)
            elif entry.is_file(follow_symlinks=False):
                info = entry.stat(follow_symlinks=False)
                if info.st_mtime_ns > sealed:
                    found.append(Edited(path, info.st_dev, info.st_ino))
    return sorted(found, key=lambda e: e.path)


def listed_since(root: str, paths: list[str], sealed: int,
                 stop: threading.Event | None = None, threads: int = 1) -> list[Edited]:
    """:func:`written_since` for the files ``paths`` (relative to ``root``) alone: one
    ``lstat`` each, where a walk also opens and lists every folder (2.5 times as long at
    20,000 records). A path that is gone or not a file is left to the merge. Once ``stop``
    is set, the paths not yet looked at are not. On ``threads`` threads, in runs of
    :data:`LOOK_RUN` paths."""
    runs = [paths[i:i + LOOK_RUN] for i in range(0, len(paths), LOOK_RUN)]

    def look(run: list[str]) -> list[Edited]:
        found: list[Edited] = []
        if stop is not None and stop.is_set():
            return found
        for path in run:
            try:
                info = os.lstat(f"{root}/{path}")
            except OSError:
                continue
            if info.st_mtime_ns > sealed and stat.S_ISREG(info.st_mode):
                found.append(Edited(path, info.st_dev, info.st_ino))
        return found

    if len(runs) <= 1 or threads <= 1:
        found = [e for run in runs for e in look(run)]  # stopped between runs
    else:
        with ThreadPoolExecutor(threads) as pool:
            found = [e for part in pool.map(look, runs) for e in part]
    return sorted(found, key=lambda e: e.path)


def site_edits(work: Path, target: Path, stop: threading.Event | None = None,
               threads: int = 1) -> list[Edited]:
    """The files of the live site ``target`` written since the merge that made it sealed it;
    none when errdocs does not know the live site as its own (the merge then makes both
    trees afresh) or it was never sealed (an earlier errdocs built it). The files looked at
    are those the units' file lists name (a file added by hand is no unit's: the merge's
    repair removes it), else every file found."""
    place = Place.find(work, target)
    if place is None:
        return []
    state = place.read()
    sealed, live = state.get("sealed"), state.get("live")
    if not isinstance(sealed, int) or not live_is_known(place, state):
        return []
    files = _unit_files(work, live) if isinstance(live, dict) else None
    if files is None:
        return written_since(str(target), sealed, stop)
    return listed_since(str(target), files, sealed, stop, threads)


Elsewhere = Callable[..., Callable[[], Any] | None]
"""Starts a function of the arguments it is given in another process and gives what waits
for its result; ``None`` when there is no such process
(:meth:`errdocs.units.workers.Workers.call`)."""


class Looking:
    """The live site's files being looked at (:func:`site_edits`) while the build reads its
    records: at 310,000 records ~1,000,000 ``lstat`` calls, which wait on the kernel (and on
    the disk when the inodes are not cached). In an idle worker process when there is one:
    on a thread of the build's, the calls' Python work held the interpreter lock the scan
    needs, and the scan took ~55% longer at 20,000 records (1.7 s against 2.6 s). Made by
    :func:`looking`."""

    def __init__(self, work: Path, target: Path | None,
                 elsewhere: Elsewhere | None = None, threads: int = 1) -> None:
        self._work, self._target, self._threads = work, target, threads
        self._stop = threading.Event()
        self._found: Future[list[Edited]] = Future()
        self._waiting: Callable[[], list[Edited]] | None = None
        self._damaged: list[str] | None = None
        self._thread = threading.Thread(target=self._look, daemon=True,
                                        name="errdocs-site-edits")
        if target is None:
            self._found.set_result([])
            return
        # Nothing waits for a worker's look if the build ends first: it dies with the pool.
        self._waiting = None if elsewhere is None else elsewhere(site_edits, work, target,
                                                                 None, threads)
        if self._waiting is None:
            self._thread.start()

    def _look(self) -> None:
        target = self._target
        assert target is not None
        self._take(lambda: site_edits(self._work, target, self._stop, self._threads))

    def _take(self, found: Callable[[], list[Edited]]) -> None:
        try:
            self._found.set_result(found())
        except BaseException as exc:  # raised where the build waits for it
            self._found.set_exception(exc)

    def put_right(self) -> list[str]:
        """Wait for the files; have the build undo what was written into them
        (:func:`put_right`), once. The units built again from nothing."""
        if self._damaged is None:
            if self._waiting is not None:
                self._take(self._waiting)
            found = self._found.result()
            self._damaged = []
            if found and self._target is not None:
                self._damaged = put_right(self._work, self._target, found)
        return self._damaged

    def threads_done(self) -> None:
        """Wait for the look when it runs on threads of this process: before it forks a
        child (a thread inside SQLite as it forks would leave the child SQLite's lock held)."""
        if self._thread.is_alive():
            self._thread.join()

    def found(self) -> bool:
        """Whether files were found written into (after :meth:`put_right`)."""
        return bool(self._damaged is not None and self._found.result())

    def notes(self) -> tuple[str, ...]:
        """What the build says of the files found (after :meth:`put_right`)."""
        found = self._found.result() if self._damaged is not None else []
        if not found or self._target is None:
            return ()
        shown = ", ".join(str(self._target / e.path) for e in found[:3])
        more = f" and {len(found) - 3} more" if len(found) > 3 else ""
        files = "1 file" if len(found) == 1 else f"{len(found)} files"
        return (f"Note: {files} of the site changed by hand since the last build "
                f"({shown}{more}): put back as errdocs makes them",)

    def close(self) -> None:
        """Stop looking (a build ending before it waited for them) and wait for the thread."""
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join()


@contextlib.contextmanager
def looking(work: Path, target: Path | None, elsewhere: Elsewhere | None = None,
            threads: int = 1) -> Iterator[Looking]:
    """Look at the files of the live site ``target`` (None: none, no site is made) while
    the block runs, ``elsewhere`` when there is such a process, on ``threads`` threads."""
    look = Looking(work, target, elsewhere, threads)
    try:
        yield look
    finally:
        look.close()


def _unit_files(work: Path, units: dict[str, str]) -> list[str] | None:
    """The files of the units' outputs of the keys ``units`` names, and what the merge adds
    (the sitemaps, the marker); None when a list is missing."""
    files = [*SKIPPED]
    for name, key in units.items():
        listed = UnitOutput(name, key, work / "units" / name).files()
        if listed is None:
            return None
        files += listed
    return files


def put_right(work: Path, target: Path, edited: list[Edited]) -> list[str]:
    """Make the build undo ``edited`` (files of the live site ``target``): the units whose
    output holds one of those very files are built again from nothing
    (:func:`forget_holding`), and the next repair of each site tree lists the folders
    holding them (the spare may link the same files; a copy, on another file system, is
    replaced there). The units' names."""
    damaged = forget_holding(work, edited)
    place = Place.of(work, target)
    folders = {e.path.rpartition("/")[0] for e in edited}
    for tree in (place.target, place.spare):
        relist(place.folder, tree, folders)
    return damaged


def forget_holding(work: Path, edited: list[Edited]) -> list[str]:
    """Remove the rows of the units whose output holds one of ``edited`` (by its path in the
    site, the very file): built again from nothing, in new files. Their names. Each unit's
    file list says which of the paths are its own, so a site rewritten whole by hand costs a
    look at each file once, not once a unit."""
    if not edited:
        return []
    wanted = {e.path: (e.device, e.inode) for e in edited}
    damaged = []
    for name, row in sorted(read_rows(work).items()):
        output = UnitOutput(name, row.key, work / "units" / name)
        listed = output.files()
        mine = wanted if listed is None else [p for p in listed if p in wanted]
        for path in mine:
            try:
                info = os.lstat(output.site / path)
            except OSError:
                continue
            if (info.st_dev, info.st_ino) == wanted[path]:
                damaged.append(name)
                break
    forget_rows(work, damaged)  # (a kill at any point: the next build finds them again)
    return damaged


def generated_sealed(work: Path) -> int | None:
    """When the last build of the whole plan ended, by which every file of the generated
    tree it left was written (ns); None when unknown."""
    path = work / FILE
    if not path.is_file():
        return None
    try:
        with closing(sqlite3.connect(path)) as db:
            row = db.execute("SELECT ns FROM seals WHERE name = ?", (_GENERATED,)).fetchone()
    except sqlite3.Error:
        return None
    return int(row[0]) if row and isinstance(row[0], int) else None


def seal_generated(work: Path) -> None:
    """Note that every file of the generated tree is as errdocs wrote it now."""
    sealed = time.time_ns()
    try:
        with closing(sqlite3.connect(work / FILE, isolation_level=None)) as db:
            db.execute(_TABLE)
            db.execute("INSERT OR REPLACE INTO seals VALUES (?, ?)", (_GENERATED, sealed))
    except sqlite3.Error as exc:
        failure = sqlite_failure(exc, work / FILE)
        if failure is not None:
            raise failure from exc
        # Not a database (damaged): the next build's scan makes it again, and finds no seal.
