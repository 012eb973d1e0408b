"""Progress: rewritten in place on a terminal; in a CI log or a file, a line per group of units
with counts and an ETA (never one endless line, never minutes of silence)."""

from __future__ import annotations

import io
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from errdocs.cli import main
from errdocs.units import progress
from errdocs.units.progress import Progress, announce, duration, live, wanted

from .conftest import ROOT

sys.path.insert(0, str(ROOT / "bench"))
import synth


class _Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_on_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CI", raising=False)
    stream = _Tty()
    assert live(stream)
    progress = Progress("units", 4, stream=stream, clock=100.0)
    progress.step(10, now=102.0)
    progress.step(5, now=104.0)
    progress.close()
    assert stream.getvalue() == ("\runits: 1/4 (25%), 10 pages, 2 s, ETA 6 s "
                                 "\runits: 2/4 (50%), 15 pages, 4 s, ETA 4 s \n")


def test_a_ci_log_gets_a_line_per_group_of_units(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CI", "true")
    stream = _Tty()  # a terminal, but CI is set: a log
    assert not live(stream) and wanted()
    progress = Progress("units", 40, stream=stream, clock=0.0)
    for done in range(1, 41):
        progress.step(512, now=3.0 * done)
    progress.close()
    lines = stream.getvalue().splitlines()
    assert "\r" not in stream.getvalue()
    assert lines[0] == "units: 40 to build"
    assert lines[1] == "units: 2/40 (5%), 1,024 pages, 6 s, ETA 1 min 54 s"
    assert lines[2] == "units: 4/40 (10%), 2,048 pages, 12 s, ETA 1 min 48 s"
    assert lines[-1] == "units: 40/40 (100%), 20,480 pages, 2 min 00 s, ETA 0 s"
    assert len(lines) == 1 + 20


def test_a_slow_group_still_prints_a_line_a_minute(monkeypatch: pytest.MonkeyPatch) -> None:
    stream = io.StringIO()  # a pipe: not a terminal
    assert not live(stream)
    progress = Progress("units", 1000, stream=stream, clock=0.0)
    progress.step(500, now=30.0)   # 1 of a group of 50: nothing yet
    progress.step(500, now=61.0)   # a minute without a line: one now
    progress.step(500, now=62.0)
    assert stream.getvalue().splitlines() == [
        "units: 1000 to build",
        "units: 2/1000 (0%), 1,000 pages, 1 min 01 s, ETA 8 h 27 min"]


def test_nothing_to_build_prints_nothing() -> None:
    stream = io.StringIO()
    Progress("search pieces", 0, stream=stream).close()
    assert stream.getvalue() == ""


def test_errdocs_progress_off_silences_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ERRDOCS_PROGRESS", "off")
    assert not wanted()
    stream = io.StringIO()
    progress = Progress("units", 2, stream=stream, enabled=wanted())
    progress.step(3)
    progress.step(3)
    progress.close()
    assert stream.getvalue() == ""


@pytest.mark.parametrize(("seconds", "text"), [
    (0.4, "0 s"), (59.4, "59 s"), (60, "1 min 00 s"), (605, "10 min 05 s"),
    (3599.6, "1 h 00 min"), (7380, "2 h 03 min")])
def test_durations_read_like_a_person_writes_them(seconds: float, text: str) -> None:
    assert duration(seconds) == text


def test_a_refresh_says_what_it_found_to_do_on_a_terminal_only(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CI", raising=False)
    stream, log = _Tty(), io.StringIO()
    for out in (stream, log):
        announce(200, 1512, 63, 77, stream=out)
        announce(1, 1, 1, 1, stream=out)
        announce(0, 0, 0, 77, stream=out)
        announce(5, 5, 5, 5, stream=out, enabled=False)
    assert stream.getvalue() == (
        "To do: 200 records changed; 1,512 pages in 63 of 77 units to build.\n"
        "To do: 1 record changed; 1 page in 1 of 1 unit to build.\n"
        "To do: 0 records changed; nothing to build (all 77 units up to date).\n")
    assert log.getvalue() == ""


def test_errdocs_build_on_a_terminal_says_what_its_refresh_found_to_do_first(
        tmp_path: Path, project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Issue 17, item 4: the refresh's own line, through the command, before the units' progress.
    monkeypatch.delenv("CI", raising=False)
    monkeypatch.delenv("ERRDOCS_PROGRESS", raising=False)
    data = synth.write(12, tmp_path / "data.jsonl", seed=13)
    build = ["build", str(data), "-f", str(project / "mkdocs.yml"), "-j", "1"]
    assert CliRunner().invoke(main, build).exit_code == 0
    lines = data.read_text("utf-8").splitlines(keepends=True)
    lines[4] = lines[4].replace('"documentation":"', '"documentation":"Now refreshed. ', 1)
    data.write_text("".join(lines), "utf-8")
    monkeypatch.setattr(progress, "live", lambda stream=None: True)  # CliRunner's is no tty
    result = CliRunner().invoke(main, build)
    assert result.exit_code == 0
    # First, before anything is built; then what was built agrees with it.
    assert result.output.splitlines()[0] == (
        "To do: 1 record changed; 16 pages in 4 of 6 units to build.")
    assert "; units: 4 built, 2 reused\n" in result.output
    again = CliRunner().invoke(main, build)
    assert again.output.splitlines()[0] == (
        "To do: 0 records changed; nothing to build (all 6 units up to date).")
