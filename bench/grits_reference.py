"""Reference GriTS for cross-checking corpus::metrics::grits.

No PyPI package ships table-transformer's src/grits.py: `table-transformer` 1.0.6 has no grits
module, `grits-metric` 0.7.0 (Kensho) is a rewrite (pylcs true LCS, lxml, Hungarian matching),
`docling-eval` 1.4.2 has no GriTS. So this file re-states the logic of grits.py at commit
ef21069 (microsoft/table-transformer, src/grits.py) function by function: same numpy DP tables,
same tie order, same difflib call, PyMuPDF Rect for the IoU (with the list() cast PyMuPDF 2.0
needs, as in the repository's PR #208), XML ElementTree for the HTML.

Subcommands:
  gen OUT.jsonl            write the generated table pairs (and difflib string pairs)
  ref IN.jsonl OUT.jsonl   reference scores (+ parsed cells, CPU time per pair)
  compare REF.jsonl RUST.jsonl   print max |delta| per field
"""
import itertools
import json
import random
import sys
import time
import xml.etree.ElementTree as ET
from collections import defaultdict
from difflib import SequenceMatcher
from xml.sax.saxutils import escape

import numpy as np
from pymupdf import Rect


# ---------------------------------------------------------------- reference logic (grits.py)

def compute_fscore(num_true_positives, num_true, num_positives):
    precision = num_true_positives / num_positives if num_positives > 0 else 1
    recall = num_true_positives / num_true if num_true > 0 else 1
    if precision + recall > 0:
        fscore = 2 * precision * recall / (precision + recall)
    else:
        fscore = 0
    return fscore, precision, recall


def initialize_dp(n1, n2):
    scores = np.zeros((n1 + 1, n2 + 1))
    pointers = np.zeros((n1 + 1, n2 + 1))
    for i in range(1, n1 + 1):
        pointers[i, 0] = -1
    for j in range(1, n2 + 1):
        pointers[0, j] = 1
    return scores, pointers


def traceback(pointers):
    i = pointers.shape[0] - 1
    j = pointers.shape[1] - 1
    out1, out2 = [], []
    while not (i == 0 and j == 0):
        if pointers[i, j] == -1:
            i -= 1
        elif pointers[i, j] == 1:
            j -= 1
        else:
            i -= 1
            j -= 1
            out1.append(i)
            out2.append(j)
    return out1[::-1], out2[::-1]


def align_1d(seq1, seq2, reward_lookup):
    scores, pointers = initialize_dp(len(seq1), len(seq2))
    for i in range(1, len(seq1) + 1):
        for j in range(1, len(seq2) + 1):
            reward = reward_lookup[seq1[i - 1] + seq2[j - 1]]
            diag = scores[i - 1, j - 1] + reward
            skip2 = scores[i, j - 1]
            skip1 = scores[i - 1, j]
            best = max(diag, skip1, skip2)
            scores[i, j] = best
            if diag == best:
                pointers[i, j] = 0
            elif skip1 == best:
                pointers[i, j] = -1
            else:
                pointers[i, j] = 1
    return scores[-1, -1]


def align_2d_outer(true_shape, pred_shape, reward_lookup):
    scores, pointers = initialize_dp(true_shape[0], pred_shape[0])
    for i in range(1, true_shape[0] + 1):
        for j in range(1, pred_shape[0] + 1):
            reward = align_1d([(i - 1, tcol) for tcol in range(true_shape[1])],
                              [(j - 1, prow) for prow in range(pred_shape[1])],
                              reward_lookup)
            diag = scores[i - 1, j - 1] + reward
            same_row = scores[i, j - 1]
            same_col = scores[i - 1, j]
            best = max(diag, same_col, same_row)
            scores[i, j] = best
            if diag == best:
                pointers[i, j] = 0
            elif same_col == best:
                pointers[i, j] = -1
            else:
                pointers[i, j] = 1
    t, p = traceback(pointers)
    return t, p, scores[-1, -1]


