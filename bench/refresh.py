"""Refreshes of a project already built, measured one by one (issues 17 and 12 item 3).

Each DATA file in turn is copied over the project's input and ``errdocs build INPUT -j JOBS``
runs in the project; a line gives its wall time, the peak RSS and PSS of its process tree, the
largest PSS of each role (main, worker) and the build process's own peak resident memory
(``VmHWM``, bench/peak.py). ``--noop`` adds a build with nothing changed;
``--reference SITE`` then compares the project's site with SITE (a cold build's, kept aside
with hard links) file by file.

A cold build of 310,000 records takes ~100 minutes, and a project built by one errdocs is built
again from nothing by another (the code's digest keys every unit). ``--pin TEXT`` runs errdocs
with the code's digest replaced by TEXT, so that refreshes of one project can be timed with
code changes that do not change what is built (memory, speed): never to build a site that is
kept, the digest is what makes a changed errdocs rebuild.

    .venv/bin/python bench/refresh.py PROJECT A.jsonl B.jsonl A.jsonl --noop \\
        [--input data.jsonl] [--jobs 2] [--reference COLD-SITE] [--pin s24-pinned-310]
"""

from __future__ import annotations

import argparse
import shutil
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from run import _load, different, timed_python

PINNED = """
import sys
digest = sys.argv.pop(1)
import errdocs.code as code
code.code_digest = lambda: digest
import errdocs.catalog.store as store, errdocs.units.plan as plan
store.code_digest = plan.code_digest = code.code_digest
from errdocs.cli import main
main(prog_name="errdocs")
"""
"""The driver of ``--pin``: errdocs with the code's digest the first argument."""


def build(project: Path, input_name: str, jobs: int, pin: str | None, what: str) -> str:
    """Build the project as ``errdocs build`` does from the command line; its line."""
    errdocs = ["-c", PINNED, pin] if pin else ["-m", "errdocs"]
    seconds, rss, pss, roles, main_peak = timed_python(
        [*errdocs, "build", input_name, "-j", str(jobs)], project)
    return (f"{what:<28} {seconds:8.1f} s   peak RSS {rss:7.0f} MB (PSS {pss:7.0f} MB)   "
            f"largest PSS, MB: {roles}   build process VmHWM {main_peak:.1f} MB   "
            f"load {_load()}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("project", type=Path)
    parser.add_argument("data", type=Path, nargs="+", help="copied over the input in turn")
    parser.add_argument("--input", default="data.jsonl", help="the project's input file")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--noop", action="store_true", help="then a build of the same data")
    parser.add_argument("--reference", type=Path, help="a site to compare the last one with")
    parser.add_argument("--pin", help="the code's digest errdocs runs with (see above)")
    args = parser.parse_args(argv)
    for data in args.data:
        shutil.copyfile(data, args.project / args.input)
        print(build(args.project, args.input, args.jobs, args.pin, f"refresh to {data.name}"),
              flush=True)
    if args.noop:
        print(build(args.project, args.input, args.jobs, args.pin, "nothing changed"),
              flush=True)
    if args.reference is not None:
        wrong = different(args.project / "site", args.reference)
        print(f"site against {args.reference}: " + (
            "0 files differ" if not wrong else f"{len(wrong)} files differ, e.g. {wrong[:3]}"),
            flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
