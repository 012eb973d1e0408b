"""Run unit builds on every core: a pool of worker processes forked before the records are read.

Workers that inherit the parent's heap (every light record, the catalogue) copy much of it:
CPython's reference counting writes to every object a worker touches, so memory grew with N
rather than with a unit. Here the pool is forked when the build starts, while this process
holds only its code; each task then carries one unit, and the slice of the catalogue its pages
need (:func:`errdocs.units.build.for_unit`) is pickled into a file in the unit's folder. The
worker builds the unit in a child process of its own (:func:`_forked`), which takes the slice,
drops it once the unit's pages are written, and takes what the unit allocated with it when it
ends. Forking (rather than a fork
server or fresh interpreters) keeps the workers' environment, working folder and imported code
those of this process. One worker (``jobs=1``) runs in-process.

A worker dies with the build: on Linux it asks for SIGKILL when its parent goes
(``PR_SET_PDEATHSIG``), so a build killed with SIGKILL leaves no worker writing into the files
of the next build. And the build fails when a worker dies (the system's out-of-memory killer,
a ``kill``): :mod:`concurrent.futures` tells a dead worker (``BrokenProcessPool``), where
:class:`multiprocessing.pool.Pool` started another and waited forever for the lost unit.
"""

from __future__ import annotations

import contextlib
import ctypes
import itertools
import multiprocessing
import os
import pickle
import signal
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from multiprocessing.process import BaseProcess
from pathlib import Path
from types import TracebackType
from typing import Any, NoReturn, TypeVar, cast

from errdocs.errors import BuildFailed
from errdocs.pages.render import warm
from errdocs.pages.write import TEMPORARY
from errdocs.units.build import (
    Context,
    UnitResult,
    build_unit,
    finish_unit,
    for_unit,
    stage_unit,
    unit_dir,
)
from errdocs.units.plan import Unit, UnitKind
from errdocs.units.state import Built

T = TypeVar("T")


