"""Permalinks, exports and the history through the real build: every record's ``/id/`` page
and export exist and round-trip, hostile ids stay inside the site, and two dataset versions
built in turn give the right counts, "removed" pages and redirects; the second equals a cold
build of it with the first's history."""

from __future__ import annotations

import dataclasses
import html
import json
import re
import shutil
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from urllib.parse import urljoin

import pytest
from click.testing import CliRunner
from jsonschema import Draft202012Validator
from mkdocs.utils.meta import get_data

from errdocs.build import build_sharded
from errdocs.catalog.history import HISTORY_FILE
from errdocs.catalog.model import build_catalog
from errdocs.catalog.paths import exact_segment
from errdocs.cli import main
from errdocs.pages.changes import changes_path
from errdocs.pages.exports import every_export
from errdocs.pages.permalinks import Addresses
from errdocs.project import WORK_DIR, load_settings
from errdocs.records.read import RawItem
from errdocs.records.record import Origin
from errdocs.records.schema import json_schema
from errdocs.records.validate import Validator
from errdocs.site.state import site_folder
from errdocs.units import plan as shards

from .conftest import ROOT, SAMPLE, copy_project
from .helpers import read_all, xml_attribute

sys.path.insert(0, str(ROOT / "bench"))
import synth

pytestmark = pytest.mark.slow
SITE_URL = "https://example.org/docs/"
HOSTILE = ROOT / "tests" / "fixtures" / "hostile.jsonl"
HOSTILE_IDS = ["../../escape", "..", ".", "a/b", "A", "a", "con", "index", "%2e%2e", "ü",
               "x\\y", "ID-Mixed", "id-mixed", " spaced ", "<script>", "名前"]
_REFRESH = re.compile(r'http-equiv="refresh" content="0; url=([^"]+)"')
_CANONICAL = re.compile(r'<link rel="canonical" href="([^"]+)"')
SCHEMA = Draft202012Validator(json_schema())
ATOM = {"a": "http://www.w3.org/2005/Atom"}
ADDRESSES = Addresses("errors", True, SITE_URL)


def _tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes()
            for p in sorted(root.rglob("*")) if p.is_file()}


def _build(project: Path, data: Path, **options: object) -> None:
    settings = load_settings(project / "mkdocs.yml", site_url=SITE_URL)
    build_sharded(settings, [data], jobs=2, show_progress=False, **options)  # type: ignore[arg-type]


def _target(site: Path, page: Path) -> Path:
    """The file a redirect page at ``page`` sends the reader to."""
    match = _REFRESH.search(page.read_text("utf-8"))
    assert match, page
    url = urljoin(f"https://h/{page.relative_to(site).as_posix()}", match.group(1))
    path = url.removeprefix("https://h/")
    return site / (path + "index.html" if path.endswith("/") else path)


@pytest.fixture(scope="module")
def hostile_site(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list]:
    """The sample, the hostile fixture and records with hostile ids, built once."""
    folder = tmp_path_factory.mktemp("hostile-site")
    data = folder / "data"
    data.mkdir()
    shutil.copy(SAMPLE, data / "sample.jsonl")
    shutil.copy(HOSTILE, data / "hostile.jsonl")
    with (data / "ids.jsonl").open("w", encoding="utf-8") as handle:
        for n, record_id in enumerate(HOSTILE_IDS):
            handle.write(json.dumps({"record": {
                "id": record_id, "repo": "acme/ids", "slug": f"s{n}",
                "errorMessage": f"Hostile id {n} </title><script>alert(1)</script>",
                "httpStatus": 2 ** 70}, "datasetVersion": "v<1>"}) + "\n")
    project = copy_project(folder / "project")
    _build(project, data)
    return project / "site", read_all([data]).records


def test_every_record_has_an_id_page_sending_the_reader_to_its_page(
        hostile_site: tuple[Path, list]) -> None:
    site, records = hostile_site
    catalog = build_catalog(records)
    for record in records:
        page = site / "id" / exact_segment(record.id) / "index.html"
        target = _target(site, page)
        assert target == site / ADDRESSES.page_file(catalog.entries[record.id].path)
        assert target.is_file(), record.id
        canonical = _CANONICAL.search(page.read_text("utf-8"))
        assert canonical and canonical.group(1) == SITE_URL + target.parent.relative_to(
            site).as_posix() + "/"
    assert len(list((site / "id").iterdir())) == len(records) == 40 + 33 + len(HOSTILE_IDS)


def test_hostile_ids_stay_inside_the_site_and_apart(hostile_site: tuple[Path, list]) -> None:
    site, _ = hostile_site
    for folder in ("id", "api/records"):
        names = [p.relative_to(site / folder).as_posix() for p in (site / folder).rglob("*")
                 if p.is_file()]
        assert all(re.fullmatch(r"[a-z0-9._-]+(/index\.html|\.json)", n) for n in names), names
    assert not (site.parent / "escape").exists() and not (site / "escape").exists()
    assert exact_segment("A") != exact_segment("a")
    assert {exact_segment(i) for i in HOSTILE_IDS} <= {p.name for p in (site / "id").iterdir()}


