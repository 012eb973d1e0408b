"""The offline bundle: a zip of the site, for all records or a subset, that opens from disk.

The bundle of every record is the hosted site itself: ``errdocs bundle`` runs ``errdocs build``
(nothing to do when the site is current) and zips the assembled site, rewriting on the way the
links MkDocs and errdocs wrote to folders (``href="../x/"``) into links to their pages
(``../x/index.html``), which a browser opens from ``file://``. So a bundle after a build costs
the zip alone, and the bundle's pages, search box and paste box are the hosted site's: their
data are scripts (``loader.js``) that load from disk, and their scripts name ``index.html``
when the page was opened from ``file://``. Left out: what has no use from disk (the sitemap,
``robots.txt``, the OpenSearch description, the ``<link>`` tags to the host's addresses, its
OpenSearch description and its feed, the 404 page, which only a server shows, Material's lunr
files, source maps).

A subset (``--repo``, ``--tag``) is built apart, under the offline profile
(:data:`errdocs.project.OFFLINE`: its own folder ``.errdocs/offline/`` with its units, its copy
of the hand-written pages and its site; no ``site_url``), so the
hosted site is never touched by it; it goes through the same zip.

The zip is written file by file (a page read, rewritten and compressed at a time; other files
copied in chunks: nothing grows with the number of records) under a temporary name, renamed
into place at the end: a failed or killed bundle leaves the previous zip. Entries are sorted
and dated 1980-01-01, so the same input makes the same zip.

The bundle carries the site's exports too (``/id/<id>/``, ``/api/``, the feed).
"""

from __future__ import annotations

import os
import re
import shutil
import zipfile
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path

from errdocs.build import ShardedReport, build_sharded
from errdocs.catalog.history import DEFAULT_KEEP
from errdocs.catalog.lights import Lights
from errdocs.catalog.model import GroupKind, group_key, shown_tags
from errdocs.errors import BuildFailed, ErrdocsError, naming
from errdocs.pages.permalinks import ID_FOLDER
from errdocs.pages.write import MANIFEST, TEMPORARY, read_manifest
from errdocs.project import OFFLINE, Settings
from errdocs.records.record import Record
from errdocs.site.lock import project_lock
from errdocs.site.owner import MARKER
from errdocs.site.zipwriter import ZipTooLarge, ZipWriter

LEFT_OUT = frozenset({MARKER, "sitemap.xml", "sitemap.xml.gz", "robots.txt", "opensearch.xml"})
"""Files of the built site of no use from disk (besides source maps, ``*.map``): errdocs' marker
of its site folders, the sitemap, what search engines and the address bar read."""
LEFT_OUT_PAGES = frozenset({"404.html"})
"""At the site's top: the 404 page, which only a server shows (its links are absolute)."""
LEFT_OUT_FOLDERS = ("assets/javascripts/lunr/", "assets/javascripts/workers/")
"""Material's lunr search (language support, worker), which the theme ships and nothing in
the bundle loads: its search is errdocs' own."""
ZIP_DATE = (1980, 1, 1, 0, 0, 0)
"""Every entry gets this date, so the same input makes the same zip."""
LINK = re.compile(rb'\s(?:href|src|action)="([^"]*)"')
"""A link in an attribute MkDocs, Material or errdocs wrote (record text is escaped: its
quotes can only be in text, never in a tag; :class:`_TagState` checks)."""
REFRESH = re.compile(rb'(<meta http-equiv="refresh" content="\d+; url=)([^"]*)"')
"""The redirect of a permalink page (``/id/<id>/``)."""
NOT_OFFLINE = re.compile(rb'<link rel="(?:canonical|search|alternate)"[^<>]*>\n?')
"""Links to the host's addresses, its OpenSearch description and its feed (for which
Material's script fetches ``sitemap.xml``, which a page from disk may not; ``<`` in record text
is escaped, so this only matches tags)."""
SCHEME = re.compile(rb"^[a-zA-Z][a-zA-Z0-9+.-]*:")


class BundleError(ErrdocsError):
    """The bundle could not be made; nothing was written."""

    consequence = "nothing was written"


