"""Build the sample site and the offline bundle once per test session, and serve a site over
HTTP on 127.0.0.1 the way a static host does (404.html for missing pages)."""

from __future__ import annotations

import contextlib
import functools
import http.server
import shutil
import threading
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from errdocs.build import ShardedReport, build_sharded
from errdocs.project import Settings, load_settings
from errdocs.site.bundle import BundleReport, make_bundle

if TYPE_CHECKING:  # Playwright is needed by the browser tests only
    from playwright.sync_api import Browser, FloatRect, Locator, Page

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = Path("/usr/bin/chromium")
"""Debian's Chromium, which .ci/run installs with apt; nothing downloads a browser."""
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run",
                 "--disable-dev-shm-usage"]
"""``--disable-dev-shm-usage`` puts Chromium's shared memory in /tmp, not /dev/shm (64 MB in
many containers). A precaution: CI's browser died once in the hostile-site tests (stop 37:
"Target page, context or browser has been closed"), and a 2 MB /dev/shm here did not make it."""
SAMPLE = ROOT / "data" / "sample.jsonl"
SITE_URL = "https://errors.example.org/docs/"
SEED_ID = "2f61984c034089bc"
SEED_PAGE = "errors/sgl-project/sglang/unknown-mlx-async-mode-launch-mode"
SEED_MESSAGE = "Unknown MLX async mode: {launch.mode}"


def copy_project(target: Path) -> Path:
    """A throw-away copy of the project's MkDocs side: mkdocs.yml, docs/ and overrides/."""
    target.mkdir(parents=True, exist_ok=True)
    shutil.copy(ROOT / "mkdocs.yml", target / "mkdocs.yml")
    for name in ("docs", "overrides"):
        shutil.copytree(ROOT / name, target / name, ignore=shutil.ignore_patterns("errors"))
    return target


def build_project(project: Path, records: Path = SAMPLE, site_url: str | None = SITE_URL,
                  full_text: bool = False) -> tuple[Settings, ShardedReport]:
    """Build the site of ``records`` in ``project`` the way ``errdocs build`` does (with
    ``--full-text`` when ``full_text``)."""
    settings = load_settings(project / "mkdocs.yml", site_url=site_url)
    return settings, build_sharded(settings, [records], jobs=1, show_progress=False,
                                   full_text=full_text)


def build_bundle(project: Path, output: Path, records: Path = SAMPLE,
                 site_url: str | None = None) -> BundleReport:
    """The offline bundle of every record of ``records`` (of the site :func:`build_project`
    builds when ``site_url`` is its)."""
    return make_bundle(load_settings(project / "mkdocs.yml", site_url=site_url), [records],
                       output)


@contextlib.contextmanager
def chromium() -> Iterator[Browser]:
    """Headless Debian Chromium through Playwright, closed afterwards."""
    try:  # imported late: the tests that drive no browser run without Playwright
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.skip("Playwright is not installed")

    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=str(CHROMIUM), headless=True,
                                              args=CHROMIUM_ARGS)
        try:
            yield launched
        finally:
            launched.close()


def unzip(archive: Path, target: Path) -> Path:
    """Extract ``archive``; return the folder holding its ``index.html``."""
    with zipfile.ZipFile(archive) as opened:
        opened.extractall(target)
    (index,) = target.glob("*/index.html")
    return index.parent


class _Handler(http.server.SimpleHTTPRequestHandler):
    """A static host serving the site under ``prefix`` (the path of its ``site_url``): files
    as they are, ``404.html`` with status 404 for anything missing."""

    prefix = "/"

    def translate_path(self, path: str) -> str:
        if not path.startswith(self.prefix):
            return str(Path(self.directory) / "__outside_the_site__")
        return super().translate_path("/" + path[len(self.prefix):])

    def log_message(self, format: str, *args: object) -> None:
        """Quiet: the tests look at what the browser saw, not at the server's log."""

    def send_error(self, code: int, message: str | None = None,
                   explain: str | None = None) -> None:
        page = Path(self.directory) / "404.html"
        if code != 404 or not page.is_file():
            super().send_error(code, message, explain)
            return
        body = page.read_bytes()
        self.send_response(404)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)


@contextlib.contextmanager
def serve(directory: Path, prefix: str = "/") -> Iterator[str]:
    """Serve ``directory`` at ``prefix`` on a free port of 127.0.0.1; yield the site's URL."""
    handler_class = type("Handler", (_Handler,), {"prefix": prefix})
    handler = functools.partial(handler_class, directory=str(directory))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}{prefix}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


def box(locator: Locator) -> FloatRect:
    """An element's box on the page (it must be shown: a hidden one fails the test)."""
    found = locator.bounding_box()
    assert found is not None, f"{locator} is not shown"
    return found


def top(locator: Locator) -> float:
    """Where an element's box starts on the page (it must be shown)."""
    return box(locator)["y"]


def transitions_ended(page: Page) -> None:
    """Wait until no CSS transition runs on the page, e.g. the theme's colour transitions
    (250 ms) after its scheme is switched. ``document.getAnimations()`` brings the styles up
    to date first, so transitions a change just set off are seen; an ended one leaves it."""
    page.wait_for_function("!document.getAnimations().some((a) => a instanceof CSSTransition)")
