"""The one exception family: everything errdocs reports to a person is an :class:`ErrdocsError`.

The CLI catches it once (``cli.main``) and prints its message as one line with exit code 1;
operating-system failures (:class:`OSError`) are turned into one line there too, by
:func:`os_failure`. Modules raise a subclass that says which stage failed.
"""

from __future__ import annotations

import errno
import os
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import PurePath


class ErrdocsError(Exception):
    """A failure errdocs explains in one line; ``str(exc)`` is that line."""

    consequence = ""
    """What the failure left as it was, said after the message (``; ...``) by the CLI."""

    def line(self) -> str:
        """The line the CLI prints: the message, then the consequence."""
        return f"{self}; {self.consequence}" if self.consequence else str(self)


class InputError(ErrdocsError):
    """The input cannot be used as given (a path, an option, ``--strict`` problems)."""


class BuildFailed(ErrdocsError):
    """A stage of the build failed; the previous site was left as it was."""

    consequence = "the previous site was left as it was"


_HINTS = {
    errno.ENOSPC: "the disk is full: free some space and try again",
    errno.EDQUOT: "the disk quota is used up: free some space and try again",
    errno.EACCES: "permission denied: let errdocs write there, or choose another folder",
    errno.EPERM: "operation not permitted: let errdocs write there, or choose another folder",
    errno.EROFS: "the file system is read-only: choose another folder",
    errno.ENOTDIR: "a file stands where a folder must be: move it away",
    errno.EEXIST: "a file stands where a folder must be: move it away",
    errno.EISDIR: "a folder stands where a file must be: move it away",
    errno.EBUSY: "it is busy (a mount point, or in use): choose another folder",
    errno.EIO: "an input/output error: check the disk, then try again",
    errno.ENOENT: "it is gone (moved or deleted while errdocs ran): try again",
}


_SQLITE_ERRNO = {"SQLITE_FULL": errno.ENOSPC, "SQLITE_IOERR": errno.EIO,
                 "SQLITE_READONLY": errno.EACCES, "SQLITE_CANTOPEN": errno.EACCES,
                 "SQLITE_PERM": errno.EACCES}
"""SQLite's result codes for what the operating system refused, as the errno it stands for."""


def sqlite_failure(exc: sqlite3.Error, path: str | os.PathLike[str]) -> OSError | None:
    """A failure of SQLite to write ``path`` (a full disk, an I/O error, no permission) as
    the :class:`OSError` it comes from, so it is said as any other (:func:`os_failure`);
    ``None`` when it is not one (a damaged or foreign file)."""
    name = getattr(exc, "sqlite_errorname", "") or ""
    code = next((e for prefix, e in _SQLITE_ERRNO.items()
                 if name == prefix or name.startswith(prefix + "_")), None)
    return None if code is None else OSError(code, os.strerror(code), os.fspath(path))


def os_failure(exc: OSError) -> str:
    """One line for an operating-system failure: the path and what to do about it.

    ``docs/errors/tags/x.md: a file stands where a folder must be`` would leave the person
    looking for which one: a failure to go through a folder names the file that is in the way.
    """
    where = exc.filename if exc.filename is not None else "(unknown path)"
    if exc.errno == errno.ENOTDIR and exc.filename is not None:
        where = _in_the_way(os.fsdecode(exc.filename))
    hint = _HINTS.get(exc.errno or 0, exc.strerror or type(exc).__name__)
    return f"{where}: {hint}"


def _in_the_way(path: str) -> str:
    """The first folder of ``path`` that is not a folder (``path`` itself when none is)."""
    parts = PurePath(path).parts
    for end in range(1, len(parts)):
        candidate = PurePath(*parts[:end])
        if os.path.lexists(candidate) and not os.path.isdir(candidate):
            return str(candidate)
    return path


@contextmanager
def naming(path: object) -> Iterator[None]:
    """Name ``path`` in an OSError that names no file.

    A full disk fails a ``write()`` or ``close()``, and such an error says only "No space left
    on device": the person needs to know which disk, so the folder being written is named.
    """
    try:
        yield
    except OSError as exc:
        if exc.filename is None:
            exc.filename = os.fspath(path)  # type: ignore[call-overload]
        raise
