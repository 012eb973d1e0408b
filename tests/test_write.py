"""Writing touches only what changed, removes only what errdocs wrote, never leaves the tree."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from errdocs.pages import write
from errdocs.pages.render import Page
from errdocs.pages.write import (
    MANIFEST,
    WriteReport,
    claim,
    claim_beyond,
    drop_stale,
    read_manifest,
    write_pages,
)

from .helpers import traced_peak


def test_rewrites_only_changed_files_and_removes_stale_ones(tmp_path: Path) -> None:
    out = tmp_path / "errors"
    assert write_pages(out, [Page("a/x.md", "one"), Page("b.md", "two")]) == WriteReport(2, 0, 0)
    mtime = (out / "b.md").stat().st_mtime_ns
    assert write_pages(out, [Page("b.md", "two"), Page("c.md", "new")]) == WriteReport(1, 1, 1)
    assert (out / "b.md").stat().st_mtime_ns == mtime
    assert not (out / "a").exists()  # emptied folders go too
    assert sorted(p.name for p in out.iterdir()) == [".errdocs-manifest.json", "b.md", "c.md"]


def test_hand_written_files_are_never_touched(tmp_path: Path) -> None:
    out = tmp_path / "errors"
    out.mkdir()
    (out / "mine.md").write_text("hand-written")
    write_pages(out, [Page("gen.md", "x")])
    write_pages(out, [])
    assert (out / "mine.md").read_text() == "hand-written"
    assert not (out / "gen.md").exists()


@pytest.mark.parametrize("bad", ["../escape.md", "/abs.md", "a/../../x.md", "a\\\\b.md", ""])
def test_refuses_paths_outside_the_tree(tmp_path: Path, bad: str) -> None:
    with pytest.raises(ValueError, match="refusing to write outside"):
        write_pages(tmp_path / "errors", [Page(bad, "x")])
    assert not (tmp_path / "escape.md").exists()


def test_a_tampered_manifest_never_deletes_outside(tmp_path: Path) -> None:
    out = tmp_path / "errors"
    out.mkdir()
    victim = tmp_path / "victim.md"
    victim.write_text("keep")
    (out / ".errdocs-manifest.json").write_text('{"files": ["../victim.md"]}')
    write_pages(out, [])
    assert victim.read_text() == "keep"


def test_a_build_holding_only_the_stale_paths_ends_as_the_manifest_says(tmp_path: Path) -> None:
    """``drop_stale`` given what :func:`claim` listed beyond the pages: those files go and the
    manifest lists the pages alone; with nothing stale, nothing is written. The pages are
    not given: the manifest lists them and the stale paths."""
    out = tmp_path / "out"
    write_pages(out, [Page("a.md", "a"), Page("old/b.md", "b")])
    (out / "mine.md").write_text("hand-written")
    current = {"a.md", "c.md"}
    stale = claim(out, current) - current
    assert stale == {"old/b.md"}
    assert drop_stale(out, stale) == 1
    assert not (out / "old").exists() and (out / "mine.md").read_text() == "hand-written"
    assert read_manifest(out) == current
    manifest = out / MANIFEST
    before = manifest.stat().st_mtime_ns
    assert drop_stale(out, claim(out, current) - current) == 0
    assert manifest.stat().st_mtime_ns == before and read_manifest(out) == current


@settings(max_examples=60, deadline=None)
@given(paths=st.sets(st.text(st.sampled_from("ab/é\\\"-"), min_size=1, max_size=6), max_size=40),
       data=st.data(), shape=st.sampled_from(["claimed", "compact", "unsorted"]))
def test_the_manifest_less_its_stale_paths_is_the_manifest_of_the_rest(
        tmp_path_factory: pytest.TempPathFactory, paths: set[str], data: st.DataObject,
        shape: str) -> None:
    # Read and written a path at a time (and a few at a time, here), the manifest left is
    # the one written whole for the paths kept: byte for byte, sorted. A manifest not as
    # errdocs writes it (one JSON line, or a path a line unsorted, as a hand or an older
    # errdocs may leave it) is read whole instead.
    out = tmp_path_factory.mktemp("out")
    stale = data.draw(st.sets(st.sampled_from(sorted(paths)))) if paths else set()
    if shape == "compact":
        (out / MANIFEST).write_text(json.dumps({"files": sorted(paths)[::-1]}), "utf-8")
    elif shape == "unsorted":
        (out / MANIFEST).write_bytes(b"".join(write._manifest_parts(sorted(paths)[::-1])))
    else:
        claim(out, paths)
    whole = tmp_path_factory.mktemp("whole")
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(write, "_MANIFEST_PART", 3)
        drop_stale(out, stale)
        write._write_manifest(whole, paths - stale)
    if stale:  # (else nothing is written: the manifest says so already)
        assert (out / MANIFEST).read_bytes() == (whole / MANIFEST).read_bytes()
    assert read_manifest(out) == paths - stale
    assert not [p for p in out.iterdir() if p.name.startswith(write.TEMPORARY)]


_PATHS = st.sets(st.text(st.characters(codec="utf-8"), min_size=1, max_size=12),
                 max_size=8)


@settings(max_examples=60, deadline=None)
@given(before=_PATHS, now=_PATHS, form=st.sampled_from(["written", "other", "none", "cut"]))
def test_claim_beyond_is_claim_without_the_whole_manifest(tmp_path_factory: pytest.TempPathFactory,
                                                          before: set[str], now: set[str],
                                                          form: str) -> None:
    """What the manifest lists beyond the paths, and the manifest after, are what ``claim``
    gives, whatever the paths hold and however the manifest was written (read a line at a
    time when it is one path a line, whole otherwise)."""
    one, two = (tmp_path_factory.mktemp("out") for _ in range(2))
    for out in (one, two):
        if form == "written":
            claim(out, before)  # one path a line
        elif form == "other":  # the same JSON another way: read whole
            (out / MANIFEST).write_text(json.dumps({"files": sorted(before)}), "utf-8")
        elif form == "cut" and before:  # cut short: no manifest (read_manifest: empty)
            claim(out, before)
            (out / MANIFEST).write_bytes((out / MANIFEST).read_bytes()[:-3])
    expected = claim(one, now) - now
    assert claim_beyond(two, set(now)) == expected
    assert read_manifest(two) == read_manifest(one) == expected | now
    if form == "written" and before:
        assert (two / MANIFEST).read_bytes().count(b"\n") == len(before | now) + 3


def test_claim_beyond_holds_no_copy_of_the_manifest(tmp_path: Path) -> None:
    # At 310,000 records the manifest read whole, a set of strings of its own, was ~70 MB at
    # the build's preparation; read a line at a time, only what is beyond is held.
    import tracemalloc

    wanted = {f"errors/repo-{n:06}/{'x' * 60}.md" for n in range(50_000)}
    claim(tmp_path, wanted)
    tracemalloc.start()
    try:
        assert claim_beyond(tmp_path, wanted) == set()
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < (tmp_path / MANIFEST).stat().st_size / 4


@settings(max_examples=60, deadline=None)
@given(paths=st.sets(st.text(st.characters(codec="utf-8"), min_size=1, max_size=12),
                     max_size=12), part=st.integers(1, 4))
def test_the_manifest_is_written_as_json_writes_it(tmp_path_factory: pytest.TempPathFactory,
                                                   paths: set[str], part: int) -> None:
    """Written in parts, the manifest is byte for byte what ``json.dumps(..., indent=0)``
    wrote whole (what a manifest of an earlier errdocs is, and what is read a line at a time).
    """
    out = tmp_path_factory.mktemp("out")
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(write, "_MANIFEST_PART", part)
        write._write_manifest(out, paths)
    assert (out / MANIFEST).read_text("utf-8") == json.dumps({"files": sorted(paths)}, indent=0)


def test_the_manifest_is_never_whole_in_memory(tmp_path: Path) -> None:
    paths = {f"errors/repo-{n:06}/{'x' * 60}.md" for n in range(50_000)}
    peak = traced_peak(lambda: write._write_manifest(tmp_path, paths))
    assert peak < (tmp_path / MANIFEST).stat().st_size / 2  # the sorted list, and a part


def test_staged_pages_are_temporary_files_until_placed(tmp_path: Path) -> None:
    """A staged page is a temporary file beside its place (the place itself untouched) until
    :meth:`~write.Staged.place`; one whose file holds its bytes is not written; what is not
    placed goes when the ``with`` block is left, by an exception or not."""
    out = tmp_path / "errors"
    (out / "a").mkdir(parents=True)
    (out / "a" / "same.js").write_text("kept")
    (out / "a" / "old.js").write_text("before")

    def temporaries() -> list[str]:
        return sorted(p.name for p in out.rglob(f"{write.TEMPORARY}*"))

    with write.Staged(out) as staged:
        assert not staged.add(Page("a/same.js", "kept"))
        assert staged.add(Page("a/old.js", "after"))
        assert staged.add(Page("b/c/new.js", "new"))
        assert len(temporaries()) == 2
        assert (out / "a" / "old.js").read_text() == "before"
        assert not (out / "b" / "c" / "new.js").exists()
        assert staged.place() == 2
        assert staged.place() == 0
    assert temporaries() == []
    assert (out / "a" / "old.js").read_text() == "after"
    assert (out / "b" / "c" / "new.js").read_text() == "new"
    with pytest.raises(RuntimeError), write.Staged(out) as staged:
        staged.add(Page("a/old.js", "never"))
        assert len(temporaries()) == 1
        raise RuntimeError("the build failed before placing")
    assert temporaries() == []
    assert (out / "a" / "old.js").read_text() == "after"
    with pytest.raises(ValueError, match="outside"):
        write.Staged(out).add(Page("../escape.js", "x"))
    assert not (tmp_path / "escape.js").exists()


def test_a_failed_placing_names_the_file_and_leaves_no_temporary(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    out = tmp_path / "errors"
    real = write.os.replace
    calls: list[str] = []

    def replace(source: str, target: Path) -> None:
        calls.append(source)
        if len(calls) == 2:
            raise OSError(28, "No space left on device", source)
        real(source, target)

    with write.Staged(out) as staged:
        for name in ("x", "y", "z"):
            staged.add(Page(f"{name}.js", name))
        monkeypatch.setattr(write.os, "replace", replace)
        with pytest.raises(OSError) as failed:
            staged.place()
    assert failed.value.filename == str(out / "y.js")
    assert sorted(p.name for p in out.iterdir()) == ["x.js"]
