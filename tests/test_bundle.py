"""The offline bundle: a zip that opens from disk, with nothing fetched from the network, built
without touching the hosted site's files."""

from __future__ import annotations

import re
import zipfile
from pathlib import Path

import pytest
from click.testing import CliRunner

from errdocs.cli import _size, main
from errdocs.pages.render import Page
from errdocs.pages.write import write_pages
from errdocs.site.bundle import Selection, offline_page, sync_hand_written

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
    assert {"errdocs-bundle/index.html", "errdocs-bundle/errors/assets/search/manifest.js",
            "errdocs-bundle/errors/assets/lookup/manifest.js",
            f"errdocs-bundle/{sites.SEED_PAGE}/index.html"} <= set(names)
    # no lunr: no Material search index, language files or worker; nothing not worth mailing
    assert not [n for n in names if n.endswith((".map", ".errdocs-site", "sitemap.xml"))
                or "/lunr/" in n or "javascripts/workers/" in n or "search_index" in n]
    assert bundle_zip.stat().st_size < 2_000_000  # small enough to mail
    folder = sites.unzip(bundle_zip, tmp_path)
    # from file://, a link to a folder opens no page: every link names a file
    broken, checked = broken_links(folder, served=False)
    assert broken == []
    assert not (folder / "404.html").exists()  # only a server shows it
    assert checked > 1000


def test_bundle_pages_load_nothing_from_the_network(bundle_zip: Path, tmp_path: Path) -> None:
    folder = sites.unzip(bundle_zip, tmp_path)
    remote = {(page.name, url) for page in html_pages(folder) for tag, url in scan(page).links
              if tag in ("script", "img", "link:stylesheet", "link:icon", "link:preconnect")
              and "://" in url}
    assert remote == set()
    seed = scan(folder / sites.SEED_PAGE / "index.html")
    scripts = [url for tag, url in seed.links if tag == "script"]
    assert not [url for url in scripts if "worker" in url]  # no shim: no lunr worker to run
    assert seed.canonical is None  # no link to the host: nothing the reader needs from disk
    search = (folder / "errors" / "assets" / "search" / "manifest.js").read_text("utf-8")
    assert search.startswith("__errdocsLookup(")  # a script: it loads from file://


def test_bundle_has_no_opensearch_description(bundle_zip: Path, tmp_path: Path) -> None:
    """OpenSearch cannot work from file:// (and its template needs the hosted site's
    address): the bundle neither holds ``opensearch.xml`` nor links one."""
    assert not [n for n in _names(bundle_zip) if n.endswith("opensearch.xml")]
    folder = sites.unzip(bundle_zip, tmp_path)
    pages = html_pages(folder)
    assert len(pages) > 100
    assert not [p for p in pages if 'rel="search"' in p.read_text("utf-8")]


def test_bundle_command_filters_and_reports(project: Path,
                                            tmp_path_factory: pytest.TempPathFactory) -> None:
    out = tmp_path_factory.mktemp("zips") / "out" / "sglang validation.zip"
    result = CliRunner().invoke(main, [
        "bundle", "-f", str(project / "mkdocs.yml"), "--repo", "SGL-Project/SGLang",
        "--tag", "Validation", "--tag", "lora", "-o", str(out), str(sites.SAMPLE)])
    assert result.exit_code == 0, result.output
    names = _names(out)
    folder = "sglang-validation/errors/sgl-project/sglang/"
    records = sorted(n for n in names if n.startswith(folder) and n.count("/") == 5)
    assert records == [f"{folder}{name}/index.html" for name in (
        "response-format-type-must-be-one-of-allowed-got-fmt-type-r",
        "unknown-lora-adapter-lora-name",
        "unsupported-dtype-dtype-cef91982",
        "unsupported-dtype-dtype")]
    pages = sum(1 for n in names if n.endswith(".html") and not n.endswith("/404.html")
                and not n.startswith("sglang-validation/id/"))  # redirects, not pages
    assert sum(1 for n in names if n.startswith("sglang-validation/api/records/")) == 4
    broken, _checked = broken_links(sites.unzip(out, out.parent / "unzipped"), served=False)
    assert broken == []  # a subset goes through the same zip: every link names a file
    assert result.output == (
        f"Bundle written to {out}: {pages} pages (4 records), {_size(out.stat().st_size)}. "
        "Unzip it and open sglang-validation/index.html in a browser.\n")
    # The hosted site's files were left alone: nothing generated, built or dated there; the
    # bundle's units are in the offline profile's own folder.
    assert sorted(p.name for p in project.iterdir()) == [".errdocs", "docs", "mkdocs.yml",
                                                         "overrides"]
    assert sorted(p.name for p in (project / "docs").iterdir()) == ["about.md", "index.md"]
    assert sorted(p.name for p in (project / ".errdocs").iterdir()) == ["build.lock", "offline"]


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
    # 125 pages, the "what changed" pages (2) and the indexes by name (3)
    assert first.pages == second.pages == 130
    assert (first.build.built, second.build.built) == (first.build.units, 0)  # all reused
    assert first.path.read_bytes() == second.path.read_bytes()


def test_selection_is_repo_and_tag() -> None:
    records = [record("a", repo="o/r", tags=("x",)), record("b", repo="o/r", tags=("y",)),
               record("c", repo="p/q", tags=("X ",))]

    def chosen(selection: Selection) -> list[str]:
        return [r.id for r in records if selection.matches(r)]

    assert chosen(Selection()) == ["a", "b", "c"]
    assert chosen(Selection(repos=("O/R",))) == ["a", "b"]
    assert chosen(Selection(tags=("x",))) == ["a", "c"]
    assert chosen(Selection(("o/r",), ("x", "y"))) == ["a", "b"]
    assert Selection(("o/r", "z/z"), ("x", "w")).unmatched(records) == ["--repo z/z", "--tag w"]


