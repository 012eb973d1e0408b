"""The site as a person uses it, in Debian's Chromium (through Playwright): the hosted site
served on 127.0.0.1 and the offline bundle opened from file://. One browser per module."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from playwright.sync_api import expect

from . import sites

CHROMIUM = sites.CHROMIUM
ARTIFACTS = sites.ROOT / "tests" / "artifacts"
PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1440, "height": 900}
PASTED = "Unknown MLX async mode: turbo"
"""What a user pastes: the concrete message, with a value the record's template cannot hold."""

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not CHROMIUM.exists(), reason="needs Debian's chromium (/usr/bin/chromium)"),
]


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    with sites.chromium() as launched:
        yield launched




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


def _open(browser: object, viewport: dict[str, int]) -> tuple[object, Watch]:
    page = browser.new_page(viewport=viewport)  # type: ignore[attr-defined]
    page.set_default_timeout(10_000)
    watch = Watch()
    page.on("console", lambda m: m.type == "error" and watch.errors.append(
        f"{m.text} ({m.location.get('url')})"))
    page.on("pageerror", lambda e: watch.errors.append(str(e)))
    page.on("request", lambda r: watch.requested.append(r.url))
    # A load the page itself cancelled (net::ERR_ABORTED: a click navigated away while the
    # favicon was loading) is not a failure; a missing file or an HTTP error is.
    page.on("requestfailed", lambda r: r.failure != "net::ERR_ABORTED"
            and watch.failed.append(f"{r.url}: {r.failure}"))
    page.on("response", lambda r: r.status >= 400 and r.url not in watch.expected
            and watch.failed.append(f"{r.url}: HTTP {r.status}"))
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


def _h1(page: object) -> str:
    """The page's heading, without its permalink sign."""
    text = page.locator("article h1").first.inner_text()  # type: ignore[attr-defined]
    return text.strip().removesuffix("¶").strip()


def _browse_to_the_seed_record(page: object) -> None:
    """Home → its count of tags → the tag "mlx" → the seed record, by clicking links."""
    article = page.locator("article")  # type: ignore[attr-defined]
    with page.expect_navigation():  # type: ignore[attr-defined]
        article.get_by_role("link", name="tags", exact=True).click()
    assert _h1(page) == "All tags"
    with page.expect_navigation():  # type: ignore[attr-defined]
        article.get_by_role("link", name="mlx", exact=True).click()
    assert _h1(page) == "Tag: mlx"
    with page.expect_navigation():  # type: ignore[attr-defined]
        article.get_by_role("link", name=sites.SEED_MESSAGE, exact=True).click()
    assert _h1(page) == sites.SEED_MESSAGE


def _search_and_open_the_first_result(page: object) -> None:
    """Paste a concrete message into the search and open the first result."""
    page.keyboard.press("/")  # type: ignore[attr-defined]
    # Material's search says "Initializing search" until its worker is ready, as a person sees.
    page.wait_for_function(  # type: ignore[attr-defined]
        "!document.querySelector('.md-search-result__meta').textContent.includes('Initializing')")
    page.keyboard.type(PASTED)  # type: ignore[attr-defined]  (Material searches on keyup)
    first = page.locator(".md-search-result__item").first  # type: ignore[attr-defined]
    # Results follow the typing: wait for those of the whole message, not of its first words.
    expect(first.locator("h1")).to_have_text(re.compile(r"^Unknown MLX async mode"))
    with page.expect_navigation():  # type: ignore[attr-defined]
        first.locator("a").first.click()
    assert _h1(page) == sites.SEED_MESSAGE


def _switch_light_and_dark(page: object) -> None:
    scheme = 'document.body.getAttribute("data-md-color-scheme")'
    assert page.evaluate(scheme) == "default"  # type: ignore[attr-defined]
    page.locator("form[data-md-component=palette] label:visible").click()  # type: ignore[attr-defined]
    assert page.evaluate(scheme) == "slate"  # type: ignore[attr-defined]
    page.locator("form[data-md-component=palette] label:visible").click()  # type: ignore[attr-defined]
    assert page.evaluate(scheme) == "default"  # type: ignore[attr-defined]


