"""Stage 6, build: run MkDocs on the project and replace the site only when the build succeeds."""

from __future__ import annotations

import logging
import shutil
import sys
import tempfile
from pathlib import Path
from typing import TextIO

from mkdocs.commands.build import build as mkdocs_build
from mkdocs.config import load_config
from mkdocs.exceptions import MkDocsException

from .settings import Settings


class BuildError(Exception):
    """MkDocs failed; the previous site is untouched."""


def build_site(settings: Settings, *, strict: bool = False) -> None:
    """Build into a temporary folder beside the site, then swap it in."""
    target = settings.site_dir
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{target.name}-new-", dir=target.parent))
    try:
        _run_mkdocs(settings.config_file, staging, strict=strict)
        swap_in(staging, target)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise


def _run_mkdocs(config_file: Path, site_dir: Path, *, strict: bool) -> None:
    _show_mkdocs_warnings()
    try:
        config = load_config(config_file=str(config_file), site_dir=str(site_dir), strict=strict)
        config.plugins.on_startup(command="build", dirty=False)
        try:
            mkdocs_build(config)
        finally:
            config.plugins.on_shutdown()
    except (MkDocsException, SystemExit) as exc:
        raise BuildError(f"MkDocs build failed: {exc}") from exc


def swap_in(staging: Path, target: Path) -> None:
    """Replace ``target`` with ``staging`` with two renames; the old site is removed after."""
    old = target.with_name(f".{target.name}-old")
    shutil.rmtree(old, ignore_errors=True)
    if target.exists():
        target.rename(old)
    staging.rename(target)
    shutil.rmtree(old, ignore_errors=True)


class _StderrHandler(logging.StreamHandler):  # type: ignore[type-arg]
    """Writes to whatever ``sys.stderr`` is at the time, not the one it was created with: the
    handler outlives a command (tests run many in one process, each with its own stderr)."""

    @property  # type: ignore[override]
    def stream(self) -> TextIO:
        return sys.stderr

    @stream.setter
    def stream(self, _value: object) -> None:
        """Ignored: the stream is always the current ``sys.stderr``."""


def _show_mkdocs_warnings() -> None:
    """MkDocs reports through logging; show its warnings the way ``mkdocs build`` does."""
    logger = logging.getLogger("mkdocs")
    if not any(isinstance(h, _StderrHandler) for h in logger.handlers):
        handler = _StderrHandler()
        handler.setFormatter(logging.Formatter("%(levelname)-7s -  %(message)s"))
        handler.setLevel(logging.WARNING)
        logger.addHandler(handler)
        logger.setLevel(logging.INFO)
