"""Lookup benchmark: index build time, lookups per second and the bytes a browser lookup loads,
at N synthetic records (default 310,000, the producer's dataset size).

    .venv/bin/python bench/lookup_bench.py                 # N=310,000, 2,000 lookups
    .venv/bin/python bench/lookup_bench.py -n 20000 -q 500 --json

The records are synthetic and seeded (same seed, same records): messages of 3-9 words drawn
from a Zipf-distributed vocabulary, one to three placeholders, patterns derived from them in
the styles the producer uses (named groups, ``\\d+``, ``\\S+``, lazy ``.+?``, ``\\Z``,
``(?i)``), and 2% generic messages repeated across repositories ("not found: {x}"). This is a
minimal generator of its own (the scale benchmark's generator was not on main when this was
written). Queries are concrete messages of random records, half of them inside a traceback,
and a tenth reworded (a word dropped).
"""

from __future__ import annotations

import argparse
import gc
import itertools
import json
import random
import resource
import shutil
import statistics
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from errdocs.catalog.model import build_catalog
from errdocs.lookup import build_index, lookup, store
from errdocs.lookup.extract import candidates
from errdocs.lookup.match import lookup_words
from errdocs.records.record import Origin, Record
from errdocs.search.pastebox import shard_of, site_data

GENERIC = ["not found: {x}", "invalid argument: {x}", "permission denied: {x}",
           "unexpected end of input", "timeout after {n} ms", "connection refused",
           "unsupported operation: {x}", "value out of range: {n}", "not implemented",
           "failed to parse {x}"]
COMMON = ["invalid", "unknown", "failed", "error", "not", "found", "cannot", "must", "be",
          "expected", "got", "missing", "unsupported", "value", "type", "file", "to", "the",
          "a", "of", "in", "for", "is", "no", "mode", "size", "key", "request", "config"]
SLOTS = [("{n}", r"(\d+)", lambda r: str(r.randint(0, 99999))),
         ("{name}", r"(?P<name{i}>\S+)", lambda r: f"item_{r.randint(0, 999)}"),
         ("{path}", r"(?P<path{i}>.+?)", lambda r: f"/srv/data/{r.randint(0, 99)}/file.bin"),
         ("{mode!r}", r"'(?P<mode{i}>[^']+)'", lambda r: f"'m{r.randint(0, 9)}'")]


@dataclass(frozen=True)
class Synthetic:
    """A record and a concrete message of it."""

    record: Record
    concrete: str


def vocabulary(rng: random.Random, size: int) -> list[str]:
    letters = "abcdefghijklmnopqrstuvwxyz"
    words = {"".join(rng.choice(letters) for _ in range(rng.randint(3, 10))) for _ in range(size)}
    return COMMON + sorted(words)


def make_record(rng: random.Random, number: int, words: list[str], cumulative: list[float],
                repos: int) -> Synthetic:
    repo = f"owner{number % repos}/repo{number % repos}"
    if rng.random() < 0.02:
        template = rng.choice(GENERIC)
        concrete = template.replace("{x}", f"k{rng.randint(0, 99)}").replace("{n}", "30")
        pattern = template.replace("{x}", "(.+)").replace("{n}", r"(\d+)")
    else:
        parts = rng.choices(words, cum_weights=cumulative, k=rng.randint(3, 9))
        template_parts, pattern_parts, concrete_parts = list(parts), list(parts), list(parts)
        # (Not ``number``: that is the record's, and named its id, slug and line until
        # 2026-12-04, when records shared a dozen ids.)
        for group in range(rng.randint(1, 3)):
            at = rng.randint(0, len(template_parts))
            slot, regex, value = rng.choice(SLOTS)
            template_parts.insert(at, slot)
            pattern_parts.insert(at, regex.replace("{i}", str(group)))
            concrete_parts.insert(at, value(rng))
        template = " ".join(template_parts)
        pattern = " ".join(pattern_parts)
        concrete = " ".join(concrete_parts)
        if rng.random() < 0.1:
            pattern += r"\Z"
        if rng.random() < 0.05:
            pattern = "(?i)" + pattern
    record = Record(id=f"{number:016x}", repo=repo, slug=f"e{number}", error_message=template,
                    message_pattern=pattern, origin=Origin("synthetic", number + 1))
    return Synthetic(record, concrete)


