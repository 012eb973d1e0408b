"""Run unit builds on every core: a pool of forked worker processes.

Workers are forked after the catalogue is built, so they share it (copy-on-write) instead of
receiving it pickled; each task names one unit. One worker (``jobs=1``) runs in-process.
"""

from __future__ import annotations

import gc
import multiprocessing
import os
from collections.abc import Callable, Sequence

from .shards import Unit
from .unitbuild import Context, UnitResult, build_unit

_CONTEXT: Context | None = None
"""The build's context, set before forking so workers inherit it."""


def default_jobs() -> int:
    """One worker per core this process may use."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (
        os.cpu_count() or 1)


def run_units(ctx: Context, units: Sequence[Unit], jobs: int,
              done: Callable[[UnitResult], None]) -> None:
    """Build ``units``, biggest first so the pool ends together; call ``done`` after each."""
    global _CONTEXT
    ordered = sorted(units, key=lambda u: -len(u.members))
    if jobs <= 1 or len(ordered) <= 1:
        for unit in ordered:
            done(build_unit(ctx, unit))
        return
    _CONTEXT = ctx
    # Move the catalogue and everything else built so far out of the garbage collector's
    # reach: a worker's collections would otherwise write to every inherited object and so
    # copy the parent's whole heap into each worker (copy-on-write), multiplying memory.
    gc.freeze()
    try:
        with multiprocessing.get_context("fork").Pool(min(jobs, len(ordered))) as pool:
            for result in pool.imap_unordered(_work, ordered, chunksize=1):
                done(result)
    finally:
        _CONTEXT = None
        gc.unfreeze()


def _work(unit: Unit) -> UnitResult:
    assert _CONTEXT is not None, "run_units sets the context before forking"
    return build_unit(_CONTEXT, unit)
