"""Issue 10's findings about failures and kills, one regression test each (4: a killed build's
pages lived on; 9: killed builds and bundles left folders; 10: tracebacks for OS failures),
and a real ``kill -9`` of a parallel build. :mod:`tests.test_crash` sweeps every kind of write.
"""

from __future__ import annotations

import errno
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import pytest
from click.testing import CliRunner

from errdocs.cli import main
from errdocs.errors import os_failure
from errdocs.units import plan as shards
from errdocs.units.state import read as read_rows

from . import faults
from .crashscene import LEFTOVER, Scene, build, copy, normal, state, steady, tree
from .sites import ROOT, SAMPLE, copy_project

pytestmark = pytest.mark.slow


@pytest.fixture(autouse=True)
def _steady(monkeypatch: pytest.MonkeyPatch) -> None:
    steady(monkeypatch)


@pytest.fixture
def scene(crash_scene: Scene) -> Scene:
    """The crash tests' scene, with a fresh copy of the project (A built) at ``case``."""
    copy(crash_scene.template, crash_scene.case)
    return crash_scene


def _cold(tmp_path: Path, data: Path) -> dict[str, bytes]:
    fresh = copy_project(tmp_path / "cold")
    normal(fresh, data, tmp_path)
    return state(fresh)


def _leftovers(project: Path) -> list[str]:
    work = project / ".errdocs"
    return sorted(p.relative_to(work).as_posix() for p in work.rglob("*")
                  if LEFTOVER.search(p.relative_to(work).as_posix()))


def _bundle(project: Path, data: Path) -> Path:
    out = project / "dist" / "b.zip"
    result = CliRunner().invoke(main, ["bundle", "-f", str(project / "mkdocs.yml"), "-o",
                                       str(out), str(data)])
    assert result.exit_code == 0, result.output
    return out


def test_a_killed_build_leaves_no_page_to_a_build_of_other_data(scene: Scene) -> None:
    """Finding 4: the Markdown a killed build wrote was not in the manifest, so it counted as
    hand-written: every later build (and the bundle) kept it."""
    project, data = scene.case, scene.data
    many = scene.base / "many.jsonl"
    many.write_text("\n".join(SAMPLE.read_text("utf-8").splitlines()[:12]) + "\n", "utf-8")
    plan = faults.Plan(str(project), "kill", 1, match="units/rec-0000/site.new/")
    killed = faults.run_forked(build(project, many), plan, scene.base)
    assert killed.code == -9
    assert len(list((project / "docs" / "errors").rglob("*.md"))) > 40  # its pages are there
    normal(project, data["a"], scene.base)
    assert state(project) == scene.cold["a"]
    with zipfile.ZipFile(_bundle(project, data["a"])) as bundle:
        pages = [n for n in bundle.namelist() if n.startswith("b/errors/sgl-project/sglang/")]
    assert len(pages) == 4  # the three records' pages and their repository's
