#!/usr/bin/env bash
# Cross-check the Rust fuzz module (ratio, partial_ratio, find_near_matches / order decision)
# against PyPI rapidfuzz 3.14.6 and fuzzysearch 0.8.1 on N random cases (default 12000).
# Env: CORPUS_BENCH_VENV (default ~/.cache/corpus/bench-venv-olmocr),
#      RUST_FUZZ_CASES (command reading cases on stdin; default: the fuzz_cases example, built with cargo build --example)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/corpus-ci/target}"
# The shared dev profile (dependencies optimised), as the tests build it.
build_example() { (cd "$here/.." && cargo build --quiet --example fuzz_cases); echo "$CARGO_TARGET_DIR/debug/examples/fuzz_cases"; }
n="${1:-12000}"
venv="${CORPUS_BENCH_VENV:-$HOME/.cache/corpus/bench-venv-olmocr}"
if [ ! -x "$venv/bin/python" ]; then python3 -m venv "$venv"; fi
"$venv/bin/pip" install -q rapidfuzz==3.14.6 fuzzysearch==0.8.1
tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT
"$venv/bin/python" "$here/fuzz_reference.py" gen "$n" >"$tmp/cases.jsonl"
if [ -n "${RUST_FUZZ_CASES:-}" ]; then
  $RUST_FUZZ_CASES <"$tmp/cases.jsonl" >"$tmp/rust.jsonl"
else
  "$(build_example)" <"$tmp/cases.jsonl" >"$tmp/rust.jsonl"
fi
nice -n 10 "$venv/bin/python" "$here/fuzz_reference.py" compare "$tmp/cases.jsonl" "$tmp/rust.jsonl"