def test_every_export_validates_and_reads_back_as_check_reads_the_record(
        hostile_site: tuple[Path, list]) -> None:
    site, records = hostile_site
    for record in records:
        text = (site / "api" / "records" / f"{exact_segment(record.id)}.json").read_text("utf-8")
        value = json.loads(text)
        assert SCHEMA.is_valid(value), record.id
        assert (site / value["path"] / "index.html").is_file()
        assert value["url"] == SITE_URL + value["path"]
        validator = Validator()
        [back] = validator.validate_all([RawItem(Origin("x.json", 1), value)])
        assert back == dataclasses.replace(record, origin=Origin("x.json", 1))
    assert json.loads((site / "api" / "schema.json").read_text("utf-8")) == json_schema(
        SITE_URL + "api/schema.json")


def test_the_exports_made_in_one_piece_are_those_the_build_makes_unit_by_unit(
        hostile_site: tuple[Path, list]) -> None:
    """:func:`every_export` (the offline bundle's exports) gives the built site's files."""
    site, records = hostile_site
    files = every_export(records, build_catalog(records), ADDRESSES)
    assert len(files) == 2 * len(records) + 3  # /id/, /api/records/; schema, index head, page
    for file in files:
        assert (site / file.path).read_text("utf-8") == file.content, file.path


def test_the_paged_index_lists_every_record_once(hostile_site: tuple[Path, list]) -> None:
    site, records = hostile_site
    head = json.loads((site / "api" / "index.json").read_text("utf-8"))
    rows = [row for n in range(head["pages"]) for row in json.loads(
        (site / head["page"].format(n=n)).read_text("utf-8"))["records"]]
    assert sorted(r[0] for r in rows) == sorted(r.id for r in records)
    assert all((site / r[3]).is_file() and (site / r[2] / "index.html").is_file() for r in rows)


def test_the_feed_is_valid_atom_linking_pages(hostile_site: tuple[Path, list]) -> None:
    site, records = hostile_site
    root = ET.fromstring((site / "feed.xml").read_bytes())
    entries = root.findall("a:entry", ATOM)
    assert len(entries) == len(records) == 89  # bounded at 100: test_permalinks.py
    for entry in entries:
        href = xml_attribute(entry, "a:link", "href", ATOM)
        assert href.startswith(SITE_URL)
        assert (site / href.removeprefix(SITE_URL) / "index.html").is_file()


def test_every_page_links_the_opensearch_description_and_the_feed(
        hostile_site: tuple[Path, list]) -> None:
    site, _ = hostile_site
    description = ET.fromstring((site / "opensearch.xml").read_bytes())
    ns = {"o": "http://a9.com/-/spec/opensearch/1.1/"}
    assert xml_attribute(description, "o:Url", "template", ns) == SITE_URL + "?q={searchTerms}"
    pages = [p for p in site.rglob("*.html") if p.relative_to(site).parts[0] != "id"]
    for page in pages:
        text = page.read_text("utf-8")
        assert 'rel="search" type="application/opensearchdescription+xml"' in text, page
        assert 'type="application/atom+xml"' in text, page


# -- Two dataset versions -----------------------------------------------------------------------

def _history(project: Path) -> Path:
    """Where the history of the project's site folder is."""
    return site_folder(project / WORK_DIR, (project / "site").resolve()) / HISTORY_FILE


def _undated(tree: dict[str, bytes]) -> dict[str, bytes]:
    """The site without the sitemap's dates."""
    out = {k: v for k, v in tree.items() if k != "sitemap.xml.gz"}
    out["sitemap.xml"] = re.sub(rb"<lastmod>[^<]*</lastmod>", b"", out["sitemap.xml"])
    return out


def _version_of(lines: list[str], version: str) -> list[dict]:
    values = [json.loads(line) for line in lines]
    for value in values:
        value["datasetVersion"] = version
    return values


def _write(path: Path, values: list[dict]) -> Path:
    path.write_text("".join(json.dumps(v) + "\n" for v in values), "utf-8")
    return path


def _description(project: Path, version: str) -> str:
    text = (project / "docs" / "errors" / changes_path(version)).read_text("utf-8")
    return get_data(text)[1]["errdocs"]["description"]


def _fresh(project: Path, target: Path) -> Path:
    for name in ("docs", "overrides"):
        shutil.copytree(project / name, target / name, ignore=shutil.ignore_patterns("errors"))
    shutil.copy(project / "mkdocs.yml", target / "mkdocs.yml")
    return target


