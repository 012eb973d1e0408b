"""Every page built from the hostile fixture, opened in Chromium: nothing runs that we did not put.

The site is built by the real ``errdocs build`` and served from 127.0.0.1; Debian's Chromium is
driven through Playwright. A dialog (``alert``), an uncaught script error or a console error on
any page fails the test, and so does a request off the machine or any of these while searching
the hostile text.
"""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from playwright.sync_api import Browser, ConsoleMessage, Dialog, Page, Request

from . import sites
from .test_hostile import GOOD_IDS, HOSTILE, record_pages, run

CHROMIUM = sites.CHROMIUM

LOCAL = ("http://127.0.0.1:", "file://", "data:", "blob:")
"""Where a page may load things from: the test's own server, the disk, inline data."""

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not CHROMIUM.exists(), reason="Debian's Chromium is not installed"),
]


@dataclass
class _Events:
    """What a page did that it should not have."""

    seen: list[tuple[str, str, str]] = field(default_factory=list)
    """(kind, url, text) of each dialog, page error, console error and request that leaves the
    machine (a record's image or link must never be fetched)."""


@pytest.fixture(scope="module")
def hostile_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The site of the hostile fixture, built through the CLI."""
    project = sites.copy_project(tmp_path_factory.mktemp("hostile-site"))
    shutil.copy(HOSTILE, project / "hostile.jsonl")
    result = run("build", "--config-file", str(project / "mkdocs.yml"),
                 str(project / "hostile.jsonl"))
    assert result.exit_code == 0, result.output
    assert set(record_pages(project / "docs" / "errors")) == GOOD_IDS
    return project / "site"


@pytest.fixture(scope="module")
def base_url(hostile_site: Path) -> Iterator[str]:
    with sites.serve(hostile_site) as url:
        yield url


@pytest.fixture(scope="module")
def browser(hostile_site: Path) -> Iterator[Browser]:
    """Chromium, started after the site is built: the build's Pagefind step runs an asyncio
    loop, which cannot start inside the one Playwright's sync API keeps running."""
    with sites.chromium() as chromium:
        yield chromium


@pytest.fixture
def watched(browser: Browser) -> Iterator[tuple[Page, _Events]]:
    """A fresh page whose dialogs, page errors and console errors are recorded."""
    events = _Events()
    page = browser.new_page()

    def on_dialog(dialog: Dialog) -> None:
        events.seen.append(("dialog", page.url, dialog.message))
        dialog.dismiss()

    def on_console(message: ConsoleMessage) -> None:
        if message.type == "error":
            events.seen.append(("console", page.url, message.text))

    page.on("dialog", on_dialog)
    page.on("pageerror", lambda error: events.seen.append(("pageerror", page.url, str(error))))
    page.on("console", on_console)

    def on_request(request: Request) -> None:
        if not request.url.startswith(LOCAL):
            events.seen.append(("request", page.url, request.url))

    page.on("request", on_request)
    try:
        yield page, events
    finally:
        page.close()


def test_the_watch_sees_a_planted_alert_error_console_error_and_request(
        watched: tuple[Page, _Events], tmp_path: Path) -> None:
    """The listeners are what the tests below rely on: show that they fire."""
    page, events = watched
    planted = tmp_path / "planted.html"
    # 127.0.0.2 stands for "off the site" without sending anything off the machine.
    planted.write_text("<script>alert('planted')</script><script>console.error('c')</script>"
                       "<script>throw new Error('boom')</script>"
                       '<img src="http://127.0.0.2:9/tracker.png">', "utf-8")
    page.goto(planted.as_uri())
    assert {kind for kind, _, _ in events.seen} == {"console", "dialog", "pageerror", "request"}


def test_no_page_opens_a_dialog_or_logs_an_error(
        hostile_site: Path, base_url: str, watched: tuple[Page, _Events]) -> None:
    page, events = watched
    html_pages = sorted(p.relative_to(hostile_site).as_posix()
                        for p in hostile_site.rglob("*.html"))
    records = [p for p in html_pages if p.startswith("errors/") and p.count("/") == 4
               and "/index/by-name/" not in p]  # the indexes by name are no records
    assert len(records) == len(GOOD_IDS)
    for relative in html_pages:
        if relative.startswith("id/"):  # a redirect: the refresh interrupts its own load
            page.goto(base_url + relative, wait_until="commit")
            page.wait_for_url(lambda url: "/id/" not in url)
            page.wait_for_load_state("load")
        else:
            page.goto(base_url + relative, wait_until="load")
    assert events.seen == []


def test_searching_and_highlighting_hostile_text_runs_nothing(
        base_url: str, watched: tuple[Page, _Events]) -> None:
    page, events = watched
    page.goto(base_url + "errors/acme/widgets/xss-everywhere/?h=script+alert+img",
              wait_until="load")
    search, results = page.locator("input.md-search__input"), page.locator(".md-search-result")
    for query in ["src=x", "pwned", "Widget", "{{", "Ошибка", "onerror=alert(1)&gt;&lt;iframe"]:
        search.fill("")
        search.click()
        page.keyboard.type(query)  # Material searches on key events, not on a filled value
        if query == "src=x":  # the hostile title and text are shown in the results
            results.get_by_text('<img src=x onerror=alert(1)><iframe src="javascript').first \
                .wait_for()
        # Wait until the list shows this query's answer: a script it let in would have run.
        answered = json.dumps(query, ensure_ascii=False)  # a CSS string: \" and \\ escaped
        page.locator(f"[data-errdocs-search][data-answered={answered}]").wait_for(state="attached")
        page.keyboard.press("Escape")
    assert events.seen == []


XSS = ('<script>alert("xss")</script><img src=x onerror=alert(1)>'
       '<iframe src="javascript:alert(2)"></iframe>')
"""The message, class, tag and documentation of the hostile fixture's ``xss-everywhere``."""


def test_the_search_box_shows_hostile_record_text_as_text(
        base_url: str, watched: tuple[Page, _Events]) -> None:
    """errdocs' search (the hosted site's) puts message, class and meaning on the page as text."""
    page, events = watched
    page.goto(base_url, wait_until="load")
    page.keyboard.press("/")
    page.keyboard.type("onerror iframe javascript")
    first = page.locator(".md-search-result__item").first
    first.wait_for()
    assert first.locator("h1").inner_text() == XSS
    assert first.locator("p").all_inner_texts() == [f"acme/widgets · {XSS}", XSS]
    html = page.locator(".md-search-result__list").inner_html()
    assert set(re.findall(r"<([a-z0-9]+)", html)) <= {"li", "a", "article", "div", "h1", "p"}
    assert events.seen == []
