"""Run the ``errdocs`` command and write its process's peak resident memory to a file.

    .venv/bin/python bench/peak.py OUT.txt build data.jsonl -j 2

OUT.txt gets the build process's ``VmHWM`` (kB: the kernel's high-water mark of its resident
set) as the interpreter exits. Sampled from outside, that figure misses what the process does
after the last sample (its merge and the history's writes come last), and its PSS moves when
its workers end: PSS divides each page a forked worker still shares with it among them, and
gives it all back to the build process once they are gone (at 20,000 records its PSS went
from 29 to 39 MB in the merge while its RSS went from 43 to 49 MB). ``VmHWM`` counts those
shared pages in full, always: it is what the process itself had resident at its largest.
"""

from __future__ import annotations

import atexit
import os
import runpy
import sys
from pathlib import Path


def peak_kb() -> int:
    """This process's ``VmHWM`` in kB."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    return 0


def main() -> None:
    out, me = Path(sys.argv[1]), os.getpid()

    def write() -> None:
        if os.getpid() == me:  # not a forked child ending through the interpreter
            out.write_text(f"{peak_kb()}\n", "utf-8")

    atexit.register(write)
    sys.argv = ["errdocs", *sys.argv[2:]]
    runpy.run_module("errdocs", run_name="__main__", alter_sys=True)


if __name__ == "__main__":
    main()
