"""The theme overrides stay what they claim to be."""

from __future__ import annotations

import re
from pathlib import Path

import material
import yaml

from errdocs.pipeline import check, pages_for

from . import sites

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
    _, pages = pages_for(check([sites.SAMPLE]).records)
    keys = set()
    for page in (p for p in pages if p.path.endswith(".md")):  # not the lookup data files
        front = yaml.safe_load(page.content.split("---\n")[1])
        keys |= set(front)
    assert keys == {"errdocs", "hide"}
