"""The site as a person uses it, in Debian's Chromium (through Playwright): the hosted site
served on 127.0.0.1 and the offline bundle opened from file://. One browser per module."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from playwright.sync_api import expect

from . import sites

if TYPE_CHECKING:  # only the fixture starts Playwright
    from playwright.sync_api import (
        Browser,
        ConsoleMessage,
        Locator,
        Page,
        Request,
        Response,
        ViewportSize,
    )

CHROMIUM = sites.CHROMIUM
ARTIFACTS = sites.ROOT / "tests" / "artifacts"
PHONE: ViewportSize = {"width": 390, "height": 844}
DESKTOP: ViewportSize = {"width": 1440, "height": 900}
PASTED = "Unknown MLX async mode: turbo"
"""What a user pastes: the concrete message, with a value the record's template cannot hold."""

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not CHROMIUM.exists(), reason="needs Debian's chromium (/usr/bin/chromium)"),
]


@dataclass
class Watch:
    """Everything that went wrong in a page, as the browser saw it."""

    errors: list[str] = field(default_factory=list)
    """Console errors and uncaught exceptions."""
    failed: list[str] = field(default_factory=list)
    """Requests that failed or got an HTTP error (except those expected)."""
    requested: list[str] = field(default_factory=list)
    """Every URL requested."""
    expected: set[str] = field(default_factory=set)
    """URLs allowed to answer with an error (the missing page the 404 test asks for)."""


def _open(browser: Browser, viewport: ViewportSize) -> tuple[Page, Watch]:
    page = browser.new_page(viewport=viewport)
    page.set_default_timeout(10_000)
    watch = Watch()

    def console(message: ConsoleMessage) -> None:
        if message.type == "error":
            watch.errors.append(f"{message.text} ({message.location.get('url')})")

    def request_failed(request: Request) -> None:
        # A load the page itself cancelled (net::ERR_ABORTED: a click navigated away while
        # the favicon was loading) is not a failure; a missing file or an HTTP error is.
        if request.failure != "net::ERR_ABORTED":
            watch.failed.append(f"{request.url}: {request.failure}")

    def response(answer: Response) -> None:
        if answer.status >= 400 and answer.url not in watch.expected:
            watch.failed.append(f"{answer.url}: HTTP {answer.status}")

    page.on("console", console)
    page.on("pageerror", lambda error: watch.errors.append(str(error)))
    page.on("request", lambda request: watch.requested.append(request.url))
    page.on("requestfailed", request_failed)
    page.on("response", response)
    return page, watch


def _on_site(url: str, hosted: str) -> bool:
    """A URL of the site, or the lookup's worker, which the page makes from its own script
    (``blob:`` + the site's origin)."""
    origin = "/".join(hosted.split("/")[:3])
    return url.startswith(hosted) or url.startswith(f"blob:{origin}/")


def _clean(watch: Watch) -> None:
    # Console errors for the expected 404 response are the browser reporting that response.
    assert [e for e in watch.errors if not (watch.expected and "404" in e)] == []
    assert watch.failed == []


def _h1(page: Page) -> str:
    """The page's heading, without its permalink sign."""
    text = page.locator("article h1").first.inner_text()
    return text.strip().removesuffix("¶").strip()


def _browse_to_the_seed_record(page: Page) -> None:
    """Home → its count of tags → the tag "mlx" → the seed record, by clicking links."""
    article = page.locator("article")
    with page.expect_navigation():
        article.get_by_role("link", name="tags", exact=True).click()
    assert _h1(page) == "All tags"
    with page.expect_navigation():
        article.get_by_role("link", name="mlx", exact=True).click()
    assert _h1(page) == "Tag: mlx"
    with page.expect_navigation():
        article.get_by_role("link", name=sites.SEED_MESSAGE, exact=True).click()
    assert _h1(page) == sites.SEED_MESSAGE


