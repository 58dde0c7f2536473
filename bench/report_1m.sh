#!/usr/bin/env bash
# `corpus report --suite paper` over 1,000,000 metric rows (10,000 documents x 2 provider
# versions x 50 metrics; target < 1 s), beside the same aggregation as plain SQL through
# `corpus sql`, in the same run. Needs hyperfine (Debian) for the timings; falls back to `time`.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/corpus-ci/target}"
cargo build --quiet
corpus="$CARGO_TARGET_DIR/debug/corpus"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
db="$work/bench.db"
mkdir "$work/empty" && "$corpus" --db "$db" ingest -q "$work/empty" >/dev/null  # creates the store
python3 bench/make_report_store.py "$db" "${DOCS:-10000}" "${METRICS:-50}"
"$corpus" --db "$db" sql "SELECT count(*) AS metric_rows FROM metrics"
sql="SELECT provider, provider_version, metric, avg(value) AS mean, count(value) AS n FROM v_latest_scores WHERE suite = 'paper' GROUP BY 1, 2, 3"
if command -v hyperfine >/dev/null; then
    hyperfine --warmup 1 --runs "${RUNS:-5}" \
        -n "corpus report --suite paper (20,000 rows + AVG)" \
        "$corpus --db $db report --suite paper --output $work/report.txt" \
        -n "corpus report --suite paper --by provider" \
        "$corpus --db $db report --suite paper --by provider --output $work/by.txt" \
        -n "corpus sql (same means, plain SQL)" \
        "$corpus --db $db sql \"$sql\" --timeout 300 --output $work/sql.txt"
else
    time "$corpus" --db "$db" report --suite paper --output "$work/report.txt"
    time "$corpus" --db "$db" sql "$sql" --timeout 300 --output "$work/sql.txt"
fi
head -3 "$work/report.txt" | cut -c1-120
