"""The listings' filters in Chromium (issue 13, items 3 and 6): filter a repository page by a
class, reload its address, go Back, open a row; the same from the offline bundle opened from
disk; several facets at once and paged results on listings filtered from value lists; record
text that stays text; what one filter action downloads; screenshots in both colour schemes
(tests/artifacts/) for a person to look at."""

from __future__ import annotations

import json
import shutil
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

import pytest

from errdocs.catalog import facets
from errdocs.catalog.model import GroupKind, build_catalog
from errdocs.pages import filters

from . import sites

if TYPE_CHECKING:  # only the fixture starts Playwright
    from playwright.sync_api import Browser, ConsoleMessage, Dialog, Page, Response
from .helpers import read_all

ARTIFACTS = sites.ROOT / "tests" / "artifacts"
REPO = "acme-labs/tensorpipe"
REPO_PAGE = "errors/acme-labs/tensorpipe/"
ROWS = ".errdocs-filter__rows > ul > li"
STATIC_ROWS = ".errdocs-rows:not(.errdocs-filter__rows) > ul > li"
HOSTILE_CLASS = "<script>alert('class')</script>\"Err"
HOSTILE_MESSAGE = "<img src=x onerror=alert(1)> broke \"quoted\" & 'single'"
HOSTILE_MEANING = "</script><script>alert(2)</script> It means <b>nothing</b>."

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not sites.CHROMIUM.exists(), reason="needs Debian's chromium"),
]


@dataclass
class Opened:
    """A page and what it did: filter data files fetched, dialogs and script errors."""

    page: Page
    fetched: dict[str, int]
    """URL to body size of every filter data file loaded."""
    trouble: list[str]


def _open(browser: Browser, width: int = 1440, *, javascript: bool = True) -> Opened:
    context = browser.new_context(
        viewport={"width": width, "height": 900}, java_script_enabled=javascript)
    page = context.new_page()
    opened = Opened(page, {}, [])

    def dialog(shown: Dialog) -> None:
        opened.trouble.append(f"dialog {shown.message}")
        shown.dismiss()

    def console(message: ConsoleMessage) -> None:
        if message.type == "error":
            opened.trouble.append(message.text)

    page.on("dialog", dialog)
    page.on("pageerror", lambda error: opened.trouble.append(f"error {error}"))
    page.on("console", console)

    def fetched(response: Response) -> None:
        url = response.url
        if "/assets/filter/" in url:
            opened.fetched[url] = len(response.body())

    page.on("response", fetched)
    return opened


def _choose(page: Page, name: str, value: str) -> None:
    page.select_option(f".errdocs-filter select[name={name}]", value)
    _settled(page)


def _settled(page: Page) -> None:
    page.wait_for_function(
        "() => { const s = document.querySelector('.errdocs-filter__status');"
        " return s && !s.textContent.startsWith('Loading'); }")


def _classes(page: Page) -> list[str]:
    """The class shown on each filtered row (its first ``code``)."""
    facts = page.locator(f"{ROWS} .errdocs-row__facts")
    return [facts.nth(i).locator("code").first.inner_text() for i in range(facts.count())]


def _panic_count() -> int:
    catalog = build_catalog(read_all([sites.SAMPLE]).records)
    return sum(e.error_class == "panic" for e in catalog.group_of(GroupKind.REPO, REPO).entries)


def _filter_open_reload(opened: Opened, url: str, suffix: str) -> None:
    """Filter the repository page at ``url`` by class ``panic``: only its records remain; the
    address keeps it through a reload; Back shows the whole list; a row opens its page."""
    page = opened.page
    page.goto(url)
    whole = page.locator(STATIC_ROWS).count()
    assert whole == 6
    _choose(page, "class", "panic")
    assert _classes(page) == ["panic"] * _panic_count() and _panic_count() == 2
    assert not page.locator(STATIC_ROWS).first.is_visible()
    assert page.url.endswith(f"{suffix}?class=panic")
    page.reload()
    _settled(page)
    assert _classes(page) == ["panic", "panic"]
    assert page.locator(".errdocs-filter select[name=class]").input_value() == "panic"
    page.go_back()
    page.wait_for_function("() => !location.search")
    assert page.locator(STATIC_ROWS).first.is_visible()
    assert not page.locator(".errdocs-filter__clear").is_visible()
    page.go_forward()
    _settled(page)
    link = page.locator(f"{ROWS} a").first
    message = link.inner_text()
    link.click()
    assert page.locator("h1").inner_text().rstrip("¶") == message
    assert opened.trouble == []


def test_filter_a_repository_page_by_class_reload_and_open_a_row(browser: Browser,
                                                                 hosted: str) -> None:
    opened = _open(browser, 390)
    _filter_open_reload(opened, hosted + REPO_PAGE, REPO_PAGE)
    assert opened.page.url.startswith(hosted + "errors/acme-labs/tensorpipe/")
    opened.page.close()


