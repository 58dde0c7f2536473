#!/usr/bin/env bash
# Cross-check the Rust HTML table extraction (html5ever via scraper) against BeautifulSoup's
# html.parser as olmOCR's parse_html_tables uses it, on N random documents (default 3000).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/corpus-ci/target}"
# The shared dev profile (dependencies optimised), as the tests build it.
build_example() { (cd "$here/.." && cargo build --quiet --example html_specs); echo "$CARGO_TARGET_DIR/debug/examples/html_specs"; }
n="${1:-3000}"
venv="${CORPUS_BENCH_VENV:-$HOME/.cache/corpus/bench-venv-olmocr}"
if [ ! -x "$venv/bin/python" ]; then python3 -m venv "$venv"; fi
"$venv/bin/pip" install -q beautifulsoup4==4.15.0
tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT
"$venv/bin/python" "$here/html_tables_reference.py" gen "$n" >"$tmp/cases.jsonl"
if [ -n "${RUST_HTML_SPECS:-}" ]; then
  $RUST_HTML_SPECS <"$tmp/cases.jsonl" >"$tmp/rust.jsonl"
else
  "$(build_example)" <"$tmp/cases.jsonl" >"$tmp/rust.jsonl"
fi
"$venv/bin/python" "$here/html_tables_reference.py" compare "$tmp/cases.jsonl" "$tmp/rust.jsonl"
