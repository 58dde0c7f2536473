#!/usr/bin/env python3
"""Agreement between two JSON Lines files of bench/layout_reference.py's schema.

    python layout_compare.py REF.jsonl OURS.jsonl [--json]

Lines are paired by ("image", "task"); each task present is reported per image plus a total:

layout  boxes of the same label are matched greedily by IoU (pairs with IoU >= 0.5, best IoU
        first, each box used once). Columns: boxes in ref, in ours, matched; label agreement =
        of the boxes matched the same way but ignoring labels, how many have equal labels;
        mean / max absolute coordinate deviation (px) over the four coordinates of the
        same-label matches; how many of those matches deviate by at most 3 px on every coordinate.
table   token sequences identical (count), token edit distance (Levenshtein over tokens), cell
        counts equal, mean / max absolute cell coordinate deviation (px) with cells paired by
        index (only where the counts agree).
ocr     lines matched greedily by IoU >= 0.5 of the quads' axis-aligned bounding boxes; exact
        text agreement = matched lines with identical text / matched lines; CER over matched
        lines = sum of Levenshtein distances / sum of ref characters; page CER = the same over
        each side's line texts joined with "\\n" in the order they were emitted.

Only the standard library is used. Exit status 0 (also when nothing agrees).
"""

import argparse
import json
import sys
from collections import OrderedDict

IOU_MIN = 0.5
DEV_OK = 3.0


def levenshtein(a, b):
    """Edit distance between two sequences of hashable items (bit-parallel, Myers / Hyyrö)."""
    if len(a) < len(b):
        a, b = b, a
    m = len(b)
    if m == 0:
        return len(a)
    peq = {}
    for i, c in enumerate(b):
        peq[c] = peq.get(c, 0) | (1 << i)
    mask = (1 << m) - 1
    top = 1 << (m - 1)
    pv, mv, score = mask, 0, m
    for c in a:
        eq = peq.get(c, 0)
        xv = eq | mv
        xh = (((eq & pv) + pv) ^ pv) | eq
        ph = mv | (~(xh | pv) & mask)
        mh = pv & xh
        if ph & top:
            score += 1
        elif mh & top:
            score -= 1
        ph = ((ph << 1) | 1) & mask
        mh = (mh << 1) & mask
        pv = mh | (~(xv | ph) & mask)
        mv = ph & xv
    return score


def iou(a, b):
    ix = min(a[2], b[2]) - max(a[0], b[0])
    iy = min(a[3], b[3]) - max(a[1], b[1])
    if ix <= 0 or iy <= 0:
        return 0.0
    inter = ix * iy
    union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter
    return inter / union if union > 0 else 0.0


def greedy_match(ref, ours, same=None):
    """Pairs (i, j) of boxes with IoU >= IOU_MIN, best first, each index used once."""
    cand = []
    for i, a in enumerate(ref):
        for j, b in enumerate(ours):
            if same is not None and not same(i, j):
                continue
            v = iou(a, b)
            if v >= IOU_MIN:
                cand.append((-v, i, j))
    cand.sort()
    used_i, used_j, pairs = set(), set(), []
    for _, i, j in cand:
        if i not in used_i and j not in used_j:
            used_i.add(i)
            used_j.add(j)
            pairs.append((i, j))
    return pairs


def quad_bbox(q):
    xs = [p[0] for p in q]
    ys = [p[1] for p in q]
    return [min(xs), min(ys), max(xs), max(ys)]


class Dev:
    """Running mean / max of absolute coordinate deviations."""

    def __init__(self):
        self.n, self.sum, self.max = 0, 0.0, 0.0

    def add_box(self, a, b):
        d = [abs(float(x) - float(y)) for x, y in zip(a, b)]
        self.n += len(d)
        self.sum += sum(d)
        self.max = max(self.max, max(d))
        return max(d)

    def merge(self, o):
        self.n += o.n
        self.sum += o.sum
        self.max = max(self.max, o.max)

    @property
    def mean(self):
        return self.sum / self.n if self.n else None

    def figures(self):
        return {"dev_mean_px": self.mean, "dev_max_px": self.max if self.n else None}