def test_a_kill_in_another_unit_count_leaves_no_stale_page(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A build with fewer records (fewer record units) killed after its units rewrote a
    page's Markdown: the unit that holds the page in the larger plan must not count as
    current (the killed build removed the rows of the other plan's units before any unit
    wrote) and writes it again."""
    monkeypatch.setattr(shards, "UNIT_SIZE", 2)
    values = [json.loads(line) for line in SAMPLE.read_text("utf-8").splitlines()[:6]]
    for value in values:  # one listing page per kind of group: few hub units
        value["record"].update(tags=["t"], backgroundTag="c")
    moved = next(v for v in values if shards.bucket(v["record"]["id"], 4) >= 2)
    big = tmp_path / "big.jsonl"  # 6 records: 4 record units
    big.write_text("".join(json.dumps(v) + "\n" for v in values), "utf-8")
    moved["record"]["solutions"] = ["Changed in the smaller data set."]
    small = tmp_path / "small.jsonl"  # 4 records, the moved one among them: 2 record units
    small.write_text("".join(json.dumps(v) + "\n" for v in [moved, *[
        v for v in values if v is not moved][:3]]), "utf-8")
    project = copy_project(tmp_path / "project")
    normal(project, big, tmp_path)
    # killed once every unit is built, before the stale pages go
    plan = faults.Plan(str(project), "kill", 1, match="docs/errors/", operation="unlink")
    assert faults.run_forked(build(project, small), plan, tmp_path).code == -9
    normal(project, big, tmp_path)
    assert state(project) == _cold(tmp_path, big)


def test_pages_generate_wrote_for_other_data_are_written_again(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``generate`` writes the Markdown of other data into the generated tree and seals it
    (no page looks written into): the units built from the earlier data are still current,
    and the build must write those pages again (the journal)."""
    monkeypatch.setenv("ERRDOCS_PROGRESS", "off")
    values = [json.loads(line) for line in SAMPLE.read_text("utf-8").splitlines()[:3]]
    first = tmp_path / "first.jsonl"
    first.write_text("".join(json.dumps(v) + "\n" for v in values), "utf-8")
    values[1]["record"]["solutions"] = ["Changed in the other data set."]
    other = tmp_path / "other.jsonl"
    other.write_text("".join(json.dumps(v) + "\n" for v in values), "utf-8")
    project = copy_project(tmp_path / "project")
    normal(project, first, tmp_path)
    generated = faults.run_forked(lambda: main(["generate", str(other), "-f", str(
        project / "mkdocs.yml")], prog_name="errdocs"), None, tmp_path)
    assert generated.code == 0 and " 0 errors" in generated.stdout, generated
    assert any("Changed in the other" in p.read_text("utf-8")
               for p in (project / "docs" / "errors").rglob("*.md"))
    normal(project, first, tmp_path)
    assert state(project) == _cold(tmp_path, first)


def test_what_killed_builds_and_bundles_left_is_removed(scene: Scene) -> None:
    """Finding 9: a build killed during the merge left ``.errdocs/.site-new-*`` that no later
    build removed; a killed bundle left its temporary folder. A bundle is a build and a zip:
    killed in either, it leaves the previous zip, and the next build removes what it left."""
    project, data = scene.case, scene.data
    for remembered in (project / ".errdocs").glob("sites/*/state.json"):
        remembered.unlink()  # no spare to trust: a tree is made anew
    plan = faults.Plan(str(project), "kill", 5, match="/.site-new-")
    assert faults.run_forked(build(project, data["b"]), plan, scene.base).code == -9
    assert [p.name[:10] for p in (project / ".errdocs").glob("sites/*/.site-new-*")] == [
        ".site-new-"]
    assert tree(project / "site") == scene.site_a
    previous = _bundle(project, data["a"]).read_bytes()
    args = ["bundle", "-f", str(project / "mkdocs.yml"), "-o", str(project / "dist" / "b.zip"),
            "-j", "1", str(data["b"])]
    zipping = faults.Plan(str(project), "kill", 1, match="dist/.b.zip.partial")
    merging = faults.Plan(str(project), "kill", 5, match=".errdocs/sites/")
    for killed in (zipping, merging):
        assert faults.run_forked(lambda: main(args, prog_name="errdocs"), killed,
                                 scene.base).code == -9
        assert (project / "dist" / "b.zip").read_bytes() == previous
    normal(project, data["b"], scene.base)
    assert [p for p in _leftovers(project) if not p.startswith("offline/")] == []
    assert state(project) == scene.cold["b"]
    _bundle(project, data["a"])
    assert _leftovers(project) == []
    assert (project / "dist" / "b.zip").read_bytes() == previous


_KEPT = "; the previous site was left as it was\n"


@pytest.mark.parametrize(("case", "plan", "expected"), [
    ("work folder is a file", None, ".errdocs: a file stands where a folder must be: move "
     "it away"),
    ("generated tree is a file", None, "docs/errors: a file stands where a folder must be: "
     "move it away"),
    ("disk full in the project", faults.Plan("", "ENOSPC", 1, match="docs/errors/"),
     "docs/errors/assets/lookup/s0.js: the disk is full: free some space and try again"),
    ("read-only generated tree", faults.Plan("", "EACCES", 1, match="docs/errors/"),
     "docs/errors/assets/lookup/s0.js: permission denied: let errdocs write there, or "
     "choose another folder"),
    ("disk full for the site", faults.Plan("", "ENOSPC", 1, operation="link",
                                           match="/.site-spare/"),
     "{faulted}: the disk is full: free some space and try again"),
    ("read-only site folder", faults.Plan("", "EACCES", 1, operation="exchange"),
     "site: permission denied: let errdocs write there, or choose another folder"),
    ("disk full in a worker", faults.Plan("", "ENOSPC", 1, match="units/rec-0000/site.new/",
                                          operation="open"),
     ".errdocs/units/rec-0000/site.new: the disk is full: free some space and try again"),
    ("input error in a worker", faults.Plan("", "EIO", 1, match="units/hub-0000/site.new/",
                                            operation="open"),
     ".errdocs/units/hub-0000/site.new: an input/output error: check the disk, then try "
     "again"),
])
def test_an_os_failure_is_one_line_and_keeps_the_site(
        scene: Scene, case: str, plan: faults.Plan | None, expected: str) -> None:
    """Finding 10: a raw traceback for a full disk, a read-only folder, a file where a folder
    must be; also from inside a worker process and inside MkDocs (which logged the error
    before raising it)."""
    project = scene.case
    if case == "work folder is a file":
        shutil.rmtree(project / ".errdocs")
        (project / ".errdocs").write_text("not a folder\n", "utf-8")
    elif case == "generated tree is a file":
        shutil.rmtree(project / "docs" / "errors")
        (project / "docs" / "errors").write_text("not a folder\n", "utf-8")
    elif plan is not None:
        plan = faults.Plan(str(project), plan.action, plan.k, plan.match, plan.operation)
    jobs = ("-j", "2") if "worker" in case else ()
    outcome = faults.run_forked(build(project, scene.data["b"], *jobs), plan, scene.base)
    assert (outcome.code, outcome.stdout) == (1, "")
    faulted = outcome.log[0][1] if outcome.log else ""
    assert outcome.stderr == f"Error: {project}/{expected.format(faulted=faulted)}{_KEPT}"
    assert tree(project / "site") == scene.site_a
    if "worker" not in case:  # (a worker stopped mid-write may leave one: the next build's)
        assert not list((project / "docs").rglob(".tmp-*"))  # the data files made, discarded


def test_a_full_disk_among_the_data_files_leaves_none_half_placed(scene: Scene) -> None:
    """The data files a build makes are written under temporary names before it claims them
    (:class:`errdocs.pages.write.Staged`): a full disk on the 6th leaves no temporary file,
    one line naming the data file (not its temporary name), and the site as it was."""
    project = scene.case
    # The boxes' files are staged first, then the filters' (8 files differ in this scene).
    plan = faults.Plan(str(project), "ENOSPC", 6, match="docs/errors/assets/", operation="open")
    outcome = faults.run_forked(build(project, scene.data["b"]), plan, scene.base)
    assert (outcome.code, outcome.stdout) == (1, "")
    assert len(outcome.log) == 6 and ".tmp-" in outcome.log[-1][1]
    assert re.fullmatch(rf"Error: {re.escape(str(project))}/docs/errors/assets/filter/g/[^/\s]+"
                        rf"\.js: the disk is full: free some space and try again"
                        rf"{re.escape(_KEPT)}", outcome.stderr), outcome.stderr
    assert not list((project / "docs").rglob(".tmp-*"))
    assert tree(project / "site") == scene.site_a


def test_a_full_disk_under_the_bundle_is_one_line(scene: Scene) -> None:
    out = scene.case / "dist" / "x.zip"
    plan = faults.Plan(str(scene.case), "ENOSPC", 1, match="dist/x.zip", operation="replace")
    outcome = faults.run_forked(lambda: main(["bundle", "-f", str(scene.case / "mkdocs.yml"),
                                              "-o", str(out), str(scene.data["a"])],
                                             prog_name="errdocs"), plan, scene.base)
    assert (outcome.code, outcome.stdout) == (1, "")
    assert outcome.stderr == (f"Error: {out}: the disk is full: free some space and try again; "
                              "nothing was written\n")
    assert sorted(p.name for p in out.parent.iterdir()) == []


def test_debug_shows_the_traceback(scene: Scene) -> None:
    project = scene.case
    plan = faults.Plan(str(project), "ENOSPC", 1, match="docs/errors/")
    outcome = faults.run_forked(lambda: main(["--debug", "build", str(scene.data["b"]), "-f",
                                              str(project / "mkdocs.yml")], prog_name="errdocs"),
                                plan, scene.base)
    assert outcome.code == 1
    assert outcome.stderr.startswith("Traceback (most recent call last):")
    assert outcome.stderr.endswith(f"OSError: [Errno 28] No space left on device: "
                                   f"'{project}/docs/errors/assets/lookup/s0.js'\n")


def test_the_site_folder_has_the_usual_permissions(crash_scene: Scene) -> None:
    """The site is a folder the merge made: not mkdtemp's 0700, which a web server running as
    another user could not read."""
    umask = os.umask(0)
    os.umask(umask)
    assert (crash_scene.template / "site").stat().st_mode & 0o777 == 0o777 & ~umask


def test_os_failure_names_the_file_in_the_way(tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "errors").write_text("", "utf-8")
    exc = OSError(errno.ENOTDIR, "Not a directory", str(tmp_path / "docs/errors/tags/x.md"))
    assert os_failure(exc) == (f"{tmp_path}/docs/errors: a file stands where a folder must "
                               "be: move it away")
    assert os_failure(OSError(errno.ENOSPC, "No space left on device")) == (
        "(unknown path): the disk is full: free some space and try again")


def _dead(pid: int) -> bool:
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except FileNotFoundError:
        return True
    return "\nState:\tZ" in status  # a zombie: dead, not yet reaped by whoever adopted it


def test_kill_9_of_a_parallel_build(scene: Scene) -> None:
    """A real ``kill -9`` of ``errdocs build -j 2`` while a worker builds a unit: the site is
    the previous one, the worker dies with the build (it would otherwise go on writing into
    the next build's files), and the next build equals a cold one."""
    project, data = scene.case, scene.data
    signal_file = scene.base / "paused"
    signal_file.unlink(missing_ok=True)
    plan = faults.Plan(str(project), "pause", 1, match="units/rec-0000/site.new/",
                       signal=str(signal_file))
    env = {**os.environ, "ERRDOCS_FAULT_PLAN": json.dumps(
        {k: v for k, v in vars(plan).items() if k != "log"})}
    output = scene.base / "output.txt"
    with output.open("wb") as sink:  # not a pipe: a surviving worker would hold it open
        process = subprocess.Popen(
            [sys.executable, "-c", faults.BOOTSTRAP, str(ROOT), "build", str(data["b"]), "-f",
             str(project / "mkdocs.yml"), "-j", "2"], env=env, stdout=sink, stderr=sink)
    deadline = time.monotonic() + 120
    while not signal_file.exists():
        assert process.poll() is None and time.monotonic() < deadline, output.read_text()
        time.sleep(0.05)
    worker = int(signal_file.read_text())
    assert worker != process.pid  # paused in a worker, in the middle of MkDocs' output
    os.kill(process.pid, signal.SIGKILL)
    assert process.wait() == -signal.SIGKILL
    deadline = time.monotonic() + 10
    while not _dead(worker):
        assert time.monotonic() < deadline, "the worker outlived the build"
        time.sleep(0.05)
    assert tree(project / "site") == scene.site_a
    normal(project, data["b"], scene.base)
    assert _leftovers(project) == []
    assert state(project) == scene.cold["b"]


_OUTPUT = re.compile(r"^\.errdocs/units/([^/]+)/site(\.new)?(/|$)")


def test_a_units_row_goes_before_its_output_changes_and_comes_back_after(
        crash_scene: Scene) -> None:
    """What each unit was built from is a row of the catalogue (:mod:`errdocs.units.state`).
    Killed at the first write of a unit's output, that unit has no row (the rows of the units
    being built were removed, committed, before); killed at the commit of the first row
    written once a unit's output is complete, or at the write after it, the next build
    equals a cold one."""
    scene, data = crash_scene, crash_scene.data
    project, work = scene.case, scene.case / ".errdocs"
    copy(scene.template, project)
    log = faults.run_forked(build(project, data["b"]), faults.Plan(str(project)),
                            scene.base).log
    first = next(k for k, (_op, path) in enumerate(log, start=1) if _OUTPUT.match(path))
    row = next(k for k, (op, path) in enumerate(log, start=1)
               if k > first and op == "sqlite" and path == ".errdocs/catalog.sqlite")
    for k in (first, row, row + 1):
        copy(scene.template, project)
        killed = faults.run_forked(build(project, data["b"]),
                                   faults.Plan(str(project), "kill", k), scene.base)
        assert killed.code == -9, (k, log[k - 1])
        if k == first:
            match = _OUTPUT.match(log[k - 1][1])
            assert match is not None and match.group(1) not in read_rows(work)
        normal(project, data["b"], scene.base)
        assert state(project) == scene.cold["b"], (k, log[k - 1])
