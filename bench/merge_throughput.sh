#!/usr/bin/env bash
# `corpus merge` throughput: F shard files of O outputs (about S bytes each, the size of a
# pdfium output) into a store that already holds B outputs; target >= 5,000 outputs/s on one
# core. No peer has a merge to compare with (docs/scale-out.md).
#
#   bench/merge_throughput.sh                    # 100 files x 1,000 outputs x 21 kB into 100,000
#   bench/merge_throughput.sh --files 10 --base 10000 --outputs 500
#   REPEAT=3 bench/merge_throughput.sh           # build once, merge 3 times from the same files
#
# Builds examples/bench_merge.rs (the shared dev profile) and runs it in a temporary folder
# (about 3 x F x O x S bytes of disk: the store before, the shard files, the store after), pinned
# to one core with taskset (BENCH_CPU, default 1) when taskset exists. Prints the store and
# shard sizes, the merge's wall time, outputs/s and MB/s, its CPU time, the slowest file, and
# the idempotent second merge.
set -euo pipefail
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/corpus-ci/target}"
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo"
echo "bench: building examples/bench_merge (dev profile) ..." >&2
cargo build --quiet --example bench_merge
bin="$CARGO_TARGET_DIR/debug/examples/bench_merge"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/corpus-merge-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
pin=()
if command -v taskset >/dev/null 2>&1; then pin=(taskset -c "${BENCH_CPU:-1}"); fi
echo "bench: load before: $(uptime | sed 's/.*load average/load average/')" >&2
repeat=${REPEAT:-1}
if [ "$repeat" -le 1 ]; then
    "${pin[@]}" "$bin" "$tmp/run" "$@"
else
    "${pin[@]}" "$bin" "$tmp/run" --keep "$@"
    for _ in $(seq 2 "$repeat"); do "${pin[@]}" "$bin" "$tmp/run" --reuse "$@"; done
fi
echo "bench: load after:  $(uptime | sed 's/.*load average/load average/')" >&2