def generate(count: int, seed: int) -> list[Synthetic]:
    rng = random.Random(seed)
    words = vocabulary(rng, max(2000, count // 10))
    weights = [1 / (rank + 1) ** 0.9 for rank in range(len(words))]  # Zipf-like
    cumulative = list(itertools.accumulate(weights))
    return [make_record(rng, n, words, cumulative, max(1, count // 100)) for n in range(count)]


def query_of(rng: random.Random, item: Synthetic) -> tuple[str, str]:
    """A pasted text for ``item`` and its kind."""
    roll = rng.random()
    if roll < 0.1:
        words = item.concrete.split()
        if len(words) > 3:
            del words[rng.randrange(len(words))]
        return " ".join(words), "reworded"
    if roll < 0.55:
        return ("Traceback (most recent call last):\n  File \"app.py\", line 12, in main\n"
                f"    run()\nRuntimeError: {item.concrete}\n"), "traceback"
    return item.concrete, "message"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("-n", "--records", type=int, default=310_000)
    parser.add_argument("-q", "--queries", type=int, default=2_000)
    parser.add_argument("--seed", type=int, default=5)
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args()
    result = run(args.records, args.queries, args.seed)
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        for key, value in result.items():
            print(f"{key:32} {value}")


def run(count: int, queries: int, seed: int) -> dict[str, object]:
    started = time.perf_counter()
    items = generate(count, seed)
    records = [i.record for i in items]
    generated = time.perf_counter()
    catalog = build_catalog(records)
    catalogued = time.perf_counter()
    index = build_index(records, catalog)
    indexed = time.perf_counter()
    cache = Path(tempfile.mkdtemp()) / "index.json.gz"
    store.save(index, cache, ["bench"])
    saved = time.perf_counter()
    loaded = store.load(cache, ["bench"])
    reloaded = time.perf_counter()
    assert loaded is not None and len(loaded.targets) == len(index.targets)
    cache_mb = cache.stat().st_size / 1e6
    shutil.rmtree(cache.parent)
    index = loaded  # lookups below run on the index as errdocs lookup reads it
    site_index = build_index(records, catalog, javascript=True)
    data = site_data(site_index)
    pages = list(data.pages)  # (made as they are taken)
    written = time.perf_counter()

    sizes = {page.path: len(page.content.encode()) for page in pages}
    manifest = next(p for p in pages if p.path.endswith("manifest.js"))
    shards = json.loads(manifest.content[manifest.content.index("{"):
                                         manifest.content.rindex("}") + 1])["shards"]
    # As errdocs lookup does: the index lives as long as the process, so the cyclic garbage
    # collector need not scan its millions of objects in the middle of a lookup.
    gc.freeze()
    rng = random.Random(seed + 1)
    checked: list[int] = []
    cpu: list[float] = []  # CPU time: on a shared machine, wall time includes waiting
    timings, downloaded, kinds = [], [], {"message": [0, 0], "traceback": [0, 0],
                                          "reworded": [0, 0]}
    for item in rng.sample(items, min(queries, len(items))):
        text, kind = query_of(rng, item)
        begin, begin_cpu = time.perf_counter(), time.process_time()
        matches = lookup(index, text, limit=10)
        timings.append(time.perf_counter() - begin)
        cpu.append(time.process_time() - begin_cpu)
        words = lookup_words(candidates(text))
        checked.append(len(index.candidates(words)))
        wanted = {shard_of(w, shards) for w in words}
        downloaded.append(sizes[manifest.path] + sum(sizes[f"assets/lookup/s{n:x}.js"]
                                                     for n in wanted))
        kinds[kind][1] += 1
        if matches and _same_message(matches[0].target.message, item.record.error_message):
            kinds[kind][0] += 1
    ms = sorted(t * 1000 for t in timings)
    shard_sizes = [v for k, v in sizes.items() if not k.endswith("manifest.js")]
    return {
        "records": count,
        "queries": len(timings),
        "generate_s": round(generated - started, 2),
        "catalog_s": round(catalogued - generated, 2),
        "index_build_s": round(indexed - catalogued, 2),
        "bad_or_vague_patterns": len(site_index.problems),
        "index_save_s": round(saved - indexed, 2),
        "index_load_s": round(reloaded - saved, 2),
        "index_file_mb": round(cache_mb, 1),
        "site_data_s": round(written - reloaded, 2),
        "lookups_per_s": round(len(ms) / (sum(ms) / 1000), 1),
        "lookup_ms_mean": round(statistics.fmean(ms), 2),
        "lookup_ms_p50": round(ms[len(ms) // 2], 2),
        "lookup_ms_p95": round(ms[int(len(ms) * 0.95)], 2),
        "lookup_ms_max": round(ms[-1], 2),
        "lookup_cpu_ms_p95": round(sorted(cpu)[int(len(cpu) * 0.95)] * 1000, 2),
        "lookup_cpu_ms_max": round(max(cpu) * 1000, 2),
        "records_checked_mean": round(statistics.fmean(checked), 1),
        "records_checked_max": max(checked),
        "top1_message": _share(kinds["message"]),
        "top1_traceback": _share(kinds["traceback"]),
        "top1_reworded": _share(kinds["reworded"]),
        "data_files": len(pages),
        "data_total_mb": round(sum(sizes.values()) / 1e6, 1),
        "shards": shards,
        "shard_kb_mean": round(statistics.fmean(shard_sizes) / 1000, 1),
        "shard_kb_max": round(max(shard_sizes) / 1000, 1),
        "browser_kb_per_lookup_mean": round(statistics.fmean(downloaded) / 1000, 1),
        "browser_kb_per_lookup_p95": round(sorted(downloaded)[int(len(downloaded) * 0.95)] / 1000,
                                           1),
        "browser_kb_per_lookup_max": round(max(downloaded) / 1000, 1),
        "unconverted_patterns": data.unconverted,
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
    }


def _same_message(found: str, wanted: str) -> bool:
    """Generic messages repeat across repositories: any of them is a right answer."""
    return found == wanted


def _share(pair: list[int]) -> float | None:
    return round(pair[0] / pair[1], 3) if pair[1] else None


if __name__ == "__main__":
    main()
