"""``errdocs serve`` answers before its build ends: the home page as soon as the root unit is
built (cold) or at once from the previous site (warm), a "still building" notice for a page
whose unit is not done, and in the end the very site ``errdocs build`` makes.

The server runs as a subprocess whose record units wait for a gate file (a wrapper around the
unit build, installed before the CLI starts; forked workers inherit it), so the test sees the
preview in the middle of a build, deterministically.
"""

from __future__ import annotations

import http.client
import json
import os
import re
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from errdocs.site.merge import UnitOutput
from errdocs.site.owner import mark
from errdocs.site.preview import Served
from errdocs.units import plan as shards

from .helpers import cold_site, site_tree
from .sites import SAMPLE, SEED_MESSAGE, SEED_PAGE

pytestmark = pytest.mark.slow

GATED = """
import os, sys, time
from pathlib import Path

import errdocs.units.plan as plan
import errdocs.units.workers as workers

plan.UNIT_SIZE = 16  # many units from the sample's 40 records
gate = Path(os.environ["GATE"])

def gated(real):
    def wait(ctx, unit):
        if unit.name.startswith("rec-"):  # record units wait until the test opens the gate
            deadline = time.monotonic() + 300
            while not gate.exists() and time.monotonic() < deadline:
                time.sleep(0.05)
        return real(ctx, unit)
    return wait

# A unit built in this process, and one built by a worker.
workers.build_unit = gated(workers.build_unit)
workers.stage_unit = gated(workers.stage_unit)
sys.argv = ["errdocs", *sys.argv[1:]]
from errdocs.__main__ import main
main()
"""
EPOCH = "1767225600"
_SCRIPT_EPOCH = re.compile(rb"livereload\(([0-9]+), [0-9]+\);\n</script>")


@dataclass
class Answer:
    status: int
    body: bytes


@dataclass
class Server:
    """A running ``errdocs serve`` whose record units wait for :attr:`gate`."""

    process: subprocess.Popen[bytes]
    base: str
    gate: Path
    output: Path
    """Its stdout and stderr."""

    def get(self, path: str, timeout: float = 30) -> Answer:
        try:
            with urllib.request.urlopen(self.base + path, timeout=timeout) as response:
                return Answer(response.status, response.read())
        except urllib.error.HTTPError as error:
            return Answer(error.code, error.read())

    def wait_for(self, path: str, status: int, within: float) -> Answer:
        """The first answer to ``path`` with ``status`` (the server starting, the units
        building), or the test fails after ``within`` seconds."""
        deadline, last = time.monotonic() + within, None
        while time.monotonic() < deadline:
            assert self.process.poll() is None, self.log()
            try:
                last = self.get(path, timeout=5)
                if last.status == status:
                    return last
            except (urllib.error.URLError, ConnectionError, TimeoutError):
                pass
            time.sleep(0.2)
        pytest.fail(f"{path}: no {status} within {within} s (last: {last}); {self.log()}")

    def log(self) -> str:
        return self.output.read_text("utf-8", "replace")

    def wait_for_build(self, count: int, within: float) -> None:
        """Until the server said it finished its ``count``-th build."""
        deadline = time.monotonic() + within
        while self.log().count(" units: ") < count:
            assert self.process.poll() is None and time.monotonic() < deadline, self.log()
            time.sleep(0.2)

    def stop(self) -> None:
        self.gate.touch()
        self.process.terminate()
        self.process.wait(timeout=60)


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture
def same_units(monkeypatch: pytest.MonkeyPatch) -> None:
    """This process's builds cut the site as the gated server does, on a fixed date."""
    monkeypatch.setattr(shards, "UNIT_SIZE", 16)
    monkeypatch.setenv("SOURCE_DATE_EPOCH", EPOCH)


Start = Callable[[Path], Server]
"""Starts ``errdocs serve DATA`` in the test's project, its record units gated."""


@pytest.fixture
def serving(project: Path, tmp_path: Path) -> Iterator[Start]:
    started: list[Server] = []

    def start(data: Path) -> Server:
        port, number = _free_port(), len(started)
        gate, output = tmp_path / f"gate-{number}", tmp_path / f"serve-{number}.log"
        env = {**os.environ, "GATE": str(gate), "SOURCE_DATE_EPOCH": EPOCH}
        with output.open("wb") as log:
            process = subprocess.Popen(
                [sys.executable, "-c", GATED, "serve", str(data), "-a", f"127.0.0.1:{port}",
                 "-j", "2"], cwd=project, env=env, stdout=log, stderr=subprocess.STDOUT)
        started.append(Server(process, f"http://127.0.0.1:{port}", gate, output))
        return started[-1]

    yield start
    for server in started:
        server.stop()


def _unscripted(body: bytes) -> bytes:
    """A served page without the live reload's script the server adds to HTML."""
    return re.sub(rb"<script>\nvar livereload = .*?</script>", b"", body, flags=re.DOTALL)


def _served_tree(server: Server, paths: list[str]) -> dict[str, bytes]:
    tree = {}
    for path in paths:
        answer = server.get("/" + path)
        assert answer.status == 200, path
        tree[path] = _unscripted(answer.body) if path.endswith(".html") else answer.body
    return tree


