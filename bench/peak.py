"""Run Python as ``python -m MODULE ...`` or ``python -c CODE ...`` would, and write this
process's peak resident memory to a file as it ends.

    .venv/bin/python bench/peak.py OUT.txt -m errdocs build data.jsonl -j 2

OUT.txt gets the process's ``VmHWM`` (kB: the kernel's high-water mark of its resident set)
as the interpreter exits. Sampled from outside, the build process's memory misses what it
does after the last sample (its merge and the history's writes come last), and its PSS moves
when its workers end: PSS divides each page a forked worker still shares with it among them,
and gives it all back to the build process once they are gone (at 20,000 records its PSS went
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
    out, how, what, args = Path(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4:]
    me = os.getpid()

    def write() -> None:
        if os.getpid() == me:  # not a forked child ending through the interpreter
            out.write_text(f"{peak_kb()}\n", "utf-8")

    atexit.register(write)
    if how == "-m":
        sys.argv = [what, *args]
        runpy.run_module(what, run_name="__main__", alter_sys=True)
    elif how == "-c":
        sys.argv = ["-c", *args]
        exec(compile(what, "<string>", "exec"), {"__name__": "__main__"})
    else:
        raise SystemExit(f"usage: {Path(__file__).name} OUT (-m MODULE | -c CODE) [ARG...]")


if __name__ == "__main__":
    main()
