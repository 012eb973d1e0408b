"""How big the hosted site is, for choosing where to host it: bytes and files by kind.

Builds N synthetic records (bench/synth.py, seeded) with `errdocs build` for each size, counts
the site's files and bytes by kind (record pages, listing pages, the paste box's and the search
box's data, the theme's assets, the rest), and extrapolates each kind linearly (a + b·N, from
the two sizes) to 310,000 records, against GitHub Pages' 1 GB a site and Cloudflare Pages'
20,000 files a site (Free; 100,000 on paid plans). Sizes are the files' sizes (what a host
stores), not the disk blocks they take.

    .venv/bin/python bench/site_size.py --sizes 2000,5000
    .venv/bin/python bench/site_size.py --site site --records 40   # a built site, no build
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import run  # bench/ is not a package: its folder is on sys.path above
import synth

TARGET = 310_000
GITHUB_PAGES_BYTES = 1_000_000_000
CLOUDFLARE_FILES = (20_000, 100_000)
KINDS = ("record pages", "listing pages", "lookup data", "search data", "theme assets", "other")


def kind(relative: str) -> str:
    """Which part of the site a file (path relative to the site) belongs to."""
    parts = tuple(relative.split("/"))
    if relative.startswith("errors/assets/lookup/"):
        return "lookup data"
    if relative.startswith("errors/assets/search/"):
        return "search data"
    if relative.startswith("assets/"):
        return "theme assets"
    if relative.endswith(".html"):
        return "record pages" if run._is_record_page(parts) else "listing pages"
    return "other"


def measure(site: Path) -> tuple[Counter[str], Counter[str]]:
    """Files and bytes of ``site`` by kind."""
    files: Counter[str] = Counter()
    sizes: Counter[str] = Counter()
    for folder, _dirs, names in os.walk(site):
        for name in names:
            path = os.path.join(folder, name)
            what = kind(os.path.relpath(path, site).replace(os.sep, "/"))
            files[what] += 1
            sizes[what] += os.stat(path).st_size
    return files, sizes


def build(n: int, where: Path) -> Path:
    """The site of n synthetic records, built by `errdocs build -j 2`."""
    data = synth.write(n, where / f"d{n}.jsonl")
    project = run.project(where / f"p{n}")
    env = {**os.environ, "ERRDOCS_PROGRESS": "off"}
    subprocess.run([str(run.BIN / "errdocs"), "build", str(data), "-j", "2"], cwd=project,
                   env=env, check=True, stdout=subprocess.DEVNULL)
    return project / "site"


def report(n: int | None, files: Counter[str], sizes: Counter[str]) -> None:
    head = f"N={n:,}: " if n else ""
    each = (f"; {sizes.total() / n / 1000:.1f} KB and {files.total() / n:.2f} files a record"
            if n else "")
    print(f"{head}{files.total():,} files, {sizes.total() / 1e6:,.1f} MB{each}")
    for what in KINDS:
        print(f"  {what:14} {files[what]:>9,} files {sizes[what] / 1e6:>10,.1f} MB")


def extrapolate(points: list[tuple[int, Counter[str], Counter[str]]]) -> None:
    """Each kind as a + b·N through the first and last size, at TARGET records."""
    (n1, f1, s1), (n2, f2, s2) = points[0], points[-1]

    def at(first: float, last: float) -> float:
        slope = (last - first) / (n2 - n1)
        return first + slope * (TARGET - n1)

    total_bytes = total_files = 0.0
    print(f"at {TARGET:,} records (linear through N={n1:,} and N={n2:,}):")
    for what in KINDS:
        files, size = at(f1[what], f2[what]), at(s1[what], s2[what])
        total_files, total_bytes = total_files + files, total_bytes + size
        print(f"  {what:14} {files:>11,.0f} files {size / 1e9:>8.2f} GB")
    print(f"  {'total':14} {total_files:>11,.0f} files {total_bytes / 1e9:>8.2f} GB: "
          f"{total_bytes / GITHUB_PAGES_BYTES:.1f}x GitHub Pages' 1 GB, "
          f"{total_files / CLOUDFLARE_FILES[0]:.0f}x Cloudflare Pages' 20,000 files "
          f"({total_files / CLOUDFLARE_FILES[1]:.1f}x its 100,000)")
    per_record = (s2.total() - s1.total()) / (n2 - n1)
    fixed = s1.total() - per_record * n1
    print(f"  GitHub Pages' 1 GB holds about {(GITHUB_PAGES_BYTES - fixed) / per_record:,.0f} "
          "records")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="2000,5000", help="record counts, comma-separated")
    parser.add_argument("--site", type=Path, help="measure this built site instead")
    parser.add_argument("--records", type=int, help="with --site: its number of records")
    args = parser.parse_args(argv)
    if args.site:
        files, sizes = measure(args.site)
        report(args.records, files, sizes)
        return 0
    sizes_wanted = [int(x) for x in args.sizes.split(",")]
    points = []
    with tempfile.TemporaryDirectory(prefix="errdocs-size-") as tmp:
        for n in sizes_wanted:
            files, sizes = measure(build(n, Path(tmp)))
            report(n, files, sizes)
            points.append((n, files, sizes))
    if len(points) >= 2:
        extrapolate(points)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
