#!/usr/bin/env bash
# Issue 49's bench: layout-detection mAP of pdfium, layout, opendataloader and unstructured on
# the shared OmniDocBench demo (its page images as 200 dpi scanned PDFs, as bench/audit_plant.py
# writes them) and on ICDAR 2013's table regions, with the detection suite (both taxonomies
# for the demo; ICDAR's truth has tables only, so its mAP is table AP). A provider whose
# environment is not installed here, or that gives no output at all, is named with the reason
# on a `NOT MEASURED` line: this script installs nothing (unstructured's preset pulls torch,
# and its partition_pdf returns no elements here: see docs/detection.md §4).
#
#   [PROVIDERS="..."] [TIMEOUT=900] bench/detection_providers.sh [DATA_DIR] [ICDAR_SUBSET]   (default ../shared/data, eu)
set -euo pipefail
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/corpus-ci/target}"
cd "$(dirname "$0")/.."
. bench/exe.sh
DATA=$(realpath "${1:-../shared/data}")
ICDAR=${2:-eu}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
BIN=$(exe "$T" --bin corpus) || exit 1
export CORPUS_DB="$T/c.db"
python3 - "$DATA/omnidocbench/demo_data/omnidocbench_demo" "$T" <<'PY'
import json, os, sys
sys.path.insert(0, "bench")
from audit_plant import jpeg_pdf
demo, out = sys.argv[1], sys.argv[2]
pages = json.load(open(os.path.join(demo, "OmniDocBench_demo.json"), encoding="utf-8"))
os.makedirs(os.path.join(out, "pages"), exist_ok=True)
for p in pages:
    name = p["page_info"]["image_path"]
    stem = name.rsplit(".", 1)[0]
    with open(os.path.join(demo, "images", name), "rb") as f:
        pdf = jpeg_pdf(f.read())
    with open(os.path.join(out, "pages", stem + ".pdf"), "wb") as f:
        f.write(pdf)
    p["page_info"]["image_path"] = stem + ".pdf"
json.dump(pages, open(os.path.join(out, "omnidoc.json"), "w", encoding="utf-8"))
PY
"$BIN" -q ingest "$T/omnidoc.json" --truth omnidocbench --images "$T/pages" --dataset omnidoc >&2
"$BIN" -q ingest "$DATA/icdar2013/$ICDAR" --truth icdar2013 --dataset icdar >&2
printf '%-15s %-8s %-8s %8s %8s %8s %8s %8s %s\n' provider dataset classes pages map ap50 ar100 ard seconds
for p in ${PROVIDERS:-pdfium layout opendataloader unstructured}; do
    ready=$("$BIN" providers --format json | python3 -c '
import json, sys
print(next((r["ready"] for r in json.load(sys.stdin) if r["provider"] == sys.argv[1]), "unknown"))' "$p")
    case "$ready" in
        yes*) ;;
        *) echo "$p: NOT MEASURED: not installed here ($ready); this bench installs nothing (corpus ocr --provider $p installs it)"; continue ;;
    esac
    start=$(date +%s)
    # A loaded machine makes the layout model slow: the per-document limit is generous
    # (TIMEOUT, default 900 s) so that no page drops out of the figures for want of time.
    "$BIN" -q ocr --provider "$p" --timeout "${TIMEOUT:-900}" --format json >"$T/ocr-$p.json" \
        2>"$T/ocr-$p.log" || true
    secs=$(( $(date +%s) - start ))
    # A provider with no output at all is not measured, and the bench says why (its first
    # failure) rather than printing zeros.
    verdict=$(python3 - "$T/ocr-$p.json" "$T/ocr-$p.log" <<'PY'
import json, sys
try:
    s = json.load(open(sys.argv[1]))
except Exception:
    print("none " + open(sys.argv[2]).read()[-300:].replace("\n", " ")); sys.exit()
fails = s.get("failures") or []
why = fails[0].get("error", "?") if fails else "?"
if s.get("ok", 0) + s.get("cached", 0) == 0:
    print(f"none every document failed ({s.get('failed', 0)}), e.g. {why}")
elif fails:
    print(f"some {len(fails)} of {s.get('documents')} documents failed, e.g. {why}")
else:
    print("all")
PY
)
    case "$verdict" in
        none*) echo "$p: NOT MEASURED: ${verdict#none }"; continue ;;
        some*) echo "$p: ${verdict#some }" ;;
    esac
    for ds in omnidoc icdar; do
        for classes in omnidoc docling; do
            [ "$ds" = icdar ] && [ "$classes" = docling ] && continue
            "$BIN" -q eval --suite detection --provider "$p" --dataset "$ds" --classes "$classes" \
                --format json >"$T/e.json" 2>/dev/null || true
            python3 - "$T/e.json" "$p" "$ds" "$classes" "$secs" <<'PY'
import json, sys
path, p, ds, classes, secs = sys.argv[1:]
try:
    s = json.load(open(path))
except Exception:
    print(f"{p:15} {ds:8} {classes:8} (no result)"); sys.exit()
f = dict(s.get("figures", []))
r = dict(s.get("reading_order", []))
g = lambda v: "-" if v is None else f"{v:.4f}"
print(f"{p:15} {ds:8} {classes:8} {s['pages']:8} {g(f.get('map')):>8} {g(f.get('ap50')):>8} "
      f"{g(f.get('ar100')):>8} {g(r.get('ard')):>8} {secs:>8}"
      + (f"  unmapped: {s['unmapped']}" if s.get("unmapped") else ""))
PY
        done
    done
done
