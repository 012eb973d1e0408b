"""The offline bundle: a zip of the site, for all records or a subset, that opens from disk.

The bundle is built from the project's own ``mkdocs.yml`` with a few overrides (``load_config``
overrides, so relative paths in it still resolve against the project) in a temporary folder:
hand-written pages are copied there and the chosen records generated next to them, so the hosted
site's ``docs/errors/`` and ``site/`` are never touched. Overrides:

- Material's ``offline`` plugin (``use_directory_urls: false``, search index inlined as a script)
  and its ``search`` plugin: Pagefind cannot run from ``file://``, lunr can;
- a local copy of the ``iframe-worker`` shim (Web Workers do not start from ``file://``) instead
  of the CDN copy the offline plugin would add, so nothing is fetched from the network; the
  shim replaces ``window.Worker`` with a worker that runs on the page, so a script before it
  keeps the browser's own for the paste box, whose worker (a Blob URL) starts from disk and
  must run off the page (see ``lookup.js``);
- no ``site_url``: canonical links would point at ``.html`` addresses the hosted site lacks;
- no ``errdocs-lastmod``: the bundle has no use for sitemap dates and must not move the hosted
  site's.

The bundle carries the site's exports too (``/id/<id>/``, ``/api/``), for its records; not the
history's pages (what changed, removed records, the feed), which belong to the hosted site.
"""

from __future__ import annotations

import os
import shutil
import zipfile
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from mkdocs.config.defaults import MkDocsConfig

from errdocs.catalog.model import Catalog, GroupKind, group_key, shown_tags
from errdocs.errors import ErrdocsError, naming
from errdocs.pages.exports import every_export
from errdocs.pages.permalinks import ID_FOLDER, Addresses
from errdocs.pages.write import MANIFEST, read_manifest, write_pages
from errdocs.pipeline import pages_for
from errdocs.project import Settings, read_config_data
from errdocs.records.record import Record
from errdocs.units.mkdocs_run import run_mkdocs
from errdocs.units.scratch import scratch_folder

SHIM = Path(__file__).parent / "vendor" / "iframe-worker-shim.js"
SHIM_URL = "assets/javascripts/iframe-worker-shim.js"
"""Where the shim goes in the bundle; the name must contain ``iframe-worker`` (see above)."""
KEEP_WORKER_URL = "assets/javascripts/errdocs-worker.js"
KEEP_WORKER = ("/* errdocs: the browser's own Worker, before iframe-worker-shim.js replaces it\n"
               "   with one that runs on the page (lookup.js matches off the page). */\n"
               "window.errdocsWorker = window.Worker;\n")
"""The script that keeps it, loaded just before the shim."""
DROPPED_PLUGINS = frozenset({"errdocs-lastmod", "search", "material/search", "offline",
                             "material/offline"})
LEFT_OUT = ("*.map",)
"""Files of the built site not worth mailing: source maps of Material's scripts and styles."""
LUNR = "assets/javascripts/lunr"
"""Material's lunr language support: 1 MB, of which an English-only search needs nothing."""
ZIP_DATE = (1980, 1, 1, 0, 0, 0)
"""Every entry gets this date, so the same input makes the same zip."""


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

    def unmatched(self, records: list[Record]) -> list[str]:
        """The ``--repo`` and ``--tag`` values that no record has (most likely typos)."""
        repos = {group_key(GroupKind.REPO, r.repo) for r in records}
        tags = set().union(*(_tag_keys(r) for r in records)) if records else set()
        return ([f"--repo {v}" for v in self.repos if group_key(GroupKind.REPO, v) not in repos]
                + [f"--tag {v}" for v in self.tags if group_key(GroupKind.TAG, v) not in tags])

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


def select(records: Iterable[Record], selection: Selection) -> list[Record]:
    """The records of ``selection``, in input order."""
    return [r for r in records if selection.matches(r)]


def make_bundle(records: list[Record], settings: Settings, output: Path) -> BundleReport:
    """Build the site of ``records`` for offline use and zip it into ``output``."""
    if not records:
        raise BundleError("no record to put in the bundle")
    if os.path.lexists(output) and not (output.is_file() and zipfile.is_zipfile(output)):
        # -o names a file errdocs replaces: only ever an earlier zip, never a user's file
        raise BundleError(f"{output}: exists and is not a zip file; give another --output, "
                          "e.g. -o dist/errdocs-bundle.zip")
    # In the work folder, not the system's: a killed bundle's folder is removed by the next
    # bundle or build (scratch.remove_dead).
    with scratch_folder(settings.work_dir) as tmp:
        docs, site = tmp / "docs", tmp / "site"
        copy_hand_written(settings.docs_dir, docs, settings.subtree)
        catalog, pages = pages_for(records)
        write_pages(docs / settings.subtree, pages)
        _write_exports(docs, records, catalog, settings.subtree)
        (docs / SHIM_URL).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(SHIM, docs / SHIM_URL)
        (docs / KEEP_WORKER_URL).write_text(KEEP_WORKER, "utf-8")
        config = run_mkdocs(
            settings.config_file, site, strict=False, adjust=_use_local_shim,
            docs_dir=str(docs), use_directory_urls=False, site_url="",
            plugins=lunr_plugins(read_config_data(settings.config_file).get("plugins"),
                                 offline=True))
        _drop_unused_lunr(site, _search_languages(config))
        folder = _folder_name(output)
        page_count = write_zip(site, output, folder)
    return BundleReport(output, len(records), page_count, output.stat().st_size, folder)


