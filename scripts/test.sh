#!/usr/bin/env bash
# The test command: install what the tests need at run time (libpdfium; the Debian tools the
# parser presets run; TeX Live, Chromium, KaTeX, the notebook environment), then run every
# test. The presets' Python environments are made by corpus itself on first use, under the
# user cache (docs/presets.md).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
# Debian tools the command provider's test and the parser presets run (tests/it/presets.rs):
# poppler's pdftotext and pdftoppm, MuPDF's mutool, Tesseract with English, and Java 17 for
# opendataloader-pdf. Only what is missing is installed.
ensure_preset_tools() {
    local missing=()
    command -v pdftotext >/dev/null 2>&1 || missing+=(poppler-utils)
    command -v mutool >/dev/null 2>&1 || missing+=(mupdf-tools)
    command -v tesseract >/dev/null 2>&1 || missing+=(tesseract-ocr tesseract-ocr-eng)
    command -v java >/dev/null 2>&1 || missing+=(openjdk-17-jre-headless)
    [ ${#missing[@]} -eq 0 ] && return 0
    if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
        echo "test: installing ${missing[*]} for the preset tests" >&2
        apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null 2>&1 \
            || { apt-get update -q >/dev/null 2>&1 && apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null 2>&1; } \
            || echo "test: could not install ${missing[*]}; those preset tests will skip" >&2
    else
        echo "test: ${missing[*]} absent and cannot be installed here; those preset tests will skip" >&2
    fi
}
ensure_preset_tools
# pdflatex with the packages `corpus synth` typesets with (tests/it/synth.rs): Debian's
# texlive-latex-extra (adjustbox, makecell, multirow, diagbox, mylatexformat) and
# texlive-fonts-recommended (Times, Palatino, Charter, Helvetica, Bookman, Latin Modern).
ensure_synth_tex() {
    local missing=()
    command -v pdflatex >/dev/null 2>&1 || missing+=(texlive-latex-base)
    kpsewhich adjustbox.sty >/dev/null 2>&1 || missing+=(texlive-latex-extra)
    kpsewhich mathpazo.sty >/dev/null 2>&1 || missing+=(texlive-fonts-recommended)
    [ ${#missing[@]} -eq 0 ] && return 0
    if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
        echo "test: installing ${missing[*]} for the synth tests" >&2
        apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null 2>&1 \
            || { apt-get update -q >/dev/null 2>&1 && apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null 2>&1; } \
            || echo "test: could not install ${missing[*]}; the synth tests will skip" >&2
    else
        echo "test: ${missing[*]} absent and cannot be installed here; the synth tests will skip" >&2
    fi
}
ensure_synth_tex
# KaTeX (npm, pinned by scripts/katex/package-lock.json) for the olmocr suite's math tests.
if command -v npm >/dev/null 2>&1; then
    if [ ! -d scripts/katex/node_modules/katex ]; then
        echo "test: installing KaTeX into scripts/katex/node_modules" >&2
        npm ci --prefix scripts/katex --no-audit --no-fund --silent >&2 \
            || echo "test: could not install KaTeX; math tests fall back to exact matches" >&2
    fi
else
    echo "test: npm is absent; math tests fall back to exact matches" >&2
fi
# Debian's chromium and playwright-core (npm, pinned by scripts/browser/package-lock.json; no
# browser download) for the HTML report's browser test and the olmocr suite's math tests
# (KaTeX in headless Chromium, scripts/browser/katex.mjs).
if [ ! -x /usr/bin/chromium ]; then
    if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
        echo "test: installing chromium for the browser tests (HTML report, olmocr math)" >&2
        apt-get install -y -q chromium >/dev/null 2>&1 \
            || { apt-get update -q >/dev/null 2>&1 && apt-get install -y -q chromium >/dev/null 2>&1; } \
            || echo "test: could not install chromium; the browser tests will skip" >&2
    else
        echo "test: chromium is absent and cannot be installed here; the browser tests will skip" >&2
    fi
fi
if command -v npm >/dev/null 2>&1 && [ ! -f scripts/browser/node_modules/playwright-core/package.json ]; then
    echo "test: installing playwright-core into scripts/browser/node_modules" >&2
    PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci --prefix scripts/browser --no-audit --no-fund --silent >&2 \
        || echo "test: could not install playwright-core; the browser tests will skip" >&2
fi
# TeX Live and Ghostscript (Debian) for CDM's rendering tests, and the Source Han Sans SC font
# (npm, pinned by scripts/cdm-fonts/package-lock.json) that OmniDocBench's CDM template asks
# xeCJK for; only what is missing is installed (docs/cdm.md).
ensure_texlive() {
    local missing=()
    command -v xelatex >/dev/null 2>&1 || missing+=(texlive-xetex)
    command -v pdflatex >/dev/null 2>&1 || missing+=(texlive-latex-base)
    command -v gs >/dev/null 2>&1 || missing+=(ghostscript)
    if command -v kpsewhich >/dev/null 2>&1; then
        kpsewhich upgreek.sty >/dev/null 2>&1 || missing+=(texlive-latex-extra)
        kpsewhich xcolor.sty >/dev/null 2>&1 || missing+=(texlive-latex-recommended)
        kpsewhich xeCJK.sty >/dev/null 2>&1 || missing+=(texlive-lang-chinese)
        kpsewhich ptmr8t.tfm >/dev/null 2>&1 || missing+=(texlive-fonts-recommended)
    else
        missing+=(texlive-latex-recommended texlive-latex-extra texlive-fonts-recommended texlive-lang-chinese)
    fi
    if [ ${#missing[@]} -gt 0 ]; then
        if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
            echo "test: installing ${missing[*]} for the CDM tests" >&2
            apt-get install -y -q "${missing[@]}" >/dev/null 2>&1 \
                || { apt-get update -q >/dev/null 2>&1 && apt-get install -y -q "${missing[@]}" >/dev/null 2>&1; } \
                || echo "test: could not install ${missing[*]}; the CDM rendering tests will skip" >&2
        else
            echo "test: ${missing[*]} absent and cannot be installed here; the CDM rendering tests will skip" >&2
        fi
    fi
    if ! fc-list "Source Han Sans SC" 2>/dev/null | grep -q .; then
        if command -v npm >/dev/null 2>&1; then
            echo "test: installing Source Han Sans SC into /usr/local/share/fonts/corpus-cdm" >&2
            { [ -d scripts/cdm-fonts/node_modules/node-source-han-sans-sc ] \
                || npm ci --prefix scripts/cdm-fonts --no-audit --no-fund --silent >&2; } \
                && mkdir -p /usr/local/share/fonts/corpus-cdm \
                && cp scripts/cdm-fonts/node_modules/node-source-han-sans-sc/*.otf /usr/local/share/fonts/corpus-cdm/ \
                && fc-cache /usr/local/share/fonts/corpus-cdm \
                || echo "test: could not install Source Han Sans SC; the OmniDocBench CDM tests will skip" >&2
        else
            echo "test: npm is absent; the OmniDocBench CDM tests will skip" >&2
        fi
    fi
}
ensure_texlive
# Python with polars, matplotlib and nbclient, to execute notebooks/history.ipynb headless.
venv="${CORPUS_NOTEBOOK_VENV:-$HOME/.cache/corpus/notebook-venv}"
if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c "import nbclient, polars, matplotlib, ipykernel" 2>/dev/null; then
    echo "test: installing the notebook environment into $venv" >&2
    python3 -m venv "$venv" && "$venv/bin/pip" install -q --disable-pip-version-check \
        polars==1.36.1 matplotlib==3.10.8 nbclient==0.10.2 nbformat==5.10.4 ipykernel==7.1.0 >&2 \
        || echo "test: could not install the notebook environment; the notebook test will skip" >&2
fi
export CORPUS_NOTEBOOK_PYTHON="$venv/bin/python"
# Label Studio (PyPI `label-studio`, pinned) in its own environment under the user cache, for
# the round-trip test that starts it on 127.0.0.1 (tests/it/label_studio.rs); only if missing.
ensure_label_studio() {
    local exe
    if exe="$(scripts/label-studio.sh)"; then
        export CORPUS_LABEL_STUDIO="$exe"
    else
        echo "test: could not install Label Studio; the Label Studio round-trip test will skip" >&2
    fi
}
ensure_label_studio
# pycocotools (PyPI, pinned) for the detection metric's reference test (tests/it/detection.rs).
coco="${CORPUS_COCO_VENV:-$HOME/.cache/corpus/coco-venv}"
if [ ! -x "$coco/bin/python" ] || ! "$coco/bin/python" -c "import pycocotools.cocoeval" 2>/dev/null; then
    echo "test: installing pycocotools into $coco" >&2
    python3 -m venv "$coco" && "$coco/bin/pip" install -q --disable-pip-version-check \
        pycocotools==2.0.11 numpy==2.3.5 >&2 \
        || echo "test: could not install pycocotools; the COCO reference test will fail under CI" >&2
fi
export CORPUS_COCO_PYTHON="$coco/bin/python"
cargo test --all-targets "$@"
