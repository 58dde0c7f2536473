"""Compares corpus's CDM tokenizer (src/metrics/cdm/tokens/) with the official one, both variants.

The official side is the reference code itself, read-only from ../shared/reference: for each
formula, `latex2bbox_color` of the variant runs with its TeX call replaced by a hook that keeps
the .tex it wrote (the coloured body, the paper size, the template) and with the module's
`token_add_color_RGB` wrapped to keep the token list; its own node tokenizer runs as usual.
The Rust side is `examples/cdm_tokens` (one JSON line per formula).

Usage: cdm_tokens_reference.py RUST_BINARY [--jobs N]
Prints "N/M equal" per variant and every difference; exit status 1 when any differs.
"""

import argparse
import importlib
import json
import logging
import os
import random
import re
import resource
import signal
import subprocess
import sys
import tempfile
import time
import types
from concurrent.futures import ProcessPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
SHARED = os.path.normpath(os.path.join(HERE, "..", "..", "shared"))
REF = os.environ.get("CORPUS_SHARED_REFERENCE") or os.path.join(SHARED, "reference")
DATA = os.environ.get("CORPUS_SHARED_DATA") or os.path.join(SHARED, "data")
STUDY = os.path.join(DATA, "formula-metric-study", "formulas-dev.json")
OMNI = os.path.join(DATA, "omnidocbench", "result-v1.5-cdm", "display_formula_cdm.json")


def formulas():
    """(name, latex) for every formula checked: the study's gt/pred as given and with the
    dollars stripped, the OmniDocBench demo's formulas as fed to CDM, and hand-written edge
    cases."""
    out = []
    with open(STUDY) as f:
        for item in json.load(f):
            for side, key in (("gt", "gt_formula"), ("pred", "extracted_formula")):
                latex = item[key]
                out.append((f"study/{item['gt_id']}/{side}", latex))
                stripped = latex.strip().strip("$").strip()
                if stripped != latex:
                    out.append((f"study/{item['gt_id']}/{side}/nodollar", stripped))
    with open(OMNI) as f:
        for pair in json.load(f)["pairs"]:
            out.append((f"omnidoc/{pair['pair_index']}/gt", pair["gt_fed_to_cdm"]))
            out.append((f"omnidoc/{pair['pair_index']}/pred", pair["pred_fed_to_cdm"]))
    edge = [
        r"\frac{a}{b}", r"\sqrt[3]{x+1}", r"\sqrt x", r"\left( \frac{1}{2} \right)",
        r"\begin{matrix} a & b \\ c & d \end{matrix}", r"\begin{pmatrix} 1 & 0 \\ 0 & 1 \end{pmatrix}",
        r"\begin{aligned} a &= b \\ c &= d \end{aligned}", r"\begin{array}{l|cr} 1 & 2 & 3 \end{array}",
        r"f(x) = \begin{cases} 1 & x > 0 \\ 0 & \text{otherwise} \end{cases}", r"\text{if } x",
        r"\mathrm{d} x \mathrm{\alpha}", r"\hat{a} \bar b \vec{x}_1", r"x^{2}_{i} y_j^k z'",
        r"\begin{tabular}{|c|c|} \hline a & b \\ \hline \end{tabular}", r"\foo{x} \unknownmacro",
        r"\frac{a}{b", r"x + }", r"\color{red}{x}", r"\operatorname{sin} x \operatorname{tanh} y",
        r"a \over b", r"\sin x \cos y \lim_{n} \max", r"\ldots \cdots \dots", r"a -- b --- c",
        r"\big( x \Big] \bigl\{", r"\not= \not\in", r"\hspace{1cm} x", r"\rule{1pt}{2pt}",
        r"\mathbb{R}^n \mathcal A", r"\rm abc", r"{\rm d}x", r"\begin{align} a &= b \end{align}",
        r"\begin{smallmatrix} a \end{smallmatrix}", r"x \label{eq1} = 1 \tag{2}", r"50\% of x",
        r"\sqrt", r"\frac", r"\displaystyle \sum_{i=1}^{n} i", r"\boldsymbol{\alpha} \pmb x",
        r"a\\b", r"\overset{a}{b} \underset{c}{d} \stackrel{e}{f}", r"\xrightarrow[a]{b} \xleftarrow{c}",
        r"\underbrace{a+b}_{c} \overline{x}_1", r"\mathrm{a b}", r"\text{中文} x", "x，y：z；",
        r"\phantom{x} y \vphantom{z}", r"\multicolumn{2}{c}{x}", r"\textcolor{red}{x}", r"",
        r"\\", r"$x$", r"\left. x \right|", r"\mathrm{\Delta \alpha \,}", r"\mbox{a b}",
        r"\matrix{a & b \cr c & d}", r"\cases{a \cr b}", r"x^\frac12 y_\text{a}", r"\lim\limits_{x} f",
    ]
    for i, latex in enumerate(edge):
        out.append((f"edge/{i}", latex))
    rng = random.Random(int(os.environ.get("CDM_FUZZ_SEED", "7")))
    for i in range(int(os.environ.get("CDM_FUZZ", "400"))):
        out.append((f"fuzz/{i}", "".join(rng.choice(PIECES) for _ in range(rng.randint(1, 14)))))
    return out


