#!/usr/bin/env python3
"""Prints what pylatexenc 3.0a30's `LatexNodes2Text().latex_to_text` gives for each argument
(or each line of stdin), as a Rust string literal, so that the expected values in
`src/suites/omnidoc/normalize/latex.rs`'s tests can be re-derived from pylatexenc itself.

    tools/gen_latex_table.sh --check          # once, to make the virtual environment
    ~/.cache/corpus/pylatexenc-venv/bin/python tools/latex_expect.py '\\frac{1}{2}' 'A_{k}'
"""
import sys

from pylatexenc.latex2text import LatexNodes2Text


def lit(s):
    return '"' + "".join(c if 0x20 <= ord(c) < 0x7F and c not in '"\\' else "\\u{%x}" % ord(c)
                         for c in s) + '"'


if __name__ == "__main__":
    sources = sys.argv[1:] or [line.rstrip("\n") for line in sys.stdin]
    to_text = LatexNodes2Text()
    for src in sources:
        print(f'(r"{src}", {lit(to_text.latex_to_text(src))}),')