def _search_and_open_the_first_result(page: Page) -> None:
    """Paste a concrete message into the search and open the first result."""
    page.keyboard.press("/")
    # Material's search says "Initializing search" until its worker is ready, as a person sees.
    page.wait_for_function(
        "!document.querySelector('.md-search-result__meta').textContent.includes('Initializing')")
    page.keyboard.type(PASTED)  # Material searches on keyup
    first = page.locator(".md-search-result__item").first
    # Results follow the typing: wait for those of the whole message, not of its first words.
    expect(first.locator("h1")).to_have_text(re.compile(r"^Unknown MLX async mode"))
    with page.expect_navigation():
        first.locator("a").first.click()
    assert _h1(page) == sites.SEED_MESSAGE


def _switch_light_and_dark(page: Page) -> None:
    scheme = 'document.body.getAttribute("data-md-color-scheme")'
    assert page.evaluate(scheme) == "default"
    page.locator("form[data-md-component=palette] label:visible").click()
    assert page.evaluate(scheme) == "slate"
    page.locator("form[data-md-component=palette] label:visible").click()
    assert page.evaluate(scheme) == "default"


def test_hosted_journey(browser: Browser, hosted: str) -> None:
    page, watch = _open(browser, DESKTOP)
    page.goto(hosted)
    _browse_to_the_seed_record(page)
    _search_and_open_the_first_result(page)
    _switch_light_and_dark(page)
    assert any("/errors/assets/search/" in url for url in watch.requested)  # errdocs' data
    assert not any("/pagefind/" in url for url in watch.requested)  # not the full text
    assert all(_on_site(url, hosted) for url in watch.requested)  # nothing third-party
    _clean(watch)
    page.close()


def test_offline_journey_from_disk(browser: Browser, offline: Path) -> None:
    page, watch = _open(browser, DESKTOP)
    page.goto((offline / "index.html").as_uri())
    _browse_to_the_seed_record(page)
    _search_and_open_the_first_result(page)
    _switch_light_and_dark(page)
    assert any("/errors/assets/search/" in url for url in watch.requested)  # not lunr's
    # the search box's and paste box's matching runs in a worker made from a page's script
    assert [url for url in watch.requested if not url.startswith(("file://", "blob:null/"))] == []
    _clean(watch)
    page.close()


def test_missing_page_helps_find_the_error(browser: Browser, hosted: str) -> None:
    page, watch = _open(browser, DESKTOP)
    missing = f"{hosted}errors/sgl-project/sglang/unknown-mlx-async-mode/"
    watch.expected.add(missing)
    response = page.goto(missing)
    assert response is not None and response.status == 404
    assert _h1(page) == "Page not found"
    button = page.locator("[data-errdocs-search-open]")
    assert button.inner_text() == "Search for “unknown mlx async mode”"
    button.click()
    first = page.locator(".md-search-result__item").first
    expect(first.locator("h1")).to_have_text(sites.SEED_MESSAGE)
    page.keyboard.press("Escape")
    with page.expect_navigation():
        page.locator("article").get_by_role("link", name="By category").click()
    assert _h1(page) == "All categories"
    _clean(watch)
    page.close()


@pytest.mark.parametrize("viewport", [PHONE, DESKTOP], ids=["390px", "1440px"])
def test_pages_read_well_on_a_phone_and_a_desktop(browser: Browser, hosted: str,
                                                  viewport: ViewportSize) -> None:
    """Screenshots for a person to look at (tests/artifacts/), and what can be measured: the
    page never scrolls sideways, long code lines scroll inside their block."""
    ARTIFACTS.mkdir(exist_ok=True)
    page, watch = _open(browser, viewport)
    for name, path in (("home", ""), ("seed-record", f"{sites.SEED_PAGE}/")):
        page.goto(hosted + path)
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= viewport["width"], f"{name} scrolls sideways at {viewport['width']} px"
        shot = ARTIFACTS / f"{name}-{viewport['width']}.png"
        page.screenshot(path=str(shot), full_page=True)
        assert shot.stat().st_size > 10_000
    _clean(watch)
    page.close()


