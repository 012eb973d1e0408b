"""A unit's MkDocs files: the pages it links to that other units own (stubs) are made as a
link asks for them (:class:`errdocs.plugins.unit._UnitFiles`), not registered up front: at
310,000 records a hub unit linked to 159,110 of them, ~1.1 KB each once registered."""

from __future__ import annotations

from mkdocs.structure.files import File, InclusionLevel

from errdocs.plugins.unit import _UnitFiles


def _file(path: str, inclusion: InclusionLevel = InclusionLevel.UNDEFINED) -> File:
    return File(path, "/docs", "/site", True, inclusion=inclusion)


def test_a_stub_is_made_when_a_link_asks_for_it_and_resolves_as_a_registered_one() -> None:
    made: list[str] = []

    def make(path: str) -> File:
        made.append(path)
        return _file(path, InclusionLevel.EXCLUDED)

    stubs = frozenset({"errors/o/r/other.md", "errors/tags/x/index.md", "errors/o/r/mine.md"})
    files = _UnitFiles([], stubs, make)
    files.append(_file("errors/o/r/mine.md"))
    page = files.get_file_from_path("errors/o/r/mine.md")
    assert page is not None and page.inclusion is not InclusionLevel.EXCLUDED  # owned first
    assert made == [] and len(files) == 1 and list(files) == [page]
    stub = files.get_file_from_path("errors/o/r/./other.md")  # as MkDocs normalises a link
    assert stub is not None and stub.inclusion is InclusionLevel.EXCLUDED
    assert stub.url_relative_to(page) == "../other/"  # what the registered stub gave
    assert files.get_file_from_path("errors/o/r/other.md") is stub  # made once, then kept
    assert made == ["errors/o/r/other.md"]
    assert files.get_file_from_path("errors/o/r/gone.md") is None  # not a stub: not found
    assert "errors/tags/x/index.md" in files and "errors/nowhere.md" not in files
    assert len(files) == 1  # stubs are never among the unit's files
