"""The search box's data: word shards, record chunks, manifest, hand-written pages."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from errdocs.catalog.model import build_catalog
from errdocs.lookup import build_index
from errdocs.lookup.tokens import fnv1a
from errdocs.project import load_settings
from errdocs.search import searchbox as sd
from errdocs.search.hosted import hand_page

from .helpers import record

SCRIPT = re.compile(r'\A__errdocsLookup\("([^"]+)",(.*)\);\n\Z', re.S)


def _files(records: list, pages: tuple[sd.HandPage, ...] = ()) -> dict[str, tuple[str, Any]]:
    """Each data file's name (without the folder): its script's name and its JSON payload."""
    index = build_index(records, build_catalog(records), javascript=True)
    found = {}
    for page in sd.search_data(index, sd.records_by_id(records), pages):
        script = SCRIPT.match(page.content)
        assert script is not None, page.content[:80]
        name, body = script.groups()
        found[page.path.removeprefix(f"{sd.FOLDER}/")] = (name, json.loads(body))
    return found


def _posting(files: dict[str, tuple[str, Any]], word: str) -> list[int]:
    manifest = files["manifest.js"][1]
    shard = fnv1a(word) % manifest["shards"]
    count, *gaps = files[f"w{shard:x}.js"][1][word]
    numbers, at = [], 0
    for gap in gaps:
        at += gap
        numbers.append(at)
    assert count >= len(numbers)
    return numbers


def test_records_are_found_by_message_class_tag_category_and_repository() -> None:
    records = [record("a", repo="Acme/Widgets", slug="a", error_message="Gizmo {x} exploded",
                      error_class="GizmoError", tags=("hot-path",), background_tag="io-fault",
                      documentation="What it means. More."),
               record("b", repo="other/thing", slug="b", error_message="the other failure")]
    files = _files(records)
    for word in ("gizmo", "exploded", "gizmoerror", "hot", "path", "io", "fault", "acme",
                 "widgets"):
        assert _posting(files, word) == [0], word
    assert _posting(files, "failure") == [1]
    assert not any("the" in words[1] for name, words in files.items() if name.startswith("w"))
    assert files["r0.js"] == ("r0", [
        ["acme/widgets/a", "Acme/Widgets", "Gizmo {x} exploded", "GizmoError",
         "What it means. More."],
        ["other/thing/b", "other/thing", "the other failure", "",
         "What the error “the other failure” raised in other/thing means and how to fix it."]])


def test_a_common_word_lists_its_first_records_and_counts_them_all(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sd, "MAX_POSTINGS", 3)
    records = [record(f"r{n}", repo="o/r", slug=f"s{n:02d}", error_message=f"common word{n}")
               for n in range(10)]
    files = _files(records)
    shard = fnv1a("common") % files["manifest.js"][1]["shards"]
    assert files[f"w{shard:x}.js"][1]["common"] == [10, 0, 1, 1]
    assert _posting(files, "word7") == [7]
    assert len([n for n in files if n.startswith("r")]) == 1  # 10 records: one chunk


def test_manifest_lists_hand_written_pages_by_their_words(tmp_path: Path) -> None:
    (tmp_path / "docs" / "guide").mkdir(parents=True)
    (tmp_path / "mkdocs.yml").write_text("site_name: x\n", "utf-8")
    (tmp_path / "docs" / "guide" / "index.md").write_text("# The Guide\n\nRead the manual.\n")
    settings = load_settings(tmp_path / "mkdocs.yml")
    page = hand_page(settings, "guide/index.md")
    assert page == sd.HandPage("guide/", "The Guide", "# The Guide\n\nRead the manual.\n")
    assert hand_page(settings, "missing.md") is None
    files = _files([record("a")], (page,))
    manifest = files["manifest.js"][1]
    assert manifest["pages"] == [["guide/", "The Guide", "guide read manual"]]
    assert manifest["fullText"] is False and manifest["records"] == 1
