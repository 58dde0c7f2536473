#!/usr/bin/env bash
# Cross-check the Rust olmOCR-bench scorer against the reference one (PyPI olmocr 0.4.27,
# module olmocr.bench) on a bench folder, test by test.
#
# Usage: bench/olmocr_reference.sh [DIR]     (default: the shared olmOCR-bench sample data)
# Env:   CORPUS_BENCH_VENV   venv to create/use (default ~/.cache/corpus/bench-venv-olmocr)
#        OLMOCR_CHROMIUM     Chromium binary for KaTeX rendering (default: a Debian
#                            chromium-headless-shell if installed; else math is exact-match only)
#        RUST_SCORER         command printing the Rust side's TEST/OVERALL lines for DIR
#                            (default: the olmocr_sample example, built with cargo build --example)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/corpus-ci/target}"
# The shared dev profile (dependencies optimised), as the tests build it.
build_example() { (cd "$here/.." && cargo build --quiet --example olmocr_sample); echo "$CARGO_TARGET_DIR/debug/examples/olmocr_sample"; }
dir="${1:-$here/../../shared/data/olmocr-bench/sample_data}"
venv="${CORPUS_BENCH_VENV:-$HOME/.cache/corpus/bench-venv-olmocr}"
if [ ! -d "$dir/pdfs" ]; then echo "skipping: $dir has no pdfs/ folder"; exit 0; fi

if [ ! -x "$venv/bin/python" ]; then python3 -m venv "$venv"; fi
"$venv/bin/pip" install -q --no-deps olmocr==0.4.27
# Only what olmocr.bench's scorer imports (olmocr itself declares rapidfuzz/fuzzysearch unpinned
# in its "bench" extra; these are the versions resolved when this script was written).
"$venv/bin/pip" install -q rapidfuzz==3.14.6 fuzzysearch==0.8.1 beautifulsoup4==4.15.0 \
  numpy==2.4.6 pypdf==7.1.1 tqdm==4.70.1 playwright==1.65.2 pillow

if [ -z "${OLMOCR_CHROMIUM:-}" ] && [ -x /usr/bin/chromium-headless-shell ]; then
  export OLMOCR_CHROMIUM=/usr/bin/chromium-headless-shell
fi
if [ -z "${OLMOCR_CHROMIUM:-}" ]; then
  echo "note: no Chromium found (apt-get install chromium-headless-shell); math tests exact-match only"
  export OLMOCR_NO_MATH_RENDER=1
fi

tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT
echo "== reference (olmocr 0.4.27, math via ${OLMOCR_CHROMIUM:-exact match only}) =="
nice -n 10 "$venv/bin/python" "$here/olmocr_reference.py" "$dir" 2>"$tmp/py.err" >"$tmp/py.out" || { cat "$tmp/py.err"; exit 1; }
grep -E '^(candidate|OVERALL)' "$tmp/py.out"
if [ "${OLMOCR_NO_MATH_RENDER:-}" != "1" ]; then
  echo "== reference, math exact-match only =="
  OLMOCR_NO_MATH_RENDER=1 nice -n 10 "$venv/bin/python" "$here/olmocr_reference.py" "$dir" 2>/dev/null >"$tmp/py_exact.out"
  grep -E '^(candidate|OVERALL)' "$tmp/py_exact.out"
else
  cp "$tmp/py.out" "$tmp/py_exact.out"
fi

echo "== rust =="
if [ -n "${RUST_SCORER:-}" ]; then
  $RUST_SCORER "$dir" >"$tmp/rs.out"
else
  "$(build_example)" "$dir" >"$tmp/rs.out"
fi
grep -E '^(candidate|OVERALL)' "$tmp/rs.out"

echo "== test-by-test disagreements (rust vs reference with math rendering) =="
"$venv/bin/python" - "$tmp/rs.out" "$tmp/py.out" "$tmp/py_exact.out" <<'PY'
import sys
def load(p):
    d = {}
    for line in open(p, encoding="utf-8"):
        f = line.rstrip("\n").split("\t")
        if f[0] == "TEST":
            d[f[1]] = (f[2], f[3], f[-1])
    return d
rs, py, pyx = (load(p) for p in sys.argv[1:4])
n = 0
for tid in py:
    if tid not in rs:
        print(f"  {tid}: missing on the Rust side"); n += 1; continue
    if rs[tid][1] != py[tid][1]:
        n += 1
        same_exact = rs[tid][1] == pyx.get(tid, ("", "", ""))[1]
        cause = " (math rendering: agrees with the exact-match-only reference)" if same_exact and rs[tid][0] == "math" else ""
        print(f"  {tid} [{rs[tid][0]}]: rust {rs[tid][1]}, reference {py[tid][1]}{cause}")
        if not cause:
            print(f"      rust: {rs[tid][2][:200]}\n      ref:  {py[tid][2][:200]}")
extra = set(rs) - set(py)
print(f"{len(py)} reference tests, {len(rs)} rust tests, {n} disagreements, {len(extra)} rust-only")
nx = sum(1 for t in pyx if t in rs and rs[t][1] != pyx[t][1])
print(f"vs exact-match-only reference: {nx} disagreements")
for t in pyx:
    if t in rs and rs[t][1] != pyx[t][1]:
        print(f"  {t} [{rs[t][0]}]: rust {rs[t][1]}, reference {pyx[t][1]}\n      rust: {rs[t][2][:200]}\n      ref:  {pyx[t][2][:200]}")
PY
