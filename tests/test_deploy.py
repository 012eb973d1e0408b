"""The job-array examples: the GitHub Actions workflow validates against GitHub's workflow
schema and wires slices, artifacts, sitemap dates and merge together; the Kubernetes and Slurm
examples agree with errdocs' variables; and the shared script they run builds, on one machine,
the same site as one ``errdocs build``."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
import yaml

from errdocs.units import jobarray

from .conftest import ROOT, SAMPLE, Built, copy_project
from .sites import SITE_URL

WORKFLOWS = sorted((ROOT / ".github" / "workflows").glob("*.yml"))
SITE_WORKFLOW = ROOT / ".github" / "workflows" / "site.yml"
DEPLOY = ROOT / "deploy"
BIN = Path(sys.executable).parent
_LASTMOD = re.compile(rb"<lastmod>[^<]*</lastmod>")


def _check_jsonschema(*paths: Path) -> subprocess.CompletedProcess[str]:
    """check-jsonschema against its copy of GitHub's workflow schema (no network needed)."""
    return subprocess.run([str(BIN / "check-jsonschema"), "--builtin-schema",
                           "vendor.github-workflows", *map(str, paths)],
                          capture_output=True, text=True, timeout=120, check=False)


def test_the_workflows_validate_against_githubs_schema() -> None:
    assert SITE_WORKFLOW in WORKFLOWS
    done = _check_jsonschema(*WORKFLOWS)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "ok -- validation done" in done.stdout


def test_the_schema_check_catches_a_broken_workflow(tmp_path: Path) -> None:
    broken = tmp_path / "broken.yml"
    broken.write_text(SITE_WORKFLOW.read_text("utf-8").replace("runs-on:", "runs_on:", 1),
                      "utf-8")
    done = _check_jsonschema(broken)
    assert done.returncode == 1
    assert "runs-on" in done.stdout


def _workflow() -> dict:
    data = yaml.safe_load(SITE_WORKFLOW.read_text("utf-8"))
    data["on"] = data.pop(True, data.get("on"))  # YAML 1.1 reads the key `on` as true
    return data


def _step(job: dict, uses: str) -> dict:
    return next(s for s in job["steps"] if s.get("uses", "").startswith(uses))


def _run_step(job: dict, command: str) -> str:
    return next(s["run"] for s in job["steps"] if s.get("run", "").startswith(command))


def test_the_workflow_builds_slices_then_merges_then_deploys(built: Built) -> None:
    flow = _workflow()
    jobs = flow["jobs"]
    slices, merge, deploy = jobs["slice"], jobs["merge"], jobs["deploy"]
    assert (merge["needs"], deploy["needs"]) == ("slice", "merge")
    # Each matrix job names its 0-based index and the matrix's size, as --shard auto reads them.
    assert slices["env"] == {jobarray.SHARD: "${{ strategy.job-index }}",
                             jobarray.SHARDS: "${{ strategy.job-total }}"}
    assert len(slices["strategy"]["matrix"]["shard"]) >= 2
    build = _run_step(slices, "errdocs build")
    assert "--shard auto" in build and '--engine "$ENGINE"' in build
    assert '--site-url "$SITE_URL"' in build
    assemble = _run_step(merge, "errdocs merge")
    assert '--engine "$ENGINE"' in assemble and '--site-url "$SITE_URL"' in assemble
    # Units go up as units-<index> (only those the slice built: the restored dates of the
    # others would overwrite theirs) and come down, all of them, into one .errdocs/units/.
    names = [s.get("name", s.get("uses", "")) for s in slices["steps"]]
    keep = names.index("Keep only this slice's units")
    assert names.index("Build this slice") < keep < names.index("Upload its units")
    assert _keeps(slices["steps"][keep]["run"]) == ["built-here"]
    upload = _step(slices, "actions/upload-artifact")["with"]
    assert upload["name"] == "units-${{ strategy.job-index }}"
    assert upload["path"].rstrip("/") == ".errdocs/units" and upload["include-hidden-files"]
    download = _step(merge, "actions/download-artifact")["with"]
    assert download == {"pattern": "units-*", "path": ".errdocs/units", "merge-multiple": True}
    # The sitemap dates: restored where units are built, saved by the merge, same key.
    restore, save = _step(slices, "actions/cache/restore"), _step(merge, "actions/cache/save")
    assert restore["with"]["path"] == save["with"]["path"] == "${{ env.LASTMOD }}"
    assert restore["with"]["key"] == save["with"]["key"]
    assert save["with"]["key"].startswith(restore["with"]["restore-keys"])
    # ... and that path is where a build leaves them: in every unit MkDocs builds (not the
    # data units, static files, nor the full-text index's pieces, made by the merge).
    state = sorted(built.project.glob(flow["env"]["LASTMOD"]))
    units = [p for p in (built.project / ".errdocs" / "units").iterdir()
             if not p.name.startswith(("data-", "search-", "past-"))]
    assert {p.parents[1].name for p in state} == {p.name for p in units}
    # The history: the merge's alone (it builds the units made from it), restored and saved.
    kept = [s["with"] for s in merge["steps"] if s.get("uses", "").startswith("actions/cache/")
            and s["with"]["path"] == "${{ env.HISTORY }}"]
    assert [w.get("restore-keys") for w in kept] == ["errdocs-history-", None]
    assert kept[0]["key"] == kept[1]["key"] and kept[0]["key"].startswith("errdocs-history-")
    assert sorted(built.project.glob(flow["env"]["HISTORY"]))  # where a build keeps it
    assert _step(merge, "actions/upload-pages-artifact")["with"]["path"] == "site"
    assert deploy["permissions"] == {"pages": "write", "id-token": "write"}
    assert _step(deploy, "actions/deploy-pages")["id"] == "deployment"