def test_hosted_journey(browser: object, hosted: str) -> None:
    page, watch = _open(browser, DESKTOP)
    page.goto(hosted)  # type: ignore[attr-defined]
    _browse_to_the_seed_record(page)
    _search_and_open_the_first_result(page)
    _switch_light_and_dark(page)
    assert any("/errors/assets/search/" in url for url in watch.requested)  # errdocs' data
    assert not any("/pagefind/" in url for url in watch.requested)  # not the full text
    assert all(_on_site(url, hosted) for url in watch.requested)  # nothing third-party
    _clean(watch)
    page.close()  # type: ignore[attr-defined]


def test_offline_journey_from_disk(browser: object, offline: Path) -> None:
    page, watch = _open(browser, DESKTOP)
    page.goto((offline / "index.html").as_uri())  # type: ignore[attr-defined]
    _browse_to_the_seed_record(page)
    _search_and_open_the_first_result(page)
    _switch_light_and_dark(page)
    assert any("/errors/assets/search/" in url for url in watch.requested)  # not lunr's
    # the search box's and paste box's matching runs in a worker made from a page's script
    assert [url for url in watch.requested if not url.startswith(("file://", "blob:null/"))] == []
    _clean(watch)
    page.close()  # type: ignore[attr-defined]


def test_missing_page_helps_find_the_error(browser: object, hosted: str) -> None:
    page, watch = _open(browser, DESKTOP)
    missing = f"{hosted}errors/sgl-project/sglang/unknown-mlx-async-mode/"
    watch.expected.add(missing)
    response = page.goto(missing)  # type: ignore[attr-defined]
    assert response.status == 404
    assert _h1(page) == "Page not found"
    button = page.locator("[data-errdocs-search-open]")  # type: ignore[attr-defined]
    assert button.inner_text() == "Search for “unknown mlx async mode”"
    button.click()
    first = page.locator(".md-search-result__item").first  # type: ignore[attr-defined]
    expect(first.locator("h1")).to_have_text(sites.SEED_MESSAGE)
    page.keyboard.press("Escape")  # type: ignore[attr-defined]
    with page.expect_navigation():  # type: ignore[attr-defined]
        page.locator("article").get_by_role("link", name="By category").click()  # type: ignore[attr-defined]
    assert _h1(page) == "All categories"
    _clean(watch)
    page.close()  # type: ignore[attr-defined]


@pytest.mark.parametrize("viewport", [PHONE, DESKTOP], ids=["390px", "1440px"])
def test_pages_read_well_on_a_phone_and_a_desktop(browser: object, hosted: str,
                                                  viewport: dict[str, int]) -> None:
    """Screenshots for a person to look at (tests/artifacts/), and what can be measured: the
    page never scrolls sideways, long code lines scroll inside their block."""
    ARTIFACTS.mkdir(exist_ok=True)
    page, watch = _open(browser, viewport)
    for name, path in (("home", ""), ("seed-record", f"{sites.SEED_PAGE}/")):
        page.goto(hosted + path)  # type: ignore[attr-defined]
        width = page.evaluate("document.documentElement.scrollWidth")  # type: ignore[attr-defined]
        assert width <= viewport["width"], f"{name} scrolls sideways at {viewport['width']} px"
        shot = ARTIFACTS / f"{name}-{viewport['width']}.png"
        page.screenshot(path=str(shot), full_page=True)  # type: ignore[attr-defined]
        assert shot.stat().st_size > 10_000
    _clean(watch)
    page.close()  # type: ignore[attr-defined]


def test_search_results_show_record_text_as_text(browser: object, hosted: str) -> None:
    """Result titles and teasers come from the search data as text; none of it becomes
    markup."""
    page, watch = _open(browser, DESKTOP)
    page.goto(hosted)  # type: ignore[attr-defined]
    page.keyboard.press("/")  # type: ignore[attr-defined]
    page.keyboard.type("unsupported dtype")  # type: ignore[attr-defined]
    page.locator(".md-search-result__item").first.wait_for(timeout=10_000)  # type: ignore[attr-defined]
    html = page.locator(".md-search-result__list").inner_html()  # type: ignore[attr-defined]
    tags = set(re.findall(r"<([a-z0-9]+)", html))
    assert tags <= {"li", "a", "article", "div", "h1", "p", "button"}  # the full-text button
    _clean(watch)
    page.close()  # type: ignore[attr-defined]


