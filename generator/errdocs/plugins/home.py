"""``errdocs-home``: the catalogue's summary on the site's home page.

The home page is hand-written (errdocs never rewrites it). Where it holds the line
``<!-- errdocs-catalogue -->``, this plugin puts the summary errdocs wrote into the generated
subtree (:data:`errdocs.pages.render.HOME_FRAGMENT`: counts, the largest categories and
repositories, the records analysed last), escaped as every generated page is. Without the
line, or before the first ``errdocs generate``, the page is left as it is.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from mkdocs.config import config_options as c
from mkdocs.config.base import Config
from mkdocs.plugins import BasePlugin
from mkdocs.structure.pages import Page

from errdocs.pages.render import HOME_FRAGMENT
from errdocs.project import GENERATED_SUBTREE

MARKER = "<!-- errdocs-catalogue -->"
"""The line of the home page the summary replaces."""


class HomePluginConfig(Config):
    """Options of ``errdocs-home``."""

    subtree = c.Type(str, default=GENERATED_SUBTREE)
    """The generated subtree's folder, beside the home page."""


class HomePlugin(BasePlugin[HomePluginConfig]):
    """Replaces the home page's marker line with the catalogue's summary."""

    def on_page_markdown(self, markdown: str, page: Page, **kwargs: Any) -> str:
        if not page.is_homepage or MARKER not in markdown or not page.file.abs_src_path:
            return markdown
        # The page's own folder, not docs_dir: a sharded build's units read pages from the
        # real docs folder while their docs_dir is an empty one.
        summary = Path(page.file.abs_src_path).parent / self.config.subtree / HOME_FRAGMENT
        try:
            text = summary.read_text("utf-8")
        except FileNotFoundError:
            return markdown
        return "\n".join(text if line.strip() == MARKER else line
                         for line in markdown.split("\n"))
