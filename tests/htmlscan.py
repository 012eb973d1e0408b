"""Read what a built page links to, and what it says about itself, with the standard HTML parser."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit


@dataclass
class Scan:
    """What one HTML page holds."""

    links: list[tuple[str, str]] = field(default_factory=list)
    """(tag, URL) of every href and src; the tag of a <link> is ``link:REL``."""
    ids: set[str] = field(default_factory=set)
    """Every id and a[name]: the anchors a link may point at."""
    meta: dict[str, list[str]] = field(default_factory=dict)
    """<meta> content by name or property."""
    canonical: str | None = None
    """<link rel=canonical>."""
    json_ld: list[Any] = field(default_factory=list)
    """Parsed ``application/ld+json`` scripts."""
    scripts: list[str] = field(default_factory=list)
    """The type of every <script> ('' for classic scripts)."""
    title: str = ""
    """The <title> text."""


class _Parser(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.scan = Scan()
        self._in: str | None = None
        self._text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        kind = f"link:{a.get('rel', '')}" if tag == "link" else tag
        for key in ("href", "src"):
            if key in a:
                self.scan.links.append((kind, a[key]))
        for key in ("id",) + (("name",) if tag == "a" else ()):
            if a.get(key):
                self.scan.ids.add(a[key])
        if tag == "meta" and (a.get("name") or a.get("property")):
            key = a.get("name") or a["property"]
            self.scan.meta.setdefault(key, []).append(a.get("content", ""))
        if tag == "link" and a.get("rel") == "canonical":
            self.scan.canonical = a.get("href")
        if tag == "script":
            self.scan.scripts.append(a.get("type", ""))
            self._in = "ld" if a.get("type") == "application/ld+json" else "script"
        if tag == "title":
            self._in = "title"
        self._text = []

    def handle_data(self, data: str) -> None:
        if self._in:
            self._text.append(data)

    def handle_endtag(self, tag: str) -> None:
        if tag == "script" and self._in == "ld":
            self.scan.json_ld.append(json.loads("".join(self._text)))
        if tag == "title" and self._in == "title":
            self.scan.title = "".join(self._text)
        if tag in ("script", "title"):
            self._in = None


def scan(path: Path) -> Scan:
    """Parse one page."""
    parser = _Parser()
    parser.feed(path.read_text("utf-8"))
    parser.close()
    return parser.scan


def html_pages(site: Path) -> list[Path]:
    """Every HTML page of a built site (Pagefind's folder holds none worth checking)."""
    return sorted(p for p in site.rglob("*.html") if "pagefind" not in p.relative_to(site).parts)


def broken_links(site: Path, prefix: str = "/", skip: tuple[str, ...] = (),
                 served: bool = True) -> tuple[list[str], int]:
    """Internal links (and anchors) of ``site`` that lead nowhere, and how many were checked.

    ``prefix`` is the path the site is hosted under (absolute links, as on the 404 page, start
    with it); pages named in ``skip`` are not read. ``served``: a link to a folder leads to its
    ``index.html``, as a server answers; False: it leads nowhere, as from ``file://``.
    """
    scans = {p.resolve(): scan(p) for p in html_pages(site)
             if p.relative_to(site).as_posix() not in skip}
    broken: list[str] = []
    checked = 0
    for page, found in scans.items():
        for _tag, url in found.links:
            scheme = urlsplit(url).scheme
            if scheme in ("http", "https", "mailto"):
                continue
            assert not scheme, f"{page}: unexpected link scheme in {url!r}"
            target, fragment = _resolve(site, page, url, prefix, served)
            checked += 1
            where = f"{page.relative_to(site.resolve())}: {url}"
            if not target.is_file():
                broken.append(where)
            elif fragment and target.suffix == ".html" and fragment not in _ids(scans, target):
                broken.append(f"{where} (no such anchor)")
    return broken, checked


def _ids(scans: dict[Path, Scan], target: Path) -> set[str]:
    return scans[target].ids if target in scans else scan(target).ids


def _resolve(site: Path, page: Path, url: str, prefix: str,
             served: bool = True) -> tuple[Path, str]:
    """The file a site-internal URL of ``page`` points at, and its fragment."""
    parts = urlsplit(url)
    if parts.path.startswith("/"):
        assert parts.path.startswith(prefix), f"{page}: {url} is outside the site"
        target = site / unquote(parts.path[len(prefix):])
    elif parts.path:
        target = page.parent / unquote(parts.path)
    else:
        target = page
    if served and (parts.path.endswith("/") or target.is_dir()):
        target = target / "index.html"
    return target.resolve(), unquote(parts.fragment)
