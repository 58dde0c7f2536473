#!/usr/bin/env bash
# Cross-checks corpus's GriTS (Top, Con) and difflib ports against a faithful Python restatement
# of microsoft/table-transformer src/grits.py (ef21069), on generated table pairs, and times both.
# No PyPI package ships that grits.py (see bench/grits_reference.py), hence the restatement.
#
# Usage: bench/grits_reference.sh [WORKDIR]
# Env:   CORPUS_BENCH_VENV (default ~/.cache/corpus/bench-venv-grits), CARGO_TARGET_DIR, PYTHON.
set -euo pipefail
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/corpus-ci/target}"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
venv="${CORPUS_BENCH_VENV:-$HOME/.cache/corpus/bench-venv-grits}"
work="${1:-$(mktemp -d)}"
mkdir -p "$work"

if [ ! -x "$venv/bin/python" ]; then
  "${PYTHON:-python3}" -m venv "$venv"
fi
# Pinned. PyMuPDF 2.0's own requirements (pymupdf4llm, onnxruntime, ...) are not needed for Rect.
"$venv/bin/pip" install --quiet --no-deps numpy==2.4.6 pymupdf==2.0
py="$venv/bin/python -W ignore"
$py -c 'import sys, numpy, pymupdf; print("python", sys.version.split()[0], "numpy", numpy.__version__, "pymupdf", pymupdf.VersionBind)'

$py "$here/grits_reference.py" gen "$work/pairs.jsonl"
echo "== reference (Python, CPU time)"
nice -n 10 $py "$here/grits_reference.py" ref "$work/pairs.jsonl" "$work/ref.jsonl"

echo "== rust"
(cd "$root" && nice -n 10 cargo build --quiet --example grits_pairs --example bench_grits)
bin="${CARGO_TARGET_DIR:-$HOME/.cache/corpus-ci/target}/debug/examples"
"$bin/grits_pairs" "$work/pairs.jsonl" > "$work/rust.jsonl"
$py "$here/grits_reference.py" compare "$work/ref.jsonl" "$work/rust.jsonl"

echo "== speed (same bench pairs)"
nice -n 10 "$bin/bench_grits" "$work/pairs.jsonl" 50 | tee "$work/bench.txt"
ms="$(awk '/^TOP_CON_MS/ {print $2}' "$work/bench.txt")"
cpu="$(awk '/^TOP_CON_CPU_MS/ {print $2}' "$work/bench.txt")"
$py - "$work/ref.jsonl.summary.json" "$ms" "$cpu" <<'PY'
import json, sys
s = json.load(open(sys.argv[1])); ms, cpu = float(sys.argv[2]), float(sys.argv[3])
ref_ms = 1e3 * s["bench_cpu_s_per_pair"]
print(f"Top+Con per pair: reference {ref_ms:.0f} ms CPU; rust {cpu:.2f} ms CPU ({ref_ms / max(cpu, 1e-9):.0f}x), "
      f"{ms:.2f} ms wall ({ref_ms / ms:.0f}x)")
PY
echo "outputs in $work"
