"""The sharded build: same site as a plain MkDocs build, incremental, sliced, atomic."""

from __future__ import annotations

import html
import json
import shutil
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from errdocs.build import RESERVED_SITE_PATHS, build_sharded
from errdocs.cli import main
from errdocs.pipeline import Preview
from errdocs.project import load_settings
from errdocs.site.owner import MARKER, MARKER_TEXT
from errdocs.units import plan as shards
from errdocs.units.mkdocs_run import run_mkdocs

from . import htmlscan
from .conftest import ROOT, SAMPLE
from .helpers import cold_site, site_tree

sys.path.insert(0, str(ROOT / "bench"))
import synth

pytestmark = pytest.mark.slow
SITE_URL = "site_url: https://example.org/docs/\n"


def _with_site_url(project: Path) -> Path:
    config = project / "mkdocs.yml"
    config.write_text(SITE_URL + config.read_text("utf-8"), "utf-8")
    return config


def _run(*args: str) -> str:
    result = CliRunner().invoke(main, list(args))
    assert result.exit_code == 0, result.output
    return result.output


@pytest.fixture
def small_units(monkeypatch: pytest.MonkeyPatch) -> None:
    """Units of a few pages, so the sample dataset makes many of them."""
    monkeypatch.setattr(shards, "UNIT_SIZE", 16)
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1767225600")


def test_sharded_site_equals_a_plain_mkdocs_build(project: Path, small_units: None) -> None:
    config = _with_site_url(project)
    settings = load_settings(config)
    report = build_sharded(settings, [SAMPLE], jobs=2, show_progress=False, full_text=True)
    assert report.units > 5 and report.built == report.units and report.merged
    run_mkdocs(project / "mkdocs.yml", project / "plain-site", strict=True)  # `mkdocs build`
    sharded, reference = site_tree(project / "site"), site_tree(project / "plain-site")
    assert any(name.startswith("pagefind/pagefind.en_") for name in sharded)
    # Pagefind's index, and the exports, /id/ pages and feed errdocs writes beside MkDocs.
    sharded = {k: v for k, v in sharded.items()
               if not k.startswith(("pagefind/", *RESERVED_SITE_PATHS))}
    assert sharded.pop(MARKER) == MARKER_TEXT.encode()  # errdocs' mark on its own sites
    assert sharded.keys() == reference.keys()
    for name in sharded:
        if not name.startswith("sitemap.xml"):
            assert sharded[name] == reference[name], name
    locs = [line.strip() for line in sharded["sitemap.xml"].decode().splitlines()
            if "<loc>" in line]
    assert sorted(locs) == sorted(line.strip() for line in reference["sitemap.xml"].decode()
                                  .splitlines() if "<loc>" in line)
    assert len(locs) == len(set(locs)) == sum(n.endswith(".html") and n != "404.html"
                                              for n in sharded)


def test_units_hold_up_to_unit_size_pages_and_a_small_site_keeps_a_few() -> None:
    """Units of up to 2,048 pages (a refresh builds nearly every unit, and each costs MkDocs'
    start), but a small site still has up to 4 (a cold build keeps the workers busy)."""
    assert [shards.units_for(n) for n in (40, 600, 2000, 5000, 9000, 20000, 310000)] == [
        1, 2, 4, 4, 8, 16, 256]


