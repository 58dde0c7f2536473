#!/usr/bin/env bash
# Cross-check the positional glyph comparison of olmOCR-bench math tests
# (corpus::metrics::katex::positional_match) against olmocr 0.4.27's
# compare_rendered_equations on N random cases (default 5000): glyph boxes on a jittered grid,
# hypotheses made by moving, swapping, adding and dropping glyphs, with MathML keys that differ
# so that the positional step decides. Prints the number of cases where the two differ.
#
# Usage: bench/olmocr_positional_reference.sh [N] [SEED]
# Env:   CORPUS_BENCH_VENV   the venv of bench/olmocr_reference.sh (made here if missing)
set -euo pipefail
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/corpus-ci/target}"
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/.." && pwd)"
n="${1:-5000}"; seed="${2:-1}"
venv="${CORPUS_BENCH_VENV:-$HOME/.cache/corpus/bench-venv-olmocr}"
if [ ! -x "$venv/bin/python" ]; then python3 -m venv "$venv"; fi
"$venv/bin/python" -m pip install -q --no-deps olmocr==0.4.27
"$venv/bin/python" -m pip install -q beautifulsoup4==4.15.0 lxml==6.1.3 playwright==1.65.2
tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT
"$venv/bin/python" "$here/olmocr_positional_reference.py" cases "$n" "$seed" >"$tmp/cases.jsonl"
"$venv/bin/python" "$here/olmocr_positional_reference.py" decide <"$tmp/cases.jsonl" >"$tmp/ref.txt"
(cd "$root" && cargo run -q --example positional_match) <"$tmp/cases.jsonl" >"$tmp/rust.txt"
paste "$tmp/ref.txt" "$tmp/rust.txt" | awk -v n="$n" '
  { if ($1 == "true") t++; if ($1 != $2) { d++; if (d <= 5) print "  differs on case " NR ": reference " $1 ", rust " $2 } }
  END { printf "%d cases (%d matches by the reference): %d differ\n", n, t, d + 0 }'
