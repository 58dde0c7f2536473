#!/usr/bin/env bash
# Peak resident memory and wall time of `corpus ingest` and `corpus ocr --provider pdfium`
# on one very large one-page PDF (a page-sized grey image under a line of text), written by
# `examples/make_large_pdf.rs`. Default 3 GB; SIZE=bytes to change; KIND=image (the page
# draws the bulk: 1 GB image tiles) or attachment (an attached file the page does not use).
# Needs GNU time.
#   bench/large_pdf.sh            # SIZE=3000000000
#   SIZE=1500000000 bench/large_pdf.sh
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/corpus-ci/target}"
size="${SIZE:-3000000000}"
cargo build --quiet --bin corpus --example make_large_pdf
bin="$CARGO_TARGET_DIR/debug/corpus"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$CARGO_TARGET_DIR/debug/examples/make_large_pdf" "$work/big.pdf" "$size" "${KIND:-image}"
measure() { # label, command...
  local label=$1; shift
  local rc=0
  /usr/bin/time -f "%e %M" -o "$work/t" "$@" >"$work/out" 2>"$work/err" || rc=$?
  read -r wall kb < <(tail -1 "$work/t")
  printf '%-28s wall %7.2f s   peak RSS %8.1f MB   exit %d\n' "$label" "$wall" "$(echo "$kb / 1024" | bc -l)" "$rc"
  if [ "$rc" != 0 ]; then tail -3 "$work/err"; fi
}
measure "ingest ($(du -h "$work/big.pdf" | cut -f1))" "$bin" --db "$work/s.db" --quiet ingest "$work/big.pdf"
measure "ocr --provider pdfium" "$bin" --db "$work/s.db" ocr --provider pdfium --format json
"$bin" --db "$work/s.db" sql "SELECT size, chunks FROM blobs WHERE chunks > 0"
"$bin" --db "$work/s.db" sql "SELECT status, error FROM outputs"
"$bin" --db "$work/s.db" show big | head -3
