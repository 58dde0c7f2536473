#!/usr/bin/env bash
# The main job on the built-in sample corpus, from a fresh machine: install the native
# libraries, build, ingest the three sample papers with their PeerRead ground truth, run the
# pdfium provider (twice: the second run is all cache hits), score it with the paper suite,
# report the latest scores per provider, and print the store's status.
# The store is ./corpus.db unless CORPUS_DB or --db says otherwise.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
cargo build --quiet
corpus=("${CARGO_TARGET_DIR:-target}/debug/corpus")
"${corpus[@]}" ingest tests/fixtures/papers --dataset sample --truth peerread
"${corpus[@]}" ocr --provider pdfium
"${corpus[@]}" ocr --provider pdfium
"${corpus[@]}" eval --suite paper --provider pdfium
"${corpus[@]}" report --suite paper --by provider
"${corpus[@]}" status