def compare_layout(r, o):
    rb = [b["box"] for b in r.get("boxes", [])]
    ob = [b["box"] for b in o.get("boxes", [])]
    rl = [b["label"] for b in r.get("boxes", [])]
    ol = [b["label"] for b in o.get("boxes", [])]
    pairs = greedy_match(rb, ob, same=lambda i, j: rl[i] == ol[j])
    any_pairs = greedy_match(rb, ob)
    dev = Dev()
    within = 0
    for i, j in pairs:
        if dev.add_box(rb[i], ob[j]) <= DEV_OK:
            within += 1
    f = {"ref": len(rb), "ours": len(ob), "matched": len(pairs),
         "iou_matched_any_label": len(any_pairs),
         "label_agree": sum(rl[i] == ol[j] for i, j in any_pairs),
         "within_3px": within}
    f.update(dev.figures())
    return f, dev


def total_layout(rows):
    t = {"images": len(rows)}
    for k in ("ref", "ours", "matched", "iou_matched_any_label", "label_agree", "within_3px"):
        t[k] = sum(f[k] for f, _ in rows)
    dev = Dev()
    for _, d in rows:
        dev.merge(d)
    t.update(dev.figures())
    return t


def compare_table(r, o):
    rt, ot = r.get("tokens", []), o.get("tokens", [])
    rc, oc = r.get("cells", []), o.get("cells", [])
    dev = Dev()
    if len(rc) == len(oc):
        for a, b in zip(rc, oc):
            dev.add_box(a, b)
    f = {"ref_tokens": len(rt), "our_tokens": len(ot), "tokens_identical": rt == ot,
         "token_edit_distance": levenshtein(rt, ot), "ref_cells": len(rc), "our_cells": len(oc),
         "cell_count_equal": len(rc) == len(oc)}
    f.update(dev.figures())
    return f, dev


def total_table(rows):
    n = len(rows)
    t = {"images": n,
         "tokens_identical": sum(f["tokens_identical"] for f, _ in rows),
         "token_edit_distance": sum(f["token_edit_distance"] for f, _ in rows),
         "token_edit_distance_mean": (sum(f["token_edit_distance"] for f, _ in rows) / n) if n else None,
         "cell_count_equal": sum(f["cell_count_equal"] for f, _ in rows)}
    dev = Dev()
    for _, d in rows:
        dev.merge(d)
    t.update(dev.figures())
    return t


def compare_ocr(r, o):
    rl, ol = r.get("lines", []), o.get("lines", [])
    pairs = greedy_match([quad_bbox(x["box"]) for x in rl], [quad_bbox(x["box"]) for x in ol])
    exact = sum(rl[i]["text"] == ol[j]["text"] for i, j in pairs)
    edits = sum(levenshtein(rl[i]["text"], ol[j]["text"]) for i, j in pairs)
    chars = sum(len(rl[i]["text"]) for i, _ in pairs)
    rp = "\n".join(x["text"] for x in rl)
    op = "\n".join(x["text"] for x in ol)
    page_edits = levenshtein(rp, op)
    f = {"ref": len(rl), "ours": len(ol), "matched": len(pairs), "text_exact": exact,
         "text_exact_rate": exact / len(pairs) if pairs else None,
         "matched_edits": edits, "matched_ref_chars": chars,
         "cer_matched": edits / chars if chars else (0.0 if edits == 0 else None),
         "page_edits": page_edits, "page_ref_chars": len(rp),
         "cer_page": page_edits / len(rp) if rp else (0.0 if page_edits == 0 else None)}
    return f, None


def total_ocr(rows):
    t = {"images": len(rows)}
    for k in ("ref", "ours", "matched", "text_exact", "matched_edits", "matched_ref_chars",
              "page_edits", "page_ref_chars"):
        t[k] = sum(f[k] for f, _ in rows)
    t["text_exact_rate"] = t["text_exact"] / t["matched"] if t["matched"] else None
    t["cer_matched"] = t["matched_edits"] / t["matched_ref_chars"] if t["matched_ref_chars"] else None
    t["cer_page"] = t["page_edits"] / t["page_ref_chars"] if t["page_ref_chars"] else None
    return t


TASKS = OrderedDict([
    ("layout", (compare_layout, total_layout)),
    ("table", (compare_table, total_table)),
    ("ocr", (compare_ocr, total_ocr)),
])


