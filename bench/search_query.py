"""What one search in the site's search box downloads: bytes and requests per query, in Chromium.

Serves SITE (a site built by ``errdocs build``) on 127.0.0.1 and, for each query, opens its
home page in a fresh browser context (nothing cached), opens the search with ``/``, types the
query and waits for the results; everything requested from then on counts. Queries come from
DATA, the records the site was built from: messages as the data has them, pasted messages (the
class in front, a value in each placeholder), tags, repository names, and common words.

    python bench/search_query.py SITE --data DATA.jsonl [--per-kind 10]

For a dataset too big to build whole here, ``--write-data`` replaces the search and lookup data
of an already built (small) SITE with those of DATA, as ``errdocs build`` would write them, and
measures that: the search box needs nothing else.

    python bench/search_query.py SITE --data big.jsonl --write-data

``bench/synth.py``'s messages come from a vocabulary of 75 words, so every word of a message
is held by thousands of records; ``--lookup-records N`` first writes DATA from
``bench/lookup_bench.py``'s generator instead (messages from a Zipf vocabulary, patterns in the
producer's styles; no class, tags or category), to measure messages as real data has them.
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import random
import re
import shutil
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]
COMMON = ["error", "failed", "invalid", "not found", "value"]
PLACEHOLDER = re.compile(r"\{[^{}]*\}")
RESULTS = """() => {
  const meta = document.querySelector('[data-errdocs-search-meta]').textContent.trim();
  return /matching|not available/.test(meta);
}"""


@dataclass(frozen=True)
class Measured:
    """One query's downloads."""

    kind: str
    query: str
    requests: int
    bytes: int
    results: int
    top: str
    expected: str | None
    """The message of the record a message query is for (its first result should be it)."""


class _Quiet(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass


Query = tuple[str, str, str | None]
"""Kind, query, and the message of the record a message query is for."""


def queries_from(data: Path, per_kind: int, seed: int = 7) -> list[Query]:
    """Queries drawn from the records of DATA."""
    rng = random.Random(seed)
    records = list(_sampled_records(data, rng, per_kind * 20))
    chosen = rng.sample(records, min(per_kind, len(records)))
    found: list[Query] = [("message", r["errorMessage"], r["errorMessage"]) for r in chosen]
    found += [("pasted", _pasted(r, rng), r["errorMessage"]) for r in chosen]
    tags = sorted({t for r in records for t in r.get("tags") or []})
    found += [("tag", t, None) for t in rng.sample(tags, min(per_kind, len(tags)))]
    repos = sorted({r["repo"] for r in records})
    found += [("repo", r, None) for r in rng.sample(repos, min(per_kind, len(repos)))]
    found += [("common", w, None) for w in COMMON]
    return found


def _sampled_records(data: Path, rng: random.Random, count: int) -> Iterator[dict]:
    """About ``count`` records spread over the file (read by byte offsets: files are big)."""
    size = data.stat().st_size
    with data.open("rb") as handle:
        for offset in sorted(rng.randrange(size) for _ in range(count)):
            handle.seek(offset)
            handle.readline()  # the rest of a line
            line = handle.readline()
            if line.strip():
                value = json.loads(line)
                yield value.get("record", value)


def _pasted(record: dict, rng: random.Random) -> str:
    """The message as a program prints it: values in the placeholders, the class in front."""
    message = PLACEHOLDER.sub(lambda _: str(rng.randint(2, 999)), record["errorMessage"])
    return f"{record.get('errorClass') or 'Error'}: {message}"


@functools.cache
def _server(folder: str) -> str:
    server = ThreadingHTTPServer(("127.0.0.1", 0),
                                 functools.partial(_Quiet, directory=folder))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return f"http://127.0.0.1:{server.server_address[1]}/"


def measure(site: Path, queries: list[Query]) -> list[Measured]:
    """Downloads of each query, from a fresh browser context each."""
    from playwright.sync_api import sync_playwright

    base = _server(str(site))
    rows = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)
        for kind, query, expected in queries:
            context = browser.new_context()
            page = context.new_page()
            page.set_default_timeout(60_000)
            page.goto(base, wait_until="load")
            sizes: list[int] = []
            page.on("requestfinished",
                    lambda r, sizes=sizes: sizes.append(r.sizes()["responseBodySize"]))
            page.keyboard.press("/")
            page.fill("[data-errdocs-search-query]", query)
            page.wait_for_function(RESULTS)
            page.wait_for_timeout(300)  # anything still arriving
            titles = page.locator(".md-search-result__item h1").all_inner_texts()
            rows.append(Measured(kind, query, len(sizes), sum(sizes), len(titles),
                                 titles[0] if titles else "", expected))
            context.close()
        browser.close()
    return rows


