"""Record text becomes Markdown that renders as exactly that text."""

from __future__ import annotations

from html.parser import HTMLParser

import markdown
import pytest

from errdocs.pages import escape

EXTENSIONS = ["toc", "attr_list", "tables", "md_in_html", "pymdownx.superfences",
              "pymdownx.inlinehilite", "pymdownx.tabbed", "pymdownx.highlight"]


def _html(md_text: str) -> str:
    return markdown.markdown(md_text, extensions=EXTENSIONS)


class _Visible(HTMLParser):
    """What a browser shows: the elements and the decoded text."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[str] = []
        self.text = ""

    def handle_starttag(self, tag: str, attrs: list) -> None:
        self.tags.append(tag if not attrs else f"{tag}{attrs}")

    def handle_data(self, data: str) -> None:
        self.text += data


def _visible(md_text: str) -> tuple[list[str], str]:
    parser = _Visible()
    parser.feed(_html(md_text))
    return parser.tags, parser.text


@pytest.mark.parametrize("value", [
    "<script>alert(1)</script>",
    "<img src=x onerror=alert(1)>",
    "*a* _b_ **c** ~~d~~ ==e== ^^f^^",
    "[x](javascript:alert(1))",
    "![img](http://x/y.png)",
    "# not a heading",
    "- not a list",
    "1. not a list",
    "+ not a list",
    "> not a quote",
    "a | b | c",
    "x { onclick=alert(1) }",
    "&amp; &lt; &#60;",
    "https://example.com/a_b <https://example.com>",
    "{{ jinja }} {% tag %}",
    "back\\slash\\",
    "=== \"tab\"",
    "!!! note",
    ":smile: *[HTML]: abbr",
])
def test_text_renders_literally(value: str) -> None:
    assert _visible(escape.text(value)) == (["p"], value)


def test_inline_code_is_kept_and_escaped() -> None:
    assert _html(escape.inline("call `f(<x>)` now")) == "<p>call <code>f(&lt;x&gt;)</code> now</p>"


def test_code_span_with_backticks_inside() -> None:
    assert _html(escape.code_span("a `b` c")) == "<p><code>a `b` c</code></p>"
    assert _html(escape.code_span("`")) == "<p><code>`</code></p>"


@pytest.mark.parametrize("value", ["#!js alert(1)", ":::python x", "<![x", "<!DOCTYPE x [",
                                   "<script>", "*a* _b_ [l](javascript:1)", "&amp;", "\\"])
def test_code_span_shows_its_text_and_nothing_else(value: str) -> None:
    assert _visible(escape.code_span(value)) == (["p", "code"], value)
    assert "<!" not in escape.code_span(value)  # MkDocs parses the source as HTML first


def test_prose_keeps_paragraphs() -> None:
    assert _html(escape.prose("one\ntwo\n\n  three")) == "<p>one two</p>\n<p>three</p>"


def test_fence_is_longer_than_any_backtick_run() -> None:
    assert escape.fence_for("a ```` b") == "`````"
    assert escape.fence_for("plain") == "```"


@pytest.mark.parametrize("url, host, expected", [
    ("https://github.com/o/r/blob/abc/f.py#L1-L2", "github.com",
     "https://github.com/o/r/blob/abc/f.py#L1-L2"),
    ("javascript:alert(1)", None, None),
    ("http://github.com/o/r", "github.com", None),
    ("https://github.com.evil.com/x", "github.com", None),
    ("https://github.com/o/r/blob/a/f(1).py", "github.com",
     "https://github.com/o/r/blob/a/f%281%29.py"),
    ("https://github.com/o r", "github.com", None),
    ("ftp://example.com/x", None, None),
    # Userinfo, ports, backslashes and encodings that make a browser go somewhere else.
    ("https://github.com@evil.example/x", "github.com", None),
    ("https://user:pw@github.com/x", "github.com", None),
    ("https://github.com:8443/x", "github.com", None),
    ("https://evil.example\\@github.com/x", "github.com", None),
    ("https://github.com\\@evil.example/x", "github.com", None),
    ("https://github.com%2F@evil.example/x", "github.com", None),
    ("https://%67ithub.com/x", "github.com", None),
    ("https://github.com./x", "github.com", None),
    ("https://GITHUB.com/x", "github.com", None),
    ("https://gith\u0456ub.com/x", "github.com", None),
    ("https:github.com/x", "github.com", None),
    ("https:/github.com/x", "github.com", None),
    ("//github.com/x", "github.com", None),
    (" https://github.com/x", "github.com", None),
    ("https://github.com/x\n", "github.com", None),
    ("JavaScript:alert(1)//https://github.com/", "github.com", None),
    ("data:text/html,<script>alert(1)</script>", None, None),
    # Allowed, with whatever Markdown or HTML could misread percent-encoded.
    ("https://github.com/o/r/blob/a/f.py\"onmouseover=\"alert(1)", "github.com",
     "https://github.com/o/r/blob/a/f.py%22onmouseover=%22alert%281%29"),
    ("https://github.com/o/r/blob/a/<script>`x`\\y", "github.com",
     "https://github.com/o/r/blob/a/%3Cscript%3E%60x%60%5Cy"),
    ("https://github.com/o/r/blob/a/ünï.py", "github.com",
     "https://github.com/o/r/blob/a/%C3%BCn%C3%AF.py"),
])
def test_safe_url(url: str, host: str | None, expected: str | None) -> None:
    assert escape.safe_url(url, host=host) == expected


def test_blanks_at_the_ends_of_a_code_span_still_separate_words() -> None:
    # Found by the property test: '\\` 0`' showed as '\\0'.
    assert _visible(escape.inline("\\` 0`")) == (["p", "code"], "\\ 0")
    assert _visible(escape.inline("a`b `c")) == (["p", "code"], "ab c")
