"""Python's cyclic garbage collector, paused while a build makes many acyclic objects.

A scan makes a light record, its origin and tuples a record, and decoding a kept catalogue
row makes strings, tuples, dicts and entries: none in a cycle, but so many that the
collections their allocations set off (each full one walking every object tracked, the build's
records too) were most of that time and grew faster than the records (a scan of an unchanged
input of 310,000 records: 30 s with it running, 16 s paused; decoding: 70% at 20,000).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import gc
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import cache


@contextmanager
def collector_paused() -> Iterator[None]:
    """No cyclic collection inside; the collector is left as it was found (off stays off)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


_SPARING = [0]
"""How many :func:`objects_spared` blocks are open (a preview's builds may nest none)."""


@contextmanager
def objects_spared() -> Iterator[None]:
    """A block in which :func:`spare_existing` may leave what exists out of the collections
    that follow; on leaving, everything is given back to the collector (a preview's next
    build may drop the objects this one kept)."""
    _SPARING[0] += 1
    try:
        yield
    finally:
        _SPARING[0] -= 1
        if not _SPARING[0]:
            gc.unfreeze()


def spare_existing() -> None:
    """Inside :func:`objects_spared`: leave every object that exists now out of the cyclic
    collections that follow (``gc.freeze``). A build's records and catalogue live to its end,
    and each full collection the later steps' allocations set off walked all of them again:
    at 310,000 records, writing the merge's folder times took 3.2 s (0.5 s alone)."""
    if _SPARING[0]:
        gc.freeze()


def give_back() -> None:
    """Hand the C heap's free pages back to the system (glibc's ``malloc_trim``). A step that
    freed much (the scan's decoded records, the preparation's temporaries) leaves its pages
    mapped otherwise, and the build process keeps that size while the units build beside
    it: at 20,000 records 42 MB of its 167 MB (bench/memphases.py). Nothing without glibc."""
    trim = _malloc_trim()
    if trim is not None:
        trim(0)


@cache
def _malloc_trim() -> Callable[[int], int] | None:
    name = ctypes.util.find_library("c")
    try:
        trim: Callable[[int], int] = ctypes.CDLL(name).malloc_trim
    except (OSError, AttributeError, TypeError):  # no C library by that name, or not glibc
        return None
    return trim
