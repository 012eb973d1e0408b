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

import bisect
import contextlib
import heapq
import itertools
import json
import os
import re
import stat
import tempfile
import threading
import time
from array import array
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

from errdocs.pages.write import atomic_write, json_parts
from errdocs.site.state import TIMES, Place, identity

LSTAT_THREADS = 16
"""Threads looking at the folders of a tree at once. A repair looks at every folder the tree
had (~700,000 at 310,000 records): one after the other that took 18-20 s after a refresh, the
inodes out of the cache, each ``lstat`` waiting on the disk; side by side, the waits overlap
(measured at 20,000 records, cache dropped: 1.14 s one after the other, 0.51 s on 16)."""
LSTAT_CHUNK = 2048
"""Folders a thread looks at in one task."""
TIMES_PART = 4096
"""Folders whose times are written at once (:func:`write_times`)."""

NOT_A_FOLDER = -(1 << 63)
"""What :func:`folder_time` gives a path that is not a folder (gone, a file, a link): no
folder has this time (the smallest 64-bit one)."""


def folder_time(path: str) -> int:
    """The modification time (ns) of folder ``path``, not followed if a link;
    :data:`NOT_A_FOLDER` when it is not one."""
    try:
        info = os.lstat(path)
    except OSError:
        return NOT_A_FOLDER
    return info.st_mtime_ns if stat.S_ISDIR(info.st_mode) else NOT_A_FOLDER


def folder_times(root: str, folders: list[str], stop: threading.Event | None = None
                 ) -> array[int]:
    """:func:`folder_time` of each of ``folders`` (relative to ``root``; "" is ``root``), in
    order, looked at on :data:`LSTAT_THREADS` threads (``os.lstat`` lets go of the
    interpreter while it waits). Once ``stop`` is set, the folders not yet looked at are
    :data:`NOT_A_FOLDER`. An array of 64-bit times, not a list of stats: at 310,000 records
    the list and the full paths it was read with were ~180 MB held while the units build."""

    def look(start: int) -> array[int]:
        part = folders[start:start + LSTAT_CHUNK]
        if stop is not None and stop.is_set():
            return array("q", [NOT_A_FOLDER]) * len(part)
        return array("q", [folder_time(f"{root}/{f}" if f else root) for f in part])

    starts = range(0, len(folders), LSTAT_CHUNK)
    if len(starts) <= 1:
        return look(0)
    found = array("q")
    with ThreadPoolExecutor(LSTAT_THREADS) as pool:
        for part in pool.map(look, starts):
            found.extend(part)
    return found


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
    kept = read_kept(file)
    return None if kept is None else (dict(zip(kept.folders, kept.times, strict=True)),
                                       kept.taken)


def read_kept(file: Path) -> Kept | None:
    """:func:`read_times` as a repair takes them (:class:`Kept`), read a part (a line) at a
    time (:class:`KeptFile`). Read whole, the bytes, their text and a dict of every folder
    were all held at once (a 49.7 MB file of ~745,000 folders at 310,000 records), at the
    start of the units' stage (the read-ahead's); at 60,000 folders that was twice what this
    holds at its top (``test_folder_times_are_read_a_part_at_a_time``)."""
    folders: list[str] = []
    times = array("q")
    try:
        with file.open("rb") as lines:
            kept = KeptFile(lines)
            for folder, mtime in kept.items():
                folders.append(folder)
                times.append(mtime)
    except (OSError, ValueError, TypeError, OverflowError):
        return None
    return Kept(folders, times, kept.taken)


class NotKept(ValueError):
    """A times file that is not what :func:`write_times` writes."""


