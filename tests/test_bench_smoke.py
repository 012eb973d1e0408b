"""A tiny run of the benchmark (N=20): every figure is printed and the incremental site equals
a cold build's. The real runs (N=2,000 to 310,000) stay out of the test suite."""

from __future__ import annotations

import re
import shutil
import sys
from pathlib import Path

import pytest

from .conftest import ROOT

sys.path.insert(0, str(ROOT / "bench"))
import run
import synth

pytestmark = pytest.mark.slow


def test_synthetic_records_are_seeded_and_skewed(tmp_path: Path) -> None:
    a = synth.write(300, tmp_path / "a.jsonl", seed=7).read_bytes()
    assert a == synth.write(300, tmp_path / "b.jsonl", seed=7).read_bytes()
    assert a != synth.write(300, tmp_path / "c.jsonl", seed=8).read_bytes()
    records = [r["record"] for r in map(run.json.loads, a.decode().splitlines())]
    lines = [r["sourceCode"].count("\n") + 1 for r in records]
    assert min(lines) >= 20 and max(lines) <= 40
    assert len({r["backgroundTag"] for r in records}) > 10
    assert len({r["filePath"].rsplit(".", 1)[1] for r in records}) == 6


def test_sites_are_compared_by_inode_first_then_by_bytes(tmp_path: Path) -> None:
    # A refreshed site and the cold build's kept copy share most files' inodes (hard links to
    # the same unit outputs): those are equal unread; any other pair is read.
    one, two = tmp_path / "one", tmp_path / "two"
    for name in ("same", "linked", "edited", "longer", "only-one"):
        (one / "d").mkdir(parents=True, exist_ok=True)
        (one / "d" / name).write_text("content", "utf-8")
    (two / "d").mkdir(parents=True)
    (two / "d" / "same").write_text("content", "utf-8")  # another inode, same bytes
    (two / "d" / "linked").hardlink_to(one / "d" / "linked")
    (two / "d" / "edited").write_text("CONTENT", "utf-8")  # same size, other bytes
    (two / "d" / "longer").write_text("content!", "utf-8")
    (two / "only-two").write_text("x", "utf-8")
    assert run.different(one, two) == ["d/edited", "d/longer", "d/only-one", "only-two"]
    assert run.different(one, one) == []


def test_the_build_processs_memory_growth_is_told_between_sizes() -> None:
    def cold(n: int, roles: str, peak: float) -> run.Result:
        return run.Result("errdocs cold -j2", n, 1.0, 1, 1.0, 1.0, 1.0, 1, 1, "", "", roles,
                          peak)

    assert run.memory_growth([cold(2000, "main 60, worker 70", 70.0)]) is None
    assert run.memory_growth([cold(2000, "main 60", 70.0), cold(2000, "main 61", 71.0)]) is None
    assert run.memory_growth([cold(20000, "main 162, worker 184", 189.0),
                              cold(2000, "main 60, worker 70", 70.0)]) == (
        "build process's peak RSS (VmHWM), cold: 70.0 MB at N=2000, 189.0 MB at N=20000: 2.70x "
        "for 10.0x the records (issue 12 item 3: at most 1.25x for 10x); its largest PSS "
        "sampled: 60 and 162 MB")


def test_the_build_processs_peak_is_its_own_high_water_mark(tmp_path: Path) -> None:
    # bench/peak.py runs the command line in this process's child and writes that child's
    # VmHWM as it exits: more than an idle interpreter's, less than the whole tree's sum.
    data = synth.write(20, tmp_path / "data.jsonl", seed=2)
    result = run.errdocs_build(20, data, tmp_path / "p", 2, "errdocs cold -j2")
    assert (tmp_path / "p" / "site" / "index.html").is_file()
    assert 20 < result.main_peak_mb < result.peak_rss_mb
    assert f"build process's peak RSS (VmHWM): {result.main_peak_mb:.1f} MB" in result.line()
    assert sorted(p.name for p in (tmp_path / "p").iterdir()) == [
        ".errdocs", "docs", "mkdocs.yml", "overrides", "site"]  # nothing of the bench's