@dataclass(frozen=True)
class Selection:
    """Which records go into the bundle: all of them when both lists are empty."""

    repos: tuple[str, ...] = ()
    """Keep records of these repositories (``owner/name``, any case)."""
    tags: tuple[str, ...] = ()
    """Keep records with one of these tags (grouped the way the tag pages group them)."""

    def matches(self, record: Record) -> bool:
        """Of a chosen repository (if any were chosen) and with a chosen tag (if any were)."""
        repo_ok = not self.repos or group_key(GroupKind.REPO, record.repo) in self._repo_keys
        return repo_ok and (not self.tags or bool(self._tag_keys & _tag_keys(record)))

    def unmatched(self, records: Iterable[Record]) -> list[str]:
        """The ``--repo`` and ``--tag`` values that no record has (most likely typos)."""
        repos: set[str] = set()
        tags: set[str] = set()
        for record in records:
            repos.add(group_key(GroupKind.REPO, record.repo))
            tags |= _tag_keys(record)
        return ([f"--repo {v}" for v in self.repos if group_key(GroupKind.REPO, v) not in repos]
                + [f"--tag {v}" for v in self.tags if group_key(GroupKind.TAG, v) not in tags])

    def choose(self, lights: Lights) -> Lights:
        """The records of the selection (a build's ``choose``); BundleError when a value
        matches no record, or no record is left."""
        if missing := self.unmatched(x.record for x in lights):
            raise BundleError(f"no record matches {', '.join(missing)}")
        chosen = lights.where(lambda x: self.matches(x.record))
        if not chosen:
            raise BundleError("no record to put in the bundle")
        return chosen

    @property
    def _repo_keys(self) -> set[str]:
        return {group_key(GroupKind.REPO, v) for v in self.repos}

    @property
    def _tag_keys(self) -> set[str]:
        return {group_key(GroupKind.TAG, v) for v in self.tags}


@dataclass(frozen=True)
class BundleReport:
    """What went into the bundle."""

    path: Path
    """The zip file."""
    records: int
    """Record pages in it."""
    pages: int
    """HTML pages in it (records, index pages, hand-written pages; not the 404 page or the
    ``/id/`` redirects)."""
    size: int
    """Size of the zip in bytes."""
    folder: str
    """The folder inside the zip that holds ``index.html``."""
    build: ShardedReport
    """What the build of its site did (problems in the input, units built and reused)."""


def offline_settings(settings: Settings) -> Settings:
    """The project's settings under the offline profile: its own docs copy and site, in its
    own work folder."""
    home = replace(settings, profile=OFFLINE).work_dir.parent  # beside its work folder:
    # a site folder may not be inside one (site.owner)
    return replace(settings, docs_dir=home / "docs", site_dir=home / "site", site_url=None,
                   profile=OFFLINE)


def make_bundle(settings: Settings, inputs: Iterable[Path], output: Path, *,
                selection: Selection = Selection(), jobs: int = 1,
                show_progress: bool = False, full_text: bool = False,
                keep_versions: int = DEFAULT_KEEP) -> BundleReport:
    """Build the site of the records of ``inputs`` chosen by ``selection`` (every record: the
    hosted site, as ``errdocs build`` with ``full_text`` and ``keep_versions`` does; a subset:
    its own, under the offline profile) and zip it into ``output``."""
    if os.path.lexists(output) and not (output.is_file() and zipfile.is_zipfile(output)):
        # -o names a file errdocs replaces: only ever an earlier zip, never a user's file
        raise BundleError(f"{output}: exists and is not a zip file; give another --output, "
                          "e.g. -o dist/errdocs-bundle.zip")
    subset = bool(selection.repos or selection.tags)
    site = offline_settings(settings) if subset else settings
    try:
        if subset:
            # The project's lock too: the hand-written pages are read while no build writes
            # the generated tree beside them.
            with project_lock(settings.work_dir):
                sync_hand_written(settings.docs_dir, site.docs_dir, settings.subtree)
                report = build_sharded(site, inputs, jobs=jobs, show_progress=show_progress,
                                       choose=selection.choose, reset_history=True,
                                       keep_versions=1)
        else:
            report = build_sharded(site, inputs, jobs=jobs, show_progress=show_progress,
                                   full_text=full_text, keep_versions=keep_versions)
    except BuildFailed as exc:  # said as the bundle's: the zip is what was not written
        raise BundleError(str(exc)) from exc
    folder = _folder_name(output)
    with project_lock(site.work_dir):  # no build replaces the site while it is read
        pages = write_zip(site.site_dir, output, folder)
    return BundleReport(output, report.records, pages, output.stat().st_size, folder, report)


def sync_hand_written(docs_dir: Path, target: Path, subtree: str) -> None:
    """Make ``target`` hold the files of ``docs_dir`` that errdocs did not generate: copy those
    new or changed, remove those gone (never the pages the offline build generated there)."""
    generated = _generated(docs_dir, subtree)
    made = _generated(target, subtree)
    wanted: set[str] = set()
    for path in _files(docs_dir):
        if path in generated:
            continue
        wanted.add(path)
        source, copy = docs_dir / path, target / path
        if not copy.is_file() or _differ(source, copy):
            copy.parent.mkdir(parents=True, exist_ok=True)
            partial = copy.with_name(f"{TEMPORARY}{copy.name}")
            shutil.copyfile(source, partial)
            partial.replace(copy)
    for path in list(_files(target)) if target.is_dir() else []:
        if path not in wanted and path not in made:
            (target / path).unlink()


