"""The offline bundle's search box and paste box answer as the hosted site's: the bundle opened
from ``file://`` in Chromium, the hosted site served on 127.0.0.1, the same pasted messages
(from the sample dataset) typed into both."""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from . import sites

if TYPE_CHECKING:  # only the fixture starts Playwright
    from playwright.sync_api import Browser, ConsoleMessage, Page, ViewportSize

ARTIFACTS = sites.ROOT / "tests" / "artifacts"
PHONE: ViewportSize = {"width": 390, "height": 844}
DESKTOP: ViewportSize = {"width": 1440, "height": 900}
PASTED = (
    "Unknown MLX async mode: turbo",
    "The model `gpt-5-mini` does not exist.",
    "worker channel closed while tasks were pending",
    'Unexpected token "}" at line 12, expected identifier',
    "paged_attn: unsupported head_dim 96 (supported: 64, 128, 256)",
)
"""Concrete messages of records of data/sample.jsonl, as a user pastes them."""
FIRST = 3
"""Results that must be the same, in the same order."""
_COUNT = re.compile(r"^(\d+|No) matching")

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not sites.CHROMIUM.exists(),
                       reason="needs Debian's chromium (/usr/bin/chromium)"),
]


def _page(browser: Browser, viewport: ViewportSize = DESKTOP) -> tuple[Page, list[str]]:
    page = browser.new_page(viewport=viewport)
    page.set_default_timeout(20_000)
    errors: list[str] = []

    def console(message: ConsoleMessage) -> None:
        if message.type == "error":
            errors.append(message.text)

    page.on("pageerror", lambda error: errors.append(str(error)))
    page.on("console", console)
    return page, errors


def _where(href: str, root: str) -> str:
    """A result's page, the same for both sites: ``errors/o/r/slug`` for
    ``{hosted}errors/o/r/slug/`` and ``file://.../errors/o/r/slug.html``."""
    assert href.startswith(root), (href, root)
    path = href[len(root):].split("#")[0]
    return path.removesuffix(".html").removesuffix("/").removesuffix("/index").removesuffix(
        "index")


def _search_box(page: Page, home: str, query: str) -> tuple[int, list[str]]:
    """Type ``query`` into the header's search box; its result count and result links."""
    page.goto(home)
    page.keyboard.press("/")
    page.fill("[data-errdocs-search-query]", query)
    meta = page.locator("[data-errdocs-search-meta]")
    page.wait_for_function(
        "el => /^(\\d+|No) matching/.test(el.textContent.trim())", arg=meta.element_handle())
    found = _COUNT.match(meta.inner_text().strip())
    assert found is not None
    links = page.locator(".md-search-result__link")
    return (0 if found.group(1) == "No" else int(found.group(1)),
            [links.nth(i).get_attribute("href") or "" for i in range(links.count())])


def _paste_box(page: Page, home: str, query: str) -> list[str]:
    """Paste ``query`` into the home page's box; the links it answers with."""
    page.goto(home)
    page.fill("form[data-errdocs-lookup] textarea", query)
    page.click("form[data-errdocs-lookup] button[type=submit]")
    page.wait_for_function(
        "() => { const s = document.querySelector('.errdocs-lookup__status').textContent;"
        " return s && !s.includes('Looking'); }")
    links = page.locator(".errdocs-lookup__results li a")
    return [page.evaluate("a => a.href", links.nth(i).element_handle())
            for i in range(links.count())]


def test_the_bundles_search_box_answers_as_the_hosted_one(browser: Browser, hosted: str,
                                                          offline: Path) -> None:
    page, errors = _page(browser)
    home, root = (offline / "index.html").as_uri(), offline.as_uri() + "/"
    for query in PASTED:
        there, there_links = _search_box(page, hosted, query)
        here, here_links = _search_box(page, home, query)
        hosted_first = [_where(h, hosted) for h in there_links[:FIRST]]
        assert there >= 1 and hosted_first, query
        assert [_where(h, root) for h in here_links[:FIRST]] == hosted_first, query
        assert here <= 2 * there, (query, here, there)
    assert errors == []
    page.close()


