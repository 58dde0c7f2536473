#!/usr/bin/env bash
# Cross-check the Rust olmOCR-bench scorer against the reference one (PyPI olmocr 0.4.27,
# module olmocr.bench) on a bench folder, test by test, in four math configurations:
#   exact   math by exact string match only      (rust: ExactMathOnly;    reference: rendering stubbed)
#   browser KaTeX in Chromium, lxml installed    (rust: BrowserKatex, the suite's default;
#                                                 reference: Chromium + lxml) -- must agree fully
#   katex   KaTeX without a browser (node)       (rust: KatexRenderer Xml; reference: Chromium + lxml;
#                                                 differs where only the glyph layout decides)
#   raw     KaTeX in Chromium, no lxml           (rust: BrowserKatex RawHtml; reference: Chromium, lxml hidden)
#
# Usage: bench/olmocr_reference.sh [DIR]     (default: the shared olmOCR-bench sample data)
# Env:   CORPUS_BENCH_VENV   venv to create/use (default ~/.cache/corpus/bench-venv-olmocr)
#        OLMOCR_CHROMIUM     Chromium binary for KaTeX rendering, both sides (default: Debian's
#                            chromium-headless-shell or chromium if installed; else only "exact")
#        RUST_SCORER         command printing the Rust side's TEST/OVERALL lines for DIR, given
#                            DIR and optionally --browser, --browser-raw or --katex
#                            (default: cargo run --example olmocr_sample --)
set -euo pipefail
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/corpus-ci/target}"
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/.." && pwd)"
dir="${1:-$here/../../shared/data/olmocr-bench/sample_data}"
venv="${CORPUS_BENCH_VENV:-$HOME/.cache/corpus/bench-venv-olmocr}"
if [ ! -d "$dir/pdfs" ]; then echo "skipping: $dir has no pdfs/ folder"; exit 0; fi

if [ ! -x "$venv/bin/python" ]; then python3 -m venv "$venv"; fi
"$venv/bin/python" -m pip install -q --no-deps olmocr==0.4.27
# Only what olmocr.bench's scorer imports (olmocr itself declares rapidfuzz/fuzzysearch/lxml
# unpinned in its "bench" extra; these are the versions resolved when this script was written).
# lxml matters: without it BeautifulSoup cannot parse MathML and the comparison falls back to
# raw strings (the "raw" configuration below hides it again on purpose).
"$venv/bin/python" -m pip install -q rapidfuzz==3.14.6 fuzzysearch==0.8.1 beautifulsoup4==4.15.0 \
  lxml==6.1.3 numpy==2.4.6 pypdf==7.1.1 tqdm==4.70.1 playwright==1.65.2 pillow

if [ -z "${OLMOCR_CHROMIUM:-}" ]; then
  for c in /usr/bin/chromium-headless-shell /usr/bin/chromium; do
    if [ -x "$c" ]; then export OLMOCR_CHROMIUM="$c"; break; fi
  done
fi
# The Rust side's browser renderer uses the same binary.
if [ -n "${OLMOCR_CHROMIUM:-}" ]; then export CORPUS_CHROMIUM="$OLMOCR_CHROMIUM"; fi

# The Rust side's KaTeX (pinned in scripts/katex/package-lock.json).
katex=1
if ! command -v node >/dev/null; then
  echo "note: node not found; Rust side exact-match only"; katex=0
elif [ ! -f "$root/scripts/katex/node_modules/katex/package.json" ]; then
  if command -v npm >/dev/null; then
    (cd "$root" && npm ci --prefix scripts/katex --no-audit --no-fund >/dev/null)
  else
    echo "note: npm not found to install scripts/katex; Rust side exact-match only"; katex=0
  fi
fi

