"""Run unit builds on every core: a pool of worker processes forked before the records are read.

Workers that inherit the parent's heap (every light record, the catalogue) copy much of it:
CPython's reference counting writes to every object a worker touches, so memory grew with N
rather than with a unit. Here the pool is forked when the build starts, while this process
holds only its code; each task then carries one unit and only the slice of the catalogue its
pages need (:func:`unitbuild.for_unit`), pickled. Forking (rather than a fork server or fresh
interpreters) keeps the workers' environment, working folder and imported code those of this
process. One worker (``jobs=1``) runs in-process.

A worker dies with the build: on Linux it asks for SIGKILL when its parent goes
(``PR_SET_PDEATHSIG``), so a build killed with SIGKILL leaves no worker writing into the files
of the next build.
"""

from __future__ import annotations

import contextlib
import ctypes
import multiprocessing
import os
import signal
from collections.abc import Callable, Sequence
from multiprocessing.pool import Pool
from types import TracebackType
from typing import TypeVar

from errdocs.pages.render import warm
from errdocs.units.build import Context, UnitResult, build_unit, for_unit
from errdocs.units.plan import Unit, UnitKind

T = TypeVar("T")


def default_jobs() -> int:
    """One worker per core this process may use."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (
        os.cpu_count() or 1)


class Workers:
    """``jobs`` worker processes, forked when made: make them before reading the records."""

    def __init__(self, jobs: int) -> None:
        self._pool: Pool | None = (
            multiprocessing.get_context("fork").Pool(jobs, _start, (os.getpid(),))
            if jobs > 1 else None)

    def __enter__(self) -> Workers:
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 trace: TracebackType | None) -> None:
        if self._pool is not None:
            self._pool.terminate()
            self._pool.join()

    def call(self, function: Callable[..., T], *args: object) -> Callable[[], T] | None:
        """Start ``function(*args)`` in a worker, beside this process (which keeps its
        interpreter lock): what waits for its result (raising what it raised); None without
        workers (``jobs=1``). The pool's workers take units only after it ended."""
        if self._pool is None:
            return None
        return self._pool.apply_async(function, args).get

    def run(self, ctx: Context, units: Sequence[Unit],
            done: Callable[[UnitResult], None]) -> None:
        """Build ``units``, the root first (the home page, the hand-written pages, the
        listings and the theme's assets: what ``errdocs serve`` shows first), then the
        biggest first so the pool ends together; call ``done`` after each."""
        ordered = sorted(units, key=lambda u: (u.kind is not UnitKind.ROOT, -len(u.members)))
        if self._pool is None or len(ordered) <= 1:
            for unit in ordered:
                done(build_unit(ctx, unit))
            return
        # The pool's feeder thread pickles tasks as the pipe to the workers drains, so only
        # a few slices exist at a time.
        tasks = (for_unit(ctx, unit) for unit in ordered)
        for result in self._pool.imap_unordered(_work, tasks, chunksize=1):
            done(result)


def _work(task: tuple[Context, Unit]) -> UnitResult:
    return build_unit(*task)


def _start(parent: int) -> None:
    """In a worker, as it starts: die with ``parent``; make what its first unit would make
    before rendering a page (:func:`warm`), while the build reads the records."""
    _die_with(parent)
    # Whatever fails here fails again in the unit that needs it, which says so: a pool whose
    # initializer raises starts new workers forever.
    with contextlib.suppress(Exception):
        warm()


_PR_SET_PDEATHSIG = 1


def _die_with(parent: int) -> None:
    """In a worker: be killed when ``parent`` dies (Linux; elsewhere a no-op)."""
    try:
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
    except (OSError, AttributeError):
        return
    if os.getppid() != parent:  # it died before the request: nobody would send the signal
        os._exit(1)
