#!/usr/bin/env bash
# The layout provider's models against the Python reference packages (rapid-layout 0.4.2,
# rapid-table 0.3.0, rapidocr-onnxruntime 1.4.4 on onnxruntime 1.31.1), on the same page
# images, in the same run:
#   1. fidelity: layout boxes and labels, table structure (tokens, cell boxes) of every table
#      the layout model finds, and OCR lines, compared by bench/layout_compare.py;
#   2. speed: pages per second with 2 workers (one intra-op thread each) for layout only,
#      layout + tables, and OCR pages, Rust beside Python, with the ratio;
#   3. the whole provider: `corpus ocr --provider layout -j 2` on the PDFs (render + text layer
#      + layout + tables + assembly), pages/s.
# Pages: rendered by `corpus models render` (the provider's own rendering, 144 dpi) from
# ../shared/data/{grobid-gold/pdf,s2orc,icdar2013/eu} (pages 1-2 of each, at most $PAGES in
# name order; OCR on the first
# $OCR_PAGES), or the built-in sample corpus when the shared data is absent.
#   bench/layout_reference.sh [OUT_DIR]      env: PAGES=40 OCR_PAGES=6 JOBS=2
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-$(mktemp -d)}
mkdir -p "$out/pages"
PAGES=${PAGES:-40}
OCR_PAGES=${OCR_PAGES:-6}
JOBS=${JOBS:-2}
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$HOME/.cache/corpus-ci/target}
CORPUS_SETUP_QUIET=1 scripts/setup.sh
py=$(bench/layout_ref_venv.sh)
cargo build --quiet
corpus="$CARGO_TARGET_DIR/debug/corpus"

data=${CORPUS_SHARED_DATA:-../shared/data}
pdfs=()
for d in "$data/grobid-gold/pdf" "$data/s2orc" "$data/icdar2013/eu"; do
  [ -d "$d" ] && while IFS= read -r f; do pdfs+=("$f"); done < <(find "$d" -name '*.pdf' | sort)
done
[ ${#pdfs[@]} -gt 0 ] || pdfs=(tests/fixtures/papers/*.pdf)
for f in "${pdfs[@]}"; do
  "$corpus" models render "$f" --pages 1-2 -o "$out/pages" > /dev/null
done
mapfile -t pages < <(ls "$out/pages"/*.png | sort | head -n "$PAGES")
ocr_pages=("${pages[@]:0:$OCR_PAGES}")
echo "pages: ${#pages[@]} rendered from ${#pdfs[@]} PDFs (OCR on ${#ocr_pages[@]}); output in $out"

declare -A rust_rate py_rate
run_task() { # task images...
  local task=$1
  shift
  "$corpus" models infer --task "$task" -j "$JOBS" "$@" > "$out/rust-$task.jsonl" 2> "$out/rust-$task.err"
  "$py" bench/layout_reference.py "$task" --workers "$JOBS" "$@" > "$out/py-$task.jsonl" 2> "$out/py-$task.err"
  rust_rate[$task]=$(grep -o '[0-9.]* images/s' "$out/rust-$task.err" | cut -d' ' -f1)
  py_rate[$task]=$(grep -o '[0-9.]* images/s' "$out/py-$task.err" | cut -d' ' -f1)
}
run_task layout "${pages[@]}"
run_task layout-table "${pages[@]}"
run_task ocr "${ocr_pages[@]}"

# Tables of layout-table as `table` records (page#k), for the comparison.
tables() {
  "$py" - "$1" <<'PY'
import json, sys
for line in open(sys.argv[1]):
    r = json.loads(line)
    for k, t in enumerate(r.get("tables", [])):
        print(json.dumps({"image": "%s#%d" % (r["image"], k), "task": "table",
                          "tokens": t["tokens"], "cells": t["cells"]}))
PY
}
cat "$out/py-layout.jsonl" "$out/py-ocr.jsonl" > "$out/ref.jsonl"
tables "$out/py-layout-table.jsonl" >> "$out/ref.jsonl"
cat "$out/rust-layout.jsonl" "$out/rust-ocr.jsonl" > "$out/ours.jsonl"
tables "$out/rust-layout-table.jsonl" >> "$out/ours.jsonl"
echo
echo "== fidelity (reference = Python packages; only TOTAL lines; per image in $out/compare.txt)"
"$py" bench/layout_compare.py "$out/ref.jsonl" "$out/ours.jsonl" > "$out/compare.txt"
grep -E '^==|^image|^TOTAL' "$out/compare.txt"

# The whole provider on the same PDFs.
db="$out/provider.db"
rm -f "$db"
"$corpus" --db "$db" ingest "${pdfs[@]}" --dataset bench -q > /dev/null
"$corpus" --db "$db" ocr --provider layout -j "$JOBS" --format json > "$out/provider.json"
prov=$("$py" -c 'import json,sys; s=json.load(open(sys.argv[1])); print("%d pages in %.2f s: %.2f pages/s" % (s["pages_ran"], s["wall_ms"]/1000, s["pages_ran"]/(s["wall_ms"]/1000)))' "$out/provider.json")

echo
echo "== speed, pages/s on CPU, $JOBS workers x 1 thread (same images, this run)"
printf '%-14s %10s %10s %8s\n' task rust python ratio
for t in layout layout-table ocr; do
  printf '%-14s %10.2f %10.2f %7.2fx\n' "$t" "${rust_rate[$t]}" "${py_rate[$t]}" \
    "$(echo "${rust_rate[$t]} / ${py_rate[$t]}" | bc -l)"
done
echo "provider (corpus ocr --provider layout -j $JOBS, render + text layer + models + assembly): $prov"