def factored_2dmss(true_grid, pred_grid, reward_function):
    rewards, transposed = {}, {}
    for trow, tcol, prow, pcol in itertools.product(range(true_grid.shape[0]),
                                                    range(true_grid.shape[1]),
                                                    range(pred_grid.shape[0]),
                                                    range(pred_grid.shape[1])):
        r = reward_function(true_grid[trow, tcol], pred_grid[prow, pcol])
        rewards[(trow, tcol, prow, pcol)] = r
        transposed[(tcol, trow, pcol, prow)] = r
    num_pos = pred_grid.shape[0] * pred_grid.shape[1]
    num_true = true_grid.shape[0] * true_grid.shape[1]
    trows, prows, row_score = align_2d_outer(true_grid.shape[:2], pred_grid.shape[:2], rewards)
    tcols, pcols, col_score = align_2d_outer(true_grid.shape[:2][::-1], pred_grid.shape[:2][::-1],
                                             transposed)
    upper, _, _ = compute_fscore(min(row_score, col_score), num_pos, num_true)
    score = 0
    for tr, pr in zip(trows, prows):
        for tc, pc in zip(tcols, pcols):
            score += rewards[(tr, tc, pr, pc)]
    fscore, precision, recall = compute_fscore(score, num_true, num_pos)
    return fscore, precision, recall, upper


def lcs_similarity(s1, s2):
    if len(s1) == 0 and len(s2) == 0:
        return 1
    m = SequenceMatcher(None, s1, s2)
    lcs = ''.join([s1[b.a:(b.a + b.size)] for b in m.get_matching_blocks()])
    return 2 * len(lcs) / (len(s1) + len(s2))


def iou(b1, b2):
    # list(): PyMuPDF 2.0 rejects numpy rows (repository PR #208 applies the same cast).
    b1, b2 = list(b1), list(b2)
    inter = Rect(b1).intersect(b2)
    union = Rect(b1).include_rect(b2)
    if union.get_area() > 0:
        return inter.get_area() / union.get_area()
    return 0


def cells_to_grid(cells, key):
    if len(cells) == 0:
        return [[]]
    nr = max(max(c['row_nums']) for c in cells) + 1
    nc = max(max(c['column_nums']) for c in cells) + 1
    grid = np.zeros((nr, nc)).tolist()
    for c in cells:
        for r in c['row_nums']:
            for k in c['column_nums']:
                grid[r][k] = c[key]
    return grid


def cells_to_relspan_grid(cells):
    if len(cells) == 0:
        return [[]]
    nr = max(max(c['row_nums']) for c in cells) + 1
    nc = max(max(c['column_nums']) for c in cells) + 1
    grid = np.zeros((nr, nc)).tolist()
    for c in cells:
        r0, c0 = min(c['row_nums']), min(c['column_nums'])
        r1, c1 = max(c['row_nums']) + 1, max(c['column_nums']) + 1
        for r in c['row_nums']:
            for k in c['column_nums']:
                grid[r][k] = [c0 - k, r0 - r, c1 - k, r1 - r]
    return grid


def html_to_cells(table_html):
    try:
        tree = ET.fromstring(table_html)
    except Exception as e:
        print(e, file=sys.stderr)
        return None
    cells = []
    occupied = defaultdict(set)
    row = -1
    stack = [(tree, False)]
    while stack:
        cur, in_header = stack.pop()
        if cur.tag == 'tr':
            row += 1
        if cur.tag in ('td', 'th'):
            colspan = int(cur.attrib['colspan']) if 'colspan' in cur.attrib else 1
            rowspan = int(cur.attrib['rowspan']) if 'rowspan' in cur.attrib else 1
            row_nums = list(range(row, row + rowspan))
            try:
                mx = max(occupied[row])
                col = min(set(range(mx + 2)).difference(occupied[row]))
            except Exception:
                col = 0
            col_nums = list(range(col, col + colspan))
            for r in row_nums:
                occupied[r].update(col_nums)
            cells.append({'row_nums': row_nums, 'column_nums': col_nums,
                          'is_column_header': cur.tag == 'th' or in_header,
                          'cell_text': ' '.join(cur.itertext())})
        for child in list(cur)[::-1]:
            stack.append((child, in_header or cur.tag in ('th', 'thead')))
    return cells


