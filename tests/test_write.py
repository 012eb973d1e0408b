"""Writing touches only what changed, removes only what errdocs wrote, never leaves the tree."""

from __future__ import annotations

from pathlib import Path

import pytest

from errdocs.pages.render import Page
from errdocs.pages.write import (
    MANIFEST,
    WriteReport,
    claim,
    drop_stale,
    read_manifest,
    write_pages,
)


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
    manifest lists the pages alone; with nothing stale, nothing is written."""
    out = tmp_path / "out"
    write_pages(out, [Page("a.md", "a"), Page("old/b.md", "b")])
    (out / "mine.md").write_text("hand-written")
    current = {"a.md", "c.md"}
    stale = claim(out, current) - current
    assert stale == {"old/b.md"}
    assert drop_stale(out, current, stale) == 1
    assert not (out / "old").exists() and (out / "mine.md").read_text() == "hand-written"
    assert read_manifest(out) == current
    manifest = out / MANIFEST
    before = manifest.stat().st_mtime_ns
    assert drop_stale(out, current, claim(out, current) - current) == 0
    assert manifest.stat().st_mtime_ns == before and read_manifest(out) == current