def test_the_same_from_the_offline_bundle_opened_from_disk(browser: Browser,
                                                           offline: Path) -> None:
    opened = _open(browser)
    page_file = offline / "errors" / "acme-labs" / "tensorpipe" / "index.html"
    _filter_open_reload(opened, page_file.as_uri(), "tensorpipe/index.html")
    assert opened.page.url.startswith(offline.as_uri() + "/errors/acme-labs/tensorpipe/")
    assert opened.page.url.endswith(".html")
    opened.page.close()


def test_one_filter_action_loads_the_files_expected_and_little(browser: Browser,
                                                               hosted: str) -> None:
    """Page load and one filter: exactly the files filters.action_files names, under 200 KB."""
    opened = _open(browser)
    opened.page.goto(hosted + REPO_PAGE)
    _choose(opened.page, "class", "panic")
    # Playwright hands over the response events during its next call: wait for the network to
    # go quiet, so every file the action loaded has been counted (it flaked under load).
    opened.page.wait_for_load_state("networkidle")
    catalog = build_catalog(read_all([sites.SAMPLE]).records)
    group = catalog.group_of(GroupKind.REPO, REPO)
    param = next(p for p in filters.PARAMS if p.name == "class")
    expected = filters.action_files(facets.group_filter(group), group.entries, param, "panic",
                                    filters.row_file_count(len(catalog.entries)))
    folder = f"{hosted}errors/"
    assert sorted(u.removeprefix(folder) for u in opened.fetched) == sorted(expected)
    assert 0 < sum(opened.fetched.values()) < 200_000
    opened.page.close()


def test_without_javascript_the_paged_list_reads_as_it_is(browser: Browser, hosted: str) -> None:
    opened = _open(browser, javascript=False)
    opened.page.goto(hosted + REPO_PAGE + "?class=panic")
    assert opened.page.locator(STATIC_ROWS).count() == 6
    assert not opened.page.locator(".errdocs-filter").is_visible()
    opened.page.close()


# ---- listings filtered from value lists (tiny pages), hostile text --------------------------


def _hostile_lines() -> str:
    seed = json.loads(sites.SAMPLE.read_text("utf-8").splitlines()[0])
    lines = []
    for n, klass in enumerate((HOSTILE_CLASS, HOSTILE_CLASS, "Plain")):
        record = dict(seed["record"], id=f"evil{n}", repo="evil/repo", errorClass=klass,
                      errorMessage=f"{HOSTILE_MESSAGE} {n}", documentation=HOSTILE_MEANING,
                      filePath=f"src/<b>{n}</b>\"x'.py", lineNumber=n + 1)
        lines.append(json.dumps(dict(seed, record=record)))
    return "\n".join(lines) + "\n"