def test_the_peak_is_written_by_the_process_that_ran_the_code(tmp_path: Path) -> None:
    # The parent grows by 64 MB after forking a child that ends through the interpreter after
    # it (it holds the output open, so it is waited for): the file holds the parent's
    # high-water mark, not the small child's, written last.
    code = "\n".join([
        "import os, sys, time",
        "if os.fork() == 0:",
        "    time.sleep(0.5)",
        "    sys.exit(0)",
        "big = bytearray(64 << 20)",
        "big[::4096] = b'x' * (len(big) // 4096)",
        "print(sys.argv[1:])"])
    seconds, rss, _pss, _roles, peak = run.timed_python(["-c", code, "a", "b"], tmp_path)
    assert 64 < peak < 200 and seconds > 0.5 and rss > 0
    assert run.timed_python(["-c", "print(1)"], tmp_path)[-1] < 40


def test_smoke_run_prints_every_figure(tmp_path: Path, capsys: pytest.CaptureFixture[str]
                                       ) -> None:
    results = run.run(20, tmp_path, jobs=2, baseline=True, incremental=True, workers=True,
                      verify=True, keep=False)
    out = capsys.readouterr().out
    assert [r.what for r in results] == ["errdocs cold -j2", "baseline mkdocs build",
                                         "errdocs incremental", "errdocs cold -j1",
                                         "errdocs cold -j2"]
    assert all(r.pages > 50 and r.seconds > 0 and r.peak_rss_mb > 0 for r in results)
    assert all(0 < r.record_page_bytes <= r.largest_page_bytes for r in results)
    assert re.search(r"ratio baseline/errdocs: \d+\.\d\dx", out)
    assert re.search(r"incremental: [\d.]+ s = [\d.]+% of cold", out)
    assert "incremental site equals a cold build's: yes" in out
    assert re.search(r"2 workers vs 1: \d+\.\d\dx", out)
    assert (tmp_path / "results.jsonl").read_text().count("\n") == 5


