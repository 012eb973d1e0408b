"""Progress of a long build on a terminal: units and pages done, with an ETA.

Quiet when stderr is not a terminal or ``CI`` is set, so CI logs hold only results.
"""

from __future__ import annotations

import os
import sys
import time
from dataclasses import dataclass, field
from typing import TextIO


def wanted(stream: TextIO = sys.stderr) -> bool:
    """Show progress only to a person watching a terminal."""
    return stream.isatty() and not os.environ.get("CI")


@dataclass
class Progress:
    """A one-line counter rewritten in place (``\\r``)."""

    label: str
    """What is being counted, e.g. "units"."""
    total: int
    """How many there are."""
    enabled: bool = field(default_factory=wanted)
    """False: print nothing."""
    stream: TextIO = sys.stderr
    """Where to print."""
    done: int = 0
    pages: int = 0
    _start: float = field(default_factory=time.monotonic)

    def step(self, pages: int = 0) -> None:
        """One more done, ``pages`` more pages."""
        self.done += 1
        self.pages += pages
        if self.enabled:
            self.stream.write("\r" + self.line())
            self.stream.flush()

    def line(self) -> str:
        elapsed = time.monotonic() - self._start
        eta = elapsed / self.done * (self.total - self.done) if self.done else 0.0
        return (f"{self.label}: {self.done}/{self.total}, {self.pages} pages, "
                f"{elapsed:.0f} s, ETA {eta:.0f} s ")

    def close(self) -> None:
        if self.enabled and self.done:
            self.stream.write("\n")
            self.stream.flush()