def test_search_results_show_record_text_as_text(browser: Browser, hosted: str) -> None:
    """Result titles and teasers come from the search data as text; none of it becomes
    markup."""
    page, watch = _open(browser, DESKTOP)
    page.goto(hosted)
    page.keyboard.press("/")
    page.keyboard.type("unsupported dtype")
    page.locator(".md-search-result__item").first.wait_for(timeout=10_000)
    html = page.locator(".md-search-result__list").inner_html()
    tags = set(re.findall(r"<([a-z0-9]+)", html))
    assert tags <= {"li", "a", "article", "div", "h1", "p", "button"}  # the full-text button
    _clean(watch)
    page.close()


def _search(page: Page, query: str) -> Locator:
    """Open the search with the `s` key, type ``query``; the results' list."""
    page.keyboard.press("s")
    page.keyboard.type(query)
    return page.locator(".md-search-result__item")


@pytest.mark.parametrize("query", [sites.SEED_MESSAGE, "ValueError: " + PASTED],
                         ids=["template", "pasted"])
def test_search_opens_the_seed_record_by_its_message(browser: Browser, hosted: str,
                                                     query: str) -> None:
    """The seed's message as the data has it, and as a program printed it (a concrete value,
    its class in front): the seed is the first result, and Enter opens it."""
    page, watch = _open(browser, DESKTOP)
    page.goto(hosted)
    results = _search(page, query)
    expect(results.first.locator("h1")).to_have_text(sites.SEED_MESSAGE)
    expect(results.first.locator("p").first).to_have_text("sgl-project/sglang · ValueError")
    with page.expect_navigation():
        page.keyboard.press("Enter")
    assert page.url == f"{hosted}{sites.SEED_PAGE}/"
    _clean(watch)
    page.close()


def _sample_records() -> list[dict]:
    return [json.loads(line)["record"] for line in sites.SAMPLE.read_text("utf-8").splitlines()]


@pytest.mark.parametrize(("query", "field"), [("internal-contract", "tags"),
                                              ("northwind-io/gridcache", "repo")])
def test_search_finds_the_records_of_a_tag_and_of_a_repository(
        browser: Browser, hosted: str, query: str, field: str) -> None:
    """Records holding every word of the query come first (then those holding some)."""
    wanted = sorted(r["errorMessage"] for r in _sample_records()
                    if query in (r[field] if field == "tags" else [r[field]]))
    assert 1 < len(wanted) < 10
    page, watch = _open(browser, DESKTOP)
    page.goto(hosted)
    results = _search(page, query)
    results.nth(len(wanted) - 1).wait_for()
    assert sorted(results.locator("h1").all_inner_texts()[:len(wanted)]) == wanted
    _clean(watch)
    page.close()


def test_search_finds_the_hand_written_about_page(browser: Browser, hosted: str) -> None:
    page, watch = _open(browser, DESKTOP)
    page.goto(hosted + f"{sites.SEED_PAGE}/")
    results = _search(page, "about")
    expect(results.first.locator("h1")).to_have_text("About these pages")
    assert results.first.locator("a").get_attribute("href") == f"{hosted}about/"
    _clean(watch)
    page.close()


def test_full_text_search_loads_pagefind_only_when_asked(browser: Browser, hosted: str) -> None:
    """The site is built with --full-text: errdocs' results come first, with a button that
    loads Pagefind's index."""
    page, watch = _open(browser, DESKTOP)
    page.goto(hosted)
    results = _search(page, "finalize_mlx_result")  # only in the seed's prose, not its words
    # The button of the whole query, not of a part typed so far: that one's answer is
    # dropped once the input has changed (seen under load: the meta never said "Full text").
    page.locator('[data-errdocs-search][data-answered="finalize_mlx_result"]').wait_for(
        state="attached")
    button = page.get_by_role("button", name="Search the full text")
    button.wait_for()
    assert not any("/pagefind/" in url for url in watch.requested)
    button.click()
    expect(page.locator("[data-errdocs-search-meta]")).to_have_text(
        re.compile(r"^Full text: \d+ matching"))
    expect(results.first.locator("h1")).to_have_text(sites.SEED_MESSAGE)
    assert any("/pagefind/" in url for url in watch.requested)
    assert all(_on_site(url, hosted) for url in watch.requested)
    _clean(watch)
    page.close()
