"""Progress shows on a terminal, with an ETA, and stays quiet elsewhere."""

from __future__ import annotations

import io

import pytest

from errdocs.progress import Progress, wanted


class _Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_on_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CI", raising=False)
    stream = _Tty()
    assert wanted(stream)
    progress = Progress("units", 4, stream=stream, enabled=wanted(stream))
    progress.step(10)
    progress.step(5)
    progress.close()
    lines = stream.getvalue().split("\r")
    assert lines[1].startswith("units: 1/4, 10 pages, ")
    assert lines[2].startswith("units: 2/4, 15 pages, ") and "ETA" in lines[2]
    assert stream.getvalue().endswith("\n")


def test_quiet_in_ci_and_in_logs(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CI", "true")
    assert not wanted(_Tty())
    monkeypatch.delenv("CI")
    assert not wanted(io.StringIO())
    stream = io.StringIO()
    progress = Progress("units", 2, stream=stream, enabled=False)
    progress.step(3)
    progress.close()
    assert stream.getvalue() == ""
