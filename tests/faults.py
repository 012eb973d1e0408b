"""Fault injection for the crash tests: fail or kill a build at its k-th filesystem write.

:func:`install` wraps the functions through which errdocs, MkDocs, Jinja and the standard
library change the file system (``open`` for writing, ``os.open`` with a write flag, ``mkdir``,
``link``, ``symlink``, ``rename``, ``replace``, ``unlink``, ``rmdir``, ``chmod``, ``utime``)
and counts the calls whose path is inside one folder (the project). Nothing in errdocs knows
about it: the build pays nothing for it, and every write is reachable, not only the ones a
hook was put next to. At the k-th counted call it acts as :class:`Plan` says:

- ``ENOSPC`` / ``EIO``: a write that fails as the kernel fails it. Opening a file for writing
  creates (or truncates) it and then fails without naming it, as a full disk fails a
  ``write()`` or ``close()``; any other call fails naming its path.
- ``EACCES``: the call fails naming its path and changes nothing.
- ``kill``: the process is killed with SIGKILL, no handler or ``finally`` runs. A file opened
  for writing is created (or truncated) first, so the kill leaves it torn.
- ``pause``: the process writes its pid to :attr:`Plan.signal` and waits (for a test to kill
  it, or its parent, with ``kill -9``).

The swap of the new site with the old one (``merge._exchange``, a ``renameat2`` system call
made through ctypes) is counted too, and so is each commit of an SQLite database (the
catalogue, the history): SQLite writes from C, so ``sqlite3.connect`` gives connections whose
``COMMIT`` is counted as ``sqlite`` and fails as SQLite fails (``SQLITE_FULL``,
``SQLITE_IOERR``, ``SQLITE_READONLY``); a commit that writes the catalogue's journal is
logged as ``catalog.sqlite#journal`` (:data:`_MARKED`). Two-path calls are logged with the
path they write.

Forked children inherit the wrappers (each counts for itself): the crash suite runs builds
with one job so the count is the build's.
"""

from __future__ import annotations

import builtins
import errno
import io
import json
import os
import re
import signal
import sqlite3
import sys
import time
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from errdocs.site import merge

ERRNOS = {"ENOSPC": errno.ENOSPC, "EIO": errno.EIO, "EACCES": errno.EACCES}
_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND


@dataclass
class Plan:
    """What to do, and where."""

    root: str
    """Only calls on paths inside this folder are counted (absolute)."""
    action: str = "record"
    """``record`` (count only), ``ENOSPC``, ``EIO``, ``EACCES`` or ``kill``."""
    k: int = 0
    """The call (1-based, among those counted) that fails or kills; 0: none."""
    match: str = ""
    """Count only calls whose path (relative to ``root``) contains this."""
    operation: str = ""
    """Count only this operation (``open``, ``link``, ``exchange``...); empty: all."""
    log: list[tuple[str, str]] = field(default_factory=list)
    """(operation, relative path) of every counted call, in order."""
    signal: str = ""
    """``pause``: the file the paused process writes its pid to."""


_plan: Plan | None = None
_real: dict[tuple[object, str], Callable[..., Any]] = {}


def install(plan: Plan) -> None:
    """Wrap the file-system functions (once); count and act for ``plan`` from now on."""
    global _plan
    _plan = plan
    if _real:
        return
    _wrap(builtins, "open", _open_kind)
    _wrap(io, "open", _open_kind)
    _wrap(os, "open", lambda args, kw: "open" if (args[1] if len(args) > 1 else kw.get(
        "flags", 0)) & _WRITE_FLAGS else None)
    for name in ("mkdir", "unlink", "remove", "rmdir"):
        _wrap(os, name, _if_exists(name, want=name != "mkdir"))
    for name in ("link", "symlink", "rename", "replace"):
        _wrap(os, name, _always(name), _destination)
    for name in ("chmod", "utime"):
        _wrap(os, name, _always(name))
    _wrap(merge, "_exchange", _always("exchange"), _destination)
    real_connect = sqlite3.connect
    _real[(sqlite3, "connect")] = real_connect

    def connect(database: Any, *args: Any, **kw: Any) -> sqlite3.Connection:
        kw.setdefault("factory", _Counted)
        connection = real_connect(database, *args, **kw)
        connection.database = str(database)
        return connection

    sqlite3.connect = connect  # type: ignore[assignment]


_SQLITE_ERRORS = {"ENOSPC": ("SQLITE_FULL", "database or disk is full"),
                  "EIO": ("SQLITE_IOERR_WRITE", "disk I/O error"),
                  "EACCES": ("SQLITE_READONLY", "attempt to write a readonly database")}


