#!/usr/bin/env bash
# GROBID-style field scores (issue 19) of `pdfium` and `layout` on the GROBID gold set and on
# the S2ORC paper, and of GROBID's own TEI of the S2ORC paper imported as a provider's output
# and scored against the S2ORC JSON truth. Prints micro F1 (%) per field group and matching,
# as GROBID's end-to-end tables give them, and the time `eval --fields` took per paper.
# Usage: bench/paper_fields.sh [OUT_DIR] [DATA_DIR]      (PROVIDERS="pdfium layout" by default)
# OUT_DIR keeps the store and each eval's JSON (default: a temporary folder, removed).
set -euo pipefail
cd "$(dirname "$0")/.."
data=${2:-../shared/data}
providers=${PROVIDERS:-pdfium layout}
[ -d "$data/grobid-gold/pdf" ] && [ -d "$data/s2orc" ] \
    || { echo "paper_fields: needs $data/grobid-gold and $data/s2orc" >&2; exit 1; }
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
rm -f "$CORPUS_DB" "$CORPUS_DB-wal" "$CORPUS_DB-shm"

"$bin" -q ingest "$data/grobid-gold/pdf" --dataset grobid-gold --truth grobid-tei
"$bin" -q ingest "$data/s2orc" --dataset s2orc --truth s2orc
for p in $providers; do
    "$bin" -q ocr --provider "$p" --jobs 2
done
# GROBID's own output for the S2ORC paper, as a provider: how far GROBID is from S2ORC's JSON.
"$bin" -q import "$data"/s2orc/*.tei.xml --provider grobid-tei --format grobid-tei

for p in $providers grobid-tei; do
    start=$(date +%s.%N)
    "$bin" -q eval --suite paper --provider "$p" --fields --format json >"$out/eval-$p.json"
    end=$(date +%s.%N)
    echo "$p $start $end" >>"$out/times.txt"
done

python3 - "$out" $providers grobid-tei <<'EOF'
import json, sys
out, providers = sys.argv[1], sys.argv[2:]
times = {l.split()[0]: float(l.split()[2]) - float(l.split()[1])
         for l in open(f"{out}/times.txt")}
matchings = ["strict", "soft", "lev", "ro"]
print(f"{'provider':<12} {'dataset':<12} {'papers':>6}  {'group':<9} "
      + " ".join(f"{m:>7}" for m in matchings))
for p in providers:
    ev = json.load(open(f"{out}/eval-{p}.json"))
    papers = 0
    for f in ev.get("fields", []):
        rep = f["report"]
        papers += rep["papers"]
        for group in ["header", "citations"]:
            g = rep["groups"][group]
            cells = []
            for m in matchings:
                v = g[m]["micro"]["f1"]
                cells.append("      –" if v is None else f"{100 * v:7.2f}")
            print(f"{p:<12} {f['dataset']:<12} {rep['papers']:>6}  {group:<9} " + " ".join(cells))
    if papers:
        print(f"{p:<12} eval --fields: {times[p]:.2f} s wall for {papers} papers "
              f"({1000 * times[p] / papers:.0f} ms/paper, process start and store included)")
EOF
