#!/usr/bin/env bash
# Cross-check single olmOCR-bench tests (present/absent/order/table-cell/math-exact/baseline) on
# N random generated pages (default 10000) against PyPI olmocr 0.4.27.
# Env: CORPUS_BENCH_VENV (default ~/.cache/corpus/bench-venv-olmocr),
#      RUST_OLMOCR_CASES (command reading cases on stdin; default: the olmocr_cases example, built with cargo build --example)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/corpus-ci/target}"
# The shared dev profile (dependencies optimised), as the tests build it.
build_example() { (cd "$here/.." && cargo build --quiet --example olmocr_cases); echo "$CARGO_TARGET_DIR/debug/examples/olmocr_cases"; }
n="${1:-10000}"
venv="${CORPUS_BENCH_VENV:-$HOME/.cache/corpus/bench-venv-olmocr}"
if [ ! -x "$venv/bin/python" ]; then python3 -m venv "$venv"; fi
"$venv/bin/pip" install -q --no-deps olmocr==0.4.27
"$venv/bin/pip" install -q rapidfuzz==3.14.6 fuzzysearch==0.8.1 beautifulsoup4==4.15.0 \
  numpy==2.4.6 pypdf==7.1.1 tqdm==4.70.1 playwright==1.65.2 pillow
tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT
"$venv/bin/python" "$here/olmocr_cases_reference.py" gen "$n" >"$tmp/cases.jsonl"
if [ -n "${RUST_OLMOCR_CASES:-}" ]; then
  $RUST_OLMOCR_CASES <"$tmp/cases.jsonl" >"$tmp/rust.jsonl"
else
  "$(build_example)" <"$tmp/cases.jsonl" >"$tmp/rust.jsonl"
fi
echo "== olmocr 0.4.27 as released =="
nice -n 10 "$venv/bin/python" "$here/olmocr_cases_reference.py" compare "$tmp/cases.jsonl" "$tmp/rust.jsonl" || true
echo "== olmocr 0.4.27 with the f7cfe4c normalize_text patched in =="
SNAPSHOT_NORMALIZE=1 nice -n 10 "$venv/bin/python" "$here/olmocr_cases_reference.py" compare "$tmp/cases.jsonl" "$tmp/rust.jsonl"