def grits_from_html(true_html, pred_html):
    tc, pc = html_to_cells(true_html), html_to_cells(pred_html)
    top = factored_2dmss(np.array(cells_to_relspan_grid(tc)), np.array(cells_to_relspan_grid(pc)), iou)
    con = factored_2dmss(np.array(cells_to_grid(tc, 'cell_text'), dtype=object),
                         np.array(cells_to_grid(pc, 'cell_text'), dtype=object), lcs_similarity)
    return top, con, tc, pc


# ---------------------------------------------------------------- generator (our own)

WORDS = ["Baseline", "Ours", "BERT", "RoBERTa", "GPT-2", "ResNet-50", "ViT-B/16", "LSTM", "CRF",
         "SVM", "Random", "Oracle", "Human", "DREB", "OREB", "Life sciences", "Engineering",
         "Mathematics & statistics", "Psychology", "Cloak", "Raw Data", "w/o attention"]
HEADS = ["Precision", "Recall", "F1-score", "Support", "Accuracy (%)", "BLEU", "ROUGE-L", "Time (s)",
         "Params", "mAP", "Top-1", "Top-5", "Loss", "#Samples", "Gain"]
GROUPS = ["Dev", "Test", "In-domain", "Out-of-domain", "Privacy Loss L_S (%)", "Validation"]
LOREM = ("Results are averaged over five random seeds; standard deviations are given after the "
         "plus-minus sign, and the best value in each column is set in bold. Numbers marked with "
         "an asterisk are taken from the original papers, all others were re-run by us with the "
         "released code and default hyper-parameters.")


def number(rng):
    kind = rng.randrange(7)
    if kind == 0:
        return f"{rng.random():.3f}"
    if kind == 1:
        return f"{rng.uniform(10, 99):.1f}"
    if kind == 2:
        return f"{rng.uniform(10, 99):.2f} ± {rng.uniform(0, 2):.2f}"
    if kind == 3:
        return f"{rng.uniform(0, 100):.1f}%"
    if kind == 4:
        return str(rng.randrange(1, 5000))
    if kind == 5:
        return rng.choice(["--", "-", "n/a", ""])
    return f"{rng.uniform(0, 1):.4f}"


def gen_table(rng, nrows=None, ncols=None):
    """A LaTeX-like table as a list of cells {r, c, rs, cs, text, th, markup}."""
    ncols = ncols or rng.randint(3, 8)
    nbody = nrows or rng.randint(3, 14)
    cells = []
    r = 0
    grouped = ncols >= 4 and rng.random() < 0.5
    if grouped:
        cells.append(dict(r=0, c=0, rs=2, cs=1, text="Method", th=True))
        c = 1
        while c < ncols:
            w = min(rng.randint(1, 3), ncols - c)
            cells.append(dict(r=0, c=c, rs=1, cs=w, text=rng.choice(GROUPS), th=True))
            c += w
        for c in range(1, ncols):
            cells.append(dict(r=1, c=c, rs=1, cs=1, text=rng.choice(HEADS), th=True))
        r = 2
    else:
        cells.append(dict(r=0, c=0, rs=1, cs=1, text=rng.choice(["Class", "Model", "Method", ""]), th=True))
        for c in range(1, ncols):
            cells.append(dict(r=0, c=c, rs=1, cs=1, text=rng.choice(HEADS), th=True))
        r = 1
    end = r + nbody
    while r < end:
        if rng.random() < 0.08:
            text = LOREM if rng.random() < 0.5 else LOREM[:rng.randint(20, 120)]
            cells.append(dict(r=r, c=0, rs=1, cs=ncols, text=text, th=False))
            r += 1
            continue
        span = 1
        if rng.random() < 0.15 and end - r >= 2:
            span = rng.randint(2, min(3, end - r))
        cells.append(dict(r=r, c=0, rs=span, cs=1, text=rng.choice(WORDS), th=False))
        for rr in range(r, r + span):
            for c in range(1, ncols):
                cells.append(dict(r=rr, c=c, rs=1, cs=1, text=number(rng), th=False))
        r += span
    if rng.random() < 0.3:
        cells.append(dict(r=end, c=0, rs=1, cs=ncols - 1, text="Overall accuracy", th=False))
        cells.append(dict(r=end, c=ncols - 1, rs=1, cs=1, text=number(rng), th=False))
    for cell in cells:
        cell['markup'] = rng.random() < 0.1
    return cells


