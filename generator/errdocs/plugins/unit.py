"""``errdocs-unit``: the MkDocs plugin that makes one unit of a sharded build.

MkDocs would walk the whole ``docs_dir`` (310,000 files); a unit's config points ``docs_dir`` at
an empty folder and this plugin feeds MkDocs the unit's files instead, read from the real docs
folder (named in the unit's page list):

- the pages the unit owns: read, rendered and written;
- the pages in the ``nav``: read for their title only (the nav every page shows must be the
  same in every unit) and not written;
- the pages the unit links to that other units own: registered as excluded files, so MkDocs
  turns links to them into the right relative URLs without a "not found" warning, and never
  reads or writes them.

Only the root unit copies the theme's assets and builds the static templates (``404.html``,
``robots.txt``); every unit builds the ``sitemap.xml`` of its pages, merged afterwards.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Callable, Iterator
from pathlib import Path, PurePath
from typing import Any

import jinja2
from mkdocs.config import config_options as c
from mkdocs.config.base import Config
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.plugins import BasePlugin, event_priority
from mkdocs.structure.files import File, Files, InclusionLevel
from mkdocs.structure.pages import Page

from errdocs.plugins import bodies, converter, held

_H1 = re.compile(r"^# .*$", re.MULTILINE)


class UnitPluginConfig(Config):
    """Options of ``errdocs-unit``."""

    pages = c.Type(str)
    """The unit's page list (JSON), written by errdocs."""


class UnitPlugin(BasePlugin[UnitPluginConfig]):
    """Feeds MkDocs the files of one unit; see the module's docstring."""

    def on_config(self, config: MkDocsConfig) -> MkDocsConfig:
        data = json.loads(Path(self.config.pages).read_text("utf-8"))
        self.docs_dir: str = data["docs_dir"]
        self.owned: set[str] = set(data["owned"])
        self.stubs: frozenset[str] = frozenset(data["stubs"])
        self.root: bool = data["root"]
        self.pages = frozenset(self.owned | set(data.get("kept", ())))
        """Every page of the unit: those built now and those whose earlier HTML is kept."""
        self.cache = jinja2.FileSystemBytecodeCache(_folder(data["template_cache"]))
        converter.start()  # one Markdown converter for the unit's pages
        if data.get("bodies"):  # pages converted before from the same inputs: their body
            bodies.start(Path(data["bodies"]))
        if not self.root:  # 404.html, robots.txt...: once, in the root unit; sitemaps are merged
            config.theme.static_templates.intersection_update({"sitemap.xml"})
        config.theme.get_env = self._env_maker(config.theme.get_env)  # type: ignore[method-assign]
        return config

    def _env_maker(self, make: Callable[[], jinja2.Environment]) -> Callable[[],
                                                                         jinja2.Environment]:
        """The theme's Jinja environment, with compiled templates cached on disk and,
        outside the root unit, without the theme's assets: listing them walks the 14,000
        files of Material's icon set, the largest fixed cost of a small build."""
        def environment() -> jinja2.Environment:
            env = make()
            env.bytecode_cache = self.cache
            if not self.root:
                env.list_templates = lambda *args, **kwargs: []  # type: ignore[method-assign]
            return env

        return environment

    def on_files(self, files: Files, config: MkDocsConfig) -> Files:
        site, urls = config.site_dir, config.use_directory_urls
        chosen = _UnitFiles([f for f in files if self.root],  # the theme's assets (root only)
                            self.stubs, lambda path: File(path, self.docs_dir, site, urls,
                                                          inclusion=InclusionLevel.EXCLUDED))
        for path in sorted(self.owned):
            chosen.append(File(path, self.docs_dir, site, urls))
        for path in nav_paths(config.nav or []):
            if chosen.get_file_from_path(path) is None and Path(self.docs_dir, path).is_file():
                chosen.append(File(path, self.docs_dir, site, urls))
        return chosen

    def on_page_markdown(self, markdown: str, page: Page, **kwargs: Any) -> str:
        if page.file.src_uri in self.owned:
            return markdown
        match = _H1.search(markdown)  # a nav page of another unit: only its title matters
        return match.group(0) if match else ""

    # A page's HTML and Markdown are held compressed (errdocs.plugins.held) once every
    # plugin's on_page_content has run on it: when the next page starts, or all are converted.
    converted: Page | None = None

    def on_pre_page(self, page: Page, config: MkDocsConfig, files: Files) -> Page:
        self._hold_converted()
        return page

    @event_priority(-100)  # the last to see the content: the page is held after it
    def on_page_content(self, html: str, page: Page, **kwargs: Any) -> str:
        self.converted = page
        return html

    def on_env(self, env: jinja2.Environment, config: MkDocsConfig,
               files: Files) -> jinja2.Environment:
        self._hold_converted()
        return env

    def _hold_converted(self) -> None:
        if self.converted is not None:
            held.hold(self.converted)
            self.converted = None

    def on_post_page(self, output: str, page: Page, config: MkDocsConfig) -> str:
        return output if page.file.src_uri in self.owned else ""

    def on_post_build(self, config: MkDocsConfig) -> None:
        bodies.stop()
        converter.stop()
        held.forget()

    def on_build_error(self, error: Exception) -> None:
        bodies.stop(keep=False)
        converter.stop()
        held.forget()
        self.converted = None


class _UnitFiles(Files):
    """The unit's files, and the pages it links to that other units own (*stubs*): an
    excluded file for such a page is made when a link asks for it, not registered up front.
    At 310,000 records a hub unit linked to 159,110 stubs and the root to 103,283; a
    registered stub, once MkDocs has made its URLs, took ~1.1 KB (traced: 100,000 made as
    ``on_files`` made them), held to the unit's end in the worker."""

    def __init__(self, files: list[File], stubs: frozenset[str],
                 make: Callable[[str], File]) -> None:
        super().__init__(files)
        self._stubs = stubs
        # A page may link one record more than once: the last few made serve the repeats.
        self._make = functools.lru_cache(maxsize=_STUBS_KEPT)(make)

    def get_file_from_path(self, path: str) -> File | None:
        found = super().get_file_from_path(path)
        if found is None:
            uri = PurePath(path).as_posix()
            if uri in self._stubs:
                return self._make(uri)
        return found

    def __contains__(self, path: str) -> bool:
        return self.get_file_from_path(path) is not None


_STUBS_KEPT = 4096
"""Stub files a unit keeps once made (see :class:`_UnitFiles`)."""


def _folder(path: str) -> str:
    Path(path).mkdir(parents=True, exist_ok=True)
    return path


def nav_paths(nav: list[Any] | dict[str, Any] | str) -> Iterator[str]:
    """Every Markdown path named in the ``nav`` config."""
    if isinstance(nav, str):
        if nav.endswith(".md") and "://" not in nav:
            yield nav.lstrip("/")
    elif isinstance(nav, dict):
        for value in nav.values():
            yield from nav_paths(value)
    elif isinstance(nav, list):
        for item in nav:
            yield from nav_paths(item)

