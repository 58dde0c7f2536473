#!/usr/bin/env bash
# Regenerates src/suites/omnidoc/normalize/latex_table.rs from pylatexenc 3.0a30 (installed
# from PyPI into a virtual environment in the per-user cache), or with --check says whether
# the committed file is exactly what the generator writes (exit 1 if not). CI runs --check.
set -euo pipefail
cd "$(dirname "$0")/.."
venv="${CORPUS_CACHE:-$HOME/.cache/corpus}/pylatexenc-venv"
if ! "$venv/bin/python" -c "import pylatexenc; assert pylatexenc.__version__ == '3.0alpha000030'" 2>/dev/null; then
    echo "gen_latex_table: installing pylatexenc 3.0a30 into $venv" >&2
    python3 -m venv "$venv"
    "$venv/bin/pip" install -q --disable-pip-version-check pylatexenc==3.0a30
fi
file=src/suites/omnidoc/normalize/latex_table.rs
if [ "${1:-}" = --check ]; then
    exec "$venv/bin/python" tools/gen_latex_table.py --check "$file"
fi
"$venv/bin/python" tools/gen_latex_table.py "$file"
echo "gen_latex_table: wrote $file" >&2
