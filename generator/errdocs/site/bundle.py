"""The offline bundle: a zip of the site, for all records or a subset, that opens from disk.

The bundle is ``errdocs build``'s site under the offline profile (:data:`errdocs.project.OFFLINE`):
the same scan, plan, units and merge, with links to ``.html`` files, no ``site_url`` and no
sitemap dates. Its search is the hosted site's search box and paste box: their data are
scripts (``loader.js``), which a page opened from ``file://`` can load; there is no lunr index.

The profile has its own folder in the work folder (``.errdocs/offline/``: its units, its copy of
the hand-written pages with its generated tree, and its assembled site), so the hosted site's
``docs/errors/`` and ``site/`` are never touched, a build and a bundle never make each other's
units stale, and a second bundle of the same data rebuilds nothing. The zip is written from the
assembled site file by file (nothing held in memory, no second copy of the site) under a
temporary name, renamed into place at the end: a failed or killed bundle leaves the previous zip.

The bundle carries the site's exports too (``/id/<id>/``, ``/api/``), for its records.
"""

from __future__ import annotations

import os
import shutil
import zipfile
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path

from errdocs.build import ShardedReport, build_sharded
from errdocs.catalog.model import GroupKind, group_key, shown_tags
from errdocs.catalog.scan import Light
from errdocs.errors import BuildFailed, ErrdocsError, naming
from errdocs.pages.permalinks import ID_FOLDER
from errdocs.pages.write import MANIFEST, TEMPORARY, read_manifest
from errdocs.project import OFFLINE, Settings
from errdocs.records.record import Record
from errdocs.site.lock import project_lock
from errdocs.site.owner import MARKER

LEFT_OUT = frozenset({MARKER, "sitemap.xml", "sitemap.xml.gz"})
"""Files of the built site not worth mailing (besides source maps, ``*.map``): errdocs' marker
of its site folders, the sitemap (of a site with no address)."""
LEFT_OUT_FOLDERS = ("assets/javascripts/lunr/", "assets/javascripts/workers/")
"""Material's lunr search (language support, worker), which the theme ships and nothing in
the bundle loads: its search is errdocs' own."""
ZIP_DATE = (1980, 1, 1, 0, 0, 0)
"""Every entry gets this date, so the same input makes the same zip."""
COPY_CHUNK = 1 << 20
"""Bytes read at a time from a file going into the zip."""


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

    def choose(self, lights: list[Light]) -> list[Light]:
        """The records of the selection (a build's ``choose``); BundleError when a value
        matches no record, or no record is left."""
        if missing := self.unmatched(x.record for x in lights):
            raise BundleError(f"no record matches {', '.join(missing)}")
        chosen = [x for x in lights if self.matches(x.record)]
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


def select(records: Iterable[Record], selection: Selection) -> list[Record]:
    """The records of ``selection``, in input order."""
    return [r for r in records if selection.matches(r)]


def offline_settings(settings: Settings) -> Settings:
    """The project's settings under the offline profile: its own docs copy and site, in its
    own work folder."""
    home = replace(settings, profile=OFFLINE).work_dir.parent  # beside its work folder:
    # a site folder may not be inside one (site.owner)
    return replace(settings, docs_dir=home / "docs", site_dir=home / "site", site_url=None,
                   profile=OFFLINE)


def make_bundle(settings: Settings, inputs: Iterable[Path], output: Path, *,
                selection: Selection = Selection(), jobs: int = 1,
                show_progress: bool = False) -> BundleReport:
    """Build the site of the records of ``inputs`` chosen by ``selection`` under the offline
    profile and zip it into ``output``."""
    if os.path.lexists(output) and not (output.is_file() and zipfile.is_zipfile(output)):
        # -o names a file errdocs replaces: only ever an earlier zip, never a user's file
        raise BundleError(f"{output}: exists and is not a zip file; give another --output, "
                          "e.g. -o dist/errdocs-bundle.zip")
    offline = offline_settings(settings)
    # The project's lock too: the hand-written pages are read while no build writes the
    # generated tree beside them.
    with project_lock(settings.work_dir):
        sync_hand_written(settings.docs_dir, offline.docs_dir, settings.subtree)
        try:
            report = build_sharded(offline, inputs, jobs=jobs, show_progress=show_progress,
                                   choose=selection.choose, reset_history=True,
                                   keep_versions=1)
        except BuildFailed as exc:  # said as the bundle's: the zip is what was not written
            raise BundleError(str(exc)) from exc
        folder = _folder_name(output)
        pages = write_zip(offline.site_dir, output, folder)
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
    """Zip ``site`` under ``folder/`` into ``output``, one file at a time (atomically: under a
    temporary name, renamed at the end); return its HTML page count."""
    output.parent.mkdir(parents=True, exist_ok=True)
    partial = output.with_name(f".{output.name}.partial")
    pages = 0
    try:
        with naming(output), zipfile.ZipFile(partial, "w", zipfile.ZIP_DEFLATED) as archive:
            for path in _files(site):
                if _left_out(path):
                    continue
                _add(archive, site / path, f"{folder}/{path}")
                pages += path.endswith(".html") and not _not_a_page(path)
        partial.replace(output)
    except BaseException:
        partial.unlink(missing_ok=True)
        raise
    return pages


def _add(archive: zipfile.ZipFile, path: Path, name: str) -> None:
    """Stream one file into ``archive``: read and compressed (zlib's default level) a chunk
    at a time."""
    info = zipfile.ZipInfo(name, ZIP_DATE)
    info.compress_type = zipfile.ZIP_DEFLATED
    info.external_attr = 0o644 << 16
    info.file_size = path.stat().st_size
    with open(path, "rb") as source, archive.open(info, "w") as target:
        shutil.copyfileobj(source, target, COPY_CHUNK)


def _left_out(path: str) -> bool:
    return (path.endswith(".map") or path.rsplit("/", 1)[-1] in LEFT_OUT
            or path.startswith(LEFT_OUT_FOLDERS))


def _not_a_page(path: str) -> bool:
    """The 404 page and the ``/id/`` redirects are not counted as pages."""
    return path == "404.html" or path.startswith(f"{ID_FOLDER}/")


def _tag_keys(record: Record) -> set[str]:
    return {group_key(GroupKind.TAG, t) for t in shown_tags(record)}


def _folder_name(output: Path) -> str:
    """``errdocs-bundle`` for ``errdocs-bundle.zip``: unzipping makes one folder, not a heap."""
    stem = output.name.removesuffix(".zip") or "errdocs"
    return "".join(c if c.isalnum() or c in "._-" else "-" for c in stem).strip(".") or "errdocs"
