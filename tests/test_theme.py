"""The theme overrides stay what they claim to be."""

from __future__ import annotations

import re
from pathlib import Path

import material
import yaml

from errdocs.pages.render import HOME_FRAGMENT

from . import sites
from .helpers import pages_for, read_all

MATERIAL = Path(material.__file__).parent / "templates"


def test_header_override_is_materials_plus_the_pagefind_search_only() -> None:
    """overrides/partials/header.html copies Material's; after a Material upgrade this fails
    until the copy is refreshed (keep the block marked "errdocs")."""
    ours = (sites.ROOT / "overrides" / "partials" / "header.html").read_text("utf-8")
    theirs = (MATERIAL / "partials" / "header.html").read_text("utf-8")
    without_note = re.sub(r"\A\{#-.*?-#\}", "", ours, count=1, flags=re.S)
    without_block = re.sub(r"\n    \{% else %\}\n      \{#- errdocs:.*?(?=\n    \{% endif %\})",
                           "", without_note, count=1, flags=re.S)
    assert without_block != without_note  # the errdocs block was there to remove
    assert without_block == re.sub(r"\A\{#-.*?-#\}", "", theirs, count=1, flags=re.S)


def test_record_text_never_reaches_materials_unescaped_keys() -> None:
    """Material prints page.meta.title and page.meta.description as they are: generated pages
    keep everything under ``errdocs:`` (and Material's ``hide``)."""
    _, pages = pages_for(read_all([sites.SAMPLE]).records)
    keys = set()
    # Not the lookup data files, nor the home page's summary (no front matter: it goes into
    # the hand-written home page).
    for page in (p for p in pages if p.path.endswith(".md") and p.path != HOME_FRAGMENT):
        front = yaml.safe_load(page.content.split("---\n")[1])
        keys |= set(front)
    assert keys == {"errdocs", "hide"}


ICONS = sites.ROOT / "overrides" / ".icons" / "errdocs"


def _config_icons() -> set[str]:
    """The icon names mkdocs.yml gives Material (theme.icon and the palette toggles)."""
    theme = yaml.safe_load((sites.ROOT / "mkdocs.yml").read_text("utf-8"))["theme"]
    return set(theme["icon"].values()) | {p["toggle"]["icon"] for p in theme["palette"]}


def test_icons_drawn_by_the_stylesheet_are_materials_own() -> None:
    """Each overrides/.icons/errdocs/NAME.svg names the Material icon it stands for; the
    stylesheet draws exactly that icon's file, so a Material upgrade that redraws one fails
    here until errdocs.css is refreshed."""
    css = (sites.ROOT / "overrides" / "assets" / "stylesheets" / "errdocs.css").read_text()
    drawn = dict(re.findall(r"\.errdocs-icon-([a-z]+) \{\n  --errdocs-icon: "
                            r"url\('data:image/svg\+xml;charset=utf-8,(<svg.*?</svg>)'\);", css))
    templates = sorted(ICONS.glob("*.svg"))
    assert {f"errdocs/{t.stem}" for t in templates} == _config_icons()
    assert set(drawn) == {t.stem for t in templates}
    for template in templates:
        text = template.read_text("utf-8")
        (icon,) = re.findall(r"\A\{#- (material/[a-z0-9-]+),", text)
        assert text.endswith(f'<svg viewBox="0 0 24 24" class="errdocs-icon-{template.stem}">'
                             "</svg>\n")
        assert drawn[template.stem] == (MATERIAL / ".icons" / f"{icon}.svg").read_text().strip()
