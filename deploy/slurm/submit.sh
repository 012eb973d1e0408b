#!/usr/bin/env bash
# Build the site on a Slurm cluster: the slices as a job array, then the merge.
#
#   ERRDOCS_SHARED=/shared/errdocs ERRDOCS_DATA=/shared/data/records.jsonl.gz \
#   ERRDOCS=$PWD/.venv/bin/errdocs deploy/slurm/submit.sh
#
# Every variable of deploy/errdocs-array.sh is passed on to the jobs (sbatch exports the
# environment). The number of slices is the array's size (--array in errdocs-slices.sbatch,
# or override it here: sbatch --array=1-8 ...).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
export ERRDOCS_SOURCE=${ERRDOCS_SOURCE:-$(cd "$here/../.." && pwd)}
: "${ERRDOCS_SHARED:?set ERRDOCS_SHARED to a folder every node mounts}"
: "${ERRDOCS_DATA:?set ERRDOCS_DATA to the records}"
slices=$(sbatch --parsable "$here/errdocs-slices.sbatch")
sbatch --parsable --dependency="afterok:${slices%%;*}" "$here/errdocs-merge.sbatch"
