"""The folder times of a site tree, and reading them ahead while the units build.

A merge repairs the spare tree (:mod:`errdocs.site.merge`) by looking at the modification time
of every folder it had: ~745,000 folders at 310,000 records, 9-25 s of a refresh with the
inodes out of the cache, while the main process had only waited for the workers the minute
before. :func:`read_ahead` starts those ``lstat`` calls when the units start building, and the
merge takes them if they are of the tree it repairs, from the same kept times
(:meth:`Ahead.take`). During a build only errdocs changes the spare (under the project's
lock): what befell it happened while it was live, before the build began, so stats read
during the units stage see what the merge would.
"""

from __future__ import annotations

import contextlib
import json
import os
import threading
import time
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from errdocs.pages.write import atomic_write
from errdocs.site.state import TIMES, Place, identity

LSTAT_THREADS = 16
"""Threads looking at the folders of a tree at once. A repair looks at every folder the tree
had (~700,000 at 310,000 records): one after the other that took 18-20 s after a refresh, the
inodes out of the cache, each ``lstat`` waiting on the disk; side by side, the waits overlap
(measured at 20,000 records, cache dropped: 1.14 s one after the other, 0.51 s on 16)."""
LSTAT_CHUNK = 2048
"""Folders a thread looks at in one task."""

Stat = tuple[int, int] | None
"""A path's mode and modification time (ns), or None when it is gone."""


def lstat(path: str) -> Stat:
    """The mode and modification time of ``path`` (not followed if a link); None if gone."""
    try:
        info = os.lstat(path)
    except OSError:
        return None
    return info.st_mode, info.st_mtime_ns


def lstats(root: str, folders: list[str], stop: threading.Event | None = None) -> list[Stat]:
    """:func:`lstat` of each of ``folders`` (relative to ``root``; "" is ``root``), in order,
    looked at on :data:`LSTAT_THREADS` threads (``os.lstat`` lets go of the interpreter
    while it waits). Once ``stop`` is set, the folders not yet looked at are None."""
    paths = [f"{root}/{f}" if f else root for f in folders]
    parts = [paths[i:i + LSTAT_CHUNK] for i in range(0, len(paths), LSTAT_CHUNK)]

    def look(part: list[str]) -> list[Stat]:
        if stop is not None and stop.is_set():
            return [None] * len(part)
        return [lstat(p) for p in part]

    if len(parts) <= 1:
        return look(paths)
    with ThreadPoolExecutor(LSTAT_THREADS) as pool:
        return [info for part in pool.map(look, parts) for info in part]


Times = tuple[dict[str, int], int]
"""Folder (relative to the tree, "" for its own) to modification time, and when they were
read (ns)."""


def times_file(folder: Path, tree: Path) -> Path | None:
    """Where the folder times of ``tree`` are kept (by its device and inode)."""
    found = identity(tree)
    return None if found is None else folder / f"{TIMES}{found[0]}-{found[1]}.json"


def read_times(file: Path) -> Times | None:
    """The folder times kept in ``file``; None when there are none or they are not what a
    repair writes (every folder is listed then)."""
    try:
        data = json.loads(file.read_bytes())
        times, taken = data["times"], data["taken"]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if not (isinstance(times, dict) and "" in times and type(taken) is int
            and all(type(t) is int for t in times.values())):
        return None
    return times, taken


def relist(folder: Path, tree: Path, wanted: set[str]) -> None:
    """Make the next repair of ``tree`` list the folders ``wanted`` (relative), as if their
    times had changed: a file in one was written into in place, which changes no folder's
    time (:mod:`errdocs.site.edits`). A folder the kept times lack stands for its nearest
    folder they have. Nothing to do when no times are kept: every folder is listed then."""
    file = times_file(folder, tree)
    times = None if file is None else read_times(file)
    if file is None or times is None:
        return
    kept, taken = times
    for relative in wanted:
        while relative not in kept:
            relative = relative.rpartition("/")[0]
        kept[relative] = -1  # no folder has this time
    atomic_write(file, json.dumps({"taken": taken, "times": kept}).encode("utf-8"))


def _signature(file: Path) -> tuple[int, int, int, int] | None:
    """What tells a kept times file apart from a rewritten one."""
    try:
        info = os.stat(file)
    except OSError:
        return None
    return info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns


@dataclass
class Early:
    """What a repair takes from :class:`Ahead` instead of reading it itself."""

    times: Times
    """The tree's kept folder times."""
    folders: list[str]
    """The folders of ``times``, sorted (a parent first)."""
    stats: list[Stat]
    """:func:`lstat` of each of ``folders``, in order."""


@dataclass
class Ahead:
    """The spare tree's kept folder times and folder stats, being read on a thread."""

    tree: str
    """The spare tree."""
    file: Path
    """Its times file (named by the tree's device and inode)."""
    signature: tuple[int, int, int, int]
    """The times file's identity, size and time before it was read."""
    taken: int
    """When the reading began (ns): the time the repair keeps its new times with."""
    stop: threading.Event = field(default_factory=threading.Event)
    """Set when the build ends without a merge: the stats not yet read are skipped."""
    early: Future[Early | None] = field(default_factory=Future)
    """What was read; None when the file holds no times a repair wrote."""

    def take(self, file: Path | None) -> Early | None:
        """What was read, when ``file`` is the one it was read from, unchanged since."""
        if file != self.file or _signature(file) != self.signature:
            return None
        try:
            early = self.early.result()
        except Exception:  # any failure of the thread: the merge reads them itself
            return None
        return None if self.stop.is_set() else early


@contextlib.contextmanager
def read_ahead(work: Path, target: Path, wanted: bool = True) -> Iterator[Ahead | None]:
    """While the block runs, read the kept folder times of the site ``target``'s spare tree
    and the stats of its folders on a thread (None when it has no times file: the merge
    lists it all or makes it afresh; or when not ``wanted``: no merge follows). Leaving the
    block stops what is left of the reading and waits for it."""
    ahead = _start(work, target) if wanted else None
    if ahead is None:
        yield None
        return
    thread = threading.Thread(target=_read, args=(ahead,), daemon=True,
                              name="errdocs-read-ahead")
    thread.start()
    try:
        yield ahead
    finally:
        ahead.stop.set()
        thread.join()


def _start(work: Path, target: Path) -> Ahead | None:
    place = Place.find(work, target)
    file = None if place is None else times_file(place.folder, place.spare)
    signature = None if file is None else _signature(file)
    if place is None or file is None or signature is None:
        return None
    return Ahead(str(place.spare), file, signature, time.time_ns())


def _read(ahead: Ahead) -> None:
    try:
        times = read_times(ahead.file)
        early = None
        if times is not None:
            folders = sorted(times[0])
            early = Early(times, folders, lstats(ahead.tree, folders, ahead.stop))
    except BaseException as exc:  # told to the merge, which then reads them itself
        ahead.early.set_exception(exc)
        return
    ahead.early.set_result(early)