def test_serve_shows_the_home_page_before_the_build_ends_then_the_whole_site(
        project: Path, tmp_path: Path, serving: Start, same_units: None) -> None:
    server = serving(SAMPLE)
    home = server.wait_for("/", 200, within=120)  # the root unit is built, no record unit is
    assert b"<title>" in home.body and b"var livereload" in home.body
    assert not (project / "site").exists()  # nothing is published before the merge
    waiting = server.get(f"/{SEED_PAGE}/")
    assert waiting.status == 503
    text = waiting.body.decode("utf-8")
    assert "Still building" in text and 'http-equiv="refresh"' in text
    counts = re.search(r"(\d+) of (\d+) units done", text)
    assert counts is not None, text
    done, total = int(counts[1]), int(counts[2])
    assert 1 <= done < total and total > 6
    assert server.get("/about/").status == 200  # a hand-written page: the root unit's
    script = _SCRIPT_EPOCH.search(home.body)
    assert script is not None
    epoch = script[1].decode()
    outside = http.client.HTTPConnection(server.base.removeprefix("http://"), timeout=10)
    outside.request("GET", "/../mkdocs.yml")  # never a file outside the site
    assert b"site_name" not in outside.getresponse().read()

    server.gate.touch()
    page = server.wait_for(f"/{SEED_PAGE}/", 200, within=180)
    assert SEED_MESSAGE.encode() in page.body
    # The build ends with the site in place, and the pages open then are reloaded.
    reload = server.get(f"/livereload/{epoch}/1", timeout=90)
    assert reload.status == 200 and int(reload.body) > int(epoch)
    server.wait_for_build(1, within=60)
    # The terminal is told how far the build is, as `errdocs build` tells it.
    assert re.search(r"^units: (\d+)/\1 \(100%\), \d+ pages", server.log(), re.M), server.log()
    built = site_tree(project / "site")
    assert built == cold_site(project, SAMPLE, tmp_path / "fresh")
    assert _served_tree(server, [p for p in built if p != ".errdocs-site"]) == {
        p: body for p, body in built.items() if p != ".errdocs-site"}


def test_serve_answers_from_the_previous_site_while_it_rebuilds(
        project: Path, tmp_path: Path, serving: Start, same_units: None) -> None:
    data = tmp_path / "data.jsonl"
    lines = SAMPLE.read_text("utf-8").splitlines(keepends=True)
    data.write_text("".join(lines), "utf-8")
    first = serving(data)
    first.gate.touch()
    first.wait_for_build(1, within=180)
    first.stop()
    seed = json.loads(lines[0])
    seed["record"]["solutions"] = ["A solution the rebuild brings."]
    data.write_text(json.dumps(seed) + "\n" + "".join(lines[1:]), "utf-8")

    server = serving(data)  # its record units wait: the previous site is served meanwhile
    assert server.wait_for("/", 200, within=60).status == 200
    old = server.get(f"/{SEED_PAGE}/")
    assert old.status == 200 and b"A solution the rebuild brings." not in old.body
    server.gate.touch()
    deadline = time.monotonic() + 180
    while b"A solution the rebuild brings." not in server.get(f"/{SEED_PAGE}/").body:
        assert time.monotonic() < deadline, server.log()
        time.sleep(0.5)
    assert site_tree(project / "site") == cold_site(project, data, tmp_path / "fresh")


def test_serve_stops_when_the_first_build_fails_and_there_is_no_site(project: Path) -> None:
    (project / "docs" / "api").mkdir()
    (project / "docs" / "api" / "mine.md").write_text("# Mine\n", "utf-8")
    done = subprocess.run([sys.executable, "-m", "errdocs", "serve", str(SAMPLE), "-a",
                           f"127.0.0.1:{_free_port()}"], cwd=project, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 1
    assert done.stderr.endswith(
        "Error: docs/api/mine.md: errdocs writes the site's /id/, /api/ and /feed.xml; move "
        "this file elsewhere (e.g. docs/about/)\n"), done.stderr
    assert not (project / "site").exists()


def test_served_finds_only_the_files_of_ready_units_until_a_site_is_there(
        tmp_path: Path) -> None:
    unit = tmp_path / "units" / "root"
    (unit / "site" / "about").mkdir(parents=True)
    (unit / "site" / "about" / "index.html").write_text("about", "utf-8")
    (unit / "files-K.txt").write_text("about/index.html", "utf-8")
    served = Served(tmp_path / "site")
    served.started()
    assert served.find("about/index.html") is None
    notice = served.notice("/")
    assert notice is not None and notice[0].startswith("503")
    assert "reading the records and planning the units" in notice[1]
    served.planned(3)
    served.ready(UnitOutput("root", "K", unit))
    served.ready(UnitOutput("rec-0000", "K", tmp_path / "units" / "rec-0000"))  # no file list
    assert served.find("about/index.html") == unit / "site" / "about" / "index.html"
    assert served.find("index.html") is None
    notice = served.notice("/")
    assert notice is not None and "1 of 3 units done" in notice[1]
    served.ended("docs/<script>x</script>.md: broken")  # a failure: what was built stays
    notice = served.notice("/")
    assert notice is not None and notice[0].startswith("500")
    assert "&lt;script&gt;x&lt;/script&gt;" in notice[1] and "<script>" not in notice[1]
    assert served.find("about/index.html") is not None
    site = tmp_path / "site"
    site.mkdir()
    mark(site)
    (site / "index.html").write_text("home", "utf-8")
    served.ended()
    assert served.notice("/") is None  # a plain 404 from now on
    assert served.find("index.html") == site / "index.html"
    assert served.find("about/index.html") is None  # the site, not the units, is served
