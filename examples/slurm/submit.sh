#!/usr/bin/env bash
# Submits a sharded `corpus ocr` of N tasks and the merge job that runs when all of them have
# succeeded; extra arguments go to the array's sbatch (GPUs, partition, time limit).
#
#   CORPUS_DB=/shared/corpus.db examples/slurm/submit.sh 50 --gres=gpu:1 --partition=gpu
set -euo pipefail
[ $# -ge 1 ] || { echo "usage: $0 N [sbatch options for the array]" >&2; exit 2; }
n=$1
shift
here=$(cd "$(dirname "$0")" && pwd)
: "${CORPUS_DB:?set CORPUS_DB to the store on the shared file system}"
# Tasks read the store without locks: bring it to this build's schema and empty its log first.
"${CORPUS_BIN:-corpus}" checkpoint --db "$CORPUS_DB"
array=$(sbatch --parsable --array=0-$((n - 1)) "$@" "$here/ocr-array.sbatch")
array=${array%%;*}
merge=$(sbatch --parsable --dependency=afterok:"$array" --kill-on-invalid-dep=yes "$here/merge.sbatch")
echo "array job $array ($n tasks), merge job ${merge%%;*} after it"
