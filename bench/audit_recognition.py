#!/usr/bin/env python3
"""A second real reading of the OmniDocBench demo pages, for bench/audit_planted.sh.

Usage: bench/audit_recognition.py RECOGNITION_DIR OUT_DIR

RECOGNITION_DIR is the demo's `recognition/` folder: OmniDocBench's recognition-task files
(OmniDocBench_demo_text_ocr.json, _formula.json, _table.json), the demo pages' truth with a
model's `pred` on every text-like block, display formula (LaTeX) and table (HTML). This writes,
per page, OUT_DIR/<image stem>.md: those predictions as one Markdown page (text blocks as
paragraphs, titles as headings, formulas as `$$ … $$`, tables as their HTML), for
`corpus import --format markdown` as a provider.

The predictions were made on the truth's own regions, so the truth's `order` would make this
reading a copy of the truth's reading order. The blocks are written in a geometric order
instead, decided by their boxes alone: a recursive XY cut (split the blocks at a vertical gap
that no block crosses into columns, left to right; where there is none, at a horizontal gap
into bands, top to bottom; a group with neither is read by its tops, then lefts). The truth's
`order` is never read.
"""

import json
import os
import sys

FILES = {
    "OmniDocBench_demo_text_ocr.json": "text",
    "OmniDocBench_demo_formula.json": "formula",
    "OmniDocBench_demo_table.json": "table",
}


def box(poly):
    xs, ys = poly[0::2], poly[1::2]
    return min(xs), min(ys), max(xs), max(ys)


def split(blocks, lo, hi):
    """Groups of blocks separated by a gap on one axis (lo/hi: the box's start and end)."""
    groups, end = [], None
    for b in sorted(blocks, key=lambda b: (b["box"][lo], b["box"][hi])):
        if end is not None and b["box"][lo] > end:
            groups.append([])
        if not groups:
            groups.append([])
        groups[-1].append(b)
        end = b["box"][hi] if end is None else max(end, b["box"][hi])
    return groups


def xy_cut(blocks):
    if len(blocks) <= 1:
        return blocks
    for lo, hi in ((0, 2), (1, 3)):  # columns first, then bands
        groups = split(blocks, lo, hi)
        if len(groups) > 1:
            return [b for g in groups for b in xy_cut(g)]
    return sorted(blocks, key=lambda b: (b["box"][1], b["box"][0]))


def markdown(kind, category, pred):
    pred = pred.strip()
    if kind == "formula":
        for a, z in (("$$", "$$"), ("\\[", "\\]"), ("$", "$")):
            if pred.startswith(a) and pred.endswith(z) and len(pred) >= len(a) + len(z):
                pred = pred[len(a):len(pred) - len(z)].strip()
                break
        return f"$$\n{pred}\n$$"
    if kind == "table":
        # One line: a blank line inside would end Markdown's HTML block.
        return " ".join(line.strip() for line in pred.splitlines() if line.strip())
    if category == "title":
        return "## " + " ".join(pred.split())
    return pred


def main():
    src, out = sys.argv[1], sys.argv[2]
    pages = {}
    for name, kind in FILES.items():
        with open(os.path.join(src, name), encoding="utf-8") as f:
            for page in json.load(f):
                stem = page["page_info"]["image_path"].rsplit(".", 1)[0]
                blocks = pages.setdefault(stem, [])
                for d in page["layout_dets"]:
                    if "pred" in d and len(d.get("poly") or []) >= 8:
                        blocks.append({"kind": kind, "category": d["category_type"],
                                       "pred": d["pred"], "box": box(d["poly"])})
    os.makedirs(out, exist_ok=True)
    for stem, blocks in sorted(pages.items()):
        parts = [markdown(b["kind"], b["category"], b["pred"]) for b in xy_cut(blocks)]
        with open(os.path.join(out, stem + ".md"), "w", encoding="utf-8") as f:
            f.write("\n\n".join(p for p in parts if p) + "\n")
    print(f"recognition: {len(pages)} pages, "
          f"{sum(len(b) for b in pages.values())} blocks written to {out}", file=sys.stderr)


if __name__ == "__main__":
    main()
