"""The ``errdocs-lastmod`` MkDocs plugin: sitemap ``lastmod`` dates from page content.

MkDocs' sitemap template prints ``page.update_date``; this plugin replaces the build date it
holds by the date the page's content last changed (:mod:`errdocs.site.lastmod`). Enabled in the
project's ``mkdocs.yml``; the offline bundle leaves it out (it has no use for a sitemap and must
not disturb the hosted site's state).
"""

from __future__ import annotations

import hashlib
from datetime import date
from pathlib import Path

from mkdocs.config import config_options
from mkdocs.config.base import Config
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.plugins import BasePlugin
from mkdocs.structure.files import Files
from mkdocs.structure.pages import Page
from mkdocs.utils import get_build_date

from errdocs.site.lastmod import Stamp, parse_date, read_state, stamp, write_state


class LastmodConfig(Config):
    """Options of the plugin in ``mkdocs.yml``."""

    state_file = config_options.Type(str, default=".errdocs/lastmod.json")
    """Where the dates are remembered, relative to ``mkdocs.yml``; keep it between builds."""
    base_state = config_options.Optional(config_options.Type(str))
    """More dates known before this build, read and never written (those in ``state_file``
    win): ``errdocs build`` gives a unit the dates of the pages that moved into it."""


class LastmodPlugin(BasePlugin[LastmodConfig]):
    """Dates each page by the first build that saw its current content."""

    def __init__(self) -> None:
        self._path: Path | None = None
        self._previous: dict[str, Stamp] = {}
        self._current: dict[str, Stamp] = {}
        self._today = date.today()

    def on_config(self, config: MkDocsConfig) -> MkDocsConfig:
        self._path = Path(config.config_file_path or ".").parent / self.config.state_file
        base = self.config.base_state
        self._previous = {**(read_state(Path(base)) if base else {}), **read_state(self._path)}
        self._current = {}
        # The build date as MkDocs sees it, so SOURCE_DATE_EPOCH keeps builds reproducible.
        self._today = date.fromisoformat(get_build_date())
        return config

    def on_page_markdown(self, markdown: str, /, *, page: Page, config: MkDocsConfig,
                         files: Files) -> str:
        ours = page.meta.get("errdocs")
        ours = ours if isinstance(ours, dict) else {}
        digest = ours.get("digest")
        if not isinstance(digest, str) or not digest:
            digest = hashlib.sha256(page.file.content_bytes).hexdigest()[:32]
        key = page.file.src_uri
        now = stamp(self._previous.get(key), digest, today=self._today,
                    content_date=parse_date(ours.get("modified")))
        self._current[key] = now
        page.update_date = now.date
        return markdown

    def on_post_build(self, *, config: MkDocsConfig) -> None:
        if self._path is None:
            return
        # A unit of a sharded build renders only its pages whose inputs changed; the others
        # keep their HTML, so they keep their dates too (not only what was rendered now).
        scope = getattr(config.plugins.get("errdocs-unit"), "pages", None)
        kept = {k: v for k, v in self._previous.items()
                if isinstance(scope, frozenset) and k in scope and k not in self._current}
        write_state(self._path, {**kept, **self._current})