def extent(cells):
    return (max(c['r'] + c['rs'] for c in cells), max(c['c'] + c['cs'] for c in cells))


def tiles(cells):
    nr, nc = extent(cells)
    seen = set()
    for c in cells:
        for r in range(c['r'], c['r'] + c['rs']):
            for k in range(c['c'], c['c'] + c['cs']):
                if (r, k) in seen:
                    return False
                seen.add((r, k))
    return len(seen) == nr * nc


def covering(cells, r, k):
    for c in cells:
        if c['r'] <= r < c['r'] + c['rs'] and c['c'] <= k < c['c'] + c['cs']:
            return c
    return None


def damage(rng, cells):
    cells = [dict(c) for c in cells]
    nr, nc = extent(cells)
    op = rng.choice(["drop_row", "merge", "split", "swap", "decimal", "noise", "drop_col",
                     "insert_row", "unspan_rows", "noise"])
    if op == "drop_row" and nr > 2:
        r = rng.randrange(nr)
        if any(c['rs'] > 1 and c['r'] <= r < c['r'] + c['rs'] for c in cells):
            return cells, None
        cells = [c for c in cells if c['r'] != r]
        for c in cells:
            if c['r'] > r:
                c['r'] -= 1
    elif op == "drop_col" and nc > 2:
        k = rng.randrange(nc)
        if any(c['cs'] > 1 and c['c'] <= k < c['c'] + c['cs'] for c in cells):
            return cells, None
        cells = [c for c in cells if c['c'] != k]
        for c in cells:
            if c['c'] > k:
                c['c'] -= 1
    elif op == "merge":
        r, k = rng.randrange(nr), rng.randrange(max(nc - 1, 1))
        a, b = covering(cells, r, k), covering(cells, r, k + 1)
        if a is None or b is None or a is b or a['rs'] != 1 or b['rs'] != 1 or a['c'] + a['cs'] != b['c']:
            return cells, None
        a['cs'] += b['cs']
        a['text'] = (a['text'] + " " + b['text']).strip()
        cells.remove(b)
    elif op == "split":
        spans = [c for c in cells if c['cs'] > 1 and c['rs'] == 1]
        if not spans:
            return cells, None
        a = rng.choice(spans)
        for k in range(a['c'] + 1, a['c'] + a['cs']):
            cells.append(dict(r=a['r'], c=k, rs=1, cs=1, text="", th=a['th'], markup=False))
        a['cs'] = 1
    elif op == "unspan_rows":
        spans = [c for c in cells if c['rs'] > 1 and c['cs'] == 1]
        if not spans:
            return cells, None
        a = rng.choice(spans)
        for r in range(a['r'] + 1, a['r'] + a['rs']):
            cells.append(dict(r=r, c=a['c'], rs=1, cs=1, text=a['text'] if rng.random() < 0.5 else "",
                              th=a['th'], markup=False))
        a['rs'] = 1
    elif op == "swap":
        a, b = rng.sample(cells, 2)
        a['text'], b['text'] = b['text'], a['text']
    elif op == "decimal":
        nums = [c for c in cells if '.' in c['text'] and c['text'].replace('.', '').replace(' ± ', '').replace('%', '').isdigit()]
        if not nums:
            return cells, None
        a = rng.choice(nums)
        t = a['text']
        i = t.index('.')
        digits = t.replace('.', '', 1)
        j = max(1, min(len(digits) - 1, i + rng.choice([-1, 1])))
        a['text'] = digits[:j] + '.' + digits[j:]
    elif op == "noise":
        for a in rng.sample(cells, min(len(cells), rng.randint(1, 4))):
            t = list(a['text'])
            if not t:
                a['text'] = "x"
                continue
            i = rng.randrange(len(t))
            what = rng.randrange(3)
            if what == 0:
                t[i] = rng.choice("0123456789lIoO.,-")
            elif what == 1:
                del t[i]
            else:
                t.insert(i, rng.choice("0123456789 ."))
            a['text'] = ''.join(t)
    elif op == "insert_row" and nr > 1:
        r = rng.randrange(1, nr)
        if any(c['rs'] > 1 and c['r'] < r < c['r'] + c['rs'] for c in cells):
            return cells, None
        for c in cells:
            if c['r'] >= r:
                c['r'] += 1
        for k in range(nc):
            cells.append(dict(r=r, c=k, rs=1, cs=1, text=number(rng), th=False, markup=False))
    else:
        return cells, None
    return cells, op


