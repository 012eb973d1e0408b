"""Where the build process's memory goes during `errdocs build`, step by step (no unit is built).

Runs the real build (`errdocs.build.build_sharded`, one worker) on a fresh copy of the
project, with each step of its preparation (scan, catalogue, search and paste box data,
root pages, static files, page units, plan; then the plan whole: the pages each unit may
render, recorded in the journal) wrapped to print, once it returns, its time, the
process's RSS and its peak so far (VmHWM: the kernel updates it lazily, at the latest when
memory is given back, so a step's own top may show at a later step's end); then stops before
any unit is built (with one job the plan is made in the build process: the slices a plan
made in a child process writes for each unit are not made) and prints the process's peak
(VmHWM) and, with tracemalloc, the lines holding the most memory. Wrapping the build's own
steps, not a copy of them, keeps this script measuring what a build does. Each line also
says where the memory is by allocator (:func:`allocators`): Python's live objects and the
arenas holding them, the C heap's used and free bytes and its blocks mapped apart.

    .venv/bin/python bench/memphases.py bench/out/data/r20000.jsonl [--top 15] [--no-trace]
"""

from __future__ import annotations

import argparse
import contextlib
import ctypes
import ctypes.util
import functools
import gc
import os
import re
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import run

STEPS = {
    "scan": "scan",
    "build_catalog": "catalogue",
    "box_data": "search and paste box data",
    "_root_pages": "root pages",
    "filter_files": "listings' filter data",
    "_static_files": "static files",
    "_page_units": "page units",
    "plan": "plan",
    "_prepare": "preparation, whole",
    "_plan": "plan, whole",
}
"""The names in `errdocs.build` wrapped, and what each prints as."""


class Prepared(Exception):
    """Raised once the plan is made (the preparation, then the pages each unit may render,
    recorded in the journal): the build stops there (its lock is released on the way out,
    as on any failure)."""


def status(field: str) -> float:
    """A ``/proc/self/status`` field in MB (``VmRSS``, ``VmHWM``)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(f"{field}:"):
            return int(line.split()[1]) / 1024
    return 0.0


def line(name: str, seconds: float) -> str:
    traced = tracemalloc.get_traced_memory()[0] / 2**20 if tracemalloc.is_tracing() else 0.0
    return (f"{name:<28} {seconds:7.1f} s   RSS {status('VmRSS'):7.1f} MB   "
            f"peak {status('VmHWM'):7.1f} MB   traced {traced:7.1f} MB{allocators()}")


class _MallInfo2(ctypes.Structure):
    """glibc's ``struct mallinfo2`` (glibc 2.33 and later)."""

    _fields_ = [(name, ctypes.c_size_t) for name in (
        "arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks", "fsmblks", "uordblks",
        "fordblks", "keepcost")]


def allocators() -> str:
    """Where the process's memory is, by allocator: Python's objects (what its live blocks
    take, and the arenas holding them: an arena of 1 MiB goes back to the system only when
    every block in it is free, so a step's freed objects among kept ones stay in the RSS)
    and the C heap (in use, and freed but kept; large blocks mapped apart). Told apart, a
    step's growth is either what it keeps alive or what it left scattered. Empty where either
    cannot be read."""
    objects = _python_objects()
    heap = _c_heap()
    if objects is None or heap is None:
        return ""
    used, arenas = objects
    in_use, kept, mapped = heap
    return (f"   objects {used:6.1f} MB in arenas of {arenas:6.1f}   "
            f"C heap {in_use:6.1f} MB used, {kept:6.1f} free, {mapped:6.1f} mapped")


def _python_objects() -> tuple[float, float] | None:
    """The bytes in Python's live small blocks and in its arenas (MB), as
    ``sys._debugmallocstats`` prints them to the C stderr (a temporary file for the call: a
    pipe nobody reads while it writes could fill)."""
    with tempfile.TemporaryFile() as stats:
        saved = os.dup(2)
        try:
            sys.stderr.flush()
            os.dup2(stats.fileno(), 2)
            sys._debugmallocstats()
        finally:
            os.dup2(saved, 2)
            os.close(saved)
        stats.seek(0)
        text = stats.read().decode("ascii", "replace")
    used = re.search(r"^# bytes in allocated blocks\s*=\s*([\d,]+)", text, re.M)
    arenas = re.search(r"^\d+ arenas \* \d+ bytes/arena\s*=\s*([\d,]+)", text, re.M)
    if used is None or arenas is None:
        return None
    return (int(used[1].replace(",", "")) / 2**20, int(arenas[1].replace(",", "")) / 2**20)


def _c_heap() -> tuple[float, float, float] | None:
    """glibc's heap: bytes in use, free but kept, and mapped apart (MB)."""
    try:
        info = ctypes.CDLL(ctypes.util.find_library("c")).mallinfo2
    except (OSError, AttributeError, TypeError):  # not glibc, or older than 2.33
        return None
    info.restype = _MallInfo2
    heap = info()
    return heap.uordblks / 2**20, heap.fordblks / 2**20, heap.hblkhd / 2**20


def wrapped(name: str, step: Callable[..., Any]) -> Callable[..., Any]:
    """``step``, printing its line once it returns (after a collection, so the figure is
    what stays alive)."""
    @functools.wraps(step)
    def measured(*args: Any, **kwargs: Any) -> Any:
        start = time.perf_counter()
        value = step(*args, **kwargs)
        seconds = time.perf_counter() - start
        gc.collect()
        print(line(name, seconds), flush=True)
        return value
    return measured


@contextlib.contextmanager
def instrumented() -> Iterator[None]:
    """Inside: the build's steps wrapped, and the end of the preparation stops the build.
    Put back on the way out (a test runs this in its own process among other builds)."""
    from errdocs import build

    saved = {name: getattr(build, name) for name in STEPS}
    for attribute, name in STEPS.items():
        setattr(build, attribute, wrapped(name, saved[attribute]))
    plan = build._plan

    def stop(*args: Any, **kwargs: Any) -> Any:
        raise Prepared(plan(*args, **kwargs))
    build._plan = stop
    try:
        yield
    finally:
        for attribute, step in saved.items():
            setattr(build, attribute, step)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data", type=Path)
    parser.add_argument("--top", type=int, default=15)
    parser.add_argument("--no-trace", action="store_true", help="RSS only (faster)")
    args = parser.parse_args(argv)
    if not args.no_trace:
        tracemalloc.start()
    from errdocs.build import build_sharded
    from errdocs.collector import give_back
    from errdocs.project import load_settings

    print(line("imports", 0.0), flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        settings = load_settings(run.project(Path(tmp) / "p") / "mkdocs.yml")
        try:
            with instrumented():
                build_sharded(settings, [args.data.resolve()], jobs=1, show_progress=False)
        except Prepared as done:
            kept = done.args[0]
            # What the build does next with what its preparation dropped (errdocs.build).
            gc.collect()
            give_back()
            print(line("given back", 0.0), flush=True)
        else:
            raise SystemExit("the build did not stop after its preparation")
        print(f"peak RSS of the build process (VmHWM): {status('VmHWM'):.1f} MB", flush=True)
        if tracemalloc.is_tracing():
            snapshot = tracemalloc.take_snapshot()
            print(f"\ntop {args.top} lines alive at the end:")
            for stat in snapshot.statistics("lineno")[:args.top]:
                frame = stat.traceback[0]
                print(f"{stat.size / 2**20:8.1f} MB {stat.count:9d} blocks  "
                      f"{Path(frame.filename).name}:{frame.lineno}")
        del kept
    return 0


if __name__ == "__main__":
    sys.exit(main())
