"""Record pages as a person reads them, in Debian's Chromium (through Playwright): the header
answers "is this my error?", the raising line is unmistakable in both colour schemes and on a
phone, and axe-core finds no serious or critical accessibility violation.

Screenshots of three record pages (Python, Rust, Go) at 390 and 1440 px, light and dark, go to
tests/artifacts/ for a person to look at.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass

import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import Browser, Page, ViewportSize

from . import sites
from .conftest import Built

CHROMIUM = sites.CHROMIUM
ARTIFACTS = sites.ROOT / "tests" / "artifacts"
PHONE: ViewportSize = {"width": 390, "height": 844}
DESKTOP: ViewportSize = {"width": 1440, "height": 900}
SCHEMES = ["default", "slate"]

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not CHROMIUM.exists(), reason="needs Debian's chromium (/usr/bin/chromium)"),
]


@dataclass(frozen=True)
class Sample:
    """A record page of the sample and what it must show."""

    name: str
    """Its language, for the screenshots' names."""
    path: str
    """Its address in the site."""
    record: dict
    """The record."""
    printed: str
    """The error as the program prints it."""


def _records() -> dict[str, dict]:
    rows = [json.loads(line)["record"] for line in sites.SAMPLE.read_text("utf-8").splitlines()]
    return {r["id"]: r for r in rows}


RECORDS = _records()
SAMPLES = [
    Sample("python", f"{sites.SEED_PAGE}/", RECORDS[sites.SEED_ID],
           "ValueError: Unknown MLX async mode: {launch.mode}"),
    Sample("rust", "errors/acme-labs/tensorpipe/"
           "shape-mismatch-expected-rows-cols-got-got-rows-got-cols/", RECORDS["f1a9df4484123cce"],
           "shape mismatch: expected [{rows}, {cols}], got [{got_rows}, {got_cols}]"),
    Sample("go", "errors/northwind-io/gridcache/"
           "gridcache-invalid-shard-count-n-must-be-a-power-of-two/", RECORDS["f136caa6e39c9fb5"],
           "gridcache: invalid shard count {n}: must be a power of two"),
]
IDS = [s.name for s in SAMPLES]


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with sites.chromium() as launched:
        yield launched


def _open(browser: Browser, url: str, viewport: ViewportSize, scheme: str = "default") -> Page:
    """``url`` in a browser whose system asks for the light or the dark scheme (mkdocs.yml's
    palette follows it from the start, so no colour is caught mid-transition)."""
    page = browser.new_page(viewport=viewport,
                            color_scheme="dark" if scheme == "slate" else "light")
    page.set_default_timeout(10_000)
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(url)
    assert page.evaluate("document.body.getAttribute('data-md-color-scheme')") == scheme
    assert errors == []
    return page


@pytest.mark.parametrize("sample", SAMPLES, ids=IDS)
def test_the_header_answers_is_this_my_error(browser: Browser, hosted: str,
                                            sample: Sample) -> None:
    page = _open(browser, hosted + sample.path, DESKTOP)
    article = page.locator("article")
    crumbs = article.locator("nav[aria-label=Breadcrumb]")
    assert crumbs.locator("a").all_inner_texts() == ["Catalogue", sample.record["repo"]]
    assert crumbs.locator("a").first.get_attribute("href") == "../../../"
    heading = article.locator("h1")
    assert heading.inner_text().removesuffix("¶").strip() == sample.record["errorMessage"]
    # The trail first, then the title, then the error as printed.
    tops = [sites.top(element) for element in (crumbs, heading,
                                               article.locator(".errdocs-printed"))]
    assert tops == sorted(tops)
    assert article.locator(".errdocs-printed").inner_text().strip() == sample.printed
    # Where it is filed, as links, and what kind of error, all before "What it means".
    meaning = sites.top(article.locator("h2", has_text="What it means"))
    facts = article.locator("p:has(.errdocs-fact)")
    assert facts.count() == 2 and sites.top(facts.nth(1)) < meaning
    links = facts.first.locator("a").all_inner_texts()
    assert links == [sample.record["repo"], sample.record["backgroundTag"], *sample.record["tags"]]
    kinds = facts.nth(1).inner_text()
    for label in ("Severity", "Type", "Handling"):
        assert f"{label}:" in kinds
    # The pattern is folded away, and nothing in the head repeats it.
    pattern = article.locator("details.errdocs-pattern")
    assert pattern.locator("summary").inner_text() == "Matching pattern"
    assert pattern.get_attribute("open") is None
    assert not pattern.locator("code").is_visible()
    description = page.locator("meta[name=description]").get_attribute("content")
    assert description is not None and sample.record["messagePattern"] not in description
    # Dates a person reads; the commit linked to its tree.
    when = article.locator("time").first
    assert re.fullmatch(r"\d{1,2} [A-Z][a-z]{2} \d{4}", when.inner_text())
    sha = sample.record["analyzedSha"]
    commit = article.locator(f'a[href$="/tree/{sha}"]')
    assert commit.inner_text() == sha[:12]
    page.close()


