#!/usr/bin/env bash
# Re-running `corpus ocr` on 1,000 cached documents: target < 1 s.
#
#   bench/cache_rerun.sh [N=1000]
#
# Builds the corpus binary (the shared dev profile: dependencies at opt-level 2; CARGO_TARGET_DIR is honoured), writes N distinct
# one-page PDFs into a temporary folder (bench/make_pdfs.py, no PDF library), then times:
#   ingest     corpus --db X ingest DIR -q                       (once)
#   first ocr  corpus --db X ocr --provider pdfium -q            (once, parses every document)
#   re-run     corpus --db X ocr --provider pdfium -q            (all cache hits; the figure)
# The re-run is timed with hyperfine when it is installed (warm-up 1, 10 runs), else with a
# bash loop of 10 runs (also with HYPERFINE=0). Env: PYTHON (default python3), RUNS (default
# 10), KEEP=1 keeps the temporary folder.
set -euo pipefail
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/corpus-ci/target}"

n=${1:-1000}
runs=${RUNS:-10}
py=${PYTHON:-python3}
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo"

CORPUS_SETUP_QUIET=1 scripts/setup.sh
echo "bench: building corpus (dev profile) ..." >&2
cargo build --quiet --bin corpus
target_dir=$(cargo metadata --no-deps --format-version 1 \
  | "$py" -c 'import json, sys; print(json.load(sys.stdin)["target_directory"])')
corpus="$target_dir/debug/corpus"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/corpus-cache-bench.XXXXXX")
if [ -z "${KEEP:-}" ]; then trap 'rm -rf "$tmp"' EXIT; else echo "bench: keeping $tmp" >&2; fi
db="$tmp/corpus.db"
"$py" "$repo/bench/make_pdfs.py" "$tmp/pdfs" "$n"

now() { date +%s%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", (b - a) / 1e9 }'; }

echo "bench: load before: $(uptime | sed 's/.*load average/load average/')" >&2
t0=$(now); "$corpus" --db "$db" ingest "$tmp/pdfs" -q; t1=$(now)
ingest_s=$(secs "$t0" "$t1")
t0=$(now); "$corpus" --db "$db" ocr --provider pdfium -q; t1=$(now)
first_s=$(secs "$t0" "$t1")

echo "bench: one re-run, for the record:" >&2
"$corpus" --db "$db" ocr --provider pdfium >&2

if [ "${HYPERFINE:-1}" != 0 ] && command -v hyperfine >/dev/null 2>&1; then
  json="$tmp/hyperfine.json"
  hyperfine --style basic --warmup 1 --runs "$runs" --export-json "$json" \
    "'$corpus' --db '$db' ocr --provider pdfium -q" >&2
  read -r mean sd min max < <("$py" -c '
import json, sys
r = json.load(open(sys.argv[1]))["results"][0]
print(" ".join("%.3f" % (r[k] or 0) for k in ("mean", "stddev", "min", "max")))' "$json")
  how="hyperfine, $runs runs after 1 warm-up"
else
  all=()
  for _ in $(seq "$runs"); do
    t0=$(now); "$corpus" --db "$db" ocr --provider pdfium -q; t1=$(now)
    all+=("$(secs "$t0" "$t1")")
  done
  read -r mean sd min max < <(printf '%s\n' "${all[@]}" | awk '
    { s += $1; q += $1 * $1; if (NR == 1 || $1 < lo) lo = $1; if ($1 > hi) hi = $1 }
    END { m = s / NR; v = q / NR - m * m; printf "%.3f %.3f %.3f %.3f\n", m, (v > 0 ? sqrt(v) : 0), lo, hi }')
  how="bash loop, $runs runs"
fi
echo "bench: load after:  $(uptime | sed 's/.*load average/load average/')" >&2

echo
printf 'documents             %d (one page each)\n' "$n"
printf 'ingest                %s s\n' "$ingest_s"
printf 'first ocr (parses)    %s s\n' "$first_s"
printf 're-run ocr (cached)   mean %s s  sd %s  min %s  max %s  (%s)\n' "$mean" "$sd" "$min" "$max" "$how"
verdict=$(awk -v m="$mean" 'BEGIN { print (m < 1.0 ? "PASS" : "MISS") }')
printf 'target re-run < 1 s   %s\n' "$verdict"
