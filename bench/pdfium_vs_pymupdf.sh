#!/usr/bin/env bash
# pdfium provider (text + block building) vs PyMuPDF get_text("words") / ("rawdict"):
# pages per CPU-second on the same PDFs, in the same run, as ratios against a 1.5x target.
#
#   bench/pdfium_vs_pymupdf.sh [--reps N] [--rounds K] [PDF_OR_FOLDER...]
#
# Each tool takes the best of N repetitions (default 3) inside its own process; the two
# processes are then run alternately K times (default 3) and each tool's best round is kept,
# so that load from other work on the machine hits both sides alike.
#
# Default PDFs: ../shared/data/docling/pdf and ../shared/data/grobid-gold/pdf (relative to
# the repository). Installs PyMuPDF (pinned) into
# ${CORPUS_CACHE:-$HOME/.cache/corpus}/bench-venv on first use, runs scripts/setup.sh for
# libpdfium, and builds `--example bench_pdfium` in the shared dev profile (CARGO_TARGET_DIR is honoured).
# Both sides run pinned to CPU 0 (taskset) when taskset is available.
# Env: PYTHON (python for the venv, default python3), BENCH_CPU (CPU to pin to, default 0).
set -euo pipefail
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/corpus-ci/target}"

PYMUPDF_VERSION=1.26.7
TARGET_RATIO=1.5

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo"

reps=3
rounds=3
inputs=()
while [ $# -gt 0 ]; do
  case $1 in
    --reps) reps=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    -h|--help) sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) inputs+=("$1"); shift ;;
  esac
done
if [ ${#inputs[@]} -eq 0 ]; then
  for d in ../shared/data/docling/pdf ../shared/data/grobid-gold/pdf; do
    if [ -d "$d" ]; then
      inputs+=("$d")
    else
      echo "bench: skipping $d (not present)" >&2
    fi
  done
  if [ ${#inputs[@]} -eq 0 ]; then
    echo "bench: SKIP: none of the default PDF folders is present; pass PDFs or folders as arguments" >&2
    exit 0
  fi
fi
for p in "${inputs[@]}"; do
  [ -e "$p" ] || { echo "bench: $p: no such file or folder" >&2; exit 2; }
done

# --- PyMuPDF in its own venv -------------------------------------------------------------
cache="${CORPUS_CACHE:-$HOME/.cache/corpus}"
venv="$cache/bench-venv"
vpy="$venv/bin/python"
if ! "$vpy" -c "import pymupdf, sys; sys.exit(pymupdf.__version__ != '$PYMUPDF_VERSION')" 2>/dev/null; then
  echo "bench: installing PyMuPDF==$PYMUPDF_VERSION into $venv ..." >&2
  "${PYTHON:-python3}" -m venv "$venv"
  "$vpy" -m pip install --quiet --disable-pip-version-check "pymupdf==$PYMUPDF_VERSION" >&2
fi

# --- libpdfium and the Rust side -----------------------------------------------------------
CORPUS_SETUP_QUIET=1 scripts/setup.sh
echo "bench: building --example bench_pdfium (dev profile) ..." >&2
cargo build --quiet --example bench_pdfium
target_dir=$(cargo metadata --no-deps --format-version 1 \
  | "$vpy" -c 'import json, sys; print(json.load(sys.stdin)["target_directory"])')
bin="$target_dir/debug/examples/bench_pdfium"

pin=()
if command -v taskset >/dev/null 2>&1; then
  pin=(taskset -c "${BENCH_CPU:-0}")
else
  echo "bench: taskset not found; running unpinned" >&2
fi

echo "bench: load before: $(uptime | sed 's/.*load average/load average/')" >&2
# Per-repetition lines go to a log, shown if a side fails.
log=$(mktemp)
trap 'rm -f "$log"' EXIT
side() { "${pin[@]}" "$@" 2>>"$log" || { cat "$log" >&2; echo "bench: failed: $*" >&2; exit 1; }; }
all=""
for r in $(seq "$rounds"); do
  echo "bench: round $r/$rounds" >&2
  all+=$(side "$bin" --reps "$reps" "${inputs[@]}")$'\n'
  all+=$(side "$vpy" "$repo/bench/pymupdf_words.py" --reps "$reps" "${inputs[@]}")$'\n'
done
echo "bench: load after:  $(uptime | sed 's/.*load average/load average/')" >&2

printf '%s' "$all" | grep -v '^note:' | sed 's/^/  /' >&2
# Best round per tool (lowest cpu_s), in a fixed order.
best=$(printf '%s' "$all" | awk '
  $1 == "note:" { if (!note) note = $0; next }
  NF { for (i = 2; i <= NF; i++) { split($i, kv, "="); if (kv[1] == "cpu_s") c = kv[2] + 0 }
       if (!($1 in cpu) || c < cpu[$1]) { cpu[$1] = c; line[$1] = $0 } }
  END { print note; print line["pdfium"]; print line["pymupdf_words"]; print line["pymupdf_rawdict"] }')
echo
printf '%s\n' "$best"
echo

# --- table --------------------------------------------------------------------------------
printf '%s\n' "$best" | awk -v target="$TARGET_RATIO" -v reps="$reps" -v rounds="$rounds" \
  -v pinned="${pin[*]:-no}" '
  function field(name,   i, kv) {
    for (i = 2; i <= NF; i++) { split($i, kv, "="); if (kv[1] == name) return kv[2] }
    return ""
  }
  $1 ~ /^(pdfium|pymupdf_words|pymupdf_rawdict)$/ {
    tool[++n] = $1; pages[$1] = field("pages"); cpu[$1] = field("cpu_s"); rate[$1] = field("pages_per_cpu_s")
  }
  END {
    printf "best of %s reps x %s rounds, pinned: %s\n", reps, rounds, pinned
    printf "%-18s %7s %9s %13s\n", "tool", "pages", "CPU s", "pages/CPU-s"
    for (i = 1; i <= n; i++) printf "%-18s %7d %9.3f %13.1f\n", tool[i], pages[tool[i]], cpu[tool[i]], rate[tool[i]]
    if (pages["pdfium"] != pages["pymupdf_words"])
      printf "note: page counts differ (pdfium %d, PyMuPDF %d)\n", pages["pdfium"], pages["pymupdf_words"]
    print ""
    rw = rate["pdfium"] / rate["pymupdf_words"]; rr = rate["pdfium"] / rate["pymupdf_rawdict"]
    printf "ratio pdfium / pymupdf_words   = %.2fx  (target >= %.1fx: %s)\n", rw, target, (rw >= target ? "PASS" : "MISS")
    printf "ratio pdfium / pymupdf_rawdict = %.2fx\n", rr
  }'
