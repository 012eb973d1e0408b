"""Listing pages at two sizes: does any listing page grow with the number of records?

Issue 13 (rows that tell records apart, the home page, the group indexes, charts) asks that
the largest page be within 10% at 10x the records. This renders, for synthetic records
(bench/synth.py), every page that lists records or groups (repository, category, tag and
family pages, the indexes of tags, categories and repositories, the catalogue's front page
and the home page's summary) as Markdown, the way ``errdocs build`` does, and prints the
largest of each kind and the ratio between the sizes. Record pages are measured by
bench/run.py (they do not list other records beyond their bounded related lists).

It also makes the listings' filter data (generator/errdocs/pages/filters.py) and prints its
largest file and what one filter action downloads (the files of the first page of results of
one facet's value: manifest, the listing's summary, the value's list, the row files), the
largest and the mean over every listing, facet and value.

    python bench/listings_bench.py [--sizes 2000,20000] [--seed 1]
"""

from __future__ import annotations

import argparse
import collections
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

import synth

from errdocs.catalog import facets
from errdocs.catalog.model import Catalog, GroupKind, build_catalog
from errdocs.catalog.scan import scan
from errdocs.pages import filters
from errdocs.pages.render import (
    listed_kinds,
    render_group,
    render_group_list,
    render_home,
    render_home_fragment,
)


def measure(n: int, seed: int, work: Path) -> tuple[dict[str, tuple[int, str, int]],
                                                   tuple[int, str, int, int, float, int]]:
    """Largest page (bytes, path) and page count of each kind, and the filter figures
    (:func:`filter_figures`), for ``n`` records."""
    data = synth.write(n, work / f"{n}.jsonl", seed)
    found = scan([data], work / f"scan-{n}")  # the light records a sharded build keeps
    catalog = build_catalog(x.record for x in found.lights)
    largest: dict[str, tuple[int, str, int]] = defaultdict(lambda: (0, "", 0))

    def keep(kind: str, path: str, content: str) -> None:
        size, where, count = largest[kind]
        length = len(content.encode())
        largest[kind] = (length, path, count + 1) if length > size else (size, where,
                                                                          count + 1)

    for kind in GroupKind:
        for group in catalog.groups[kind].values():
            for page in render_group(group):
                keep(f"{kind.value} page", page.path, page.content)
    for kind in listed_kinds(catalog):
        for page in render_group_list(kind, catalog):
            keep(f"{kind.value} index", page.path, page.content)
    keep("catalogue front page", "index.md", render_home(catalog, changes=True).content)
    home = render_home_fragment(catalog, "errors", changes=True)
    keep("home page summary", home.path, home.content)
    return dict(largest), filter_figures(catalog)


def filter_figures(catalog: Catalog) -> tuple[int, str, int, int, float, int]:
    """The filter data's largest file (bytes, path), its file count, the largest and mean
    bytes of one filter action, and the number of actions measured."""
    size = {f.path: len(f.content.encode()) for f in filters.filter_data(catalog)}
    largest = max(size, key=size.__getitem__)
    rows = filters.row_file_count(len(catalog.entries))
    listings = [(facets.CATALOGUE, sorted(catalog.entries.values(), key=lambda e: e.sort_key))]
    listings += [(facets.group_filter(g), list(g.entries)) for kind in facets.FILTERED
                 for g in catalog.groups[kind].values()]
    actions = []
    for key, entries in listings:
        params = [p for p in filters.PARAMS if p.facet is not facets.REPO
                  or len({e.repo for e in entries}) > 1]
        for param in params:
            counted = facets.ranked(collections.Counter(
                facets.value_of(e, param.facet) for e in entries))
            for value, _ in filters.offer(counted):
                paths = filters.action_files(key, entries, param, value, rows)
                actions.append(sum(size[p] for p in paths))
    return (size[largest], largest, len(size), max(actions), sum(actions) / len(actions),
            len(actions))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="2000,20000", help="two record counts")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    small, large = (int(s) for s in args.sizes.split(","))
    with tempfile.TemporaryDirectory() as tmp:
        results, filtered = {}, {}
        for n in (small, large):
            start = time.perf_counter()
            results[n], filtered[n] = measure(n, args.seed, Path(tmp))
            print(f"N={n}: {time.perf_counter() - start:.1f} s", file=sys.stderr)
    print(f"| page kind | largest at N={small:,} | largest at N={large:,} | ratio | pages |")
    print("| --- | ---: | ---: | ---: | ---: |")
    worst = 0.0
    for kind in sorted(results[large]):
        a, _, count_a = results[small].get(kind, (0, "", 0))
        b, where, count_b = results[large][kind]
        ratio = b / a if a else float("inf")
        worst = max(worst, ratio)
        print(f"| {kind} | {a / 1024:.1f} KB | {b / 1024:.1f} KB ({where}) | {ratio:.3f} | "
              f"{count_a:,} → {count_b:,} |")
    overall = [max(r.values())[0] for r in (results[small], results[large])]
    print(f"\nlargest listing page: {overall[0] / 1024:.1f} KB → {overall[1] / 1024:.1f} KB "
          f"({overall[1] / overall[0]:.3f}x); worst kind {worst:.3f}x")
    (a, where_a, files_a, most_a, mean_a, count_a), (b, where_b, files_b, most_b, mean_b,
                                                     count_b) = filtered[small], filtered[large]
    print(f"\n| filter data | N={small:,} | N={large:,} | ratio |")
    print("| --- | ---: | ---: | ---: |")
    print(f"| largest file | {a / 1024:.1f} KB ({where_a}) | {b / 1024:.1f} KB ({where_b}) | "
          f"{b / a:.3f} |")
    print(f"| files | {files_a:,} | {files_b:,} | {files_b / files_a:.2f} |")
    print(f"| bytes per filter action, most | {most_a / 1024:.1f} KB | {most_b / 1024:.1f} KB | "
          f"{most_b / most_a:.3f} |")
    print(f"| bytes per filter action, mean ({count_a:,} → {count_b:,} actions) | "
          f"{mean_a / 1024:.1f} KB | {mean_b / 1024:.1f} KB | {mean_b / mean_a:.3f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
