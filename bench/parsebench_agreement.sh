#!/usr/bin/env bash
# ParseBench's own evaluator against corpus's parsebench suite, rule by rule, on the project's
# ParseBench test cases (tests/fixtures/parsebench: rules written for this project, the truth
# Markdown and two parsers' Markdown; PDFs made by examples/parsebench_cases.rs), the layout
# cases on the blocks of corpus's pdfium provider and of the truth, and the form cases on
# pdfium's pages (its Doc, which has pages, so a rule with a page reads that page alone).
#
# Needs a ParseBench checkout at the pinned commit (PARSEBENCH_DIR, default
# ../shared/reference/parsebench) and Python 3.12 (PARSEBENCH_PYTHON). The evaluator's
# dependencies are installed into a virtual environment (PARSEBENCH_VENV) at the versions the
# checkout's uv.lock pins, from the package index, without resolving further dependencies.
# Prints the per-rule and per-case agreement and every difference; exits 1 on any.
set -euo pipefail
cd "$(dirname "$0")/.."
PIN=facdaf0257cf06225fc72bf54dfdf497be4a9df3
PB=${PARSEBENCH_DIR:-../shared/reference/parsebench}
VENV=${PARSEBENCH_VENV:-$HOME/.cache/corpus-bench/parsebench-venv}
PY=${PARSEBENCH_PYTHON:-python3.12}
if [ ! -f "$PB/uv.lock" ] || [ ! -d "$PB/src/parse_bench" ]; then
  echo "parsebench_agreement: set PARSEBENCH_DIR to a ParseBench checkout at $PIN" >&2
  exit 2
fi
if [ -f "$PB/COMMIT" ] && [ "$(tr -d '[:space:]' < "$PB/COMMIT")" != "$PIN" ]; then
  echo "parsebench_agreement: $PB is at $(cat "$PB/COMMIT"), not $PIN" >&2
  exit 2
fi
if [ -d "$PB/.git" ] && [ "$(git -C "$PB" rev-parse HEAD)" != "$PIN" ]; then
  echo "parsebench_agreement: $PB is not at $PIN" >&2
  exit 2
fi

# The packages ParseBench's parse evaluator imports, at the lock file's versions (the second
# group: what its layout evaluator and runner import).
PKGS="annotated-types apted attrs beautifulsoup4 fuzzysearch levenshtein lxml numpy pandas
pydantic pydantic-core python-dateutil rapidfuzz scipy six soupsieve typing-extensions
typing-inspection tzdata unidecode
rich scikit-learn joblib threadpoolctl autoevals jsonschema referencing rpds-py
jsonschema-specifications polyleven chevron pyyaml anls-star munkres"
if [ ! -x "$VENV/bin/python" ]; then
  "$PY" -m venv "$VENV"
fi
pins=$("$VENV/bin/python" - "$PB/uv.lock" $PKGS <<'PYEOF'
import sys, tomllib
lock = tomllib.load(open(sys.argv[1], "rb"))
versions = {p["name"]: p["version"] for p in lock["package"]}
missing = [n for n in sys.argv[2:] if n not in versions]
if missing:
    sys.exit(f"not in the lock file: {missing}")
print(" ".join(f"{n}=={versions[n]}" for n in sys.argv[2:]))
PYEOF
)
# shellcheck disable=SC2086
"$VENV/bin/pip" install --quiet --disable-pip-version-check --no-deps $pins

export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-target}"
cargo build --quiet --bin corpus --example parsebench_cases
corpus="$CARGO_TARGET_DIR/debug/corpus"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export CORPUS_DB="$work/c.db"
"$CARGO_TARGET_DIR/debug/examples/parsebench_cases" "$work/cases" >/dev/null
"$corpus" -q ingest "$work/cases" --truth parsebench --dataset pb >/dev/null
outputs=tests/fixtures/parsebench/outputs
for p in good bad; do
  "$corpus" -q import "$outputs/$p" --provider "pb-$p" --format markdown >/dev/null
done
"$corpus" -q ocr --provider truth >/dev/null
"$corpus" -q ocr --provider pdfium >/dev/null
for p in truth good bad pdfium; do
  provider=$p
  [ "$p" = truth ] || [ "$p" = pdfium ] || provider="pb-$p"
  "$corpus" -q eval --suite parsebench --provider "$provider" --format json >"$work/corpus-$p.json"
done
# The rule types corpus runs: those it gave a result for.
types=$(python3 - "$work/corpus-truth.json" <<'PYEOF'
import json, sys
s = json.load(open(sys.argv[1]))
print(",".join(sorted({r["type"] for d in s["documents_scored"] for c in d["cases"]
                        for r in c["rules"] if "passed" in r})))
PYEOF
)
# The Docs of the providers with boxes, for the layout cases: the truth (its layout elements
# as blocks) and pdfium.
for p in truth pdfium; do
  for d in $(python3 -c 'import json,sys; print("\n".join(sorted({json.loads(l)["pdf"][5:-4] for l in open(sys.argv[1])})))' tests/fixtures/parsebench/layout.jsonl); do
    mkdir -p "$work/docs/$p/$(dirname "$d")"
    "$corpus" -q export "$d" --provider "$p" --format json >"$work/docs/$p/$d.json"
  done
done
# pdfium's pages on the form cases (each page's Markdown), for the rules that keep to a page.
for d in $(python3 -c 'import json,sys; print("\n".join(sorted({json.loads(l)["pdf"][5:-4] for l in open(sys.argv[1])})))' tests/fixtures/parsebench/form.jsonl); do
  mkdir -p "$work/docs/pdfium/$(dirname "$d")"
  "$corpus" -q export "$d" --provider pdfium --format pages >"$work/docs/pdfium/$d.pages.json"
done
PYTHONPATH="$PB/src" "$VENV/bin/python" bench/parsebench_reference.py "$work/cases" "$outputs" \
  "$types" "$work/docs" truth good bad pdfium:layout+form >"$work/reference.json" 2>"$work/reference.log" ||
  { tail -30 "$work/reference.log" >&2; exit 1; }
echo "ParseBench $PIN vs corpus $(git rev-parse --short HEAD): $(cat tests/fixtures/parsebench/*.jsonl | wc -l) rules of tests/fixtures/parsebench, providers truth, good, bad (every case) and pdfium (layout and form cases)"
# PARSEBENCH_KEEP=DIR keeps the working folder (cases, Docs, both sides' results) there.
[ -z "${PARSEBENCH_KEEP:-}" ] || cp -r "$work" "$PARSEBENCH_KEEP"
python3 bench/parsebench_compare.py "$work/reference.json" truth="$work/corpus-truth.json" \
  good="$work/corpus-good.json" bad="$work/corpus-bad.json" pdfium="$work/corpus-pdfium.json"
