#!/usr/bin/env bash
# The GPU check of an endpoint preset, ready to run on a machine with a GPU: one preset against
# a vLLM (or SGLang) server already serving its model, over the shared table sample
# (pdf-parse-bench's tables, by default the first 20 PDFs), in a throw-away store. Prints pages
# per second and tokens per second of the whole run, and the table suite's TEDS of the result;
# then `layout` on the same PDFs on the CPU and with `CORPUS_DEVICE=cuda`, pages per second
# of each. With --olmocr-bench DIR (a copy of olmOCR-bench: its JSONL test files and pdfs/)
# or --omnidocbench FILE (OmniDocBench.json beside images/), the preset also reads that
# benchmark and the script prints corpus's score for it below the one the authors publish
# (docs/guide/gpu-parsers.md says which, and what "equal" means).
#
#   bench/gpu_endpoint.sh --preset dots.ocr --base-url http://127.0.0.1:8000/v1
#                         [--model ID] [--concurrency 64] [--max-docs 20] [--keep DIR]
#                         [--skip-layout] [--olmocr-bench DIR] [--omnidocbench FILE]
#
# Start the server first with the authors' command (`corpus providers show PRESET` prints it;
# docs/guide/gpu-parsers.md). Without a GPU or a server this script says so and exits 2: nothing in
# CI runs it. Env: CORPUS_BIN (a built corpus; default: build it), DATA (default
# ../shared/data relative to the repository).
set -euo pipefail
cd "$(dirname "$0")/.."

preset="" base_url="" model="" concurrency=64 max_docs=20 keep="" skip_layout=0
olmocr_bench="" omnidocbench=""
while [ $# -gt 0 ]; do
    case "$1" in
        --preset) preset="$2"; shift 2 ;;
        --base-url) base_url="$2"; shift 2 ;;
        --model) model="$2"; shift 2 ;;
        --concurrency) concurrency="$2"; shift 2 ;;
        --max-docs) max_docs="$2"; shift 2 ;;
        --keep) keep="$2"; shift 2 ;;
        --skip-layout) skip_layout=1; shift ;;
        --olmocr-bench) olmocr_bench="$2"; shift 2 ;;
        --omnidocbench) omnidocbench="$2"; shift 2 ;;
        -h|--help) sed -n '2,21p' "$0"; exit 0 ;;
        *) echo "unknown argument $1" >&2; exit 2 ;;
    esac
done
if [ -z "$preset" ] || [ -z "$base_url" ]; then
    echo "needs --preset ID and --base-url URL (a server running the preset's model)" >&2
    exit 2
fi
if ! curl -fsS --max-time 10 "$base_url/models" >/dev/null 2>&1; then
    echo "no server answers at $base_url/models: start the model's server first (corpus providers show $preset)" >&2
    exit 2
fi

data="${DATA:-../shared/data}"
tables="$data/pdf-parse-bench/tables"
[ -d "$tables" ] || tables="$data/pdf-parse-bench"
if [ -z "${CORPUS_BIN:-}" ]; then
    cargo build --quiet
    CORPUS_BIN="${CARGO_TARGET_DIR:-target}/debug/corpus"
fi
dir="${keep:-$(mktemp -d)}"
mkdir -p "$dir/pdfs"
db="$dir/bench.db"
rm -f "$db"
# The first N PDFs by name, with their ground truth beside them as ingest finds it.
find "$tables" -name '*.pdf' | sort | head -n "$max_docs" > "$dir/list"
[ -s "$dir/list" ] || { echo "no PDFs under $tables" >&2; exit 2; }
while read -r pdf; do
    stem="$(basename "$pdf" .pdf)"
    cp "$pdf" "$dir/pdfs/"
    for gt in "$(dirname "$pdf")/../ground_truth/$stem.json" "$(dirname "$pdf")/ground_truth/$stem.json"; do
        if [ -f "$gt" ]; then mkdir -p "$dir/ground_truth"; cp "$gt" "$dir/ground_truth/"; fi
    done
done < "$dir/list"
"$CORPUS_BIN" --db "$db" ingest -q "$dir/pdfs" --truth latex-tables --dataset tables

