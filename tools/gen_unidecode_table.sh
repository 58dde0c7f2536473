#!/usr/bin/env bash
# Regenerates src/metrics/parsebench/unidecode_table.rs from unidecode 1.4.0 (the version
# ParseBench's lock file pins; installed from PyPI into a virtual environment in the per-user
# cache), or with --check says whether the committed file is exactly what the generator writes
# (exit 1 if not). CI runs --check.
set -euo pipefail
cd "$(dirname "$0")/.."
venv="${CORPUS_CACHE:-$HOME/.cache/corpus}/unidecode-venv"
if ! "$venv/bin/python" -c "import importlib.metadata as m; assert m.version('unidecode') == '1.4.0'" 2>/dev/null; then
    echo "gen_unidecode_table: installing unidecode 1.4.0 into $venv" >&2
    python3 -m venv "$venv"
    "$venv/bin/pip" install -q --disable-pip-version-check unidecode==1.4.0
fi
file=src/metrics/parsebench/unidecode_table.rs
if [ "${1:-}" = --check ]; then
    exec "$venv/bin/python" tools/gen_unidecode_table.py --check "$file"
fi
"$venv/bin/python" tools/gen_unidecode_table.py "$file"
echo "gen_unidecode_table: wrote $file" >&2
