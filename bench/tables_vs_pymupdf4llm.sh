#!/usr/bin/env bash
# Tables of the `pdfium` and `layout` providers beside pymupdf4llm's, in one run on the same
# PDFs: pdf-parse-bench's table documents and ICDAR 2013's `eu` set, scored by the table suite
# (TEDS, GriTS-Con F, value accuracy, detection recall), overall and by complexity class, with
# each provider's pages per CPU-second.
#
#   bench/tables_vs_pymupdf4llm.sh [--jobs N] [--keep DIR]
#
# Installs pymupdf4llm (pinned) into ${CORPUS_CACHE:-$HOME/.cache/corpus}/bench-pymupdf4llm-venv
# on first use and runs it untouched (`pymupdf4llm.to_markdown`, default settings) through
# `corpus ocr --provider command --output-format markdown`; runs scripts/setup.sh for
# libpdfium and the layout models; builds `corpus` in the shared dev profile (CARGO_TARGET_DIR
# is honoured). The store is a throw-away one (--keep DIR keeps it as DIR/bench.db, with each
# eval's JSON). CPU seconds are user + sys of each `corpus ocr` and everything it waits for
# (workers, the external tool), from /usr/bin/time. Env: PYTHON (python for the venv,
# default python3), DATA (default ../shared/data relative to the repository).
set -euo pipefail
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/corpus-ci/target}"

PYMUPDF4LLM_VERSION=1.28.2

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo"

jobs=2
keep=""
while [ $# -gt 0 ]; do
  case $1 in
    --jobs) jobs=$2; shift 2 ;;
    --keep) keep=$2; shift 2 ;;
    -h|--help) sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "bench: unknown argument $1" >&2; exit 2 ;;
  esac
done

data="${DATA:-../shared/data}"
tables="$data/pdf-parse-bench/tables"
eu="$data/icdar2013/eu"
have=()
[ -d "$tables/pdfs" ] && have+=(tables) || echo "bench: skipping $tables (not present)" >&2
[ -d "$eu" ] && have+=(eu) || echo "bench: skipping $eu (not present)" >&2
if [ ${#have[@]} -eq 0 ]; then
  echo "bench: SKIP: neither $tables nor $eu is present" >&2
  exit 0
fi
[ -x /usr/bin/time ] || { echo "bench: /usr/bin/time is needed for CPU seconds" >&2; exit 2; }

# --- pymupdf4llm in its own venv ---------------------------------------------------------
cache="${CORPUS_CACHE:-$HOME/.cache/corpus}"
venv="$cache/bench-pymupdf4llm-venv"
vpy="$venv/bin/python"
if ! "$vpy" -c "import pymupdf4llm, sys; sys.exit(pymupdf4llm.__version__ != '$PYMUPDF4LLM_VERSION')" 2>/dev/null; then
  echo "bench: installing pymupdf4llm==$PYMUPDF4LLM_VERSION into $venv ..." >&2
  "${PYTHON:-python3}" -m venv "$venv"
  "$vpy" -m pip install --quiet --disable-pip-version-check "pymupdf4llm==$PYMUPDF4LLM_VERSION" >&2
fi

# --- corpus --------------------------------------------------------------------------------
CORPUS_SETUP_QUIET=1 scripts/setup.sh
echo "bench: building corpus (dev profile) ..." >&2
cargo build --quiet --bin corpus
target_dir=$(cargo metadata --no-deps --format-version 1 \
  | "$vpy" -c 'import json, sys; print(json.load(sys.stdin)["target_directory"])')
corpus="$target_dir/debug/corpus"

if [ -n "$keep" ]; then
  mkdir -p "$keep"
  work=$(cd "$keep" && pwd)
  rm -f "$work/bench.db"
else
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
fi
export CORPUS_DB="$work/bench.db"
pdfs=()
for d in "${have[@]}"; do
  case $d in
    tables)
      "$corpus" -q ingest "$tables" --truth latex-tables --dataset pptables >/dev/null
      pdfs+=("$tables"/pdfs/*.pdf) ;;
    eu)
      "$corpus" -q ingest "$eu" --truth icdar2013 --dataset icdar-eu >/dev/null
      pdfs+=("$eu"/*.pdf) ;;
  esac
done
pages=$("$vpy" -c 'import sys, pymupdf; print(sum(pymupdf.open(p).page_count for p in sys.argv[1:]))' "${pdfs[@]}")
echo "bench: ${#pdfs[@]} PDFs, $pages pages; load before: $(uptime | sed 's/.*load average/load average/')" >&2

# Runs `corpus ocr "$@"` and prints its CPU seconds (user + sys, children included).
ocr() {
  local t
  t=$(mktemp)
  /usr/bin/time -f '%U %S' -o "$t" "$corpus" -q ocr -j "$jobs" "$@" >/dev/null \
    || { echo "bench: failed: corpus ocr $*" >&2; rm -f "$t"; exit 1; }
  awk 'END { print $1 + $2 }' "$t"
  rm -f "$t"
}

args=()
for p in pdfium layout pymupdf4llm; do
  echo "bench: corpus ocr --provider $p ..." >&2
  case $p in
    pymupdf4llm)
      # Its own name: `pymupdf4llm` is the built-in preset (another release, with a layout model).
      cpu=$(ocr --provider command --name pymupdf4llm-1.28 --version "$PYMUPDF4LLM_VERSION" \
        --argv "$vpy $repo/bench/pymupdf4llm_md.py {pdf} {outdir}/out.md" --output-format markdown)
      id=pymupdf4llm-1.28 ;;
    *)
      cpu=$(ocr --provider "$p")
      id=$p ;;
  esac
  # `eval` exits 3 when some documents could not be scored; the summary says which.
  "$corpus" -q eval --suite table --provider "$id" --format json >"$work/eval-$id.json" || [ $? -eq 3 ]
  echo "bench: $id: $cpu CPU s" >&2
  args+=("$id=$work/eval-$id.json:$cpu")
done
echo "bench: load after:  $(uptime | sed 's/.*load average/load average/')" >&2
echo
"$vpy" "$repo/bench/tables_report.py" "$pages" "${args[@]}"
