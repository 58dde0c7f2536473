#!/usr/bin/env bash
# `corpus agree` on N synthetic providers × D documents × P pages (default 10 × 100 × 10:
# 10 providers × 1,000 pages, 45 provider pairs, 45,000 page comparisons); target ≤ 60 s on
# the 2-core machine (issue 47).
#
#   bench/agree.sh                                   # 10 providers, 100 documents of 10 pages
#   bench/agree.sh --providers 4 --documents 20      # smaller
#
# Builds examples/bench_agree.rs and the binary (the shared dev profile), writes the store with
# the example (seeded: --seed S, default 1; every output through Store::put_output), then
# times `corpus agree` on it twice: the text output (the matrices and the top 20 pages) and
# `--format json` (everything). Prints the wall and CPU seconds of each, the wall computed for
# idle cores (CPU seconds / cores: other work on the machine stretches the measured wall), and
# the text output. OUT=DIR keeps both outputs there, to diff them across builds (a change that
# only makes agree faster leaves them byte-identical).
set -euo pipefail
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/corpus-ci/target}"
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo"
echo "bench: building examples/bench_agree and corpus (dev profile) ..." >&2
cargo build --quiet --example bench_agree --bin corpus
bin="$CARGO_TARGET_DIR/debug/corpus"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/corpus-agree-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
"$CARGO_TARGET_DIR/debug/examples/bench_agree" "$tmp/agree.db" "$@"
echo "bench: load before: $(uptime | sed 's/.*load average/load average/')" >&2
for fmt in table json; do
    /usr/bin/time -f "%e %U %S" -o "$tmp/time" "$bin" --db "$tmp/agree.db" -q agree --format "$fmt" >"$tmp/out.$fmt"
    read -r wall user sys <"$tmp/time"
    cpu=$(echo "$user + $sys" | bc)
    # What the wall would be on idle cores (computed, not measured): the CPU time spread over
    # every core, since the comparisons run on one thread per core.
    idle=$(echo "scale=1; $cpu / $(nproc)" | bc)
    echo "agree --format $fmt: wall_s=$wall cpu_s=$cpu ($(nproc) cores; computed wall on idle cores: cpu/$(nproc) = ${idle} s; output $(stat -c %s "$tmp/out.$fmt") bytes)"
done
if [ -n "${OUT:-}" ]; then
    mkdir -p "$OUT" && cp "$tmp/out.table" "$tmp/out.json" "$OUT/"
    echo "bench: outputs kept in $OUT (out.table, out.json; diff them across builds)" >&2
fi
echo "bench: load after:  $(uptime | sed 's/.*load average/load average/')" >&2
echo
cat "$tmp/out.table"
