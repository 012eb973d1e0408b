"""errdocs replaces only a site folder it made (issue 10, findings 1 and 7): anything else is
refused with one line and exit 1, before anything is touched."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from errdocs.cli import main
from errdocs.site.owner import MARKER, MARKER_TEXT

from .conftest import SAMPLE

ADVICE = ("errdocs replaces the site folder whole: give a new or empty folder, or one errdocs "
          "built (it holds .errdocs-site), e.g. --site-dir site; nothing was touched")


def _snapshot(root: Path) -> dict[str, bytes | str | None]:
    """Every path under ``root`` with its content (None for a folder, a link's target)."""
    return {p.relative_to(root).as_posix(): os.readlink(p) if p.is_symlink() else
            None if p.is_dir() else p.read_bytes() for p in sorted(root.rglob("*"))}


@pytest.fixture
def home(project: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fake home folder with a user's files (never the real one), and the project as the
    working folder."""
    folder = project / "home"
    (folder / "Documents").mkdir(parents=True)
    (folder / "Documents" / "thesis.txt").write_text("years of work")
    (folder / ".ssh").mkdir()
    (folder / ".ssh" / "id_ed25519").write_text("secret")
    (folder / ".bashrc").write_text("export PS1")
    monkeypatch.setenv("HOME", str(folder))
    monkeypatch.chdir(project)
    (project / "docs" / "notes.md").write_text("# Notes\n\nNot committed yet.\n")
    return folder


def _refused(project: Path, args: list[str], site: Path | str, reason: str) -> None:
    before = _snapshot(project)
    result = CliRunner().invoke(main, args)
    assert result.output == f"Error: {site}: {reason}; {ADVICE}\n"
    assert result.exit_code == 1
    assert _snapshot(project) == before  # not even .errdocs/ or docs/errors/


def test_the_home_folder_is_refused(project: Path, home: Path) -> None:
    _refused(project, ["build", str(SAMPLE), "--site-dir", str(home)], home,
             "is your home folder")
    assert (home / ".bashrc").read_text() == "export PS1"


@pytest.mark.parametrize("site, reason", [
    ("docs", "is MkDocs' docs_dir (hand-written pages)"),
    ("docs/site", "is inside MkDocs' docs_dir ({project}/docs)"),
    ("docs/errors", "is inside MkDocs' docs_dir ({project}/docs)"),
    (".", "is the project folder (it holds mkdocs.yml)"),
    ("..", "holds the project folder (it holds mkdocs.yml) ({project})"),
    (".errdocs", "is errdocs' work folder"),
    (".errdocs/units", "is inside errdocs' work folder ({project}/.errdocs)"),
    ("/", "is the root folder"),
    ("home/Documents", "is not empty and errdocs did not build it (no .errdocs-site in it)"),
])
def test_places_errdocs_must_not_replace_are_refused(project: Path, home: Path, site: str,
                                                     reason: str) -> None:
    where = (project / site).resolve()
    _refused(project, ["build", str(SAMPLE), "--site-dir", site], where,
             reason.format(project=project))


def test_a_file_where_the_site_should_be_is_refused(project: Path, home: Path) -> None:
    (project / "site").write_text("my notes")  # finding 7: it used to be moved into .errdocs/
    _refused(project, ["build", str(SAMPLE)], project / "site", "is a file, not a folder")
    _refused(project, ["merge", str(SAMPLE)], project / "site", "is a file, not a folder")
    assert (project / "site").read_text() == "my notes"


def test_site_dir_of_mkdocs_yml_is_checked_too(project: Path, home: Path) -> None:
    config = project / "mkdocs.yml"
    config.write_text(config.read_text("utf-8").replace("site_dir: site", "site_dir: docs"))
    _refused(project, ["build", str(SAMPLE)], project / "docs",
             "is MkDocs' docs_dir (hand-written pages)")
    _refused(project, ["merge", str(SAMPLE)], project / "docs",
             "is MkDocs' docs_dir (hand-written pages)")


def test_a_mount_point_is_refused(project: Path, home: Path) -> None:
    mounts = [m for m in ("/proc", "/sys", "/dev", "/dev/shm") if os.path.ismount(m)]
    if not mounts:
        pytest.skip("no mount point to try")
    _refused(project, ["build", str(SAMPLE), "--site-dir", mounts[0]], mounts[0],
             "is a mount point")


def test_a_loop_of_symbolic_links_is_one_line(project: Path, home: Path) -> None:
    (project / "loop").symlink_to("loop")
    before = _snapshot(project)
    result = CliRunner().invoke(main, ["build", str(SAMPLE), "--site-dir", "loop"])
    assert (result.exit_code, result.output) == (
        1, f"Error: {project / 'loop'}: a loop of symbolic links; point it at a folder\n")
    assert _snapshot(project) == before


def test_a_marked_site_with_its_marker_removed_is_refused(project: Path, home: Path) -> None:
    site = project / "public"
    site.mkdir()
    (site / "index.html").write_text("hand-made")
    (site / MARKER).write_text("not errdocs' marker\n")
    _refused(project, ["build", str(SAMPLE), "--site-dir", "public"], site,
             "is not empty and errdocs did not build it (no .errdocs-site in it)")


@pytest.mark.slow
def test_an_empty_folder_then_errdocs_own_site_are_replaced(project: Path, home: Path) -> None:
    site = project / "public"
    site.mkdir()
    for _ in range(2):  # empty, then holding the site errdocs built
        result = CliRunner().invoke(main, ["build", str(SAMPLE), "--site-dir", "public"])
        assert result.exit_code == 0, result.output
        assert result.output.endswith(f"Site built in {site}\n")
        assert (site / MARKER).read_text("utf-8") == MARKER_TEXT
        assert (site / "index.html").is_file()
    assert (project / "docs" / "notes.md").is_file()
