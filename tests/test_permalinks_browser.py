"""Permalinks in Debian's Chromium: ``/id/<id>/`` hosted, from disk and without JavaScript;
the 404 page resolving an id typed in another case; a search from the address bar (OpenSearch's
``?q=``) landing on the search box's results; screenshots of the new pages for a person."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote

import pytest
from playwright.sync_api import expect

from errdocs.changes import changes_path
from errdocs.permalinks import Addresses, Removed, removed_page

from . import sites
from .test_browser import ARTIFACTS, DESKTOP, PHONE, _clean, _h1, _open

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not sites.CHROMIUM.exists(),
                       reason="needs Debian's chromium (/usr/bin/chromium)"),
]
SAMPLE_VERSION = "2026-08-28T06:17:29.519Z"


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    with sites.chromium() as launched:
        yield launched


def test_an_id_page_sends_the_reader_to_the_record_hosted_and_without_javascript(
        browser: object, hosted: str) -> None:
    for javascript in (True, False):
        context = browser.new_context(java_script_enabled=javascript)  # type: ignore[attr-defined]
        page = context.new_page()
        page.goto(f"{hosted}id/{sites.SEED_ID}/")
        page.wait_for_url(f"{hosted}{sites.SEED_PAGE}/")
        assert _h1(page) == sites.SEED_MESSAGE
        context.close()


def test_an_id_page_works_from_disk(browser: object, offline: Path) -> None:
    page, watch = _open(browser, DESKTOP)
    page.goto((offline / "id" / sites.SEED_ID / "index.html").as_uri())  # type: ignore[attr-defined]
    page.wait_for_url((offline / f"{sites.SEED_PAGE}.html").as_uri())  # type: ignore[attr-defined]
    assert _h1(page) == sites.SEED_MESSAGE
    _clean(watch)
    page.close()  # type: ignore[attr-defined]


def test_the_404_page_sends_an_id_typed_in_another_case_to_its_record(
        browser: object, hosted: str) -> None:
    page, watch = _open(browser, DESKTOP)
    missing = f"{hosted}id/{sites.SEED_ID.upper()}/"
    watch.expected.add(missing)
    response = page.goto(missing)  # type: ignore[attr-defined]
    assert response.status == 404
    page.wait_for_url(f"{hosted}{sites.SEED_PAGE}/")  # type: ignore[attr-defined]
    assert _h1(page) == sites.SEED_MESSAGE
    _clean(watch)
    page.close()  # type: ignore[attr-defined]


def test_a_missing_address_that_means_nothing_stays_on_the_404_page(
        browser: object, hosted: str) -> None:
    page, watch = _open(browser, DESKTOP)
    missing = f"{hosted}id/no-such-record/"
    watch.expected.add(missing)
    page.goto(missing)  # type: ignore[attr-defined]
    page.wait_for_load_state("networkidle")  # type: ignore[attr-defined]
    assert page.url == missing and _h1(page) == "Page not found"  # type: ignore[attr-defined]
    assert any("/errors/assets/resolve/r" in url for url in watch.requested)  # it did look
    _clean(watch)
    page.close()  # type: ignore[attr-defined]


def test_a_search_from_the_address_bar_lands_on_the_results(browser: object,
                                                            hosted: str) -> None:
    page, watch = _open(browser, DESKTOP)
    page.goto(f"{hosted}?q={quote('ValueError: Unknown MLX async mode: turbo')}")  # type: ignore[attr-defined]
    first = page.locator(".md-search-result__item").first  # type: ignore[attr-defined]
    expect(first.locator("h1")).to_have_text(sites.SEED_MESSAGE)
    assert page.locator("#__search").is_checked()  # type: ignore[attr-defined]
    _clean(watch)
    page.close()  # type: ignore[attr-defined]


@pytest.mark.parametrize("viewport", [PHONE, DESKTOP], ids=["390px", "1440px"])
def test_screenshots_of_what_changed_and_of_a_removed_page(
        browser: object, hosted: str, tmp_path: Path, viewport: dict[str, int]) -> None:
    """For a person to look at (tests/artifacts/): the "what changed" page, light and dark
    (Material's palette), and a "removed" page (the system's scheme); neither scrolls
    sideways."""
    ARTIFACTS.mkdir(exist_ok=True)
    page, watch = _open(browser, viewport)
    width = viewport["width"]
    changes = Addresses().page_url(changes_path(SAMPLE_VERSION))
    page.goto(hosted + changes)  # type: ignore[attr-defined]
    assert _h1(page) == f"What changed in {SAMPLE_VERSION}"
    for scheme in ("default", "slate"):
        page.evaluate(  # type: ignore[attr-defined]
            f"document.body.setAttribute('data-md-color-scheme', '{scheme}')")
        _shoot(page, f"changes-{width}-{scheme}", width)
    _clean(watch)
    removed = Removed(sites.SEED_ID, sites.SEED_MESSAGE + " " + "x" * 150, "sgl-project/sglang",
                      "2026-09-30T00:00:00Z", "errors/sgl-project/sglang/",
                      "errors/changes/2026-09-30/")
    file = tmp_path / "id" / "x" / "index.html"
    file.parent.mkdir(parents=True)
    file.write_text(removed_page("id/x/index.html", removed, Addresses()), "utf-8")
    for scheme in ("light", "dark"):
        page.emulate_media(color_scheme=scheme)  # type: ignore[attr-defined]
        page.goto(file.as_uri())  # type: ignore[attr-defined]
        assert page.locator("h1").inner_text() == "Removed in 2026-09-30T00:00:00Z"  # type: ignore[attr-defined]
        _shoot(page, f"removed-{width}-{scheme}", width)
    page.close()  # type: ignore[attr-defined]


def _shoot(page: object, name: str, width: int) -> None:
    scroll = page.evaluate("document.documentElement.scrollWidth")  # type: ignore[attr-defined]
    assert scroll <= width, f"{name} scrolls sideways"
    shot = ARTIFACTS / f"{name}.png"
    page.screenshot(path=str(shot), full_page=True)  # type: ignore[attr-defined]
    assert shot.stat().st_size > 5_000
