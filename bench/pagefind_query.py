"""How many bytes a search downloads: Chromium runs Pagefind's JS API on a served index.

Serves FOLDER (a site, or just a Pagefind bundle) on 127.0.0.1, opens a blank page there,
loads ``/BUNDLE/pagefind.js``, merges ``--merge`` extra indexes, searches each query (by
default: error messages taken from DATA, as a reader would paste them), loads the first five
results' data, and prints the bytes of every response the search caused.

    python bench/pagefind_query.py FOLDER --data DATA.jsonl [--bundle pagefind] [--queries 5]
"""

from __future__ import annotations

import argparse
import functools
import json
import sys
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]
SEARCH = """async ([bundle, merges, query]) => {
  const pagefind = await import(`/${bundle}/pagefind.js`);
  await pagefind.options({});
  for (const extra of merges) await pagefind.mergeIndex(`/${extra}`);
  const search = await pagefind.search(query);
  const data = await Promise.all(search.results.slice(0, 5).map(r => r.data()));
  return {count: search.results.length, urls: data.map(d => d.url)};
}"""


class _Quiet(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass


def queries_from(data: Path, count: int) -> list[str]:
    """Error messages spread over the dataset (every k-th record)."""
    lines = data.read_text("utf-8").splitlines()
    step = max(1, len(lines) // count)
    return [json.loads(lines[i])["record"]["errorMessage"] for i in range(0, len(lines), step)
            ][:count]


def measure(folder: Path, queries: list[str], bundle: str = "pagefind",
            merges: tuple[str, ...] = ()) -> list[dict[str, object]]:
    """Bytes downloaded per query (a fresh browser context each, so nothing is cached)."""
    from playwright.sync_api import sync_playwright

    handler = functools.partial(_Quiet, directory=str(folder))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}"
    (folder / "blank.html").write_text("<!doctype html><title>q</title>", "utf-8")
    results = []
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)
            for query in queries:
                context = browser.new_context()
                page = context.new_page()
                page.goto(f"{base}/blank.html")
                sizes: list[int] = []
                page.on("requestfinished",
                        lambda r, sizes=sizes: sizes.append(r.sizes()["responseBodySize"]))
                found = page.evaluate(SEARCH, [bundle, list(merges), query])
                page.wait_for_timeout(200)
                results.append({"query": query, "results": found["count"],
                                "requests": len(sizes), "bytes": sum(sizes),
                                "top": found["urls"][:1]})
                context.close()
            browser.close()
    finally:
        server.shutdown()
        (folder / "blank.html").unlink(missing_ok=True)
    return results


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", type=Path)
    parser.add_argument("--data", type=Path, required=True)
    parser.add_argument("--bundle", default="pagefind")
    parser.add_argument("--merge", action="append", default=[])
    parser.add_argument("--queries", type=int, default=5)
    args = parser.parse_args(argv)
    rows = measure(args.folder, queries_from(args.data, args.queries), args.bundle,
                   tuple(args.merge))
    for row in rows:
        print(f"{row['bytes'] / 1024:8.1f} KB in {row['requests']:3} requests, "
              f"{row['results']:6} results, top {row['top']}: {row['query'][:60]}")
    print(f"max {max(r['bytes'] for r in rows) / 1024:.1f} KB, mean "  # type: ignore[type-var]
          f"{sum(r['bytes'] for r in rows) / len(rows) / 1024:.1f} KB")  # type: ignore[misc]
    return 0


if __name__ == "__main__":
    sys.exit(main())
