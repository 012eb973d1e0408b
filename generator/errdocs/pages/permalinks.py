"""Addresses that outlive a record's message: ``/id/<id>/`` for every record, and what stays at
an address a record left (a redirect, or a "removed" page).

Every page here is a static HTML file, not a MkDocs page: a redirect is a meta refresh with a
canonical link and a plain link, so it works hosted, from disk and without JavaScript. Ids
become path segments only through :func:`errdocs.catalog.paths.exact_segment` (lowercase
``[a-z0-9._-]``, a hash when the text had to change), so no id can reach outside the site or
share a page with another id. Record text is escaped where printed.
"""

from __future__ import annotations

import array
import html
import posixpath
import sys
from collections.abc import Iterable
from dataclasses import dataclass

from errdocs.catalog.paths import exact_segment

ID_FOLDER = "id"
"""``/id/<id>/``: one redirect (or removed) page per record, at the site's root."""
API_RECORDS = "api/records"
"""``/api/records/<id>.json``: each record as JSON."""
TITLE_CHARS = 200
"""A message is cut to this many characters in a page title or a link."""


@dataclass(frozen=True)
class Addresses:
    """How the site's pages are addressed."""

    subtree: str = "errors"
    """The generated subtree's folder in the site (``Settings.subtree``)."""
    directory_urls: bool = True
    """MkDocs' ``use_directory_urls``: ``o/r/slug/`` rather than ``o/r/slug.html``."""
    site_url: str | None = None
    """The hosted site's address with a trailing slash, when known (canonical links)."""

    def page_url(self, path: str) -> str:
        """The URL, relative to the site's root, of the generated page ``path`` (``o/r/s.md``)."""
        stem = f"{self.subtree}/{path.removesuffix('.md')}"
        if not self.directory_urls:
            return f"{stem}.html"
        if stem.endswith("/index"):  # a listing; never a record (``index`` is reserved)
            return stem.removesuffix("index")
        return f"{stem}/"

    def page_file(self, path: str) -> str:
        """The file, relative to the site's root, that serves the generated page ``path``."""
        url = self.page_url(path)
        return f"{url}index.html" if url.endswith("/") else url

    def absolute(self, url: str) -> str | None:
        """``url`` (relative to the site's root) on the hosted site, when its address is known."""
        return f"{self.site_url}{url}" if self.site_url else None


def id_file(record_id: str) -> str:
    """The site file of ``/id/<id>/``."""
    return f"{ID_FOLDER}/{exact_segment(record_id)}/index.html"


def id_url(record_id: str, addresses: Addresses) -> str:
    """The URL of ``/id/<id>/``, relative to the site's root, as the site links it."""
    folder = f"{ID_FOLDER}/{exact_segment(record_id)}/"
    return folder if addresses.directory_urls else f"{folder}index.html"


def api_record_file(record_id: str) -> str:
    """The site file of ``/api/records/<id>.json``."""
    return f"{API_RECORDS}/{exact_segment(record_id)}.json"


def relative_url(source_file: str, target_url: str) -> str:
    """``target_url`` as seen from the page in ``source_file`` (both relative to the root)."""
    start = posixpath.dirname(source_file) or "."
    target = posixpath.relpath(target_url.rstrip("/") or ".", start)
    return target + "/" if target_url.endswith("/") or not target_url else target


def redirect_page(source_file: str, target_url: str, message: str,
                  addresses: Addresses) -> str:
    """A page at ``source_file`` sending the reader to ``target_url`` (a record's page)."""
    href = _attr(relative_url(source_file, target_url))
    canonical = _attr(addresses.absolute(target_url) or relative_url(source_file, target_url))
    label = _text(message)
    # The page shows only where meta refresh is off: readable on a phone and in dark mode
    # (the browser's own colours) at the cost of two short tags, not a style sheet.
    return (f'<!doctype html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
            f'{_VIEWPORT}{_icon(source_file)}<meta name="color-scheme" content="light dark">\n'
            f"<title>{label}</title>\n"
            f'<meta name="robots" content="noindex">\n'
            f'<link rel="canonical" href="{canonical}">\n'
            f'<meta http-equiv="refresh" content="0; url={href}">\n'
            f"</head>\n<body>\n"
            f'<p>This error is documented at <a href="{href}">{label}</a>.</p>\n'
            f"</body>\n</html>\n")


