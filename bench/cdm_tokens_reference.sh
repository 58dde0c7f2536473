#!/usr/bin/env bash
# Cross-checks corpus's CDM tokenizer (src/metrics/cdm/tokens/) against the official one, for
# both variants (OmniDocBench's vendored copy and UniMERNet's upstream), on every formula of the
# formula-metric-study (as given and without dollars), the OmniDocBench demo's 13 pairs and a
# set of edge cases: tokens, coloured body, paper size, template, fallback and failure must be
# byte-identical. The official side is the reference code, run read-only from
# ../shared/reference with node (its patched KaTeX) and Python (numpy and Pillow in a venv).
#
# Usage: bench/cdm_tokens_reference.sh
# Env:   CORPUS_SHARED_REFERENCE, CORPUS_SHARED_DATA (default ../shared/reference, ../shared/data),
#        CORPUS_BENCH_VENV (default /tmp/cdm-tokens-venv), JOBS (default 2)
# Prints "N/M equal" per variant and each difference; exit status 1 when any differs.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/.." && pwd)"
export CORPUS_SHARED_REFERENCE="${CORPUS_SHARED_REFERENCE:-$root/../shared/reference}"
export CORPUS_SHARED_DATA="${CORPUS_SHARED_DATA:-$root/../shared/data}"
if [ ! -d "$CORPUS_SHARED_REFERENCE/unimernet-cdm" ]; then
  echo "skipping: $CORPUS_SHARED_REFERENCE (the official CDM code) not found"; exit 0
fi
if ! command -v node >/dev/null; then echo "skipping: node not found"; exit 0; fi
venv="${CORPUS_BENCH_VENV:-/tmp/cdm-tokens-venv}"
if [ ! -x "$venv/bin/python" ]; then python3 -m venv "$venv"; fi
"$venv/bin/python" -c 'import numpy, PIL' 2>/dev/null \
  || "$venv/bin/pip" install -q numpy==1.26.4 pillow==10.4.0
cd "$root"
cargo build -q --example cdm_tokens
bin="${CARGO_TARGET_DIR:-$root/target}/debug/examples/cdm_tokens"
"$venv/bin/python" "$here/cdm_tokens_reference.py" "$bin" --jobs "${JOBS:-2}"
