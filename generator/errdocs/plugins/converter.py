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
"""

from __future__ import annotations

import types
from collections.abc import Mapping, Sequence
from typing import Any

import markdown
from mkdocs.structure import pages

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
    ``mkdocs.structure.pages`` or, with ``--engine properdocs``, ProperDocs' own)."""
    if getattr(pages, "markdown", None) is markdown:
        pages.markdown = _MarkdownModule()
