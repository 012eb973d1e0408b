"""One build at a time in a project (issue 10, finding 3), with real processes: a second build
exits 1 at once naming the first's pid and touches nothing; the lock dies with its holder."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from errdocs.cli import main
from errdocs.site.lock import project_lock

from .conftest import SAMPLE

ERRDOCS = str(Path(sys.executable).parent / "errdocs")


def _start(project: Path, *args: str) -> subprocess.Popen[str]:
    """``errdocs build`` in its own process group (so the test can stop and kill it whole)."""
    return subprocess.Popen([ERRDOCS, "build", str(SAMPLE), "-j", "2", *args], cwd=project,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True, env={**os.environ, "CI": "1"})


def _holding(project: Path, build: subprocess.Popen[str]) -> None:
    """Wait until ``build`` holds the project's lock (it writes its pid into the lock file)."""
    lock = project / ".errdocs" / "build.lock"
    deadline = time.monotonic() + 120
    while not (lock.is_file() and lock.read_text().strip() == str(build.pid)):
        assert build.poll() is None, build.communicate()
        assert time.monotonic() < deadline, "the build never took the lock"
        time.sleep(0.01)


def _refused(project: Path, holder: int, args: tuple[str, ...] = ()) -> None:
    second = _start(project, *args)
    out, err = second.communicate(timeout=120)
    assert (second.returncode, out) == (1, "")
    assert err == (f"Error: another errdocs build is running (pid {holder}) in {project}; "
                   "nothing was touched; run it again when that build has finished\n")


@pytest.mark.slow
def test_a_second_build_is_refused_while_the_first_runs(project: Path) -> None:
    first = _start(project)
    try:
        _holding(project, first)
        os.killpg(first.pid, signal.SIGSTOP)  # hold it mid-build, however fast the machine
        before = sorted(p.relative_to(project) for p in project.rglob("*"))
        _refused(project, first.pid)
        _refused(project, first.pid, ("--site-dir", "other"))
        assert sorted(p.relative_to(project) for p in project.rglob("*")) == before
    finally:
        os.killpg(first.pid, signal.SIGCONT)
    out, err = first.communicate(timeout=300)
    assert first.returncode == 0, err
    assert out.endswith(f"Site built in {project / 'site'}\n")
    again = _start(project)  # and what it made is whole: nothing to rebuild
    out, err = again.communicate(timeout=300)
    assert again.returncode == 0, err
    assert "units: 0 built, 6 reused" in out


@pytest.mark.slow
def test_the_lock_dies_with_its_holder(project: Path) -> None:
    first = _start(project)
    _holding(project, first)
    os.killpg(first.pid, signal.SIGKILL)  # kill -9, workers included
    first.communicate(timeout=60)
    after = _start(project)
    out, err = after.communicate(timeout=300)
    assert after.returncode == 0, err
    assert out.endswith(f"Site built in {project / 'site'}\n")


def test_generate_is_refused_while_a_build_runs(project: Path) -> None:
    with project_lock(project / ".errdocs"):  # a build of this project is running
        result = CliRunner().invoke(main, ["generate", "-f", str(project / "mkdocs.yml"),
                                           str(SAMPLE)])
    assert result.exit_code == 1
    assert result.stderr == (f"Error: another errdocs build is running (pid {os.getpid()}) in "
                             f"{project}; nothing was touched; run it again when that build "
                             "has finished\n")
    assert not (project / "docs" / "errors").exists()
