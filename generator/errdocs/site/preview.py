"""What ``errdocs serve`` answers while its builds run, and from where.

MkDocs' own ``serve`` (``mkdocs/commands/serve.py``) runs one ``build()`` into a temporary
folder before its server starts, and its server holds every request while a rebuild runs.
errdocs reuses that shape (one build, the one ``errdocs build`` runs, called by the live-reload
server's builder loop on a change) with two differences, because a cold build of 20,000
records takes ~5 minutes and a reader should not wait that long for any page:

- the server starts first and the first build runs in its builder loop, like any rebuild, and
  a request is never held for a build: it is answered from what exists now;
- what exists now is, in order: the site folder when errdocs built one (a warm start serves
  the previous site at once, until the build swaps the new one in), else the outputs of the
  units the running build has finished (:class:`Served`). A unit's output is complete once
  its row of the catalogue is written (:mod:`errdocs.units.state`), and the build says so
  (:class:`errdocs.build.UnitWatch`); its file list (``files-KEY.txt``, made for the merge)
  says which site paths it holds. The build
  makes the root unit first (home page, hand-written pages, listings, theme assets), so the
  home page comes a unit's time after the plan.

A page no finished unit holds while a build runs is a "still building: N of M units done"
notice (status 503) that reloads itself until its unit is done; when the build ends, the
live reload reloads every open page once: the site is in place.

Why this design: nothing is written to serve a partial site. The site folder is still only
ever replaced whole by the merge, under the build's lock; the units' outputs are read in
place, never copied or linked into a preview folder (which would be a second tree of tens of
thousands of links to make, to clean after a kill, and to keep in step with the site). The
cost is one dictionary of site paths (one entry a file of the finished units) while no site
exists.
"""

from __future__ import annotations

import html
import posixpath
import re
import threading
import urllib.parse
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from errdocs.site.merge import UnitOutput
from errdocs.site.owner import is_ours

if TYPE_CHECKING:
    from mkdocs.livereload import LiveReloadServer

NOTICE_SECONDS = 5
"""How often the "still building" notice reloads itself."""
_LIVERELOAD = re.compile(r"/livereload/[0-9]+/[0-9]+")


class Served:
    """Where the preview finds a site path: the site folder errdocs built, else the finished
    units of the running (or last) build. Builds tell it what they do (it is their
    :class:`errdocs.build.UnitWatch`); the server's threads ask it."""

    def __init__(self, site: Path) -> None:
        self.site = site
        """The site folder (``site_dir``)."""
        self._lock = threading.Lock()
        self._files: dict[str, Path] = {}
        """Site path to the output folder (``site/``) of the finished unit holding it."""
        self._ready = 0
        self._units: int | None = None
        self._building = False
        self._failure: str | None = None
        self._collect = False
        """Whether :attr:`_files` is kept: only while no site is there to serve."""

    # --- the builds' side ---------------------------------------------------------------

    def started(self) -> None:
        """A build starts (it reads and plans before it tells anything)."""
        with self._lock:
            self._building, self._failure, self._units = True, None, None

    def planned(self, units: int) -> None:
        collect = not is_ours(self.site)  # a site is replaced only by a whole new one
        with self._lock:
            self._files, self._ready, self._units = {}, 0, units
            self._collect = collect

    def ready(self, unit: UnitOutput) -> None:
        names = unit.files() if self._collect else []
        if names is None:  # no file list: not served (the merge would refuse it too)
            return
        with self._lock:
            self._files.update(dict.fromkeys(names, unit.site))
            self._ready += 1

    def ended(self, failure: str | None = None) -> None:
        """The build ended: the site is in place, or it failed with ``failure`` (one line)
        and the outputs of the units it finished are still served when there is no site."""
        with self._lock:
            self._building, self._failure = False, failure
            if failure is None:
                self._files = {}  # the site is served now

    # --- the server's side --------------------------------------------------------------

    def find(self, relative: str) -> Path | None:
        """The file at site path ``relative`` (normalised, no leading ``/``), or None."""
        if is_ours(self.site):
            found = self.site / relative
            return found if found.is_file() else None
        with self._lock:
            folder = self._files.get(relative)
        return folder / relative if folder is not None else None

    def notice(self, home: str) -> tuple[str, str] | None:
        """The status and page for a path nothing holds while a build runs or after it
        failed; None otherwise (then it is a plain 404). ``home``: the home page's URL."""
        with self._lock:
            building, failure = self._building, self._failure
            ready, units = self._ready, self._units
        link = f'<p><a href="{html.escape(home)}">Home page</a></p>'
        if building:
            done = ("reading the records and planning the units" if units is None
                    else f"{ready} of {units} units done")
            return "503 Service Unavailable", _page(
                "Still building", f"<p>errdocs serve is building the site: {done}. This "
                "page is not built yet; it reloads itself until it is.</p>" + link,
                refresh=True)
        if failure is not None:
            return "500 Internal Server Error", _page(
                "The build failed", f"<p>{html.escape(failure)}</p><p>Fix it and save: the "
                "preview builds again.</p>" + link)
        return None


