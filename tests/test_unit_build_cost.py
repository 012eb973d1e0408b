"""What a unit build asks of every page it keeps, made cheap, still says what MkDocs says.

A refresh at 310,000 records builds ~976 units of ~300 pages to render ~3 pages each: the
per-unit work over every kept page (MkDocs ``File`` objects for their output paths and URLs,
a parse of ``mkdocs.yml``) was ~40 s of worker time. These tests pin the shortcuts to the
engine's own answers.
"""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st
from mkdocs.structure.files import File

from errdocs.project import read_config_data
from errdocs.units.build import base_config, page_address

# Segments as errdocs' paths have them (slugs, repository folders, tags) and worse: spaces,
# URL-special characters, non-ASCII, the names MkDocs treats specially.
_SEGMENT = st.one_of(
    st.sampled_from(["index", "README", "readme", "Index", "errors", "tags", "a.b", "x.md"]),
    st.text(st.characters(codec="utf-8", exclude_characters="/\\\x00",
                          exclude_categories=("Cs", "Cc")), min_size=1, max_size=12)
    .filter(lambda s: s not in (".", "..") and s.strip() == s and s),
)


@settings(max_examples=400, deadline=None)
@given(st.lists(_SEGMENT, min_size=1, max_size=5), st.sampled_from([".md", ".markdown", ""]),
       st.booleans())
def test_page_address_is_mkdocs_files(parts: list[str], suffix: str, directory_urls: bool
                                      ) -> None:
    page = "/".join(parts) + suffix
    file = File(page, None, "", directory_urls)
    assert page_address(page, directory_urls) == (file.dest_uri, file.url)


def test_page_address_of_the_usual_pages() -> None:
    assert page_address("errors/r/acme/boom/index.md", True) == (
        "errors/r/acme/boom/index.html", "errors/r/acme/boom/")
    assert page_address("errors/tags/c#.md", True) == ("errors/tags/c#/index.html",
                                                       "errors/tags/c%23/")
    assert page_address("errors/tags/c#.md", False) == ("errors/tags/c#.html",
                                                        "errors/tags/c%23.html")
    assert page_address("README.md", True) == ("index.html", "./")


def test_base_config_is_a_fresh_copy_and_follows_edits(tmp_path: Path) -> None:
    config = tmp_path / "mkdocs.yml"
    config.write_text("site_name: one\nplugins:\n  - search\n", "utf-8")
    first = base_config(config)
    assert first == read_config_data(config) == {"site_name": "one", "plugins": ["search"]}
    first["plugins"].append("changed by a caller")  # type: ignore[attr-defined]
    assert base_config(config)["plugins"] == ["search"]
    # Same size, same second: an edit is seen all the same (the cache is by content).
    config.write_text("site_name: two\nplugins:\n  - search\n", "utf-8")
    assert base_config(config)["site_name"] == "two"
