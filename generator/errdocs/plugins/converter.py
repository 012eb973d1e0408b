"""One Markdown converter for every page of a unit build.

MkDocs makes a new ``markdown.Markdown`` for each page it converts, loading and configuring
every extension again: ~0.75 ms a page, ~7% of a record page's time in a unit. Python-Markdown
converts any number of documents with one instance, ``reset()`` between them, and MkDocs
registers its per-page processors (links, anchors, title, raw HTML) under fixed names, which
replaces the previous page's. So while a unit builds, the instance made for the first page is
given back, reset, for the next ones with the same extensions and settings.

Only extensions known to reset their state are shared this way (Python-Markdown's own,
pymdown-extensions, Material's); with any other, every page gets its own instance, as MkDocs
does, since an extension that keeps a page's state past ``reset()`` would leak it into the
next page.

Two things every code block does again are done once a process: Pygments' HTML formatter
builds its table of CSS classes from every token type of the style (~0.12 ms a block, 8% of a
unit's time: pymdownx.highlight makes a formatter a block), though the table depends on the
style and the class prefix only; and finding a lexer by its name walks Pygments' list of
lexers (and its plugins, for a name none has: ~0.08 ms a record page). Both are kept by what
they depend on; the HTML is the same.
"""

from __future__ import annotations

import functools
import types
from collections.abc import Mapping, Sequence
from typing import Any

import markdown
from mkdocs.structure import pages
from pygments.formatters.html import HtmlFormatter
from pygments.lexer import Lexer
from pygments.lexers import find_lexer_class_by_name
from pygments.util import ClassNotFound

_RESETTING = ("markdown.extensions.", "pymdownx.", "material.extensions.")
"""Extension modules that reset their state (``Extension.reset``) or keep none."""

_BUILTIN = frozenset({"abbr", "admonition", "attr_list", "codehilite", "def_list", "extra",
                      "fenced_code", "footnotes", "legacy_attrs", "legacy_em", "md_in_html",
                      "meta", "nl2br", "sane_lists", "smarty", "tables", "toc", "wikilinks"})
"""Python-Markdown's extensions by their short names."""


class _Shared:
    """The converter of the unit being built, with what it was made from."""

    active = False
    extensions: list[Any] | None = None
    configs: dict[str, Any] | None = None
    md: markdown.Markdown | None = None


_SHARED = _Shared()


def start() -> None:
    """A unit build starts in this process: its pages may share one converter."""
    _install()
    _forget()
    _SHARED.active = True


def stop() -> None:
    """The unit build ended: its converter goes."""
    _forget()


def _forget() -> None:
    _SHARED.active = False
    _SHARED.extensions = _SHARED.configs = _SHARED.md = None


def shared(extensions: Sequence[Any], extension_configs: Mapping[str, Any]) -> markdown.Markdown:
    """A converter for these extensions: the unit's, reset, when one was made for the same
    ones; a new one otherwise (and outside a unit build, or with an extension not known to
    reset)."""
    held = _SHARED.md
    if held is not None and _SHARED.extensions == list(extensions) \
            and _SHARED.configs == dict(extension_configs):
        return held.reset()
    md = markdown.Markdown(extensions=extensions, extension_configs=extension_configs)
    if _SHARED.active and all(_resets(e) for e in extensions):
        _SHARED.extensions, _SHARED.configs = list(extensions), dict(extension_configs)
        _SHARED.md = md
    return md


def _resets(extension: object) -> bool:
    if not isinstance(extension, str):  # an Extension instance: its state is its own
        return False
    return extension in _BUILTIN or extension.startswith(_RESETTING)


class _MarkdownModule(types.ModuleType):
    """The ``markdown`` module as the engine's page module sees it: ``Markdown(...)`` is
    :func:`shared`; everything else is the module itself."""

    def __init__(self) -> None:
        super().__init__("markdown")

    def __getattr__(self, name: str) -> Any:
        return getattr(markdown, name)

    @staticmethod
    def Markdown(**kwargs: Any) -> markdown.Markdown:  # the name MkDocs calls
        if set(kwargs) != {"extensions", "extension_configs"}:
            return markdown.Markdown(**kwargs)
        return shared(kwargs["extensions"], kwargs["extension_configs"])


def _install() -> None:
    """Have the engine's ``Page.render`` take its converter from :func:`shared`: the
    ``markdown`` name of its module is pointed at a stand-in (the engine's module is
    ``mkdocs.structure.pages`` or, with ``--engine properdocs``, ProperDocs' own). Keep
    Pygments' stylesheets and lexer classes (see the module's docstring)."""
    if getattr(pages, "markdown", None) is markdown:
        pages.markdown = _MarkdownModule()
    _share_stylesheets()
    try:
        from pymdownx import highlight
    except ImportError:  # not installed: nothing highlights with it
        return
    highlight.get_lexer_by_name = _lexer_by_name


def _share_stylesheets() -> None:
    """Have Pygments' HTML formatters of one style and class prefix share one stylesheet
    table (a copy each: nothing changes it after it is made, but that is the formatter's own
    business)."""
    formatter: Any = HtmlFormatter  # its private names are not in Pygments' stubs
    if getattr(formatter, "_errdocs_shared", False):
        return
    create = formatter._create_stylesheet
    tables: dict[tuple[object, str], tuple[dict[Any, str], dict[str, Any]]] = {}

    @functools.wraps(create)
    def create_once(self: Any) -> None:
        key = (self.style, self.classprefix)
        if key not in tables:
            create(self)
            tables[key] = (self.ttype2class, self.class2style)
        ttype2class, class2style = tables[key]
        self.ttype2class, self.class2style = dict(ttype2class), dict(class2style)

    formatter._create_stylesheet = create_once
    formatter._errdocs_shared = True


_LEXERS: dict[str, type[Lexer] | None] = {}
"""Lexer class by the name asked for (lower case), ``None`` for a name no lexer has."""


def _lexer_by_name(alias: str, **options: Any) -> Lexer:
    """``pygments.lexers.get_lexer_by_name``, with the class found kept by its name."""
    if not alias:
        raise ClassNotFound(f"no lexer for alias {alias!r} found")
    name = alias.lower()
    if name not in _LEXERS:
        try:
            _LEXERS[name] = find_lexer_class_by_name(alias)
        except ClassNotFound:
            _LEXERS[name] = None
    found = _LEXERS[name]
    if found is None:
        raise ClassNotFound(f"no lexer for alias {alias!r} found")
    return found(**options)