def _page(title: str, body: str, *, refresh: bool = False) -> str:
    meta = f'<meta http-equiv="refresh" content="{NOTICE_SECONDS}">' if refresh else ""
    return (f'<!doctype html>\n<html lang="en"><head><meta charset="utf-8">{meta}'
            f'<meta name="viewport" content="width=device-width, initial-scale=1">'
            f"<title>{title} - errdocs serve</title></head><body><h1>{title}</h1>{body}"
            "</body></html>\n")


def make_server(served: Served, builder: Callable[[], None], host: str, port: int,
                mount_path: str) -> LiveReloadServer:
    """MkDocs' live-reload server answering from ``served`` (:class:`_Answer`), with a
    build asked for at once: its builder loop runs ``builder`` first thing, as on a change
    (MkDocs' server offers no public way to ask; it builds on a change only)."""
    from mkdocs.livereload import LiveReloadServer, _Handler  # late: the dev server

    class Handler(_Handler):
        """MkDocs' request log, which warns of every answer but 200, without the notices
        and redirects (a notice reloads itself every few seconds)."""

        def log_request(self, code: int | str = "-", size: int | str = "-") -> None:
            if str(code) not in ("302", "503"):
                super().log_request(code, size)

    server = LiveReloadServer(builder=builder, host=host, port=port, root=str(served.site),
                              mount_path=mount_path)
    server.RequestHandlerClass = Handler
    server.set_app(_Answer(server, served))
    with server._rebuild_cond:
        server._want_rebuild = True
    return server


class _Answer:
    """The server's application: files from :class:`Served`, never waiting for a build
    (MkDocs' own answer holds a request until the running build ends); the pages' live
    reload poll is MkDocs'."""

    def __init__(self, server: LiveReloadServer, served: Served) -> None:
        self.server, self.served = server, served

    def __call__(self, environ: dict[str, Any],
                 start_response: Callable[..., object]) -> Iterable[bytes]:
        path = environ["PATH_INFO"].encode("latin-1").decode("utf-8", "ignore")
        if _LIVERELOAD.fullmatch(path):
            return self.server.serve_request(environ, start_response)
        mount = self.server.mount_path
        if not (path + "/").startswith(mount):
            if path == "/":
                start_response("302 Found", [("Location", urllib.parse.quote(mount))])
                return []
            return self._missing(start_response)
        relative = path[len(mount):] + ("index.html" if path.endswith("/") else "")
        relative = posixpath.normpath("/" + relative).lstrip("/")  # no way out of the site
        content = _read(self.served.find(relative))
        if content is None:
            if not path.endswith("/") and self.served.find(f"{relative}/index.html"):
                start_response("302 Found", [("Location", urllib.parse.quote(path) + "/")])
                return []
            return self._missing(start_response)
        if relative.endswith(".html"):  # the live reload's script, as MkDocs' server adds it
            content = self.server._inject_js_into_html(content, self.server._visible_epoch)
        return _answer(start_response, "200 OK", content, self.server._guess_type(relative))

    def _missing(self, start_response: Callable[..., object]) -> list[bytes]:
        """The "still building" or "build failed" notice, else the site's 404 page."""
        notice = self.served.notice(self.server.mount_path)
        if notice is not None:
            status, page = notice
            return _answer(start_response, status, page.encode("utf-8"),
                           "text/html; charset=utf-8",
                           [("Retry-After", str(NOTICE_SECONDS))] if status[0] == "5" else [])
        missing = _read(self.served.find("404.html")) or b"404 Not Found"
        return _answer(start_response, "404 Not Found", missing, "text/html")


def _answer(start_response: Callable[..., object], status: str, content: bytes, kind: str,
            headers: list[tuple[str, str]] | None = None) -> list[bytes]:
    start_response(status, [("Content-Type", kind), ("Content-Length", str(len(content))),
                            *(headers or [])])
    return [content]


def _read(file: Path | None) -> bytes | None:
    """The file's bytes; None when there is none (or it went: a swap, a unit replaced)."""
    if file is None:
        return None
    try:
        return file.read_bytes()
    except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
        return None