def _keeps(script: str) -> list[str]:
    """What ``script`` leaves of a slice's units: one it built, one whose dates were restored."""
    with tempfile.TemporaryDirectory() as tmp:
        units = Path(tmp) / ".errdocs" / "units"
        for name, files in (("built-here", ["stamp.json", ".errdocs/lastmod.json", "site/a"]),
                            ("restored-only", [".errdocs/lastmod.json"])):
            for file in files:
                (units / name / file).parent.mkdir(parents=True, exist_ok=True)
                (units / name / file).write_text("{}")
        subprocess.run(["bash", "-eo", "pipefail", "-c", script], cwd=tmp, check=True)
        return sorted(p.name for p in units.iterdir())


def test_the_kubernetes_example_counts_slices_as_the_job_does() -> None:
    slices = yaml.safe_load((DEPLOY / "kubernetes" / "errdocs-slices.yaml").read_text())
    merge = yaml.safe_load((DEPLOY / "kubernetes" / "errdocs-merge.yaml").read_text())
    volume = yaml.safe_load((DEPLOY / "kubernetes" / "errdocs-volume.yaml").read_text())
    assert slices["spec"]["completionMode"] == "Indexed"
    (slice_pod,), (merge_pod,) = (slices["spec"]["template"]["spec"]["containers"],
                                  merge["spec"]["template"]["spec"]["containers"])
    slice_env = {e["name"]: e["value"] for e in slice_pod["env"]}
    merge_env = {e["name"]: e["value"] for e in merge_pod["env"]}
    assert int(slice_env[jobarray.SHARDS]) == slices["spec"]["completions"]
    for name in ("ERRDOCS_SHARED", "ERRDOCS_DATA", "ERRDOCS_BUILD_ARGS"):
        assert slice_env[name] == merge_env[name], name
    assert slice_pod["command"] == ["/errdocs/deploy/errdocs-array.sh", "slice"]
    assert merge_pod["command"] == ["/errdocs/deploy/errdocs-array.sh", "merge"]
    for job in (slices, merge):
        (claim,) = job["spec"]["template"]["spec"]["volumes"]
        assert claim["persistentVolumeClaim"]["claimName"] == volume["metadata"]["name"]
    assert "ReadWriteMany" in volume["spec"]["accessModes"]
    # The image the Jobs run holds the script at that path.
    assert "COPY deploy/ deploy/" in (DEPLOY / "Dockerfile").read_text()


@pytest.mark.parametrize("script", sorted(p.relative_to(DEPLOY).as_posix()
                                          for p in DEPLOY.rglob("*")
                                          if p.suffix in (".sh", ".sbatch")))
def test_the_shell_scripts_parse(script: str) -> None:
    path = DEPLOY / script
    done = subprocess.run(["bash", "-n", str(path)], capture_output=True, text=True,
                          check=False)
    assert done.returncode == 0, done.stderr
    assert os.access(path, os.X_OK), f"{script} is not executable"


@pytest.mark.slow
def test_the_slurm_array_steps_build_the_site_of_a_single_build(tmp_path: Path,
                                                                built: Built) -> None:
    """deploy/errdocs-array.sh as Slurm runs it: two array tasks (--array=1-2), each in its own
    project copy on the "shared volume", then the merge; and a second run reuses every unit."""
    shared, source = tmp_path / "shared", copy_project(tmp_path / "checkout")
    shutil.copytree(DEPLOY, source / "deploy")
    env = {**os.environ, "ERRDOCS_SHARED": str(shared), "ERRDOCS_DATA": str(SAMPLE),
           "ERRDOCS": str(BIN / "errdocs"), "ERRDOCS_JOBS": "1", "ERRDOCS_PROGRESS": "off",
           "ERRDOCS_BUILD_ARGS": f"--site-url {SITE_URL} --full-text",
           "SLURM_ARRAY_TASK_MIN": "1", "SLURM_ARRAY_TASK_MAX": "2",
           "SLURM_ARRAY_TASK_COUNT": "2", "SLURM_ARRAY_TASK_STEP": "1"}

    def step(name: str, task: int | None = None) -> str:
        run_env = env if task is None else {**env, "SLURM_ARRAY_TASK_ID": str(task)}
        done = subprocess.run([str(source / "deploy" / "errdocs-array.sh"), name],
                              env=run_env, capture_output=True, text=True, timeout=600,
                              check=False)
        assert done.returncode == 0, done.stdout + done.stderr
        return done.stdout

    for task in (1, 2):
        assert step("slice", task).endswith(f"Slice {task}/2 (SLURM_ARRAY_TASK_ID={task}, "
                                            "SLURM_ARRAY_TASK_MIN=1, SLURM_ARRAY_TASK_STEP=1, "
                                            "SLURM_ARRAY_TASK_COUNT=2) built; run `errdocs "
                                            "merge` when every slice is built\n")
    step("merge")
    site = shared / "merge" / "site"
    assert _tree(site) == _tree(built.site)
    for task in (1, 2):  # the task's project was kept: nothing to build again
        assert "units: 0 built, 2 reused" in step("slice", task)
    step("merge")
    assert _tree(site) == _tree(built.site)


def _tree(site: Path) -> dict[str, bytes]:
    """The site's files, the sitemap's dates aside (pages without a record are dated by the
    build, and the reference site was built on another run)."""
    tree = {p.relative_to(site).as_posix(): p.read_bytes()
            for p in sorted(site.rglob("*")) if p.is_file()}
    tree["sitemap.xml"] = _LASTMOD.sub(b"", tree["sitemap.xml"])
    tree.pop("sitemap.xml.gz")
    return tree
