"""ProperDocs as a second engine: ``errdocs build/bundle/serve --engine properdocs`` build the
same pages as MkDocs (Material and errdocs' plugins load under it unchanged).

ProperDocs is chosen when the process starts (it redirects every ``mkdocs`` import), so its
builds run as separate ``python -m errdocs`` processes here, like the command a user types.
"""

from __future__ import annotations

import os
import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from click.testing import CliRunner

from errdocs.cli import main
from errdocs.units import engine
from errdocs.units.state import read as read_rows

from .conftest import Built, copy_project
from .sites import SAMPLE, SEED_PAGE, SITE_URL
from .test_hostile import GOOD_IDS, HOSTILE, record_pages

pytestmark = pytest.mark.slow
_GENERATOR = re.compile(rb'<meta name="generator"[^>]*>')
_LASTMOD = re.compile(rb"<lastmod>[^<]*</lastmod>")


def _errdocs(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``errdocs ARGS`` as a new process (the command's own entry point), in ``cwd``."""
    env = {**os.environ, "ERRDOCS_PROGRESS": "off"}
    env.pop(engine.ENV, None)
    return subprocess.run([sys.executable, "-m", "errdocs", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=600, check=False)


def _comparable(site: Path) -> dict[str, bytes]:
    """Every file of the site, the generator tag aside (it names the engine; errdocs' theme
    leaves it out, so this is a safeguard) and the sitemap's dates aside (a page without a
    record is dated by the build)."""
    tree = {}
    for path in sorted(site.rglob("*")):
        if path.is_file():
            name, data = path.relative_to(site).as_posix(), path.read_bytes()
            data = _GENERATOR.sub(b"", data) if name.endswith(".html") else data
            tree[name] = _LASTMOD.sub(b"", data) if name == "sitemap.xml" else data
    tree.pop("sitemap.xml.gz", None)  # sitemap.xml gzipped, dates and all
    return tree


def _assert_same_sites(properdocs: Path, mkdocs: Path) -> None:
    ours, theirs = _comparable(properdocs), _comparable(mkdocs)
    assert ours.keys() == theirs.keys()
    assert [name for name in ours if ours[name] != theirs[name]] == []


def _global_key(project: Path) -> str:
    return read_rows(project / ".errdocs")["root"].global_key


def test_properdocs_builds_the_sample_site_as_mkdocs_does(tmp_path: Path, built: Built) -> None:
    project = copy_project(tmp_path)
    done = _errdocs(project, "build", str(SAMPLE), "--engine", "properdocs",
                    "--site-url", SITE_URL, "--full-text", "-j", "2")
    assert done.returncode == 0, done.stderr
    assert done.stdout.endswith(f"Site built in {project / 'site'}; {built.searchable} pages "
                                "in the full-text index\n")
    assert (project / "site" / SEED_PAGE / "index.html").is_file()
    _assert_same_sites(project / "site", built.site)
    # ProperDocs did build it: the units' key names the engine, so it differs from MkDocs'.
    assert _global_key(project) != _global_key(built.project)


def test_both_engines_give_the_hostile_records_the_same_pages(tmp_path: Path) -> None:
    runs = {}
    for name in engine.ENGINES:
        project = copy_project(tmp_path / name)
        shutil.copy(HOSTILE, project / "hostile.jsonl")
        runs[name] = _errdocs(project, "build", "hostile.jsonl", "--engine", name, "-j", "2")
        assert runs[name].returncode == 0, runs[name].stderr
        pages = record_pages(project / "docs" / "errors")
        assert set(pages) == GOOD_IDS
        for page in pages.values():
            relative = page.relative_to(project / "docs" / "errors").with_suffix("")
            assert (project / "site" / "errors" / relative / "index.html").is_file()
    # the same problems reported, the same summary, the same site
    assert runs["properdocs"].stderr == runs["mkdocs"].stderr
    assert runs["properdocs"].stdout == runs["mkdocs"].stdout.replace("/mkdocs/", "/properdocs/")
    _assert_same_sites(tmp_path / "properdocs" / "site", tmp_path / "mkdocs" / "site")


def test_properdocs_strict_fails_on_a_warning_and_keeps_nothing(tmp_path: Path) -> None:
    """ProperDocs counts the warnings of MkDocs-named loggers too (Material's, the link
    checks), so --strict still fails the build, in one line naming the engine."""
    project = copy_project(tmp_path)
    (project / "docs" / "broken.md").write_text("# Broken\n\n[x](nowhere.md)\n", "utf-8")
    done = _errdocs(project, "build", str(SAMPLE), "--engine", "properdocs", "--strict")
    assert done.returncode == 1
    assert done.stderr == (
        "WARNING -  Doc file 'broken.md' contains a link 'nowhere.md', but the target is not "
        "found among documentation files.\n"
        "Error: unit root: ProperDocs build failed: Aborted with 1 warnings in strict mode!; "
        "the previous site was left as it was\n")
    assert not (project / "site").exists()


def test_properdocs_makes_the_same_offline_bundle(tmp_path: Path, bundle_zip: Path) -> None:
    project = copy_project(tmp_path)
    done = _errdocs(project, "bundle", str(SAMPLE), "--engine", "properdocs",
                    "-o", "dist/errdocs-bundle.zip")
    assert done.returncode == 0, done.stderr
    assert (project / "dist" / "errdocs-bundle.zip").read_bytes() == bundle_zip.read_bytes()


def test_properdocs_serves_the_preview(tmp_path: Path) -> None:
    project = copy_project(tmp_path)
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    env = {**os.environ, "ERRDOCS_ENGINE": "properdocs"}
    server = subprocess.Popen([sys.executable, "-m", "errdocs", "serve", str(SAMPLE), "-a",
                               f"127.0.0.1:{port}"], cwd=project, env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        page = _fetch(f"http://127.0.0.1:{port}/{SEED_PAGE}/", server)
    finally:
        server.terminate()
        log = server.communicate(timeout=30)[0].decode("utf-8", "replace")
    assert "Unknown MLX async mode" in page, log
    assert f"Previewing with ProperDocs on 127.0.0.1:{port} (Ctrl+C stops it)" in log, log


def _fetch(url: str, server: subprocess.Popen[bytes], timeout: float = 120.0) -> str:
    """The page at ``url`` once the preview server is up (it builds the site first)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if server.poll() is not None:
            return ""
        try:
            with urllib.request.urlopen(url, timeout=5) as response:
                return response.read().decode("utf-8")
        except (urllib.error.URLError, ConnectionError):
            time.sleep(0.5)
    return ""


def test_the_engine_cannot_change_once_mkdocs_is_loaded(project: Path) -> None:
    """In-process (as here, where the tests loaded MkDocs), --engine properdocs is one clear
    line, not a half-ProperDocs build."""
    result = CliRunner().invoke(main, ["build", "-f", str(project / "mkdocs.yml"),
                                       "--engine", "properdocs"])
    assert result.exit_code == 1
    assert result.output == (
        "Error: --engine properdocs: this process already loaded mkdocs, and the engine is "
        "chosen when errdocs starts; run `errdocs ... --engine properdocs` (or set "
        "ERRDOCS_ENGINE=properdocs) as a new command\n")
    assert not (project / ".errdocs").exists() and not (project / "site").exists()


@pytest.mark.parametrize(("argv", "environ", "name"), [
    (["build", "--engine", "properdocs"], {}, "properdocs"),
    (["build", "--engine=properdocs", "data.jsonl"], {}, "properdocs"),
    (["serve"], {"ERRDOCS_ENGINE": "properdocs"}, "properdocs"),
    (["build", "--engine", "mkdocs"], {"ERRDOCS_ENGINE": "properdocs"}, "mkdocs"),
    (["build", "data.jsonl"], {}, None),
    (["lookup", "--", "--engine", "properdocs"], {}, None),
])
def test_the_engine_is_read_from_the_command_line_or_the_environment(
        argv: list[str], environ: dict[str, str], name: str | None) -> None:
    assert engine.requested(argv, environ) == name