class KeptFile:
    """A times file (:func:`write_times`) read a part (a line) at a time: when its folders'
    times were read (:attr:`taken`), then each folder and its time in their order
    (:meth:`items`). :class:`NotKept` is raised as soon as it shows it is not such a file,
    at the latest once every folder is read: the tree itself (``""``) first, the folders
    sorted, whole."""

    def __init__(self, lines: Iterator[bytes]) -> None:
        head = _HEAD.fullmatch(next(lines, b""))
        if head is None:
            raise NotKept("not a times file")
        self.taken = int(head[1])
        """When the folders' times were read (ns)."""
        self._lines = lines

    def items(self) -> Iterator[tuple[str, int]]:
        """Each folder and its kept time, in order."""
        last: str | None = None
        for line in self._lines:
            if line == b"}}\n":  # the end: nothing may follow
                if last is None or next(self._lines, None) is not None:
                    raise NotKept("no folder, or more after the end")
                return
            for folder, mtime in json.loads(b"{" + line.rstrip().removesuffix(b",")
                                            + b"}").items():
                in_order = folder == "" if last is None else last < folder
                if not in_order:
                    raise NotKept("the tree itself not first, or the folders not sorted")
                if type(mtime) is not int:
                    raise NotKept(f"a time that is not a whole number: {mtime!r}")
                last = folder
                yield folder, mtime
        raise NotKept("cut short")


_HEAD = re.compile(rb'\{"taken": (-?[0-9]+), "times": \{\n')
"""The first line of a times file (:func:`write_times`)."""


@dataclass(frozen=True)
class Kept:
    """A tree's kept folder times as a repair reads them: the folders sorted (a parent sorts
    before what it holds) and their times in that order. A list and an array, not the dict
    they are read as, whose table and numbers were held while the units build
    (:class:`Ahead`): at 310,000 records the units' stage is ~40 MB lower this way (sampled
    at its end, ~1,420 -> ~1,385 MB)."""

    folders: list[str]
    """The folders, sorted."""
    times: array[int]
    """Their kept times, in that order."""
    taken: int
    """When they were read (ns)."""

    @classmethod
    def of(cls, times: Times) -> Kept:
        """The kept times of :func:`read_times`' ``times``."""
        folders = sorted(times[0])
        return cls(folders, array("q", map(times[0].__getitem__, folders)), times[1])

    def __contains__(self, folder: object) -> bool:
        return isinstance(folder, str) and self.index(folder) >= 0

    def index(self, folder: str) -> int:
        """Where ``folder`` is among :attr:`folders`; -1 when it is not one of them."""
        at = bisect.bisect_left(self.folders, folder)
        return at if at < len(self.folders) and self.folders[at] == folder else -1


class TreeTimes:
    """The folder times a repair notes for the next one (:func:`write_sorted_times`): those of
    the kept folders in an array in their order, the others (folders new since, or all of
    them when none were kept) by name. A dict of every folder, then the sorted list of its
    names it was written from, were held through the repair (44,736 folders at 20,000
    records; ~745,000 at 310,000)."""

    def __init__(self, kept: Kept | None) -> None:
        self.kept = kept
        """The kept times the repair started from."""
        self.known = array("q", [NOT_A_FOLDER]) * (len(kept.folders) if kept else 0)
        """The time of each kept folder, in their order (:data:`NOT_A_FOLDER`: not noted)."""
        self.others: dict[str, int] = {}
        """The time of each folder noted that was not kept."""

    def note(self, folder: str, mtime: int, at: int | None = None) -> None:
        """Note ``folder``'s time (``at``: its place among the kept folders, when known)."""
        at = self._place(folder) if at is None else at
        if at >= 0:
            self.known[at] = mtime
        else:
            self.others[folder] = mtime

    def forget(self, folder: str) -> None:
        """``folder`` is gone: its time is not kept."""
        at = self._place(folder)
        if at >= 0:
            self.known[at] = NOT_A_FOLDER
        else:
            self.others.pop(folder, None)

    def values(self) -> Iterator[int]:
        """Every time noted."""
        yield from (mtime for mtime in self.known if mtime != NOT_A_FOLDER)
        yield from self.others.values()

    def items(self) -> Iterator[tuple[str, int]]:
        """Every folder noted and its time, sorted by folder as :func:`write_times` writes
        them."""
        noted = zip(self.kept.folders if self.kept else [], self.known, strict=True)
        return heapq.merge(((folder, mtime) for folder, mtime in noted
                            if mtime != NOT_A_FOLDER), sorted(self.others.items()))

    def _place(self, folder: str) -> int:
        return self.kept.index(folder) if self.kept else -1


