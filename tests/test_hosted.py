"""The hosted site as built from the sample dataset: links, search index, what each page says
about itself (description, Open Graph, JSON-LD), sitemap dates, robots.txt and the 404 page."""

from __future__ import annotations

import json
import shutil
import xml.etree.ElementTree as ET
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from click.testing import CliRunner
from mkdocs.utils import get_build_date

from errdocs.cli import main
from errdocs.search import units as searchunits
from errdocs.search.fulltext import SearchIndexFailed
from errdocs.site.owner import mark

from . import sites
from .conftest import Built
from .helpers import xml_text
from .htmlscan import broken_links, html_pages, scan

pytestmark = pytest.mark.slow

LOADED = {"script", "img", "iframe", "source", "video", "audio", "link:stylesheet", "link:icon",
          "link:preload", "link:modulepreload", "link:preconnect", "link:manifest"}
"""Tags whose URL the browser fetches when the page loads."""
SITEMAP_NS = {"s": "http://www.sitemaps.org/schemas/sitemap/0.9"}


def test_every_internal_link_and_anchor_resolves(built: Built) -> None:
    broken, checked = broken_links(built.site, urlsplit(sites.SITE_URL).path)
    assert broken == []
    assert checked > 1000  # the check saw the site, not an empty folder


def test_nothing_is_loaded_from_another_site(built: Built) -> None:
    third_party = [(p.name, url) for p in html_pages(built.site) for tag, url in scan(p).links
                   if tag in LOADED and urlsplit(url).scheme in ("http", "https", "")
                   and urlsplit(url).netloc]
    assert third_party == []
    css = "".join(p.read_text("utf-8") for p in (built.site / "assets").rglob("*.css"))
    assert "fonts.googleapis" not in css and "@import url(http" not in css


def test_canonical_links_and_sitemap_list_every_page_at_its_hosted_address(built: Built) -> None:
    # /id/<id>/ pages are redirects: their canonical link is their record's page (see
    # test_permalinks.py), and the sitemap leaves them out.
    pages = [p for p in html_pages(built.site) if p.name == "index.html"
             and p.relative_to(built.site).parts[0] != "id"]
    for page in pages:
        path = page.parent.relative_to(built.site).as_posix()
        expected = sites.SITE_URL + ("" if path == "." else f"{path}/")
        assert scan(page).canonical == expected
    sitemap = ET.parse(built.site / "sitemap.xml").getroot()
    locations = [e.text or "" for e in sitemap.findall("s:url/s:loc", SITEMAP_NS)]
    assert sorted(locations) == sorted(scan(p).canonical or "" for p in pages)


def test_a_record_page_describes_itself(built: Built) -> None:
    found = scan(built.site / sites.SEED_PAGE / "index.html")
    description = found.meta["description"][0]
    assert description.startswith("finalize_mlx_result consumes the MlxLaunch produced earlier")
    assert len(description) <= 160
    assert found.meta["og:title"] == [sites.SEED_MESSAGE]
    assert found.meta["og:type"] == ["article"]
    assert found.meta["og:description"] == [description]
    assert found.meta["og:url"] == [f"{sites.SITE_URL}{sites.SEED_PAGE}/"]
    assert found.meta["article:tag"] == ["mlx", "async-scheduler", "internal-contract", "sglang"]
    (article,) = found.json_ld
    assert article["@type"] == "TechArticle"
    assert article == {  # nothing said twice: the description is the meta description's
        "@context": "https://schema.org", "@type": "TechArticle",
        "headline": sites.SEED_MESSAGE, "identifier": sites.SEED_ID,
        "dateModified": "2026-08-28T05:10:05Z",
        "about": {"@type": "SoftwareSourceCode", "name": "sgl-project/sglang",
                  "codeRepository": "https://github.com/sgl-project/sglang"},
        "keywords": "mlx, async-scheduler, internal-contract, sglang",
        "url": f"{sites.SITE_URL}{sites.SEED_PAGE}/",
        "isPartOf": {"@type": "WebSite", "name": "errdocs", "url": sites.SITE_URL}}
    assert found.title == f"{sites.SEED_MESSAGE} - errdocs"


def test_index_pages_describe_themselves_without_record_json_ld(built: Built) -> None:
    found = scan(built.site / "errors" / "tags" / "dtype" / "index.html")
    assert found.meta["description"] == [
        "3 documented errors tagged “dtype”: what each means, where it is raised and how to "
        "fix it."]
    assert found.meta["og:title"] == ["Tag: dtype"]
    assert found.meta["og:type"] == ["website"]
    assert found.json_ld == []
    home = scan(built.site / "index.html")
    assert home.meta["description"] == [
        "What an error message means, where it is raised, and how to fix it."]


def test_robots_txt_names_the_sitemap(built: Built) -> None:
    assert (built.site / "robots.txt").read_text("utf-8") == (
        f"User-agent: *\nAllow: /\n\nSitemap: {sites.SITE_URL}sitemap.xml\n")


def test_the_404_page_offers_search_and_the_indexes(built: Built) -> None:
    page = built.site / "404.html"
    found = scan(page)
    prefix = urlsplit(sites.SITE_URL).path
    links = {url for tag, url in found.links if tag == "a"}
    assert {f"{prefix}errors/", f"{prefix}errors/categories/", f"{prefix}errors/tags/",
            f"{prefix}errors/repos/"} <= links
    text = page.read_text("utf-8")
    assert "data-errdocs-search-open" in text and "data-errdocs-search-query" in text