@dataclass(frozen=True)
class Removed:
    """What a "removed" page says about a record that left the dataset."""

    record_id: str
    """The record's id."""
    message: str
    """Its error message (as stored in the history: cut)."""
    repo: str
    """Its repository, ``owner/name``."""
    version: str
    """The dataset version it left in."""
    repo_url: str
    """The repository's page (or the list of repositories when it has no page any more)."""
    changes_url: str | None
    """The "what changed" page of that version, while the site keeps it."""
    family_url: str | None = None
    """The page of the same error in other repositories, when there is one."""


def removed_page(source_file: str, removed: Removed, addresses: Addresses, *,
                 site_name: str) -> str:
    """A small ``noindex`` page saying the record left the dataset, and where to go instead
    (the site's search too: ``site_name`` names it)."""
    def link(url: str, text: str) -> str:
        return f'<a href="{_attr(relative_url(source_file, url))}">{text}</a>'

    links = [link(removed.repo_url, f"Other errors of {_text(removed.repo)}")]
    if removed.family_url:
        links.append(link(removed.family_url, "The same error in other repositories"))
    if removed.changes_url:
        links.append(link(removed.changes_url, f"What changed in {_text(removed.version)}"))
    links.append(link(f"{addresses.subtree}/", "The error catalogue"))
    items = "".join(f"<li>{item}</li>\n" for item in links)
    return (f'<!doctype html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
            f"{_VIEWPORT}{_icon(source_file)}<title>Removed: {_text(removed.message)}</title>\n"
            f'<meta name="robots" content="noindex">\n'
            f"{_search(source_file, addresses, site_name)}"
            f"<style>{_STYLE}</style>\n"
            f"</head>\n<body>\n<main>\n"
            f"<h1>Removed in {_text(removed.version)}</h1>\n"
            f"<p><code>{_text(removed.message)}</code></p>\n"
            f"<p>This error of <strong>{_text(removed.repo)}</strong> (record "
            f"<code>{_text(removed.record_id)}</code>) is no longer in the dataset: it was "
            f"removed in version {_text(removed.version)}.</p>\n"
            f"<ul>\n{items}</ul>\n</main>\n</body>\n</html>\n")


FAVICON = "assets/images/favicon.png"
"""The theme's icon, which every site has (Material copies it whatever ``theme.favicon`` says)."""


def _icon(source_file: str) -> str:
    """The site's icon: without one a browser asks for ``/favicon.ico``, which a site has not
    (a 404 in the console of a page that only passes the reader on)."""
    return f'<link rel="icon" href="{_attr(relative_url(source_file, FAVICON))}">\n'


OPENSEARCH = "opensearch.xml"
"""The site's OpenSearch description (``overrides/opensearch.xml``), which MkDocs writes only
when the site's address is known."""


def _search(source_file: str, addresses: Addresses, site_name: str) -> str:
    """The link to the site's OpenSearch description, as every MkDocs page has it
    (``overrides/main.html``): only when the site's address is known (else there is none)."""
    if not addresses.site_url:
        return ""
    return (f'<link rel="search" type="application/opensearchdescription+xml" '
            f'title="{_attr(site_name)}" href="{_attr(relative_url(source_file, OPENSEARCH))}">\n')


_VIEWPORT = '<meta name="viewport" content="width=device-width,initial-scale=1">\n'
_STYLE = ("body{font-family:system-ui,sans-serif;line-height:1.5;margin:0;padding:2rem 1rem;"
          "color:#222;background:#fff}main{max-width:42rem;margin:auto}"
          "code{overflow-wrap:anywhere;background:#f2f2f2;padding:0 .2em}a{color:#3f51b5}"
          "@media (prefers-color-scheme:dark){body{color:#ddd;background:#1e2129}"
          "code{background:#2e303e}a{color:#8c9eff}}")


def _text(value: str) -> str:
    """Record text for an HTML page: cut, escaped."""
    cut = value if len(value) <= TITLE_CHARS else value[:TITLE_CHARS] + "…"
    return html.escape(cut, quote=True)


def _attr(url: str) -> str:
    return html.escape(url, quote=True)


def fnv1a_utf16(text: str) -> int:
    """32-bit FNV-1a of ``text``'s UTF-16 code units: what ``lookup.js``'s ``fnv1a`` computes
    in a browser for any text (the Python one in :mod:`errdocs.lookup.tokens` is for ASCII)."""
    units: Iterable[int]
    if text.isascii():
        units = text.encode("ascii")
    else:
        units = array.array("H", text.encode("utf-16-le"))
        if sys.byteorder == "big":
            units.byteswap()
    value = 0x811C9DC5
    for unit in units:
        value = ((value ^ unit) * 0x01000193) & 0xFFFFFFFF
    return value
