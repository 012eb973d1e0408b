"""One Markdown converter for every page of a unit build (``errdocs.plugins.converter``)."""

from __future__ import annotations

import functools
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import markdown
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from markdown.extensions.toc import TocExtension
from mkdocs.config import load_config
from mkdocs.structure import pages
from pygments.formatters.html import HtmlFormatter
from pygments.lexers import get_lexer_by_name
from pygments.styles import get_all_styles
from pygments.util import ClassNotFound
from pymdownx import highlight

from errdocs.plugins import converter

from .conftest import ROOT, SAMPLE
from .helpers import site_tree
from .sites import build_project, copy_project

HOSTILE = ROOT / "tests" / "fixtures" / "hostile.jsonl"

# Python-Markdown extensions that keep a document's state between its steps (references,
# footnotes, abbreviations, heading ids, stashed HTML, tabs): a converter that kept any past
# reset() would show it in the next document.
STATEFUL = ["footnotes", "abbr", "attr_list", "def_list", "admonition"]

_FRAGMENTS = [
    "# Title\n", "## Same\n", "## Same\n", "[link][ref]\n", "[ref]: https://a.example/\n",
    "Text[^1] and[^n].\n", "[^1]: A note.\n", "[^n]: Another.\n", "*[HTML]: Hyper Text\n",
    "HTML here.\n", "Term\n:   Definition\n", "!!! note\n    Admonished.\n",
    "=== \"One\"\n\n    Tab one.\n\n=== \"Two\"\n\n    Tab two.\n",
    "``` python linenums=\"3\" hl_lines=\"2\"\n\nx = 1\ny = 2\n```\n",
    "<div markdown=\"1\">*inside*</div>\n", "<details><summary>S</summary>\nbody\n</details>\n",
    "Inline `code` and <b>html</b> {: .c }\n", "1. one\n1. two\n", "- a\n- b\n",
]


@pytest.fixture
def unit_build() -> Iterator[None]:
    converter.start()
    yield
    converter.stop()


@functools.cache  # read once for the Hypothesis examples
def _project_extensions() -> tuple[list[Any], dict[str, Any]]:
    config = load_config(str(ROOT / "mkdocs.yml"))
    return list(config["markdown_extensions"]) + STATEFUL, dict(config["mdx_configs"])


@settings(max_examples=60, deadline=None)
@given(st.lists(st.lists(st.sampled_from(_FRAGMENTS), max_size=8).map("\n".join),
                min_size=2, max_size=6))
def test_documents_converted_one_after_another_are_those_converted_alone(
        documents: list[str]) -> None:
    extensions, configs = _project_extensions()
    converter.start()
    try:
        shared = [(converter.shared(extensions, configs).convert(d), d) for d in documents]
        made = converter._SHARED.md
    finally:
        converter.stop()
    alone = [(markdown.Markdown(extensions=extensions, extension_configs=configs).convert(d), d)
              for d in documents]
    assert made is not None  # every document went through the one converter
    assert shared == alone


def test_a_unit_build_shares_one_converter_for_the_same_settings_only(
        unit_build: None) -> None:
    extensions, configs = _project_extensions()
    first = converter.shared(extensions, configs)
    assert converter.shared(extensions, configs) is first
    other = converter.shared(extensions, {**configs, "toc": {"permalink": False}})
    assert other is not first
    assert converter.shared(extensions, {**configs, "toc": {"permalink": False}}) is other


def test_unknown_extensions_and_other_builds_get_a_converter_a_page(unit_build: None) -> None:
    # An extension errdocs does not know may keep a page's state past reset(): MkDocs' way.
    assert converter._resets("toc") and converter._resets("pymdownx.superfences")
    assert not converter._resets("somebody.else")
    instance = [TocExtension()]  # an instance: its state is its own
    assert not converter._resets(instance[0])
    assert converter.shared(instance, {}) is not converter.shared(instance, {})
    converter.stop()  # outside a unit build
    assert converter.shared(["toc"], {}) is not converter.shared(["toc"], {})


def test_the_built_site_is_the_one_mkdocs_and_pygments_own_ways_give(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    data = tmp_path / "data.jsonl"
    data.write_bytes(SAMPLE.read_bytes() + HOSTILE.read_bytes())
    made: list[object] = []
    original = markdown.Markdown.__init__

    def counted(self: markdown.Markdown, *args: Any, **kwargs: Any) -> None:
        made.append(self)
        original(self, *args, **kwargs)

    monkeypatch.setattr(markdown.Markdown, "__init__", counted)
    _, report = build_project(copy_project(tmp_path / "shared"), data)
    shared = site_tree(tmp_path / "shared" / "site")
    converters = len(made)
    # and the other without any of the module's changes: MkDocs' and Pygments' own ways
    monkeypatch.setattr(converter, "_install", lambda: None)
    monkeypatch.setattr(converter, "_resets", lambda extension: False)
    monkeypatch.setattr(pages, "markdown", markdown)
    monkeypatch.setattr(HtmlFormatter, "_create_stylesheet",
                        HtmlFormatter._create_stylesheet.__wrapped__)  # type: ignore[attr-defined]
    monkeypatch.setattr(highlight, "get_lexer_by_name", get_lexer_by_name)
    made.clear()
    build_project(copy_project(tmp_path / "alone"), data)
    one_a_page = len(made)
    assert shared == site_tree(tmp_path / "alone" / "site")
    # the shared build made about one converter a unit, the other one a page
    assert converters <= report.built + 2 < one_a_page, (converters, one_a_page)


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(sorted(get_all_styles())), st.sampled_from(["", "x-", "hl "]))
def test_a_kept_stylesheet_is_the_one_pygments_makes(style: str, prefix: str) -> None:
    converter._install()
    kept = HtmlFormatter(style=style, classprefix=prefix)
    again = HtmlFormatter(style=style, classprefix=prefix)
    fresh = HtmlFormatter(style=style, classprefix=prefix)
    HtmlFormatter._create_stylesheet.__wrapped__(fresh)  # type: ignore[attr-defined]
    assert (kept.ttype2class, kept.class2style) == (fresh.ttype2class, fresh.class2style)  # type: ignore[attr-defined]
    assert (again.ttype2class, again.class2style) == (fresh.ttype2class, fresh.class2style)  # type: ignore[attr-defined]


@settings(max_examples=80, deadline=None)
@given(st.one_of(st.sampled_from(["python", "Python", "PY", "text", "go", "rust", "cpp", "c++",
                                  "ts", "javascript", "shell", "console", "", "cuda"]),
                 st.text(max_size=8)))
def test_a_lexer_found_by_its_kept_class_is_the_one_pygments_finds(name: str) -> None:
    def found(find: Any) -> tuple[str, object]:
        try:
            lexer = find(name, stripnl=False)
        except ClassNotFound:
            return ("not found", None)
        return (type(lexer).__qualname__, lexer.options)

    assert found(converter._lexer_by_name) == found(get_lexer_by_name)
    assert found(converter._lexer_by_name) == found(get_lexer_by_name)  # the kept class
