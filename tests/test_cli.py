"""The command line: exit codes and exact output, through Click's CliRunner."""

from __future__ import annotations

import json
import re
import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner

from errdocs.cli import main
from errdocs.records import read
from errdocs.site.owner import MARKER, mark

from .conftest import ROOT, SAMPLE

BAD = [
    {"record": {"id": "ok1", "repo": "o/r", "slug": "fine", "errorMessage": "fine"}},
    {"record": {"id": "bad1", "repo": "o/r", "slug": "x", "errorMessage": "x", "tags": "a,b"}},
]


def _write_bad(tmp_path: Path) -> Path:
    path = tmp_path / "data.jsonl"
    path.write_text("\n".join(json.dumps(v) for v in BAD) + "\n{oops\n")
    return path


def test_check_sample_is_clean() -> None:
    result = CliRunner().invoke(main, ["check", str(SAMPLE)])
    assert result.exit_code == 0, result.output
    assert result.stdout == "40 records checked: 0 errors, 0 warnings\n"
    assert result.stderr == ""


def test_check_reports_every_problem_and_exits_1(tmp_path: Path) -> None:
    path = _write_bad(tmp_path)
    result = CliRunner().invoke(main, ["check", str(path)])
    assert result.exit_code == 1
    assert result.stderr == (
        f"{path}:2: record 'bad1': field 'tags': expected a list of strings, got \"a,b\"; "
        'for example ["config", "io"]\n'
        f"{path}:3: not valid JSON: Expecting property name enclosed in double quotes "
        "(column 2)\n"
    )
    assert result.stdout == "1 records checked: 2 errors, 0 warnings\n"


def test_check_needs_a_path() -> None:
    result = CliRunner().invoke(main, ["check"])
    assert result.exit_code == 2
    assert "Missing argument 'PATHS...'" in result.stderr


def test_generate_writes_pages_then_nothing_on_the_second_run(project: Path) -> None:
    config = str(project / "mkdocs.yml")
    work = project / ".errdocs"
    work.mkdir()
    for name in ("scan-cache.pickle", "lookup-memo.pickle", "journal.json"):  # an earlier
        # errdocs' caches and journal (its catalogue is emptied: every page rendered again)
        (work / name).write_bytes(b"old")
    first = CliRunner().invoke(main, ["generate", str(SAMPLE), "-f", config])
    assert first.exit_code == 0, first.output
    assert first.stdout == ("40 records, 0 errors, 0 warnings; pages: 230 written, "
                            "0 unchanged, 0 removed\n")
    second = CliRunner().invoke(main, ["generate", str(SAMPLE), "-f", config])
    assert second.stdout == ("40 records, 0 errors, 0 warnings; pages: 0 written, "
                             "230 unchanged, 0 removed\n")
    assert (project / "docs" / "errors" / "index.md").is_file()
    assert (project / "docs" / "index.md").read_text() == (ROOT / "docs" / "index.md").read_text()
    # The pickles and the JSON journal are gone; the catalogue's journal names the pages no
    # unit built yet (the next build's).
    assert sorted(p.name for p in work.glob("*.*")) == ["build.lock", "catalog.sqlite"]
    with sqlite3.connect(work / "catalog.sqlite") as db:
        recorded = {page for page, in db.execute("SELECT page FROM journal")}
    generated = {p.relative_to(project / "docs" / "errors").as_posix()
                 for p in (project / "docs" / "errors").rglob("*.md")}
    # The record units' 40 pages and the hub units' listings: not the root unit's pages (the
    # index pages and the home page's), written before any unit.
    assert recorded < generated and len(recorded) == 121
    assert {"changes/index.md", "lumen-dev/promptdeck/index.md"} <= recorded
    assert not recorded & {"index.md", ".home.md", "tags/index.md", "repos/index.md"}


