"""Matching over the sample dataset: concrete messages, tracebacks and reworded messages
(tests/data/lookup_cases.json, shared with the Node tests) must find their record first."""

from __future__ import annotations

import json

import pytest

from errdocs.lookup import How, lookup
from errdocs.lookup.match import similarity

from .conftest import ROOT

CASES = json.loads((ROOT / "tests" / "data" / "lookup_cases.json").read_text("utf-8"))


@pytest.mark.parametrize("case", CASES["cases"], ids=lambda c: c["text"][:60])
def test_case_finds_its_record_first(sample_index, case) -> None:
    matches = lookup(sample_index, case["text"])
    assert matches, "nothing found"
    best = matches[0]
    assert (best.target.record_id, best.how.value) == (case["id"], case["how"])


@pytest.mark.parametrize("text", CASES["no_match"])
def test_unrelated_text_finds_nothing(sample_index, text) -> None:
    assert lookup(sample_index, text) == []


def test_every_sample_record_is_covered_by_a_case(sample_checked) -> None:
    covered = {c["id"] for c in CASES["cases"]}
    assert {r.id for r in sample_checked.records} <= covered


def test_the_stricter_pattern_wins_over_a_looser_one(sample_index) -> None:
    # Two records share the words "Unsupported dtype"; the colon decides.
    colon = lookup(sample_index, "Unsupported dtype: torch.float8")
    plain = lookup(sample_index, "Unsupported dtype torch.float8")
    assert colon[0].target.record_id == "85d26ab7902417d8"
    assert plain[0].target.record_id == "cef919821d142cd8"
    assert [m.how for m in colon[:2]] == [How.PATTERN, How.SIMILAR]


def test_the_last_exception_of_a_chained_traceback_wins(sample_index) -> None:
    text = ("Traceback (most recent call last):\n  File \"a.py\", line 1, in <module>\n"
            "KeyError: 'Missing required setting: FEATHER_HOME'\n\n"
            "During handling of the above exception, another exception occurred:\n\n"
            "Traceback (most recent call last):\n  File \"a.py\", line 3, in <module>\n"
            "FileNotFoundError: Checkpoint shard not found: /m/model-1.safetensors\n")
    ids = [m.target.record_id for m in lookup(sample_index, text)]
    assert ids[:2] == ["8b1013f4847ea256", "446a20b465e1f34e"]


def test_limit_and_order_are_stable(sample_index) -> None:
    text = "unsupported dtype"
    first = [m.target.url for m in lookup(sample_index, text, limit=3)]
    assert len(first) == 3
    assert first == [m.target.url for m in lookup(sample_index, text, limit=3)]
    scores = [m.score for m in lookup(sample_index, text)]
    assert scores == sorted(scores, reverse=True)


def test_similarity_weights_recall_over_precision() -> None:
    record = frozenset({"checkpoint", "shard", "not", "found"})
    assert similarity(frozenset({"checkpoint", "shard", "not", "found"}), record) == 1.0
    with_values = similarity(frozenset({"checkpoint", "shard", "not", "found", "model",
                                        "safetensors"}), record)
    missing_words = similarity(frozenset({"checkpoint", "found"}), record)
    assert 0.8 < with_values < 1.0
    assert missing_words < with_values
    assert similarity(frozenset({"other"}), record) == 0.0