def _contrast(one: str, two: str) -> float:
    """WCAG contrast ratio of two opaque ``rgb(...)`` colours."""
    def luminance(colour: str) -> float:
        channels = [float(c) / 255 for c in re.findall(r"[\d.]+", colour)[:3]]
        linear = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4
                  for c in channels]
        return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]
    light, dark = sorted((luminance(one), luminance(two)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


MARK = """line => {
  const style = getComputedStyle(line);
  let back = line.closest('code');
  while (back && getComputedStyle(back).backgroundColor === 'rgba(0, 0, 0, 0)') {
    back = back.parentElement;
  }
  const number = document.querySelector('.highlighttable .errdocs-mark');
  const hidden = line.querySelector('.errdocs-sr');
  const code = line.closest('code');
  code.setAttribute('data-md-copying', '');  // what Material's copy button does
  const copied = code.innerText;
  code.removeAttribute('data-md-copying');
  return {
    bar: style.boxShadow.match(/rgba?\\([^)]*\\)/)[0],
    barWidth: parseFloat(style.boxShadow.match(/(\\d+(\\.\\d+)?)px 0px 0px 0px inset/)[1]),
    back: getComputedStyle(back).backgroundColor,
    number: number.textContent,
    numberWeight: getComputedStyle(number).fontWeight,
    numberInk: getComputedStyle(number).color,
    numberBack: getComputedStyle(number).backgroundColor,
    said: hidden.textContent,
    hiddenBox: [hidden.getBoundingClientRect().width, hidden.getBoundingClientRect().height],
    copied: copied,
  };
}"""


@pytest.mark.parametrize("scheme", SCHEMES)
@pytest.mark.parametrize("sample", SAMPLES, ids=IDS)
def test_the_raising_line_is_unmistakable(browser: Browser, hosted: str, sample: Sample,
                                          scheme: str) -> None:
    page = _open(browser, hosted + sample.path, DESKTOP, scheme)
    lines = page.locator(".highlighttable .hll")
    assert lines.count() == 1
    seen = lines.first.evaluate(MARK)
    # A solid bar of at least 3:1 against the code's background, and the number in a chip.
    assert _contrast(seen["bar"], seen["back"]) >= 3, seen
    assert seen["barWidth"] >= 4
    assert seen["number"] == str(sample.record["lineNumber"])
    assert int(seen["numberWeight"]) >= 700
    assert _contrast(seen["numberInk"], seen["numberBack"]) >= 4.5, seen
    assert _contrast(seen["numberBack"], seen["back"]) >= 3, seen
    # Said to screen readers, not shown, and not copied with the code.
    assert seen["said"] == "Raises the error: "
    assert seen["hiddenBox"][0] <= 1 and seen["hiddenBox"][1] <= 1
    excerpt = page.locator(".highlighttable code").text_content() or ""
    assert "Raises the error" not in seen["copied"] and "Raises the error" in excerpt
    assert seen["copied"].rstrip() == excerpt.replace("Raises the error: ", "").rstrip()
    # "View source" opens the raising line; the range is one more click.
    where = page.locator("article p", has_text="View source on GitHub")
    view, whole = where.locator("a").all()
    url = sample.record["githubUrl"]
    assert view.get_attribute("href") == f"{url.split('#')[0]}#L{sample.record['lineNumber']}"
    assert whole.get_attribute("href") == url
    page.close()


FIRST_CHARACTER = """line => {
  const box = line.closest('code').getBoundingClientRect();
  const walker = document.createTreeWalker(line, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    if (node.parentNode.closest('.errdocs-sr')) continue;
    const at = node.data.search(/\\S/);
    if (at < 0) continue;
    const range = document.createRange();
    range.setStart(node, at);
    range.setEnd(node, at + 1);
    const r = range.getBoundingClientRect();
    return {left: r.left, right: r.right, boxLeft: box.left, boxRight: box.right,
            char: node.data[at]};
  }
  return null;
}"""


def _start_in_view(page: Page) -> dict:
    start = page.locator(".highlighttable .hll").first.evaluate(FIRST_CHARACTER)
    assert start["boxLeft"] <= start["left"] and start["right"] <= start["boxRight"], start
    return start


@pytest.mark.parametrize("sample", SAMPLES, ids=IDS)
def test_on_a_phone_the_raising_line_starts_in_view(browser: Browser, hosted: str,
                                                   sample: Sample) -> None:
    page = _open(browser, hosted + sample.path, PHONE)
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    assert _start_in_view(page)["char"] != " "
    page.close()


@pytest.fixture(scope="module")
def deep_site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A site of one record whose raising line is indented far past a phone's width."""
    project = sites.copy_project(tmp_path_factory.mktemp("deep"))
    code = "def outer():\n" + "".join(
        " " * (4 * depth) + f"if level_{depth}:\n" for depth in range(1, 16)) + (
        " " * 64 + 'raise ValueError(f"deeply nested: {value}")\n' + "    return 1\n")
    record = {"id": "deep", "repo": "o/r", "slug": "deep", "errorMessage": "deeply nested",
              "filePath": "deep.py", "sourceCode": code, "sourceCodeStart": 10,
              "lineNumber": 26, "errorClass": "ValueError"}
    data = project / "deep.jsonl"
    data.write_text(json.dumps(record) + "\n", "utf-8")
    settings, report = sites.build_project(project, records=data, site_url=None)
    assert report.problems == []
    with sites.serve(settings.site_dir) as url:
        yield url + "errors/o/r/deep/"


def test_a_deeply_indented_raising_line_is_scrolled_into_view_on_a_phone(
        browser: Browser, deep_site: str) -> None:
    page = _open(browser, deep_site, PHONE)
    code = page.locator(".highlighttable code")
    assert code.evaluate("c => c.scrollLeft") > 0  # scrolled sideways to it...
    assert _start_in_view(page)["char"] == "r"  # ...to "raise"
    page.close()
    page = _open(browser, deep_site, DESKTOP)
    assert page.locator(".highlighttable code").evaluate("c => c.scrollLeft") == 0
    _start_in_view(page)
    page.close()


@pytest.mark.parametrize("viewport", [PHONE, DESKTOP], ids=["390px", "1440px"])
@pytest.mark.parametrize("scheme", SCHEMES)
def test_screenshots_of_three_record_pages(browser: Browser, hosted: str,
                                           viewport: ViewportSize, scheme: str) -> None:
    """For a person to look at (tests/artifacts/); what can be measured: no page scrolls
    sideways."""
    ARTIFACTS.mkdir(exist_ok=True)
    for sample in SAMPLES:
        page = _open(browser, hosted + sample.path, viewport, scheme)
        assert page.evaluate("document.documentElement.scrollWidth") <= viewport["width"]
        dark = "dark" if scheme == "slate" else "light"
        shot = ARTIFACTS / f"record-{sample.name}-{viewport['width']}-{dark}.png"
        page.screenshot(path=str(shot), full_page=True)
        assert shot.stat().st_size > 10_000
        page.close()


AXE_PAGES = [("home", ""), ("listing", "errors/tags/mlx/"),
             *((s.name, s.path) for s in SAMPLES)]


@pytest.fixture(scope="module")
def axe() -> Axe:
    """axe-core, as shipped inside the axe-playwright-python package (nothing is fetched)."""
    return Axe()


@pytest.mark.parametrize("scheme", SCHEMES)
@pytest.mark.parametrize(("name", "path"), AXE_PAGES, ids=[n for n, _ in AXE_PAGES])
def test_axe_finds_no_serious_or_critical_violation(browser: Browser, hosted: str, axe: Axe,
                                                    name: str, path: str, scheme: str) -> None:
    page = _open(browser, hosted + path, DESKTOP, scheme)
    results = axe.run(page).response
    bad = [f"{v['id']} ({v['impact']}): {[n['target'] for n in v['nodes']][:5]}"
           for v in results["violations"] if v["impact"] in ("serious", "critical")]
    assert bad == [], f"{name} ({scheme})"
    page.close()


def test_no_two_record_pages_share_a_title(hosted: str, built: Built) -> None:
    site = built.site
    titles = {}
    for page in (site / "errors").glob("*/*/*/index.html"):
        if page.parent.parent.name == "index":  # tags/index/by-name/: a list, no record
            continue
        text = page.read_text("utf-8")
        titles[page.parent.name] = text.split("<title>", 1)[1].split("</title>", 1)[0]
    assert len(titles) == len(RECORDS)
    assert len(set(titles.values())) == len(titles)
