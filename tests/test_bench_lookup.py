"""A tiny run of bench/lookup_bench.py, so the benchmark keeps working (the figures in the README
come from full runs, not from here)."""

from __future__ import annotations

import importlib.util
import sys

from .conftest import ROOT

BENCH = ROOT / "bench" / "lookup_bench.py"


def _bench():
    spec = importlib.util.spec_from_file_location("lookup_bench", BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def test_small_run_finds_what_it_looks_up() -> None:
    bench = _bench()
    first = bench.run(400, 60, seed=3)
    assert first["records"] == 400 and first["queries"] == 60
    assert first["top1_message"] == 1.0 and first["top1_traceback"] == 1.0
    assert first["bad_or_vague_patterns"] == 0 and first["unconverted_patterns"] == 0
    assert 0 < first["browser_kb_per_lookup_mean"] <= first["browser_kb_per_lookup_max"]
    assert first["shards"] >= 8 and first["shards"] & (first["shards"] - 1) == 0  # power of 2
    again = bench.generate(50, seed=3)
    assert len({i.record.id for i in again}) == 50  # one id a record, as a build has
    assert [i.concrete for i in again] == [i.concrete for i in bench.generate(50, seed=3)]
