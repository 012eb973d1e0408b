"""Hold a unit's converted pages compressed until their templates are rendered.

MkDocs converts every page of a build before it renders any template (plugins may look at any
page in between), so a unit build holds the HTML and the Markdown of all its pages at once.
They are large: a record page's HTML and Markdown hold characters past U+00FF ('›', '·'), so
CPython keeps them at 2 bytes a character, 67 MB of the 106 MB a worker grew by while
converting a unit of 1,294 record pages (5,000 records; more for a hub unit's listings).

Once a page is converted and every plugin's ``on_page_content`` has run, :func:`hold` gives it a
class whose ``content`` and ``markdown`` are kept zlib-compressed (level 1) and read back,
exactly, by whatever reads them: the theme's templates, plugins, MkDocs itself (a page's title
reads its ``markdown``). A record page's HTML string of 32 KB is held in 3.7 KB (0.15 ms to
compress and read back), its Markdown's 15 KB in 2.7 KB (0.11 ms); a hub unit's listings are
mostly Markdown (3,215 pages held 75.7 MB of it UTF-8-encoded at 310,000 records). The few
texts read last are kept read (a template reads ``content`` twice, the title ``markdown``
each time).
"""

from __future__ import annotations

import zlib
from collections import OrderedDict
from typing import Any

from mkdocs.structure.pages import Page

_KEPT = 4
"""Texts kept read back (a page's own and a few the template looks at beside it)."""
_recent: OrderedDict[tuple[int, str], tuple[Page, str]] = OrderedDict()
"""(page id, attribute) to (the page, kept alive so its id stays its own; its text read
back), the most recent last."""
_classes: dict[type, type] = {}
"""A page class to its holding subclass (MkDocs' ``Page`` or ProperDocs')."""


class _Held:
    """A page attribute kept compressed: set compresses, get reads back."""

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    def __get__(self, page: Any, owner: type | None = None) -> Any:
        return self if page is None else _read(page, self.name)

    def __set__(self, page: Any, value: str | None) -> None:
        _write(page, self.name, value)


class HeldPage:
    """What a held page's class adds to its own: ``content`` and ``markdown`` compressed."""

    content = _Held()
    markdown = _Held()


def hold(page: Page) -> None:
    """Keep ``page``'s content and Markdown compressed from now on (reads are unchanged)."""
    if isinstance(page, HeldPage):
        return
    values = page.__dict__
    content, markdown = values.pop("content", None), values.pop("markdown", None)
    page.__class__ = _held_class(type(page))
    page.content, page.markdown = content, markdown


def forget() -> None:
    """Drop the texts kept read back (a unit build ended)."""
    _recent.clear()


def _held_class(cls: type) -> type:
    found = _classes.get(cls)
    if found is None:
        found = _classes[cls] = type(cls.__name__, (HeldPage, cls), {"__module__": __name__})
    return found


def _read(page: Any, name: str) -> str | None:
    key = (id(page), name)
    found = _recent.get(key)  # its entry holds the page, so no other page has taken its id
    if found is not None:
        _recent.move_to_end(key)
        return found[1]
    packed = page.__dict__.get("_held_" + name)
    if packed is None:
        return None
    # surrogatepass: a record's text may hold a lone surrogate; it comes back as it went in
    text: str = zlib.decompress(packed).decode("utf-8", "surrogatepass")
    _recent[key] = (page, text)
    if len(_recent) > _KEPT:
        _recent.popitem(last=False)
    return text


def _write(page: Any, name: str, value: str | None) -> None:
    _recent.pop((id(page), name), None)
    page.__dict__["_held_" + name] = (
        None if value is None else zlib.compress(value.encode("utf-8", "surrogatepass"), 1))