def test_hand_written_pages_are_copied_and_generated_ones_left_behind(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    write_pages(docs / "errors", [Page("o/r/x.md", "generated"), Page("index.md", "generated")])
    (docs / "errors" / "notes.md").write_text("hand-written, inside the generated tree")
    (docs / "index.md").write_text("home")
    copy = tmp_path / "copy"
    sync_hand_written(docs, copy, "errors")
    assert _files(copy) == ["errors/notes.md", "index.md"]
    # a second sync: a changed page is copied again, a removed one goes; what the offline
    # build generated in the copy stays
    write_pages(copy / "errors", [Page("o/r/y.md", "the bundle's")])
    (docs / "index.md").write_text("home, changed")
    (docs / "errors" / "notes.md").unlink()
    (docs / "about.md").write_text("about")
    sync_hand_written(docs, copy, "errors")
    assert _files(copy) == ["about.md", "errors/.errdocs-manifest.json", "errors/o/r/y.md",
                            "index.md"]
    assert (copy / "index.md").read_text() == "home, changed"


def _files(folder: Path) -> list[str]:
    return sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file())


def test_a_bundle_is_the_built_site_zipped(project: Path, tmp_path: Path) -> None:
    """The bundle of every record is the hosted site's build: bundling after a build (and
    building after a bundle) rebuilds nothing; its pages' links to folders name their
    ``index.html``, and its links to the host are gone."""
    _settings, cold = sites.build_project(project)
    first = sites.build_bundle(project, tmp_path / "a" / "b.zip", site_url=sites.SITE_URL)
    _settings, warm = sites.build_project(project)
    second = sites.build_bundle(project, tmp_path / "b" / "b.zip", site_url=sites.SITE_URL)
    assert (cold.built, first.build.built) == (cold.units, 0)
    assert (warm.built, warm.reused, second.build.built) == (0, warm.units, 0)
    assert first.path.read_bytes() == second.path.read_bytes()
    # the hosted site keeps its directory URLs and address; the bundle's links name files
    seed = (project / "site" / sites.SEED_PAGE / "index.html").read_text("utf-8")
    assert f'<link rel="canonical" href="{sites.SITE_URL}{sites.SEED_PAGE}/">' in seed
    assert 'href="../../../.."' in seed
    with zipfile.ZipFile(second.path) as opened:
        page = opened.read(f"b/{sites.SEED_PAGE}/index.html").decode()
    assert 'rel="canonical"' not in page and 'href="../../../../index.html"' in page
    assert page == offline_page(seed.encode()).decode()


def test_a_failed_unit_is_the_bundles_one_line(project: Path, tmp_path: Path) -> None:
    config = project / "mkdocs.yml"
    config.write_text(config.read_text("utf-8").replace(
        "  - errdocs-compact\n", "  - errdocs-compact\n  - no-such-plugin\n"), "utf-8")
    out = tmp_path / "x.zip"
    result = CliRunner().invoke(main, ["bundle", "-f", str(config), "-j", "1", "-o", str(out),
                                       str(sites.SAMPLE)])
    assert result.exit_code == 1
    # errdocs' one line saying what it left, last (after MkDocs' own line saying why, when
    # MkDocs' logging reaches the terminal: not once other tests have set it up)
    *said, last = result.output.splitlines()
    assert said in ([], ["ERROR   -  Config value 'plugins': The \"no-such-plugin\" plugin "
                         "is not installed"])
    assert re.fullmatch(r"Error: unit [a-z0-9-]+: MkDocs build failed: Aborted with a "
                        r"configuration error!; nothing was written", last), last
    assert not out.exists()


def test_offline_page_names_the_index_of_folders_in_tags_only() -> None:
    """Links MkDocs and errdocs wrote to folders name their ``index.html`` (fragment and query
    kept); absolute links, files and fragments stay; record text that looks like a link
    (quotes are not escaped in text) stays as it is; links to the host go."""
    html = (b'<html><head><link rel="canonical" href="https://h.example/x/">\n'
            b'<link rel="search" type="application/opensearchdescription+xml" href="o.xml">\n'
            b'<link rel="alternate" type="application/atom+xml" href="../feed.xml">\n'
            b'<meta http-equiv="refresh" content="0; url=../../errors/o/r/s/">\n'
            b'<link rel="stylesheet" href="../assets/x.css"></head><body>\n'
            b'<a href=".." class="logo"><a href="./">here</a><a href="../x/#part">x</a>\n'
            b'<a href="../../..">home</a><a href="y/?q=1">y</a><a href="#top">top</a>\n'
            b'<a href="/abs/">abs</a><a href="https://github.com/o/r/">gh</a>\n'
            b'<p>message: a href="../t/" in text &lt;a href="../u/"&gt;</p>\n'
            b'<code>x <span class="s"> href="../v/"</span></code></body></html>')
    assert offline_page(html) == (
        b'<html><head>'
        b'<meta http-equiv="refresh" content="0; url=../../errors/o/r/s/index.html">\n'
        b'<link rel="stylesheet" href="../assets/x.css"></head><body>\n'
        b'<a href="../index.html" class="logo"><a href="./index.html">here</a>'
        b'<a href="../x/index.html#part">x</a>\n'
        b'<a href="../../../index.html">home</a><a href="y/index.html?q=1">y</a>'
        b'<a href="#top">top</a>\n'
        b'<a href="/abs/">abs</a><a href="https://github.com/o/r/">gh</a>\n'
        b'<p>message: a href="../t/" in text &lt;a href="../u/"&gt;</p>\n'
        b'<code>x <span class="s"> href="../v/"</span></code></body></html>')
