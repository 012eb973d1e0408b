"""Where the parent's memory goes during `errdocs build`, phase by phase (no units are built).

Runs the build's preparation steps (scan, catalogue, lookup data, root pages, plan) in this
process on a fresh copy of the project and prints, after each, the process's RSS and what
tracemalloc sees alive, then the lines holding the most memory at the end.

    .venv/bin/python bench/memphases.py bench/out/data/r20000.jsonl [--top 15] [--no-trace]
"""

from __future__ import annotations

import argparse
import gc
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

sys.path.insert(0, str(Path(__file__).resolve().parent))

import run

if TYPE_CHECKING:
    from errdocs.project import Settings

T = TypeVar("T")


def rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def phase(name: str, step: Callable[[], T]) -> T:
    """Run ``step``; print its time, then RSS and traced memory once garbage is collected."""
    start = time.perf_counter()
    value = step()
    seconds = time.perf_counter() - start
    gc.collect()
    traced = tracemalloc.get_traced_memory()[0] / 2**20 if tracemalloc.is_tracing() else 0.0
    print(f"{name:<28} {seconds:7.1f} s   RSS {rss_mb():7.1f} MB   traced {traced:7.1f} MB",
          flush=True)
    return value


def prepare(settings: Settings, data: Path) -> list[object]:
    """sitebuild._prepare, step by step; what it keeps alive."""
    from errdocs import build as sitebuild
    from errdocs.catalog.model import build_catalog
    from errdocs.catalog.scan import scan
    from errdocs.lookup import build_index
    from errdocs.pages.render import root_pages as render_root_pages
    from errdocs.pages.write import write_changed
    from errdocs.search.hosted import search_pages
    from errdocs.search.pastebox import site_data
    from errdocs.units.plan import plan

    work = settings.work_dir
    found = phase("scan", lambda: scan([data], work))
    catalog = phase("catalogue", lambda: build_catalog(x.record for x in found.lights))
    lookup = phase("lookup index", lambda: build_index([x.record for x in found.lights],
                                                       catalog, javascript=True))
    data_pages = phase("lookup site data", lambda: site_data(lookup))
    search = phase("search box data", lambda: search_pages(
        settings, lookup, (x.record for x in found.lights), full_text=False))
    lookup = phase("lookup index freed", lambda: None)
    root_pages = phase("root pages", lambda: render_root_pages(catalog, changes=True)
                       + data_pages.pages + search)
    generated = phase("generated paths", lambda: sitebuild._generated_paths(catalog, root_pages))
    phase("write root pages", lambda: write_changed(settings.out_dir, root_pages))
    hand = sitebuild._hand_written(settings, generated)[0]
    everything = sitebuild._global_key(settings)
    units = phase("plan", lambda: plan(found.lights, catalog, sitebuild._root_inputs(
        settings, root_pages, hand), everything))
    lights = phase("lights by id", lambda: {x.record.id: x for x in found.lights})
    return [found, catalog, root_pages, generated, units, lights]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data", type=Path)
    parser.add_argument("--top", type=int, default=15)
    parser.add_argument("--no-trace", action="store_true", help="RSS only (faster)")
    args = parser.parse_args(argv)
    if not args.no_trace:
        tracemalloc.start()
    from errdocs.project import load_settings

    phase("imports", lambda: None)
    with tempfile.TemporaryDirectory() as tmp:
        where = run.project(Path(tmp) / "p")
        settings = load_settings(where / "mkdocs.yml")
        kept = prepare(settings, args.data.resolve())
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