def render(cells, rng):
    nr, _ = extent(cells)
    rows = defaultdict(list)
    for c in cells:
        rows[c['r']].append(c)
    head_rows = 0
    while head_rows < nr and rows[head_rows] and all(c['th'] for c in rows[head_rows]):
        head_rows += 1
    nl = "\n" if rng.random() < 0.5 else ""
    out = ["<table>", nl]

    def row_html(r):
        parts = ["<tr>"]
        for c in sorted(rows[r], key=lambda c: c['c']):
            tag = "th" if c['th'] else "td"
            attrs = ""
            if c['cs'] > 1:
                attrs += f' colspan="{c["cs"]}"'
            if c['rs'] > 1:
                attrs += f' rowspan="{c["rs"]}"'
            text = escape(c['text'])
            if c.get('markup') and text:
                text = f"<b>{text}</b>" if rng.random() < 0.5 else f"{text}<sup>a</sup>"
            parts.append(f"<{tag}{attrs}>{text}</{tag}>")
        parts.append("</tr>")
        return "".join(parts) + nl

    if head_rows:
        out.append("<thead>")
        for r in range(head_rows):
            out.append(row_html(r))
        out.append("</thead>")
    out.append("<tbody>")
    for r in range(head_rows, nr):
        out.append(row_html(r))
    out.append("</tbody></table>")
    return "".join(out)


