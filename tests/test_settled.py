"""A build with nothing to do takes the settled row (:mod:`errdocs.units.settled`): it reads no
record and only merges; anything the site is made from changing makes it a full build."""

from __future__ import annotations

import os
import shutil
import sqlite3
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

import errdocs.build as build_module
from errdocs.build import build_sharded
from errdocs.catalog.store import FILE
from errdocs.cli import main
from errdocs.project import load_settings
from errdocs.site import intact
from errdocs.site.state import Place, identity
from errdocs.units import settled

from .helpers import site_tree
from .sites import SAMPLE

NOOP = ("40 records, 0 errors, 0 warnings; pages: 0 written, 230 unchanged, 0 removed; "
        "units: 0 built, 6 reused\nSite built in {site}\n")


@pytest.fixture
def prepared(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Stats trusted at once (a test's edits come a few ms after a build, not 2 s), and a
    count of the builds that read the records (:func:`errdocs.build._prepare`)."""
    monkeypatch.setattr(settled, "RACY_NS", 0)
    calls: list[int] = []
    real = build_module._prepare

    def counting(*args: object, **kwargs: object) -> object:
        calls.append(1)
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(build_module, "_prepare", counting)
    return calls


def _build(project: Path, data: Path = SAMPLE, site_url: str | None = None) -> str:
    runner = CliRunner()
    args = ["build", str(data), "-f", str(project / "mkdocs.yml"), "-j", "1"]
    result = runner.invoke(main, [*args, *(["--site-url", site_url] if site_url else [])])
    assert result.exit_code == 0, result.output
    return result.output


def _settled(project: Path, data: Path = SAMPLE) -> None:
    """A cold build, then one that settles: a cold build writes no row, as the nav's titles
    (a source) are read from the generated pages it writes."""
    _build(project, data)
    time.sleep(0.02)
    _build(project, data)
    time.sleep(0.02)


def test_a_build_with_nothing_changed_reads_no_record_and_says_what_a_full_one_says(
        project: Path, prepared: list[int]) -> None:
    _settled(project)
    site, docs = site_tree(project / "site"), site_tree(project / "docs")
    manifest = os.stat(project / "docs" / "errors" / ".errdocs-manifest.json")
    assert _build(project) == NOOP.format(site=project / "site")
    assert len(prepared) == 2  # the third build read nothing
    assert site_tree(project / "site") == site and site_tree(project / "docs") == docs
    after = os.stat(project / "docs" / "errors" / ".errdocs-manifest.json")
    assert (after.st_ino, after.st_mtime_ns) == (manifest.st_ino, manifest.st_mtime_ns)


def _edit_record(project: Path, data: Path) -> None:
    text = data.read_text("utf-8")
    data.write_text(text.replace('"Unknown MLX async mode', '"Unknown MLX Async mode', 1),
                    "utf-8")


def _edit_hand_written(project: Path, data: Path) -> None:
    page = project / "docs" / "about.md"
    page.write_text(page.read_text("utf-8") + "\nOne more line.\n", "utf-8")


def _add_hand_written(project: Path, data: Path) -> None:
    (project / "docs" / "more.md").write_text("# More\n", "utf-8")


def _delete_generated(project: Path, data: Path) -> None:
    page = next((project / "docs" / "errors" / "sgl-project").rglob("*.md"))
    page.unlink()


def _edit_root_page(project: Path, data: Path) -> None:
    page = project / "docs" / "errors" / "index.md"
    page.write_text(page.read_text("utf-8") + "\nEdited by hand.\n", "utf-8")


def _edit_config(project: Path, data: Path) -> None:
    config = project / "mkdocs.yml"
    config.write_text(config.read_text("utf-8").replace("site_name: errdocs",
                                                        "site_name: errdocs here", 1), "utf-8")


def _edit_override(project: Path, data: Path) -> None:
    page = project / "overrides" / "main.html"
    page.write_text(page.read_text("utf-8") + "\n", "utf-8")


def test_a_change_to_what_the_site_is_made_from_is_a_full_build(
        tmp_path: Path, project: Path, prepared: list[int]) -> None:
    data = tmp_path / "data.jsonl"
    shutil.copy(SAMPLE, data)
    _settled(project, data)
    for change in (_edit_record, _edit_hand_written, _add_hand_written, _delete_generated,
                   _edit_root_page, _edit_config, _edit_override):
        before = len(prepared)
        change(project, data)
        _build(project, data)
        assert len(prepared) == before + 1, f"{change.__name__}: not seen"
        time.sleep(0.02)
        _build(project, data)  # and the build after it settles again
        assert len(prepared) == before + 1, f"{change.__name__}: did not settle"
        time.sleep(0.02)


def test_another_site_address_is_a_full_build(project: Path, prepared: list[int]) -> None:
    _settled(project)
    _build(project, site_url="https://errors.example.org/")
    assert len(prepared) == 3


def test_a_site_edited_by_hand_is_put_back_without_reading_the_records(
        project: Path, prepared: list[int]) -> None:
    _settled(project)
    site = site_tree(project / "site")
    (project / "site" / "index.html").unlink()  # replaced (an editor's save), not rewritten
    (project / "site" / "index.html").write_text("edited", "utf-8")
    (project / "site" / "404.html").unlink()
    _build(project)
    assert len(prepared) == 2
    assert site_tree(project / "site") == site


def _trees(project: Path) -> tuple[list[int] | None, list[int] | None]:
    """The identities of the live site and of its spare tree: a swap exchanges them."""
    place = Place.of(project / ".errdocs", project / "site")
    return identity(place.target), identity(place.spare)


def _folders(root: Path) -> set[str]:
    return {p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_dir()}


@pytest.fixture(params=["times trusted", "times too recent"])
def folder_times(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Whether the live site's kept folder times are trusted (as a day after the build), or
    all too recent to tell (as a test's builds, ms apart): every folder is then listed."""
    if request.param == "times trusted":
        monkeypatch.setattr(intact, "RACY_NS", 0)
    return str(request.param)


def test_a_build_with_nothing_to_do_leaves_the_live_site_in_place(
        project: Path, prepared: list[int], folder_times: str) -> None:
    _settled(project)
    trees, site = _trees(project), site_tree(project / "site")
    for _ in range(2):
        assert _build(project) == NOOP.format(site=project / "site")
        assert _trees(project) == trees  # not swapped
    assert len(prepared) == 2
    assert site_tree(project / "site") == site


def _page_folder(site: Path) -> Path:
    """A record page's folder (``errors/OWNER/REPO/SLUG``)."""
    return sorted((site / "errors").glob("*/*/*/index.html"))[0].parent


def _replace_keeping_time(path: Path) -> None:
    """``path`` renamed over by a changed file given its time: no look at times finds it."""
    info = path.stat()
    new = path.with_name(path.name + ".new")
    new.write_bytes(path.read_bytes() + b"<!-- changed -->")
    os.utime(new, ns=(info.st_atime_ns, info.st_mtime_ns))
    os.replace(new, path)


def _folder_to_file(folder: Path) -> None:
    shutil.rmtree(folder)
    folder.write_text("x", "utf-8")


HAND_CHANGES = {
    "page deleted": lambda site: (_page_folder(site) / "index.html").unlink(),
    "page folder deleted": lambda site: shutil.rmtree(_page_folder(site)),
    "file added to a page folder": lambda site: (_page_folder(site) / "x.html").write_text(
        "x", "utf-8"),
    "empty folder added": lambda site: (_page_folder(site) / "new").mkdir(),
    "file added to the site folder": lambda site: (site / "x.html").write_text("x", "utf-8"),
    "page replaced, its time kept": lambda site: _replace_keeping_time(
        _page_folder(site) / "index.html"),
    "home replaced, its time kept": lambda site: _replace_keeping_time(site / "index.html"),
    "page folder replaced by a file": lambda site: _folder_to_file(_page_folder(site)),
}


@pytest.mark.parametrize("change", sorted(HAND_CHANGES))
def test_a_site_changed_by_hand_is_merged_again_with_nothing_else_to_do(
        project: Path, prepared: list[int], folder_times: str, change: str) -> None:
    _settled(project)
    _build(project)  # leaves the site in place: the change is made to the tree it checks
    site, folders = site_tree(project / "site"), _folders(project / "site")
    HAND_CHANGES[change](project / "site")
    assert (site_tree(project / "site"), _folders(project / "site")) != (site, folders)
    _build(project)
    assert len(prepared) == 2
    assert site_tree(project / "site") == site
    assert _folders(project / "site") == folders


def test_a_failed_build_leaves_no_row_and_the_next_one_is_full(
        project: Path, prepared: list[int], monkeypatch: pytest.MonkeyPatch) -> None:
    settings = load_settings(project / "mkdocs.yml")
    _settled(project)
    assert settled.read(settings.work_dir) is not None
    config = project / "mkdocs.yml"
    config.write_text(config.read_text("utf-8") + "\n# edited\n", "utf-8")

    def failing(*args: object, **kwargs: object) -> object:
        raise OSError(28, "No space left on device", str(project / "site"))

    real = build_module.merge
    monkeypatch.setattr(build_module, "merge", failing)
    with pytest.raises(OSError):
        build_sharded(settings, [SAMPLE], jobs=1, show_progress=False)
    assert settled.read(settings.work_dir) is None
    monkeypatch.setattr(build_module, "merge", real)
    build_sharded(settings, [SAMPLE], jobs=1, show_progress=False)
    assert len(prepared) == 4


WINDOW = 0.3
"""The racy window these tests use instead of 2 s (seconds)."""


def _written_just_now(tmp_path: Path, project: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An input built once (a cold build: it writes no row, the nav's titles being read
    from the pages it writes), then edited just now: within :data:`WINDOW`."""
    monkeypatch.setattr(settled, "RACY_NS", int(WINDOW * 1e9))
    data = tmp_path / "data.jsonl"
    shutil.copy(SAMPLE, data)
    time.sleep(WINDOW + 0.05)
    _build(project, data)
    _edit_record(project, data)
    return data


def test_a_build_started_right_after_its_input_was_written_settles_when_its_bytes_held(
        tmp_path: Path, project: Path, prepared: list[int],
        monkeypatch: pytest.MonkeyPatch) -> None:
    # A fetch-then-build job: the input's stat is racy as the build starts. Once it is not,
    # its bytes are the ones the scan read, so the build writes the row the next one takes.
    data = _written_just_now(tmp_path, project, monkeypatch)
    _build(project, data)  # its bytes hashed once the window is over
    assert settled.read(load_settings(project / "mkdocs.yml").work_dir) is not None
    _build(project, data)
    assert len(prepared) == 2


def test_a_build_whose_input_changed_after_the_scan_read_it_writes_no_row(
        tmp_path: Path, project: Path, prepared: list[int],
        monkeypatch: pytest.MonkeyPatch) -> None:
    # Rewritten in the tick the scan looked in, the input keeps its stat: the catalogue's
    # hash of the bytes the scan read is what tells.
    data = _written_just_now(tmp_path, project, monkeypatch)
    work = load_settings(project / "mkdocs.yml").work_dir

    real = build_module._prepare

    def read_other_bytes(*args: object, **kwargs: object) -> object:
        prepared = real(*args, **kwargs)  # type: ignore[arg-type]
        with sqlite3.connect(work / FILE) as db:
            assert db.execute("UPDATE inputs SET blocks = ?", (bytes(16),)).rowcount == 1
        db.close()
        return prepared

    monkeypatch.setattr(build_module, "_prepare", read_other_bytes)
    _build(project, data)
    assert settled.read(work) is None


def test_a_build_that_just_wrote_its_outputs_settles_on_what_they_hold(
        tmp_path: Path, project: Path, prepared: list[int],
        monkeypatch: pytest.MonkeyPatch) -> None:
    # Every output's stat racy as the row is written (they were written within the window):
    # the row keeps their fingerprints, which the next build finds unchanged.
    real = settled.output_stats

    def just_written(*args: object) -> list[settled.Output]:
        with monkeypatch.context() as racy:
            racy.setattr(settled, "RACY_NS", 1 << 62)
            return real(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(settled, "output_stats", just_written)
    data = tmp_path / "data.jsonl"
    shutil.copy(SAMPLE, data)
    _settled(project, data)
    row = settled.read(load_settings(project / "mkdocs.yml").work_dir)
    assert row is not None and row.outputs and all(marks for _, _, marks in row.outputs)
    _build(project, data)
    assert len(prepared) == 2
    _delete_generated(project, data)
    _build(project, data)
    assert len(prepared) == 3


def test_an_output_whose_stat_cannot_tell_a_change_is_told_by_what_it_holds(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "errors" / "repo"
    folder.mkdir(parents=True)
    (folder / "a.md").write_text("a", "utf-8")
    (folder / "b.md").write_text("b", "utf-8")
    root = tmp_path / "errors" / "index.md"
    root.write_text("home", "utf-8")
    with monkeypatch.context() as racy:
        racy.setattr(settled, "RACY_NS", 1 << 62)  # all just written
        outputs = settled.output_stats(tmp_path, ["errors/repo", "errors/index.md"])
    assert all(marks for _, _, marks in outputs)

    def seen_with_the_same_stat() -> bool:
        # A change within the tick of the write before it leaves the stat as it was kept.
        now = [(path, [*map(int, _fields(tmp_path / path))], marks)
               for path, _, marks in outputs]
        return settled.outputs_unchanged(tmp_path, now)

    assert seen_with_the_same_stat()
    changes = {
        "added": lambda: (folder / "c.md").write_text("c", "utf-8"),
        "removed": lambda: (folder / "a.md").unlink(),
        "replaced": lambda: _replace(folder / "b.md"),
        "written into": lambda: root.write_text("HOME", "utf-8"),
    }
    for name, change in changes.items():
        change()
        assert not seen_with_the_same_stat(), name
        with monkeypatch.context() as racy:
            racy.setattr(settled, "RACY_NS", 1 << 62)
            outputs = settled.output_stats(tmp_path, ["errors/repo", "errors/index.md"])
        assert seen_with_the_same_stat(), name


def _replace(path: Path) -> None:
    """``path`` replaced by a copy of itself (another inode), as an editor saves."""
    shutil.copy(path, path.with_suffix(".new"))
    os.replace(path.with_suffix(".new"), path)


def _fields(path: Path) -> tuple[int, ...]:
    info = os.stat(path)
    return (info.st_size, info.st_mtime_ns, info.st_ctime_ns, info.st_ino, info.st_dev)
