"""Whether the live site is still the tree the last merge left: a build with nothing to do then
leaves it alone, with no merge and no swap.

A merge keeps the folder times of each tree it repairs (:mod:`errdocs.site.merge`): the live
site's are those its last repair read, and re-read for the folders its update changed. Every
change to what a folder holds sets its time (a file added, removed or renamed over; a folder
removed or replaced changes its parent's), so a folder whose time is still the one kept holds
what it held. A time kept within :data:`~errdocs.site.merge.RACY_NS` of the reading is not
trusted (a change in that clock tick leaves it), nor is the site folder's own (the merge writes
the sitemap and its marker there after the times were read): those folders, a few, are listed
and compared with the units' outputs. A file written into in place changes no folder's time:
:mod:`errdocs.site.edits` looks for those, and this is asked only when it found none.

At 310,000 records this is ~745,000 ``lstat`` calls on folders whose inodes the look at the
live site's files has just read: 4-7 s with the kept times read, where the merge looked at the
spare tree's folders (22 s out of the cache) before linking nothing and swapping.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from pathlib import Path

from errdocs.site.folders import NOT_A_FOLDER, KeptFile, folder_time, times_file
from errdocs.site.merge import (
    RACY_NS,
    SETTLE_FOLDERS,
    SKIPPED,
    MergeError,
    UnitOutput,
    Wanted,
    same_content,
)
from errdocs.site.state import Place, live_is_known

LISTED = SETTLE_FOLDERS
"""Folders whose time cannot tell (changed, or too recent to trust) the check lists at most;
beyond that the site is merged (a refresh's merge waits until its folders' times can be
trusted when it changed more: :func:`errdocs.site.merge._trusted_from`)."""


def live_intact(work: Path, target: Path, units: Sequence[UnitOutput]) -> bool:
    """True when the live site ``target`` holds exactly the files of ``units`` as the last
    merge left them, by its folders' kept times; False when that cannot be told (no times or
    seal kept, another site put there, a unit's output missing) or anything differs."""
    place = Place.find(work, target)
    if place is None:
        return False
    state = place.read()
    if (not live_is_known(place, state) or not isinstance(state.get("sealed"), int)
            or state.get("live") != {u.name: u.key for u in units}):
        return False
    file = times_file(place.folder, place.target)
    doubtful = None if file is None else _doubtful_in(str(target), file)
    if doubtful is None:
        return False
    wanted = Wanted(units)
    try:
        return all(_holds(str(target), relative, wanted) for relative in doubtful)
    except (MergeError, OSError):
        return False


def _doubtful_in(root: str, file: Path) -> list[str] | None:
    """:func:`_doubtful` of the times kept in ``file``, read a part at a time (a dict of every
    folder was held: 44,736 at 20,000 records); None too when there are none or they are not
    what a repair writes."""
    try:
        with file.open("rb") as lines:
            kept = KeptFile(lines)
            return _doubtful(root, kept.items(), kept.taken)
    except (OSError, ValueError):
        return None


def _doubtful(root: str, times: Iterable[tuple[str, int]], taken: int) -> list[str] | None:
    """The folders whose time does not tell that they hold what they held (the site folder's
    always); None when a folder is gone or there are more than :data:`LISTED`."""
    trusted_before = taken - RACY_NS
    doubtful = [""]
    for relative, kept in times:
        mtime = folder_time(f"{root}/{relative}" if relative else root)
        if mtime == NOT_A_FOLDER:
            return None
        if relative and (mtime != kept or kept >= trusted_before):
            doubtful.append(relative)
            if len(doubtful) > LISTED:
                return None
    return doubtful


def _holds(root: str, relative: str, wanted: Wanted) -> bool:
    """Whether the folder holds exactly the units' files there (their very files, or copies
    of them on another file system) and their folders; the site folder may also hold what the
    merge writes there (the sitemap, the marker)."""
    want = wanted.of(relative)
    files: set[str] = set()
    folders: set[str] = set()
    with os.scandir(f"{root}/{relative}" if relative else root) as entries:
        for entry in entries:
            if entry.is_dir(follow_symlinks=False):
                folders.add(entry.name)
            elif not relative and entry.name in SKIPPED:
                continue
            else:
                source = want.files.get(entry.name)
                if source is None or not same_content(entry, *source):
                    return False
                files.add(entry.name)
    return files == want.files.keys() and folders == want.folders.keys()