def write_data(site: Path, data: Path) -> None:
    """Replace the search and lookup data of SITE with those of DATA (what the build writes)."""
    from errdocs.catalog.model import build_catalog
    from errdocs.catalog.scan import scan
    from errdocs.lookup import build_index
    from errdocs.search.pastebox import FOLDER as LOOKUP
    from errdocs.search.pastebox import site_data
    from errdocs.search.searchbox import FOLDER as SEARCH
    from errdocs.search.searchbox import records_by_id, search_data

    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as work:
        found = scan([data], Path(work))
    records = [x.record for x in found.lights]
    scanned = time.perf_counter()
    catalog = build_catalog(records)
    index = build_index(records, catalog, javascript=True)
    pages = [*site_data(index).pages, *search_data(index, records_by_id(records))]
    made = time.perf_counter()
    for folder in (LOOKUP, SEARCH):
        shutil.rmtree(site / "errors" / folder, ignore_errors=True)
    sizes: dict[str, list[int]] = {LOOKUP: [], SEARCH: []}
    for page in pages:
        target = site / "errors" / page.path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(page.content, "utf-8")
        sizes[page.path.rsplit("/", 1)[0]].append(len(page.content))
    print(f"{len(records)} records: scanned in {scanned - started:.1f} s, data made in "
          f"{made - scanned:.1f} s, written in {time.perf_counter() - made:.1f} s")
    for folder, found_sizes in sizes.items():
        print(f"  {folder}: {len(found_sizes)} files, {sum(found_sizes) / 1e6:.1f} MB, "
              f"largest {max(found_sizes) / 1e3:.1f} KB")


def write_lookup_records(count: int, out: Path) -> None:
    """DATA from lookup_bench.py's seeded generator, as JSON Lines."""
    sys.path.insert(0, str(Path(__file__).parent))
    import lookup_bench

    with out.open("w", encoding="utf-8") as handle:
        for number, item in enumerate(lookup_bench.generate(count, seed=5)):
            r = item.record  # its id and slug are not unique: number them
            handle.write(json.dumps({"record": {
                "id": f"{number:016x}", "repo": r.repo, "slug": f"e{number}",
                "errorMessage": r.error_message, "messagePattern": r.message_pattern}}) + "\n")


def report(rows: list[Measured]) -> None:
    for row in rows:
        print(f"{row.kind:8} {row.bytes / 1000:8.1f} KB {row.requests:3} requests "
              f"{row.results:3} results  {row.query[:50]!r} -> {row.top[:40]!r}")
    kinds = sorted({r.kind for r in rows}, key=[r.kind for r in rows].index)
    for kind in [*kinds, "all"]:
        chosen = [r for r in rows if kind in ("all", r.kind)]
        kb = [r.bytes / 1000 for r in chosen]
        requests = [r.requests for r in chosen]
        checked = [r for r in chosen if r.expected is not None]
        first = f"   right record first {sum(r.top == r.expected for r in checked)}/" \
                f"{len(checked)}" if checked else ""
        print(f"{kind:8} n={len(chosen):3}  KB mean {statistics.fmean(kb):7.1f} max "
              f"{max(kb):7.1f}   requests mean {statistics.fmean(requests):5.1f} max "
              f"{max(requests):3}{first}")
    print(f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("site", type=Path)
    parser.add_argument("--data", type=Path, required=True)
    parser.add_argument("--per-kind", type=int, default=10)
    parser.add_argument("--write-data", action="store_true",
                        help="first replace SITE's search and lookup data with DATA's")
    parser.add_argument("--lookup-records", type=int, metavar="N",
                        help="first write DATA: N records of lookup_bench.py's generator")
    args = parser.parse_args(argv)
    if args.lookup_records:
        write_lookup_records(args.lookup_records, args.data)
    if args.write_data:
        write_data(args.site, args.data)
    report(measure(args.site, queries_from(args.data, args.per_kind)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
