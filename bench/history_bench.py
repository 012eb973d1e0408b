"""What the history and the files made from it cost at N records, outside a site build.

    .venv/bin/python bench/history_bench.py                # N=100,000
    .venv/bin/python bench/history_bench.py -n 310000 --json

Two dataset versions: the first adds N records; the second changes, removes and adds 1% each
and changes the address of 0.5%; then the second again (a rebuild). For each, the history
update (``History.update`` and its commit), then the 404 page's data
(``changes.resolve_data``) and the paged index (``exports.index_files``): CPU seconds (process
time), files, bytes and the largest file; the history file's size and the process's peak
memory. Records are light (id, digest, path, message), as the build
keeps them.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import resource
import tempfile
import time
from pathlib import Path

from errdocs.catalog.history import History, Seen
from errdocs.catalog.model import Catalog, Entry, GroupKind
from errdocs.pages import changes, exports
from errdocs.pages.permalinks import Addresses


def _records(n: int, salt: str = "") -> list[Seen]:
    out = []
    for i in range(n):
        record_id = hashlib.blake2b(f"{i}".encode(), digest_size=8).hexdigest()
        message = f"Failed to load shard {{name}} of model {i % 977}: {salt}code {i % 13}"
        out.append(Seen(record_id, hashlib.blake2b(f"{i}{salt}".encode(), digest_size=16).digest(),
                        f"org{i % 500}/repo{i % 3000}/failed-to-load-shard-{i}.md", message,
                        f"org{i % 500}/repo{i % 3000}"))
    return out


def _second(first: list[Seen]) -> list[Seen]:
    """1% removed, 1% changed, 0.5% moved to another address, 1% added."""
    out = []
    for i, seen in enumerate(first):
        if i % 100 == 1:
            continue
        if i % 100 == 2:
            seen = Seen(seen.id, b"changed" + seen.digest[7:], seen.path, seen.message, seen.repo)
        if i % 200 == 3:
            seen = Seen(seen.id, seen.digest, seen.path.replace(".md", "-moved.md"),
                        seen.message, seen.repo)
        out.append(seen)
    for seen in first[: len(first) // 100]:
        out.append(Seen(f"new-{seen.id}", seen.digest, seen.path.replace(".md", "-new.md"),
                        seen.message, seen.repo))
    return out


def _catalog(records: list[Seen]) -> Catalog:
    entries = {r.id: Entry(r.id, r.path, r.message, r.repo) for r in records}
    return Catalog(entries, {kind: {} for kind in GroupKind})


def _files(label: str, files: list) -> dict[str, object]:
    sizes = [len(f.content.encode("utf-8")) for f in files]
    return {f"{label}_files": len(files), f"{label}_mb": round(sum(sizes) / 1e6, 1),
            f"{label}_largest_kb": round(max(sizes) / 1e3, 1)}


def run(n: int, work: Path) -> list[dict[str, object]]:
    addresses = Addresses("errors", True, "https://errors.example.org/")
    results = []
    first = _records(n)
    second = _second(first)
    for name, records in (("v1", first), ("v2", second), ("v2", second)):
        start = time.process_time()
        with History(work) as past:
            snapshot = past.update(name, "2026-01-01T00:00:00Z", records)
            past.commit()
        update = time.process_time() - start
        catalog = _catalog(records)
        start = time.process_time()
        resolve = changes.resolve_data(catalog, snapshot, addresses)
        resolve_s = time.process_time() - start
        start = time.process_time()
        index = list(exports.index_files((exports.IndexEntry(r.id, r.message, r.path)
                                          for r in records), addresses))
        index_s = time.process_time() - start
        current = snapshot.current
        results.append({
            "version": name, "records": len(records), "update_s": round(update, 2),
            "added": current.added, "changed": current.changed, "removed": current.removed,
            "left_addresses": len(snapshot.old_paths),
            "history_mb": round((work / "history.sqlite").stat().st_size / 1e6, 1),
            "resolve_s": round(resolve_s, 2), **_files("resolve", resolve),
            "index_s": round(index_s, 2), **_files("index", index),
            "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)})
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", type=int, default=100_000, help="records (default 100,000)")
    parser.add_argument("--json", action="store_true", help="print JSON")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="errdocs-history-bench-") as tmp:
        results = run(args.n, Path(tmp))
    for row in results:
        print(json.dumps(row) if args.json else "  ".join(f"{k}={v}" for k, v in row.items()))


if __name__ == "__main__":
    main()