def _search(page: object, query: str) -> object:
    """Open the search with the `s` key, type ``query``; the results' list."""
    page.keyboard.press("s")  # type: ignore[attr-defined]
    page.keyboard.type(query)  # type: ignore[attr-defined]
    return page.locator(".md-search-result__item")  # type: ignore[attr-defined]


@pytest.mark.parametrize("query", [sites.SEED_MESSAGE, "ValueError: " + PASTED],
                         ids=["template", "pasted"])
def test_search_opens_the_seed_record_by_its_message(browser: object, hosted: str,
                                                     query: str) -> None:
    """The seed's message as the data has it, and as a program printed it (a concrete value,
    its class in front): the seed is the first result, and Enter opens it."""
    page, watch = _open(browser, DESKTOP)
    page.goto(hosted)  # type: ignore[attr-defined]
    results = _search(page, query)
    expect(results.first.locator("h1")).to_have_text(sites.SEED_MESSAGE)
    expect(results.first.locator("p").first).to_have_text("sgl-project/sglang · ValueError")
    with page.expect_navigation():  # type: ignore[attr-defined]
        page.keyboard.press("Enter")  # type: ignore[attr-defined]
    assert page.url == f"{hosted}{sites.SEED_PAGE}/"  # type: ignore[attr-defined]
    _clean(watch)
    page.close()  # type: ignore[attr-defined]


def _sample_records() -> list[dict]:
    return [json.loads(line)["record"] for line in sites.SAMPLE.read_text("utf-8").splitlines()]


@pytest.mark.parametrize(("query", "field"), [("internal-contract", "tags"),
                                              ("northwind-io/gridcache", "repo")])
def test_search_finds_the_records_of_a_tag_and_of_a_repository(
        browser: object, hosted: str, query: str, field: str) -> None:
    """Records holding every word of the query come first (then those holding some)."""
    wanted = sorted(r["errorMessage"] for r in _sample_records()
                    if query in (r[field] if field == "tags" else [r[field]]))
    assert 1 < len(wanted) < 10
    page, watch = _open(browser, DESKTOP)
    page.goto(hosted)  # type: ignore[attr-defined]
    results = _search(page, query)
    results.nth(len(wanted) - 1).wait_for()
    assert sorted(results.locator("h1").all_inner_texts()[:len(wanted)]) == wanted
    _clean(watch)
    page.close()  # type: ignore[attr-defined]


def test_search_finds_the_hand_written_about_page(browser: object, hosted: str) -> None:
    page, watch = _open(browser, DESKTOP)
    page.goto(hosted + f"{sites.SEED_PAGE}/")  # type: ignore[attr-defined]
    results = _search(page, "about")
    expect(results.first.locator("h1")).to_have_text("About these pages")
    assert results.first.locator("a").get_attribute("href") == f"{hosted}about/"
    _clean(watch)
    page.close()  # type: ignore[attr-defined]


def test_full_text_search_loads_pagefind_only_when_asked(browser: object, hosted: str) -> None:
    """The site is built with --full-text: errdocs' results come first, with a button that
    loads Pagefind's index."""
    page, watch = _open(browser, DESKTOP)
    page.goto(hosted)  # type: ignore[attr-defined]
    results = _search(page, "finalize_mlx_result")  # only in the seed's prose, not its words
    button = page.get_by_role("button", name="Search the full text")  # type: ignore[attr-defined]
    button.wait_for()
    assert not any("/pagefind/" in url for url in watch.requested)
    button.click()
    expect(page.locator("[data-errdocs-search-meta]")).to_have_text(  # type: ignore[attr-defined]
        re.compile(r"^Full text: \d+ matching"))
    expect(results.first.locator("h1")).to_have_text(sites.SEED_MESSAGE)
    assert any("/pagefind/" in url for url in watch.requested)
    assert all(_on_site(url, hosted) for url in watch.requested)
    _clean(watch)
    page.close()  # type: ignore[attr-defined]