def test_strict_build_with_bad_records_changes_nothing(project: Path, tmp_path: Path) -> None:
    site = project / "site"
    site.mkdir()
    (site / "old.html").write_text("previous site")
    mark(site)  # a site errdocs built
    result = CliRunner().invoke(main, ["build", str(_write_bad(tmp_path)), "--strict",
                                       "-f", str(project / "mkdocs.yml")])
    assert result.exit_code == 1
    assert result.stderr.endswith(
        "Error: 2 errors, 0 warnings in the records; nothing was written (--strict)\n")
    assert sorted(p.name for p in site.iterdir()) == [MARKER, "old.html"]
    assert not (project / "docs" / "errors").exists()


# (check is given its paths, and Click refuses one that does not exist)
@pytest.mark.parametrize(("command", "kind"), [
    ("build", "missing"), ("generate", "missing"),
    ("build", "unreadable"), ("generate", "unreadable"), ("check", "unreadable")])
def test_an_input_that_cannot_be_read_builds_nothing(
        project: Path, command: str, kind: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """A missing or unreadable input file is not "0 records": a site made without it would
    replace a good one (seen: `errdocs build` with no data/sample.jsonl swapped in an empty
    site and exited 0)."""
    site = project / "site"
    site.mkdir()
    (site / "old.html").write_text("previous site")
    mark(site)
    data = project / "data" / "sample.jsonl"  # the default input of build and generate
    data.parent.mkdir(exist_ok=True)
    if kind == "missing":
        data.unlink(missing_ok=True)
        reason = "No such file or directory"
    else:  # root reads any file whatever its mode: the refusal is made by open() itself
        data.write_text(SAMPLE.read_text("utf-8"), "utf-8")

        def refuse(path: Path) -> None:
            raise PermissionError(13, "Permission denied", str(path))
        monkeypatch.setattr(read, "_open", refuse)
        reason = "Permission denied"
    config = ["-f", str(project / "mkdocs.yml")]
    args = ["check", str(data)] if command == "check" else [command, *config]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 1, result.output
    assert result.stderr == (f"Error: {data}: cannot read it: {reason}; nothing was built "
                             "or changed\n")
    assert sorted(p.name for p in site.iterdir()) == [MARKER, "old.html"]
    assert not (project / "docs" / "errors").exists()


def test_missing_config_is_explained(tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["generate", "-f", str(tmp_path / "nope.yml")])
    assert result.exit_code == 1
    assert result.stderr == (f"Error: {tmp_path / 'nope.yml'}: no MkDocs config here; run "
                             "errdocs from the project folder or pass --config-file\n")


@pytest.mark.parametrize("command", ["build", "generate"])
def test_a_config_that_is_not_yaml_is_one_line(tmp_path: Path, command: str) -> None:
    config = tmp_path / "mkdocs.yml"
    config.write_text("site_name: x\nnav: [a\n  - b: : c\n", "utf-8")
    result = CliRunner().invoke(main, [command, "-f", str(config)])
    assert result.exit_code == 1
    assert result.stderr == (f"Error: {config}:3: not valid YAML: expected ',' or ']', but "
                             "got ':'\n")


def test_every_command_is_documented_in_the_readme() -> None:
    readme = (ROOT / "README.md").read_text("utf-8")
    documented = set(re.findall(r"`errdocs (\w+)", readme))
    assert set(main.commands) <= documented, set(main.commands) - documented


def test_a_workers_full_disk_is_one_line(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A worker's SQLite write on a full disk comes back through the pool as SQLite's error
    (pickled, with its result code): one line, as any full disk, not a traceback."""
    import pickle
    import sqlite3

    from errdocs import pipeline

    full = sqlite3.OperationalError("database or disk is full")
    full.sqlite_errorname = "SQLITE_FULL"

    def build(*_args: object, **_kwargs: object) -> object:
        raise pickle.loads(pickle.dumps(full))

    monkeypatch.setattr(pipeline, "build", build)
    result = CliRunner().invoke(main, ["build", "-f", str(project / "mkdocs.yml"),
                                       str(SAMPLE)])
    assert result.exit_code == 1
    assert result.output == ("Error: .errdocs: the disk is full: free some space and try "
                             "again; the previous site was left as it was\n")
