#!/usr/bin/env bash
# A randomized differential check of the table dimension and the table, tables_values and
# table_header_chain rules: corpus against ParseBench's evaluator on random table cases
# (bench/parsebench_table_fuzz.py), seed after seed. Needs what bench/parsebench_agreement.sh
# needs (run it once first: it makes the virtual environment). Exits 1 on any difference.
#
# Usage: bench/parsebench_table_fuzz.sh [SEEDS] [CASES]   (default 5 seeds of 150 cases)
set -euo pipefail
cd "$(dirname "$0")/.."
PB=${PARSEBENCH_DIR:-../shared/reference/parsebench}
VENV=${PARSEBENCH_VENV:-$HOME/.cache/corpus-bench/parsebench-venv}
SEEDS=${1:-5}
CASES=${2:-150}
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-target}"
cargo build --quiet --bin corpus --example parsebench_cases
corpus="$CARGO_TARGET_DIR/debug/corpus"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$CARGO_TARGET_DIR/debug/examples/parsebench_cases" "$work/pdf" >/dev/null
status=0
for seed in $(seq 1 "$SEEDS"); do
  w="$work/$seed"
  PYTHONPATH="$PB/src" "$VENV/bin/python" bench/parsebench_table_fuzz.py "$w" "$seed" "$CASES" \
    "$work/pdf/pdfs/table/tb1.pdf"
  export CORPUS_DB="$w/c.db"
  "$corpus" -q ingest "$w/cases" --truth parsebench --dataset fuzz >/dev/null
  "$corpus" -q import "$w/outputs/p" --provider p --format markdown >/dev/null
  "$corpus" -q eval --suite parsebench --provider p --format json >"$w/corpus.json"
  PYTHONPATH="$PB/src" "$VENV/bin/python" bench/parsebench_reference.py "$w/cases" "$w/outputs" \
    present,table,table_header_chain,tables_values p >"$w/reference.json" 2>"$w/reference.log"
  echo "seed $seed:"
  python3 bench/parsebench_compare.py "$w/reference.json" p="$w/corpus.json" || status=1
done
exit $status
