#!/usr/bin/env bash
# The truth audit's planted-error recall (docs/audit.md, "Bench"): plants N errors chosen by a
# seed (bench/audit_plant.py: misspelt word, dropped line, wrong table cell, wrong LaTeX token,
# two blocks swapped) in copies of the shared OmniDocBench demo truths and pdf-parse-bench table
# truths, ingests them into a fresh store, runs three providers on each, runs
# `corpus audit` per suite and prints how many planted errors rank in the top 2×N of all
# findings (both suites' findings ranked together as the audit ranks them: evidence, then
# score), per error type, and the share.
#
# Providers (three per suite by default): OmniDocBench demo pages — READINGS, the demo's real
# model readings imported as Markdown providers (default "demo recognition": `demo` is the
# demo's end-to-end Markdown, `recognition` the demo's recognition-task predictions assembled
# per page by bench/audit_recognition.py, blocks in a geometric order, never the truth's), and
# OCR providers (PROVIDERS_IMG, default "layout"; "layout tesseract" adds tesseract) on each
# page image wrapped as a one-page 200 dpi scanned PDF (the providers here read PDFs, not
# JPEGs; the audit matches by text, so the boxes need not line up); pdf-parse-bench tables
# (PDFs with a text layer) — PROVIDERS_PDF (default "pdfium layout pdfplumber").
#
# Usage: bench/audit_planted.sh [SEED] [N]   (CORPUS_SHARED_DATA: the shared data folder;
# OCR_TIMEOUT: `corpus ocr --timeout`, seconds per document, default 600, so that a loaded
# machine does not drop pages; KEEP=1: keep the temporary folder)
set -euo pipefail
cd "$(dirname "$0")/.."
SEED="${1:-1}"
N="${2:-10}"
DATA="${CORPUS_SHARED_DATA:-../shared/data}"
READINGS="${READINGS:-demo recognition}"
PROVIDERS_IMG="${PROVIDERS_IMG-layout}"
PROVIDERS_PDF="${PROVIDERS_PDF:-pdfium layout pdfplumber}"
OCR_TIMEOUT="${OCR_TIMEOUT:-600}"
BIN="${CORPUS_BIN:-}"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/corpus-ci/target}"
if [ -z "$BIN" ]; then cargo build -q --bin corpus; BIN="$CARGO_TARGET_DIR/debug/corpus"; fi
T="$(mktemp -d)"
# KEEP=1 keeps the folder (store, planted truths, audit JSON) to look into the findings.
if [ -n "${KEEP:-}" ]; then echo "bench: keeping $T" >&2; else trap 'rm -rf "$T"' EXIT; fi
export CORPUS_DB="$T/c.db"
DEMO="$DATA/omnidocbench/demo_data"

python3 bench/audit_plant.py --seed "$SEED" --n "$N" \
    --omnidoc "$DEMO/omnidocbench_demo/OmniDocBench_demo.json" \
    --tables "$DATA/pdf-parse-bench/tables/ground_truth" --out "$T/planted" \
    --pdf-images "$DEMO/omnidocbench_demo/images" >&2
mkdir -p "$T/tables/pdfs"
cp "$DATA"/pdf-parse-bench/tables/pdfs/*.pdf "$T/tables/pdfs/"
cp -r "$T/planted/tables" "$T/tables/ground_truth"

"$BIN" -q ingest "$T/planted/omnidoc.json" --truth omnidocbench \
    --images "$T/planted/pages" --dataset omnidoc >&2
"$BIN" -q ingest "$T/tables" --truth latex-tables --dataset tables >&2
for r in $READINGS; do
    case "$r" in
        demo) DIR="$DEMO/end2end" ;;
        recognition)
            DIR="$T/recognition"
            python3 bench/audit_recognition.py "$DEMO/recognition" "$DIR" ;;
        *) echo "bench: unknown reading $r (demo, recognition)" >&2; exit 2 ;;
    esac
    "$BIN" -q import "$DIR" --provider "$r" --format markdown --dataset omnidoc >&2
done
for p in $PROVIDERS_IMG; do
    "$BIN" -q ocr --provider "$p" --dataset omnidoc --timeout "$OCR_TIMEOUT" >&2 || true
done
for p in $PROVIDERS_PDF; do
    "$BIN" -q ocr --provider "$p" --dataset tables --timeout "$OCR_TIMEOUT" >&2 || true
done
"$BIN" status >&2

IMG_ARGS=(); for p in $READINGS $PROVIDERS_IMG; do IMG_ARGS+=(--provider "$p"); done
PDF_ARGS=(); for p in $PROVIDERS_PDF; do PDF_ARGS+=(--provider "$p"); done
"$BIN" audit --suite omnidoc --dataset omnidoc "${IMG_ARGS[@]}" --top 0 --format json > "$T/omnidoc.json"
"$BIN" audit --suite table --dataset tables "${PDF_ARGS[@]}" --top 0 --format json > "$T/table.json"

python3 - "$T/planted/planted.json" "$T/omnidoc.json" "$T/table.json" "$N" "$SEED" <<'EOF'
import json, sys
planted = json.load(open(sys.argv[1]))
findings = []
readers = []
for path in sys.argv[2:4]:
    r = json.load(open(path))
    findings += [dict(f, suite=r["suite"]) for f in r["findings"]]
    readers.append(f"{r['suite']}: {len(r['providers'])} ({', '.join(r['providers'])})")
# The audit's own order (docs/audit.md §2): evidence first, then score; both suites together.
TIER = {"content": 0, "omission": 1, "form": 2}
findings.sort(key=lambda f: (TIER[f["evidence"]], -f["score"]))
n, seed = int(sys.argv[4]), sys.argv[5]
top = findings[: 2 * n]

def hits(p, f):
    # A table document is named by its path under the ingested folder (`pdfs/018`), the
    # planted list by the truth's file stem (`018`).
    if f["document"].rsplit("/", 1)[-1] != p["document"]:
        return False
    if p["kind"] == "order":
        return f["kind"] == "order"
    if p["kind"] == "table":
        return f["kind"] == "table" and f["element"] == f"table {p['table']}"
    orders = f["element"].rsplit(" order ", 1)[-1].split("+")
    return f["kind"] == p["kind"] and any(o == f"{p['order']:g}" for o in orders)

def rank_of(p):
    for i, f in enumerate(findings):
        if hits(p, f):
            return i + 1
    return None

per = {}
for p in planted:
    r = rank_of(p)
    ok = r is not None and r <= 2 * n
    per.setdefault(p["type"], [0, 0])
    per[p["type"]][0] += ok
    per[p["type"]][1] += 1
    print(f"{p['type']:9} {'top' if ok else '---':3} rank {r if r else '-':>4}  "
          f"{p['document'][:48]:48} {p['detail'][:50]}")
found = sum(v[0] for v in per.values())
print(f"providers: {'; '.join(readers)}")
print(f"findings: {len(findings)} (omnidoc and table together); top 2N = {2 * n}")
for t, (a, b) in per.items():
    print(f"  {t:9} {a}/{b}")
print(f"seed {seed}: {found}/{len(planted)} planted errors in the top {2 * n} ({100 * found / len(planted):.0f} %)")
EOF
