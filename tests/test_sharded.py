"""The sharded build: same site as a plain MkDocs build, incremental, sliced, atomic."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from errdocs import shards
from errdocs.build import run_mkdocs
from errdocs.cli import main
from errdocs.settings import load_settings
from errdocs.sitebuild import RESERVED_SITE_PATHS, build_sharded

from .conftest import ROOT, SAMPLE

sys.path.insert(0, str(ROOT / "bench"))
import synth

pytestmark = pytest.mark.slow
SITE_URL = "site_url: https://example.org/docs/\n"


def _tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes()
            for p in sorted(root.rglob("*")) if p.is_file()}


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
    sharded, reference = _tree(project / "site"), _tree(project / "plain-site")
    assert any(name.startswith("pagefind/pagefind.en_") for name in sharded)
    # Pagefind's index, and the exports, /id/ pages and feed errdocs writes beside MkDocs.
    sharded = {k: v for k, v in sharded.items()
               if not k.startswith(("pagefind/", *RESERVED_SITE_PATHS))}
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
    assert _tree(project / "site") == _tree(fresh / "site")
    assert _tree(project / "docs" / "errors") == _tree(fresh / "docs" / "errors")
    # and the spare tree, one build behind, caught up: a third build reuses everything
    third = build_sharded(settings, [data], jobs=2, show_progress=False)
    assert (third.built, third.written) == (0, 0)
    assert _tree(project / "site") == _tree(fresh / "site")


def test_cli_output_and_a_no_op_rebuild(project: Path) -> None:
    config = str(project / "mkdocs.yml")
    first = _run("build", str(SAMPLE), "-f", config, "-j", "2")
    assert first == (f"40 records, 0 errors, 0 warnings; pages: 137 written, 0 unchanged, 0 "
                     f"removed; units: 5 built, 0 reused\nSite built in {project / 'site'}\n")
    second = _run("build", str(SAMPLE), "-f", config)
    assert second == (f"40 records, 0 errors, 0 warnings; pages: 0 written, 137 unchanged, 0 "
                      f"removed; units: 0 built, 5 reused\nSite built in {project / 'site'}\n")


def test_slices_then_merge_equal_a_whole_build(project: Path, small_units: None) -> None:
    config = str(project / "mkdocs.yml")
    for index in (1, 2, 3):
        out = _run("build", str(SAMPLE), "-f", config, "--shard", f"{index}/3", "-j", "1")
        assert out.endswith(f"Slice {index}/3 built; run `errdocs merge` when every slice is "
                            "built\n")
        assert not (project / "site").exists()
    assert _run("merge", str(SAMPLE), "-f", config).endswith(
        f"Site built in {project / 'site'}\n")
    sliced = _tree(project / "site")
    whole = load_settings(project / "mkdocs.yml", project / "whole")
    report = build_sharded(whole, [SAMPLE], jobs=1, show_progress=False)
    assert report.built == 0  # every unit was built by a slice
    assert _tree(project / "whole") == sliced


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
    before = _tree(project / "site")
    (project / "docs" / "broken.md").write_text("# Broken\n\n[x](nowhere.md)\n", "utf-8")
    result = CliRunner().invoke(main, ["build", str(SAMPLE), "-f", config, "--strict"])
    assert result.exit_code == 1
    assert "unit root: MkDocs build failed" in result.output
    assert "the previous site was left as it was" in result.output
    assert _tree(project / "site") == before


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
    root_stamp = project / ".errdocs" / "units" / "root" / "stamp.json"
    before = root_stamp.stat().st_mtime_ns
    lines = data.read_text("utf-8").splitlines(keepends=True)
    value = json.loads(lines[30])
    value["record"]["documentation"] = "A changed meaning."
    lines[30] = json.dumps(value) + "\n"
    data.write_text("".join(lines), "utf-8")
    again = build_sharded(settings, [data], jobs=1, show_progress=False)
    assert root_stamp.stat().st_mtime_ns == before
    assert again.pages_built == 1 and 2 <= again.built < cold.units
    chunk = [p for p in (project / "site" / "errors").rglob("*.js")
             if "A changed meaning." in p.read_text("utf-8")]
    assert chunk, "the search data in the site shows the new meaning"
