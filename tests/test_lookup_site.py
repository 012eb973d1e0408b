"""The paste box in the built site (Chromium through Playwright), and the site's search."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from errdocs.lookup.extract import candidates
from errdocs.lookup.match import lookup_words
from errdocs.search.pastebox import shard_of

from . import sites
from .conftest import Built

pytestmark = pytest.mark.slow
CHROMIUM = sites.CHROMIUM
SEED = "errors/sgl-project/sglang/unknown-mlx-async-mode-launch-mode/"
TRACEBACK = ("Traceback (most recent call last):\n"
             '  File "/srv/worker.py", line 658, in finalize_mlx_result\n'
             '    raise ValueError(f"Unknown MLX async mode: {launch.mode}")\n'
             "ValueError: Unknown MLX async mode: speculative\n")




@pytest.fixture(scope="module")
def browser():
    if not CHROMIUM.exists():
        pytest.skip("Chromium is not installed (.ci/run installs it)")
    with sites.chromium() as launched:
        yield launched


def _paste_and_follow(browser, url: str, text: str) -> tuple[list[str], list[str], str, str]:
    """Paste ``text`` into the box at ``url``, follow the first result; return the data files
    loaded, the result texts, and the URL and H1 of the page reached."""
    page = browser.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    loaded: list[str] = []
    page.on("requestfinished", lambda request: loaded.append(request.url))
    try:
        page.goto(url)
        page.fill("form[data-errdocs-lookup] textarea", text)
        page.click("form[data-errdocs-lookup] button[type=submit]")
        first = page.locator(".errdocs-lookup__results li a").first
        first.wait_for(timeout=10_000)
        # The results as laid out (their lines are blocks): read too early on a busy machine,
        # a result's text came without its line breaks once.
        page.wait_for_function("() => [...document.querySelectorAll("
                               "'.errdocs-lookup__results li')].every("
                               "li => li.innerText.includes('\\n'))", timeout=10_000)
        results = page.locator(".errdocs-lookup__results li").all_inner_texts()
        # Wait for the navigation the click starts, not for a load state the page already has
        # (read too early, the H1 was the old page's on a busy machine).
        with page.expect_navigation():
            first.click()
        heading = page.locator("article h1").first.inner_text()
        data = [u.split("errors/assets/lookup/")[1] for u in loaded if "assets/lookup/" in u]
        assert errors == []
        return data, results, page.url, heading
    finally:
        page.close()


def _shards_for(site: Path, text: str) -> list[str]:
    manifest = (site / "errors" / "assets" / "lookup" / "manifest.js").read_text()
    shards = json.loads(manifest[manifest.index("{"):manifest.rindex("}") + 1])["shards"]
    wanted = sorted({shard_of(w, shards) for w in lookup_words(candidates(text))})
    return ["manifest.js", *(f"s{n:x}.js" for n in wanted)]


@pytest.mark.browser
def test_home_page_box_finds_a_pasted_traceback(browser, hosted: str, built: Built) -> None:
    data, results, url, heading = _paste_and_follow(browser, hosted, TRACEBACK)
    assert results[0].splitlines() == ["Unknown MLX async mode: {launch.mode}",
                                       "sgl-project/sglang", "matches its message pattern"]
    assert url == hosted + SEED
    assert heading.strip("¶ \n") == "Unknown MLX async mode: {launch.mode}"
    assert sorted(data) == sorted(_shards_for(built.site, TRACEBACK))  # only what it needs


@pytest.mark.browser
def test_404_page_box_links_from_any_depth(browser, hosted: str) -> None:
    text = "gemm_fp16: K (12) must be a multiple of 8"
    _, results, url, heading = _paste_and_follow(browser, hosted + "no/such/page/", text)
    assert results[0].splitlines()[0] == "gemm_fp16: K ({k}) must be a multiple of 8"
    assert url == hosted + "errors/kestrel-compute/fastkern/gemm-fp16-k-k-must-be-a-multiple-of-8/"
    assert heading.startswith("gemm_fp16: K ({k}) must be a multiple of 8")


@pytest.mark.browser
def test_box_works_in_the_offline_bundle_opened_from_disk(browser, offline: Path) -> None:
    data, _, url, heading = _paste_and_follow(browser, (offline / "index.html").as_uri(),
                                              "MLX async mode unknown: speculative")
    assert data and data[0] == "manifest.js"
    assert url == (offline / SEED / "index.html").as_uri()  # a file: from disk, not a folder
    assert heading.startswith("Unknown MLX async mode")


@pytest.mark.browser
def test_the_same_results_again_leave_the_list_in_place(browser, hosted: str) -> None:
    """A lookup that finds what the list shows leaves its links in place: the typing's
    lookup ending after the button's replaced them, and a click pressed on a link and
    released on its replacement followed nothing (the 404 page's test failed so)."""
    page = browser.new_page()
    try:
        page.goto(hosted)
        page.fill("form[data-errdocs-lookup] textarea", TRACEBACK)
        page.click("form[data-errdocs-lookup] button[type=submit]")
        page.locator(".errdocs-lookup__results li a").first.wait_for(timeout=10_000)
        # Each lookup that ends sets the status to its count: count them from now on.
        page.evaluate("""() => {
            const status = document.querySelector('.errdocs-lookup__status');
            window.ended = 0;
            new MutationObserver(() => {
                if (!status.textContent.startsWith('Looking')) window.ended += 1;
            }).observe(status, {childList: true, characterData: true, subtree: true});
            document.querySelector('.errdocs-lookup__results a').dataset.first = 'yes';
        }""")
        page.click("form[data-errdocs-lookup] button[type=submit]")
        page.wait_for_function("() => window.ended > 0", timeout=10_000)
        assert page.locator(".errdocs-lookup__results a").first.get_attribute(
            "data-first") == "yes"
        page.fill("form[data-errdocs-lookup] textarea", "no error of this site at all, xyzzy")
        page.click("form[data-errdocs-lookup] button[type=submit]")
        page.wait_for_function("() => window.ended > 1", timeout=10_000)
        assert page.locator(".errdocs-lookup__results a[data-first]").count() == 0
    finally:
        page.close()