_MARKED = re.compile(r"^\s*(?:INSERT\b.*?\bINTO|DELETE\s+FROM|UPDATE(?:\s+OR\s+\w+)?)\s+"
                     r"(journal)\b", re.IGNORECASE | re.DOTALL)
"""A write to a table whose commits are told apart from the others of its database: the
catalogue's journal (:mod:`errdocs.site.journal`), the one write before the units' that makes
their pages' Markdown safe to rewrite. Its commit is logged as ``catalog.sqlite#journal``."""


class _Counted(sqlite3.Connection):
    """A connection whose commits count as writes of its database file."""

    database = ""
    marked = ""
    """:data:`_MARKED`'s table this transaction wrote, if any."""

    def execute(self, sql: str, *args: Any) -> sqlite3.Cursor:
        if sql.strip().upper().startswith(("COMMIT", "END")):
            _count_commit(self.database, self.marked)
            self.marked = ""
        self._note(sql)
        return super().execute(sql, *args)

    def executemany(self, sql: str, *args: Any) -> sqlite3.Cursor:
        self._note(sql)
        return super().executemany(sql, *args)

    def commit(self) -> None:
        _count_commit(self.database, self.marked)
        self.marked = ""
        super().commit()

    def _note(self, sql: str) -> None:
        if match := _MARKED.match(sql):
            self.marked = match.group(1).lower()


def _count_commit(database: str, marked: str = "") -> None:
    plan = _plan
    path = os.path.abspath(database) if database else ""
    if plan is None or not (path + "/").startswith(plan.root + "/"):
        return
    relative = os.path.relpath(path, plan.root)
    if plan.match not in relative or plan.operation not in ("", "sqlite"):
        return
    plan.log.append(("sqlite", f"{relative}#{marked}" if marked else relative))
    if len(plan.log) != plan.k or plan.action in ("record", "pause"):
        return
    if plan.action == "kill":
        sys.stdout.flush()
        sys.stderr.flush()
        os.kill(os.getpid(), signal.SIGKILL)
    name, message = _SQLITE_ERRORS[plan.action]
    error = sqlite3.OperationalError(message)
    error.sqlite_errorname = name
    raise error


def _always(name: str) -> Callable[[Sequence[Any], dict[str, Any]], str | None]:
    """Count every call as ``name``."""
    return lambda args, kw: name


def real_open(*args: Any, **kw: Any) -> Any:
    """``open`` without counting."""
    return _real.get((builtins, "open"), builtins.open)(*args, **kw)


def install_from_env() -> None:
    """Install the plan in ``$ERRDOCS_FAULT_PLAN`` (JSON of :class:`Plan`'s fields): how a
    test puts one in a real ``errdocs`` process (see :data:`BOOTSTRAP`)."""
    if os.environ.get("ERRDOCS_FAULT_PLAN"):
        install(Plan(**json.loads(os.environ["ERRDOCS_FAULT_PLAN"])))


BOOTSTRAP = ("import sys; sys.path.insert(0, sys.argv.pop(1)); from tests import faults; "
             "faults.install_from_env(); from errdocs.cli import main; "
             "main(prog_name='errdocs')")
"""``python -c BOOTSTRAP ROOT ARGS...``: ``errdocs ARGS...`` with the plan of the environment."""


def uninstall() -> None:
    """Stop counting (the wrappers stay, doing nothing but call through)."""
    global _plan
    _plan = None


def _open_kind(args: Sequence[Any], kw: dict[str, Any]) -> str | None:
    mode = args[1] if len(args) > 1 else kw.get("mode", "r")
    return "open" if any(c in str(mode) for c in "wax+") else None


def _if_exists(name: str, *, want: bool) -> Callable[[Sequence[Any], dict[str, Any]],
                                                      str | None]:
    """Count ``name`` only when it would change something: mkdir of a new folder, unlink or
    rmdir of something there (the kernel answers the others with EEXIST or ENOENT)."""
    def kind(args: Sequence[Any], kw: dict[str, Any]) -> str | None:
        path = _path(args, kw)
        return name if path is not None and os.path.lexists(path) == want else None
    return kind


def _path(args: Sequence[Any], kw: dict[str, Any]) -> str | None:
    target = args[0] if args else kw.get("path", kw.get("file", kw.get("src")))
    return _absolute(target, kw.get("dir_fd") or kw.get("src_dir_fd"))