def write_times(file: Path, times: dict[str, int], taken: int) -> None:
    """Keep ``times`` (read from ``taken`` on) in ``file``, as :func:`read_times` reads them:
    written in parts (~4,000 folders each, a line each, the folders sorted), so the JSON text
    of ~745,000 folders (at 310,000 records, ~120 MB as text and bytes) is never whole in
    memory during the merge, nor when read (:func:`read_kept`). One JSON object all the
    same."""
    write_sorted_times(file, ((folder, times[folder]) for folder in sorted(times)), taken)


def write_sorted_times(file: Path, times: Iterable[tuple[str, int]], taken: int) -> None:
    """:func:`write_times` of folders and their times given sorted by folder."""
    atomic_write(file, itertools.chain((_times_head(taken),),
                                       json_parts(times, TIMES_PART, b",\n"), (_TIMES_TAIL,)))


def _times_head(taken: int) -> bytes:
    return f'{{"taken": {int(taken)}, "times": {{\n'.encode()


_TIMES_TAIL = b"\n}}\n"


def keep_tree_times(tree: Path, file: Path, trusted: Callable[[array[int]], int]) -> None:
    """Keep the times of every folder of ``tree`` in ``file``, as :func:`write_times` does,
    read a folder at a time (:func:`sorted_folders`): their text goes to an unnamed
    temporary file beside ``file`` until ``trusted``, given the times (8 bytes a folder),
    says when they count as read. Noting the folders a merge made as it linked them, then
    their times, held both for every folder of the site at once (13.1 MB traced at 20,000
    records, 44,737 folders; ~745,000 at 310,000)."""
    times = array("q")

    def read() -> Iterator[tuple[str, int]]:
        for relative in sorted_folders(tree):
            times.append(os.lstat(os.path.join(tree, relative)).st_mtime_ns)
            yield relative, times[-1]

    with tempfile.TemporaryFile(dir=file.parent) as body:
        for part in json_parts(read(), TIMES_PART, b",\n"):
            body.write(part)
        head = _times_head(trusted(times))
        body.seek(0)
        atomic_write(file, itertools.chain((head,), iter(partial(body.read, 1 << 16), b""),
                                           (_TIMES_TAIL,)))


def sorted_folders(tree: Path) -> Iterator[str]:
    """Every folder of ``tree`` (relative; ``""`` for itself; not through links), in the
    order of their paths sorted as text, which :func:`write_times` keeps them in: one
    folder's listing at a time is held."""
    yield ""
    yield from _sorted_below(str(tree), "")


def _sorted_below(root: str, relative: str) -> Iterator[str]:
    with os.scandir(os.path.join(root, relative)) as found:
        names = sorted(entry.name for entry in found if entry.is_dir(follow_symlinks=False))
    prefix = f"{relative}/" if relative else ""
    # What folder "a" holds ("a/…") sorts after a folder "a-b" ("-" < "/"): it comes once
    # the names before "a/" are out. The folders waiting for theirs are a stack: each one
    # pushed ("a-b") sorts between the one under it and that one's "/" ("a" and "a/"), so
    # its own insides ("a-b/…") come first.
    waiting: list[str] = []
    for name in names:
        while waiting and f"{waiting[-1]}/" < name:
            yield from _sorted_below(root, prefix + waiting.pop())
        yield prefix + name
        waiting.append(name)
    while waiting:
        yield from _sorted_below(root, prefix + waiting.pop())


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
    write_times(file, kept, taken)


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

    kept: Kept
    """The tree's kept folder times."""
    stats: array[int]
    """:func:`folder_time` of each of their folders, in order."""


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
        kept = read_kept(ahead.file)
        early = None
        if kept is not None:
            early = Early(kept, folder_times(ahead.tree, kept.folders, ahead.stop))
    except BaseException as exc:  # told to the merge, which then reads them itself
        ahead.early.set_exception(exc)
        return
    ahead.early.set_result(early)
