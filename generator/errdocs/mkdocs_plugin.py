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

Only the root unit copies the theme's assets and builds ``404.html``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jinja2
from mkdocs.config import config_options as c
from mkdocs.config.base import Config
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.plugins import BasePlugin
from mkdocs.structure.files import File, Files, InclusionLevel
from mkdocs.structure.pages import Page

_H1 = re.compile(r"^# .*$", re.MULTILINE)


class _MemoryBytecodeCache(jinja2.BytecodeCache):
    """Compiled theme templates shared by the units one worker process builds."""

    def __init__(self) -> None:
        self._store: dict[str, bytes] = {}

    def load_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        if bucket.key in self._store:
            bucket.bytecode_from_string(self._store[bucket.key])

    def dump_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        self._store[bucket.key] = bucket.bytecode_to_string()


_BYTECODE = _MemoryBytecodeCache()


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
        self.stubs: list[str] = data["stubs"]
        self.root: bool = data["root"]
        if not self.root:
            config.theme.static_templates.discard("404.html")
        return config

    def on_files(self, files: Files, config: MkDocsConfig) -> Files:
        site, urls = config.site_dir, config.use_directory_urls
        chosen = Files([f for f in files if self.root and not _in(f, self.docs_dir)])
        for path in sorted(self.owned):
            chosen.append(File(path, self.docs_dir, site, urls))
        for path in _nav_paths(config.nav or []):
            if chosen.get_file_from_path(path) is None and Path(self.docs_dir, path).is_file():
                chosen.append(File(path, self.docs_dir, site, urls))
        for path in self.stubs:
            if chosen.get_file_from_path(path) is None:
                chosen.append(File(path, self.docs_dir, site, urls,
                                   inclusion=InclusionLevel.EXCLUDED))
        return chosen

    def on_page_markdown(self, markdown: str, page: Page, **kwargs: Any) -> str:
        if page.file.src_uri in self.owned:
            return markdown
        match = _H1.search(markdown)  # a nav page of another unit: only its title matters
        return match.group(0) if match else ""

    def on_env(self, env: jinja2.Environment, **kwargs: Any) -> jinja2.Environment:
        env.bytecode_cache = _BYTECODE
        return env

    def on_post_page(self, output: str, page: Page, config: MkDocsConfig) -> str:
        return output if page.file.src_uri in self.owned else ""


def _in(file: File, docs_dir: str) -> bool:
    return file.src_dir is not None and Path(file.src_dir) == Path(docs_dir)


def _nav_paths(nav: list[Any] | dict[str, Any] | str) -> Iterator[str]:
    """Every Markdown path named in the ``nav`` config."""
    if isinstance(nav, str):
        if nav.endswith(".md") and "://" not in nav:
            yield nav.lstrip("/")
    elif isinstance(nav, dict):
        for value in nav.values():
            yield from _nav_paths(value)
    elif isinstance(nav, list):
        for item in nav:
            yield from _nav_paths(item)
