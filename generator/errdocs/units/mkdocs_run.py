"""Stage 6, build: run MkDocs on the project and replace the site only when the build succeeds.

This is the one place MkDocs builds (every unit, the bundle): with ``--engine properdocs`` the
``mkdocs`` modules imported here are ProperDocs' (see :mod:`errdocs.units.engine`).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click
from mkdocs.commands.build import build as mkdocs_build
from mkdocs.config import load_config
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import MkDocsException

from errdocs.errors import BuildFailed
from errdocs.units import engine


class BuildError(BuildFailed):
    """MkDocs failed; the previous site is untouched."""


def run_mkdocs(config_file: Path, site_dir: Path | None, *, strict: bool,
               adjust: Callable[[MkDocsConfig], None] | None = None,
               **overrides: Any) -> MkDocsConfig:
    """``mkdocs build`` of ``config_file`` into ``site_dir``.

    ``site_dir`` None keeps the config's own. ``overrides`` replace top-level config keys (as
    ``load_config`` does); ``adjust`` may change the loaded config further before the build.
    """
    handler = _show_mkdocs_warnings()
    handler.held = []
    failed_on_os = False
    try:
        if site_dir is not None:
            overrides["site_dir"] = str(site_dir)
        config = load_config(config_file=str(config_file), strict=strict, **overrides)
        if adjust is not None:
            adjust(config)
        config.plugins.on_startup(command="build", dirty=False)
        try:
            mkdocs_build(config)
        finally:
            config.plugins.on_shutdown()
    except (MkDocsException, SystemExit) as exc:
        raise BuildError(f"{engine.display()} build failed: {exc}") from exc
    except OSError:
        failed_on_os = True
        raise
    finally:
        held, handler.held = handler.held, None
        for line in [] if failed_on_os else held:
            click.echo(line, err=True)
    return config


class _ClickHandler(logging.Handler):
    """Sends MkDocs' log records to the current stderr (click's, so tests capture them).

    While :attr:`held` is a list, errors go there instead: MkDocs logs the error of a page it
    fails to build and then raises it, and an operating-system failure gets one line of its
    own from the CLI (the path, what to do), so :func:`run_mkdocs` drops them in that case.
    """

    held: list[str] | None = None

    def emit(self, record: logging.LogRecord) -> None:
        line = self.format(record)
        if record.levelno >= logging.ERROR and self.held is not None:
            self.held.append(line)
        else:
            click.echo(line, err=True)


def _show_mkdocs_warnings() -> _ClickHandler:
    """MkDocs reports through logging; show its warnings the way ``mkdocs build`` does.

    ProperDocs logs under ``properdocs`` and counts the warnings there for ``--strict``; the
    plugins written for MkDocs (Material's, errdocs') still log under ``mkdocs``, so that
    logger is made a child of ProperDocs' (as the ``properdocs`` command does).
    """
    logger = logging.getLogger(engine.active())
    if logger.name != engine.MKDOCS:
        legacy = logging.getLogger(engine.MKDOCS)
        legacy.parent, legacy.propagate = logger, True
        legacy.setLevel(logging.NOTSET)
    handler = next((h for h in logger.handlers if isinstance(h, _ClickHandler)), None)
    if handler is None:
        handler = _ClickHandler(logging.WARNING)
        handler.setFormatter(logging.Formatter("%(levelname)-7s -  %(message)s"))
        logger.addHandler(handler)
    # Only warnings are shown (and counted by --strict); INFO records would cost per page.
    logger.setLevel(logging.WARNING)
    return handler
