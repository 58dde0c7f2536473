#!/usr/bin/env bash
# The wheel as a user installs it (issue 39; docs/guide/install.md), run by .ci/run:
#   1. scripts/wheel.sh builds dist/corpus_eval-*.whl from the dev-profile binary;
#   2. scripts/sample.sh runs the sample job from the checkout (the expected report);
#   3. in a fresh folder outside the checkout, with no Rust toolchain on PATH: a fresh virtual
#      environment, `pip install` of the wheel, `corpus setup` into a fresh cache, `corpus
#      doctor`, the sample job (ingest, ocr, eval, report) on a copy of the sample papers;
#   4. the two reports must be equal (`report --suite paper --by provider --format csv`, the
#      s/page columns dropped: they are times), and doctor with a PATH that hides Chromium
#      must name it and the command that installs it.
# Prints the time from `pip install` to the report.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "wheel test: FAILED: $*" >&2; exit 1; }

wheel=$(scripts/wheel.sh)
echo "wheel test: built $wheel ($(du -h "$wheel" | cut -f1))" >&2
[ -f "$wheel" ] || fail "no wheel"

# The expected report, from the checkout.
CORPUS_DB="$work/expected.db" scripts/sample.sh >"$work/sample.out" 2>"$work/sample.err" \
    || { cat "$work/sample.err" >&2; fail "scripts/sample.sh"; }
target=$(cargo metadata --no-deps --format-version 1 | python3 -c 'import json,sys; print(json.load(sys.stdin)["target_directory"])')
"$target/debug/corpus" --db "$work/expected.db" -q report --suite paper --by provider --format csv \
    >"$work/expected.csv"

# As a user: outside the checkout, no cargo or rustc on PATH.
mkdir -p "$work/user"
cp -r tests/fixtures/papers "$work/user/papers"
cd "$work/user"
python=$(command -v python3)
start=$(date +%s%N)
"$python" -m venv venv
venv/bin/pip install --quiet --disable-pip-version-check "$repo/$wheel"
export PATH="$work/user/venv/bin:/usr/local/bin:/usr/bin:/bin"
export CORPUS_CACHE="$work/user/cache" PYTHON="$work/user/venv/bin/python" CORPUS_DB="$work/user/corpus.db"
unset CARGO_TARGET_DIR
! command -v cargo >/dev/null && ! command -v rustc >/dev/null || fail "a Rust toolchain is on PATH"
[ "$(command -v corpus)" = "$work/user/venv/bin/corpus" ] || fail "corpus is not the wheel's: $(command -v corpus)"
corpus setup 2>"$work/setup.err" || { cat "$work/setup.err" >&2; fail "corpus setup"; }
corpus doctor >"$work/doctor.out" || { cat "$work/doctor.out" >&2; fail "corpus doctor (core)"; }
corpus -q ingest papers --dataset sample --truth peerread
corpus -q ocr --provider pdfium
corpus -q eval --suite paper --provider pdfium >/dev/null
corpus -q report --suite paper --by provider --format csv >"$work/installed.csv"
end=$(date +%s%N)

drop_times() {
    awk -F, -v OFS=, 'NR == 1 { for (i = 1; i <= NF; i++) drop[i] = ($i == "s/page" || $i == "cpu s/page") }
        { n = 0; line = ""; for (i = 1; i <= NF; i++) if (!drop[i]) { line = n++ ? line OFS $i : $i } print line }' "$1"
}
if ! diff <(drop_times "$work/expected.csv") <(drop_times "$work/installed.csv") >&2; then
    fail "the installed wheel's report differs from scripts/sample.sh's"
fi
[ "$(wc -l <"$work/installed.csv")" -ge 2 ] || fail "empty report"

# Chromium hidden: doctor names it and the fix, and --for math fails.
mkdir -p "$work/empty-path"
if env -u CORPUS_CHROMIUM PATH="$work/user/venv/bin:$work/empty-path" corpus doctor --for math >"$work/doctor-math.out"; then
    fail "doctor --for math passed with Chromium hidden"
fi
grep -q '^missing  Chromium .*fix: apt-get install chromium' "$work/doctor-math.out" \
    || { cat "$work/doctor-math.out" >&2; fail "doctor did not name Chromium and its fix"; }

awk -v ns="$((end - start))" 'BEGIN { printf "wheel test: ok: pip install of the wheel to the sample report in %.1f s (fresh venv and cache, corpus setup included); the report equals scripts/sample.sh'"'"'s\n", ns / 1e9 }'