def test_larger_units_give_the_same_site(tmp_path: Path, project: Path, small_units: None,
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """How many units hold the pages changes nothing of the site: 60 records in units of 16
    pages, then in 4 units (the few a small site keeps) of up to 32."""
    data = synth.write(60, tmp_path / "data.jsonl", seed=4)
    settings = load_settings(project / "mkdocs.yml")
    many = build_sharded(settings, [data], jobs=2, show_progress=False)
    for name, value in (("UNIT_SIZE", 32), ("SMALL_UNIT", 8), ("FEW_UNITS", 4)):
        monkeypatch.setattr(shards, name, value)
    settings = load_settings(shutil.copytree(project, tmp_path / "few",
                                             ignore=shutil.ignore_patterns("site", ".errdocs",
                                                                           "errors"))
                             / "mkdocs.yml")
    few = build_sharded(settings, [data], jobs=2, show_progress=False)
    names = sorted(p.name for p in (settings.work_dir / "units").iterdir())
    assert [n for n in names if n.startswith("rec-")] == [f"rec-000{n}" for n in range(4)]
    assert few.units < many.units
    assert site_tree(tmp_path / "few" / "site") == site_tree(project / "site")


def test_one_changed_record_rebuilds_one_page_and_equals_a_cold_build(
        tmp_path: Path, project: Path, small_units: None) -> None:
    data = synth.write(60, tmp_path / "data.jsonl", seed=3)
    settings = load_settings(_with_site_url(project))
    cold = build_sharded(settings, [data], jobs=2, show_progress=False)
    assert cold.reused == 0
    lines = data.read_text("utf-8").splitlines(keepends=True)
    value = json.loads(lines[30])
    value["record"]["solutions"] = ["Changed."]  # on its page only, not in any data file
    lines[30] = json.dumps(value) + "\n"
    data.write_text("".join(lines), "utf-8")
    again = build_sharded(settings, [data], jobs=2, show_progress=False)
    assert (again.built, again.reused, again.written) == (1, cold.units - 1, 1)
    assert again.pages_built == 1  # the other pages of its unit were taken from before
    fresh = tmp_path / "fresh"
    for name in ("docs", "overrides"):
        shutil.copytree(project / name, fresh / name, ignore=shutil.ignore_patterns("errors"))
    shutil.copy(project / "mkdocs.yml", fresh / "mkdocs.yml")
    build_sharded(load_settings(fresh / "mkdocs.yml"), [data], jobs=1, show_progress=False)
    assert site_tree(project / "site") == site_tree(fresh / "site")
    assert site_tree(project / "docs" / "errors") == site_tree(fresh / "docs" / "errors")
    # and the spare tree, one build behind, caught up: a third build reuses everything
    third = build_sharded(settings, [data], jobs=2, show_progress=False)
    assert (third.built, third.written) == (0, 0)
    assert site_tree(project / "site") == site_tree(fresh / "site")


def test_cli_output_and_a_no_op_rebuild(project: Path) -> None:
    config = str(project / "mkdocs.yml")
    first = _run("build", str(SAMPLE), "-f", config, "-j", "2")
    assert first == (f"40 records, 0 errors, 0 warnings; pages: 230 written, 0 unchanged, 0 "
                     f"removed; units: 6 built, 0 reused\nSite built in {project / 'site'}\n")
    second = _run("build", str(SAMPLE), "-f", config)
    assert second == (f"40 records, 0 errors, 0 warnings; pages: 0 written, 230 unchanged, 0 "
                      f"removed; units: 0 built, 6 reused\nSite built in {project / 'site'}\n")


def test_generate_writes_the_tree_a_build_writes_and_a_build_then_reuses_it(
        tmp_path: Path, project: Path, small_units: None) -> None:
    # One path: `generate` after `build` finds every file of the generated tree as it is
    # (it once removed the search box's data), and a build after `generate` of other data
    # gives what a cold build gives.
    config = str(project / "mkdocs.yml")
    _run("build", str(SAMPLE), "-f", config, "-j", "2")
    built = site_tree(project / "docs" / "errors")
    assert _run("generate", str(SAMPLE), "-f", config) == (
        "40 records, 0 errors, 0 warnings; pages: 0 written, 230 unchanged, 0 removed\n")
    assert site_tree(project / "docs" / "errors") == built
    data = synth.write(30, tmp_path / "data.jsonl", seed=5)
    _run("generate", str(data), "-f", config)
    _run("generate", str(SAMPLE), "-f", config)  # back to pages the units' rows name...
    again = _run("build", str(SAMPLE), "-f", config, "-j", "2")
    assert "0 removed" in again
    assert site_tree(project / "docs" / "errors") == built  # ... and rendered again all the same
    assert site_tree(project / "site") == cold_site(project, SAMPLE, tmp_path / "fresh")


def test_slices_then_merge_equal_a_whole_build(project: Path, small_units: None) -> None:
    config = str(project / "mkdocs.yml")
    for index in (1, 2, 3):
        out = _run("build", str(SAMPLE), "-f", config, "--shard", f"{index}/3", "-j", "1")
        assert out.endswith(f"Slice {index}/3 built; run `errdocs merge` when every slice is "
                            "built\n")
        assert not (project / "site").exists()
    assert _run("merge", str(SAMPLE), "-f", config).endswith(
        f"Site built in {project / 'site'}\n")
    sliced = site_tree(project / "site")
    whole = load_settings(project / "mkdocs.yml", project / "whole")
    report = build_sharded(whole, [SAMPLE], jobs=1, show_progress=False)
    assert report.built == 0  # every unit was built by a slice
    assert site_tree(project / "whole") == sliced


def test_merge_refuses_when_a_slice_is_missing(project: Path, small_units: None) -> None:
    config = str(project / "mkdocs.yml")
    _run("build", str(SAMPLE), "-f", config, "--shard", "1/2")
    result = CliRunner().invoke(main, ["merge", str(SAMPLE), "-f", config])
    assert result.exit_code == 1
    assert result.output == ("Error: 7 units are missing or were built from other inputs "
                             "(hub-0000, hub-0002, hub-0004, hub-0006, rec-0000 and 2 more); "
                             "build them first; the previous site was left as it was\n")
    assert not (project / "site").exists()


def test_a_failed_strict_build_keeps_the_previous_site(project: Path) -> None:
    config = str(project / "mkdocs.yml")
    _run("build", str(SAMPLE), "-f", config)
    before = site_tree(project / "site")
    (project / "docs" / "broken.md").write_text("# Broken\n\n[x](nowhere.md)\n", "utf-8")
    result = CliRunner().invoke(main, ["build", str(SAMPLE), "-f", config, "--strict"])
    assert result.exit_code == 1
    assert "unit root: MkDocs build failed" in result.output
    assert "the previous site was left as it was" in result.output
    assert site_tree(project / "site") == before


@pytest.mark.parametrize("bad", ["0/2", "3/2", "x", "1/0"])
def test_shard_option_is_checked(project: Path, bad: str) -> None:
    result = CliRunner().invoke(main, ["build", "-f", str(project / "mkdocs.yml"),
                                       "--shard", bad])
    assert result.exit_code == 2
    assert "is not I/N with 1 <= I <= N" in result.output


def test_a_changed_meaning_rebuilds_its_page_and_a_data_unit_not_the_root(
        tmp_path: Path, project: Path, small_units: None) -> None:
    # What a record means is also in the search box's data: its data unit is copied again,
    # the root unit (hand-written pages, lists, theme) is not built again.
    data = synth.write(60, tmp_path / "data.jsonl", seed=3)
    settings = load_settings(project / "mkdocs.yml")
    cold = build_sharded(settings, [data], jobs=1, show_progress=False)
    root_site = project / ".errdocs" / "units" / "root" / "site"  # a new folder when built
    before = root_site.stat().st_ino
    lines = data.read_text("utf-8").splitlines(keepends=True)
    value = json.loads(lines[30])
    value["record"]["documentation"] = "A changed meaning."
    lines[30] = json.dumps(value) + "\n"
    data.write_text("".join(lines), "utf-8")
    again = build_sharded(settings, [data], jobs=1, show_progress=False)
    assert root_site.stat().st_ino == before
    # Its page and the listings whose rows show the first sentence of what it means (its
    # repository, category and tags), and no other page.
    showing = [p for p in (project / "docs" / "errors").rglob("*.md")
               if "A changed meaning." in p.read_text("utf-8")]
    assert len(showing) >= 3 and again.pages_built == len(showing)
    assert 2 <= again.built < cold.units
    chunk = [p for p in (project / "site" / "errors").rglob("*.js")
             if "A changed meaning." in p.read_text("utf-8")]
    assert chunk, "the search data in the site shows the new meaning"


def _title(site: Path, page: str) -> str:
    text = (site / page / "index.html").read_text("utf-8")
    return text.split("<title>", 1)[1].split("</title>", 1)[0]


def test_a_title_follows_the_records_that_share_its_message(tmp_path: Path,
                                                            project: Path) -> None:
    """A page's title depends on other records: a record added with the same message retitles
    the page (its unit is rebuilt although its own record did not change), removing it
    retitles it back, and each time the site is the one a cold build gives."""
    seed = "errors/sgl-project/sglang/unknown-mlx-async-mode-launch-mode"
    settings = load_settings(project / "mkdocs.yml")
    data, few = tmp_path / "data.jsonl", "".join(SAMPLE.read_text("utf-8").splitlines(True)[:6])
    data.write_text(few, "utf-8")
    build_sharded(settings, [data], jobs=1, show_progress=False)
    assert _title(project / "site", seed) == "Unknown MLX async mode: {launch.mode} - errdocs"
    twin = json.loads(SAMPLE.read_text("utf-8").splitlines()[0])
    twin["record"] |= {"id": "twin", "repo": "other/fork"}
    data.write_text(few + json.dumps(twin) + "\n", "utf-8")
    build_sharded(settings, [data], jobs=1, show_progress=False)
    assert _title(project / "site", seed) == (
        "Unknown MLX async mode: {launch.mode} (sgl-project/sglang) - errdocs")
    assert _title(project / "site", "errors/other/fork/unknown-mlx-async-mode-launch-mode") == (
        "Unknown MLX async mode: {launch.mode} (other/fork) - errdocs")
    assert site_tree(project / "site") == cold_site(project, data, tmp_path / "cold-1")
    data.write_text(few, "utf-8")
    build_sharded(settings, [data], jobs=1, show_progress=False)
    assert _title(project / "site", seed) == "Unknown MLX async mode: {launch.mode} - errdocs"
    assert site_tree(project / "site") == cold_site(project, data, tmp_path / "cold-2")


FAMILY = ["Unknown MLX async mode: {launch.mode}", "unknown MLX async mode: %s",
          "Unknown MLX async mode: '{0}'", "Unknown MLX async mode: {mode}"]
"""One error as four records word it: the same once placeholders and values are left out."""


def _with_a_family(data: Path) -> list[str]:
    """Add to ``data`` four records of one message in three repositories (two in fam-a/x, so
    also in one file); return their page paths in the site."""
    lines = data.read_text("utf-8").splitlines(keepends=True)
    pages = []
    for n, message in enumerate(FAMILY):
        value = json.loads(lines[n])
        repo = f"fam-{'abca'[n]}/x"
        value["record"].update(id=f"family-{n}", repo=repo, slug=f"mlx-mode-{n}",
                               errorMessage=message, filePath="mlx/worker.py",
                               lineNumber=100 + n, backgroundTag="dispatch")
        lines.append(json.dumps(value) + "\n")
        pages.append(f"errors/{repo}/mlx-mode-{n}/index.html")
    data.write_text("".join(lines), "utf-8")
    return pages


def test_one_message_in_several_repositories_gets_a_family_page_and_pages_link_each_other(
        tmp_path: Path, project: Path, small_units: None) -> None:
    data = synth.write(30, tmp_path / "data.jsonl", seed=5)
    pages = _with_a_family(data)
    settings = load_settings(project / "mkdocs.yml")
    report = build_sharded(settings, [data], jobs=2, show_progress=False)
    site = project / "site"
    (family,) = (site / "errors" / "families").glob("*/index.html")
    text = html.unescape(family.read_text("utf-8"))
    assert '<h1 id="unknown-mlx-async-mode">Unknown MLX async mode: …' in text
    assert "Raised in 3 projects: 4 records share this message" in text
    assert _targets(family) >= {(site / p).resolve() for p in pages}
    assert "errors/families/index.html" in [p.relative_to(site).as_posix()
                                            for p in site.rglob("index.html")]
    for page in pages:
        shown = _targets(site / page)
        assert shown >= {(site / p).resolve() for p in pages if p != page}, page
        assert family.resolve() in shown
    assert report.built == report.units
    broken, _ = htmlscan.broken_links(site)
    assert broken == []


def _targets(page: Path) -> set[Path]:
    """The pages ``page`` links to, as files."""
    return {(page.parent / url).resolve() / "index.html" for tag, url in htmlscan.scan(page).links
            if tag == "a" and url.endswith("/") and ":" not in url}


def test_a_changed_related_record_rebuilds_the_pages_listing_it_and_equals_a_cold_build(
        tmp_path: Path, project: Path, small_units: None) -> None:
    data = synth.write(30, tmp_path / "data.jsonl", seed=5)
    pages = _with_a_family(data)
    settings = load_settings(_with_site_url(project))
    build_sharded(settings, [data], jobs=2, show_progress=False)
    lines = data.read_text("utf-8").splitlines(keepends=True)
    value = json.loads(lines[-1])  # family-3: its relatives show its message
    value["record"]["errorMessage"] = "Unknown MLX async mode: {launch.kind}"
    lines[-1] = json.dumps(value) + "\n"
    data.write_text("".join(lines), "utf-8")
    again = build_sharded(settings, [data], jobs=2, show_progress=False)
    # it, its relatives, its family's page, the listings showing it and, as it is among the
    # records analysed last, the root's pages (the home pages list those), not the rest
    assert 4 <= again.pages_built < 30
    for page in pages[:3]:
        assert "{launch.kind}" in (project / "site" / page).read_text("utf-8"), page
    fresh = tmp_path / "fresh"
    assert site_tree(project / "site") == cold_site(project, data, fresh)
    assert site_tree(project / "docs" / "errors") == site_tree(fresh / "docs" / "errors")


def test_serve_builds_then_rebuilds_only_what_a_change_concerns(
        tmp_path: Path, project: Path, small_units: None) -> None:
    data = synth.write(60, tmp_path / "data.jsonl", seed=3)
    reports: list[object] = []
    preview = Preview(load_settings(project / "mkdocs.yml"), [data], jobs=1,
                      told=reports.append)
    first = preview.refresh()
    assert first is not None and first.built == first.units and first.merged
    assert (project / "site" / "index.html").is_file()
    assert preview.refresh() is None  # its own writes in docs/errors/ are no change
    lines = data.read_text("utf-8").splitlines(keepends=True)
    value = json.loads(lines[30])
    value["record"]["solutions"] = ["Changed."]
    lines[30] = json.dumps(value) + "\n"
    data.write_text("".join(lines), "utf-8")
    again = preview.refresh()
    assert again is not None and (again.built, again.pages_built) == (1, 1)
    about = project / "docs" / "about.md"
    about.write_text("# About these pages\n\nEdited.\n", "utf-8")  # its nav title kept
    edited = preview.refresh()
    # The root unit, which holds it, and the data unit of the search box's hand-written pages.
    assert edited is not None and (edited.built, edited.reused) == (2, edited.units - 2)
    assert "Edited." in (project / "site" / "about" / "index.html").read_text("utf-8")
    assert reports == [first, again, edited]
    assert preview.mount_path() == "/"
