"""Permalinks in Debian's Chromium: ``/id/<id>/`` hosted, from disk and without JavaScript;
the 404 page resolving an id typed in another case; a search from the address bar (OpenSearch's
``?q=``) landing on the search box's results; screenshots of the new pages for a person."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Literal
from urllib.parse import quote

import pytest
from playwright.sync_api import expect

from errdocs.pages.changes import changes_path
from errdocs.pages.permalinks import Addresses, Removed, removed_page

from . import sites

if TYPE_CHECKING:  # only the fixture starts Playwright
    from playwright.sync_api import Browser, Page, ViewportSize
from .test_browser import ARTIFACTS, DESKTOP, PHONE, Watch, _clean, _h1, _open

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not sites.CHROMIUM.exists(),
                       reason="needs Debian's chromium (/usr/bin/chromium)"),
]
SAMPLE_VERSION = "2026-08-28T06:17:29.519Z"
SECOND_VERSION = "2026-09-30T00:00:00.000Z"


SCHEMES: tuple[Literal["light", "dark"], ...] = ("light", "dark")
"""The system colour schemes a reader's browser may ask for."""

ODD = {"Odd/ID": "odd-slash", "ÜBER-1": "umlaut"}
"""Ids whose /id/ page does not spell them as they are (the 404 page finds them by its data)."""