def test_two_versions_in_turn_and_a_cold_build_with_the_first_history(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(shards, "UNIT_SIZE", 16)
    lines = synth.write(60, tmp_path / "synth.jsonl", seed=5).read_text("utf-8").splitlines()
    project = copy_project(tmp_path / "project")
    first = _version_of(lines, "2026-01-01T00:00:00Z")
    _build(project, _write(tmp_path / "v1.jsonl", first))
    kept = tmp_path / "history-after-v1"
    shutil.copy(_history(project), kept)
    site = project / "site"
    removed = [first[n]["record"] for n in (3, 4, 5)]
    # A record that does not share its slug (else another record could take its address).
    slugs = [(v["record"]["repo"].lower(), v["record"]["slug"]) for v in first]
    at = next(n for n in range(10, 60) if slugs.count(slugs[n]) == 1)
    moved = first[at]["record"]
    old_page = next(p for p in (site / "errors").rglob("index.html")
                    if f'"identifier": "{moved["id"]}"' in p.read_text("utf-8"))

    second = _version_of(lines, "2026-02-01T00:00:00Z")
    second = [v for n, v in enumerate(second) if n not in (3, 4, 5)]  # three removed
    second[at - 3]["record"]["errorMessage"] = "Moved: a new message"  # was first[at]
    second[at - 3]["record"]["slug"] = "moved-a-new-message"
    assert at - 3 != 20
    second[20]["record"]["documentation"] = "Changed."
    added = json.loads(json.dumps(second[0]))
    added["record"].update(id="brand-new", slug="brand-new", errorMessage="Brand new {x}")
    second.append(added)
    v2 = _write(tmp_path / "v2.jsonl", second)
    _build(project, v2)

    assert _description(project, "2026-02-01T00:00:00Z") == (
        "1 error added, 2 errors changed, 3 errors removed.")
    assert _description(project, "2026-01-01T00:00:00Z") == (
        "60 errors added, 0 errors changed, 0 errors removed.")
    for record in removed:
        page = (site / "id" / exact_segment(record["id"]) / "index.html").read_text("utf-8")
        assert "Removed in 2026-02-01T00:00:00Z" in page and 'content="noindex"' in page
        assert 'rel="search" type="application/opensearchdescription+xml"' in page
        assert not (site / "api" / "records" / f"{exact_segment(record['id'])}.json").exists()
    removed_pages = [p for p in (site / "errors").rglob("index.html")
                     if "Removed in 2026-02-01" in p.read_text("utf-8")]
    assert len(removed_pages) == 3  # at their old addresses too
    assert old_page.is_file() and _target(site, old_page) == (
        site / "errors" / moved["repo"].lower() / "moved-a-new-message" / "index.html")
    assert _target(site, site / "id" / moved["id"] / "index.html") == _target(site, old_page)
    home = html.unescape((site / "errors" / "index.html").read_text("utf-8"))
    assert '<a href="changes/">What changed, dataset version by version</a>' in home
    versions = html.unescape((site / "errors" / "changes" / "index.html").read_text("utf-8"))
    assert versions.index(">2026-02-01T00:00:00Z<") < versions.index(">2026-01-01T00:00:00Z<")
    feed = ET.fromstring((site / "feed.xml").read_bytes())
    titles = [e.findtext("a:title", namespaces=ATOM) for e in feed.findall("a:entry", ATOM)]
    assert titles[:3] == [*sorted(["Moved: a new message", second[20]["record"]["errorMessage"]]),
                          "Brand new {x}"]  # the newest version first: changed, then added

    cold = _fresh(project, tmp_path / "cold")
    _history(cold).parent.mkdir(parents=True)
    shutil.copy(kept, _history(cold))
    _build(cold, v2)
    # Byte for byte, but for the sitemap's dates: they come from another memory of earlier
    # builds (lastmod.py), which a cold build does not have.
    cold_site, warm_site = _tree(cold / "site"), _tree(site)
    assert _undated(cold_site) == _undated(warm_site)
    assert cold_site.keys() == warm_site.keys()
    assert _tree(cold / "docs" / "errors") == _tree(project / "docs" / "errors")
    # The history is the project's state (.errdocs/), not the site folder's: a site folder
    # deleted is built again with it, as it was.
    shutil.rmtree(site)
    _build(project, v2)
    assert _undated(_tree(site)) == _undated(warm_site)

    v3 = _write(tmp_path / "v3.jsonl", _version_of([json.dumps(v) for v in second],
                                                   "2026-03-01T00:00:00Z"))
    _build(project, v3, keep_versions=1)
    assert not any((site / "id" / exact_segment(r["id"])).exists() for r in removed)
    assert not any(p.exists() for p in removed_pages)
    assert _target(site, old_page).is_file()  # a moved record's old address still redirects
    assert sorted(p.name for p in (site / "errors" / "changes").iterdir()) == [
        exact_segment("2026-03-01T00:00:00Z"), "index.html"]
    assert _description(project, "2026-03-01T00:00:00Z") == (
        "0 errors added, 0 errors changed, 0 errors removed.")  # a new name alone

    # Only an explicit reset starts the history anew: the version's records all count as
    # added, and the address the moved record left is forgotten.
    reset = CliRunner().invoke(main, ["build", "-f", str(project / "mkdocs.yml"), "--site-url",
                                      SITE_URL, "--keep-versions", "1", "--reset-history",
                                      str(v3)])
    assert reset.exit_code == 0, reset.output
    assert _description(project, "2026-03-01T00:00:00Z") == (
        f"{len(second)} errors added, 0 errors changed, 0 errors removed.")
    assert not old_page.exists()
