"""Scratch folders in the work folder that a killed process cannot leave behind for good.

A scratch folder (``.errdocs/bundle-XXXXXXXX/``) holds a lock file, locked (``flock``) for as
long as its process uses it; the operating system releases the lock when the process dies, even
by SIGKILL. :func:`remove_dead` removes the scratch folders whose lock nobody holds, so the next
run cleans up after a killed one without ever touching a folder in use.
"""

from __future__ import annotations

import contextlib
import fcntl
import shutil
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

from errdocs.errors import naming

PREFIX = "bundle-"
LOCK = ".lock"
UNLOCKED_GRACE = 600.0
"""Seconds a scratch folder may be without its lock file: the moment between making the
folder and locking it. Older, it was left by a process killed in that moment."""


@contextlib.contextmanager
def scratch_folder(work: Path) -> Iterator[Path]:
    """A new scratch folder, locked while in use and removed afterwards (with the work
    folder, when this made it and it is empty again)."""
    made = not work.exists()
    work.mkdir(parents=True, exist_ok=True)
    remove_dead(work)
    folder = Path(tempfile.mkdtemp(prefix=PREFIX, dir=work))
    try:
        with naming(folder), open(folder / LOCK, "wb") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)
        if made:
            with contextlib.suppress(OSError):
                work.rmdir()


def remove_dead(work: Path) -> None:
    """Remove the scratch folders of processes that are gone."""
    for folder in work.glob(f"{PREFIX}*") if work.is_dir() else ():
        if folder.is_dir() and not folder.is_symlink() and _abandoned(folder):
            shutil.rmtree(folder, ignore_errors=True)


def _abandoned(folder: Path) -> bool:
    try:
        with open(folder / LOCK, "rb") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)  # released when closed
    except BlockingIOError:
        return False  # in use
    except FileNotFoundError:
        return time.time() - folder.stat().st_mtime > UNLOCKED_GRACE
    return True
