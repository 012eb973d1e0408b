"""One build at a time in a project: an exclusive ``flock`` on ``.errdocs/build.lock``.

The operating system releases the lock when the process holding it ends, however it ends
(``kill -9`` included), so a lock is never left behind. A second build does not wait: it
exits at once with the process id of the build holding the lock, which the holder writes into
the file once it has the lock.
"""

from __future__ import annotations

import fcntl
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from errdocs.errors import ErrdocsError

LOCK = "build.lock"
_HELD: set[int] = set()
"""Descriptors of locks this process holds."""


def _forget_in_child() -> None:
    # A process forked while the lock is held (a worker the pool starts again) shares the
    # lock: if the build died, that process would keep it. Closing the child's copy drops
    # only the child's share (flock is released when every copy is closed).
    for fd in _HELD:
        os.close(fd)
    _HELD.clear()


os.register_at_fork(after_in_child=_forget_in_child)


class BuildRunning(ErrdocsError):
    """Another errdocs build holds the project's lock; this one touched nothing."""

    consequence = "nothing was touched; run it again when that build has finished"


@contextmanager
def project_lock(work: Path) -> Iterator[None]:
    """Hold the project's build lock for the ``with`` block; BuildRunning if another build
    holds it."""
    work.mkdir(parents=True, exist_ok=True)
    path = work / LOCK
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise BuildRunning(f"another errdocs build is running (pid {_holder(fd)}) in "
                               f"{work.parent}") from None
        _HELD.add(fd)
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        yield
    finally:
        _HELD.discard(fd)
        os.close(fd)  # closing releases the lock


def _holder(fd: int) -> str:
    """The pid the holder wrote, or ``?`` if it has not written it yet."""
    text = os.pread(fd, 32, 0).decode("ascii", "replace").strip()
    return text if text.isdigit() else "?"
