"""Benchmark: errdocs' sharded build against a plain `mkdocs build` of the same pages.

For each N: synthetic records (bench/synth.py, seeded), then

- baseline: plain `mkdocs build` of the very Markdown tree errdocs generated, with the
  project's Material config plus Material's lunr search plugin (and none of errdocs' plugins):
  pymdownx highlighting, record pages out of the nav — what a user without errdocs' build
  would run;
- errdocs: `errdocs build DATA -j JOBS` from scratch (cold);
- optionally the incremental rebuild after one record changes (and whether its site equals a
  cold build of the changed data), and 1 against 2 workers.

Printed per build: N, seconds, pages/s, peak memory of the whole process tree (RSS summed over
processes, which counts pages shared by forked workers more than once, and PSS, which does
not), the build process's own peak resident memory (VmHWM, bench/peak.py), bytes per record
page (mean), the largest page, the ratio to the baseline. Each result is
also appended to OUT/results.jsonl. Check `uptime` first: the figures are only as quiet as the
machine.

    .venv/bin/python bench/run.py --sizes 2000,20000 --baseline --incremental --workers

``--rounds K`` with ``--baseline`` alternates K cold builds with K baselines and prints each
ratio and their median (issue 12 item 5 is a ratio of two wall times on a shared machine).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import asdict, dataclass, replace
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
BIN = Path(sys.executable).parent
sys.path.insert(0, str(HERE))

import synth  # noqa: E402 - bench/ is not a package


@dataclass
class Result:
    """One measured build."""

    what: str
    n: int
    seconds: float
    pages: int
    pages_per_s: float
    peak_rss_mb: float
    peak_pss_mb: float
    record_page_bytes: int
    largest_page_bytes: int
    largest_page: str
    load: str
    roles: str = ""
    """Largest PSS (MB) of one process per role: main, plan (the child making the plan),
    worker, pagefind."""
    main_peak_mb: float = 0.0
    """The build process's own peak resident memory (``VmHWM``, MB), written as it exits
    (bench/peak.py); 0 when not measured (the baseline)."""

    def line(self) -> str:
        return (f"N={self.n:<7} {self.what:<22} {self.seconds:8.1f} s {self.pages_per_s:7.1f} "
                f"pages/s  peak RSS {self.peak_rss_mb:6.0f} MB (PSS {self.peak_pss_mb:6.0f} MB)"
                f"  record page {self.record_page_bytes / 1024:5.1f} KB  largest "
                f"{self.largest_page_bytes / 1024:6.1f} KB ({self.largest_page})"
                + (f"\n{'':9} largest process PSS, MB: {self.roles}" if self.roles else "")
                + (f"\n{'':9} build process's peak RSS (VmHWM): {self.main_peak_mb:.1f} MB"
                   if self.main_peak_mb else ""))


class TreeSampler:
    """Peak memory of a process and all its descendants, polled from /proc: summed over the
    tree, and per role (the build's own process, its workers, Pagefind) for the largest single
    process of that role."""

    def __init__(self, pid: int, interval: float = 0.1, pss_every: int = 10) -> None:
        self.pid, self.interval, self.pss_every = pid, interval, pss_every
        self.peak_rss = self.peak_pss = 0
        self.roles: dict[str, int] = {}
        """Role to the largest PSS (kB) one process of it had."""
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()

    def summary(self) -> str:
        return ", ".join(f"{role} {kb / 1024:.0f}" for role, kb in sorted(self.roles.items()))

    def _run(self) -> None:
        # PSS only every ``pss_every`` polls: the kernel walks the page tables of each
        # process for smaps_rollup, and at 310,000 records (a 2 GB main process) polling it
        # ten times a second took a quarter of a core from the 2-core build it measured.
        tick = 0
        while not self._stop.is_set():
            pids = _tree(self.pid)
            self.peak_rss = max(self.peak_rss, sum(_kb(p, "status", "VmRSS:") for p in pids))
            if tick % self.pss_every == 0:
                self._pss(pids)
            tick += 1
            self._stop.wait(self.interval)

    def _pss(self, pids: list[int]) -> None:
        pss = {p: _kb(p, "smaps_rollup", "Pss:") for p in pids}
        self.peak_pss = max(self.peak_pss, sum(pss.values()))
        for pid, kb in pss.items():
            role = self._role(pid)
            self.roles[role] = max(self.roles.get(role, 0), kb)

    def _role(self, pid: int) -> str:
        if pid == self.pid:
            return "main"
        try:
            name = Path(f"/proc/{pid}/comm").read_text().strip()
        except OSError:
            return "gone"
        return "pagefind" if "pagefind" in name else "plan" if name == "errdocs-plan" else (
            "worker" if "python" in name or "errdocs" in name else name)


def _tree(root: int) -> list[int]:
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            parent = int(stat.rsplit(")", 1)[1].split()[1])
            children.setdefault(parent, []).append(int(entry))
    found, todo = [], [root]
    while todo:
        pid = todo.pop()
        found.append(pid)
        todo.extend(children.get(pid, []))
    return found


def _kb(pid: int, name: str, field: str) -> int:
    try:
        for line in Path(f"/proc/{pid}/{name}").read_text().splitlines():
            if line.startswith(field):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


def timed(command: list[str], cwd: Path, env: dict[str, str] | None = None,
          ) -> tuple[float, float, float, str]:
    """Run ``command``; wall seconds, peak RSS and PSS (MB) of its process tree, and the
    largest PSS per role."""
    start = time.perf_counter()
    with subprocess.Popen(command, cwd=cwd, env=env, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True) as process:
        sampler = TreeSampler(process.pid)
        output, _ = process.communicate()
        sampler.stop()
    seconds = time.perf_counter() - start
    if process.returncode != 0:
        raise SystemExit(f"{' '.join(command)} failed:\n{output[-4000:]}")
    return seconds, sampler.peak_rss / 1024, sampler.peak_pss / 1024, sampler.summary()


def timed_python(args: list[str], cwd: Path, env: dict[str, str] | None = None,
                 ) -> tuple[float, float, float, str, float]:
    """:func:`timed` of ``python ARGS`` (``-m MODULE ...`` or ``-c CODE ...``), run through
    bench/peak.py, and the process's own peak resident memory (``VmHWM``, MB) last."""
    with tempfile.TemporaryDirectory() as folder:
        peak = Path(folder) / "peak"
        measured = timed([sys.executable, str(HERE / "peak.py"), str(peak), *args], cwd, env)
        return (*measured, round(int(peak.read_text()) / 1024, 1))


def project(where: Path) -> Path:
    """A fresh copy of the project's MkDocs side (config, docs, overrides)."""
    shutil.rmtree(where, ignore_errors=True)
    where.mkdir(parents=True)
    shutil.copy(ROOT / "mkdocs.yml", where / "mkdocs.yml")
    for name in ("docs", "overrides"):
        shutil.copytree(ROOT / name, where / name, ignore=shutil.ignore_patterns("errors"))
    return where


def site_sizes(site: Path) -> tuple[int, int, int, str]:
    """HTML pages, mean record page bytes, largest page bytes and its path."""
    pages = record_total = records = 0
    largest, largest_path = 0, ""
    for folder, _dirs, files in os.walk(site):
        for name in files:
            if not name.endswith(".html"):
                continue
            path = Path(folder, name)
            size = path.stat().st_size
            pages += 1
            if size > largest:
                largest, largest_path = size, str(path.relative_to(site))
            if _is_record_page(path.relative_to(site).parts):
                records += 1
                record_total += size
    return pages, record_total // max(records, 1), largest, largest_path


def _is_record_page(parts: tuple[str, ...]) -> bool:
    # errors/<owner>/<repo>/<slug>/index.html; group pages live elsewhere or are index pages.
    return (len(parts) == 5 and parts[0] == "errors" and parts[-1] == "index.html"
            and parts[1] not in ("tags", "categories", "repos") and parts[3] != "index")


def errdocs_build(n: int, data: Path, where: Path, jobs: int, what: str, cold: bool = True,
                  env: dict[str, str] | None = None) -> Result:
    if cold:
        project(where)
    seconds, rss, pss, roles, main_peak = timed_python(
        ["-m", "errdocs", "build", str(data), "-j", str(jobs)], where, env)
    result = _result(what, n, seconds, rss, pss, where / "site", roles)
    return replace(result, main_peak_mb=main_peak)


BASELINE = "INHERIT: mkdocs.yml\nplugins:\n  - search\n"
"""The issue's baseline: the project's Material config with Material's own (lunr) search plugin
and none of errdocs' plugins."""


def baseline_build(n: int, errdocs_project: Path, where: Path) -> Result:
    """`mkdocs build` (Material, its search plugin, pymdownx highlighting, record pages out of
    the nav) of the Markdown errdocs generated, copied as it is."""
    project(where)
    shutil.copytree(errdocs_project / "docs" / "errors", where / "docs" / "errors",
                    copy_function=os.link)
    (where / "baseline.yml").write_text(BASELINE, "utf-8")
    seconds, rss, pss, _ = timed([str(BIN / "mkdocs"), "build", "-q", "-f", "baseline.yml"],
                                 where)
    return _result("baseline mkdocs build", n, seconds, rss, pss, where / "site")


def _result(what: str, n: int, seconds: float, rss: float, pss: float, site: Path,
            roles: str = "") -> Result:
    pages, record_bytes, largest, largest_path = site_sizes(site)
    return Result(what, n, round(seconds, 2), pages, round(pages / seconds, 1), round(rss),
                  round(pss), record_bytes, largest, largest_path, _load(), roles)


def _load() -> str:
    return Path("/proc/loadavg").read_text().split(" ", 3)[0]


def change_one_record(data: Path, out: Path) -> Path:
    """A copy of ``data`` with one record's documentation text changed."""
    lines = data.read_text("utf-8").splitlines(keepends=True)
    middle = len(lines) // 2
    value = json.loads(lines[middle])
    value["record"]["documentation"] += " Changed for the incremental benchmark."
    lines[middle] = json.dumps(value, ensure_ascii=False, separators=(",", ":")) + "\n"
    out.write_text("".join(lines), "utf-8")
    return out


def change_records(data: Path, out: Path, percent: float) -> tuple[Path, int]:
    """A copy of ``data`` with ``percent`` % of its records' documentation text changed, spread
    evenly over the file (every k-th record); and how many were changed."""
    lines = data.read_text("utf-8").splitlines(keepends=True)
    count = max(1, round(len(lines) * percent / 100))
    step = len(lines) / count
    for n in range(count):
        at = int(n * step + step / 2)
        value = json.loads(lines[at])
        value["record"]["documentation"] += " Changed for the refresh benchmark."
        lines[at] = json.dumps(value, ensure_ascii=False, separators=(",", ":")) + "\n"
    out.write_text("".join(lines), "utf-8")
    return out, count


def different(a: Path, b: Path) -> list[str]:
    """Files that are in only one of the folders or differ in bytes (sorted).

    Two names for one inode are equal without reading them: most of a refreshed site is hard
    links to the same unit outputs as the cold build's kept copy, and reading 310,000 pages
    twice took longer than the build."""
    def files(root: Path) -> dict[str, os.stat_result]:
        found: dict[str, os.stat_result] = {}
        for folder, _, names in os.walk(root):
            for name in names:
                path = os.path.join(folder, name)
                found[os.path.relpath(path, root)] = os.lstat(path)
        return found

    def same(name: str, one: os.stat_result, other: os.stat_result) -> bool:
        if (one.st_dev, one.st_ino) == (other.st_dev, other.st_ino):
            return True
        return one.st_size == other.st_size and (a / name).read_bytes() == (b / name).read_bytes()

    left, right = files(a), files(b)
    return sorted(k for k in left.keys() | right.keys() if k not in left or k not in right
                  or not same(k, left[k], right[k]))


def refresh(n: int, data: Path, base: Path, jobs: int, percent: float,
            env: dict[str, str], warm: bool = True) -> list[Result]:
    """Cold, refresh and no-op side by side, with one cold build: the cold build is of the
    changed data B and its site is kept aside; the project is then refreshed to the original
    data A and back to B (each a refresh of ``percent`` % of the records; the second is the
    one reported, its site compared with the cold build's), then built again unchanged, then
    after a ``mkdocs.yml`` edit (the site's name: every page changes, no record does)."""
    base.mkdir(parents=True, exist_ok=True)
    changed, count = change_records(data, base / "changed.jsonl", percent)
    where = base / "refresh"
    cold = errdocs_build(n, changed, where, jobs, f"errdocs cold -j{jobs}", env=env)
    reference = base / "cold-site"
    shutil.rmtree(reference, ignore_errors=True)
    shutil.copytree(where / "site", reference, copy_function=os.link)
    errdocs_build(n, data, where, jobs, "errdocs refresh (to A)", cold=False, env=env)
    again = errdocs_build(n, changed, where, jobs, f"errdocs refresh {percent:g}%", cold=False,
                          env=env)
    noop = errdocs_build(n, changed, where, jobs, "errdocs no-op", cold=False, env=env)
    wrong = different(where / "site", reference)
    print(f"N={n:<7} load average after the no-op: {_load()}", flush=True)
    if not warm:
        for result in (cold, again, noop):
            print(result.line(), flush=True)
        _refresh_summary(n, count, cold, again, noop, wrong)
        return [cold, again, noop]
    config = where / "mkdocs.yml"  # a change to every page and no record: the warm rebuild
    config.write_text(config.read_text("utf-8").replace("site_name: errdocs",
                                                        "site_name: errdocs (warm)", 1), "utf-8")
    rebuilt = errdocs_build(n, changed, where, jobs, "errdocs warm (mkdocs.yml)", cold=False,
                            env=env)
    for result in (cold, again, noop, rebuilt):
        print(result.line(), flush=True)
    _refresh_summary(n, count, cold, again, noop, wrong)
    print(f"N={n:<7} warm rebuild after a mkdocs.yml edit: {rebuilt.seconds:.2f} s = "
          f"{100 * rebuilt.seconds / cold.seconds:.1f}% of cold", flush=True)
    return [cold, again, noop, rebuilt]


def _refresh_summary(n: int, count: int, cold: Result, again: Result, noop: Result,
                     wrong: list[str]) -> None:
    print(f"N={n:<7} {count} records changed: refresh {again.seconds:.2f} s = "
          f"{100 * again.seconds / cold.seconds:.1f}% of cold; no-op {noop.seconds:.2f} s = "
          f"{100 * noop.seconds / cold.seconds:.1f}% of cold (load average at each end: "
          f"{cold.load}, {again.load}, {noop.load})", flush=True)
    print(f"N={n:<7} refreshed site equals a cold build's: "
          + ("yes" if not wrong else f"NO ({len(wrong)} files differ, e.g. {wrong[:3]})"),
          flush=True)


def same_tree(a: Path, b: Path) -> bool:
    """True when both folders hold the same files with the same bytes."""
    def files(root: Path) -> dict[str, Path]:
        return {str(p.relative_to(root)): p for p in root.rglob("*") if p.is_file()}

    left, right = files(a), files(b)
    return left.keys() == right.keys() and all(
        left[k].read_bytes() == right[k].read_bytes() for k in left)


def run(n: int, out: Path, *, jobs: int, baseline: bool, incremental: bool, workers: bool,
        verify: bool, keep: bool, percent: float | None = None,
        warm: bool = True, rounds: int = 1) -> list[Result]:
    data = out / "data" / f"r{n}.jsonl"
    if not data.exists():
        synth.write(n, data)
    env = dict(os.environ, SOURCE_DATE_EPOCH="1767225600")  # same sitemap dates in every build
    base = out / f"n{n}"
    results: list[Result] = []

    def report(result: Result) -> Result:
        results.append(result)
        print(result.line(), flush=True)
        return result

    if percent is not None:
        results += refresh(n, data, base, jobs, percent, env, warm)
        baseline = incremental = workers = False
        cold = results[0]
    else:
        cold = report(errdocs_build(n, data, base / "errdocs", jobs, f"errdocs cold -j{jobs}",
                                    env=env))
    if baseline:
        ratios = []
        for turn in range(rounds):
            if turn:  # this machine's runs vary by 10-20%: builds alternated, one pair a round
                cold = report(errdocs_build(n, data, base / "errdocs", jobs,
                                            f"errdocs cold -j{jobs}", env=env))
            ref = report(baseline_build(n, base / "errdocs", base / "baseline"))
            ratios.append(ref.seconds / cold.seconds)
            print(f"N={n:<7} ratio baseline/errdocs: {ratios[-1]:.2f}x", flush=True)
            if not keep:
                shutil.rmtree(base / "baseline")
        if rounds > 1:
            print(f"N={n:<7} ratio over {rounds} rounds: median {statistics.median(ratios):.2f}x"
                  f" ({min(ratios):.2f}x to {max(ratios):.2f}x)", flush=True)
    if incremental:
        changed = change_one_record(data, base / "changed.jsonl")
        again = report(errdocs_build(n, changed, base / "errdocs", jobs,
                                     "errdocs incremental", cold=False, env=env))
        print(f"N={n:<7} incremental: {again.seconds:.2f} s = "
              f"{100 * again.seconds / cold.seconds:.1f}% of cold", flush=True)
        if verify:
            fresh = errdocs_build(n, changed, base / "verify", jobs, "errdocs cold (changed)",
                                  env=env)
            equal = same_tree(base / "errdocs" / "site", base / "verify" / "site")
            print(f"N={n:<7} incremental site equals a cold build's: {'yes' if equal else 'NO'}"
                  f" (cold {fresh.seconds:.1f} s)", flush=True)
    if workers:
        one = report(errdocs_build(n, data, base / "j1", 1, "errdocs cold -j1", env=env))
        two = report(errdocs_build(n, data, base / "j2", 2, "errdocs cold -j2", env=env))
        print(f"N={n:<7} 2 workers vs 1: {one.seconds / two.seconds:.2f}x", flush=True)
    if not keep:
        shutil.rmtree(base, ignore_errors=True)
    with (out / "results.jsonl").open("a", encoding="utf-8") as handle:
        for result in results:
            handle.write(json.dumps(asdict(result)) + "\n")
    return results


def memory_growth(colds: list[Result]) -> str | None:
    """How the build process's peak resident memory (``VmHWM``) grew from the smallest to the
    largest N built cold (issue 12 item 3: at 10x the records at most 25% more), with its
    largest sampled PSS beside; None with fewer than two sizes."""
    sized = sorted((r for r in colds if r.main_peak_mb), key=lambda r: r.n)
    if len(sized) < 2 or sized[0].n == sized[-1].n:
        return None
    low, high = sized[0], sized[-1]
    small, large = low.n, high.n
    pss = [m.group(1) if (m := re.search(r"\bmain (\d+)", r.roles)) else "?"
           for r in (low, high)]
    return (f"build process's peak RSS (VmHWM), cold: {low.main_peak_mb:.1f} MB at N={small}, "
            f"{high.main_peak_mb:.1f} MB at N={large}: {high.main_peak_mb / low.main_peak_mb:.2f}x "
            f"for {large / small:.1f}x the records (issue 12 item 3: at most 1.25x for 10x); "
            f"its largest PSS sampled: {pss[0]} and {pss[1]} MB")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="2000", help="comma-separated N values")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--baseline", action="store_true", help="also build the baseline")
    parser.add_argument("--rounds", type=int, default=1, metavar="K",
                        help="with --baseline: K cold builds and baselines, alternated, and "
                        "the median of their ratios")
    parser.add_argument("--incremental", action="store_true",
                        help="also rebuild after one record changes")
    parser.add_argument("--verify", action="store_true",
                        help="compare the incremental site with a cold build's")
    parser.add_argument("--workers", action="store_true", help="also time -j1 against -j2")
    parser.add_argument("--refresh", type=float, metavar="PERCENT",
                        help="cold build, a refresh with PERCENT %% of the records changed and "
                        "a no-op, the refreshed site compared with the cold build's (only this)")
    parser.add_argument("--no-warm", dest="warm", action="store_false",
                        help="with --refresh: leave out the warm rebuild after a mkdocs.yml edit")
    parser.add_argument("--keep", action="store_true", help="keep the built projects")
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "out")
    args = parser.parse_args(argv)
    args.out = args.out.resolve()  # builds run in project folders
    print(f"load average at start: {Path('/proc/loadavg').read_text().strip()}", flush=True)
    colds = []
    for n in (int(x) for x in args.sizes.split(",")):
        colds.append(run(n, args.out, jobs=args.jobs, baseline=args.baseline,
                         incremental=args.incremental, workers=args.workers, verify=args.verify,
                         keep=args.keep, percent=args.refresh, warm=args.warm,
                         rounds=args.rounds)[0])
    growth = memory_growth(colds)
    if growth is not None:
        print(growth, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
