#!/usr/bin/env bash
# The overhead of sharding: the same documents as 2 shards run side by side with -j 1 each
# (`corpus ocr --shard K/2 --into`), against one process with -j 2; target <= 10 % slower.
#
#   bench/shard_overhead.sh                       # 1,000 one-page PDFs (bench/make_pdfs.py), pdfium
#   bench/shard_overhead.sh --n 400 --provider layout
#   bench/shard_overhead.sh --rounds 5 some/folder/of/pdfs
#
# In a temporary folder: ingests the PDFs once, then per round (alternating, default 3 rounds)
# copies the store twice and times (wall clock) (a) `ocr -j 2` on one copy and (b) two tasks
# `ocr -j 1 --shard 0/2` and `--shard 1/2` started together on the other, until both end;
# `corpus merge` of their two files is timed apart. Each side keeps its best round. Prints
# both, the ratio (b)/(a), the ratio with the merge included, and PASS/MISS against 1.10.
set -euo pipefail
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/corpus-ci/target}"
n=1000 provider=pdfium rounds=3 src=""
while [ $# -gt 0 ]; do
    case "$1" in
        --n) n=$2; shift 2 ;;
        --provider) provider=$2; shift 2 ;;
        --rounds) rounds=$2; shift 2 ;;
        *) src=$1; shift ;;
    esac
done
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo"
CORPUS_SETUP_QUIET=1 scripts/setup.sh
echo "bench: building corpus (dev profile) ..." >&2
cargo build --quiet --bin corpus
corpus="$CARGO_TARGET_DIR/debug/corpus"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/corpus-shard-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
if [ -z "$src" ]; then
    python3 "$repo/bench/make_pdfs.py" "$tmp/pdfs" "$n" >/dev/null
    src="$tmp/pdfs"
fi
"$corpus" --db "$tmp/base.db" ingest "$src" -q >/dev/null
docs=$("$corpus" --db "$tmp/base.db" sql "SELECT count(*) AS n FROM v_documents" --format csv | tail -1)
now() { date +%s%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", (b - a) / 1e9 }'; }
best_one="" best_two="" best_merge=""
min() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "" || b < a) print b; else print a }'; }
echo "bench: load before: $(uptime | sed 's/.*load average/load average/')" >&2
for r in $(seq "$rounds"); do
    rm -rf "$tmp/one.db"* "$tmp/two.db"* "$tmp/shards"
    cp "$tmp/base.db" "$tmp/one.db"
    cp "$tmp/base.db" "$tmp/two.db"
    t0=$(now)
    "$corpus" --db "$tmp/one.db" ocr --provider "$provider" -j 2 -q >/dev/null
    t1=$(now)
    one=$(secs "$t0" "$t1")
    t0=$(now)
    "$corpus" --db "$tmp/two.db" ocr --provider "$provider" -j 1 -q --shard 0/2 --into "$tmp/shards" >/dev/null &
    a=$!
    "$corpus" --db "$tmp/two.db" ocr --provider "$provider" -j 1 -q --shard 1/2 --into "$tmp/shards" >/dev/null &
    b=$!
    wait "$a"
    wait "$b"
    t1=$(now)
    two=$(secs "$t0" "$t1")
    "$corpus" --db "$tmp/two.db" merge "$tmp/shards" -q >/dev/null
    t2=$(now)
    merge=$(secs "$t1" "$t2")
    same=$("$corpus" --db "$tmp/two.db" sql "SELECT count(*) AS n FROM outputs" --format csv | tail -1)
    [ "$same" = "$docs" ] || { echo "bench: the shards stored $same outputs, not $docs" >&2; exit 1; }
    echo "bench: round $r: one process ${one} s, two shards ${two} s, merge ${merge} s" >&2
    best_one=$(min "$best_one" "$one")
    best_two=$(min "$best_two" "$two")
    best_merge=$(min "$best_merge" "$merge")
done
echo "bench: load after:  $(uptime | sed 's/.*load average/load average/')" >&2
ratio=$(awk -v a="$best_one" -v b="$best_two" 'BEGIN { printf "%.3f", b / a }')
ratio_m=$(awk -v a="$best_one" -v b="$best_two" -v m="$best_merge" 'BEGIN { printf "%.3f", (b + m) / a }')
echo
printf 'documents                      %s (%s)\n' "$docs" "$provider"
printf 'one process, -j 2              %s s\n' "$best_one"
printf 'two shards, -j 1 each          %s s\n' "$best_two"
printf 'merge of the two shard files   %s s\n' "$best_merge"
printf 'shards / one process           %s   (with the merge: %s)\n' "$ratio" "$ratio_m"
printf 'target <= 1.10                 %s\n' "$(awk -v r="$ratio" 'BEGIN { print (r <= 1.10 ? "PASS" : "MISS") }')"