def test_the_bundles_paste_box_answers_as_the_hosted_one(browser: Browser, hosted: str,
                                                         offline: Path) -> None:
    page, errors = _page(browser)
    home, root = (offline / "index.html").as_uri(), offline.as_uri() + "/"
    for query in PASTED:
        there = [_where(h, hosted) for h in _paste_box(page, hosted, query)]
        here = [_where(h, root) for h in _paste_box(page, home, query)]
        assert there, query
        assert here[:FIRST] == there[:FIRST], query
        assert len(here) <= 2 * len(there), query
    assert errors == []
    page.close()


def test_a_result_opens_from_disk(browser: Browser, offline: Path) -> None:
    page, errors = _page(browser)
    requested: list[str] = []
    page.on("request", lambda r: requested.append(r.url))
    _count, links = _search_box(page, (offline / "index.html").as_uri(), PASTED[0])
    assert links[0] == (offline / sites.SEED_PAGE / "index.html").as_uri()
    with page.expect_navigation():
        page.locator(".md-search-result__link").first.click()
    heading = page.locator("article h1").first.inner_text()
    assert heading.strip().removesuffix("¶").strip() == sites.SEED_MESSAGE
    assert [u for u in requested if not u.startswith(("file://", "blob:", "data:"))] == []
    assert errors == []
    page.close()


@pytest.mark.parametrize("viewport", [PHONE, DESKTOP], ids=["390px", "1440px"])
@pytest.mark.parametrize("scheme", ["default", "slate"])
def test_screenshots_of_the_bundle_from_disk(browser: Browser, offline: Path,
                                             viewport: ViewportSize, scheme: str) -> None:
    """Screenshots for a person to look at (tests/artifacts/bundle-*.png), and what can be
    measured: the page never scrolls sideways."""
    ARTIFACTS.mkdir(exist_ok=True)
    page, errors = _page(browser, viewport)
    for name, path in (("home", "index.html"), ("record", f"{sites.SEED_PAGE}/index.html")):
        page.goto((offline / path).as_uri())
        page.evaluate(
            f"document.body.setAttribute('data-md-color-scheme', '{scheme}')")
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= viewport["width"], (name, width)
        page.screenshot(path=str(ARTIFACTS / f"bundle-{name}-{viewport['width']}-{scheme}.png"),
                        full_page=False)
    assert errors == []
    page.close()


def _opened_a_page(page: Page, root: str) -> str:
    """The page shown is a file of the bundle with a heading (not a folder's listing)."""
    assert page.url.startswith(root) and page.url.split("#")[0].endswith(".html"), page.url
    return page.locator("article h1").first.inner_text().strip().removesuffix("¶").strip()


def test_nav_a_listing_a_record_and_an_id_page_open_from_disk(browser: Browser,
                                                             offline: Path) -> None:
    """Every link of the site's nav, clicked from the home page opened from ``file://``, opens
    a page; then a listing's row opens its record, and a permalink page (``/id/<id>/``)
    sends the reader on to its record."""
    page, errors = _page(browser)
    root = offline.as_uri() + "/"
    page.goto(root + "index.html")
    nav = page.locator(".md-sidebar--primary a.md-nav__link[href]")
    hrefs = sorted({nav.nth(i).get_attribute("href") or "" for i in range(nav.count())
                    if nav.nth(i).is_visible()} - {""})
    hrefs = [h for h in hrefs if not h.startswith("#")]  # the page's own headings
    assert len(hrefs) >= 4, hrefs
    titles = []
    for href in hrefs:
        page.goto(root + "index.html")
        with page.expect_navigation():
            link = f'.md-sidebar--primary a.md-nav__link[href="{href}"]:visible'
            page.locator(link).first.click()
        titles.append(_opened_a_page(page, root))
    assert "All categories" in titles and len(set(titles)) == len(hrefs), titles
    page.goto(root + "errors/acme-labs/tensorpipe/index.html")
    row = page.locator(".errdocs-rows li a").first
    message = row.inner_text().strip()
    with page.expect_navigation():
        row.click()
    assert _opened_a_page(page, root) == message
    page.goto(f"{root}id/{sites.SEED_ID}/index.html")
    page.wait_for_url(f"{root}{sites.SEED_PAGE}/index.html")
    assert _opened_a_page(page, root) == sites.SEED_MESSAGE
    assert errors == []
    page.close()
