"""The merge's trees and state belong to one site folder (errdocs.site.state), on units made by
hand: fast checks of what the whole-build tests (test_site_state.py) cannot reach cheaply."""

from __future__ import annotations

import gzip
import os
import re
import shutil
import tempfile
import tracemalloc
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from errdocs.site import folders as site_folders
from errdocs.site import merge as site_merge
from errdocs.site.merge import UnitOutput, merge, record_files
from errdocs.site.owner import MARKER, SiteRefused

from .helpers import traced_peak


def _unit(work: Path, name: str, key: str, files: dict[str, str]) -> UnitOutput:
    """A built unit: ``files`` in its output, listed under ``key``."""
    folder = work / "units" / name
    shutil.rmtree(folder / "site", ignore_errors=True)
    for path, text in files.items():
        (folder / "site" / path).parent.mkdir(parents=True, exist_ok=True)
        (folder / "site" / path).write_text(text)
    record_files(folder, key, folder / "site")
    return UnitOutput(name, key, folder)


def _tree(root: Path) -> dict[str, str]:
    return {p.relative_to(root).as_posix(): p.read_text() for p in sorted(root.rglob("*"))
            if p.is_file() and p.name != MARKER}


def test_a_site_moved_into_place_is_not_taken_for_the_one_errdocs_left(tmp_path: Path) -> None:
    work = tmp_path / ".errdocs"
    site_a, site_b = tmp_path / "a", tmp_path / "b"
    merge([_unit(work, "u", "k1", {"one.html": "1"})], site_a, work)
    merge([_unit(work, "u", "k2", {"two.html": "2"})], site_b, work)
    shutil.rmtree(site_a)
    site_b.rename(site_a)  # another errdocs site where site_a was
    merge([_unit(work, "u", "k3", {"three.html": "3"})], site_a, work)
    assert _tree(site_a) == {"three.html": "3"}
    merge([_unit(work, "u", "k1", {"one.html": "1"})], site_a, work)  # from the spare
    assert _tree(site_a) == {"one.html": "1"}
    # the state of site_b (moved away) is gone with it; site_a's stays
    assert len(list((work / "sites").iterdir())) == 1


def test_merges_into_a_site_stay_exact(tmp_path: Path) -> None:
    work = tmp_path / ".errdocs"
    site = tmp_path / "site"
    versions = [{"a.html": "1", "x/b.html": "1"}, {"a.html": "2"}, {"x/c.html": "3"},
                {"a.html": "1", "x/b.html": "1"}]
    for index, files in enumerate(versions):
        merge([_unit(work, "u", f"k{index}", files), _unit(work, "v", "same", {"v.html": "v"})],
              site, work)
        assert _tree(site) == {**files, "v.html": "v"}
        assert (site / MARKER).is_file()


def test_a_spare_tree_that_is_not_what_its_state_says_is_made_afresh(tmp_path: Path) -> None:
    work = tmp_path / ".errdocs"
    site = tmp_path / "site"
    merge([_unit(work, "u", "k1", {"a.html": "1"})], site, work)
    merge([_unit(work, "u", "k2", {"b.html": "2"})], site, work)
    (spare,) = (work / "sites").glob("*/.site-spare")
    (spare / "c.html").write_text("left there")  # the spare is said to hold k1 only
    merge([_unit(work, "u", "k3", {"c.html": "3"})], site, work)
    assert _tree(site) == {"c.html": "3"}


@pytest.fixture
def other_fs(tmp_path: Path) -> Iterator[Path]:
    """A folder on another file system than ``tmp_path`` (tmpfs), removed afterwards."""
    if not os.path.isdir("/dev/shm") or os.stat("/dev/shm").st_dev == os.stat(tmp_path).st_dev:
        pytest.skip("no second file system")
    folder = Path(tempfile.mkdtemp(dir="/dev/shm", prefix="errdocs-test-"))
    yield folder
    shutil.rmtree(folder)


