"""Stage 6, build: run MkDocs on the project and replace the site only when the build succeeds."""

from __future__ import annotations

import logging
import shutil
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import click
from mkdocs.commands.build import build as mkdocs_build
from mkdocs.config import load_config
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import MkDocsException

from .search_index import SearchIndexError, index_site
from .settings import Settings


class BuildError(Exception):
    """MkDocs failed; the previous site is untouched."""


@dataclass(frozen=True)
class BuildReport:
    """What a build made."""

    site_dir: Path
    """Where the site is now."""
    searchable: int | None
    """Pages in the Pagefind index; None when the site uses Material's own search instead."""


def build_site(settings: Settings, *, strict: bool = False) -> BuildReport:
    """Build into a temporary folder beside the site, index it for search, then swap it in."""
    target = settings.site_dir
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{target.name}-new-", dir=target.parent))
    try:
        config = run_mkdocs(settings.config_file, staging, strict=strict,
                            site_url=settings.site_url)
        searchable = None
        if uses_pagefind(config):
            try:
                searchable = index_site(staging).pages
            except SearchIndexError as exc:
                raise BuildError(str(exc)) from exc
        swap_in(staging, target)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return BuildReport(target, searchable)


def uses_pagefind(config: MkDocsConfig) -> bool:
    """The hosted site searches with Pagefind; a site with Material's search plugin (the offline
    bundle) searches with that instead."""
    return "material/search" not in config.plugins and "search" not in config.plugins


def run_mkdocs(config_file: Path, site_dir: Path, *, strict: bool,
               adjust: Callable[[MkDocsConfig], None] | None = None,
               **overrides: Any) -> MkDocsConfig:
    """``mkdocs build`` of ``config_file`` into ``site_dir``.

    ``overrides`` replace top-level config keys (as ``load_config`` does); ``adjust`` may change
    the loaded config further before the build starts.
    """
    _show_mkdocs_warnings()
    try:
        config = load_config(config_file=str(config_file), site_dir=str(site_dir),
                             strict=strict, **overrides)
        if adjust is not None:
            adjust(config)
        config.plugins.on_startup(command="build", dirty=False)
        try:
            mkdocs_build(config)
        finally:
            config.plugins.on_shutdown()
    except (MkDocsException, SystemExit) as exc:
        raise BuildError(f"MkDocs build failed: {exc}") from exc
    return config


def swap_in(staging: Path, target: Path) -> None:
    """Replace ``target`` with ``staging`` with two renames; the old site is removed after."""
    old = target.with_name(f".{target.name}-old")
    shutil.rmtree(old, ignore_errors=True)
    if target.exists():
        target.rename(old)
    staging.rename(target)
    shutil.rmtree(old, ignore_errors=True)


class _ClickHandler(logging.Handler):
    """Sends MkDocs' log records to the current stderr (click's, so tests capture them)."""

    def emit(self, record: logging.LogRecord) -> None:
        click.echo(self.format(record), err=True)


def _show_mkdocs_warnings() -> None:
    """MkDocs reports through logging; show its warnings the way ``mkdocs build`` does."""
    logger = logging.getLogger("mkdocs")
    if not any(isinstance(h, _ClickHandler) for h in logger.handlers):
        handler = _ClickHandler(logging.WARNING)
        handler.setFormatter(logging.Formatter("%(levelname)-7s -  %(message)s"))
        logger.addHandler(handler)
        logger.setLevel(logging.INFO)
