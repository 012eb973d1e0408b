"""``--shard auto``: which slice to build, from the environment of the job array running it.

``errdocs build --shard I/N`` counts slices from 1. Job arrays number their tasks from 0
(Kubernetes, ``ERRDOCS_SHARD``) or from whatever the array was submitted with (Slurm), so each
source is converted here to errdocs' 1-based ``I``. Looked at in this order:

1. ``ERRDOCS_SHARD`` (0-based) with ``ERRDOCS_SHARDS`` (the count): any runner, e.g. a GitHub
   Actions matrix (``strategy.job-index`` / ``strategy.job-total``);
2. ``JOB_COMPLETION_INDEX`` (0-based) of a Kubernetes Indexed Job, with ``ERRDOCS_SHARDS``
   (a pod is not told the Job's ``completions``);
3. ``SLURM_ARRAY_TASK_ID`` of a Slurm job array, counted from ``SLURM_ARRAY_TASK_MIN`` in
   steps of ``SLURM_ARRAY_TASK_STEP``, with ``SLURM_ARRAY_TASK_COUNT`` (or ``ERRDOCS_SHARDS``).

A count given twice must agree: a wrong count would silently leave units unbuilt.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from errdocs.errors import InputError

SHARD, SHARDS = "ERRDOCS_SHARD", "ERRDOCS_SHARDS"
K8S_INDEX = "JOB_COMPLETION_INDEX"
SLURM_ID, SLURM_MIN = "SLURM_ARRAY_TASK_ID", "SLURM_ARRAY_TASK_MIN"
SLURM_STEP, SLURM_COUNT = "SLURM_ARRAY_TASK_STEP", "SLURM_ARRAY_TASK_COUNT"


class NoSlice(InputError):
    """``--shard auto`` and the environment does not say (rightly) which slice to build."""


@dataclass(frozen=True)
class FoundSlice:
    """The slice a job array's task builds."""

    index: int
    """1-based, as in ``--shard I/N``."""
    count: int
    """N."""
    source: str
    """The variables it was read from, e.g. ``JOB_COMPLETION_INDEX=2, ERRDOCS_SHARDS=4``."""


def from_environment(environ: Mapping[str, str]) -> FoundSlice:
    """The slice ``environ`` names (see the module's docstring); :class:`NoSlice` if none."""
    if SHARD in environ:
        return _zero_based(environ, SHARD, _count(environ, SHARD, None))
    if K8S_INDEX in environ:
        return _zero_based(environ, K8S_INDEX, _count(environ, K8S_INDEX, None))
    if SLURM_ID in environ:
        return _slurm(environ)
    raise NoSlice(
        f"--shard auto: nothing says which slice to build: none of {SHARD} (with {SHARDS}), "
        f"{K8S_INDEX} (a Kubernetes Indexed Job) or {SLURM_ID} (a Slurm job array) is set; "
        f"set e.g. {SHARD}=0 {SHARDS}=4 (0-based), or pass --shard 1/4 (1-based)")


def _zero_based(environ: Mapping[str, str], name: str, count: int) -> FoundSlice:
    index = _number(environ, name)
    if index >= count:
        raise NoSlice(f"--shard auto: {name}={index} is not below the count {count} "
                      f"({SHARDS}); indexes run from 0 to {count - 1}")
    return FoundSlice(index + 1, count, _source(environ, name, SHARDS))


def _slurm(environ: Mapping[str, str]) -> FoundSlice:
    task = _number(environ, SLURM_ID)
    if SLURM_MIN not in environ:
        raise NoSlice(f"--shard auto: {SLURM_ID}={task} but {SLURM_MIN} is not set; run it "
                      "as a task of an array (sbatch --array=0-3), or set "
                      f"{SHARD}/{SHARDS} instead")
    low = _number(environ, SLURM_MIN)
    step = _number(environ, SLURM_STEP) if SLURM_STEP in environ else 1
    count = _count(environ, SLURM_ID, SLURM_COUNT)
    offset = task - low
    if step < 1 or offset < 0 or offset % step or offset // step >= count:
        raise NoSlice(
            f"--shard auto: {SLURM_ID}={task} is not one of {count} tasks numbered from "
            f"{SLURM_MIN}={low} in steps of {step}; submit the array as a range such as "
            f"--array=0-{count - 1} (or 1-{count})")
    return FoundSlice(offset // step + 1, count,
                      _source(environ, SLURM_ID, SLURM_MIN, SLURM_STEP, SLURM_COUNT, SHARDS))


def _count(environ: Mapping[str, str], index_name: str, engine_name: str | None) -> int:
    """The slice count: the engine's own (``engine_name``) and/or ``ERRDOCS_SHARDS``."""
    given = {name: _number(environ, name) for name in (engine_name, SHARDS)
             if name is not None and name in environ}
    if not given:
        raise NoSlice(f"--shard auto: {index_name} is set but not the number of slices; set "
                      f"{SHARDS} to it (e.g. {SHARDS}=4, the Job's completions or the "
                      "matrix's size)")
    if len(set(given.values())) > 1:
        said = " but ".join(f"{k}={v}" for k, v in given.items())
        raise NoSlice(f"--shard auto: {said}; the number of slices must be the same, or "
                      "units are left unbuilt")
    count = next(iter(given.values()))
    if count < 1:
        raise NoSlice(f"--shard auto: {next(iter(given))}={count}: at least 1 slice is "
                      "needed, e.g. 4")
    return count


def _number(environ: Mapping[str, str], name: str) -> int:
    value = environ[name].strip()
    if not value.isascii() or not value.isdigit():
        raise NoSlice(f"--shard auto: {name}={environ[name]!r} is not a whole number like 3")
    return int(value)


def _source(environ: Mapping[str, str], *names: str) -> str:
    return ", ".join(f"{n}={environ[n].strip()}" for n in names if n in environ)