def default_jobs() -> int:
    """One worker per core this process may use."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (
        os.cpu_count() or 1)


class WorkerDied(BuildFailed):
    """A worker process ended while it held a task (killed, or out of memory)."""


class Workers:
    """``jobs`` worker processes, forked when made: make them before reading the records."""

    def __init__(self, jobs: int) -> None:
        self._jobs = jobs
        self._pool: ProcessPoolExecutor | None = None
        self._processes: list[BaseProcess] = []
        if jobs > 1:
            self._pool = ProcessPoolExecutor(jobs, multiprocessing.get_context("fork"),
                                             _start, (os.getpid(),))
            # With fork, the first task starts every worker: now, while this process holds
            # only its code (a worker forked later would share the records' pages).
            self._pool.submit(int)
            # Kept to stop them when the build ends or fails (the executor waits for a
            # running task; Python 3.14's terminate_workers is not in 3.11).
            self._processes = list(self._pool._processes.values())

    def __enter__(self) -> Workers:
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 trace: TracebackType | None) -> None:
        if self._pool is not None:
            for process in self._processes:
                process.terminate()
            self._pool.shutdown(wait=True, cancel_futures=True)

    def call(self, function: Callable[..., T], *args: object) -> Callable[[], T] | None:
        """Start ``function(*args)`` in a worker, beside this process (which keeps its
        interpreter lock): what waits for its result (raising what it raised); None without
        workers (``jobs=1``). The pool's workers take units only after it ended."""
        if self._pool is None:
            return None
        future = self._submit(self._pool, function, *args)
        return lambda: cast(T, _outcome(self._result(future)))

    def run(self, ctx: Context, units: Sequence[Unit],
            done: Callable[[UnitResult], None], *, spilled: bool = False) -> None:
        """Build ``units``, the root first (the home page, the hand-written pages, the
        listings and the theme's assets: what ``errdocs serve`` shows first), then the
        biggest first so the pool ends together; call ``done`` after each. ``spilled``: each
        unit's slice is in its folder already (:func:`spill`); else it is made from ``ctx``
        as a worker is about to need it."""
        ordered = sorted(units, key=lambda u: (u.kind is not UnitKind.ROOT, -len(u.members)))
        # The slice files of this run, removed at its end: those a failed build had queued
        # (the next build's clean-up would too).
        made = [_slice(ctx.work_dir, u.name) for u in ordered] if spilled else []
        try:
            if self._pool is None or len(ordered) <= 1:
                for unit in ordered:
                    done(_work(_slice(ctx.work_dir, unit.name)) if spilled
                         else build_unit(ctx, unit))
            else:  # made as workers are about to need them: a few at a time, not one a unit
                self._run_all(self._pool, iter(made) if spilled
                              else (spill(ctx, u, made) for u in ordered), done)
        finally:
            for path in made:
                path.unlink(missing_ok=True)
            for unit in ordered if spilled else ():  # the rows of the units not built
                (unit_dir(ctx.work_dir, unit.name) / ROW).unlink(missing_ok=True)

    def _run_all(self, pool: ProcessPoolExecutor, slices: Iterator[Path],
                 done: Callable[[UnitResult], None]) -> None:
        """Build the units of ``slices`` on the pool, at most two a worker queued."""
        running = {self._submit(pool, _work, path)
                   for path in itertools.islice(slices, 2 * self._jobs)}
        while running:
            finished, running = wait(running, return_when=FIRST_COMPLETED)
            for future in finished:
                done(_outcome(self._result(future)))
                following = next(slices, None)
                if following is not None:
                    running.add(self._submit(pool, _work, following))

    def _submit(self, pool: ProcessPoolExecutor, function: Callable[..., object],
                *args: object) -> Future[bytes]:
        """``function(*args)`` started in a worker's child (:func:`_forked`), or
        :class:`WorkerDied` when a worker has died already."""
        try:
            return pool.submit(_forked, function, *args)
        except BrokenProcessPool:
            raise self._died() from None

    def _result(self, future: Future[T]) -> T:
        """What a task gave (raising what it raised), or :class:`WorkerDied`."""
        try:
            return future.result()
        except BrokenProcessPool:
            raise self._died() from None

    def _died(self) -> WorkerDied:
        return WorkerDied(f"a worker process ended while building ({self._how()}); if the "
                          "system ran out of memory, build with fewer jobs (-j 1)")

    def _how(self) -> str:
        """How the workers ended, for the one line: a signal or an exit code."""
        # The pool breaks as the worker's pipe closes, which can be before the process has
        # ended: its exit code would not be known yet ("it exited", not the signal).
        deadline = time.monotonic() + _REAP_SECONDS
        for process in self._processes:
            process.join(max(0.0, deadline - time.monotonic()))
        codes = [code for code in (p.exitcode for p in self._processes)
                 if code is not None and code != 0]
        # The executor stops the other workers with SIGTERM once one died.
        codes.sort(key=lambda code: code == -signal.SIGTERM)
        if not codes:
            return "it exited"
        code = codes[0]
        if code < 0:
            with contextlib.suppress(ValueError):
                return f"killed by {signal.Signals(-code).name}"
        return f"exit code {code}"


SLICE = f"{TEMPORARY}slice"
"""The file in a unit's folder that hands a worker the unit's slice of the context."""


ROW = f"{TEMPORARY}row"
"""The file in a unit's folder that holds the unit's row once built (:func:`write_row`)."""


def _slice(work_dir: Path, name: str) -> Path:
    return unit_dir(work_dir, name) / SLICE


def spill(ctx: Context, unit: Unit, spilled: list[Path] | None = None) -> Path:
    """Write ``unit``'s slice of ``ctx`` (:func:`for_unit`) for a worker to take (its path
    added to ``spilled``). A file, not the task's arguments: the pool keeps a task's arguments
    for as long as it runs, and this pickles a hub unit's slice (every entry of its groups) a
    part at a time rather than into one string in this process."""
    path = _slice(ctx.work_dir, unit.name)
    path.parent.mkdir(parents=True, exist_ok=True)
    if spilled is not None:
        spilled.append(path)
    with open(path, "wb") as file:
        pickle.dump(for_unit(ctx, unit), file, pickle.HIGHEST_PROTOCOL)
    return path


