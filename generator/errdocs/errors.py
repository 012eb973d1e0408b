"""The one exception family: everything errdocs reports to a person is an :class:`ErrdocsError`.

The CLI catches it once (``cli.main``) and prints its message as one line with exit code 1;
operating-system failures (:class:`OSError`) are turned into one line there too, by
:func:`os_failure`. Modules raise a subclass that says which stage failed.
"""

from __future__ import annotations

import errno


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
    errno.ENOSPC: "the disk is full: free some space and build again",
    errno.EDQUOT: "the disk quota is used up: free some space and build again",
    errno.EACCES: "permission denied: make it writable (or choose another folder)",
    errno.EPERM: "operation not permitted: make it writable (or choose another folder)",
    errno.EROFS: "the file system is read-only: choose another folder",
    errno.ENOTDIR: "a file stands where a folder must be: move it away",
    errno.EISDIR: "a folder stands where a file must be: move it away",
    errno.EBUSY: "it is busy (a mount point or in use): choose another folder",
    errno.EIO: "an input/output error: check the disk",
}


def os_failure(exc: OSError) -> str:
    """One line for an operating-system failure: the path and what to do about it."""
    where = exc.filename if exc.filename is not None else "(unknown path)"
    hint = _HINTS.get(exc.errno or 0, exc.strerror or type(exc).__name__)
    return f"{where}: {hint}"
