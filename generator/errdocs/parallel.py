"""Run unit builds on every core: a pool of worker processes that share nothing with the parent.

Each task carries one unit and only the slice of the catalogue its pages need
(:func:`unitbuild.for_unit`), pickled to a worker started by a fork server. Forked workers used to
inherit the parent's whole heap (every light record, the catalogue, the scan cache): CPython's
reference counting writes to every object a worker touches, so each worker copied much of it
and peak memory grew with N instead of with the size of one unit. One worker (``jobs=1``) runs
in-process.
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Callable, Sequence

from .shards import Unit
from .unitbuild import Context, UnitResult, build_unit, for_unit


def default_jobs() -> int:
    """One worker per core this process may use."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (
        os.cpu_count() or 1)


def run_units(ctx: Context, units: Sequence[Unit], jobs: int,
              done: Callable[[UnitResult], None]) -> None:
    """Build ``units``, biggest first so the pool ends together; call ``done`` after each."""
    ordered = sorted(units, key=lambda u: -len(u.members))
    if jobs <= 1 or len(ordered) <= 1:
        for unit in ordered:
            done(build_unit(ctx, unit))
        return
    server = multiprocessing.get_context("forkserver")
    # The fork server imports the build code (MkDocs, Material, Pygments) once; workers fork
    # from it, never from this process, so they hold none of its records.
    server.set_forkserver_preload(["errdocs.unitbuild"])
    tasks = (for_unit(ctx, unit) for unit in ordered)  # made one by one as workers ask
    with server.Pool(min(jobs, len(ordered))) as pool:
        for result in pool.imap_unordered(_work, tasks, chunksize=1):
            done(result)


def _work(task: tuple[Context, Unit]) -> UnitResult:
    return build_unit(*task)
