#!/usr/bin/env bash
# The test command: install what the tests need at run time (libpdfium; pdftotext from
# Debian's poppler-utils for the command-provider test), then run every test.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
if ! command -v pdftotext >/dev/null 2>&1; then
    if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
        echo "test: installing poppler-utils (pdftotext) for the command-provider test" >&2
        apt-get install -y -q poppler-utils >/dev/null 2>&1 \
            || { apt-get update -q >/dev/null 2>&1 && apt-get install -y -q poppler-utils >/dev/null 2>&1; } \
            || echo "test: could not install poppler-utils; that test will skip" >&2
    else
        echo "test: pdftotext is absent and cannot be installed here; that test will skip" >&2
    fi
fi
cargo test --all-targets "$@"
