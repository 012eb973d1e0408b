"""``--shard auto``: the slice from a job array's environment, 0-based indexes turned into
errdocs' 1-based ``I/N``, and one clear line when the environment does not say."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from errdocs.cli import main
from errdocs.units.jobarray import FoundSlice, NoSlice, from_environment


@pytest.mark.parametrize(("environ", "found"), [
    ({"ERRDOCS_SHARD": "0", "ERRDOCS_SHARDS": "4"},
     FoundSlice(1, 4, "ERRDOCS_SHARD=0, ERRDOCS_SHARDS=4")),
    ({"ERRDOCS_SHARD": "3", "ERRDOCS_SHARDS": " 4 "},
     FoundSlice(4, 4, "ERRDOCS_SHARD=3, ERRDOCS_SHARDS=4")),
    # Kubernetes Indexed Job: the index only; the count from ERRDOCS_SHARDS
    ({"JOB_COMPLETION_INDEX": "2", "ERRDOCS_SHARDS": "3"},
     FoundSlice(3, 3, "JOB_COMPLETION_INDEX=2, ERRDOCS_SHARDS=3")),
    # Slurm: --array=1-4 numbers tasks 1..4
    ({"SLURM_ARRAY_TASK_ID": "1", "SLURM_ARRAY_TASK_MIN": "1", "SLURM_ARRAY_TASK_COUNT": "4"},
     FoundSlice(1, 4, "SLURM_ARRAY_TASK_ID=1, SLURM_ARRAY_TASK_MIN=1, "
                      "SLURM_ARRAY_TASK_COUNT=4")),
    ({"SLURM_ARRAY_TASK_ID": "4", "SLURM_ARRAY_TASK_MIN": "1", "SLURM_ARRAY_TASK_COUNT": "4"},
     FoundSlice(4, 4, "SLURM_ARRAY_TASK_ID=4, SLURM_ARRAY_TASK_MIN=1, "
                      "SLURM_ARRAY_TASK_COUNT=4")),
    # --array=0-3
    ({"SLURM_ARRAY_TASK_ID": "0", "SLURM_ARRAY_TASK_MIN": "0", "SLURM_ARRAY_TASK_COUNT": "4"},
     FoundSlice(1, 4, "SLURM_ARRAY_TASK_ID=0, SLURM_ARRAY_TASK_MIN=0, "
                      "SLURM_ARRAY_TASK_COUNT=4")),
    # --array=10-40:10 is tasks 10, 20, 30, 40
    ({"SLURM_ARRAY_TASK_ID": "30", "SLURM_ARRAY_TASK_MIN": "10", "SLURM_ARRAY_TASK_STEP": "10",
      "SLURM_ARRAY_TASK_COUNT": "4", "ERRDOCS_SHARDS": "4"},
     FoundSlice(3, 4, "SLURM_ARRAY_TASK_ID=30, SLURM_ARRAY_TASK_MIN=10, "
                      "SLURM_ARRAY_TASK_STEP=10, SLURM_ARRAY_TASK_COUNT=4, ERRDOCS_SHARDS=4")),
    # ERRDOCS_SHARD says it outright, whatever else is set
    ({"ERRDOCS_SHARD": "1", "ERRDOCS_SHARDS": "2", "JOB_COMPLETION_INDEX": "0"},
     FoundSlice(2, 2, "ERRDOCS_SHARD=1, ERRDOCS_SHARDS=2")),
])
def test_the_slice_comes_from_the_job_array(environ: dict[str, str], found: FoundSlice) -> None:
    assert from_environment(environ) == found


def test_every_task_of_an_array_gets_a_different_slice() -> None:
    k8s = {from_environment({"JOB_COMPLETION_INDEX": str(i), "ERRDOCS_SHARDS": "5"}).index
           for i in range(5)}
    slurm = {from_environment({"SLURM_ARRAY_TASK_ID": str(i), "SLURM_ARRAY_TASK_MIN": "7",
                               "SLURM_ARRAY_TASK_COUNT": "5"}).index for i in range(7, 12)}
    assert k8s == slurm == {1, 2, 3, 4, 5}


@pytest.mark.parametrize(("environ", "message"), [
    ({}, "--shard auto: nothing says which slice to build: none of ERRDOCS_SHARD (with "
         "ERRDOCS_SHARDS), JOB_COMPLETION_INDEX (a Kubernetes Indexed Job) or "
         "SLURM_ARRAY_TASK_ID (a Slurm job array) is set; set e.g. ERRDOCS_SHARD=0 "
         "ERRDOCS_SHARDS=4 (0-based), or pass --shard 1/4 (1-based)"),
    ({"JOB_COMPLETION_INDEX": "2"},
     "--shard auto: JOB_COMPLETION_INDEX is set but not the number of slices; set "
     "ERRDOCS_SHARDS to it (e.g. ERRDOCS_SHARDS=4, the Job's completions or the matrix's "
     "size)"),
    ({"ERRDOCS_SHARD": "4", "ERRDOCS_SHARDS": "4"},
     "--shard auto: ERRDOCS_SHARD=4 is not below the count 4 (ERRDOCS_SHARDS); indexes run "
     "from 0 to 3"),
    ({"ERRDOCS_SHARD": "-1", "ERRDOCS_SHARDS": "4"},
     "--shard auto: ERRDOCS_SHARD='-1' is not a whole number like 3"),
    ({"ERRDOCS_SHARD": "0", "ERRDOCS_SHARDS": "0"},
     "--shard auto: ERRDOCS_SHARDS=0: at least 1 slice is needed, e.g. 4"),
    ({"SLURM_ARRAY_TASK_ID": "5", "SLURM_ARRAY_TASK_MIN": "1", "SLURM_ARRAY_TASK_COUNT": "4"},
     "--shard auto: SLURM_ARRAY_TASK_ID=5 is not one of 4 tasks numbered from "
     "SLURM_ARRAY_TASK_MIN=1 in steps of 1; submit the array as a range such as "
     "--array=0-3 (or 1-4)"),
    ({"SLURM_ARRAY_TASK_ID": "2", "SLURM_ARRAY_TASK_MIN": "1", "SLURM_ARRAY_TASK_COUNT": "4",
      "ERRDOCS_SHARDS": "8"},
     "--shard auto: SLURM_ARRAY_TASK_COUNT=4 but ERRDOCS_SHARDS=8; the number of slices must "
     "be the same, or units are left unbuilt"),
    ({"SLURM_ARRAY_TASK_ID": "2", "SLURM_ARRAY_TASK_COUNT": "4"},
     "--shard auto: SLURM_ARRAY_TASK_ID=2 but SLURM_ARRAY_TASK_MIN is not set; run it as a "
     "task of an array (sbatch --array=0-3), or set ERRDOCS_SHARD/ERRDOCS_SHARDS instead"),
])
def test_a_missing_or_wrong_slice_is_one_clear_error(environ: dict[str, str],
                                                     message: str) -> None:
    with pytest.raises(NoSlice) as caught:
        from_environment(environ)
    assert str(caught.value) == message


_JOB_VARS = ("ERRDOCS_SHARD", "ERRDOCS_SHARDS", "JOB_COMPLETION_INDEX", "SLURM_ARRAY_TASK_ID",
             "SLURM_ARRAY_TASK_MIN", "SLURM_ARRAY_TASK_STEP", "SLURM_ARRAY_TASK_COUNT")


def test_cli_without_a_job_array_says_so_and_builds_nothing(
        project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in _JOB_VARS:
        monkeypatch.delenv(name, raising=False)
    result = CliRunner().invoke(main, ["build", "-f", str(project / "mkdocs.yml"),
                                       "--shard", "auto"])
    assert result.exit_code == 1
    assert result.output == (
        "Error: --shard auto: nothing says which slice to build: none of ERRDOCS_SHARD (with "
        "ERRDOCS_SHARDS), JOB_COMPLETION_INDEX (a Kubernetes Indexed Job) or "
        "SLURM_ARRAY_TASK_ID (a Slurm job array) is set; set e.g. ERRDOCS_SHARD=0 "
        "ERRDOCS_SHARDS=4 (0-based), or pass --shard 1/4 (1-based)\n")
    assert not (project / ".errdocs").exists() and not (project / "site").exists()