def _generated(docs_dir: Path, subtree: str) -> set[str]:
    """Docs-relative paths errdocs generated in ``docs_dir`` (its manifest, and the manifest)."""
    return {f"{subtree}/{p}" for p in read_manifest(docs_dir / subtree)} | {
        f"{subtree}/{MANIFEST}"}


def _files(folder: Path) -> Iterator[str]:
    """Relative paths of the files under ``folder``, in sorted order, folder by folder."""
    for top, dirs, names in os.walk(folder):
        dirs.sort()
        relative = Path(top).relative_to(folder).as_posix()
        prefix = "" if relative == "." else f"{relative}/"
        yield from (f"{prefix}{n}" for n in sorted(names))


def _differ(a: Path, b: Path) -> bool:
    return a.stat().st_size != b.stat().st_size or a.read_bytes() != b.read_bytes()


def write_zip(site: Path, output: Path, folder: str) -> int:
    """Zip ``site`` under ``folder/`` into ``output``, one file at a time, its pages' links
    made to open from disk (:func:`offline_page`), atomically (under a temporary name, renamed
    at the end); return its HTML page count."""
    output.parent.mkdir(parents=True, exist_ok=True)
    partial = output.with_name(f".{output.name}.partial")
    pages = 0
    try:
        with naming(output), open(partial, "wb") as file, ZipWriter(
                file, ZIP_DATE, output.parent) as archive:
            for path in _files(site):
                if _left_out(path):
                    continue
                if path.endswith(".html"):
                    archive.add_bytes(f"{folder}/{path}",
                                      offline_page((site / path).read_bytes()))
                    pages += not _not_a_page(path)
                else:
                    archive.add_file(f"{folder}/{path}", site / path)
        partial.replace(output)
    except BaseException as exc:
        partial.unlink(missing_ok=True)
        if isinstance(exc, ZipTooLarge):  # said as the bundle's one line
            raise BundleError(f"{exc}: a bundle holds files up to 2 GiB") from exc
        raise
    return pages


def offline_page(html: bytes) -> bytes:
    """``html`` with its links to folders made links to their ``index.html`` (fragments and
    queries kept), and without its links to the host's addresses."""
    html = NOT_OFFLINE.sub(b"", html)
    html = REFRESH.sub(lambda m: m[1] + offline_link(m[2]) + b'"', html)
    return LINK.sub(_TagState(html).rewrite, html)


def offline_link(url: bytes) -> bytes:
    """``../x/`` as ``../x/index.html``, ``..`` as ``../index.html`` (with the fragment and
    query kept); any other link as it is: absolute ones, files, fragments of the page."""
    if not url or url.startswith((b"/", b"#", b"?")) or SCHEME.match(url):
        return url
    cut = min((i for i in (url.find(b"#"), url.find(b"?")) if i >= 0), default=len(url))
    path, rest = url[:cut], url[cut:]
    if path.endswith(b"/"):
        return path + b"index.html" + rest
    if path in (b".", b"..") or path.endswith((b"/.", b"/..")):
        return path + b"/index.html" + rest
    return url


class _TagState:
    """Rewrites the links of one page that are inside a tag: record text may hold
    ``href="../x/"`` (its quotes are not escaped in text, its ``<`` and ``>`` are), which
    stays as it is. Matches come in order; each stretch between two is scanned once."""

    def __init__(self, html: bytes) -> None:
        self.html = html
        self.at = 0
        """Where the scan got to."""
        self.in_tag = False
        """Whether :attr:`at` is inside a tag."""

    def rewrite(self, match: re.Match[bytes]) -> bytes:
        start = match.start()
        opened = self.html.rfind(b"<", self.at, start)
        closed = self.html.rfind(b">", self.at, start)
        if opened >= 0 or closed >= 0:
            self.in_tag = opened > closed
        self.at = start
        if not self.in_tag:
            return match[0]
        return match[0][:match.start(1) - start] + offline_link(match[1]) + b'"'


def _left_out(path: str) -> bool:
    return (path.endswith(".map") or path.rsplit("/", 1)[-1] in LEFT_OUT
            or path in LEFT_OUT_PAGES or path.startswith(LEFT_OUT_FOLDERS))


def _not_a_page(path: str) -> bool:
    """The 404 page and the ``/id/`` redirects are not counted as pages."""
    return path == "404.html" or path.startswith(f"{ID_FOLDER}/")


def _tag_keys(record: Record) -> set[str]:
    return {group_key(GroupKind.TAG, t) for t in shown_tags(record)}


def _folder_name(output: Path) -> str:
    """``errdocs-bundle`` for ``errdocs-bundle.zip``: unzipping makes one folder, not a heap."""
    stem = output.name.removesuffix(".zip") or "errdocs"
    return "".join(c if c.isalnum() or c in "._-" else "-" for c in stem).strip(".") or "errdocs"