def test_pagefind_indexes_record_and_hand_written_pages_only(built: Built) -> None:
    entry = json.loads((built.site / "pagefind" / "pagefind-entry.json").read_text("utf-8"))
    indexed = entry["languages"]["en"]["page_count"]
    marked = [p for p in html_pages(built.site) if "data-pagefind-body" in p.read_text("utf-8")]
    records = len(sites.SAMPLE.read_text("utf-8").splitlines())
    assert indexed == len(marked) == records + 1  # the records, and the About page
    assert not (built.site / "search" / "search_index.json").exists()  # no lunr index


def _lastmods(site: Path) -> dict[str, str]:
    root = ET.parse(site / "sitemap.xml").getroot()
    return {xml_text(u, "s:loc", SITEMAP_NS): xml_text(u, "s:lastmod", SITEMAP_NS)
            for u in root.findall("s:url", SITEMAP_NS)}


def test_sitemap_dates_follow_record_content_not_the_build(built: Built, tmp_path: Path) -> None:
    project = sites.copy_project(tmp_path / "project")
    records = tmp_path / "records.jsonl"
    shutil.copy(sites.SAMPLE, records)
    sites.build_project(project, records)
    first = _lastmods(project / "site")
    seed_url = f"{sites.SITE_URL}{sites.SEED_PAGE}/"
    assert first[seed_url] == "2026-08-28"  # a first build dates records by analyzedAt

    sites.build_project(project, records)  # rebuilt later, nothing changed
    assert _lastmods(project / "site") == first

    lines = records.read_text("utf-8").splitlines()
    envelope = json.loads(lines[0])
    envelope["record"]["documentation"] += " Changed."
    envelope["datasetVersion"] = "2027-01-01T00:00:00Z"  # a new release alone changes nothing
    second = json.loads(lines[1])
    second["datasetVersion"] = "2027-01-01T00:00:00Z"
    records.write_text("\n".join([json.dumps(envelope), json.dumps(second), *lines[2:]]) + "\n")
    sites.build_project(project, records)
    changed = {url for url, day in _lastmods(project / "site").items() if first[url] != day}
    assert changed == {seed_url}
    assert _lastmods(project / "site")[seed_url] == get_build_date()


def test_site_url_option_and_its_validation(project: Path) -> None:
    runner = CliRunner()
    bad = runner.invoke(main, ["build", "-f", str(project / "mkdocs.yml"), "--site-url",
                               "javascript:alert(1)", str(sites.SAMPLE)])
    assert bad.exit_code == 1
    assert bad.output == ("Error: --site-url: expected an address like "
                          "https://errors.example.org/, got 'javascript:alert(1)'\n")
    assert not (project / "site").exists()
    good = runner.invoke(main, ["build", "-f", str(project / "mkdocs.yml"), "--site-url",
                                "https://example.com/errors", "--full-text", str(sites.SAMPLE)])
    assert good.exit_code == 0, good.output
    assert good.output.endswith(f"Site built in {project / 'site'}; 41 pages in the full-text "
                                "index\n")
    robots = (project / "site" / "robots.txt").read_text("utf-8")
    assert robots.endswith("Sitemap: https://example.com/errors/sitemap.xml\n")


HOSTILE = ('Bad "q" </script><script>alert(1)</script> & <img src=x onerror=alert(2)> '
           "'x' {{ config }} &amp;")


def test_record_text_in_the_head_stays_text(tmp_path: Path) -> None:
    """Description, Open Graph and JSON-LD carry record text: all of it escaped."""
    envelope = json.loads(sites.SAMPLE.read_text("utf-8").splitlines()[0])
    message = HOSTILE + " " + HOSTILE  # longer than a headline
    envelope["record"].update({"errorMessage": message, "documentation": HOSTILE,
                               "tags": ['</script><b>t</b> "&amp;"'], "repo": 'ev"il/re<po'})
    records = tmp_path / "hostile.jsonl"
    records.write_text(json.dumps(envelope) + "\n")
    project = sites.copy_project(tmp_path / "project")
    sites.build_project(project, records)
    (page,) = [p for p in html_pages(project / "site")
               if "data-pagefind-body" in p.read_text("utf-8") and "about" not in p.parts]
    found = scan(page)
    assert found.meta["og:title"] == [message]  # the parser unescapes: the exact text is back
    assert found.meta["description"] == [HOSTILE]
    assert found.meta["article:tag"] == ['</script><b>t</b> "&amp;"']
    (article,) = found.json_ld
    assert article["headline"] == message[:109] + "…"  # cut at 110 characters
    assert article["name"] == message
    assert article["about"] == {"@type": "SoftwareSourceCode", "name": 'ev"il/re<po'}
    # Only the scripts of the seed's own page (JSON-LD, Material's inline ones, its config, its
    # bundle, the record page's one, the search's three): the record's </script><script> made
    # none.
    assert found.scripts == ["application/ld+json", "", "", "", "", "application/json", "", "",
                             "", "", ""]
    assert "<img src=x" not in page.read_text("utf-8")


def test_a_failed_search_index_keeps_the_previous_site(project: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    previous = project / "site" / "index.html"
    previous.parent.mkdir()
    previous.write_text("the previous site")
    mark(previous.parent)  # a site errdocs built

    def broken(*args: object) -> int:
        raise SearchIndexFailed("Pagefind failed to index the records: boom")

    # `errdocs build` indexes the records piece by piece (errdocs.search.units)
    monkeypatch.setattr(searchunits, "write_piece", broken)
    result = CliRunner().invoke(main, ["build", "-f", str(project / "mkdocs.yml"),
                                       "--full-text", str(sites.SAMPLE)])
    assert result.exit_code == 1
    assert result.output.endswith("Error: Pagefind failed to index the records: boom; the "
                                  "previous site was left as it was\n")
    assert previous.read_text() == "the previous site"
    assert sorted(p.name for p in project.iterdir() if p.name.startswith(".site")) == []
