#!/usr/bin/env bash
# Installs Label Studio (PyPI `label-studio`, pinned) into its own virtual environment under the
# user cache, only if it is missing, and prints the environment's `label-studio` program. The
# Label Studio round-trip test (tests/it/label_studio.rs) starts it on 127.0.0.1 itself and
# finds it through CORPUS_LABEL_STUDIO (scripts/test.sh exports it); docs/label-studio.md.
set -euo pipefail
version=1.23.2
venv="${CORPUS_LABEL_STUDIO_VENV:-${CORPUS_CACHE:-$HOME/.cache/corpus}/label-studio-$version}"
if [ ! -x "$venv/bin/label-studio" ] \
    || ! "$venv/bin/python" -c "import label_studio, sys; sys.exit(label_studio.__version__ != '$version')" 2>/dev/null; then
    echo "label-studio: installing label-studio==$version into $venv" >&2
    python3 -m venv "$venv"
    "$venv/bin/pip" install -q --disable-pip-version-check "label-studio==$version" >&2
fi
echo "$venv/bin/label-studio"
