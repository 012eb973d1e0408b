"""Listing pages in Chromium (issue 13): rows that tell records apart, the home page's
catalogue, the tags index's two orders; screenshots (tests/artifacts/) for a person to look
at, in both colour schemes."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from . import sites

if TYPE_CHECKING:  # only the fixture starts Playwright
    from playwright.sync_api import Browser

ARTIFACTS = sites.ROOT / "tests" / "artifacts"
REPO_PAGE = "errors/acme-labs/tensorpipe/"
WIDTHS = (390, 1440)

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not sites.CHROMIUM.exists(), reason="needs Debian's chromium"),
]


def test_a_repository_page_tells_its_rows_apart_and_opens_one(browser: Browser,
                                                              hosted: str) -> None:
    page = browser.new_page(viewport={"width": 390, "height": 844})
    page.goto(hosted + REPO_PAGE)
    rows = page.locator(".errdocs-rows > ul > li")
    assert rows.count() == 6
    facts = rows.locator(".errdocs-row__facts").all_inner_texts()
    assert len(set(facts)) == 6 and all(":" in f and "acme-labs" not in f for f in facts)
    titles = page.locator(".errdocs-chart svg title").all_text_contents()
    assert [t.split(":")[0] for t in titles] == ["Errors by kind", "Errors by severity"]
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    link = rows.nth(1).locator("a").first
    message = link.inner_text()
    link.click()
    assert page.locator("h1").inner_text().rstrip("¶") == message  # the permalink sign
    page.close()


def test_the_home_page_shows_the_catalogue_and_the_tags_index_sorts(browser: Browser,
                                                                     hosted: str) -> None:
    page = browser.new_page(viewport={"width": 1440, "height": 900})
    page.goto(hosted)
    # the paste box first
    assert sites.top(page.locator(".errdocs-lookup")) < sites.top(page.locator(".errdocs-counts"))
    tiles = page.locator(".errdocs-counts li").all_inner_texts()
    assert [t.split()[0] for t in tiles] == ["40", "7", "8", "64"]
    assert page.locator("h2", has_text="Analysed most recently").count() == 1
    page.goto(hosted + "errors/tags/")
    names = page.locator("table tbody td:first-child").all_inner_texts()
    page.get_by_role("link", name="Tag", exact=True).click()
    by_name = page.locator("table tbody td:first-child").all_inner_texts()
    assert by_name == sorted(names, key=str.casefold) and by_name != names
    page.close()


_CHART_LABELS_OUTSIDE = """() => [...document.querySelectorAll('.errdocs-chart')].flatMap((f) => {
  const box = f.getBoundingClientRect();
  return [...f.querySelectorAll('text')].filter((t) => {
    const r = t.getBoundingClientRect();
    return r.left < box.left - 1 || r.right > box.right + 1;
  }).map((t) => t.textContent);
})"""
"""The charts' labels drawn outside their figure (cut off at a phone's edge)."""


@pytest.mark.parametrize("width", WIDTHS)
def test_screenshots_of_home_a_repository_and_the_tags_index(browser: Browser, hosted: str,
                                                            width: int) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    page = browser.new_page(viewport={"width": width, "height": 900})
    for name, path in (("home", ""), ("repository", REPO_PAGE), ("tags", "errors/tags/")):
        for scheme in ("default", "slate"):
            page.goto(hosted + path)
            page.evaluate(f"document.body.setAttribute('data-md-color-scheme', '{scheme}')")
            sites.transitions_ended(page)
            assert page.evaluate("document.documentElement.scrollWidth") <= width, (name, scheme)
            assert page.evaluate(_CHART_LABELS_OUTSIDE) == [], (name, width)
            shot = ARTIFACTS / f"listings-{name}-{width}-{scheme}.png"
            page.screenshot(path=str(shot), full_page=True)
            assert shot.stat().st_size > 10_000
    page.close()
