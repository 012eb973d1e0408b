"""What a page says about itself (front matter under ``errdocs:``), and the sitemap dates."""

from __future__ import annotations

import dataclasses
import json
from datetime import date
from pathlib import Path

import pytest

from errdocs.pages.meta import (
    describe_record,
    github_repo_url,
    iso_timestamp,
    record_digest,
    record_meta,
    shorten,
)
from errdocs.records.record import Origin
from errdocs.site.lastmod import Stamp, parse_date, read_state, stamp, write_state

from .helpers import record

TODAY = date(2026, 11, 30)


def test_shorten_cuts_at_a_sentence_or_a_word() -> None:
    assert shorten("  short\n text ", 20) == "short text"
    assert shorten("First sentence here. Second one is long enough to cut.", 36) == (
        "First sentence here.")
    assert shorten("one two three four five six seven eight", 20) == "one two three four…"
    assert shorten("x" * 50, 10) == "x" * 9 + "…"


def test_description_prefers_what_the_error_means() -> None:
    r = record("a", documentation="It means `x` broke.", trigger_scenarios="When y.")
    assert describe_record(r) == "It means x broke."
    assert describe_record(record("b", trigger_scenarios="When y.")) == "When y."
    assert describe_record(record("c", repo="o/r", error_message="Boom {x}")) == (
        "What the error “Boom {x}” raised in o/r means and how to fix it.")


def test_digest_follows_the_record_not_where_or_when_it_was_shipped() -> None:
    r = record("a", documentation="doc", dataset_version="1")
    moved = dataclasses.replace(r, origin=Origin("other.jsonl", 9), dataset_version="2")
    assert record_digest(moved) == record_digest(r)
    assert record_digest(dataclasses.replace(r, documentation="doc!")) != record_digest(r)


@pytest.mark.parametrize(("value", "expected"), [
    ("2026-08-28T05:10:05.995Z", "2026-08-28T05:10:05Z"),
    ("2026-08-27T23:02:51+02:00", "2026-08-27T21:02:51Z"),
    ("2026-08-27", "2026-08-27T00:00:00Z"),
    ("yesterday", None), ("", None), (None, None),
])
def test_iso_timestamp(value: str | None, expected: str | None) -> None:
    assert iso_timestamp(value) == expected


@pytest.mark.parametrize(("repo", "expected"), [
    ("sgl-project/sglang", "https://github.com/sgl-project/sglang"),
    ("o/r.js", "https://github.com/o/r.js"),
    ("ev\"il/re<po", None), ("../x", None), ("o/r/x", None), ("o w/r", None),
])
def test_repository_links_only_for_github_names(repo: str, expected: str | None) -> None:
    assert github_repo_url(repo) == expected


def test_record_meta_holds_plain_text_and_leaves_out_what_is_missing() -> None:
    r = record("id1", repo="o/r", error_message="Bad <b> & \"q\"", analyzed_at="bad date")
    meta = record_meta(r, [])
    assert meta == {"kind": "record", "id": "id1", "repo": "o/r",
                    "message": "Bad <b> & \"q\"", "repo_url": "https://github.com/o/r",
                    "description": "What the error “Bad <b> & \"q\"” raised in o/r means and "
                                   "how to fix it.",
                    "digest": record_digest(r)}


def test_stamp_keeps_the_date_while_the_content_is_the_same() -> None:
    old = Stamp("abc", "2026-01-02")
    assert stamp(old, "abc", today=TODAY) == old
    assert stamp(old, "new", today=TODAY, content_date=date(2026, 8, 1)) == Stamp(
        "new", "2026-11-30")  # changed since the last build: changed now
    assert stamp(None, "new", today=TODAY, content_date=date(2026, 8, 1)) == Stamp(
        "new", "2026-08-01")  # first seen: the record's own date
    assert stamp(None, "new", today=TODAY, content_date=date(2030, 1, 1)) == Stamp(
        "new", "2026-11-30")  # never in the future
    assert stamp(None, "new", today=TODAY) == Stamp("new", "2026-11-30")


def test_state_round_trips_and_ignores_what_is_not_ours(tmp_path: Path) -> None:
    path = tmp_path / "state" / "lastmod.json"
    assert read_state(path) == {}
    write_state(path, {"b.md": Stamp("2", "2026-01-02"), "a.md": Stamp("1", "2026-01-01")})
    assert read_state(path) == {"a.md": Stamp("1", "2026-01-01"), "b.md": Stamp("2", "2026-01-02")}
    assert list(json.loads(path.read_text())["pages"]) == ["a.md", "b.md"]  # stable diffs
    for junk in ("not json", "[]", '{"version": 99, "pages": {}}', '{"version": 1}'):
        path.write_text(junk)
        assert read_state(path) == {}


@pytest.mark.parametrize(("value", "expected"), [
    ("2026-08-28T05:10:05Z", date(2026, 8, 28)), ("2026-8-28", None), (None, None), (7, None)])
def test_parse_date(value: object, expected: date | None) -> None:
    assert parse_date(value) == expected