def _write_exports(docs: Path, records: list[Record], catalog: Catalog, subtree: str) -> None:
    """The site's exports for the bundle's records (:func:`every_export`; ``/id/<id>/`` pages
    link ``.html`` pages, as the bundle's are), as MkDocs copies them (static files)."""
    for file in every_export(records, catalog, Addresses(subtree, directory_urls=False)):
        target = docs / file.path
        if target.exists():
            raise BundleError(f"docs/{file.path}: errdocs writes the bundle's "
                              f"/{file.path.split('/')[0]}/; move this file elsewhere")
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(file.content, "utf-8")


def lunr_plugins(configured: object, *, offline: bool) -> list[object]:
    """The project's plugins without the hosted-only ones, plus Material's search (and its
    offline plugin when ``offline``): for the bundle, and for ``errdocs serve``, whose
    live-reload builds have no Pagefind index."""
    if isinstance(configured, dict):
        entries: list[object] = [{k: v} if v else k for k, v in configured.items()]
    else:
        entries = list(configured) if isinstance(configured, list) else []
    kept = [e for e in entries if _plugin_name(e) not in DROPPED_PLUGINS]
    return [*kept, "search", *(["offline"] if offline else [])]


def copy_hand_written(docs_dir: Path, target: Path, subtree: str) -> None:
    """Copy ``docs_dir`` to ``target`` without the pages errdocs generated there."""
    generated = {f"{subtree}/{p}" for p in read_manifest(docs_dir / subtree)}
    generated.add(f"{subtree}/{MANIFEST}")

    def ignore(directory: str, names: list[str]) -> set[str]:
        relative = PurePosixPath(Path(directory).relative_to(docs_dir).as_posix())
        return {n for n in names if (relative / n).as_posix().removeprefix("./") in generated}

    shutil.copytree(docs_dir, target, ignore=ignore)


def write_zip(site: Path, output: Path, folder: str) -> int:
    """Zip ``site`` under ``folder/`` into ``output`` (atomically); return its HTML page count."""
    files = sorted(p for p in site.rglob("*") if p.is_file()
                   and not any(p.match(pattern) for pattern in LEFT_OUT))
    output.parent.mkdir(parents=True, exist_ok=True)
    partial = output.with_name(f".{output.name}.partial")
    try:
        with naming(output), zipfile.ZipFile(partial, "w", zipfile.ZIP_DEFLATED,
                                             compresslevel=9) as archive:
            for path in files:
                info = zipfile.ZipInfo(f"{folder}/{path.relative_to(site).as_posix()}", ZIP_DATE)
                info.compress_type = zipfile.ZIP_DEFLATED
                info.external_attr = 0o644 << 16
                archive.writestr(info, path.read_bytes())
        partial.replace(output)
    except BaseException:
        partial.unlink(missing_ok=True)
        raise
    return sum(1 for p in files if p.suffix == ".html" and not _not_a_page(
        p.relative_to(site).as_posix()))


def _not_a_page(path: str) -> bool:
    """The 404 page and the ``/id/`` redirects are not counted as pages."""
    return path == "404.html" or path.startswith(f"{ID_FOLDER}/")


def lunr_files(languages: list[str]) -> set[str]:
    """The files under ``assets/javascripts/lunr/`` that Material's search worker loads for
    ``languages`` (mirrors its ``setupSearchLanguages``)."""
    needed = {f"min/lunr.{lang}.min.js" for lang in languages if lang != "en"}
    needed |= {"tinyseg.js" for lang in languages if lang == "ja"}
    needed |= {"wordcut.js" for lang in languages if lang in ("hi", "th")}
    if len(languages) > 1:
        needed.add("min/lunr.multi.min.js")
    if needed:
        needed.add("min/lunr.stemmer.support.min.js")
    return needed


def _drop_unused_lunr(site: Path, languages: list[str]) -> None:
    folder = site / LUNR
    if "*" in languages:
        return
    keep = lunr_files(languages)
    for path in sorted(folder.rglob("*")) if folder.is_dir() else []:
        if path.is_file() and path.relative_to(folder).as_posix() not in keep:
            path.unlink()


def _search_languages(config: MkDocsConfig) -> list[str]:
    search = config.plugins.get("material/search")
    languages = getattr(getattr(search, "config", None), "lang", None)
    # Unknown: keep every language file rather than break the search.
    return list(languages) if languages else ["*"]


def _use_local_shim(config: MkDocsConfig) -> None:
    """Name the bundled shim as a polyfill before the offline plugin looks for one (after the
    script that keeps the browser's Worker)."""
    config.extra["polyfills"] = [KEEP_WORKER_URL, SHIM_URL]


def _plugin_name(entry: object) -> str:
    if isinstance(entry, dict) and len(entry) == 1:
        return str(next(iter(entry)))
    return str(entry)


def _tag_keys(record: Record) -> set[str]:
    return {group_key(GroupKind.TAG, t) for t in shown_tags(record)}


def _folder_name(output: Path) -> str:
    """``errdocs-bundle`` for ``errdocs-bundle.zip``: unzipping makes one folder, not a heap."""
    stem = output.name.removesuffix(".zip") or "errdocs"
    return "".join(c if c.isalnum() or c in "._-" else "-" for c in stem).strip(".") or "errdocs"