def test_on_another_file_system_the_spare_is_beside_the_site(tmp_path: Path,
                                                              other_fs: Path) -> None:
    work = tmp_path / ".errdocs"
    site = other_fs / "site"
    for key, files in (("k1", {"a.html": "1"}), ("k2", {"b.html": "2"}), ("k3", {"c.html": "3"})):
        merge([_unit(work, "u", key, files)], site, work)
        assert _tree(site) == files
    assert sorted(p.name for p in other_fs.iterdir()) == [".site-spare", "site"]


def test_a_folder_of_the_spare_tree_name_that_is_not_errdocs_is_refused(
        tmp_path: Path, other_fs: Path) -> None:
    work = tmp_path / ".errdocs"
    site = other_fs / "site"
    merge([_unit(work, "u", "k1", {"a.html": "1"})], site, work)
    shutil.rmtree(other_fs / ".site-spare")
    (other_fs / ".site-spare").mkdir()
    (other_fs / ".site-spare" / "mine.txt").write_text("a user's file")
    with pytest.raises(SiteRefused, match="errdocs did not make what is there"):
        merge([_unit(work, "u", "k2", {"b.html": "2"})], site, work)
    assert (other_fs / ".site-spare" / "mine.txt").read_text() == "a user's file"
    assert _tree(site) == {"a.html": "1"}


def _patched(unit: UnitOutput, key: str, write: dict[str, str], remove: tuple[str, ...] = (),
             ) -> UnitOutput:
    """``unit`` patched in place as a unit build does (:func:`errdocs.units.build._patch`):
    the files of ``write`` replaced by rename (new files), those of ``remove`` gone, every
    other file the same file; its records say so."""
    site = unit.site
    for path, text in write.items():
        fresh = site.parent / "made"
        fresh.write_text(text)
        (site / path).parent.mkdir(parents=True, exist_ok=True)
        os.replace(fresh, site / path)
    for path in remove:
        (site / path).unlink()
    names = sorted(p.relative_to(site).as_posix() for p in site.rglob("*") if p.is_file())
    record_files(unit.folder, key, site, names=names, rewrote=(unit.key, write, remove))
    return UnitOutput(unit.name, key, unit.folder)


_PATCHES = [({"p1/index.html": "1b", "p9/index.html": "9"}, ("p2/index.html",)),
            ({"p3/index.html": "3b"}, ()),
            ({"p4/index.html": "4b", "p2/index.html": "2c"}, ())]
"""How unit ``u`` is patched from one build (key ``k0``, ``k1``...) to the next."""


def _merged(site: Path, work: Path, damage: Callable[[int], None]) -> None:
    """Merge four builds' units in turn (``u`` patched in place from one to the next, ``v``
    unchanged), ``damage(index)`` before each: the site holds each build's files."""
    u = _unit(work, "u", "k0", {f"p{n}/index.html": str(n) for n in range(6)})
    v = _unit(work, "v", "same", {"v.html": "v"})
    for index in range(len(_PATCHES) + 1):
        if index:
            u = _patched(u, f"k{index}", *_PATCHES[index - 1])
        damage(index)
        merge([u, v], site, work)
        assert _tree(site) == {**_tree(u.site), "v.html": "v"}


