"""The body store (``errdocs.plugins.bodies``) as a unit's build uses it."""

from __future__ import annotations

import json
import zlib
from pathlib import Path
from types import SimpleNamespace
from typing import cast

from mkdocs.structure.pages import Page

from errdocs.plugins.bodies import Bodies


def _page(source: str) -> Page:
    return cast(Page, SimpleNamespace(file=SimpleNamespace(src_uri=source)))


def test_an_empty_store_is_not_asked_and_a_kept_row_is_found_by_the_next_build(
        tmp_path: Path) -> None:
    # A cold build's store holds nothing, and this build's rows are written only as it ends:
    # a query for each page and code block found nothing (~1% of a cold build's CPU).
    path = tmp_path / "bodies.sqlite"
    first = Bodies(path)
    asked: list[str] = []
    first._connection().set_trace_callback(asked.append)
    assert first.get(_page("a.md"), "key") is None
    assert first.block("block") is None
    assert asked == []
    body: dict[str, object] = {"content": "<p>a</p>", "toc": [], "title": None,
                               "present": None, "links": None}
    first.made["a.md"] = ("key", zlib.compress(json.dumps(body).encode("utf-8")))
    first.made_blocks["a.md"] = {"block": zlib.compress(b"<pre>a</pre>")}
    first.save()
    asked.clear()
    second = Bodies(path)
    second._connection().set_trace_callback(asked.append)
    assert second.get(_page("a.md"), "key") == body
    assert second.get(_page("a.md"), "other key") is None
    assert second.block("block") == "<pre>a</pre>"
    assert second.block("other block") is None
    assert len(asked) == 4
