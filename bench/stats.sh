#!/usr/bin/env bash
# Issue 35's statistics, timed and checked against their peers.
#
#   bench/stats.sh            # speed, then SciPy / olmOCR-bench on the shared table data
#   bench/stats.sh speed      # only the speed figure
#
# 1. Speed: examples/bench_stats on one core (taskset when present): the intervals of 10
#    metrics x 10 provider versions x 10,000 documents with 2,000 resamples (target <= 2 s),
#    a paired comparison on every metric, a rank bootstrap.
# 2. Agreement: on ../shared/data/pdf-parse-bench/tables, pdfium and layout are run and scored
#    by the table suite; `report --compare pdfium layout` gives per-document rows and the
#    per-metric paired statistics (JSON); bench/stats_scipy.py recomputes every p-value with
#    scipy.stats.permutation_test (permutation_type='samples'; exact where ours was exact) and
#    the intervals with scipy.stats.bootstrap, prints the differences and fails on a mismatch,
#    and prints olmOCR-bench's own calculate_bootstrap_ci / perform_permutation_test (unpaired)
#    beside them from ../shared/reference/olmocr-bench when it is there.
# SciPy is installed into $CORPUS_CACHE/envs/bench-scipy (PyPI) when missing.
set -euo pipefail
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/corpus-ci/target}"
cd "$(dirname "$0")/.."
. bench/exe.sh
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
pin=()
command -v taskset >/dev/null && pin=(taskset -c 0)
stats=$(exe "$work" --example bench_stats) || exit 1
"${pin[@]}" "$stats"
[ "${1:-}" = speed ] && exit 0

data=../shared/data/pdf-parse-bench/tables
[ -d "$data" ] || { echo "stats: no shared data at $data; the SciPy part needs it" >&2; exit 1; }
scripts/setup.sh
bin=$(exe "$work" --bin corpus) || exit 1
export CORPUS_DB=$work/stats.db
"$bin" -q ingest "$data" --dataset tables --truth latex-tables >/dev/null
for p in pdfium layout; do
    "$bin" -q ocr --provider "$p" --jobs 2 >/dev/null || true
    "$bin" -q eval --suite table --provider "$p" >/dev/null
done
# One object: the per-metric summary ("metrics") beside the per-document rows ("documents").
"$bin" -q report --suite table --compare pdfium layout --format json >"$work/compare.json"
"$bin" report --suite table --compare pdfium layout --per-metric
python3 - "$work/compare.json" "$work/cases.json" <<'PY'
import json, sys
compare = json.load(open(sys.argv[1]))
rows = compare["documents"]
per = {m["metric"]: m for m in compare["metrics"]}
cases = []
for metric, m in sorted(per.items()):
    pairs = sorted((r["dataset"], r["document"], r["a"], r["b"]) for r in rows if r["metric"] == metric)
    if m["p"] is None:
        continue
    n = m["n"]
    cases.append({
        "name": f"{metric} pdfium vs layout ({n} documents)",
        "a": [p[2] for p in pairs], "b": [p[3] for p in pairs],
        "rust": {"p": m["p"], "exact": m["exact"], "permutations": 2 ** n if m["exact"] else 2000,
                 "mean_diff": m["delta"], "lo": m["delta_lo"], "hi": m["delta_hi"]},
    })
json.dump({"level": 0.95, "resamples": 2000, "seed": 0, "cases": cases}, open(sys.argv[2], "w"))
PY
venv=${CORPUS_CACHE:-$HOME/.cache/corpus}/envs/bench-scipy
if ! "$venv/bin/python" -c "import scipy, numpy" 2>/dev/null; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install -q "scipy==1.17.1" "numpy==2.4.6"
fi
ref=../shared/reference/olmocr-bench
olm=()
[ -f "$ref/utils.py" ] && olm=(--olmocr-utils "$ref")
# Exact p-values (few pairs): the hand cases of src/metrics/stats.rs's tests, against SciPy's
# exact test; then every metric of the comparison above.
"$venv/bin/python" bench/stats_scipy.py --demo
"$venv/bin/python" bench/stats_scipy.py "$work/cases.json" "${olm[@]}"
