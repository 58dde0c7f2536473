#!/usr/bin/env bash
# The test command: install what the tests need at run time (libpdfium), then run every test.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
cargo test --all-targets "$@"
