"""The build-time check for patterns that make a backtracking engine (the browser's) take
exponential time (generator/errdocs/lookup/backtrack.py), and what the build does with them."""

from __future__ import annotations

import pytest

from errdocs.catalog.model import build_catalog
from errdocs.lookup import build_index
from errdocs.lookup.backtrack import exponential
from errdocs.lookup.index import SLOW
from errdocs.lookup.patterns import parse
from errdocs.search.pastebox import site_data

from .helpers import record

EXPONENTIAL = [r"Bad value (a+)+$", r"(\w+\s?)*$", r"(a|aa)+$", r"(.*a){12}", r"(a*)*b",
               r"(?:\d+)*x", r"((ab)*)*c", r"(x+x+)+y", r"(?=(a+)+b)a", r"^(\w+\.?)+@",
               r"(?i)(?:ab|AB|aB)+c", r"(?:[a-z]+|\d+|\w)+=", r"(?:(?P<x>a)|a\w)+"]
LINEAR_ENOUGH = [r"(\d+\.)+\d+", r"(?:[A-Za-z_]\w*\.)*[A-Za-z_]\w*", r"(.*) in (.*)", r".*.*",
                 r"Unknown MLX async mode: (?P<m>\S+)", r"(\w+,\s*)*\w+$", r"(?:foo|bar)+",
                 r"(?:ab|ac)+", r"(\d{1,3}\.){3}\d{1,3}", r"( \w+){0,3}", r"'(?P<mode>[^']+)'",
                 r"(\S+) (\S+)", r"(?P<a>\w+)-(?P=a)", r"(a(bc)?)+d", r"(?:\s*,\s*\w+)*\s*$",
                 r"(?:[^\s,]+,)*[^\s,]+", r"(?:key=\w+;)+"]


@pytest.mark.parametrize("pattern", EXPONENTIAL)
def test_exponential_patterns_are_found(pattern: str) -> None:
    assert exponential(parse(pattern))


@pytest.mark.parametrize("pattern", LINEAR_ENOUGH)
def test_patterns_of_bounded_ambiguity_are_left_alone(pattern: str) -> None:
    assert not exponential(parse(pattern))


def test_no_sample_pattern_is_flagged(sample_index) -> None:
    patterns = [t.pattern for t in sample_index.targets if t.pattern]
    assert len(patterns) > 30
    assert [p for p in patterns if exponential(parse(p))] == []


def test_a_slow_pattern_is_reported_once_and_left_out_of_the_browser_data() -> None:
    evil = record("e1", slug="e", error_message="Bad value {v}",
                  message_pattern=r"Bad value (a+)+$")
    fine = record("f1", slug="f", error_message="Good value {v}",
                  message_pattern=r"Good value (\w+)$")
    records = [evil, fine]
    index = build_index(records, build_catalog(records), javascript=True)
    assert [str(p) for p in index.problems] == [
        f"t.jsonl:1: record 'e1': field 'messagePattern': warning: {SLOW}"]
    data = site_data(index)
    assert data.unconverted == 1
    shards = "".join(p.content for p in data.pages if "/s" in p.path)
    assert '"Bad value {v}",null,""' in shards  # matched by its template in the browser
    assert "Good value" in shards and "(\\\\w+)" not in shards  # \w is converted, not copied
    # errdocs lookup (RE2) still matches it by its pattern, and says nothing about it.
    plain = build_index(records, build_catalog(records))
    assert plain.problems == [] and plain.targets[0].pattern == r"Bad value (a+)+$"
