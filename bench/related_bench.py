"""What the related lists cost (issue 11): the index, every page's lists, and their memory.

Light records are made from ``synth.py``'s records (the fields the build keeps of each: id,
repository, slug, message, file, line, category, analysis time). For each N it times, in this
process, each step the build runs on top of the catalogue it already made:

- ``keys``: every message's family key (:func:`errdocs.catalog.family.message_key`);
- ``index``: :func:`errdocs.catalog.related.build_relations` (families, files, categories);
- ``family pages``: the groups of families over two or more repositories;
- ``lists``: every record's three lists (:meth:`errdocs.catalog.model.Catalog.related`), as the plan
  and the units ask for them;
- ``hash inputs``: what every page's input hash holds of them
  (:func:`errdocs.units.plan.related_input`);

then the memory the index keeps (tracemalloc, after garbage collection) and its peak while
it is built. ``--worst`` also runs the same records with one message for all and one file
per repository: one family of N records and files of hundreds, the shape a quadratic
algorithm would show.

    .venv/bin/python bench/related_bench.py --sizes 5000,20000 [--worst] [--seed 1]
"""

from __future__ import annotations

import argparse
import gc
import sys
import time
import tracemalloc
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import TypeVar

sys.path.insert(0, str(Path(__file__).resolve().parent))

import synth

from errdocs.catalog.family import message_key
from errdocs.catalog.model import GroupKind, build_catalog, family_groups, group_key
from errdocs.catalog.related import build_relations
from errdocs.records.record import Origin, Record
from errdocs.units.plan import related_input

T = TypeVar("T")


def light_records(n: int, seed: int, worst: bool) -> list[Record]:
    """N light records from synth.py's records; ``worst``: one message, a file per repo."""
    records = []
    for line, value in enumerate(synth.Synth(n, seed).records(), start=1):
        r = value["record"]
        assert isinstance(r, dict)
        records.append(Record(
            id=r["id"], repo=sys.intern(r["repo"]), slug=r["slug"],
            error_message="Unknown MLX async mode: {mode}" if worst else r["errorMessage"],
            origin=Origin("synth.jsonl", line), analyzed_at=r["analyzedAt"],
            file_path=sys.intern("src/one.py" if worst else r["filePath"]),
            line_number=r["lineNumber"], background_tag=sys.intern(r["backgroundTag"])))
    return records


def timed(name: str, step: Callable[[], T], n: int) -> T:
    start = time.process_time()
    value = step()
    seconds = time.process_time() - start
    print(f"  {name:<14} {seconds:7.3f} s CPU  ({seconds / n * 1e6:6.1f} µs a record)",
          flush=True)
    return value


def measure(records: list[Record]) -> None:
    n = len(records)
    catalog = build_catalog(records)  # as the build makes it (relations included)
    start = time.process_time()
    keys = timed("keys", lambda: [message_key(r.error_message) for r in records], n)
    rows = [(r.id, k, group_key(GroupKind.CATEGORY, r.background_tag or ""))
            for r, k in zip(records, keys, strict=True)]
    relations = timed("index", lambda: build_relations(rows, catalog.entries), n)
    families = timed("family pages", partial(family_groups, relations, catalog.entries), n)
    lists = timed("lists", lambda: [catalog.related(r) for r in records], n)
    timed("hash inputs", lambda: [related_input(r, catalog) for r in records], n)
    total = time.process_time() - start
    print(f"  {'total':<14} {total:7.3f} s CPU  ({total / n * 1e6:6.1f} µs a record)")
    longest = max(len(x.same_message) + len(x.same_file) + len(x.same_category) for x in lists)
    biggest = max((len(ids) for ids in relations.families.values()), default=0)
    print(f"  families of 2+: {len(relations.families)} (largest {biggest}), with a page: "
          f"{len(families)}; files of 2+: {len(relations.files)}; categories: "
          f"{len(relations.categories)}; most records listed on one page: {longest}")
    del families, lists
    gc.collect()
    tracemalloc.start()
    kept = build_relations(rows, catalog.entries)
    gc.collect()
    current, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    print(f"  index memory: {current / 2**20:.1f} MB kept ({current / n:.0f} bytes a record), "
          f"{peak / 2**20:.1f} MB peak while built")
    del kept


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="5000,20000")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--worst", action="store_true")
    args = parser.parse_args(argv)
    for n in (int(s) for s in args.sizes.split(",")):
        for worst in (False, True) if args.worst else (False,):
            print(f"N={n:,}{' worst case: one message, one file a repository' if worst else ''}")
            measure(light_records(n, args.seed, worst))
    return 0


if __name__ == "__main__":
    sys.exit(main())
