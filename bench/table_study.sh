#!/usr/bin/env bash
# Issue 36's table-metric study, checked: `corpus correlate --study` on pdf-parse-bench's table
# metric study (../shared/data/table-metric-study/tables-dev.json, or the file given) prints
# each recorded column's Pearson, Spearman and Kendall tau-b with the mean human score, and
# corpus's own columns beside them; bench/table_study_scipy.py recomputes the recorded
# columns' correlations with SciPy from the file itself (the same pairs: rated, non-empty
# extractions) and fails on any difference above 1e-9. Then the agreement of each recorded
# metric with corpus's of the same definition (`--agreement`).
#
#   bench/table_study.sh [STUDY.json]
#
# SciPy is installed into $CORPUS_CACHE/envs/bench-scipy (PyPI) when missing.
set -euo pipefail
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/corpus-ci/target}"
cd "$(dirname "$0")/.."
. bench/exe.sh
study=${1:-../shared/data/table-metric-study/tables-dev.json}
[ -f "$study" ] || { echo "table_study: no study file at $study" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
bin=$(exe "$work" --bin corpus) || exit 1
"$bin" -q correlate --study "$study" --format json >"$work/corr.json"
"$bin" correlate --study "$study"
venv=${CORPUS_CACHE:-$HOME/.cache/corpus}/envs/bench-scipy
if ! "$venv/bin/python" -c "import scipy, numpy" 2>/dev/null; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install -q "scipy==1.17.1" "numpy==2.4.6"
fi
"$venv/bin/python" bench/table_study_scipy.py "$study" "$work/corr.json"
"$bin" correlate --study "$study" --agreement
