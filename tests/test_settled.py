"""A build with nothing to do takes the settled row (:mod:`errdocs.units.settled`): it reads no
record and only merges; anything the site is made from changing makes it a full build."""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

import errdocs.build as build_module
from errdocs.build import build_sharded
from errdocs.cli import main
from errdocs.project import load_settings
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


def test_a_build_that_just_wrote_its_outputs_writes_no_row(project: Path) -> None:
    # With the real 2 s: the generated tree was written a moment ago, so a later write could
    # leave the same stat; only a build that finds it older settles.
    settings = load_settings(project / "mkdocs.yml")
    build_sharded(settings, [SAMPLE], jobs=1, show_progress=False)
    assert settled.read(settings.work_dir) is None
