"""The hand-written pages of the nav that the search box finds beside the records' words
(:mod:`errdocs.search.searchbox`)."""

from __future__ import annotations

import re
from pathlib import PurePosixPath

from errdocs.plugins.unit import nav_paths
from errdocs.project import Settings
from errdocs.search.searchbox import HandPage
from errdocs.units.build import base_config

_H1 = re.compile(r"^# +(.+?)\s*#*\s*$", re.MULTILINE)


def hand_pages(settings: Settings) -> list[HandPage]:
    """The hand-written pages of the nav the search box finds (those that exist)."""
    nav = nav_paths(base_config(settings.config_file).get("nav") or [])  # type: ignore[arg-type]
    hand = [hand_page(settings, path) for path in nav
            if not path.startswith(f"{settings.subtree}/") and path.endswith(".md")]
    return [p for p in hand if p is not None]


def hand_page(settings: Settings, path: str) -> HandPage | None:
    """The hand-written page ``path`` (relative to docs_dir), or None when it is missing."""
    try:
        text = (settings.docs_dir / path).read_text("utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    heading = _H1.search(text)
    page = PurePosixPath(path).with_suffix("")
    if base_config(settings.config_file).get("use_directory_urls") is False:  # pages are files
        return HandPage(f"{page}.html", heading.group(1) if heading else page.name, text)
    parts = page.parts[:-1] if page.name == "index" else page.parts
    url = "".join(f"{part}/" for part in parts)
    return HandPage(url, heading.group(1) if heading else page.name, text)