def _destination(args: Sequence[Any], kw: dict[str, Any]) -> str | None:
    """Where a two-path call (link, rename...) writes."""
    target = args[1] if len(args) > 1 else kw.get("dst")
    return _absolute(target, kw.get("dst_dir_fd"))


def _absolute(target: object, dir_fd: object) -> str | None:
    if isinstance(target, int):  # an open file descriptor
        return None
    try:
        path = os.fsdecode(os.fspath(target))  # type: ignore[call-overload]
    except TypeError:
        return None
    if isinstance(dir_fd, int) and not os.path.isabs(path):
        path = os.path.join(os.readlink(f"/proc/self/fd/{dir_fd}"), path)
    return os.path.abspath(path)


def _wrap(module: object, name: str,
          kind_of: Callable[[Sequence[Any], dict[str, Any]], str | None],
          where: Callable[[Sequence[Any], dict[str, Any]], str | None] = _path) -> None:
    real = getattr(module, name)
    _real[(module, name)] = real

    def wrapper(*args: Any, **kw: Any) -> Any:
        plan = _plan
        if plan is None:
            return real(*args, **kw)
        kind = kind_of(args, kw)
        path = where(args, kw) if kind else None
        if kind is None or path is None or not (path + "/").startswith(plan.root + "/"):
            return real(*args, **kw)
        relative = os.path.relpath(path, plan.root)
        if plan.match not in relative or plan.operation not in ("", kind):
            return real(*args, **kw)
        plan.log.append((kind, relative))
        if len(plan.log) != plan.k or plan.action == "record":
            return real(*args, **kw)
        return _act(plan.action, kind, path, real, args, kw)

    setattr(module, name, wrapper)


def _act(action: str, kind: str, path: str, real: Callable[..., Any],
         args: Sequence[Any], kw: dict[str, Any]) -> Any:
    if action == "pause":
        assert _plan is not None
        with real_open(_plan.signal + ".tmp", "w") as handle:
            handle.write(f"{os.getpid()}\n")
        _real[(os, "replace")](_plan.signal + ".tmp", _plan.signal)
        time.sleep(120)
        os._exit(3)  # nobody came: the test fails on the exit code
    low_level = real is _real[(os, "open")]
    if kind == "open" and (action == "kill" or (action != "EACCES" and not low_level)):
        opened = real(*args, **kw)  # created or truncated, as a torn or failed write leaves it
        os.close(opened) if low_level else opened.close()
    if action == "kill":
        sys.stdout.flush()
        sys.stderr.flush()
        os.kill(os.getpid(), signal.SIGKILL)
    code = ERRNOS[action]
    if kind == "open" and action != "EACCES" and not low_level:
        raise OSError(code, os.strerror(code))  # write() and close() name no file
    raise OSError(code, os.strerror(code), path)


@dataclass(frozen=True)
class Outcome:
    """How a forked command ended."""

    code: int
    """Exit code; -9 when it was killed."""
    stdout: str
    stderr: str
    log: list[tuple[str, str]]
    """The counted calls (up to the fault)."""


def run_forked(command: Callable[[], object], plan: Plan | None, scratch: Path) -> Outcome:
    """Run ``command`` (a CLI call that may raise SystemExit) in a forked child with ``plan``
    installed; its output goes to files in ``scratch``. An exception that escapes it is
    printed with its traceback, as the Python interpreter would."""
    out, err, log = scratch / "stdout.txt", scratch / "stderr.txt", scratch / "log.json"
    log.unlink(missing_ok=True)
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:  # the child: never returns into pytest
        code = 70
        try:
            with open(out, "w") as stdout, open(err, "w") as stderr:
                sys.stdout, sys.stderr = stdout, stderr
                os.dup2(stdout.fileno(), 1)
                os.dup2(stderr.fileno(), 2)
                try:
                    if plan is not None:
                        install(plan)
                    command()
                    code = 0
                except SystemExit as exc:
                    code = exc.code if isinstance(exc.code, int) else 1
                except BaseException:
                    traceback.print_exc()
                    code = 1
                finally:
                    uninstall()
                    stdout.flush()
                    stderr.flush()
                    if plan is not None:
                        (scratch / "log.json").write_text(json.dumps(plan.log))
        finally:
            os._exit(code)
    _pid, status = os.waitpid(pid, 0)
    code = os.waitstatus_to_exitcode(status)
    calls = [tuple(c) for c in json.loads(log.read_text())] if log.is_file() else []
    return Outcome(code, out.read_text(), err.read_text(), calls)
