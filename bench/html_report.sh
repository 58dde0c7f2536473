#!/usr/bin/env bash
# Seconds to write the HTML report (`corpus report --format html`) for shared PDFs with two
# providers and two suites, in total and per document: a first run with a cold page-image
# cache and a second with a warm one. The GROBID gold set (paper suite) and the first
# $TABLES pdf-parse-bench table PDFs (table suite), read by `pdfium` and `layout`.
# Usage: bench/html_report.sh [OUT_DIR] [DATA_DIR]     (PROVIDERS="pdfium layout", TABLES=20)
# OUT_DIR keeps the store, the sites and the image cache (default: a temporary folder).
set -euo pipefail
cd "$(dirname "$0")/.."
data=${2:-../shared/data}
providers=${PROVIDERS:-pdfium layout}
tables=${TABLES:-20}
[ -d "$data/grobid-gold/pdf" ] && [ -d "$data/pdf-parse-bench/tables" ] \
    || { echo "html_report: needs $data/grobid-gold and $data/pdf-parse-bench/tables" >&2; exit 1; }
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/corpus-ci/target}"
if [ -n "${1:-}" ]; then
    out=$1
    mkdir -p "$out"
else
    out=$(mktemp -d)
    trap 'rm -rf "$out"' EXIT
fi
. bench/exe.sh
bin=$(exe "$out" --bin corpus) || exit 1
export CORPUS_DB="$out/bench.db"
export CORPUS_PAGE_IMAGES="$out/page-images"
rm -rf "$CORPUS_DB" "$CORPUS_DB-wal" "$CORPUS_DB-shm" "$CORPUS_PAGE_IMAGES" "$out/site-"*

# The first $tables table PDFs with their truths, as the latex-tables reader expects them.
sub="$out/tables"
rm -rf "$sub" && mkdir -p "$sub/pdfs" "$sub/ground_truth"
for f in $(ls "$data/pdf-parse-bench/tables/pdfs" | sort | head -n "$tables"); do
    ln -s "$(realpath "$data/pdf-parse-bench/tables/pdfs/$f")" "$sub/pdfs/$f"
    ln -s "$(realpath "$data/pdf-parse-bench/tables/ground_truth/${f%.pdf}.json")" "$sub/ground_truth/${f%.pdf}.json"
done
"$bin" -q ingest "$data/grobid-gold/pdf" --dataset grobid-gold --truth grobid-tei
"$bin" -q ingest "$sub" --dataset tables --truth latex-tables
for p in $providers; do
    "$bin" -q ocr --provider "$p" --jobs 2 || [ $? = 3 ]
    "$bin" -q eval --suite paper --provider "$p" >/dev/null || [ $? = 3 ]
    "$bin" -q eval --suite table --provider "$p" >/dev/null || [ $? = 3 ]
done

printf '%-7s %-5s %6s %7s %9s %10s %8s\n' suite cache docs figures seconds "ms/doc" rendered
for run in cold warm; do
    for suite in paper table; do
        site="$out/site-$suite-$run"
        start=$(date +%s.%N)
        "$bin" report --suite "$suite" --format html -o "$site" 2>"$out/html-$suite-$run.log"
        end=$(date +%s.%N)
        line=$(grep 'corpus: wrote' "$out/html-$suite-$run.log")
        docs=$(sed -E 's/.*\(([0-9]+) document pages.*/\1/' <<<"$line")
        figs=$(sed -E 's/.* ([0-9]+) page figures.*/\1/' <<<"$line")
        rendered=$(sed -E 's/.*page images: ([0-9]+) rendered.*/\1/' <<<"$line")
        python3 -c "import sys; s=float(sys.argv[2])-float(sys.argv[1]); d=int(sys.argv[3]); print(f'{sys.argv[4]:<7} {sys.argv[5]:<5} {d:>6} {sys.argv[6]:>7} {s:>9.2f} {1000*s/max(d,1):>10.1f} {sys.argv[7]:>8}')" \
            "$start" "$end" "$docs" "$suite" "$run" "$figs" "$rendered"
    done
done
du -sh "$CORPUS_PAGE_IMAGES" "$out/site-paper-cold" "$out/site-table-cold" | sed 's/^/size: /'