# Pieces of random formulas: every construct the tokenizer treats specially, with and without
# their arguments, plus stray braces, brackets and alignment marks.
PIECES = [
    "x", "y", "2", " ", "+", "=", "<", ",", ".", "'", "^", "_", "^{2}", "_{i}", "{", "}", "[", "]",
    "(", ")", "|", "&", "\\\\", "\\,", "\\;", "\\ ", "~", "--", "---", "$", "%", "\\%",
    "\\frac", "\\frac{a}{b}", "\\dfrac12", "\\binom{n}{k}", "\\over", "\\choose",
    "\\sqrt", "\\sqrt{x}", "\\sqrt[3]{x}", "\\left(", "\\right)", "\\left.", "\\right|",
    "\\big(", "\\Bigl[", "\\bigr\\}", "\\begin{matrix}", "\\end{matrix}",
    "\\begin{pmatrix}a&b\\\\c&d\\end{pmatrix}", "\\begin{aligned}a&=b\\\\&=c\\end{aligned}",
    "\\begin{array}{c|l}1&2\\end{array}", "\\begin{cases}1&x\\\\0&y\\end{cases}",
    "\\begin{split}a\\end{split}", "\\text{ab c}", "\\text x", "\\mathrm{d}", "\\mathrm{\\alpha b}",
    "\\rm ", "{\\rm x}", "\\mathbf{v}", "\\mathbb R", "\\boldsymbol{\\mu}", "\\operatorname{sin}",
    "\\hat", "\\hat{a}", "\\bar x", "\\vec{v}", "\\tilde", "\\widehat{ab}", "\\overline{x}",
    "\\underbrace{a}_{b}", "\\dot{x}", "\\ddot", "\\sin", "\\cos", "\\tanh", "\\ln", "\\lim",
    "\\max", "\\sum_{i=1}^{n}", "\\int", "\\limits", "\\ldots", "\\cdots", "\\dots", "\\alpha",
    "\\Delta", "\\infty", "\\not=", "\\not\\in", "\\neq", "\\foo", "\\foo{x}", "\\color{red}",
    "\\textcolor{red}{x}", "\\label{a}", "\\tag{1}", "\\hspace{1cm}", "\\quad", "\\displaystyle",
    "\\phantom{x}", "\\overset{a}{b}", "\\stackrel{a}{=}", "\\xrightarrow{f}", "\\xrightarrow[a]{b}",
    "\\mathcal", "\\rule{1pt}{2pt}", "\\string", "中", "，", "é", "\u00a0", "\U0001d465", "\\>",
    "\\~", "\\matrix{a\\cr b}", "\\cases{a}", "\\prime", "\\{", "\\}", "\\|", "\\mbox{a b}",
    "\\multicolumn{2}{c}{x}", "\\begin{tabular}{cc}", "\\hline", "\\end{tabular}", "\\char'",
]


def load_official(variant):
    """The variant's latex2bbox_color module, importable from the read-only reference."""
    # Only the box extraction uses OpenCV; the tokenizer does not.
    sys.modules.setdefault("cv2", types.ModuleType("cv2"))
    if variant == "unimernet":
        sys.path.insert(0, os.path.join(REF, "unimernet-cdm", "cdm"))
        return importlib.import_module("modules.latex2bbox_color")
    sys.path.insert(0, os.path.join(REF, "omnidocbench-cdm", "metrics"))
    return importlib.import_module("cdm.modules.latex2bbox_color")


HANG_S = 30
_MOD = {}
_TRACE = {}


class _Catch(logging.Handler):
    def emit(self, record):
        _TRACE.setdefault("log", []).append(record.getMessage())


class _Hang(Exception):
    pass


def _init():
    logging.getLogger().addHandler(_Catch())
    logging.getLogger().setLevel(logging.INFO)
    # The official colouring loops forever (and grows without bound) on a few formulas:
    # a memory cap and a per-formula alarm turn that into a result instead of a killed worker.
    resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))

    def on_alarm(*_):
        raise _Hang()

    signal.signal(signal.SIGALRM, on_alarm)


