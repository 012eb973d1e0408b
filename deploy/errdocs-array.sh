#!/usr/bin/env bash
# One step of a job-array build of the site, on a volume every task mounts (NFS, a Kubernetes
# ReadWriteMany volume, a cluster's shared file system). Used by deploy/slurm/*.sbatch and
# deploy/kubernetes/*.yaml; see deploy/README.md.
#
#   errdocs-array.sh slice   build this task's slice: `errdocs build --shard auto` reads
#                            JOB_COMPLETION_INDEX (Kubernetes), SLURM_ARRAY_TASK_* (Slurm) or
#                            ERRDOCS_SHARD/ERRDOCS_SHARDS
#   errdocs-array.sh merge   collect every task's units and assemble the site (errdocs merge)
#
# Each task works in its own copy of the project, $ERRDOCS_SHARED/tasks/<task>/, kept between
# runs: its .errdocs/ holds the units it built (reused while their inputs do not change) and
# their sitemap dates. Two tasks never share a project (each writes docs/errors/ and .errdocs/).
# The merge works in $ERRDOCS_SHARED/merge/ and leaves the site in $ERRDOCS_SHARED/merge/site/.
# If you change the number of tasks, empty $ERRDOCS_SHARED/tasks/ first: a unit left behind by
# an old slicing is refused by the merge ("built from other inputs"), never published.
#
# Environment:
#   ERRDOCS_SHARED      the shared volume (required)
#   ERRDOCS_DATA        the records, a path every task can read (required)
#   ERRDOCS_SOURCE      the project checkout: mkdocs.yml, docs/, overrides/ (default: this
#                       script's repository)
#   ERRDOCS             the errdocs command (default: errdocs)
#   ERRDOCS_BUILD_ARGS  options build and merge both take, the same for every task and the
#                       merge: "--site-url URL", "--engine properdocs", "--full-text"
#   ERRDOCS_JOBS        worker processes of a slice (default: SLURM_CPUS_PER_TASK, else one
#                       per core the task may use)
set -euo pipefail

step=${1:?usage: errdocs-array.sh slice|merge}
shared=${ERRDOCS_SHARED:?set ERRDOCS_SHARED to the volume every task mounts}
data=${ERRDOCS_DATA:?set ERRDOCS_DATA to the records}
source=${ERRDOCS_SOURCE:-$(cd "$(dirname "$0")/.." && pwd)}
errdocs=${ERRDOCS:-errdocs}
read -r -a extra <<< "${ERRDOCS_BUILD_ARGS:-}"
jobs=${ERRDOCS_JOBS:-${SLURM_CPUS_PER_TASK:-}}

# The project's hand-written side, fresh from the checkout, into $1; errdocs' own files there
# (docs/errors/, .errdocs/, site/) are left alone.
project_copy() {
  local copy=$1
  mkdir -p "$copy/docs"
  cp "$source/mkdocs.yml" "$copy/mkdocs.yml"
  rm -rf "$copy/overrides"
  cp -R "$source/overrides" "$copy/overrides"
  find "$copy/docs" -mindepth 1 -maxdepth 1 ! -name errors -exec rm -rf {} +
  (cd "$source/docs" && tar -cf - --exclude=./errors .) | (cd "$copy/docs" && tar -xf -)
}

case $step in
  slice)
    task=${JOB_COMPLETION_INDEX:-${SLURM_ARRAY_TASK_ID:-${ERRDOCS_SHARD:-}}}
    if [[ ! $task =~ ^[0-9]+$ ]]; then
      echo "errdocs-array.sh: no task index (JOB_COMPLETION_INDEX, SLURM_ARRAY_TASK_ID or ERRDOCS_SHARD)" >&2
      exit 1
    fi
    copy="$shared/tasks/$task"
    project_copy "$copy"
    "$errdocs" build "$data" -f "$copy/mkdocs.yml" --shard auto ${jobs:+-j "$jobs"} "${extra[@]}"
    ;;
  merge)
    merge="$shared/merge"
    project_copy "$merge"
    # Every task's units, hard-linked (no copy of the files) into a fresh folder, then swapped
    # in. The site and its spare tree are hard links too: they keep their files meanwhile.
    rm -rf "$merge/.errdocs/units.new"
    mkdir -p "$merge/.errdocs/units.new"
    for units in "$shared"/tasks/*/.errdocs/units; do
      cp -a -l --remove-destination "$units/." "$merge/.errdocs/units.new/"
    done
    rm -rf "$merge/.errdocs/units"
    mv "$merge/.errdocs/units.new" "$merge/.errdocs/units"
    "$errdocs" merge "$data" -f "$merge/mkdocs.yml" "${extra[@]}"
    ;;
  *)
    echo "errdocs-array.sh: unknown step '$step'; use slice or merge" >&2
    exit 2
    ;;
esac
