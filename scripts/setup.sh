#!/usr/bin/env bash
# Installs the native libraries that `corpus` loads at run time, from package registries only,
# into a per-user cache, and verifies each file by hash. Idempotent: a verified file is kept.
#
#   libpdfium  <- PyPI wheel pypdfium2==5.15.2 (pypdfium2_raw/libpdfium.so)
#
# Where: ${CORPUS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/corpus}/native/
# corpus finds the files there by itself; CORPUS_PDFIUM=/path/to/libpdfium.so overrides.
set -euo pipefail

cache="${CORPUS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/corpus}"
native="$cache/native"
mkdir -p "$native"
py="${PYTHON:-python3}"

say() { [ -n "${CORPUS_SETUP_QUIET:-}" ] || printf 'setup: %s\n' "$*" >&2; }

# fetch_wheel NAME VERSION FILE_IN_WHEEL SHA256 DEST
fetch_wheel() {
  local name=$1 version=$2 inner=$3 sha=$4 dest=$5
  if [ -f "$dest" ] && echo "$sha  $dest" | sha256sum -c --status; then
    say "$(basename "$dest") ($name $version) present and verified."
    return 0
  fi
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
  if ! echo "$sha  $tmp/x/$inner" | sha256sum -c --status; then
    echo "setup: $inner from $name==$version does not have the expected sha256 $sha" >&2
    return 1
  fi
  mkdir -p "$(dirname "$dest")"
  cp "$tmp/x/$inner" "$dest.part"
  mv -f "$dest.part" "$dest"
  say "installed $dest"
}

fetch_wheel pypdfium2 5.15.2 pypdfium2_raw/libpdfium.so \
  c76dc0f7839644bfa7c3e3107a6068df714e339c861bb7d4519907b821d427f9 \
  "$native/pdfium-5.15.2/libpdfium.so"
