#!/usr/bin/env bash
# The realism check of `corpus synth` (issue 17): the tables of pdf-parse-bench's
# `tables/ground_truth` used as sources for 100 new pages, read by `pdfium` and `layout`,
# beside the same providers on the original 50 pages, scored by the table suite overall and
# by complexity. Same tables, new layouts: where the scores differ, the layout (fonts, sizes,
# columns, placement) is what changed.
#
#   bench/synth_realism.sh [--pages N] [--seed S] [--keep DIR]
#
# Runs scripts/setup.sh (libpdfium, the layout models); builds `corpus` in the shared dev
# profile (CARGO_TARGET_DIR is honoured). DATA defaults to ../shared/data.
set -euo pipefail
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/corpus-ci/target}"
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo"
pages=100
seed=1
keep=""
while [ $# -gt 0 ]; do
  case $1 in
    --pages) pages=$2; shift 2 ;;
    --seed) seed=$2; shift 2 ;;
    --keep) keep=$2; shift 2 ;;
    -h|--help) sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "bench: unknown argument $1" >&2; exit 2 ;;
  esac
done
tables="${DATA:-../shared/data}/pdf-parse-bench/tables"
[ -d "$tables/ground_truth" ] || { echo "bench: SKIP: $tables is absent" >&2; exit 0; }
command -v pdflatex >/dev/null || { echo "bench: SKIP: pdflatex is absent" >&2; exit 0; }
CORPUS_SETUP_QUIET=1 scripts/setup.sh
cargo build -q --bin corpus
exe="$CARGO_TARGET_DIR/debug/corpus"
if [ -n "$keep" ]; then mkdir -p "$keep"; work=$(cd "$keep" && pwd); rm -f "$work/r.db"; else
  work=$(mktemp -d); trap 'rm -rf "$work"' EXIT; fi
export CORPUS_DB="$work/r.db"
"$exe" -q ingest "$tables" --truth latex-tables --dataset original >/dev/null
"$exe" -q synth tables --from "$tables/ground_truth" --pages "$pages" --seed "$seed" \
  --out "$work/synth" --dataset synth --format json >"$work/synth.json" || [ $? -eq 3 ]
for p in pdfium layout; do
  "$exe" -q ocr --provider "$p" >/dev/null
  for ds in original synth; do
    "$exe" -q eval --suite table --provider "$p" --dataset "$ds" --format json >"$work/eval-$p-$ds.json" || [ $? -eq 3 ]
  done
done
python3 - "$work" <<'PY'
import json, sys, os
work = sys.argv[1]
def figs(d):
    v = dict((k, x) for k, x in d["values"])
    return d["tables"], v.get("teds"), v.get("grits_con_f"), v.get("det_r")
print(f"{'provider':8} {'dataset':9} {'class':9} {'tables':>6} {'TEDS':>6} {'GriTS-Con F':>11} {'det R':>6}")
for p in ["pdfium", "layout"]:
    for ds in ["original", "synth"]:
        e = json.load(open(os.path.join(work, f"eval-{p}-{ds}.json")))
        rows = [("all", e["tables"])] + sorted(e["by_complexity"].items())
        for cls, d in rows:
            n, teds, grits, det = figs(d)
            f = lambda x: "-" if x is None else f"{x:.3f}"
            print(f"{p:8} {ds:9} {cls:9} {n:6} {f(teds):>6} {f(grits):>11} {f(det):>6}")
PY
