#!/usr/bin/env bash
# Builds the `corpus-eval` wheel into dist/: the `corpus` binary of the dev profile (the one
# the tests build, so nothing is compiled twice), stripped, with its assets and the licences
# of what it links. Uses maturin (pinned, in its own virtual environment under the cache).
#   scripts/wheel.sh            # dist/corpus_eval-<version>-py3-none-linux_x86_64.whl
# The wheel is tagged for this machine's platform (`--compatibility linux`), not manylinux:
# it is for installing here and on machines like it.
set -euo pipefail
cd "$(dirname "$0")/.."
MATURIN_VERSION=1.16.0
cache="${CORPUS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/corpus}"
venv="$cache/wheel-venv"
if ! "$venv/bin/maturin" --version 2>/dev/null | grep -qx "maturin $MATURIN_VERSION"; then
    echo "wheel: installing maturin==$MATURIN_VERSION into $venv" >&2
    "${PYTHON:-python3}" -m venv "$venv"
    "$venv/bin/pip" install --quiet --disable-pip-version-check "maturin==$MATURIN_VERSION" >&2
fi

# The wheel's data: installed under the environment's prefix (share/corpus/).
stage=.wheel/corpus_eval.data/data/share/corpus
rm -rf .wheel
mkdir -p "$stage/katex" "$stage/browser"
cp scripts/katex/render.js scripts/katex/package.json scripts/katex/package-lock.json "$stage/katex/"
cp scripts/browser/katex.mjs scripts/browser/site.mjs scripts/browser/package.json \
    scripts/browser/package-lock.json "$stage/browser/"
cargo metadata --format-version 1 --filter-platform x86_64-unknown-linux-gnu \
    | "${PYTHON:-python3}" tools/third_party_licences.py >"$stage/THIRD-PARTY-LICENCES.txt"

"$venv/bin/maturin" build --quiet --profile dev --strip --compatibility linux \
    --auditwheel skip --out dist >&2
ls -1t dist/corpus_eval-*.whl | head -1
