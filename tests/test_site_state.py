"""State belongs to one site: any sequence of builds into any site dirs gives a cold build's
tree (issue 10, finding 2)."""

from __future__ import annotations

import errno
import gc
import json
import os
import sys
import tempfile
import threading
import time
from array import array
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import errdocs.build as build_module
from errdocs.build import build_sharded
from errdocs.cli import main
from errdocs.project import load_settings
from errdocs.site import folders, merge, state

from .conftest import ROOT, SAMPLE, copy_project
from .helpers import prefix_field, site_tree

sys.path.insert(0, str(ROOT / "bench"))
import synth

pytestmark = pytest.mark.slow
SITE_URL = "https://example.org/docs/"


@pytest.fixture
def build_date(monkeypatch: pytest.MonkeyPatch) -> None:
    """A fixed build date, so sitemap dates of new pages do not depend on the day."""
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1767225600")


@pytest.fixture
def merging(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every build merges, as one with something to do does: one with nothing to do leaves
    a live site it finds intact alone (:mod:`errdocs.site.intact`), and these tests are
    about how merges repair the two trees in turn."""
    monkeypatch.setattr(build_module, "live_intact", lambda *args: False)


def _build(project: Path, data: Path, site: Path) -> None:
    settings = load_settings(project / "mkdocs.yml", site, SITE_URL)
    build_sharded(settings, [data], jobs=1, show_progress=False)


def _cold(tmp_path: Path, data: Path, name: str) -> dict[str, bytes]:
    """The site a cold build of ``data`` gives in a fresh copy of the project (made once)."""
    fresh = tmp_path / f"fresh-{name}"
    if not fresh.exists():
        copy_project(fresh)
        _build(fresh, data, fresh / "site")
    return site_tree(fresh / "site")


def _without_line(data: Path, index: int, out: Path) -> Path:
    lines = data.read_text("utf-8").splitlines(keepends=True)
    out.write_text("".join(lines[:index] + lines[index + 1:]), "utf-8")
    return out


def test_two_site_dirs_in_turn_each_equal_a_cold_build(
        tmp_path: Path, project: Path, build_date: None) -> None:
    # Finding 2: A to siteA, B to siteB, A less one record to siteA. The two site folders
    # also share a name (site), as two spare trees named after it once did.
    a = synth.write(20, tmp_path / "a.jsonl", seed=3)
    b = synth.write(12, tmp_path / "b.jsonl", seed=4)
    a_less = _without_line(a, 7, tmp_path / "a-less.jsonl")
    site_a, site_b = project / "a" / "site", project / "b" / "site"
    _build(project, a, site_a)
    _build(project, b, site_b)
    assert site_tree(site_b) == _cold(tmp_path, b, "b")
    _build(project, a_less, site_a)
    assert site_tree(site_a) == _cold(tmp_path, a_less, "a-less")
    _build(project, a, site_b)
    assert site_tree(site_b) == _cold(tmp_path, a, "a")


def test_a_failed_swap_puts_the_previous_site_back(
        tmp_path: Path, project: Path, build_date: None, monkeypatch: pytest.MonkeyPatch) -> None:
    # The worst moment to fail: the old site renamed away, the new one not yet in its place.
    site = project / "site"
    _build(project, SAMPLE, site)
    before = site_tree(site)
    rename = Path.rename
    failed: list[Path] = []

    def failing(self: Path, target: str | Path) -> Path:
        if Path(target) == site and not failed:  # the new site's rename, once
            failed.append(self)
            raise OSError(errno.ENOSPC, "No space left on device", str(site))
        return rename(self, target)

    monkeypatch.setattr(Path, "rename", failing)
    # Where the file system cannot exchange two folders in one step, the swap is two renames:
    # fail between them (the one-step exchange has no such moment).
    monkeypatch.setattr(merge, "_exchange", lambda a, b: False)
    data = _without_line(SAMPLE, 3, tmp_path / "less.jsonl")
    result = CliRunner().invoke(main, ["build", str(data), "-f", str(project / "mkdocs.yml"),
                                       "--site-url", SITE_URL])
    assert (result.exit_code, result.output) == (
        1, f"Error: {site}: the disk is full: free some space and try again; the previous "
           "site was left as it was\n")
    assert failed and site_tree(site) == before
    monkeypatch.setattr(Path, "rename", rename)
    _build(project, data, site)
    assert site_tree(site) == _cold(tmp_path, data, "less")


def test_pages_deleted_replaced_or_added_by_hand_are_put_right(
        tmp_path: Path, project: Path, build_date: None) -> None:
    # A hand-made change to the live site survived in the tree that became the spare, and the
    # swap after next published it again: the site alternated between two versions.
    data = synth.write(20, tmp_path / "a.jsonl", seed=3)
    site = project / "site"
    _build(project, data, site)
    cold = _cold(tmp_path, data, "a")
    pages = sorted(p for p in site.rglob("index.html") if "errors" in p.parts)
    outside = tmp_path / "outside.txt"
    outside.write_text("keep me", "utf-8")
    pages[0].unlink()                                      # deleted
    pages[1].unlink()
    pages[1].write_text("edited", "utf-8")                 # replaced by another file
    pages[2].unlink()
    pages[2].symlink_to(outside)                           # replaced by a link out of the site
    (site / "errors" / "extra.html").write_text("mine", "utf-8")  # added
    (site / "stray" / "deep").mkdir(parents=True)
    (site / "stray" / "deep" / "x.txt").write_text("x", "utf-8")
    generated = project / "docs" / "errors"
    next(p for p in sorted(generated.rglob("*.md")) if p.parent != generated).unlink()
    for _ in range(3):  # the spare is the hand-changed tree from the second build on
        _build(project, data, site)
        assert site_tree(site) == cold
        assert site_tree(generated) == site_tree(tmp_path / "fresh-a" / "docs" / "errors")
    assert outside.read_text("utf-8") == "keep me"


def _hand_edits(site: Path, outside: Path) -> None:
    """Pages deleted, replaced by a file or a link out of the site, a page and a folder
    added: what a person may do to the live site."""
    pages = sorted(p for p in site.rglob("index.html") if "errors" in p.parts)
    pages[0].unlink()
    pages[1].unlink()
    pages[1].write_text("edited", "utf-8")
    pages[2].unlink()
    pages[2].symlink_to(outside)
    pages[3].parent.rename(site / "moved-away")  # a page's folder gone
    (site / "errors" / "extra.html").write_text("mine", "utf-8")
    (site / "stray" / "deep").mkdir(parents=True)
    (site / "stray" / "deep" / "x.txt").write_text("x", "utf-8")


def _two_versions(tmp_path: Path) -> tuple[Path, Path]:
    """Data of 20 records, and a copy with two of their messages changed."""
    data = synth.write(20, tmp_path / "a.jsonl", seed=3)
    changed = tmp_path / "b.jsonl"
    changed.write_bytes(data.read_bytes())
    for number in (2, 11):
        prefix_field(changed, number, "errorMessage", "Changed: ")
    return data, changed


def _times_files(project: Path) -> list[Path]:
    return sorted((project / ".errdocs" / "sites").glob(f"*/{state.TIMES}*.json"))


def _spare_listings(monkeypatch: pytest.MonkeyPatch, site: Path) -> list[str]:
    """The folders of the spare tree (the tree the merge updates) the merge lists from now on."""
    listed: list[str] = []
    scandir = merge.os.scandir

    def counting(path: str) -> object:
        if f".{site.name}-spare" in str(path):
            listed.append(str(path))
        return scandir(path)

    monkeypatch.setattr(merge.os, "scandir", counting)
    return listed


def test_a_repair_lists_only_the_folders_whose_time_changed(
        tmp_path: Path, project: Path, build_date: None, merging: None,
        monkeypatch: pytest.MonkeyPatch) -> None:
    # Listing every folder of the spare tree and of every unit's output on every build cost
    # ~1.5 s a 50,000 files (issue 17): only folders whose time changed are listed now.
    # (Here builds follow each other within a second, which the merge takes for folders
    # changed too recently to tell: that margin is left out.)
    monkeypatch.setattr(merge, "RACY_NS", 0)
    data = synth.write(20, tmp_path / "a.jsonl", seed=3)
    site = project / "site"
    for _ in range(3):  # both trees repaired once: each has its folder times
        _build(project, data, site)
    assert len(_times_files(project)) == 2
    folders = sum(1 for p in site.rglob("*") if p.is_dir())
    listed = _spare_listings(monkeypatch, site)
    _build(project, data, site)
    assert folders > 50 and 1 <= len(listed) <= 3, (folders, listed)
    assert site_tree(site) == _cold(tmp_path, data, "a")


def test_a_new_tree_keeps_its_folder_times_from_the_start(
        tmp_path: Path, project: Path, build_date: None, monkeypatch: pytest.MonkeyPatch) -> None:
    # The cold build makes both trees afresh: their folder times are kept as they are made,
    # so the first refresh and no-op after it do not list every folder of their spare tree
    # (issue 17: the refresh a benchmark measures is that first one). Hand edits to a live
    # site no repair has listed yet are still put right.
    monkeypatch.setattr(merge, "RACY_NS", 0)
    data = synth.write(20, tmp_path / "a.jsonl", seed=3)
    site = project / "site"
    _build(project, data, site)
    assert len(_times_files(project)) == 2
    folders = sum(1 for p in site.rglob("*") if p.is_dir())
    outside = tmp_path / "outside.txt"
    outside.write_text("keep me", "utf-8")
    _hand_edits(site, outside)  # in the tree the cold build made and put live
    listed = _spare_listings(monkeypatch, site)
    _build(project, data, site)  # repairs the other new tree; the edited one becomes spare
    assert folders > 50 and 1 <= len(listed) <= 3, (folders, listed)
    cold = _cold(tmp_path, data, "a")
    assert site_tree(site) == cold
    _build(project, data, site)  # repairs the edited tree from the times it was made with
    assert site_tree(site) == cold
    assert outside.read_text("utf-8") == "keep me"


@pytest.mark.parametrize("wait", [True, False])
def test_folder_times_the_merge_just_wrote_are_trusted_once_the_margin_is_waited_out(
        tmp_path: Path, project: Path, build_date: None, merging: None, wait: bool,
        monkeypatch: pytest.MonkeyPatch) -> None:
    # A refresh of 3,100 of 310,000 records left ~10,000 folders written within the margin
    # for recent changes, and the next repair of that tree listed each again (21 s of a
    # build with nothing changed); a new tree, every folder. With many such folders the merge
    # now waits the margin out (at most RACY_NS, here 0.3 s) and keeps a time after it.
    # Without the wait (the control) the same builds list many folders.
    monkeypatch.setattr(merge, "RACY_NS", 300_000_000)
    monkeypatch.setattr(merge, "SETTLE_FOLDERS", 1 if wait else 10**9)
    data, changed = _two_versions(tmp_path)
    site = project / "site"
    _build(project, data, site)  # both trees made new
    _build(project, changed, site)  # a refresh: the spare updated, then live
    listed = _spare_listings(monkeypatch, site)
    for _ in range(2):  # each tree repaired once: the cold build's, then the refresh's
        _build(project, changed, site)
    cold = _cold(tmp_path, changed, "b")
    assert site_tree(site) == cold
    if wait:
        assert 1 <= len(listed) <= 4, listed  # the trees' roots (always listed)
    else:
        assert len(listed) > 20, listed
    outside = tmp_path / "outside.txt"
    outside.write_text("keep me", "utf-8")
    _hand_edits(site, outside)  # hand edits to trusted folders are still put right
    for _ in range(3):
        _build(project, changed, site)
        assert site_tree(site) == cold
    assert outside.read_text("utf-8") == "keep me"


class _Clock:
    """The merge's ``time`` module, noting how long it sleeps."""

    def __init__(self) -> None:
        self.slept: list[float] = []

    @staticmethod
    def time_ns() -> int:
        return time.time_ns()

    def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        time.sleep(seconds)


def test_a_cold_build_waits_the_margin_out_for_the_tree_going_live_only(
        tmp_path: Path, project: Path, build_date: None, merging: None,
        monkeypatch: pytest.MonkeyPatch) -> None:
    # A cold build makes two trees, the site and its spare, every folder just written. It
    # waited the margin (2 s) out for each: 4 of the 6 seconds of its merge at 5,000
    # records. The spare does not go live before its next repair keeps its times again, so
    # only the site's tree is waited for; on a file system with finer times, less.
    monkeypatch.setattr(merge, "RACY_NS", 1_000_000_000)
    monkeypatch.setattr(merge, "SETTLE_FOLDERS", 1)
    clock = _Clock()
    monkeypatch.setattr(merge, "time", clock)
    data = synth.write(20, tmp_path / "a.jsonl", seed=3)
    site = project / "site"
    _build(project, data, site)
    assert sum(clock.slept) < 1.1, clock.slept
    listed = _spare_listings(monkeypatch, site)
    for _ in range(2):  # each tree repaired once: both kept times the repair trusts
        _build(project, data, site)
    assert site_tree(site) == _cold(tmp_path, data, "a")
    assert 1 <= len(listed) <= 4, listed  # the trees' roots (always listed)


def test_the_margin_follows_the_step_the_folder_times_show() -> None:
    ms = 1_000_000
    assert merge._margin([0, 4 * ms, 4 * ms, 12 * ms]) == 2 * 4 * ms + merge.FINE_SLACK_NS
    assert merge._margin([5 * ms] * 3) == merge.RACY_NS  # one time: no step seen
    assert merge._margin([0, 1000 * ms, 3000 * ms]) == merge.RACY_NS  # whole seconds
    assert merge._margin([0, 2000 * ms]) == merge.RACY_NS  # FAT's 2 s


def _hand_edited(tmp_path: Path, project: Path, monkeypatch: pytest.MonkeyPatch
                 ) -> tuple[Path, Path, dict[str, bytes], Path]:
    """A site built three times (both trees repaired once: each has its folder times), then
    edited by hand (:func:`_hand_edits`), with the merge's margin for recent changes left out
    as the next day's builds see the folders: the data, the site, a cold build's tree and the
    file outside the site a link in it points to."""
    monkeypatch.setattr(merge, "RACY_NS", 0)
    data = synth.write(20, tmp_path / "a.jsonl", seed=3)
    site = project / "site"
    for _ in range(3):
        _build(project, data, site)
    cold = _cold(tmp_path, data, "a")
    outside = tmp_path / "outside.txt"
    outside.write_text("keep me", "utf-8")
    _hand_edits(site, outside)
    return data, site, cold, outside


@pytest.mark.parametrize("times", ["kept", "lost", "damaged", "kept, read on threads"])
def test_hand_edits_are_put_right_with_the_folder_times_kept_lost_or_damaged(
        tmp_path: Path, project: Path, build_date: None, times: str,
        monkeypatch: pytest.MonkeyPatch) -> None:
    if times.endswith("threads"):  # a few folders a thread: the small tree's are on threads
        monkeypatch.setattr(folders, "LSTAT_CHUNK", 3)
    data, site, cold, outside = _hand_edited(tmp_path, project, monkeypatch)
    for file in _times_files(project):
        if times == "lost":
            file.unlink()
        elif times == "damaged":
            file.write_text('{"taken": 1, "times": {"": "x"}}', "utf-8")
    for _ in range(3):  # the hand-changed tree is the spare of the second build
        _build(project, data, site)
        assert site_tree(site) == cold
    assert outside.read_text("utf-8") == "keep me"


def test_a_repair_stopped_half_way_leaves_a_correct_next_build(
        tmp_path: Path, project: Path, build_date: None, merging: None,
        monkeypatch: pytest.MonkeyPatch) -> None:
    # The folder times are written once a repair is done: one stopped after removing and
    # before linking again leaves the times of the repair before (and a state saying the
    # spare was changing, so the next merge makes it afresh): the next builds are right.
    data, site, cold, outside = _hand_edited(tmp_path, project, monkeypatch)
    _build(project, data, site)  # the spare, unchanged, goes live; the edited tree is spare
    times = {p: p.read_bytes() for p in _times_files(project)}
    link, calls = merge._link, []

    def failing(source: Path, target: Path, unit: str) -> None:
        calls.append(target)
        if len(calls) == 2:
            raise OSError(errno.EIO, "Input/output error", str(target))
        link(source, target, unit)

    monkeypatch.setattr(merge, "_link", failing)
    with pytest.raises(OSError):
        _build(project, data, site)
    assert len(calls) == 2 and {p: p.read_bytes() for p in _times_files(project)} == times
    monkeypatch.setattr(merge, "_link", link)
    for _ in range(3):
        _build(project, data, site)
        assert site_tree(site) == cold
    assert outside.read_text("utf-8") == "keep me"


@pytest.mark.parametrize("record", ["lost", "damaged"])
def test_a_spare_tree_is_brought_up_to_date_without_the_units_records_of_what_they_rewrote(
        tmp_path: Path, project: Path, build_date: None, record: str,
        monkeypatch: pytest.MonkeyPatch) -> None:
    # A patched unit records which files it wrote, and the next merges link again only
    # those; without that record (lost, or not what was written) the spare tree's files are
    # read, as before. (No margin for recent folder times: the repair would list them all.)
    monkeypatch.setattr(merge, "RACY_NS", 0)
    data, changed = _two_versions(tmp_path)
    site = project / "site"
    _build(project, data, site)
    _build(project, changed, site)  # units patched: the spare tree is the cold build's
    records = sorted((project / ".errdocs" / "units").glob(f"*/files-*{merge.REWROTE}"))
    assert records
    for file in records:
        if record == "lost":
            file.unlink()
        else:  # the first line kept: the key it was patched from, and its digest
            file.write_text(file.read_text("utf-8").partition("\n")[0] + "\n", "utf-8")
    _build(project, changed, site)  # the spare, brought from the first build's units
    assert site_tree(site) == _cold(tmp_path, changed, "b")


def _stats_readers(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The threads that read a tree's folder stats (every call from now on, by name)."""
    readers: list[str] = []
    real = folders.folder_times

    def spying(root: str, found: list[str], stop: threading.Event | None = None
               ) -> array[int]:
        readers.append(threading.current_thread().name)
        return real(root, found, stop)

    monkeypatch.setattr(folders, "folder_times", spying)
    monkeypatch.setattr(merge, "folder_times", spying)
    return readers


def _spare_left_behind(monkeypatch: pytest.MonkeyPatch) -> None:
    """Two of :func:`_two_versions`' 20 records change, a large share of the site: the previous
    site would be brought up to date after the swap, its stats read by the main thread (a
    refresh of 1% of 310,000 records is far from that share)."""
    monkeypatch.setattr(merge, "_far_behind", lambda *_: False)


def test_a_refresh_takes_the_spare_trees_folder_stats_read_while_the_units_built(
        tmp_path: Path, project: Path, build_date: None, monkeypatch: pytest.MonkeyPatch) -> None:
    # Issue 17: the stats of the spare tree's folders (~700,000 at 310,000 records, 9-25 s of
    # a refresh) are read on a thread while the units build, and the merge takes them; a
    # hand-edited tree repaired from them is put right as from stats it read itself.
    monkeypatch.setattr(merge, "RACY_NS", 0)
    _spare_left_behind(monkeypatch)
    data, changed = _two_versions(tmp_path)
    site = project / "site"
    _build(project, data, site)  # both trees made, with their folder times
    outside = tmp_path / "outside.txt"
    outside.write_text("keep me", "utf-8")
    _hand_edits(site, outside)  # the live tree: the spare of the build after next
    readers = _stats_readers(monkeypatch)
    for version, name in ((changed, "b"), (data, "a")):
        _build(project, version, site)
        assert site_tree(site) == _cold(tmp_path, version, name)
    assert readers == ["errdocs-read-ahead"] * 2
    assert outside.read_text("utf-8") == "keep me"
    assert not [t for t in threading.enumerate() if t.name == "errdocs-read-ahead"]


def test_stats_read_ahead_from_times_rewritten_since_are_not_taken(
        tmp_path: Path, project: Path, build_date: None, monkeypatch: pytest.MonkeyPatch) -> None:
    # The stats read ahead are of the folders the kept times had when the units started: a
    # times file written again meanwhile (a new file, whatever it holds) makes the merge
    # read the stats itself, from the file as it is then.
    monkeypatch.setattr(merge, "RACY_NS", 0)
    _spare_left_behind(monkeypatch)
    data, changed = _two_versions(tmp_path)
    site = project / "site"
    _build(project, data, site)
    readers = _stats_readers(monkeypatch)
    units_stage = build_module._build

    def rewriting(*args: Any, **kwargs: Any) -> object:
        done = units_stage(*args, **kwargs)
        for file in _times_files(project):
            copy = file.with_suffix(".tmp")
            copy.write_bytes(file.read_bytes())
            copy.replace(file)
        return done

    monkeypatch.setattr(build_module, "_build", rewriting)
    _build(project, changed, site)
    assert readers == ["errdocs-read-ahead", "MainThread"]
    assert site_tree(site) == _cold(tmp_path, changed, "b")


def test_a_build_failing_while_the_stats_are_read_ahead_stops_the_reading(
        tmp_path: Path, project: Path, build_date: None, monkeypatch: pytest.MonkeyPatch) -> None:
    # A unit failing ends the build before the merge: the reading thread is stopped and
    # waited for (no thread outlives the build), the site is left as it was, and the next
    # build gives the cold build's site.
    data, changed = _two_versions(tmp_path)
    site = project / "site"
    _build(project, data, site)
    before = site_tree(site)
    started = threading.Event()
    real, units_stage = folders.folder_times, build_module._build

    def slow(root: str, found: list[str], stop: threading.Event | None = None
             ) -> array[int]:
        started.set()
        assert stop is not None and stop.wait(30)  # told to stop by the failing build
        return real(root, found, stop)

    def failing(*args: object, **kwargs: object) -> object:
        assert started.wait(30)
        raise OSError(errno.EIO, "Input/output error", "a unit's page")

    monkeypatch.setattr(folders, "folder_times", slow)
    monkeypatch.setattr(build_module, "_build", failing)
    with pytest.raises(OSError):
        _build(project, changed, site)
    assert not [t for t in threading.enumerate() if t.name == "errdocs-read-ahead"]
    assert site_tree(site) == before
    monkeypatch.setattr(folders, "folder_times", real)
    monkeypatch.setattr(build_module, "_build", units_stage)
    _build(project, changed, site)
    assert site_tree(site) == _cold(tmp_path, changed, "b")


def test_a_build_leaves_its_records_out_of_collections_until_it_ends(
        tmp_path: Path, project: Path, build_date: None, monkeypatch: pytest.MonkeyPatch) -> None:
    # Issue 17: each full collection the later steps' allocations set off walked every
    # record and catalogue entry again (the merge's folder times at 310,000 records: 3.2 s,
    # 0.5 s alone). From the scan on they are left out (gc.freeze), and given back to the
    # collector when the build ends, failed or not (a preview's next build may drop them).
    data, changed = _two_versions(tmp_path)
    site = project / "site"
    frozen: list[int] = []
    units_stage = build_module._build

    def counting(*args: Any, **kwargs: Any) -> object:
        frozen.append(gc.get_freeze_count())
        if len(frozen) == 2:
            raise OSError(errno.EIO, "Input/output error", "a unit's page")
        return units_stage(*args, **kwargs)

    monkeypatch.setattr(build_module, "_build", counting)
    assert gc.get_freeze_count() == 0
    _build(project, data, site)
    assert frozen[0] > 10_000 and gc.get_freeze_count() == 0
    with pytest.raises(OSError):
        _build(project, changed, site)
    assert frozen[1] > 10_000 and gc.get_freeze_count() == 0


def _spare_links(monkeypatch: pytest.MonkeyPatch, site: Path) -> list[str]:
    """The files the merges link into the spare tree from now on, before their swap (what
    the new site waits for)."""
    linked: list[str] = []
    link, swap = merge.os.link, merge._swap
    swapped = threading.Event()

    def counting(source: str, target: str, *args: Any, **kwargs: Any) -> None:
        if f".{site.name}-spare" in str(target) and not swapped.is_set():
            linked.append(str(target))
        link(source, target, *args, **kwargs)

    def swapping(*args: Any) -> None:
        swap(*args)
        swapped.set()

    monkeypatch.setattr(merge.os, "link", counting)
    monkeypatch.setattr(merge, "_swap", swapping)
    return linked


def _renamed(project: Path) -> Path:
    """``project`` with its site named anew: every page changes, no record does."""
    config = project / "mkdocs.yml"
    config.write_text(config.read_text("utf-8").replace("site_name: errdocs",
                                                        "site_name: errdocs, renamed", 1),
                      "utf-8")
    return project


def test_a_build_that_made_every_page_again_brings_the_spare_tree_up_to_date(
        tmp_path: Path, project: Path, build_date: None, monkeypatch: pytest.MonkeyPatch) -> None:
    # The spare tree is one build behind. After a build that made every page again (a new
    # errdocs, an edited mkdocs.yml) the next refresh linked the whole site into it again:
    # 26 s of a 37 s refresh at 20,000 records. That build brings the spare up to date
    # itself now, so the refresh links only what it changed before its swap (here 95 files
    # of 278, against 167 before). (No margin for recent folder times: the repair would
    # list them all.)
    monkeypatch.setattr(merge, "RACY_NS", 0)
    data, changed = _two_versions(tmp_path)
    site = project / "site"
    _build(project, data, site)
    _build(_renamed(project), data, site)
    linked = _spare_links(monkeypatch, site)
    _build(project, changed, site)
    files = sum(1 for p in site.rglob("*") if p.is_file())
    assert files > 250 and 0 < len(linked) < files / 2, (files, len(linked))
    # The site now live is that spare tree, brought up to date and then refreshed.
    fresh = _renamed(copy_project(tmp_path / "fresh"))
    _build(fresh, changed, fresh / "site")
    assert site_tree(site) == site_tree(fresh / "site")


def test_folder_times_are_each_folders_own_in_order(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    # Read in parts on threads, the times come back in the folders' order; a file, a link to
    # a folder and a path that is gone are not folders; once told to stop, none is read.
    monkeypatch.setattr(folders, "LSTAT_CHUNK", 3)
    names = [f"d{n:02}" for n in range(10)]
    for number, name in enumerate(names):
        (tmp_path / name).mkdir()
        os.utime(tmp_path / name, ns=(number * 10**9, number * 10**9))
    (tmp_path / "file").write_text("x")
    (tmp_path / "link").symlink_to(tmp_path / "d00")
    asked = ["", *names, "file", "link", "gone", "d03"]
    found = folders.folder_times(str(tmp_path), asked)
    assert list(found) == [os.lstat(tmp_path).st_mtime_ns,
                           *(n * 10**9 for n in range(10)),
                           *[folders.NOT_A_FOLDER] * 3, 3 * 10**9]
    stop = threading.Event()
    stop.set()
    assert list(folders.folder_times(str(tmp_path), asked, stop)) == (
        [folders.NOT_A_FOLDER] * len(asked))


@pytest.mark.parametrize("count", [0, 1, 5, 7])
def test_folder_times_written_in_parts_read_back_whole(tmp_path: Path, count: int,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    # Written a few folders at a time, the file reads back as the times and the time kept.
    monkeypatch.setattr(folders, "TIMES_PART", 3)
    times = {"": 1, **{f'a/"b" \\ é{n}': -n * 10**18 for n in range(count)}}
    file = tmp_path / "times.json"
    folders.write_times(file, times, 1234)
    assert folders.read_times(file) == (times, 1234)
    assert list(tmp_path.iterdir()) == [file]
    assert json.loads(file.read_bytes()) == {"taken": 1234, "times": times}  # one JSON object
    kept = folders.read_kept(file)
    assert kept is not None and kept == folders.Kept.of((times, 1234))


@pytest.mark.parametrize("damage", ["cut", "unsorted", "no root", "trailing", "one line",
                                    "not json", "empty", "a text time", "repeated"])
def test_folder_times_not_as_written_are_none(tmp_path: Path, damage: str,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    # A times file is a cache: anything but what write_times wrote reads as none (the
    # repair then lists every folder), never as other times.
    monkeypatch.setattr(folders, "TIMES_PART", 2)
    file = tmp_path / "times.json"
    folders.write_times(file, {"": 1, "a": 2, "b": 3, "c": 4}, 5)
    text = file.read_bytes()
    assert folders.read_kept(file) is not None
    changed = {"cut": text[:-4], "unsorted": text.replace(b'"a"', b'"d"'),
               "no root": text.replace(b'"": 1', b'"0": 1'), "trailing": text + b"{}\n",
               "one line": json.dumps({"taken": 5, "times": {"": 1}}).encode(),
               "not json": text.replace(b'"b": 3', b'"b": x'), "empty": b"",
               "a text time": text.replace(b'"b": 3', b'"b": "3"'),
               "repeated": text.replace(b'"b": 3', b'"a": 3')}[damage]
    file.write_bytes(changed)
    assert folders.read_kept(file) is None and folders.read_times(file) is None
    # Read as it streams (the intact check's way), it says so by the end at the latest.
    with pytest.raises(ValueError), file.open("rb") as lines:
        list(folders.KeptFile(lines).items())


def test_folder_times_are_read_a_part_at_a_time(tmp_path: Path) -> None:
    # Read whole (the bytes, their text and a dict), ~745,000 folders at 310,000 records were
    # ~200 MB at the start of the units' stage; read by parts, little more than what is kept.
    import tracemalloc

    times = {"": 0, **{f"folder-{n:06}/{'x' * 60}": n for n in range(60_000)}}
    file = tmp_path / "times.json"
    folders.write_times(file, times, 1)
    del times
    tracemalloc.start()
    try:
        kept = folders.read_kept(file)
        held, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert kept is not None and len(kept.folders) == 60_001
    assert peak < held * 1.3 < file.stat().st_size * 3


_NAME = st.text(st.sampled_from(" !-.0a~é_"), min_size=1, max_size=3).filter(
    lambda name: name not in (".", ".."))
"""Folder names with characters that sort before "/" (" ", "!", "-", ".") and after it."""


@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(paths=st.lists(st.lists(_NAME, min_size=1, max_size=3), max_size=12))
def test_a_trees_folders_come_sorted_as_their_times_are_kept(tmp_path: Path,
                                                              paths: list[list[str]]) -> None:
    # The merge reads a new tree's folders as it keeps their times, in the order the kept
    # times are written in (sorted as text: "a-b" before "a/c"), holding one listing at a
    # time: the same folders and the same file as the times of every folder written whole.
    # Links to folders are not folders of the tree; files are not folders.
    root = Path(tempfile.mkdtemp(dir=tmp_path))
    for parts in paths:
        root.joinpath(*parts).mkdir(parents=True, exist_ok=True)
    (root / "file.html").write_text("x")
    os.symlink(root, root / "link", target_is_directory=True)
    found = list(folders.sorted_folders(root))
    walked = [os.path.relpath(folder, root) for folder, _dirs, _files in os.walk(root)]
    assert found == sorted("" if w == "." else w for w in walked)
    assert found[0] == "" and "link" not in found
    times = {f: os.lstat(os.path.join(root, f)).st_mtime_ns for f in found}
    given: list[list[int]] = []

    def trusted(read: array[int]) -> int:
        given.append(list(read))
        return 7

    folders.keep_tree_times(root, tmp_path / "kept.json", trusted)
    folders.write_times(tmp_path / "whole.json", times, 7)
    assert given == [[times[f] for f in found]]
    assert (tmp_path / "kept.json").read_bytes() == (tmp_path / "whole.json").read_bytes()
    kept = folders.read_kept(tmp_path / "kept.json")
    assert kept is not None and kept.folders == found and kept.taken == 7


def test_kept_times_are_sorted_with_their_times_and_tell_their_folders() -> None:
    # What a repair reads of the kept times: every folder once, a parent before what it
    # holds, each with its own time; membership as the dict's, without it.
    times = {"b": 2, "": 0, "a/c": 3, "a": 1, "a b": 4}
    kept = folders.Kept.of((times, 99))
    assert kept.folders == ["", "a", "a b", "a/c", "b"] and kept.taken == 99
    assert dict(zip(kept.folders, kept.times, strict=True)) == times
    assert all(folder in kept for folder in times)
    assert not any(folder in kept for folder in ("a/", "c", "a/c/d", "0", "z"))


_FOLDER = st.text(alphabet="ab-/. é", min_size=0, max_size=6)


@settings(max_examples=150, deadline=None)
@given(kept=st.dictionaries(_FOLDER, st.integers(0, 9), max_size=12),
       steps=st.lists(st.tuples(st.booleans(), _FOLDER, st.integers(-3, 9)), max_size=30))
def test_a_repairs_times_are_the_times_a_dict_of_every_folder_would_keep(
        tmp_path_factory: pytest.TempPathFactory, kept: dict[str, int],
        steps: list[tuple[bool, str, int]]) -> None:
    # The repair notes the kept folders' times in an array in their order and the others by
    # name (folders.TreeTimes); what it writes must be what the dict it replaced wrote:
    # every folder noted, sorted by name, less those forgotten.
    kept[""] = 0  # a repair's kept times start with the tree itself
    file = tmp_path_factory.mktemp("times") / "kept.json"
    folders.write_times(file, kept, 1)
    read = folders.read_kept(file)
    assert read is not None
    noted, oracle = folders.TreeTimes(read), dict[str, int]()
    for note, folder, mtime in steps:
        if note:
            noted.note(folder, mtime, read.index(folder) if mtime % 2 else None)
            oracle[folder] = mtime
        else:
            noted.forget(folder)
            oracle.pop(folder, None)
    assert list(noted.items()) == sorted(oracle.items())
    assert sorted(noted.values()) == sorted(oracle.values())
    folders.write_sorted_times(file, noted.items(), 2)
    assert folders.read_times(file) == ((oracle, 2) if "" in oracle else None)
