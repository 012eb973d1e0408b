"""What errdocs remembers about each site folder it builds, kept apart site by site.

The merge (:mod:`errdocs.site.merge`) keeps a spare tree one build behind the live site and a state
file saying which unit versions each tree holds; the build keeps the site's history
(:mod:`errdocs.catalog.history`: what each dataset version changed) beside them. One project may
build into several site folders (``--site-dir``), so all belong to one site folder: they live in
``.errdocs/sites/ID/``, ID a hash of the site folder's absolute path. The state also records
the live folder's identity (device and inode, which renames keep): the old live site becomes
the next spare only when it is still the folder errdocs put there, not a copy or another site
moved into its place.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import time
from dataclasses import dataclass
from pathlib import Path

from errdocs.site.owner import is_ours

SITES = "sites"
STATE = "state.json"
KEPT = frozenset({STATE, "history.sqlite", "history.sqlite-journal"})
"""What a site's folder keeps when a merge clears it: its state and its history
(:mod:`errdocs.catalog.history`, with the journal SQLite rolls a killed build's changes back
with)."""
TIMES = "times-"
"""The start of the files keeping each tree's folder times (:func:`errdocs.site.merge._repair`),
which a merge's clearing keeps."""
LEGACY = "trees.json"
"""The one state file every site shared before (issue 10, finding 2); removed when seen."""


@dataclass(frozen=True)
class Place:
    """Where one site folder's state and trees are."""

    target: Path
    """The site folder (absolute)."""
    folder: Path
    """``.errdocs/sites/ID/``: the state, and the trees when renames reach the site from it."""
    home: Path
    """Where the spare, previous and new trees are made: ``folder``, or the site's parent when
    the site is on another file system (renames cannot cross file systems)."""

    @classmethod
    def of(cls, work: Path, target: Path) -> Place:
        folder = site_folder(work, target)
        folder.mkdir(parents=True, exist_ok=True)
        return cls._at(target, folder)

    @classmethod
    def find(cls, work: Path, target: Path) -> Place | None:
        """:meth:`of` when the site's folder exists (it makes nothing); None when not."""
        folder = site_folder(work, target)
        try:
            return cls._at(target, folder)
        except OSError:
            return None

    @classmethod
    def _at(cls, target: Path, folder: Path) -> Place:
        same = os.stat(folder).st_dev == os.stat(target.parent).st_dev
        return cls(target, folder, folder if same else target.parent)

    @property
    def spare(self) -> Path:
        return self.home / f".{self.target.name}-spare"

    @property
    def previous(self) -> Path:
        return self.home / f".{self.target.name}-previous"

    @property
    def staging_prefix(self) -> str:
        return f".{self.target.name}-new-"

    def read(self) -> dict[str, object]:
        """The state: ``live`` and ``spare`` (unit name to key, or None when unknown),
        ``live_id`` (the live folder's device and inode), ``site`` (its path) and ``sealed``
        (:meth:`seal`)."""
        try:
            data = json.loads((self.folder / STATE).read_text("utf-8"))
        except (OSError, ValueError):
            return {}
        return data if isinstance(data, dict) and data.get("site") == str(self.target) else {}

    def write(self, live: dict[str, str] | None, spare: dict[str, str] | None,
              sealed: int | None = None) -> None:
        """Record what the trees hold, atomically; the live folder's identity is read now.
        ``sealed``: when the live site was left as errdocs made it (ns,
        :mod:`errdocs.site.edits`); by default the one recorded, while the live folder is the
        same one."""
        now = identity(self.target)
        if sealed is None:
            before = self.read()
            kept = before.get("sealed")
            sealed = kept if isinstance(kept, int) and before.get("live_id") == now else None
        data: dict[str, object] = {"site": str(self.target), "live": live, "spare": spare,
                                   "live_id": now}
        if sealed is not None:
            data["sealed"] = sealed
        tmp = self.folder / (STATE + ".tmp")
        tmp.write_text(json.dumps(data), "utf-8")
        os.replace(tmp, self.folder / STATE)

    def seal(self) -> None:
        """Note that every file of the live site is as errdocs left it now: a later write into
        one gives it a later time (:mod:`errdocs.site.edits`)."""
        state = self.read()
        live, spare = state.get("live"), state.get("spare")
        self.write(live if isinstance(live, dict) else None,
                   spare if isinstance(spare, dict) else None, time.time_ns())

    def clear(self) -> None:
        """Remove what an interrupted merge left in this site's folder (under the build lock,
        so no other build is using it)."""
        for child in self.folder.iterdir():
            if child.name not in KEPT and child.name != self.spare.name and not (
                    child.name.startswith(TIMES) and child.name.endswith(".json")):
                _remove(child)


def site_folder(work: Path, target: Path) -> Path:
    """``.errdocs/sites/ID/``, ID a hash of the site folder's absolute path."""
    return work / SITES / hashlib.sha256(os.fsencode(target)).hexdigest()[:16]


def identity(path: Path) -> list[int] | None:
    """Device and inode of a folder (kept by renames), or None when it is missing."""
    try:
        info = os.stat(path)
    except OSError:
        return None
    return [info.st_dev, info.st_ino]


def live_is_known(place: Place, state: dict[str, object]) -> bool:
    """True when the site folder is the one the last merge put there, unchanged in kind."""
    found = identity(place.target)
    return found is not None and found == state.get("live_id") and is_ours(place.target)


def forget_others(work: Path, keep: Place) -> None:
    """Drop the state (and spare tree) of site folders that no longer hold the site errdocs put
    there: deleted, moved or replaced. Their trees would only take room. (A spare tree made
    beside a site on another file system is left there.)"""
    root = work / SITES
    for folder in root.iterdir() if root.is_dir() else []:
        if folder != keep.folder and not _alive(folder):
            # Its history stays: it is reset only when asked (errdocs build --reset-history).
            for child in folder.iterdir():
                if not child.name.startswith("history.sqlite"):
                    _remove(child)
            if not any(folder.iterdir()):
                folder.rmdir()
    (work / LEGACY).unlink(missing_ok=True)
    for pattern in (".*-spare", ".*-previous", ".*-new-*"):  # trees older versions kept here
        for child in work.glob(pattern):
            _remove(child)


def _alive(folder: Path) -> bool:
    """True when the site folder a state folder is about still holds that site."""
    try:
        state = json.loads((folder / STATE).read_text("utf-8"))
        site = Path(state["site"])
        return identity(site) == state.get("live_id") and is_ours(site)
    except (OSError, ValueError, KeyError, TypeError):
        return False


def _remove(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path, ignore_errors=True)
    else:
        path.unlink(missing_ok=True)
