#!/usr/bin/env bash
# Cross-check corpus::metrics::katex (KaTeX under node) against olmOCR's own rendering (PyPI
# olmocr 0.4.27, KaTeX in headless Chromium) formula by formula: the normalized MathML with and
# without lxml, the positional glyphs, and KaTeX errors. Formulas: the math tests and extracted
# equations of DIR (if it exists) plus N generated ones.
#
# Usage: bench/katex_reference.sh [DIR] [N]   (defaults: the shared olmOCR-bench sample, 400)
# Env:   CORPUS_BENCH_VENV, OLMOCR_CHROMIUM as for bench/olmocr_reference.sh
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/.." && pwd)"
dir="${1:-$(cd "$(dirname "$0")" && pwd)/../../shared/data/olmocr-bench/sample_data}"
n="${2:-400}"
venv="${CORPUS_BENCH_VENV:-$HOME/.cache/corpus/bench-venv-olmocr}"
if [ -z "${OLMOCR_CHROMIUM:-}" ] && [ -x /usr/bin/chromium-headless-shell ]; then
  export OLMOCR_CHROMIUM=/usr/bin/chromium-headless-shell
fi
if [ -z "${OLMOCR_CHROMIUM:-}" ]; then echo "skipping: no Chromium (set OLMOCR_CHROMIUM)"; exit 0; fi
if ! command -v node >/dev/null; then echo "skipping: node not found"; exit 0; fi
if [ ! -f "$root/scripts/katex/node_modules/katex/package.json" ]; then
  (cd "$root" && npm ci --prefix scripts/katex --no-audit --no-fund >/dev/null)
fi
if [ ! -x "$venv/bin/python" ]; then python3 -m venv "$venv"; fi
"$venv/bin/python" -m pip install -q --no-deps olmocr==0.4.27
"$venv/bin/python" -m pip install -q beautifulsoup4==4.15.0 lxml==6.1.3 playwright==1.65.2 \
  rapidfuzz==3.14.6 fuzzysearch==0.8.1 numpy==2.4.6 pypdf==7.1.1 tqdm==4.70.1 pillow
cd "$root"
nice -n 10 "$venv/bin/python" "$here/katex_reference.py" "$dir" "$n" 2>/dev/null \
  | grep -v -e '^Error rendering' -e '^KaTeX parse error' -e '^Cleaning up'
