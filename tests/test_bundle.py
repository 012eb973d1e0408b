"""The offline bundle: a zip that opens from disk, with nothing fetched from the network, built
without touching the hosted site's files."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pytest
from click.testing import CliRunner

from errdocs.cli import _size, main
from errdocs.pages.render import Page
from errdocs.pages.write import write_pages
from errdocs.site.bundle import Selection, copy_hand_written, lunr_files, lunr_plugins, select

from . import sites
from .helpers import record
from .htmlscan import broken_links, html_pages, scan

pytestmark = pytest.mark.slow


def _names(archive: Path) -> list[str]:
    with zipfile.ZipFile(archive) as opened:
        return opened.namelist()


def test_bundle_of_the_whole_dataset_opens_from_disk(bundle_zip: Path, tmp_path: Path) -> None:
    names = _names(bundle_zip)
    assert all(n.startswith("errdocs-bundle/") for n in names)
    assert {"errdocs-bundle/index.html", "errdocs-bundle/search/search_index.js",
            "errdocs-bundle/assets/javascripts/iframe-worker-shim.js",
            f"errdocs-bundle/{sites.SEED_PAGE}.html"} <= set(names)
    assert not [n for n in names if n.endswith(".map") or "/lunr/" in n]
    assert bundle_zip.stat().st_size < 2_000_000  # small enough to mail
    folder = sites.unzip(bundle_zip, tmp_path)
    broken, checked = broken_links(folder, skip=("404.html",))  # 404.html needs a server
    assert broken == []
    assert checked > 1000


def test_bundle_pages_load_nothing_from_the_network(bundle_zip: Path, tmp_path: Path) -> None:
    folder = sites.unzip(bundle_zip, tmp_path)
    remote = {(page.name, url) for page in html_pages(folder) for tag, url in scan(page).links
              if tag in ("script", "img", "link:stylesheet", "link:icon", "link:preconnect")
              and "://" in url}
    assert remote == set()
    seed = scan(folder / f"{sites.SEED_PAGE}.html")
    scripts = [url for tag, url in seed.links if tag == "script"]
    assert scripts[0].endswith("assets/javascripts/errdocs-worker.js")  # keeps the real Worker
    assert scripts[1].endswith("assets/javascripts/iframe-worker-shim.js")  # not the CDN's
    assert seed.canonical is None  # no site_url: no link to .html addresses the host lacks
    index = (folder / "search" / "search_index.js").read_text("utf-8")
    assert index.startswith("var __index = ") and sites.SEED_MESSAGE[:20] in index


def test_bundle_command_filters_and_reports(project: Path,
                                            tmp_path_factory: pytest.TempPathFactory) -> None:
    out = tmp_path_factory.mktemp("zips") / "out" / "sglang validation.zip"
    result = CliRunner().invoke(main, [
        "bundle", "-f", str(project / "mkdocs.yml"), "--repo", "SGL-Project/SGLang",
        "--tag", "Validation", "--tag", "lora", "-o", str(out), str(sites.SAMPLE)])
    assert result.exit_code == 0, result.output
    names = _names(out)
    records = sorted(n for n in names if n.startswith("sglang-validation/errors/sgl-project/")
                     and not n.endswith("/index.html"))
    folder = "sglang-validation/errors/sgl-project/sglang/"
    assert records == [folder + name for name in (
        "response-format-type-must-be-one-of-allowed-got-fmt-type-r.html",
        "unknown-lora-adapter-lora-name.html",
        "unsupported-dtype-dtype-cef91982.html",
        "unsupported-dtype-dtype.html")]
    pages = sum(1 for n in names if n.endswith(".html") and not n.endswith("/404.html")
                and not n.startswith("sglang-validation/id/"))  # redirects, not pages
    assert sum(1 for n in names if n.startswith("sglang-validation/api/records/")) == 4
    assert result.output == (
        f"Bundle written to {out}: {pages} pages (4 records), {_size(out.stat().st_size)}. "
        "Unzip it and open sglang-validation/index.html in a browser.\n")
    # The hosted site's files were left alone: nothing generated, built or dated there.
    assert sorted(p.name for p in project.iterdir()) == ["docs", "mkdocs.yml", "overrides"]
    assert sorted(p.name for p in (project / "docs").iterdir()) == ["about.md", "index.md"]


def test_bundle_command_refuses_filters_that_match_nothing(project: Path, tmp_path: Path) -> None:
    out = tmp_path / "x.zip"
    result = CliRunner().invoke(main, ["bundle", "-f", str(project / "mkdocs.yml"), "--repo",
                                       "nobody/nothing", "--tag", "dtype", "--tag", "nope",
                                       "-o", str(out), str(sites.SAMPLE)])
    assert result.exit_code == 1
    assert result.output == ("Error: no record matches --repo nobody/nothing, --tag nope; "
                             "nothing was written\n")
    assert not out.exists()


def test_bundle_never_replaces_a_file_that_is_not_a_zip(project: Path, tmp_path: Path) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_text("my notes")
    result = CliRunner().invoke(main, ["bundle", "-f", str(project / "mkdocs.yml"),
                                       "-o", str(notes), str(sites.SAMPLE)])
    assert (result.exit_code, result.output) == (
        1, f"Error: {notes}: exists and is not a zip file; give another --output, e.g. -o "
           "dist/errdocs-bundle.zip; nothing was written\n")
    assert notes.read_text() == "my notes"


def test_the_same_input_makes_the_same_zip(project: Path, tmp_path: Path) -> None:
    first = sites.build_bundle(project, tmp_path / "a" / "errdocs.zip")
    second = sites.build_bundle(project, tmp_path / "b" / "errdocs.zip")
    assert first.pages == second.pages == 128
    assert first.path.read_bytes() == second.path.read_bytes()


def test_selection_is_repo_and_tag() -> None:
    records = [record("a", repo="o/r", tags=("x",)), record("b", repo="o/r", tags=("y",)),
               record("c", repo="p/q", tags=("X ",))]
    assert [r.id for r in select(records, Selection())] == ["a", "b", "c"]
    assert [r.id for r in select(records, Selection(repos=("O/R",)))] == ["a", "b"]
    assert [r.id for r in select(records, Selection(tags=("x",)))] == ["a", "c"]
    assert [r.id for r in select(records, Selection(("o/r",), ("x", "y")))] == ["a", "b"]
    assert Selection(("o/r", "z/z"), ("x", "w")).unmatched(records) == ["--repo z/z", "--tag w"]


def test_lunr_plugins_keep_the_projects_own_and_drop_hosted_only_ones() -> None:
    assert lunr_plugins(["errdocs-lastmod", {"tags": {"x": 1}}, "search"], offline=True) == [
        {"tags": {"x": 1}}, "search", "offline"]
    assert lunr_plugins({"errdocs-lastmod": None, "meta": {}}, offline=True) == [
        "meta", "search", "offline"]
    assert lunr_plugins(None, offline=False) == ["search"]


def test_lunr_files_follow_materials_worker() -> None:
    assert lunr_files(["en"]) == set()
    assert lunr_files(["de"]) == {"min/lunr.de.min.js", "min/lunr.stemmer.support.min.js"}
    assert lunr_files(["en", "ja"]) == {"min/lunr.ja.min.js", "tinyseg.js",
                                        "min/lunr.multi.min.js",
                                        "min/lunr.stemmer.support.min.js"}


def test_search_index_json_is_valid(bundle_zip: Path) -> None:
    with zipfile.ZipFile(bundle_zip) as opened:
        index = json.loads(opened.read("errdocs-bundle/search/search_index.json"))
    assert index["config"]["lang"] == ["en"]
    assert len({doc["location"].split("#")[0] for doc in index["docs"]}) > 100


def test_hand_written_pages_are_copied_and_generated_ones_left_behind(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    write_pages(docs / "errors", [Page("o/r/x.md", "generated"), Page("index.md", "generated")])
    (docs / "errors" / "notes.md").write_text("hand-written, inside the generated tree")
    (docs / "index.md").write_text("home")
    copy_hand_written(docs, tmp_path / "copy", "errors")
    copied = sorted(p.relative_to(tmp_path / "copy").as_posix()
                    for p in (tmp_path / "copy").rglob("*") if p.is_file())
    assert copied == ["errors/notes.md", "index.md"]
