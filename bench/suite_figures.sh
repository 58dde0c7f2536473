#!/usr/bin/env bash
# Every suite's figures on the shared benchmark data, written as plain files so that two
# builds can be compared with `diff -r`: a refactor that keeps behaviour must leave them
# byte-identical. Usage:
#   bench/suite_figures.sh OUT_DIR [DATA_DIR]        # DATA_DIR defaults to ../shared/data
#   PROVIDERS="pdfium layout" bench/suite_figures.sh OUT_DIR
#   CORPUS_BIN=/path/to/old/corpus bench/suite_figures.sh before/   # a build kept from earlier
#   diff -r before/ after/
# Writes OUT_DIR/scores.csv (every stored score and its trace, sorted), OUT_DIR/eval-*.txt
# (what each `eval` printed: the whole-run figures), OUT_DIR/report-*.csv and the exit codes.
# Run times (the report's s/page columns too), run ids and output row ids are left out (they
# differ by construction).
set -uo pipefail
cd "$(dirname "$0")/.."
out=${1:?usage: bench/suite_figures.sh OUT_DIR [DATA_DIR]}
data=${2:-../shared/data}
providers=${PROVIDERS:-pdfium}
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/corpus-ci/target}"
mkdir -p "$out"
out=$(cd "$out" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
. bench/exe.sh
if [ -n "${CORPUS_BIN:-}" ]; then
    bin=$CORPUS_BIN
else
    bin=$(exe "$work" --bin corpus) || exit 1
fi
export CORPUS_DB="$work/figures.db"
codes="$out/exit-codes.txt"
: >"$codes"
step() { # NAME ARGS...: runs corpus, keeps stdout when NAME ends in .txt, records the code
    local name=$1
    shift
    "$bin" -q "$@" >"$work/stdout" 2>"$work/stderr"
    echo "$name $?" >>"$codes"
    case $name in *.txt) cp "$work/stdout" "$out/$name" ;; esac
}

[ -d "$data" ] || { echo "suite_figures: no data at $data" >&2; exit 1; }
step ingest-grobid ingest "$data/grobid-gold/pdf" --dataset grobid --truth grobid-tei
step ingest-s2orc ingest "$data/s2orc" --dataset s2orc --truth s2orc
step ingest-docling ingest "$data/docling/pdf" --dataset docling --truth docling
step ingest-tables ingest "$data/pdf-parse-bench/tables" --dataset tables --truth latex-tables
step ingest-icdar ingest "$data/icdar2013/eu" --dataset icdar --truth icdar2013
step ingest-olmocr ingest "$data/olmocr-bench/sample_data" --dataset olmocr --truth olmocr-bench
step ingest-omnidoc ingest "$data/omnidocbench/demo_data/omnidocbench_demo/OmniDocBench_demo.json" \
    --truth omnidocbench --images "$data/omnidocbench/demo_data/omnidocbench_demo/images" --dataset omnidoc
step import-olmocr import "$data/olmocr-bench/sample_data/olmocr_pipeline" --provider olmocr --format markdown
step import-omnidoc import "$data/omnidocbench/demo_data/end2end" --provider omnidoc-demo --format markdown
for p in $providers; do
    step "ocr-$p" ocr --provider "$p" --jobs 2
done

for p in $providers truth; do
    step "eval-paper-$p.txt" eval --suite paper --provider "$p"
    step "eval-paper-fields-$p.txt" eval --suite paper --provider "$p" --fields
    step "eval-table-$p.txt" eval --suite table --provider "$p"
    step "eval-olmocr-$p.txt" eval --suite olmocr --provider "$p"
done
step eval-olmocr-olmocr.txt eval --suite olmocr --provider olmocr
step eval-omnidoc-omnidoc-demo.txt eval --suite omnidoc --provider omnidoc-demo
for s in paper table olmocr omnidoc; do
    step "report-$s.txt" report --suite "$s" --by provider --format csv
    # The seconds per page (wall and CPU) are times: dropped, as run times are.
    awk -F, -v OFS=, 'NR == 1 { for (i = 1; i <= NF; i++) drop[i] = ($i == "s/page" || $i == "cpu s/page") }
        { n = 0; line = ""; for (i = 1; i <= NF; i++) if (!drop[i]) { line = n++ ? line OFS $i : $i } print line }' \
        "$out/report-$s.txt" >"$work/report" && mv "$work/report" "$out/report-$s.txt"
done
# Every score, its trace and the truth format, in a fixed order; ids, times and runs left out.
"$bin" -q sql "SELECT dataset, document, provider, provider_version, suite, suite_version,
    metric, printf('%.12g', value) AS value, truth_format, trace FROM v_scores
    ORDER BY dataset, document, provider, suite, metric, value, trace" --format csv \
    >"$work/scores.csv"
echo "scores $?" >>"$codes"
# olmOCR traces name each repeat's output by its row id, which follows the order in which
# `ocr --jobs 2` stored the outputs: masked, since it differs between two runs of one build.
sed -E 's/""output"":[0-9]+/""output"":N/g' "$work/scores.csv" >"$out/scores.csv"
"$bin" -q sql "SELECT media_type, count(*) AS n FROM blobs GROUP BY 1 ORDER BY 1" --format csv \
    >"$out/media-types.csv" 2>/dev/null || true
wc -l "$out/scores.csv" | awk '{print "suite_figures: " $1 - 1 " scores in " FILENAME}' FILENAME="$out/scores.csv"
cat "$codes"
