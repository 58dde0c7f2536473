#!/usr/bin/env bash
# Cross-checks the Rust TEDS / TEDS-S (src/metrics/teds/) against a
# harness of PubTabNet's metric.py on lxml + apted + python-Levenshtein (what OmniDocBench runs),
# over the pairs of bench/gen_table_pairs.py, then compares speed on the 30x10 and 60x20 pairs.
#
# Env: CORPUS_BENCH_VENV (venv, default ~/.cache/corpus/bench-venv-teds), TEDS_BENCH_OUT (output
# folder, default target/teds-bench), TEDS_REFERENCE_LEV=distance (PubTabNet's original pure-Python
# Levenshtein: same scores, ~8x slower), TEDS_SOUP=N (number of malformed tag-soup pairs, default
# 100), TEDS_SKIP_SPEED=1.
# Exit status: non-zero when a pair differs by more than 1e-9.
set -euo pipefail
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/corpus-ci/target}"
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
venv=${CORPUS_BENCH_VENV:-$HOME/.cache/corpus/bench-venv-teds}
out=${TEDS_BENCH_OUT:-$root/target/teds-bench}
lev=${TEDS_REFERENCE_LEV:-levenshtein}
mkdir -p "$out"

if [ ! -x "$venv/bin/python" ]; then
    python3 -m venv "$venv"
fi
"$venv/bin/pip" install --quiet apted==1.0.3 lxml==6.1.3 Levenshtein==0.27.3 Distance==0.1.3
py="$venv/bin/python"
"$py" -c 'import lxml.etree as e; print("reference: lxml %s, libxml2 %s" % (e.__version__, ".".join(map(str, e.LIBXML_VERSION))))'

"$py" "$here/gen_table_pairs.py" --out "$out/pairs.jsonl" --soup "${TEDS_SOUP:-100}"
echo "pairs: $(wc -l < "$out/pairs.jsonl") in $out/pairs.jsonl"

echo "== reference ($lev), CPU seconds per pair in $out/ref.jsonl"
nice -n 10 "$py" "$here/teds_reference.py" score "$out/pairs.jsonl" --lev "$lev" > "$out/ref.jsonl"

echo "== rust"
(cd "$root" && cargo build --quiet --example teds_pairs --example bench_teds)
bin=$CARGO_TARGET_DIR/debug/examples
"$bin/teds_pairs" "$out/pairs.jsonl" > "$out/rust.jsonl"

echo "== comparison"
status=0
"$py" "$here/teds_reference.py" compare "$out/ref.jsonl" "$out/rust.jsonl" || status=$?

if [ "${TEDS_SKIP_SPEED:-0}" != 1 ]; then
    echo "== speed (one core; rust: mean thread CPU and best wall time of repeated runs of teds())"
    nice -n 10 "$bin/bench_teds" "$out/pairs.jsonl" big30x10 big60x20 | tee "$out/bench.txt"
    "$py" "$here/teds_reference.py" speed "$out/ref.jsonl" "$out/bench.txt"
fi
exit $status