@pytest.fixture(scope="module")
def odd_site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The sample with two odd ids, built twice: in the second version (a new
    ``datasetVersion``: a rebuild under the same version gives what a cold build of it gives,
    so it leaves no address behind) the seed's message (so its address) changed. Served under
    /docs/."""
    folder = tmp_path_factory.mktemp("odd")
    lines = sites.SAMPLE.read_text("utf-8").splitlines()
    extra = []
    for record_id, slug in ODD.items():
        value = json.loads(lines[1])
        value["record"].update(id=record_id, slug=slug, errorMessage=f"Odd id {slug}")
        extra.append(json.dumps(value))
    data = folder / "data.jsonl"
    data.write_text("\n".join(lines + extra) + "\n", "utf-8")
    project = sites.copy_project(folder / "project")
    sites.build_project(project, data)
    seed = json.loads(lines[0])
    seed["record"].update(errorMessage="Unknown MLX async mode (renamed): {launch.mode}",
                          slug="renamed-mode")
    second = [json.loads(line) for line in [json.dumps(seed), *lines[1:], *extra]]
    for value in second:
        value["datasetVersion"] = SECOND_VERSION
    data.write_text("".join(json.dumps(value) + "\n" for value in second), "utf-8")
    sites.build_project(project, data)
    with sites.serve(project / "site", "/docs/") as url:
        yield url


def test_an_id_page_sends_the_reader_to_the_record_hosted_and_without_javascript(
        browser: Browser, hosted: str) -> None:
    for javascript in (True, False):
        context = browser.new_context(java_script_enabled=javascript)
        page = context.new_page()
        page.goto(f"{hosted}id/{sites.SEED_ID}/")
        page.wait_for_url(f"{hosted}{sites.SEED_PAGE}/")
        assert _h1(page) == sites.SEED_MESSAGE
        context.close()


def test_an_id_page_works_from_disk(browser: Browser, offline: Path) -> None:
    page, watch = _open(browser, DESKTOP)
    page.goto((offline / "id" / sites.SEED_ID / "index.html").as_uri())
    page.wait_for_url((offline / sites.SEED_PAGE / "index.html").as_uri())
    assert _h1(page) == sites.SEED_MESSAGE
    _clean(watch)
    page.close()


def test_the_404_page_sends_an_id_typed_in_another_case_to_its_record(
        browser: Browser, hosted: str) -> None:
    page, watch = _open(browser, DESKTOP)
    missing = f"{hosted}id/{sites.SEED_ID.upper()}/"
    watch.expected.add(missing)
    response = page.goto(missing)
    assert response is not None and response.status == 404
    page.wait_for_url(f"{hosted}{sites.SEED_PAGE}/")
    assert _h1(page) == sites.SEED_MESSAGE
    _clean(watch)
    page.close()


@pytest.mark.parametrize(("address", "slug"), [
    ("id/Odd/ID/", "odd-slash"), ("id/über-1/", "umlaut"), ("id/ÜBER-1/", "umlaut"),
    (f"{sites.SEED_PAGE}/", "renamed-mode"),  # the redirect page left there
    (f"{sites.SEED_PAGE}.html", "renamed-mode"), (f"{sites.SEED_PAGE.upper()}/", "renamed-mode")])
def test_the_404_page_finds_odd_ids_and_left_addresses_in_its_data(
        browser: Browser, odd_site: str, address: str, slug: str) -> None:
    page, watch = _open(browser, DESKTOP)
    watch.expected.update({odd_site + address, odd_site + quote(address)})
    watch.expected.add(odd_site + address.lower())  # the rule's lowercase try, first
    page.goto(odd_site + quote(address))
    page.wait_for_url(f"{odd_site}errors/sgl-project/sglang/{slug}/")
    _clean_but_404s(watch)
    page.close()


def _clean_but_404s(watch: Watch) -> None:
    """No script error, and no failed request but the missing pages' (URLs differ in their
    encoding from what was asked)."""
    assert [e for e in watch.errors if "404" not in e] == []
    assert [f for f in watch.failed if "HTTP 404" not in f] == []


def test_a_missing_address_that_means_nothing_stays_on_the_404_page(
        browser: Browser, hosted: str) -> None:
    page, watch = _open(browser, DESKTOP)
    missing = f"{hosted}id/no-such-record/"
    watch.expected.add(missing)
    page.goto(missing)
    page.wait_for_load_state("networkidle")
    assert page.url == missing and _h1(page) == "Page not found"
    assert any("/errors/assets/resolve/r" in url for url in watch.requested)  # it did look
    _clean(watch)
    page.close()


def test_a_search_from_the_address_bar_lands_on_the_results(browser: Browser,
                                                            hosted: str) -> None:
    page, watch = _open(browser, DESKTOP)
    page.goto(f"{hosted}?q={quote('ValueError: Unknown MLX async mode: turbo')}")
    first = page.locator(".md-search-result__item").first
    expect(first.locator("h1")).to_have_text(sites.SEED_MESSAGE)
    assert page.locator("#__search").is_checked()
    _clean(watch)
    page.close()


@pytest.mark.parametrize("viewport", [PHONE, DESKTOP], ids=["390px", "1440px"])
def test_screenshots_of_what_changed_and_of_a_removed_page(
        browser: Browser, hosted: str, tmp_path: Path, viewport: ViewportSize) -> None:
    """For a person to look at (tests/artifacts/): the "what changed" page, light and dark
    (Material's palette), and a "removed" page (the system's scheme); neither scrolls
    sideways."""
    ARTIFACTS.mkdir(exist_ok=True)
    page, watch = _open(browser, viewport)
    width = viewport["width"]
    changes = Addresses().page_url(changes_path(SAMPLE_VERSION))
    page.goto(hosted + changes)
    assert _h1(page) == f"What changed in {SAMPLE_VERSION}"
    for scheme in ("default", "slate"):
        page.evaluate(
            f"document.body.setAttribute('data-md-color-scheme', '{scheme}')")
        _shoot(page, f"changes-{width}-{scheme}", width)
    _clean(watch)
    removed = Removed(sites.SEED_ID, sites.SEED_MESSAGE + " " + "x" * 150, "sgl-project/sglang",
                      "2026-09-30T00:00:00Z", "errors/sgl-project/sglang/",
                      "errors/changes/2026-09-30/")
    file = tmp_path / "id" / "x" / "index.html"
    file.parent.mkdir(parents=True)
    file.write_text(removed_page("id/x/index.html", removed, Addresses(),
                                 site_name="errdocs"), "utf-8")
    for scheme in SCHEMES:
        page.emulate_media(color_scheme=scheme)
        page.goto(file.as_uri())
        assert page.locator("h1").inner_text() == "Removed in 2026-09-30T00:00:00Z"
        _shoot(page, f"removed-{width}-{scheme}", width)
    page.close()


@pytest.mark.parametrize("viewport", [PHONE, DESKTOP], ids=["390px", "1440px"])
def test_screenshots_of_the_versions_and_of_an_id_page_where_refresh_is_off(
        browser: Browser, hosted: str, viewport: ViewportSize) -> None:
    """The list of versions with the feed's link, light and dark, nothing hidden in a box
    scrolling sideways; an /id/ page as a reader sees it when the refresh does not happen
    (JavaScript off, the record's page not answering): readable at a phone's width and in
    the system's dark scheme."""
    ARTIFACTS.mkdir(exist_ok=True)
    page, watch = _open(browser, viewport)
    width = viewport["width"]
    page.goto(f"{hosted}errors/changes/")
    assert _h1(page) == "Dataset versions"
    assert page.get_by_role("link", name="Atom feed of added and changed errors").is_visible()
    for scheme in ("default", "slate"):
        page.evaluate(
            f"document.body.setAttribute('data-md-color-scheme', '{scheme}')")
        _shoot(page, f"versions-{width}-{scheme}", width)
    _clean(watch)
    page.close()
    for scheme in SCHEMES:
        context = browser.new_context(
            viewport=viewport, color_scheme=scheme, java_script_enabled=False,
            is_mobile=viewport is PHONE)  # a phone lays out 980 px without a viewport tag
        page = context.new_page()
        page.route(f"{hosted}{sites.SEED_PAGE}/", lambda route: route.fulfill(status=204))
        # The refresh is tried and answered by nothing (204): the browser stays on the page.
        with page.expect_event("requestfailed",
                               lambda request: request.url == f"{hosted}{sites.SEED_PAGE}/"):
            page.goto(f"{hosted}id/{sites.SEED_ID}/")
        assert page.url == f"{hosted}id/{sites.SEED_ID}/"
        link = page.get_by_role("link", name=sites.SEED_MESSAGE)
        assert link.get_attribute("href") == f"../../{sites.SEED_PAGE}/"
        text = page.evaluate("getComputedStyle(document.body).color")
        assert text == ("rgb(0, 0, 0)" if scheme == "light" else "rgb(255, 255, 255)")
        assert page.evaluate("window.innerWidth") == width  # the viewport tag: not 980 px
        _shoot(page, f"id-{width}-{scheme}", width)
        context.close()


def _shoot(page: Page, name: str, width: int) -> None:
    scroll = page.evaluate("document.documentElement.scrollWidth")
    assert scroll <= width, f"{name} scrolls sideways"
    boxes = page.evaluate(
        "[...document.querySelectorAll('.md-typeset__scrollwrap')]"
        ".filter(e => e.scrollWidth > e.clientWidth).length")
    assert boxes == 0, f"{name} hides part of a table in a box scrolling sideways"
    shot = ARTIFACTS / f"{name}.png"
    page.screenshot(path=str(shot), full_page=True)
    assert shot.stat().st_size > 5_000
