"""Related errors as a person sees them, in Debian's Chromium: the sample plus records that
share the seed's message in other projects and its file, built and served like the hosted
site. Screenshots of the seed's page go to tests/artifacts/ (390 and 1440 px, light and
dark) for a person to look at."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

import pytest

from . import sites

if TYPE_CHECKING:  # only the fixture starts Playwright
    from playwright.sync_api import Browser, ViewportSize
from .test_browser import ARTIFACTS, DESKTOP, PHONE, _clean, _h1, _open

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not sites.CHROMIUM.exists(),
                       reason="needs Debian's chromium (/usr/bin/chromium)"),
]

RELATIVES = [  # id, repository, message, file, line, category
    ("rel-mlx-lm", "ml-explore/mlx-lm", "Unknown MLX async mode: %s", "mlx_lm/server.py", 310,
     "unhandled-dispatch-case"),
    ("rel-vllm-1", "vllm-project/vllm", "unknown MLX async mode: '{mode}'",
     "vllm/platforms/mlx.py", 88, "unhandled-dispatch-case"),
    ("rel-vllm-2", "vllm-project/vllm", "Unknown MLX async mode: {0}",
     "vllm/executor/mlx.py", 41, "unhandled-dispatch-case"),
    ("rel-same-file", "sgl-project/sglang", "MLX launch {launch.rid} was finalized twice",
     "python/sglang/srt/hardware_backend/mlx/tp_worker.py", 640, "internal-invariant"),
]


@pytest.fixture(scope="module")
def related_site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The sample and :data:`RELATIVES` (each a copy of the seed record), served."""
    root = tmp_path_factory.mktemp("related")
    lines = sites.SAMPLE.read_text("utf-8").splitlines()
    for record_id, repo, message, file, line, category in RELATIVES:
        value = json.loads(lines[0])
        value["record"].update(id=record_id, repo=repo, slug=record_id, errorMessage=message,
                               filePath=file, lineNumber=line, backgroundTag=category)
        lines.append(json.dumps(value))
    data = root / "data.jsonl"
    data.write_text("\n".join(lines) + "\n", "utf-8")
    project = sites.copy_project(root / "project")
    settings, _ = sites.build_project(project, records=data)
    with sites.serve(settings.site_dir, urlsplit(sites.SITE_URL).path) as url:
        yield url


def test_a_record_page_lists_related_errors_and_leads_to_them(browser: Browser,
                                                             related_site: str) -> None:
    page, watch = _open(browser, DESKTOP)
    page.goto(f"{related_site}{sites.SEED_PAGE}/")
    related = page.locator("article h2#related-errors")
    related.scroll_into_view_if_needed()
    assert related.is_visible()
    headings = page.locator("article h3").all_inner_texts()
    assert headings == ["Same error in other projects", "Same file",
                        "Same category in this repository"]
    lists = page.locator("article h3 + p + ul, article h3 + ul")
    assert [item.count() for item in (lists.nth(i).locator("li") for i in range(3))] == [3, 1, 1]
    with page.expect_navigation():
        page.get_by_role("link", name="all 4 records").click()
    assert _h1(page) == "Unknown MLX async mode: …"
    assert page.locator("article li").count() == 4
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "family-1440.png"))
    with page.expect_navigation():
        page.get_by_role("link", name="Unknown MLX async mode: %s").click()
    assert _h1(page) == "Unknown MLX async mode: %s"
    assert "Same error in other projects" in page.locator("article").inner_text()
    _clean(watch)
    page.close()


@pytest.mark.parametrize("scheme", ["default", "slate"], ids=["light", "dark"])
@pytest.mark.parametrize("viewport", [PHONE, DESKTOP], ids=["390px", "1440px"])
def test_related_errors_read_well_on_a_phone_and_a_desktop(
        browser: Browser, related_site: str, viewport: ViewportSize, scheme: str) -> None:
    """Screenshots of the seed's related errors for a person to look at; the page never
    scrolls sideways."""
    ARTIFACTS.mkdir(exist_ok=True)
    page, watch = _open(browser, viewport)
    page.goto(f"{related_site}{sites.SEED_PAGE}/")
    page.evaluate(
        f"document.body.setAttribute('data-md-color-scheme', '{scheme}')")
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= viewport["width"]
    section = page.locator("article h2#related-errors")
    section.scroll_into_view_if_needed()
    # scrolled past the title, the header shows it: wait for that, and end its slide-in
    page.locator(".md-header__title--active").wait_for()
    shot: Path = ARTIFACTS / f"related-{viewport['width']}-{scheme}.png"
    page.screenshot(path=str(shot), animations="disabled")
    assert shot.stat().st_size > 10_000
    _clean(watch)
    page.close()