def test_rounds_alternate_cold_builds_and_baselines(tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    results = run.run(20, tmp_path, jobs=2, baseline=True, incremental=False, workers=False,
                      verify=False, keep=False, rounds=2)
    out = capsys.readouterr().out
    assert [r.what for r in results] == ["errdocs cold -j2", "baseline mkdocs build"] * 2
    ratios = [float(x) for x in re.findall(r"ratio baseline/errdocs: (\d+\.\d\d)x", out)]
    median = re.search(r"ratio over 2 rounds: median (\d+\.\d\d)x \((\d+\.\d\d)x to "
                        r"(\d+\.\d\d)x\)", out)
    assert len(ratios) == 2 and median is not None
    assert float(median[2]) == min(ratios) and float(median[3]) == max(ratios)
    assert abs(float(median[1]) - sum(ratios) / 2) <= 0.01


def test_the_edits_walk_bench_times_both_trees(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    import edits_walk

    for tree in ("site/errors/a", "docs/errors/a"):
        (tmp_path / tree).mkdir(parents=True)
        (tmp_path / tree / "index.html").write_text("x", "utf-8")
    (tmp_path / "site" / "404.html").write_text("x", "utf-8")
    monkeypatch.setattr(sys, "argv", ["edits_walk.py", str(tmp_path), "--rounds", "2"])
    edits_walk.main()
    out = capsys.readouterr().out
    assert "site: 2 files in 2 folders" in out and "generated: 1 files in 1 folders" in out
    steps = r"site \(lists\)|site \(walk\)|generated \(walk\)"
    assert len(re.findall(rf"^round [12]: ({steps}) \d+\.\d\d s, 0 found$", out,
                          re.MULTILINE)) == 6


def test_memory_phases_measure_the_builds_own_steps(tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    # The script wraps the build's steps rather than copying them, so a changed build is
    # still measured whole: each step prints once, in the build's order, and it stops
    # before any unit is built.
    import memphases

    from errdocs import build

    before = {name: getattr(build, name) for name in memphases.STEPS}
    data = synth.write(30, tmp_path / "data.jsonl", seed=3)
    assert memphases.main([str(data), "--no-trace"]) == 0
    assert {name: getattr(build, name) for name in memphases.STEPS} == before  # put back
    out = capsys.readouterr().out
    steps = [line[:28].strip() for line in out.splitlines() if " s   RSS " in line]
    assert steps == ["imports", *memphases.STEPS.values(), "given back"]
    assert re.search(r"^peak RSS of the build process \(VmHWM\): \d+\.\d MB$", out, re.M)
    if memphases._c_heap() is not None:  # (glibc: each step's memory by allocator too)
        figures = (r"objects +\d+\.\d MB in arenas of +\d+\.\d +C heap +\d+\.\d MB used, "
                   r"+\d+\.\d free, +\d+\.\d mapped$")
        assert all(re.search(figures, line) for line in out.splitlines() if " s   RSS " in line)
    assert "units:" not in out and "Site built" not in out


def test_the_light_records_bench_counts_each_object_once(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # Every record's own text is counted; a repository string all records share, once.
    import lightsize

    from errdocs.catalog.scan import scan

    data = synth.write(30, tmp_path / "data.jsonl", seed=3)
    lights = list(scan([data], tmp_path / "work").lights)
    held = lightsize.sizes(lights)
    assert held["error_message"] == sum(sys.getsizeof(x.record.error_message) for x in lights)
    repos = {id(x.record.repo): x.record.repo for x in lights}
    assert len(repos) < len(lights)  # interned: shared
    assert held["repo"] == sum(map(sys.getsizeof, repos.values()))
    assert lightsize.main([str(data), "--scale", "300"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "30 light records; bytes a record, and MB at 300 records:"
    every = float(out[-1].split()[1])
    assert out[-1].split()[0] == "all"
    assert every == pytest.approx(sum(held.values()) / 30, abs=0.06)


@pytest.mark.parametrize("pin", [None, "a pinned digest"])
def test_the_refresh_bench_measures_each_build_and_compares_the_site(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], pin: str | None) -> None:
    # Builds of a project already built, one per data file, then one with nothing changed;
    # the last site is compared with a cold build's. A pinned digest builds the same site.
    import refresh

    a = synth.write(30, tmp_path / "a.jsonl", seed=5)
    b, _count = run.change_records(a, tmp_path / "b.jsonl", 10)
    cold = run.project(tmp_path / "cold")
    shutil.copyfile(b, cold / "data.jsonl")
    run.timed([sys.executable, "-m", "errdocs", "build", "data.jsonl", "-j", "1"], cold)
    where = run.project(tmp_path / "p")
    argv = [str(where), str(a), str(b), "--noop", "--jobs", "1", "--reference",
            str(cold / "site"), *(["--pin", pin] if pin else [])]
    assert refresh.main(argv) == 0
    out = capsys.readouterr().out.splitlines()
    assert [line[:28].strip() for line in out[:3]] == [
        "refresh to a.jsonl", "refresh to b.jsonl", "nothing changed"]
    assert all(re.search(r" \d+\.\d s   peak RSS +\d+ MB \(PSS +\d+ MB\)   largest PSS, MB: "
                         r"main \d+.*   build process VmHWM \d+\.\d MB   load ", line)
               for line in out[:3])
    assert out[3] == f"site against {cold / 'site'}: 0 files differ"


def test_the_memory_phases_allocator_figures_follow_what_is_held() -> None:
    # What tells a step's kept objects from what it left scattered (bench/README, Session 44).
    import memphases

    if memphases._c_heap() is None:
        pytest.skip("not glibc 2.33 or later")
    objects, heap = memphases._python_objects(), memphases._c_heap()
    assert objects is not None and heap is not None
    held = [f"{n:040d}" for n in range(200_000)]  # small objects: ~89 bytes each
    big = bytearray(64 * 2**20)  # a large block: mapped apart from the heap
    now, then = memphases._python_objects(), memphases._c_heap()
    assert now is not None and then is not None
    assert 15 < now[0] - objects[0] < 25 and now[1] >= now[0]  # (arenas: new, or a test's holes)
    assert 63 < then[2] - heap[2] < 66
    del held, big
    gone = memphases._python_objects()
    assert gone is not None and gone[0] - objects[0] < 2
