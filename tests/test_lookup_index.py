"""What the index files records under, and how bad or useless patterns are handled."""

from __future__ import annotations

import re
import warnings
from collections import Counter

import pytest

from errdocs.catalog.model import build_catalog
from errdocs.lookup import How, build_index, lookup
from errdocs.lookup.index import choose_keys
from errdocs.lookup.patterns import (
    parse,
    pattern_requirements,
    template_regex,
    template_requirements,
)

from .helpers import record


@pytest.mark.parametrize(("pattern", "words", "chars"), [
    (r"Unknown MLX async mode: (.+?)", {"unknown", "mlx", "async", "mode"}, 24),
    # A word next to a wildcard may be part of a longer word of the message: not required.
    (r"key(\w+) missing\s+now", {"missing", "now"}, 14),
    (r"(?i)^Bad\s+(?:input|data)\b thing$", {"bad", "thing"}, 9),
    (r"a|b", set(), 0),
    (r"tp_size \((?P<tp>\d+)\) must", {"tp_size", "must"}, 15),
])
def test_pattern_requirements(pattern: str, words: set[str], chars: int) -> None:
    required = pattern_requirements(parse(pattern))
    assert (set(required.words), required.literal_chars) == (words, chars)


@pytest.mark.parametrize("pattern", [r"[a||b] failed", r"[x&&y] failed"])
def test_a_pattern_python_warns_about_is_parsed_without_a_warning(pattern: str) -> None:
    # Python warns (FutureWarning) of set operations it may add; a record's pattern is the
    # producer's, and the warning came out in the middle of a build's output.
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        required = pattern_requirements(parse(pattern))
    assert "failed" in required.words


def test_template_requirements_and_regex() -> None:
    required = template_requirements("Plugin {name} must export a function, got {typeof mod}")
    assert set(required.words) == {"plugin", "must", "export", "a", "function", "got"}
    assert required.literal_chars == len("Plugin  must export a function, got ")
    source = template_regex("key {{raw}} {k}ms: a.b (x)")
    assert source == r"key\s+\{raw\}\s+([\s\S]+?)ms:\s+a\.b\s+\(x\)"
    assert re.fullmatch(source, "key  {raw}\t500ms: a.b (x)")
    assert not re.fullmatch(source, "key {raw} 500ms: aXb (x)")


def test_keys_are_rarest_and_cover_pattern_and_template() -> None:
    frequency = Counter({"error": 100, "shard": 3, "count": 5, "ring": 1})
    assert choose_keys(frozenset({"shard", "count", "error"}),
                       frozenset({"shard", "count", "error"}), frequency) == ("shard", "count")
    # A common word is no second key...
    assert choose_keys(frozenset({"shard", "error"}), frozenset({"shard", "error"}),
                       frequency, common=64) == ("shard",)
    # ...unless the template needs it: "ring" is rarest but only in the pattern.
    assert choose_keys(frozenset({"ring", "error"}), frozenset({"shard", "count"}),
                       frequency) == ("ring", "shard")
    assert choose_keys(frozenset(), frozenset(), frequency) == ()


def _index(*records):
    return build_index(records, build_catalog(records))


def test_a_bad_pattern_is_reported_once_and_the_template_matches() -> None:
    bad = record("bad1", slug="b", error_message="Queue {name} is full",
                 message_pattern="Queue (?P<name>\\w+ is full")
    index = _index(bad, record("ok1", slug="o", error_message="Disk {d} is full"))
    assert [str(p) for p in index.problems] == [
        "t.jsonl:1: record 'bad1': field 'messagePattern': warning: does not compile (missing ), "
        "unterminated subpattern at position 6); it is matched by its message template instead"]
    for _ in range(2):  # looking up again reports nothing new
        found = lookup(index, "Queue jobs is full")
        assert (found[0].target.record_id, found[0].how) == ("bad1", How.TEMPLATE)
    assert len(index.problems) == 1


def test_a_pattern_without_words_falls_back_to_its_template() -> None:
    vague = record("v1", error_message="Timeout after {n} seconds", message_pattern="(.+)")
    index = _index(vague)
    assert index.problems == []  # not a fault of the record: build does not report it
    assert "has no whole word" in index.unusable[0].message
    assert index.targets[0].pattern is None
    assert lookup(index, "anything at all") == []
    assert lookup(index, "Timeout after 30 seconds")[0].how is How.TEMPLATE


def test_records_without_words_are_not_indexed() -> None:
    index = _index(record("e1", error_message="{0}"), record("e2", slug="t",
                                                             error_message="{a}: {b}"))
    assert index.postings == {}
    assert lookup(index, "x: y") == []


def test_a_lookup_checks_only_records_filed_under_its_words() -> None:
    records = [record(f"r{n}", slug=f"s{n}", error_message=f"widget{n} failed: {{why}}",
                      message_pattern=f"widget{n} failed: (.+)") for n in range(500)]
    index = _index(*records)
    assert index.candidates(["widget7", "failed"]) == [
        next(i for i, t in enumerate(index.targets) if t.record_id == "r7")]
    assert lookup(index, "widget7 failed: boom")[0].target.record_id == "r7"