def test_a_patched_unit_is_merged_from_its_record_of_what_it_rewrote(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Reading whether the spare tree links each file of a changed unit cost two stat calls a
    # file (~119,000 in a no-op at 20,000 records, issue 17): the unit's records say which
    # files its patches wrote, and only those are linked again.
    work, site = tmp_path / ".errdocs", tmp_path / "site"

    def no_stat(*args: object) -> list[str]:
        raise AssertionError("the spare tree's files were read")

    monkeypatch.setattr(site_merge, "_kept", no_stat)
    _merged(site, work, lambda index: None)


@pytest.mark.parametrize("damage", ["lost", "damaged", "made from nothing"])
def test_without_a_record_of_what_a_unit_rewrote_its_files_are_read(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, damage: str) -> None:
    work, site = tmp_path / ".errdocs", tmp_path / "site"
    kept = site_merge._kept
    calls: list[str] = []

    def counting(tree: Path, old: list[str], new: list[str], unit: UnitOutput
                 ) -> Iterable[str]:
        calls.append(unit.key)
        return kept(tree, old, new, unit)

    monkeypatch.setattr(site_merge, "_kept", counting)
    # Each merge here changes most of a one-unit site: the previous site would be brought up
    # to date after every swap (site_merge._far_behind), never two versions behind.
    monkeypatch.setattr(site_merge, "_far_behind", lambda *_: False)

    def spoil(index: int) -> None:
        if index != 2:  # the second update of each tree: the records of k1 and k2
            return
        record = work / "units" / "u" / f"files-k1{site_merge.REWROTE}"
        if damage == "lost":
            record.unlink()
        elif damage == "damaged":
            record.write_text(record.read_text().replace("p9/index.html", "p8/index.html"))
        else:  # built again from nothing: k1's output is not the one k2 was patched from
            record_files(record.parent, "k1", record.parent / "site")

    _merged(site, work, spoil)
    assert calls == ["k2"]  # k0 -> k2 needs k1's record; k1 -> k3 has k3's and k2's


def test_a_folder_replaced_by_a_link_is_not_written_through(tmp_path: Path) -> None:
    # The spare tree was brought to the new units before being repaired: a page's folder
    # replaced in the live site by a link to another folder had the old page removed from
    # that folder and the new one linked there. It is repaired first now.
    work, site, outside = tmp_path / ".errdocs", tmp_path / "site", tmp_path / "mine"
    outside.mkdir()
    (outside / "index.html").write_text("mine")
    for index in range(4):
        merge([_unit(work, "u", f"k{index}", {"p/index.html": str(index), "q.html": "q"})],
              site, work)
        assert _tree(site) == {"p/index.html": str(index), "q.html": "q"}
        if index == 1:  # in the live site, which is the spare tree of the fourth merge
            shutil.rmtree(site / "p")
            (site / "p").symlink_to(outside)
    assert sorted(p.name for p in outside.iterdir()) == ["index.html"]
    assert (outside / "index.html").read_text() == "mine"


def test_pages_changed_by_hand_are_put_right_when_a_unit_is_merged_from_its_records(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The records say which files a unit's patches wrote; pages of that unit changed by hand
    # in the live site (the next merge's spare tree) are found by their folders' times.
    monkeypatch.setattr(site_merge, "RACY_NS", 0)  # folders changed within the second count
    work, site = tmp_path / ".errdocs", tmp_path / "site"

    def by_hand(index: int) -> None:
        if index == 2:  # after the second merge: the live tree is the fourth merge's spare
            (site / "p0" / "index.html").unlink()  # no patch writes p0 or p5
            (site / "p5" / "index.html").unlink()
            (site / "p5" / "index.html").write_text("mine")
            (site / "p5" / "extra.html").write_text("mine")

    _merged(site, work, by_hand)


def test_a_new_trees_folders_are_not_all_held_as_their_times_are_kept(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # A new tree's folders were noted as the merge linked them, then their times read into a
    # dict and their recent times into a list, a set and its sorted copy: all held for every
    # folder of the site at once (13.1 MB of the build process at 20,000 records, 44,737
    # folders; ~745,000 at 310,000). Now its folders are read back from the tree a listing at
    # a time as their times are kept, and the margin is read from the newest distinct times.
    # (Here 1.7 MB before, 0.2 MB after, with the parts written and the times kept for the
    # margin made small: what is left grows by 8 bytes a folder.)
    monkeypatch.setattr(site_folders, "TIMES_PART", 256)
    monkeypatch.setattr(site_merge, "MARGIN_TIMES", 256)
    work, site = tmp_path / ".errdocs", tmp_path / "site"
    units = [_unit(work, f"u{n}", "k", {
        f"{n}-{group:02}/{'page-' * 8}{page:03}/index.html": "x"
        for group in range(20) for page in range(100)}) for n in range(3)]
    warm = tmp_path / "warm"  # (what a first merge in a process sets up once)
    merge([_unit(warm, "w", "k", {"w/index.html": "x"})], warm / "site", warm)
    peak = traced_peak(lambda: merge(units, site, work))
    assert len(list(site.glob("*/*/index.html"))) == 6_000
    kept = [path for path in (work / "sites").rglob("*") if path.name.startswith("times-")]
    times = [site_folders.read_kept(path) for path in kept]
    assert len(times) == 2 and all(t is not None and len(t.folders) == 6_061 for t in times)
    assert peak < 1_000_000, peak


_HEAD = ('<?xml version="1.0" encoding="UTF-8"?>\n'
         '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n')


def _sitemap(entries: Iterable[tuple[str, str]]) -> str:
    """A unit's sitemap as MkDocs writes it: an entry a page, in the unit's order."""
    return _HEAD + "".join(f"    <url>\n         <loc>https://x.example/{loc}</loc>\n"
                           f"         <lastmod>{day}</lastmod>\n    </url>\n"
                           for loc, day in entries) + "</urlset>"


def _expected_sitemap(texts: list[str]) -> str:
    """What the merged sitemap is: each URL's entry from the first sitemap that has it, by
    URL, between the first sitemap's head and the end; the first sitemap as it is when none
    has an entry."""
    entries: dict[str, str] = {}
    for text in texts:
        for entry in re.findall(r"<url>.*?</url>", text, re.DOTALL):
            entries.setdefault(re.findall(r"<loc>(.*?)</loc>", entry)[0], entry)
    if not entries:
        return texts[0]
    head = texts[0][:texts[0].find("<url>") if "<url>" in texts[0] else texts[0].find("</urlset>")]
    return head + "\n".join(v for _, v in sorted(entries.items())) + "\n</urlset>\n"


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(units=st.lists(st.lists(st.tuples(
    st.text(st.sampled_from("ab/-é"), max_size=4),
    st.sampled_from(["2026-01-01", "2026-12-05"])), max_size=12), min_size=1, max_size=5),
       run=st.integers(1, 9), chunk=st.integers(1, 4))
def test_the_merged_sitemap_has_each_url_once_from_the_first_unit_sorted(
        tmp_path: Path, units: list[list[tuple[str, str]]], run: int, chunk: int) -> None:
    # Sorted a run at a time (here a few entries, so that runs are written and read back in
    # chunks): the sitemap, and its gzip twin, as when every unit's entries were held at once.
    tree = Path(tempfile.mkdtemp(dir=tmp_path))
    texts = [_sitemap(entries) for entries in units]
    paths = []
    for number, text in enumerate(texts):
        paths.append(tree / f"unit-{number}.xml")
        paths[-1].write_text(text, "utf-8")
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(site_merge, "SITEMAP_RUN", run)
        patch.setattr(site_merge, "_SITEMAP_CHUNK", chunk)
        site_merge._write_sitemap(tree, paths)
    written = (tree / "sitemap.xml").read_bytes()
    assert written == _expected_sitemap(texts).encode("utf-8")
    whole = Path(tempfile.mkdtemp(dir=tmp_path)) / "sitemap.xml.gz"
    with gzip.GzipFile(whole, "wb", mtime=0) as packed:
        packed.write(written)
    # (the same bytes as the sitemap compressed whole, though written in parts)
    assert (tree / "sitemap.xml.gz").read_bytes() == whole.read_bytes()
    assert sorted(p.name for p in tree.iterdir()) == sorted(
        ["sitemap.xml", "sitemap.xml.gz", *(p.name for p in paths)])


def test_the_sitemaps_entries_are_not_all_held_as_they_are_merged(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Every unit's sitemap, its entries, the merged text and its bytes were held at once:
    # every page of the site four times over (~760,000 pages at 310,000 records). Now one
    # unit's sitemap at a time, a run of entries, and a chunk of each run as they are merged.
    # (Here 18.3 MB before, 1.6 MB after, with runs and chunks made small.)
    monkeypatch.setattr(site_merge, "SITEMAP_RUN", 512)
    monkeypatch.setattr(site_merge, "_SITEMAP_CHUNK", 32)
    paths = []
    for unit in range(12):
        paths.append(tmp_path / f"unit-{unit}.xml")
        paths[-1].write_text(_sitemap((f"page-{n * 12 + unit:05}/", "2026-12-05")
                                      for n in range(2_500)), "utf-8")
    tree = tmp_path / "tree"
    tree.mkdir()
    peak = traced_peak(lambda: site_merge._write_sitemap(tree, paths))
    text = (tree / "sitemap.xml").read_text("utf-8")
    assert text.count("<url>") == 30_000 and "page-29999/" in text
    assert peak < 3_000_000, peak
    whole = tmp_path / "sitemap.xml.gz"  # written in parts, compressed as one
    with gzip.GzipFile(whole, "wb", mtime=0) as packed:
        packed.write(text.encode("utf-8"))
    assert (tree / "sitemap.xml.gz").read_bytes() == whole.read_bytes()


def test_a_repair_holds_no_dict_of_every_folder(tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    # A refresh repairs the spare tree from its kept times: every folder's time was noted in
    # a dict and every folder found unchanged in another, held to the repair's end, then the
    # times written from a sorted list of every folder (44,736 folders at 20,000 records;
    # ~745,000 at 310,000). Now the kept folders' times are an array and the unchanged ones a
    # byte each. Measured: what the look at the kept folders (`_list_changed`, one page
    # changed) leaves held, traced: 0.65 MB before for these 6,061 folders.
    work, site = tmp_path / ".errdocs", tmp_path / "site"

    def units(changed: str) -> list[UnitOutput]:  # one page of the first unit changed
        return [_unit(work, f"u{n}", f"k{changed if n == 0 else ''}", {
            f"{n}-{group:02}/{'page-' * 8}{page:03}/index.html":
            changed if n == group == page == 0 else "x"
            for group in range(20) for page in range(100)}) for n in range(3)]

    held: list[int] = []

    def measured(function: Callable[..., object]) -> Callable[..., object]:
        def call(*args: object) -> object:
            before = tracemalloc.get_traced_memory()[0]
            try:
                return function(*args)
            finally:
                held.append(tracemalloc.get_traced_memory()[0] - before)
        return call

    merge(units("a"), site, work)
    merge(units("b"), site, work)  # the spare as the next repair finds it
    monkeypatch.setattr(site_merge, "_list_changed", measured(site_merge._list_changed))
    changed = units("c")
    traced_peak(lambda: merge(changed, site, work))
    assert _tree(site)["0-00/" + "page-" * 8 + "000/index.html"] == "c"
    assert len(list(site.glob("*/*/index.html"))) == 6_000
    kept = [site_folders.read_kept(path) for path in (work / "sites").rglob("times-*")]
    assert len(kept) == 2 and all(k is not None and len(k.folders) == 6_061 for k in kept)
    assert len(held) == 2 and max(held) < 50_000, held  # the spare's and the new spare's


def test_the_intact_check_reads_the_kept_times_a_part_at_a_time(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # A build with nothing to do asks whether the live site is as the last merge left it, by
    # its folders' kept times: they were read into a dict of every folder first (44,736 at
    # 20,000 records). Now a line (here 256 folders) at a time: traced, 1.2 MB before, 0.09
    # MB after, for these 6,061 folders.
    from errdocs.site.intact import live_intact

    monkeypatch.setattr(site_folders, "TIMES_PART", 256)
    work, site = tmp_path / ".errdocs", tmp_path / "site"
    units = [_unit(work, f"u{n}", "k", {
        f"{n}-{group:02}/{'page-' * 8}{page:03}/index.html": "x"
        for group in range(20) for page in range(100)}) for n in range(3)]
    merge(units, site, work)
    found: list[bool] = []
    peak = traced_peak(lambda: found.append(live_intact(work, site, units)))
    assert found == [True]
    (site / "1-07" / "extra.html").write_text("by hand")
    assert not live_intact(work, site, units)
    assert peak < 400_000, peak


_PAGE = st.sampled_from(["index.html", "a/index.html", "a/b/index.html", "a-b/index.html",
                         "a.c/x.html", "é/index.html", "a/b/c/index.html", "z.html"])
_EDIT = st.tuples(st.sampled_from(["delete", "rewrite", "add", "add folder", "remove folder",
                                   "folder to file", "file to folder"]),
                  st.integers(0, 50), st.text(st.sampled_from("ab-."), min_size=1, max_size=3)
                  .filter(lambda name: name not in (".", "..")))


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(pages=st.lists(st.sets(_PAGE, min_size=1), min_size=1, max_size=3),
       edits=st.lists(st.lists(_EDIT, max_size=4), min_size=3, max_size=3),
       changed=st.lists(st.booleans(), min_size=3, max_size=3))
def test_a_site_edited_by_hand_holds_the_units_files_after_each_merge(
        tmp_path: Path, pages: list[set[str]], edits: list[list[tuple[str, int, str]]],
        changed: list[bool]) -> None:
    # Whatever is done by hand to the live site between merges (files and folders removed,
    # added, rewritten, one put where the other was), the site after the next merge holds
    # exactly the units' files: each tree is the spare of every other merge, repaired from
    # its kept folder times (folders.TreeTimes, _Repair.held).
    root = Path(tempfile.mkdtemp(dir=tmp_path))
    work, site = root / ".errdocs", root / "site"

    def units(version: int) -> tuple[list[UnitOutput], dict[str, str]]:
        made = [_unit(work, f"u{n}", f"k{n}-{version}", {
            f"u{n}/{page}": f"{n} {page} {version}" for page in unit})
            for n, unit in enumerate(pages)]
        return made, {f"u{n}/{page}": f"{n} {page} {version}"
                      for n, unit in enumerate(pages) for page in unit}

    version = 0
    made, expected = units(version)
    merge(made, site, work)
    for round_edits, change in zip(edits, changed, strict=True):
        for how, at, name in round_edits:
            _edit_by_hand(site, how, at, name)
        version += change
        made, expected = units(version)
        merge(made, site, work)
        assert _tree(site) == expected


def _edit_by_hand(site: Path, how: str, at: int, name: str) -> None:
    """One change a person may make to the live site, at the ``at``-th of its files or
    folders (sorted)."""
    files = sorted(p for p in site.rglob("*") if p.is_file() and p.name != MARKER)
    folders = sorted(p for p in site.rglob("*") if p.is_dir())
    if how in ("delete", "rewrite", "file to folder") and files:
        file = files[at % len(files)]
        file.unlink()
        if how == "rewrite":
            file.write_text("by hand")
        elif how == "file to folder":
            (file / name).mkdir(parents=True)
    elif how in ("remove folder", "folder to file") and folders:
        folder = folders[at % len(folders)]
        shutil.rmtree(folder)
        if how == "folder to file":
            folder.write_text("by hand")
    elif how == "add":
        ((folders[at % len(folders)] if folders else site) / f"{name}.html").write_text("mine")
    elif how == "add folder":
        new = (folders[at % len(folders)] if folders else site) / name
        if not new.exists():
            new.mkdir()
            (new / "x.html").write_text("mine")


def test_two_units_writing_one_file_fail_the_merge_and_leave_the_site(tmp_path: Path) -> None:
    # A new tree links every unit's files; a file two units wrote is a clash, named with the
    # unit that came second and the file's place in the new tree, and the site stays.
    work, site = tmp_path / ".errdocs", tmp_path / "site"
    merge([_unit(work, "u1", "k", {"a/index.html": "1"})], site, work)
    before = _tree(site)
    units = [_unit(work, "u1", "k2", {"a/index.html": "1", "b/x.html": "x"}),
             _unit(work, "u2", "k", {"b/x.html": "y"})]
    with pytest.raises(site_merge.MergeError) as raised:
        merge(units, site, work)
    message = str(raised.value)
    assert re.fullmatch(r"unit u2 and another unit both wrote (/\S+)/b/x\.html", message), message
    assert not Path(message.rsplit(" ", 1)[1]).is_relative_to(site)  # (a tree being made)
    assert _tree(site) == before