# The Rust side's driver for Chromium (playwright-core, pinned in scripts/browser/package-lock.json).
if [ "$katex" = 1 ] && [ ! -f "$root/scripts/browser/node_modules/playwright-core/package.json" ]; then
  (cd "$root" && PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci --prefix scripts/browser --no-audit --no-fund >/dev/null) \
    || { echo "note: could not install scripts/browser; no browser configuration"; katex=0; }
fi

tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT
rust() {
  if [ -n "${RUST_SCORER:-}" ]; then $RUST_SCORER "$dir" "$@"
  else (cd "$root" && cargo run -q --example olmocr_sample -- "$dir" "$@" 2>/dev/null); fi
}
ref() { nice -n 10 "$venv/bin/python" "$here/olmocr_reference.py" "$dir" 2>"$tmp/py.err" || { cat "$tmp/py.err"; exit 1; }; }

configs="exact"
echo "== exact: math by exact match only =="
OLMOCR_NO_MATH_RENDER=1 ref >"$tmp/ref_exact.out"
rust >"$tmp/rs_exact.out"
if [ -n "${OLMOCR_CHROMIUM:-}" ] && [ "$katex" = 1 ]; then
  configs="exact browser katex raw"
  echo "== browser: both render KaTeX in $OLMOCR_CHROMIUM, lxml installed =="
  ref >"$tmp/ref_browser.out"
  rust --browser >"$tmp/rs_browser.out"
  echo "== katex: reference as browser; rust: KaTeX under node, no browser layout =="
  cp "$tmp/ref_browser.out" "$tmp/ref_katex.out"
  rust --katex >"$tmp/rs_katex.out"
  echo "== raw: as browser, lxml hidden from BeautifulSoup =="
  OLMOCR_NO_LXML=1 ref >"$tmp/ref_raw.out"
  rust --browser-raw >"$tmp/rs_raw.out"
else
  echo "note: no Chromium (apt-get install chromium-headless-shell) or no KaTeX for Rust; only exact"
fi

"$venv/bin/python" - "$tmp" $configs <<'PY'
import sys
tmp, configs = sys.argv[1], sys.argv[2:]
def load(p):
    tests, overall, cmp = {}, None, {}
    for line in open(p, encoding="utf-8"):
        f = line.rstrip("\n").split("\t")
        if f[0] == "TEST":
            tests[f[1]] = (f[2], f[3], f[-1])
        elif f[0] == "OVERALL":
            overall = f[2]
        elif f[0] == "MATHCMP":
            cmp[f[1]] = f[2]
    return tests, overall, cmp
causes = {
    "NeedsLayout": "positional span step: same glyphs, MathML differs; needs browser layout",
    "LayoutMismatch": "positional span step in the browser: glyphs do not correspond",
    "GlyphsMissing": "some reference glyph missing from every hypothesis",
    "no equations": "no equation extracted",
}
for c in configs:
    rs, rs_overall, rs_cmp = load(f"{tmp}/rs_{c}.out")
    py, py_overall, _ = load(f"{tmp}/ref_{c}.out")
    bad = [t for t in py if t not in rs or rs[t][1] != py[t][1]]
    print(f"[{c}] reference: {len(py)} tests, {sum(v[1] != 'pass' for v in py.values())} failing, "
          f"overall {py_overall}")
    print(f"[{c}] rust:      {len(rs)} tests, {sum(v[1] != 'pass' for v in rs.values())} failing, "
          f"overall {rs_overall}")
    print(f"[{c}] agree on {len(py) - len(bad)} of {len(py)} tests; {len(set(rs) - set(py))} rust-only")
    for t in bad:
        if t not in rs:
            print(f"  {t}: missing on the Rust side"); continue
        why = rs_cmp.get(t)
        why = f" ({why}: {causes.get(why, why)})" if why else ""
        print(f"  {t} [{rs[t][0]}]: rust {rs[t][1]}, reference {py[t][1]}{why}")
        if not why:
            print(f"      rust: {rs[t][2][:200]}\n      ref:  {py[t][2][:200]}")
PY
