"""The one path every command takes, each as far as it needs:

read → validate → catalogue → data files → plan → units → assemble.

- ``check`` reads and validates, streaming, and stops (:func:`check`);
- ``generate`` goes up to the units' Markdown: the whole generated tree and the data files,
  which plain ``mkdocs build`` turns into the site's pages (:func:`generate`);
- ``build`` and ``merge`` go all the way (:func:`build`, :mod:`errdocs.build` holds the steps);
- ``serve`` serves at once, builds (the root unit first: pages come as their units finish,
  see :mod:`errdocs.site.preview`), and on a change of an input, a docs file, the config or
  the theme builds again, which rebuilds only the units concerned (:class:`Preview`);
- ``lookup`` indexes what the build's scan keeps of each record and reads a record again by
  its offset, as units do (:func:`open_lookup_index`, :func:`record_of`).

The CLI is a thin shell over these; tests call them directly.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from errdocs.build import ShardedReport, generate_tree
from errdocs.build import build_sharded as build
from errdocs.catalog.model import build_catalog
from errdocs.catalog.scan import Scan, read_records, scan
from errdocs.catalog.texts import LightTexts
from errdocs.errors import ErrdocsError, os_failure
from errdocs.lookup import LookupIndex, build_index, store
from errdocs.lookup import memo as lookup_memo
from errdocs.project import Settings
from errdocs.records.problems import Problem, Severity
from errdocs.records.read import iter_files, read
from errdocs.records.record import Record
from errdocs.records.validate import Validator
from errdocs.site.owner import is_ours
from errdocs.site.preview import Served, make_server
from errdocs.units.build import base_config

__all__ = ["Checked", "Opened", "Preview", "build", "check", "generate", "open_lookup_index",
           "record_of"]

generate = generate_tree
"""``errdocs generate``: see :func:`errdocs.build.generate_tree`."""


@dataclass(frozen=True)
class Checked:
    """What validating an input found (no record is kept)."""

    records: int
    """Good records (duplicates merged)."""
    problems: list[Problem]
    """Errors and warnings, in input order."""

    @property
    def errors(self) -> list[Problem]:
        return [p for p in self.problems if p.severity is Severity.ERROR]


def check(paths: Iterable[Path]) -> Checked:
    """Read and validate every record of ``paths``, one at a time, keeping none (the reader
    and validator the build's scan uses, so both accept the same records with the same
    problems)."""
    validator = Validator()
    good = sum(1 for _record in validator.validate_all(read(paths)))
    return Checked(good, validator.problems)


# --- lookup -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Opened:
    """A lookup index ready to use."""

    index: LookupIndex
    """The index; its ``problems`` are only set when it was just built."""
    record_problems: list[Problem]
    """What was wrong with the records, when they were just read (empty from the cache)."""
    cached: bool
    """True when it was read from the cache instead of built."""


def open_lookup_index(paths: Iterable[Path], cache_dir: Path | None,
                      work_dir: Path = Path(".errdocs")) -> Opened:
    """The index of ``paths``: from ``cache_dir`` when it is up to date there, else made from
    the build's scan (whose cache in ``work_dir`` spares parsing records a build validated)
    and saved there. ``cache_dir=None`` always makes it and saves nothing."""
    paths = list(paths)
    if cache_dir is not None:
        file, file_stamp = store.cache_file(paths, cache_dir), store.stamp(paths)
        cached = store.load(file, file_stamp)
        if cached is not None:
            return Opened(cached, [], cached=True)
    with _scanned(paths, work_dir) as found:
        catalog = build_catalog((x.record for x in found.lights),
                                texts=LightTexts(found.lights))
        index = build_index((x.record for x in found.lights), catalog,
                            memo=lookup_memo.load(work_dir))
    if cache_dir is not None:
        store.save(index, file, file_stamp)
    return Opened(index, found.problems, cached=False)


def record_of(paths: Iterable[Path], record_id: str,
              work_dir: Path = Path(".errdocs")) -> Record | None:
    """The whole record ``record_id`` of ``paths``, found by the scan and read again by its
    offset, as units read theirs (``None`` when it is no longer there)."""
    with _scanned(list(paths), work_dir) as found:
        light = found.lights.get(record_id)
        return None if light is None else next(read_records(found.sources, [light]), None)


class _scanned:
    """A scan that reads the catalogue and writes nothing in the work folder (its spool
    files go to a temporary folder): a lookup takes no lock, so it must not write where a
    build does."""

    def __init__(self, paths: list[Path], work_dir: Path) -> None:
        self._paths, self._work = paths, work_dir
        self._spool = tempfile.TemporaryDirectory(prefix="errdocs-lookup-")

    def __enter__(self) -> Scan:
        return scan(self._paths, self._work, spool_dir=Path(self._spool.name), keep=False)

    def __exit__(self, *_exc: object) -> None:
        self._spool.cleanup()


# --- serve --------------------------------------------------------------------------------


class Preview:
    """``errdocs serve``'s builds: the first one whole, then one whenever a watched file
    changed (only what changed is rebuilt, as in any build). What the server answers while
    they run is :attr:`served` (see :mod:`errdocs.site.preview`)."""

    def __init__(self, settings: Settings, paths: Iterable[Path], *, jobs: int,
                 told: Callable[[ShardedReport], None]) -> None:
        self.settings = settings
        self.paths = list(paths)
        self.jobs = jobs
        self.served = Served(settings.site_dir)
        """The site folder once errdocs built it, else the finished units' outputs."""
        self._told = told
        self._seen: tuple[tuple[str, int, int], ...] | None = None
        self.built_once = False
        """True once a build succeeded."""

    def watched(self) -> list[Path]:
        """What a change of rebuilds the site: the inputs, the config, docs_dir (the
        generated tree aside, which builds write) and the theme's custom_dir."""
        found = [*self.paths, self.settings.config_file, self.settings.docs_dir]
        theme = base_config(self.settings.config_file).get("theme")
        if isinstance(theme, dict) and theme.get("custom_dir"):
            found.append(self.settings.project_dir / str(theme["custom_dir"]))
        return [p for p in found if p.exists()]

    def refresh(self) -> ShardedReport | None:
        """Build when a watched file changed since the last build (or there was none);
        ``None`` when nothing changed (a build's own writes in the generated tree do not
        count)."""
        now = self._fingerprint()
        if now == self._seen:
            return None
        self.served.started()
        try:
            report = build(self.settings, self.paths, jobs=self.jobs, show_progress=True,
                           watch=self.served)
        except BaseException as exc:
            self.served.ended(failure_line(exc))
            raise
        self.served.ended()
        self._seen, self.built_once = now, True
        self._told(report)
        return report

    def mount_path(self) -> str:
        """Where the site is served: the path of its ``site_url`` (``/`` without one)."""
        url = self.settings.site_url or str(base_config(self.settings.config_file)
                                            .get("site_url") or "")
        return urlsplit(url).path or "/"

    def _fingerprint(self) -> tuple[tuple[str, int, int], ...]:
        return tuple(_stats(self.watched(), skip=self.settings.out_dir))