ocr=("$CORPUS_BIN" --db "$db" ocr --provider "$preset" --base-url "$base_url"
     --concurrency "$concurrency" --format json)
[ -n "$model" ] && ocr+=(--model "$model")
t0=$(date +%s.%N)
"${ocr[@]}" > "$dir/ocr.json" || true
t1=$(date +%s.%N)
python3 - "$dir/ocr.json" "$t0" "$t1" "$preset" <<'EOF'
import json, sys
s = json.load(open(sys.argv[1]))
wall = float(sys.argv[3]) - float(sys.argv[2])
pages = s["summary"]["pages_ran"]
tokens = sum(s.get("tokens") or [0, 0])
print(f"{sys.argv[4]}: {pages} pages, {tokens} tokens in {wall:.1f} s: "
      f"{pages / wall:.2f} pages/s, {tokens / wall:.0f} tokens/s "
      f"(ok {s['summary']['ok']}, failed {s['summary']['failed']})")
EOF
"$CORPUS_BIN" --db "$db" eval --suite table --provider "$preset" -q >/dev/null || true
"$CORPUS_BIN" --db "$db" report --suite table --by provider --provider "$preset" --ci none

# The authors' published scores (docs/guide/gpu-parsers.md cites each): olmOCR-bench overall,
# OmniDocBench v1.5 overall.
published() {
    case "$1:$2" in
        olmocr-2:olmocr) echo "82.4 ± 1.1 (olmOCR v0.4.0, allenai/olmocr README)" ;;
        chandra:olmocr) echo "85.9 ± 0.8 (Chandra 2, PyPI chandra-ocr 0.2.0 README)" ;;
        dots.ocr:olmocr) echo "79.1 ± 1.0 (rednote-hilab/dots.ocr README)" ;;
        glm-ocr:omnidoc) echo "94.62 (OmniDocBench v1.5, zai-org/GLM-OCR README)" ;;
        *) echo "none read (docs/guide/gpu-parsers.md)" ;;
    esac
}
bench_suite() { # DATASET TRUTH SUITE PATH
    "$CORPUS_BIN" --db "$db" ingest -q "$4" --truth "$2" --dataset "$1"
    "${ocr[@]}" --dataset "$1" > "$dir/ocr-$1.json" || true
    python3 -c "import json,sys; s=json.load(open(sys.argv[1]))['summary']; print(f'{sys.argv[2]}: ok {s[\"ok\"]}, failed {s[\"failed\"]}')" \
        "$dir/ocr-$1.json" "$1"
    "$CORPUS_BIN" --db "$db" eval --suite "$3" --provider "$preset" --dataset "$1" -q >/dev/null || true
    echo "$preset on $1, published: $(published "$preset" "$3")"
    "$CORPUS_BIN" --db "$db" report --suite "$3" --by provider --provider "$preset" --dataset "$1"
}

if [ "$skip_layout" = 0 ]; then
    for device in cpu cuda; do
        t0=$(date +%s.%N)
        CORPUS_DEVICE=$device "$CORPUS_BIN" --db "$db" ocr --provider layout -q --format json \
            > "$dir/layout-$device.json" || { echo "layout on $device failed" >&2; continue; }
        t1=$(date +%s.%N)
        python3 -c "import json,sys; s=json.load(open(sys.argv[1])); w=float(sys.argv[3])-float(sys.argv[2]); print(f'layout {sys.argv[4]}: {s[\"summary\"][\"pages_ran\"]/w:.2f} pages/s ({s[\"summary\"][\"pages_ran\"]} pages, {w:.1f} s)')" \
            "$dir/layout-$device.json" "$t0" "$t1" "$device"
        # The second device re-runs: the layout provider's cache key holds the device.
    done
fi
# Last, so that the layout timing above is over the table sample alone.
if [ -n "$olmocr_bench" ]; then bench_suite olmocr-bench olmocr-bench olmocr "$olmocr_bench"; fi
if [ -n "$omnidocbench" ]; then bench_suite omnidocbench omnidocbench omnidoc "$omnidocbench"; fi
[ -n "$keep" ] || rm -rf "$dir"
