#!/usr/bin/env python3
"""PyMuPDF text-extraction throughput: pages per CPU-second.

    python bench/pymupdf_words.py [--reps N] PDF_OR_FOLDER...

Reads every PDF into memory first, then for each mode, N times (default 3), opens every
document from its bytes (pymupdf.open(stream=..., filetype="pdf")), loads every page and calls

    words   : page.get_text("words")    (word boxes, no block building)
    rawdict : page.get_text("rawdict")  (blocks, lines, spans, per-character boxes)

CPU time is time.process_time() (user+system of this process, all threads). The import of
pymupdf is not counted; its time is printed as a note. Prints the best repetition per mode:

    pymupdf_words pages=114 docs=17 failed=0 cpu_s=0.300 wall_s=0.310 pages_per_cpu_s=380.0 reps=3
    pymupdf_rawdict pages=114 ...

and every repetition on stderr. Used by bench/pdfium_vs_pymupdf.sh.
"""

import argparse
import os
import sys
import time


def collect(paths):
    out = []
    for p in paths:
        if os.path.isdir(p):
            for root, _dirs, names in os.walk(p):
                out += [os.path.join(root, n) for n in names if n.lower().endswith(".pdf")]
        elif os.path.isfile(p):
            out.append(p)
        else:
            sys.exit(f"pymupdf_words: {p}: no such file or folder")
    return sorted(out)


def one_pass(pymupdf, docs, mode, report_errors):
    pages = ndocs = failed = 0
    c0, w0 = time.process_time(), time.perf_counter()
    for path, data in docs:
        try:
            doc = pymupdf.open(stream=data, filetype="pdf")
            try:
                for page in doc:
                    page.get_text(mode)
                    pages += 1
            finally:
                doc.close()
            ndocs += 1
        except Exception as e:  # noqa: BLE001 - count and go on, like the Rust side
            failed += 1
            if report_errors:
                print(f"pymupdf_words: {path}: {e}", file=sys.stderr)
    return pages, ndocs, failed, time.process_time() - c0, time.perf_counter() - w0


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--modes", default="words,rawdict", help="comma-separated get_text modes")
    ap.add_argument("paths", nargs="+")
    a = ap.parse_args()
    reps = max(1, a.reps)

    files = collect(a.paths)
    if not files:
        sys.exit("pymupdf_words: no .pdf files found")
    docs = []
    for f in files:
        with open(f, "rb") as fh:
            docs.append((f, fh.read()))

    c0, w0 = time.process_time(), time.perf_counter()
    try:
        import pymupdf
    except ImportError:
        import fitz as pymupdf  # PyMuPDF < 1.24
    imp_cpu, imp_wall = time.process_time() - c0, time.perf_counter() - w0
    # Keep MuPDF's warnings about odd files off stdout; they do not affect the timing.
    if hasattr(pymupdf, "TOOLS"):
        pymupdf.TOOLS.mupdf_display_errors(False)
        pymupdf.TOOLS.mupdf_display_warnings(False)

    print(
        f"note: pymupdf {pymupdf.__version__} (MuPDF {getattr(pymupdf, 'mupdf_version', '?')}) "
        f"import cpu_s={imp_cpu:.3f} wall_s={imp_wall:.3f} (not counted)"
    )
    for mode in a.modes.split(","):
        best = None
        for r in range(reps):
            res = one_pass(pymupdf, docs, mode, report_errors=(r == 0 and mode == "words"))
            pages, _, _, cpu, wall = res
            print(
                f"pymupdf_words: {mode} rep {r + 1}/{reps}: pages={pages} cpu_s={cpu:.3f} "
                f"wall_s={wall:.3f}",
                file=sys.stderr,
            )
            if best is None or cpu < best[3]:
                best = res
        pages, ndocs, failed, cpu, wall = best
        rate = pages / cpu if cpu > 0 else float("inf")
        print(
            f"pymupdf_{mode} pages={pages} docs={ndocs} failed={failed} cpu_s={cpu:.3f} "
            f"wall_s={wall:.3f} pages_per_cpu_s={rate:.1f} reps={reps}"
        )


if __name__ == "__main__":
    main()
