#!/usr/bin/env bash
# Runs the Rust OmniDocBench v1.5 port on the demo data and compares every figure of
# result-v1.5/*_metric_result.json (text, formula, table, reading order; all/group/page) and
# every matched pair of the *_result.json files. No Python needed: the official v1.5 outputs are
# stored with the data. Usage: bench/omnidoc_demo.sh [DATA_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/corpus-ci/target}"
cargo run -q --example omnidoc_demo -- "${1:-../shared/data/omnidocbench}"