def load(path):
    recs = OrderedDict()
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            line = line.strip()
            if not line:
                continue
            try:
                rec = json.loads(line)
            except ValueError as exc:
                sys.exit("%s:%d: not JSON: %s" % (path, n, exc))
            recs[(rec.get("image"), rec.get("task"))] = rec
    return recs


def compare(ref, ours):
    result = OrderedDict()
    for task, (one, total) in TASKS.items():
        keys = [k for k in ref if k[1] == task]
        okeys = [k for k in ours if k[1] == task]
        if not keys and not okeys:
            continue
        rows, per_image, errors = [], [], []
        for k in keys:
            if k not in ours:
                continue
            r, o = ref[k], ours[k]
            if "error" in r or "error" in o:
                errors.append(k[0])
                continue
            f, d = one(r, o)
            rows.append((f, d))
            per_image.append(OrderedDict([("image", k[0])] + list(f.items())))
        result[task] = {
            "images": per_image,
            "total": total(rows),
            "missing_in_ours": [k[0] for k in keys if k not in ours],
            "missing_in_ref": [k[0] for k in okeys if k not in ref],
            "errors": errors,
        }
    return result


def fmt(v, digits=2):
    if v is None:
        return "-"
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, float):
        return "%.*f" % (digits, v)
    return str(v)


def print_table(title, cols, rows):
    """cols: [(header, key, digits)], rows: list of dicts."""
    widths = [max(len(h), *(len(fmt(r.get(k), d)) for r in rows)) for h, k, d in cols]
    print("== %s" % title)
    print("  ".join(h.rjust(w) if i else h.ljust(w) for i, ((h, _, _), w) in enumerate(zip(cols, widths))))
    for r in rows:
        print("  ".join(fmt(r.get(k), d).rjust(w) if i else fmt(r.get(k), d).ljust(w)
                        for i, ((_, k, d), w) in enumerate(zip(cols, widths))))


def print_text(result):
    for task, res in result.items():
        rows = list(res["images"])
        tot = dict(res["total"])
        tot["image"] = "TOTAL (%d)" % tot["images"]
        rows.append(tot)
        if task == "layout":
            for r in rows:
                r["label_agree_s"] = "%d/%d" % (r["label_agree"], r["iou_matched_any_label"])
            cols = [("image", "image", 0), ("ref", "ref", 0), ("ours", "ours", 0),
                    ("matched", "matched", 0), ("label agree", "label_agree_s", 0),
                    ("mean dev px", "dev_mean_px", 2), ("max dev px", "dev_max_px", 2),
                    ("<=3px", "within_3px", 0)]
        elif task == "table":
            for r in rows[:-1]:
                r["tokens_s"] = "%d/%d" % (r["ref_tokens"], r["our_tokens"])
                r["cells_s"] = "%d/%d" % (r["ref_cells"], r["our_cells"])
            tot["tokens_identical"] = "%d/%d" % (tot["tokens_identical"], tot["images"])
            tot["cell_count_equal"] = "%d/%d" % (tot["cell_count_equal"], tot["images"])
            cols = [("image", "image", 0), ("tokens ref/ours", "tokens_s", 0),
                    ("identical", "tokens_identical", 0), ("edit dist", "token_edit_distance", 0),
                    ("cells ref/ours", "cells_s", 0), ("count equal", "cell_count_equal", 0),
                    ("mean dev px", "dev_mean_px", 2), ("max dev px", "dev_max_px", 2)]
        else:
            cols = [("image", "image", 0), ("ref", "ref", 0), ("ours", "ours", 0),
                    ("matched", "matched", 0), ("text exact", "text_exact_rate", 3),
                    ("CER matched", "cer_matched", 4), ("CER page", "cer_page", 4)]
        print_table(task, cols, rows)
        for key in ("missing_in_ours", "missing_in_ref", "errors"):
            if res[key]:
                print("  %s: %s" % (key.replace("_", " "), ", ".join(map(str, res[key]))))
        print()


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("ref")
    ap.add_argument("ours")
    ap.add_argument("--json", action="store_true", help="one JSON object instead of tables")
    args = ap.parse_args(argv)
    result = compare(load(args.ref), load(args.ours))
    if args.json:
        print(json.dumps(result, ensure_ascii=False))
    elif not result:
        print("no comparable lines")
    else:
        print_text(result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
