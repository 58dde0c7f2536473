#!/usr/bin/env bash
# Times the paper suite per paper (all metrics, traces included) on one core, on the sample
# corpus and the shared GROBID papers, against the pdfium provider's outputs.
#
#   bench/paper_suite.sh [REPS]
#
# Builds the binaries (shared dev profile), makes a throw-away store (ingest + ocr --provider pdfium + eval),
# then runs examples/bench_paper.rs on it, pinned to one core when taskset exists.
set -euo pipefail
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/corpus-ci/target}"
cd "$(dirname "$0")/.."
reps=${1:-20}
scripts/setup.sh
cargo build --quiet --bin corpus --example bench_paper
target=${CARGO_TARGET_DIR:-$HOME/.cache/corpus-ci/target}/debug
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export CORPUS_DB=$tmp/bench.db
"$target/corpus" ingest tests/fixtures/papers --dataset sample --truth peerread -q >/dev/null
data=../shared/data
if [ -d "$data/grobid-gold/pdf" ]; then
  "$target/corpus" ingest "$data/grobid-gold/pdf" --dataset grobid --truth grobid-tei -q >/dev/null
fi
if [ -d "$data/s2orc" ]; then
  "$target/corpus" ingest "$data/s2orc" --dataset s2orc --truth grobid-tei -q >/dev/null
fi
"$target/corpus" ocr --provider pdfium -q >/dev/null
pin=()
command -v taskset >/dev/null && pin=(taskset -c 0)
"${pin[@]}" "$target/examples/bench_paper" "$CORPUS_DB" "$reps"
