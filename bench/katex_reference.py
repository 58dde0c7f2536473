"""Cross-check corpus::metrics::katex against olmOCR's own KaTeX rendering (PyPI olmocr 0.4.27,
`olmocr.bench.katex.render`, headless Chromium) formula by formula.

For each formula: Chromium's render goes through `compare_rendered_equations`'s normalization
(`normalize(extract_inner(mathml))`) with lxml and, separately, without it (the raw MathML with
whitespace removed), and its leaf-span glyphs are flattened the way the positional step does;
the Rust side (`cargo run --example katex_keys`, reading JSON strings on stdin) prints the same
three things from KaTeX under node. Formulas: every math test and every extracted equation of the
sample folder given as argv[1] (if any), plus N generated ones (argv[2], default 400, seed 0).

Usage: python katex_reference.py [BENCH_DIR] [N]   (run from the crate root)
"""
import glob
import json
import os
import random
import re
import subprocess
import sys
import time

ATOMS = ["x", "y", "a_{i}", "b^{2}", "\\alpha", "\\beta_{k}", "\\pi", "\\infty", "2", "10", "n!",
         "f(x)", "g'", "x^{\\prime}", "\\mathbf{E}", "\\mathcal{I}_i", "\\mathbb{R}", "\\hat{u}",
         "\\bar{z}", "\\vec{v}", "\\partial t", "\\nabla", "\\ldots", "\\cdot", "\\{x\\}", "|x|",
         "\\text{Ann}", "\\operatorname{Ann}_{R}", "\\text{a b}", "\\mathrm{d}x", "\\sin x",
         "\\log_2 n", "\\lim_{n \\to \\infty}", "x < y", "a > b", "p \\& q", "\\#", "\\%"]
OPS = ["+", "-", "=", "\\times", "\\leq", "\\in", "\\to", ",", "\\,", "\\;", "\\:", "\\!", "\\quad",
       "~", "\\ ", " ", "\\cdot", "/"]
WRAP = ["{}", "\\frac{{{}}}{{{}}}", "\\sqrt{{{}}}", "\\left( {} \\right)", "\\left[ {} \\right]",
        "({})", "\\sum_{{i=1}}^{{n}} {}", "\\int_{{a}}^{{b}} {} \\, dx", "{}^{{2}}", "{}_{{k}}",
        "\\overline{{{}}}", "\\underbrace{{{}}}_{{n}}", "\\begin{{pmatrix}} {} & {} \\\\ {} & {} \\end{{pmatrix}}",
        "\\begin{{aligned}} {} &= {} \\end{{aligned}}", "\\dfrac{{{}}}{{{}}}", "\\binom{{{}}}{{{}}}",
        "\\mathbf{{{}}}", "\\boxed{{{}}}", "\\frac{{{}}}{{"]  # the last one is a KaTeX error


def gen_formula(rng, depth=0):
    if depth > 2 or rng.random() < 0.3:
        parts = [rng.choice(ATOMS)]
        for _ in range(rng.randrange(0, 3)):
            parts += [rng.choice(OPS), rng.choice(ATOMS)]
        return " ".join(parts)
    w = rng.choice(WRAP)
    n = w.count("{}")
    return w.format(*[gen_formula(rng, depth + 1) for _ in range(n)])


def sample_formulas(folder):
    out = []
    if not folder or not os.path.isdir(folder):
        return out
    for p in sorted(glob.glob(os.path.join(folder, "*.jsonl"))):
        for line in open(p, encoding="utf-8"):
            if not line.strip():
                continue
            d = json.loads(line)
            if d.get("type") == "math":
                out.append(d["math"])
    pats = [r"\\\((.+?)\\\)", r"\\\[(.+?)\\\]", r"\$\$(.+?)\$\$", r"\$(.+?)\$"]
    for p in sorted(glob.glob(os.path.join(folder, "*", "*.md"))):
        text = open(p, encoding="utf-8").read()
        for pat in pats:
            out += [m.strip() for m in re.findall(pat, text, re.DOTALL)]
            text = re.sub(pat, "", text, flags=re.DOTALL)
    return out


def main():
    folder = sys.argv[1] if len(sys.argv) > 1 else ""
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 400
    rng = random.Random(0)
    formulas = sample_formulas(folder) + [gen_formula(rng) for _ in range(n)]
    seen, uniq = set(), []
    for f in formulas:
        if f.strip() and f not in seen:
            seen.add(f)
            uniq.append(f)

    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from olmocr_reference import patch_playwright  # honours OLMOCR_CHROMIUM

    patch_playwright()
    from bs4 import BeautifulSoup
    from olmocr.bench.katex.render import render_equation

    def inner_xml(m):
        soup = BeautifulSoup(m, "xml")
        sem = soup.find("semantics")
        if sem:
            return "".join(str(c) for c in sem.contents if getattr(c, "name", None) != "annotation")
        return str(soup)

    norm = lambda s: re.sub(r"\s+", "", s)
    t0 = time.time()
    from concurrent.futures import ThreadPoolExecutor
    with ThreadPoolExecutor(8) as ex:
        renders = list(ex.map(lambda f: render_equation(f, use_cache=False), uniq))
    py_s = time.time() - t0

    t0 = time.time()
    proc = subprocess.run(
        ["cargo", "run", "-q", "--example", "katex_keys"],
        input="".join(json.dumps(f) + "\n" for f in uniq), capture_output=True, text=True)
    rs_s = time.time() - t0
    if proc.returncode != 0:
        print(proc.stderr)
        sys.exit(1)
    rust = [json.loads(l) for l in proc.stdout.splitlines()]
    assert len(rust) == len(uniq), (len(rust), len(uniq))

    bad = {"xml": 0, "raw": 0, "chars": 0, "error": 0}
    errors = 0
    for f, r, o in zip(uniq, renders, rust):
        chars = "".join(c for s in r.spans if s.text != "\u200b" for c in s.text)
        checks = {
            "xml": norm(inner_xml(r.mathml)) == o["xml"],
            "raw": norm(r.mathml) == o["raw"],
            "chars": chars == o["chars"],
            "error": (r.error is None) == (o["error"] is None) and (r.error or "") == (o["error"] or ""),
        }
        errors += r.error is not None
        for k, ok in checks.items():
            if not ok:
                bad[k] += 1
                if sum(bad.values()) <= 10:
                    print(f"  differs ({k}): {f!r}")
                    print(f"    chromium: {norm(inner_xml(r.mathml)) if k == 'xml' else norm(r.mathml) if k == 'raw' else chars if k == 'chars' else r.error}")
                    print(f"    rust:     {o[k]}")
    print(f"{len(uniq)} formulas ({errors} KaTeX errors); chromium {py_s:.1f} s, rust (node, incl. cargo start) {rs_s:.1f} s")
    for k, v in bad.items():
        print(f"  {k:5}: {v} differ")


if __name__ == "__main__":
    main()
