"""Benchmark: `errdocs bundle` (the offline zip) at a few sizes, with peak memory.

For each N: synthetic records (bench/synth.py, seeded), a fresh copy of the project, then
`errdocs bundle DATA -o dist/errdocs-bundle.zip -j JOBS` from nothing (cold: the build and the
zip) and, with ``--warm``, once more on the same data (the site is current: the zip alone).
With ``--after-build``, in another fresh copy: `errdocs build DATA -j JOBS` (timed too), then
the bundle (what a user who built the site pays for its bundle). Printed per run: N, wall
seconds, CPU seconds, peak memory of the whole process tree (RSS summed over processes, and
PSS, which counts pages forked workers share once), the largest single process (PSS) per role,
the zip's size and entries, and the load average before and after. The figures are only as
quiet as the machine.

    .venv/bin/python bench/bundle_bench.py --sizes 20000 --warm --after-build
"""

from __future__ import annotations

import argparse
import resource
import sys
import zipfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import synth
from run import BIN, project, timed

ZIP = Path("dist/errdocs-bundle.zip")


def bundle(n: int, data: Path, where: Path, jobs: int, what: str) -> str:
    """Run one bundle in ``where``; its line of figures."""
    line = _run(n, [str(BIN / "errdocs"), "bundle", str(data), "-o", str(ZIP), "-j", str(jobs)],
                where, what)
    archive = where / ZIP
    with zipfile.ZipFile(archive) as opened:
        entries = len(opened.infolist())
    return f"{line}\n{'':9} zip {archive.stat().st_size / 1e6:6.1f} MB, {entries} files"


def build(n: int, data: Path, where: Path, jobs: int) -> str:
    """Run ``errdocs build`` in ``where``; its line of figures."""
    return _run(n, [str(BIN / "errdocs"), "build", str(data), "-j", str(jobs)], where, "build")


def _run(n: int, command: list[str], where: Path, what: str) -> str:
    load = _load()
    before = _cpu()
    seconds, rss, pss, roles = timed(command, where)
    cpu = _cpu() - before
    return (f"N={n:<7} {what:<13} {seconds:7.1f} s (CPU {cpu:6.1f} s)  peak RSS {rss:6.0f} MB "
            f"(PSS {pss:6.0f} MB)  load {load} -> {_load()}\n"
            f"{'':9} largest process PSS, MB: {roles}")


def _load() -> str:
    """The 1-minute load average."""
    return Path("/proc/loadavg").read_text().split()[0]


def _cpu() -> float:
    """CPU seconds (user and system) of the finished child processes and theirs: on a busy
    machine, a steadier figure than the wall time."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="2000,20000", help="record counts, comma-separated")
    parser.add_argument("--jobs", "-j", type=int, default=2, help="worker processes")
    parser.add_argument("--warm", action="store_true",
                        help="also bundle the same data again (every unit reused)")
    parser.add_argument("--after-build", action="store_true",
                        help="also, in a fresh project: build, then bundle")
    parser.add_argument("--out", type=Path, default=Path("/tmp/errdocs-bundle-bench"),
                        help="where the data and the projects go")
    args = parser.parse_args(argv)
    for n in (int(s) for s in args.sizes.split(",")):
        data = synth.write(n, args.out / f"records-{n}.jsonl")
        where = project(args.out / f"project-{n}")
        print(bundle(n, data, where, args.jobs, "from nothing"), flush=True)
        if args.warm:
            print(bundle(n, data, where, args.jobs, "again"), flush=True)
        if args.after_build:
            built = project(args.out / f"project-{n}-built")
            print(build(n, data, built, args.jobs), flush=True)
            print(bundle(n, data, built, args.jobs, "after build"), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
