"""``errdocs lookup``: exact output, JSON, stdin, --limit, --show, and exit codes."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

from click.testing import CliRunner

from errdocs.cli import main

from .conftest import SAMPLE

SEED_URL = "/errors/sgl-project/sglang/unknown-mlx-async-mode-launch-mode/"


def _lookup(*args: str, stdin: str | None = None):
    return CliRunner().invoke(main, ["lookup", "--no-cache", "--records", str(SAMPLE), *args],
                              input=stdin)


def test_a_concrete_message_prints_its_page() -> None:
    result = _lookup("Unknown MLX async mode: speculative")
    assert result.exit_code == 0, result.output
    assert result.stdout == (
        f"1. {SEED_URL}\n"
        "   repository: sgl-project/sglang\n"
        "   message:    Unknown MLX async mode: {launch.mode}\n"
        '   why:        its message pattern matches "Unknown MLX async mode: speculative"\n')
    assert result.stderr == ""


def test_unquoted_words_are_one_message() -> None:
    result = _lookup("Unknown", "MLX", "async", "mode:", "speculative", "--limit", "1")
    assert result.stdout.splitlines()[0] == f"1. {SEED_URL}"


def test_json_lists_the_matches_best_first() -> None:
    result = _lookup("--json", "--limit", "2", "Unsupported dtype torch.float8")
    assert result.exit_code == 0
    assert json.loads(result.stdout) == [
        {"url": "/errors/sgl-project/sglang/unsupported-dtype-dtype-cef91982/",
         "id": "cef919821d142cd8", "repo": "sgl-project/sglang",
         "message": "Unsupported dtype {dtype}",
         "pattern": "Unsupported dtype (?P<dtype>torch\\.\\w+)", "match": "pattern",
         "score": 0.8, "matched": "Unsupported dtype torch.float8"},
        {"url": "/errors/sgl-project/sglang/unsupported-dtype-dtype/",
         "id": "85d26ab7902417d8", "repo": "sgl-project/sglang",
         "message": "Unsupported dtype: {dtype}",
         "pattern": "Unsupported dtype: (?P<dtype>\\S+)", "match": "similar",
         "score": 0.8791, "matched": "Unsupported dtype torch.float8"},
    ]


def test_a_traceback_on_stdin() -> None:
    traceback = ("thread 'main' panicked at src/pipeline/stage.rs:212:13:\n"
                 "stage 3 polled after completion\n"
                 "note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace\n")
    result = _lookup("-", "--limit", "1", stdin=traceback)
    assert result.exit_code == 0
    assert result.stdout == (
        "1. /errors/acme-labs/tensorpipe/stage-idx-polled-after-completion/\n"
        "   repository: acme-labs/tensorpipe\n"
        "   message:    stage {idx} polled after completion\n"
        '   why:        its message pattern matches "stage 3 polled after completion"\n')


def test_a_reworded_message_shows_its_similarity() -> None:
    result = _lookup("--limit", "1", "MLX async mode unknown: speculative")
    assert result.stdout.splitlines()[-1] == (
        '   why:        similar wording (similarity 0.90) to "MLX async mode unknown: speculative"')


def test_nothing_found_exits_1() -> None:
    result = _lookup("everything is fine")
    assert result.exit_code == 1
    assert result.stdout == ""
    assert result.stderr == "No matching error found.\n"
    as_json = _lookup("--json", "everything is fine")
    assert (as_json.exit_code, as_json.stdout, as_json.stderr) == (1, "[]\n", "")


def test_show_prints_the_page_in_the_terminal() -> None:
    result = _lookup("--show", "ValueError: Unknown MLX async mode: speculative")
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    assert lines[:3] == ["Unknown MLX async mode: {launch.mode}", "=" * 37, ""]
    assert "Class:       ValueError" in lines
    assert f"Page:        {SEED_URL}" in lines
    assert "> 658 |     raise ValueError(f\"Unknown MLX async mode: {launch.mode}\")" in lines
    assert "  657 | else:" in lines  # real line numbers around the marked line
    for heading in ("What it means", "Where it is raised", "Solutions", "Prevention tips"):
        assert heading in lines
    assert " 1. If hit without custom code, capture launch.mode from logs and report an SGLang" \
        in lines
    assert " - Never construct MlxLaunch objects with ad-hoc mode strings" in lines


def test_show_without_source_code_start_prints_the_excerpt_unnumbered(tmp_path: Path) -> None:
    # Issue 12: `--show` raised TypeError on a record with sourceCode but no sourceCodeStart.
    record = {"id": "n1", "repo": "o/r", "slug": "n", "errorMessage": "Disk {d} is gone",
              "sourceCode": "def f():\n    raise OSError('Disk x is gone')\n",
              "lineNumber": 12, "filePath": "f.py"}
    data = tmp_path / "n.jsonl"
    data.write_text(json.dumps({"record": record}) + "\n")
    result = CliRunner().invoke(main, ["lookup", "--no-cache", "--show", "--records", str(data),
                                       "Disk sda is gone"])
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert "  def f():" in lines  # no number: nothing says which file lines these are
    assert "      raise OSError('Disk x is gone')" in lines


def test_hostile_record_text_cannot_drive_the_terminal(tmp_path: Path) -> None:
    hostile = {"id": "h1", "repo": "o/r", "slug": "h",
               "errorMessage": "\x1b]0;pwned\x07Boom {x} \u202etxt.exe",
               "solutions": ["\x1b[2J clear the screen"]}
    data = tmp_path / "h.jsonl"
    data.write_text(json.dumps({"record": hostile}) + "\n")
    pasted = "\x1b]0;pwned\x07Boom now \u202etxt.exe"
    for args in ([pasted], ["--show", pasted]):
        result = CliRunner().invoke(main, ["lookup", "--no-cache", "--records", str(data),
                                           *args])
        assert result.exit_code == 0, result.output
        assert "\x1b" not in result.stdout and "\u202e" not in result.stdout
        assert "\\u001b" in result.stdout and "\\u202e" in result.stdout


def test_the_index_is_cached_and_a_bad_pattern_reported_once(tmp_path: Path) -> None:
    bad = {"id": "b1", "repo": "o/r", "slug": "b", "errorMessage": "Queue {q} is full",
           "messagePattern": "Queue (?P<q>\\w+ is full"}
    data = tmp_path / "b.jsonl"
    data.write_text(json.dumps({"record": bad}) + "\n")
    runner = CliRunner()
    with runner.isolated_filesystem(temp_dir=tmp_path):
        args = ["lookup", "--records", str(data), "Queue jobs is full"]
        first, second = runner.invoke(main, args), runner.invoke(main, args)
        assert len(list(Path(".errdocs/lookup").glob("*.json.gz"))) == 1
        assert [first.exit_code, second.exit_code] == [0, 0]
        assert first.stderr.count("field 'messagePattern'") == 1
        assert second.stderr == ""  # read from the cache: nothing new to report
        assert first.stdout == second.stdout
        assert 'its message template matches "Queue jobs is full"' in first.stdout
        show = runner.invoke(main, ["lookup", "--show", "-r", str(data), "Queue a is full"])
        assert show.stdout.startswith("Queue {q} is full\n")  # the record, read again
        # A changed input is read again.
        changed = {**bad, "errorMessage": "Pool {q} is full"}
        data.write_text(json.dumps({"record": changed}) + "\n")
        third = runner.invoke(main, args)
        assert third.stderr.count("field 'messagePattern'") == 1
        assert "   message:    Pool {q} is full\n" in third.stdout


def test_a_damaged_cache_is_explained(tmp_path: Path) -> None:
    runner = CliRunner()
    with runner.isolated_filesystem(temp_dir=tmp_path):
        args = ["lookup", "--records", str(SAMPLE), "Unknown MLX async mode: x"]
        assert runner.invoke(main, args).exit_code == 0
        (cached,) = Path(".errdocs/lookup").glob("*.json.gz")
        with gzip.open(cached, "rt") as handle:
            data = json.load(handle)
        data["targets"] = [["broken"]] * len(data["targets"])
        with gzip.open(cached, "wt") as handle:
            json.dump(data, handle)
        result = runner.invoke(main, args)
        assert result.exit_code == 1
        assert result.stderr.startswith("Error: record ")
        assert "run again with --no-cache" in result.stderr
        assert runner.invoke(main, [*args, "--no-cache"]).exit_code == 0


def test_a_huge_paste_is_cut_before_matching_and_says_so() -> None:
    log = "INFO all good\n" * 360_000 + "ValueError: Unknown MLX async mode: speculative\n"
    result = _lookup("-", "--limit", "1", stdin=log)
    assert result.exit_code == 0
    assert result.stderr == f"Note: Only the last 20,000 characters of the {len(log):,} given " \
        "were read.\n"
    assert result.stdout.splitlines()[0] == f"1. {SEED_URL}"
