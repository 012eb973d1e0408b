"""A build's preparation in a child process (:func:`in_child`).

What the preparation makes and holds (the catalogue, the records' light copies: ~900 MB at
310,000 records) stays in the heap of the process that made it: once freed it is fragmented,
and CPython gives little of it back. Made in a child that ends once the plan is made and
every unit's slice written, it all goes with the child: the build process then holds the plan
alone while the units build and the site is merged.

The child asks the build process for what only that process can give (a walk or a look its
workers run, started before the child was forked): :class:`Asking`.
"""

from __future__ import annotations

import contextlib
import ctypes
import multiprocessing
import os
import signal
import sys
from collections.abc import Callable, Mapping
from multiprocessing.connection import Connection
from typing import Any, NoReturn, TypeVar

from errdocs.errors import BuildFailed
from errdocs.units.workers import die_with

T = TypeVar("T")

Answers = Mapping[str, Callable[[], object]]
"""What the child may ask the build process for, by name."""


NAME = b"errdocs-plan"
"""The child's process name, as ``ps`` and ``top`` show it (Linux)."""


class ChildDied(BuildFailed):
    """The preparing child process ended without an outcome (killed, or out of memory)."""


class Asking:
    """In the child: asks the build process (:func:`in_child`'s ``answers``)."""

    def __init__(self, connection: Connection) -> None:
        self._connection = connection

    def __call__(self, name: str) -> Any:
        """What the build process's answer ``name`` gave (raising what it raised)."""
        self._connection.send(("ask", name))
        failed, value = self._connection.recv()
        if failed:
            raise value
        return value


def in_child(function: Callable[..., T], args: tuple[object, ...], answers: Answers) -> T:
    """``function(asking, *args)`` run in a child process forked now; its result (pickled: keep
    it small, a path rather than what it names), or what it raised, raised here. Meanwhile
    this process answers the child's questions (``asking(name)`` runs ``answers[name]``). The
    child dies with this process; killed, it fails the build with one line."""
    ours, theirs = multiprocessing.Pipe()
    parent = os.getpid()
    child = os.fork()
    if child == 0:
        ours.close()
        _child(parent, theirs, function, args)
    theirs.close()
    waited = _Waited(child)
    try:
        with ours:
            return _served(ours, answers, waited)
    finally:
        waited.end()


class _Waited:
    """The child, reaped once (its pid is not killed after: another process may have it)."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.status: int | None = None

    def wait(self) -> int:
        if self.status is None:
            self.status = os.waitpid(self.pid, 0)[1]
        return self.status

    def end(self) -> None:
        """Kill the child unless reaped (a failure here: it must not write on), and reap it."""
        if self.status is None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, signal.SIGKILL)
            self.wait()


def _served(connection: Connection, answers: Answers, child: _Waited) -> Any:
    """Answer the child until it sends its outcome; raise what it raised."""
    while True:
        try:
            kind, payload = connection.recv()
        except EOFError:
            raise _died(child.wait()) from None
        if kind == "done":
            child.wait()  # its memory is given back before the build goes on
            failed, value = payload
            if failed:
                raise value
            return value
        try:
            answer: tuple[bool, object] = (False, answers[payload]())
        except Exception as exc:  # raised in the child, where the preparation asked
            answer = (True, exc)
        connection.send(answer)


def _died(status: int) -> ChildDied:
    how = f"exit code {os.waitstatus_to_exitcode(status)}"
    if os.WIFSIGNALED(status):
        with contextlib.suppress(ValueError):
            how = f"killed by {signal.Signals(os.WTERMSIG(status)).name}"
    return ChildDied(f"the process preparing the build ended ({how}); if the system ran out "
                     "of memory, build with fewer jobs (-j 1)")


def _child(parent: int, connection: Connection, function: Callable[..., object],
           args: tuple[object, ...]) -> NoReturn:
    """The child of :func:`in_child`: run ``function``, send its result or what it raised, and
    end without the build process's exit handlers."""
    code = 1
    try:
        die_with(parent)
        _named(NAME)
        try:
            outcome: tuple[bool, object] = (False, function(Asking(connection), *args))
        except BaseException as exc:  # sent to be raised in the build process
            outcome = (True, exc)
        for stream in (sys.stdout, sys.stderr):
            stream.flush()
        try:
            connection.send(("done", outcome))
        except Exception as exc:  # (an exception that does not pickle)
            connection.send(("done", (True, BuildFailed(f"{outcome[1]!r} ({exc})"))))
        code = 0
    finally:
        os._exit(code)


_PR_SET_NAME = 15


def _named(name: bytes) -> None:
    """Name this process (Linux; elsewhere, or failing, it keeps its name)."""
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None).prctl(_PR_SET_NAME, ctypes.c_char_p(name))