def write_row(ctx: Context, unit: Unit, row: Built, written: list[Path] | None = None) -> None:
    """Keep ``unit``'s row (:func:`~errdocs.units.build.built_from`) in its folder (its path
    added to ``written``), for the build process to write once the unit is built
    (:func:`taken_row`) when the catalogue it is made from is gone (a plan made in a child
    process)."""
    path = unit_dir(ctx.work_dir, unit.name) / ROW
    path.parent.mkdir(parents=True, exist_ok=True)
    if written is not None:
        written.append(path)
    with open(path, "wb") as file:
        pickle.dump(row, file, pickle.HIGHEST_PROTOCOL)


def taken_row(work_dir: Path, unit: Unit) -> Built:
    """The row :func:`write_row` kept for ``unit``, its file removed."""
    path = unit_dir(work_dir, unit.name) / ROW
    with open(path, "rb") as file:
        path.unlink()
        row: Built = pickle.load(file)
    return row


def _work(path: Path) -> UnitResult:
    # The slice is this call's alone: dropped once the unit's pages are written, before
    # MkDocs runs (see StagedUnit).
    return finish_unit(stage_unit(*_taken(path)))


def _taken(path: Path) -> tuple[Context, Unit]:
    """The slice :func:`spill` wrote, its file removed."""
    with open(path, "rb") as file:
        path.unlink()
        task: tuple[Context, Unit] = pickle.load(file)
    return task


def _forked(function: Callable[..., object], *args: object) -> bytes:
    """In a worker: ``function(*args)`` run in a child of this worker, and its outcome as
    the child pickled it (:func:`_outcome` reads it). What a unit allocates goes with its
    child: a long-lived worker's heap kept the high-water mark of every unit it had built,
    fragmented (at 310,000 records a worker held 33 MB before its first unit and 330 MB
    after twenty hub units). A child killed (out of memory) kills this worker with the same
    signal, which the build reports as a worker's death."""
    parent = os.getpid()
    read, write = os.pipe()
    child = os.fork()
    if child == 0:
        os.close(read)
        _child(parent, write, function, args)
    os.close(write)
    with open(read, "rb") as pipe:
        sent = pipe.read()  # before waiting: a child blocks on a full pipe
    _pid, status = os.waitpid(child, 0)
    if os.WIFSIGNALED(status):
        os.kill(parent, os.WTERMSIG(status))
    if not sent:
        code = os.waitstatus_to_exitcode(status)
        raise WorkerDied(f"a worker's child process ended without a result (exit code {code})")
    return sent


def _child(parent: int, write: int, function: Callable[..., object],
           args: tuple[object, ...]) -> NoReturn:
    """The child of :func:`_forked`: run ``function``, send its result or what it raised to
    ``write`` pickled, and end without the worker's exit handlers."""
    code = 1
    try:
        die_with(parent)
        try:
            outcome: tuple[bool, object] = (False, function(*args))
        except BaseException as exc:  # sent to be raised by whoever waits for the result
            outcome = (True, exc)
        try:
            sent = pickle.dumps(outcome, pickle.HIGHEST_PROTOCOL)
        except Exception as exc:  # (an exception that does not pickle)
            sent = pickle.dumps((True, BuildFailed(f"{outcome[1]!r} ({exc})")))
        with open(write, "wb") as pipe:
            pipe.write(sent)
        for stream in (sys.stdout, sys.stderr):
            stream.flush()
        code = 0
    finally:
        os._exit(code)


def _outcome(sent: bytes) -> Any:
    """What :func:`_forked`'s child gave, or what it raised, raised here."""
    failed, value = pickle.loads(sent)
    if failed:
        raise value
    return value


def _start(parent: int) -> None:
    """In a worker, as it starts: die with ``parent``; make what its first unit would make
    before rendering a page (:func:`warm`), while the build reads the records."""
    die_with(parent)
    # Whatever fails here fails again in the unit that needs it, which says so: a pool whose
    # initializer raises starts new workers forever.
    with contextlib.suppress(Exception):
        warm()


_PR_SET_PDEATHSIG = 1
_REAP_SECONDS = 2.0
"""How long a failed build waits for its workers to end, to say how the first one did."""


def die_with(parent: int) -> None:
    """In a worker: be killed when ``parent`` dies (Linux; elsewhere a no-op)."""
    try:
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
    except (OSError, AttributeError):
        return
    if os.getppid() != parent:  # it died before the request: nobody would send the signal
        os._exit(1)