def gen(path):
    rng = random.Random(20261202)
    pairs = []
    sizes = [None] * 110 + [(28, 10), (29, 10), (30, 10)]
    for n, size in enumerate(sizes):
        while True:
            gt = gen_table(rng, *(size or (None, None)))
            if not tiles(gt):
                continue
            pred, ops = gt, []
            for _ in range(rng.randint(1, 3) if n % 11 else 0):
                cand, op = damage(rng, pred)
                if op and tiles(cand):
                    pred, ops = cand, ops + [op]
            break
        pairs.append({"kind": "table", "id": f"t{n:03}", "bench": size is not None, "ops": ops,
                      "gt": render(gt, rng), "pred": render(pred, rng)})
    for n in range(300):
        alphabet = rng.choice(["ab", "abc ", "0123456789.", "abcdefghij klmnop", "ab\u00e9\u00b1 "])
        la = rng.choice([0, 1, 3, 10, 50, 199, 200, 201, 260, 400])
        a = ''.join(rng.choice(alphabet) for _ in range(la))
        b = list(a)
        for _ in range(rng.randint(0, max(1, la // 5))):
            if b and rng.random() < 0.5:
                del b[rng.randrange(len(b))]
            else:
                b.insert(rng.randrange(len(b) + 1), rng.choice(alphabet))
        b = ''.join(b)
        if rng.random() < 0.3:
            b = b + ''.join(rng.choice(alphabet) for _ in range(rng.choice([0, 150, 250])))
        if rng.random() < 0.5:
            a, b = b, a
        pairs.append({"kind": "difflib", "id": f"d{n:03}", "a": a, "b": b})
    # GriTS_Loc: cells with boxes from a jittered row/column geometry (pred: own jitter).
    for n in range(40):
        gt = gen_table(rng, rng.randint(2, 8), rng.randint(2, 6))
        if not tiles(gt):
            continue
        pred = gt
        for _ in range(rng.randint(0, 2)):
            cand, op = damage(rng, pred)
            if op and tiles(cand):
                pred = cand
        def boxes(cells):
            nr, nc = extent(cells)
            xs = [0.0]
            for _ in range(nc):
                xs.append(xs[-1] + rng.uniform(20, 90))
            ys = [0.0]
            for _ in range(nr):
                ys.append(ys[-1] + rng.uniform(8, 14))
            x0, y0 = rng.uniform(30, 300), rng.uniform(30, 600)
            out = []
            for c in cells:
                out.append([x0 + xs[c['c']] + rng.uniform(0, 3), y0 + ys[c['r']] + rng.uniform(0, 2),
                            x0 + xs[c['c'] + c['cs']] - rng.uniform(0, 3),
                            y0 + ys[c['r'] + c['rs']] - rng.uniform(0, 2)])
            return out
        cl = lambda cells: [[c['r'], c['c'], c['rs'], c['cs'], c['text'], c['th']] for c in cells]
        pairs.append({"kind": "loc", "id": f"l{n:03}", "gt_cells": cl(gt), "gt_boxes": boxes(gt),
                      "pred_cells": cl(pred), "pred_boxes": boxes(pred)})
    for n in range(500):
        def box():
            kind = rng.randrange(5)
            if kind == 0:
                return [0, 0, 0, 0]
            x, y = rng.uniform(-5, 5), rng.uniform(-5, 5)
            if kind == 1:
                return [round(x), round(y), round(x) + rng.randint(0, 3), round(y) + rng.randint(-1, 3)]
            return [x, y, x + rng.uniform(0, 6), y + rng.uniform(0, 6)]
        pairs.append({"kind": "iou", "id": f"i{n:03}", "b1": box(), "b2": box()})
    with open(path, "w") as f:
        for p in pairs:
            f.write(json.dumps(p, ensure_ascii=False) + "\n")
    kinds = defaultdict(int)
    for p in pairs:
        kinds[p["kind"]] += 1
    print(f"wrote {dict(kinds)} pairs to {path}")


def cells_out(cells):
    return [[min(c['row_nums']), min(c['column_nums']), len(c['row_nums']), len(c['column_nums']),
             c['cell_text'], bool(c['is_column_header'])] for c in cells]


def ref(inp, outp):
    total_cpu, bench_cpu, nbench = 0.0, 0.0, 0
    with open(inp) as f, open(outp, "w") as o:
        for line in f:
            p = json.loads(line)
            if p["kind"] == "difflib":
                m = SequenceMatcher(None, p["a"], p["b"])
                o.write(json.dumps({"id": p["id"], "ratio": m.ratio(),
                                    "blocks": [list(b) for b in m.get_matching_blocks()]}) + "\n")
                continue
            if p["kind"] == "iou":
                o.write(json.dumps({"id": p["id"], "iou": iou(p["b1"], p["b2"])}) + "\n")
                continue
            if p["kind"] == "loc":
                grids = []
                for side in ("gt", "pred"):
                    cells = [{'row_nums': list(range(r, r + rs)), 'column_nums': list(range(c, c + cs)),
                              'bbox': b} for (r, c, rs, cs, _, _), b in zip(p[side + "_cells"], p[side + "_boxes"])]
                    grids.append(np.array(cells_to_grid(cells, 'bbox')))
                loc = factored_2dmss(grids[0], grids[1], iou)
                o.write(json.dumps({"id": p["id"], "loc": [loc[1], loc[2], loc[0]]}) + "\n")
                continue
            t0 = time.process_time()
            top, con, tc, pc = grits_from_html(p["gt"], p["pred"])
            cpu = time.process_time() - t0
            total_cpu += cpu
            if p["bench"]:
                bench_cpu += cpu
                nbench += 1
            o.write(json.dumps({"id": p["id"], "top": [top[1], top[2], top[0]],
                                "con": [con[1], con[2], con[0]], "cpu_s": cpu,
                                "gt_cells": cells_out(tc), "pred_cells": cells_out(pc)},
                               ensure_ascii=False) + "\n")
    per_pair = bench_cpu / max(nbench, 1)
    print(f"reference: total CPU {total_cpu:.2f} s; 30x10-class bench pairs: {nbench}, "
          f"{per_pair:.3f} s CPU per pair (Top+Con)")
    with open(outp + ".summary.json", "w") as f:
        json.dump({"total_cpu_s": total_cpu, "bench_pairs": nbench, "bench_cpu_s_per_pair": per_pair}, f)


def compare(refp, rustp):
    refs = {json.loads(l)["id"]: json.loads(l) for l in open(refp)}
    rust = {json.loads(l)["id"]: json.loads(l) for l in open(rustp)}
    worst = {"top": 0.0, "con": 0.0, "iou": 0.0, "loc": 0.0}
    nbox = {"iou": 0, "loc": 0}
    worst_id = {"top": None, "con": None}
    ntab = ndiff = bad_cells = bad_blocks = 0
    for k, r in refs.items():
        s = rust.get(k)
        if s is None:
            print(f"missing on the Rust side: {k}")
            continue
        if "iou" in r or "loc" in r:
            key = "iou" if "iou" in r else "loc"
            nbox[key] += 1
            a, b = (r[key], s[key]) if key == "loc" else ([r[key]], [s[key]])
            d = max(abs(x - y) for x, y in zip(a, b))
            worst[key] = max(worst[key], d)
            continue
        if "ratio" in r:
            ndiff += 1
            if r["blocks"] != s["blocks"] or r["ratio"] != s["ratio"] or not s.get("char_ok", True):
                bad_blocks += 1
                print(f"difflib mismatch {k}: {r['ratio']} vs {s['ratio']}")
            continue
        ntab += 1
        if r["gt_cells"] != s["gt_cells"] or r["pred_cells"] != s["pred_cells"]:
            bad_cells += 1
            print(f"cell mismatch {k}")
        for m in ("top", "con"):
            d = max(abs(a - b) for a, b in zip(r[m], s[m]))
            if d > worst[m]:
                worst[m], worst_id[m] = d, k
    print(f"table pairs compared: {ntab}; parsed cells differing: {bad_cells}")
    for m in ("top", "con"):
        print(f"GriTS_{m.capitalize()} P/R/F: max |delta| = {worst[m]:.3e} (at {worst_id[m]})")
    print(f"difflib pairs compared: {ndiff}; mismatching blocks or ratio: {bad_blocks}")
    print(f"iou box pairs compared: {nbox['iou']}; max |delta| = {worst['iou']:.3e}")
    print(f"GriTS_Loc pairs compared: {nbox['loc']}; P/R/F max |delta| = {worst['loc']:.3e}")
    ok = bad_cells == 0 and bad_blocks == 0 and max(worst.values()) <= 1e-9
    print("OK" if ok else "MISMATCH")
    return 0 if ok else 1


if __name__ == "__main__":
    cmd = sys.argv[1]
    if cmd == "gen":
        gen(sys.argv[2])
    elif cmd == "ref":
        ref(sys.argv[2], sys.argv[3])
    elif cmd == "compare":
        sys.exit(compare(sys.argv[2], sys.argv[3]))
    else:
        sys.exit(f"unknown command {cmd}")