def _stats(roots: Iterable[Path], skip: Path) -> Iterator[tuple[str, int, int]]:
    """Path, size and modification time of every file under ``roots``, ``skip`` left out."""
    for root in roots:
        for file in iter_files([root]) if root.suffix in (".jsonl", ".json", ".gz") \
                else _walk(root, skip):
            info = file.stat()
            yield str(file), info.st_size, info.st_mtime_ns


def _walk(root: Path, skip: Path) -> Iterator[Path]:
    if root.is_file():
        yield root
        return
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if Path(folder, d) != skip)
        yield from (Path(folder, f) for f in sorted(files))


def failure_line(exc: BaseException) -> str:
    """The one line a failed build is told by."""
    if isinstance(exc, OSError):
        return os_failure(exc)
    if isinstance(exc, ErrdocsError):
        return exc.line()
    return f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__


def serve(preview: Preview, host: str, port: int,
          say: Callable[[str], None]) -> None:
    """Serve on ``host:port`` with live reload at once, build, and build again on a change,
    until Ctrl+C. While a build runs, pages come from the previous site, else from the units
    it finished (:mod:`errdocs.site.preview`). A failed rebuild is one line and the site
    served stays as it was; a failed first build with no site to serve stops the server
    and raises."""
    failed: list[BaseException] = []

    def rebuild() -> None:
        try:
            preview.refresh()
        except (ErrdocsError, OSError) as exc:
            if not is_ours(preview.settings.site_dir) and not preview.built_once:
                failed.append(exc)  # nothing to serve: stop, as `errdocs build` would
                server.shutdown()
                return
            say(f"Error: {failure_line(exc)}")

    server = make_server(preview.served, rebuild, host, port, preview.mount_path())
    for path in preview.watched():
        server.watch(str(path))
    try:
        server.serve()
    except KeyboardInterrupt:
        pass
    finally:
        server.shutdown()
    if failed:
        raise failed[0]
