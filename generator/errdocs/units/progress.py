"""Progress of a long build: units and pages done, with an ETA.

On a terminal (stderr is a TTY and ``CI`` is not set) one line is rewritten in place (``\\r``).
Anywhere else, a CI log or a file, that would be one unreadable line or silence for minutes, so
a line is printed per group of units instead: a twentieth of them, or whatever is done when a
minute has passed since the last line, and the last one. ``ERRDOCS_PROGRESS=off`` silences it.
"""

from __future__ import annotations

import math
import os
import sys
import time
from dataclasses import dataclass, field
from typing import TextIO

GROUPS = 20
"""Lines a build prints in a log, at most (a minute apart or more, besides)."""
QUIET_SECONDS = 60.0
"""Longest time a log goes without a line while units are being finished."""


def wanted() -> bool:
    """Show progress unless ``ERRDOCS_PROGRESS=off``."""
    return os.environ.get("ERRDOCS_PROGRESS", "").strip().lower() != "off"


def live(stream: TextIO = sys.stderr) -> bool:
    """A person watching a terminal: rewrite one line in place rather than log lines."""
    return stream.isatty() and not os.environ.get("CI")


@dataclass
class Progress:
    """Units done, pages done, time and ETA: rewritten in place, or a line per group."""

    label: str
    """What is being counted, e.g. "units"."""
    total: int
    """How many there are."""
    enabled: bool = field(default_factory=wanted)
    """False: print nothing."""
    stream: TextIO = sys.stderr
    """Where to print."""
    in_place: bool | None = None
    """True: one line rewritten with ``\\r``; False: a line per group; None: True on a
    terminal (:func:`live`)."""
    done: int = 0
    pages: int = 0
    clock: float = field(default_factory=time.monotonic)
    """When it started (monotonic seconds)."""
    _last_line: float = field(default=0.0, init=False)
    _last_count: int = field(default=0, init=False)

    def __post_init__(self) -> None:
        if self.in_place is None:
            self.in_place = live(self.stream)
        self._last_line = self.clock
        if self.enabled and not self.in_place and self.total:
            self._write(f"{self.label}: {self.total} to build\n")

    def step(self, pages: int = 0, now: float | None = None) -> None:
        """One more done, ``pages`` more pages (``now``: the monotonic time, for tests)."""
        self.done += 1
        self.pages += pages
        if not self.enabled:
            return
        now = time.monotonic() if now is None else now
        if self.in_place:
            self._write("\r" + self.line(now))
        elif self._log_due(now):
            self._write(self.line(now).rstrip() + "\n")
            self._last_line, self._last_count = now, self.done

    def _log_due(self, now: float) -> bool:
        group = max(1, math.ceil(self.total / GROUPS))
        return (self.done >= self.total or self.done - self._last_count >= group
                or now - self._last_line >= QUIET_SECONDS)

    def line(self, now: float | None = None) -> str:
        elapsed = (time.monotonic() if now is None else now) - self.clock
        eta = elapsed / self.done * (self.total - self.done) if self.done else 0.0
        share = f" ({100 * self.done // self.total}%)" if self.total else ""
        return (f"{self.label}: {self.done}/{self.total}{share}, {self.pages:,} pages, "
                f"{duration(elapsed)}, ETA {duration(eta)} ")

    def close(self) -> None:
        if self.enabled and self.in_place and self.done:
            self._write("\n")

    def _write(self, text: str) -> None:
        self.stream.write(text)
        self.stream.flush()


def announce(records: int, pages: int, units: int, total: int, *,
             enabled: bool = True, stream: TextIO | None = None) -> None:
    """On a terminal, before the units are built: what the build found to do, one line."""
    stream = stream or sys.stderr
    if enabled and wanted() and live(stream):
        stream.write(plan_line(records, pages, units, total) + "\n")
        stream.flush()


def plan_line(records: int, pages: int, units: int, total: int) -> str:
    """``To do: 200 records changed; 1,512 pages in 63 of 77 units to build.``"""
    changed = f"To do: {_count(records, 'record')} changed"
    if not units:
        return f"{changed}; nothing to build (all {_count(total, 'unit')} up to date)."
    return f"{changed}; {_count(pages, 'page')} in {units:,} of {_count(total, 'unit')} to build."


def _count(number: int, word: str) -> str:
    return f"{number:,} {word}{'' if number == 1 else 's'}"


def duration(seconds: float) -> str:
    """``42 s``, ``9 min 05 s``, ``1 h 02 min``: what a person reads in a log."""
    whole = round(seconds)
    if whole < 60:
        return f"{whole} s"
    if whole < 3600:
        return f"{whole // 60} min {whole % 60:02d} s"
    return f"{whole // 3600} h {whole % 3600 // 60:02d} min"