def official(args):
    variant, latex = args
    if variant not in _MOD:
        mod = load_official(variant)
        orig = mod.token_add_color_RGB

        def wrapped(l_split, idx, token_list, *rest):
            res = orig(l_split, idx, token_list, *rest)
            _TRACE["tokens"] = res[2]
            return res

        def run_cmd(cmd, *a, **k):
            m = re.search(r"-output-directory=\S+ \"?([^\" ]+\.tex)", cmd)
            if m and os.path.exists(m.group(1)):
                with open(m.group(1)) as f:
                    _TRACE["tex"] = f.read()

        mod.token_add_color_RGB = wrapped
        mod.run_cmd = run_cmd
        _MOD[variant] = mod
    mod = _MOD[variant]
    _TRACE.clear()
    colors = [tuple(c) for c in _gen_colors()]
    with tempfile.TemporaryDirectory() as tmp:
        os.makedirs(os.path.join(tmp, "out", "bbox"))
        os.makedirs(os.path.join(tmp, "out", "vis"))
        signal.alarm(HANG_S)
        try:
            mod.latex2bbox_color((latex, "f", os.path.join(tmp, "out"), tmp, colors))
            hang = False
        except (_Hang, MemoryError):
            hang = True
        finally:
            signal.alarm(0)
    log = " | ".join(_TRACE.get("log", []))
    if hang:
        return {"error": True, "tokenized": "Tokenize latex failed" not in log, "hang": True}
    if "Preprocess latex failed" in log:
        return {"error": True, "tokenized": "Tokenize latex failed" not in log}
    tex = _TRACE.get("tex", "")
    m = re.search(r"\\begin\{displaymath\}\n(.*)\n\\end\{displaymath\}", tex, re.S)
    template = "formula"
    if "\\begin{CJK}" in tex:
        template = "formula_zh"
    elif "\\usepackage{multirow}" in tex:
        template = "tabular"
    paper = re.search(r"a(\d)paper", tex)
    return {
        "error": False,
        "tokens": list(_TRACE.get("tokens", [])),
        "body": m.group(1) if m else None,
        "paper": int(paper.group(1)) if paper else None,
        "template": template,
        "tokenized": "Tokenize latex failed" not in log,
    }


def _gen_colors(num=5800, gap=15):
    single = 255 // gap + 1
    return [((i // single**2) * gap, (i % single**2 // single) * gap, (i % single) * gap)
            for i in range(1, min(num + 1, single**3))]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("rust")
    ap.add_argument("--jobs", type=int, default=2)
    a = ap.parse_args()
    items = formulas()
    failed = False
    for variant in ("omnidocbench", "unimernet"):
        lines = "".join(json.dumps({"latex": l, "variant": variant}) + "\n" for _, l in items)
        t0 = time.perf_counter()
        res = subprocess.run([a.rust], input=lines, capture_output=True, text=True, check=True)
        t1 = time.perf_counter()
        ours = [json.loads(l) for l in res.stdout.splitlines()]
        with ProcessPoolExecutor(a.jobs, initializer=_init) as ex:
            theirs = list(ex.map(official, [(variant, l) for _, l in items], chunksize=8))
        t2 = time.perf_counter()
        equal, diffs, hangs = 0, [], 0
        for (name, latex), o, t in zip(items, ours, theirs):
            mine = {"error": o["error"] is not None, "tokenized": o["tokenized"]}
            if o["error"] and "loops forever" in o["error"]:
                # Where the official colouring never ends (it grows until a MemoryError, which
                # its `except` turns into "Preprocess latex failed", or until killed) we return
                # an error at once (docs/cdm.md).
                hangs += 1
            t = dict(t)
            t.pop("hang", None)
            if not mine["error"]:
                mine.update(tokens=o["tokens"], body=o["body"], paper=o["paper"], template=o["template"])
            if mine == t:
                equal += 1
            else:
                diffs.append((name, latex, mine, t))
        print(f"{variant}: {equal}/{len(items)} equal "
              f"(wall: ours {1000 * (t1 - t0) / len(items):.3f} ms per formula, one process; "
              f"official {1000 * (t2 - t1) / len(items):.0f} ms per formula, {a.jobs} processes)"
              + (f"; {hangs} where the official colouring loops forever" if hangs else ""))
        for name, latex, mine, t in diffs:
            failed = True
            print(f"  DIFF {name}: {latex!r}")
            for k in sorted(set(mine) | set(t)):
                if mine.get(k) != t.get(k):
                    print(f"    {k}: ours     {mine.get(k)!r}")
                    print(f"    {k}: official {t.get(k)!r}")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