@pytest.fixture(scope="module")
def listed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The sample and three hostile records, built with listings over 3 records filtered from
    value lists of 2 ids a file (so a few records page), served."""
    project = sites.copy_project(tmp_path_factory.mktemp("filters"))
    data = project / "records.jsonl"
    shutil.copy(sites.SAMPLE, data)
    with data.open("a", encoding="utf-8") as out:
        out.write(_hostile_lines())
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(filters, "SMALL", 3)
        patch.setattr(filters, "PAGE", 2)
        settings, _ = sites.build_project(project, data)
    with sites.serve(settings.site_dir, urlsplit(sites.SITE_URL).path) as url:
        yield url


def test_several_facets_and_pages_of_a_listing_filtered_from_its_value_lists(
        browser: Browser, listed: str) -> None:
    opened = _open(browser)
    page = opened.page
    page.goto(listed + REPO_PAGE + "?severity=error")
    _settled(page)
    status = page.locator(".errdocs-filter__status")
    assert status.inner_text() == "4 errors with severity “error”, 1–2:"
    first = page.locator(f"{ROWS} a").all_inner_texts()
    page.get_by_role("link", name="Next").click()
    _settled(page)
    assert page.url.endswith("?severity=error&page=2")
    second = page.locator(f"{ROWS} a").all_inner_texts()
    assert len(first) == len(second) == 2 and not set(first) & set(second)
    _choose(page, "severity", "")
    _choose(page, "class", "panic")
    _choose(page, "handling", "propagate")  # read from class panic's list, the rarer
    assert page.url.endswith("?class=panic&handling=propagate")
    assert status.inner_text().endswith("among errors 1–2 of the 2 with class “panic”.")
    group = build_catalog(read_all([sites.SAMPLE]).records).group_of(GroupKind.REPO, REPO)
    wanted = [e.message for e in group.entries if e.error_class == "panic"
              and e.handling == "propagate"]
    assert 0 < len(wanted) < _panic_count()  # the other filter left some of panic's out
    assert page.locator(f"{ROWS} a").all_inner_texts() == wanted
    page.goto(listed + "errors/?repo=evil/repo&class=Plain")
    _settled(page)  # the catalogue, by repository and class
    assert [t.split(" ")[0] for t in page.locator(f"{ROWS} a").all_inner_texts()] == ["<img"]
    assert opened.trouble == []
    page.close()


def test_record_text_stays_text_in_the_filtered_rows(browser: Browser, listed: str) -> None:
    opened = _open(browser)
    page = opened.page
    page.goto(listed + "errors/evil/repo/")
    _choose(page, "class", HOSTILE_CLASS)
    assert page.url.count("class=") == 1
    rows = page.locator(ROWS)
    assert rows.count() == 2
    assert _classes(page) == [HOSTILE_CLASS, HOSTILE_CLASS]
    texts = rows.all_inner_texts()
    assert all(HOSTILE_MESSAGE in t and "</script><script>alert(2)</script>" in t for t in texts)
    assert all("src/<b>" in t and "</b>\"x'.py" in t for t in texts)
    assert rows.locator("img, b, script").count() == 0
    hrefs = [a.get_attribute("href") for a in rows.locator("a").all()]
    assert all(h and h.startswith(listed + "errors/evil/repo/") for h in hrefs)
    page.reload()
    _settled(page)
    assert _classes(page) == [HOSTILE_CLASS, HOSTILE_CLASS]
    assert opened.trouble == []
    page.close()


@pytest.mark.parametrize("width", (390, 1440))
def test_screenshots_of_a_filtered_repository_page(browser: Browser, hosted: str,
                                                   width: int) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    opened = _open(browser, width)
    page = opened.page
    for scheme in ("default", "slate"):
        page.goto(hosted + REPO_PAGE + "?severity=error")
        _settled(page)
        page.evaluate(f"document.body.setAttribute('data-md-color-scheme', '{scheme}')")
        sites.transitions_ended(page)
        assert page.evaluate("document.documentElement.scrollWidth") <= width
        shot = ARTIFACTS / f"filters-repository-{width}-{scheme}.png"
        page.screenshot(path=str(shot), full_page=True)
        assert shot.stat().st_size > 10_000
    assert opened.trouble == []
    page.close()


@pytest.mark.parametrize("width", (1024, 1440))
def test_the_clear_button_shares_a_line_with_the_selects(browser: Browser, hosted: str,
                                                         width: int) -> None:
    """From a tablet up, the Clear button shown once a filter is on sits beside the last select
    of a repository page's bar, not alone on a line of its own."""
    opened = _open(browser, width)
    page = opened.page
    page.goto(hosted + REPO_PAGE + "?severity=error")
    _settled(page)
    clear = sites.box(page.locator(".errdocs-filter__clear"))
    selects = page.locator(".errdocs-filter select")
    last = sites.box(selects.nth(selects.count() - 1))
    assert selects.count() >= 4
    assert clear["y"] < last["y"] + last["height"] and last["y"] < clear["y"] + clear["height"]
    assert clear["x"] > last["x"] + last["width"]
    page.close()


_BUDGET = 110
"""A facet's bytes in the ``budgeted`` site: about three classes of the catalogue offered."""


@pytest.fixture(scope="module")
def budgeted(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The sample built with facets offering what fits in :data:`_BUDGET` bytes, served."""
    project = sites.copy_project(tmp_path_factory.mktemp("budget"))
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(filters, "FACET_BYTES", _BUDGET)
        settings, _ = sites.build_project(project)
    with sites.serve(settings.site_dir, urlsplit(sites.SITE_URL).path) as url:
        yield url


def test_a_facet_says_it_lists_only_the_most_common_values(
        browser: Browser, budgeted: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The class select of the catalogue lists what fits, then says how many errors have the
    values it leaves out; an offered value filters exactly (records whose value is left out
    are placed at -1 in the summary's table)."""
    monkeypatch.setattr(filters, "FACET_BYTES", _BUDGET)
    entries = list(build_catalog(read_all([sites.SAMPLE]).records).entries.values())
    ranked = facets.ranked(Counter(facets.value_of(e, facets.CLASS) for e in entries))
    offered = filters.offer(ranked)
    assert 2 <= len(offered) < len(ranked)
    opened = _open(browser)
    page = opened.page
    page.goto(budgeted + "errors/")
    page.wait_for_selector(".errdocs-filter select[name=class]")
    options = page.locator(".errdocs-filter select[name=class] option")
    texts = options.all_inner_texts()
    assert texts[1:-1] == [f"{value} ({count})" for value, count in offered]
    hidden = len(entries) - sum(count for _, count in offered)
    assert texts[-1] == (f"Only the most common are listed: {hidden} more errors "
                         "with rarer values")
    assert options.nth(len(texts) - 1).is_disabled()
    value, count = offered[1]
    _choose(page, "class", value)
    assert _classes(page) == [value] * count
    assert opened.trouble == []
    page.close()
