"""The lookup's memo: a rebuild reads no pattern again, and gives the same index."""

from __future__ import annotations

from pathlib import Path

import pytest

from errdocs.catalog import store
from errdocs.catalog.model import build_catalog
from errdocs.lookup import build_index, memo
from errdocs.lookup import index as lookup_index

from .helpers import record

RECORDS = (
    record("a1", slug="a", error_message="Queue {name} is full",
           message_pattern="Queue (?P<name>\\w+ is full"),  # does not compile
    record("b1", slug="b", error_message="Timeout after {n} s", message_pattern="(.+)"),
    record("c1", slug="c", error_message="Disk {d} is full", message_pattern="Disk (\\S+) is full"),
)


def _build(records: tuple, work: Path) -> lookup_index.LookupIndex:
    facts = memo.load(work)
    built = build_index(records, build_catalog(records), javascript=True, memo=facts)
    memo.save(facts, work)
    return built


def test_a_rebuild_reads_no_pattern_and_gives_the_same_index(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    first = _build(RECORDS, tmp_path)

    def must_not_run(*args: object) -> object:
        raise AssertionError("a remembered pattern was read again")

    monkeypatch.setattr(lookup_index, "_read_pattern", must_not_run)
    second = _build(RECORDS, tmp_path)
    assert second.targets == first.targets
    assert [str(p) for p in second.problems] == [str(p) for p in first.problems]
    assert [str(p) for p in second.unusable] == [str(p) for p in first.unusable]
    assert len(first.problems) == len(first.unusable) == 1


def test_only_what_a_build_used_is_kept(tmp_path: Path) -> None:
    _build(RECORDS, tmp_path)
    _build(RECORDS[2:], tmp_path)
    kept = memo.load(tmp_path)
    assert [source for source, _ in kept.patterns] == ["Disk (\\S+) is full"]


def test_a_damaged_or_foreign_memo_is_ignored(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / store.FILE).write_bytes(b"not a database, " * 100)
    assert memo.load(tmp_path).patterns == {}
    _build(RECORDS, tmp_path)
    assert memo.load(tmp_path).patterns
    monkeypatch.setattr(memo, "code_key", lambda: "other code")
    assert memo.load(tmp_path).patterns == {}


def test_the_memo_is_kept_and_let_go_before_the_targets_are_made(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A site's build hands the memo over once every record is read: it is saved then, and
    nothing holds it while the targets are made (a memo of every message and pattern was
    ~50 MB at 310,000 records, at the top of the preparation)."""
    import gc
    import weakref

    refs: list[weakref.ref[memo.Memo]] = []
    alive_at_targets: list[bool] = []
    target = lookup_index._target

    def made(*args: object, **kwargs: object) -> object:
        gc.collect()
        alive_at_targets.append(refs[0]() is not None)
        return target(*args, **kwargs)  # type: ignore[arg-type]

    def kept(facts: memo.Memo) -> None:
        refs.append(weakref.ref(facts))
        memo.save(facts, tmp_path)

    monkeypatch.setattr(lookup_index, "_target", made)
    built = build_index(RECORDS, build_catalog(RECORDS), javascript=True,
                        memo=memo.load(tmp_path), site=True, remembered=kept)
    assert alive_at_targets == [False] * len(RECORDS)
    assert [t.record_id for t in built.targets] == ["a1", "b1", "c1"]
    assert {text for text, _ in memo.load(tmp_path).patterns} == {
        r.message_pattern for r in RECORDS}
