#!/usr/bin/env bash
# Screenshots of the HTML report in Debian's headless chromium: the index and one document
# page (top and full length) of the sample corpus scored by `pdfium` and `truth`, written as
# PNG files into OUT_DIR. Needs /usr/bin/chromium and scripts/browser's playwright-core
# (scripts/test.sh installs both).
# Usage: bench/html_screenshots.sh OUT_DIR [SITE_DIR]
#   With SITE_DIR, screenshots that site instead of building one from the sample corpus.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:?usage: bench/html_screenshots.sh OUT_DIR [SITE_DIR]}
mkdir -p "$out"
out=$(realpath "$out")
site=${2:-}
if [ -z "$site" ]; then
    export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/corpus-ci/target}"
    work=$(mktemp -d)
    trap 'rm -rf "$work"' EXIT
    . bench/exe.sh
    bin=$(exe "$work" --bin corpus) || exit 1
    export CORPUS_DB="$work/c.db"
    "$bin" -q ingest tests/fixtures/papers --dataset sample --truth peerread
    for p in pdfium truth; do
        "$bin" -q ocr --provider "$p"
        "$bin" -q eval --suite paper --provider "$p" >/dev/null
    done
    site="$work/site"
    "$bin" -q report --suite paper --format html -o "$site"
fi
[ -f scripts/browser/node_modules/playwright-core/package.json ] \
    || PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci --prefix scripts/browser --no-audit --no-fund --silent
node scripts/browser/site.mjs shots "$site" "$out"
