#!/usr/bin/env python3
"""Plants N errors, chosen by a seed, in copies of benchmark truths, for bench/audit_planted.sh.

Usage: bench/audit_plant.py --seed S --n N --omnidoc OmniDocBench_demo.json \
           --tables TABLES_GT_DIR --out DIR

Writes DIR/omnidoc.json (the OmniDocBench page list with its planted errors), DIR/tables/*.json
(every pdf-parse-bench table truth, some with a wrong cell) and DIR/planted.json, one entry per
planted error: its type, suite, document, the element it is in and what changed. The five
types take turns (N = 10 gives two of each):

- misspelt:  one word of a text block (>= 4 letters) with two neighbouring letters swapped
- dropped:   a run of 8 to 12 words (a printed line's worth) cut out of a text block of >= 30
- cell:      one table cell's number with one digit changed (pdf-parse-bench tables)
- latex:     one token of a display formula replaced (a letter by another, + by -, a Greek
             command by another)
- swapped:   the reading-order values of two text blocks of one page exchanged

Each error is on an element no other planted error touches. Nothing is read but the two
inputs; the choice depends only on the seed.
"""

import argparse
import json
import os
import random
import re

TYPES = ["misspelt", "dropped", "cell", "latex", "swapped"]
GREEK = ["\\alpha", "\\beta", "\\gamma", "\\delta", "\\mu", "\\sigma", "\\omega", "\\lambda"]


def stem(page):
    name = page["page_info"]["image_path"]
    return name.rsplit(".", 1)[0]


def text_blocks(pages, used, min_words):
    out = []
    for pi, p in enumerate(pages):
        for di, d in enumerate(p["layout_dets"]):
            if d.get("category_type") != "text_block" or not d.get("order"):
                continue
            words = (d.get("text") or "").split()
            if len(words) >= min_words and (pi, di) not in used:
                out.append((pi, di))
    return out


def misspell(rng, pages, used):
    for pi, di in rng.sample(text_blocks(pages, used, 5), k=len(text_blocks(pages, used, 5))):
        d = pages[pi]["layout_dets"][di]
        words = d["text"].split(" ")
        cands = [i for i, w in enumerate(words) if re.fullmatch(r"[A-Za-z]{4,}", w)]
        if not cands:
            continue
        i = rng.choice(cands)
        w = words[i]
        k = rng.randrange(1, len(w) - 2)
        new = w[:k] + w[k + 1] + w[k] + w[k + 2:]
        if new == w:
            continue
        words[i] = new
        d["text"] = " ".join(words)
        used.add((pi, di))
        return {"document": stem(pages[pi]), "kind": "text", "order": d["order"],
                "detail": f"{w} -> {new}"}
    return None


def drop_line(rng, pages, used):
    for pi, di in rng.sample(text_blocks(pages, used, 30), k=len(text_blocks(pages, used, 30))):
        d = pages[pi]["layout_dets"][di]
        words = d["text"].split(" ")
        n = rng.randint(8, 12)
        start = rng.randrange(5, len(words) - n - 5)
        cut = " ".join(words[start:start + n])
        d["text"] = " ".join(words[:start] + words[start + n:])
        used.add((pi, di))
        return {"document": stem(pages[pi]), "kind": "text", "order": d["order"],
                "detail": f"dropped {cut!r}"}
    return None


def latex_token(rng, pages, used):
    cands = [(pi, di) for pi, p in enumerate(pages) for di, d in enumerate(p["layout_dets"])
             if d.get("category_type") == "equation_isolated" and d.get("latex")
             and (pi, di) not in used]
    rng.shuffle(cands)
    for pi, di in cands:
        d = pages[pi]["layout_dets"][di]
        src = d["latex"]
        # Tokens that can change without breaking the LaTeX: Greek commands, + and -,
        # single letters that are not part of a command.
        spots = [(m.start(), m.end(), m.group()) for m in re.finditer(
            r"\\(?:alpha|beta|gamma|delta|mu|sigma|omega|lambda)(?![A-Za-z])|(?<![\\A-Za-z])[A-Za-z](?![A-Za-z])|[+-]",
            src)]
        if not spots:
            continue
        s, e, tok = rng.choice(spots)
        if tok in GREEK:
            new = rng.choice([g for g in GREEK if g != tok])
        elif tok in "+-":
            new = "-" if tok == "+" else "+"
        else:
            pool = [c for c in "abcdefghknpqrstuvwxyz" if c != tok.lower()]
            new = rng.choice(pool)
            new = new.upper() if tok.isupper() else new
        d["latex"] = src[:s] + new + src[e:]
        used.add((pi, di))
        return {"document": stem(pages[pi]), "kind": "formula", "order": d.get("order"),
                "detail": f"{tok} -> {new}"}
    return None


def swap(rng, pages, used):
    order = list(range(len(pages)))
    rng.shuffle(order)
    for pi in order:
        if ("page", pi) in used:
            continue
        blocks = [di for (q, di) in text_blocks(pages, used, 3) if q == pi]
        if len(blocks) < 3:
            continue
        a, b = rng.sample(blocks, 2)
        da, db = pages[pi]["layout_dets"][a], pages[pi]["layout_dets"][b]
        da["order"], db["order"] = db["order"], da["order"]
        used.update({("page", pi), (pi, a), (pi, b)})
        return {"document": stem(pages[pi]), "kind": "order", "order": None,
                "detail": f"orders {db['order']} and {da['order']} exchanged"}
    return None


def split_cells(row):
    return row.split("&")


def wrong_cell(rng, tables, used):
    names = sorted(tables)
    rng.shuffle(names)
    for name in names:
        items = tables[name]
        for ti in rng.sample(range(len(items)), len(items)):
            it = items[ti]
            if it.get("type") != "table" or (name, ti) in used:
                continue
            nums = list(re.finditer(r"(?<![\\A-Za-z{])\d+(?:\.\d+)?", it["data"]))
            # Numbers inside \multicolumn{..}{..} arguments or column specs are not cells.
            nums = [m for m in nums
                    if not re.search(r"\\(?:multicolumn|multirow)\{$|\{$", it["data"][:m.start()])]
            if not nums:
                continue
            m = rng.choice(nums)
            digits = [i for i, c in enumerate(m.group()) if c.isdigit()]
            i = rng.choice(digits)
            old = m.group()
            new = old[:i] + str((int(old[i]) + rng.randint(1, 8)) % 10) + old[i + 1:]
            it["data"] = it["data"][:m.start()] + new + it["data"][m.end():]
            index = sum(1 for x in items[:ti] if x.get("type") == "table")
            used.add((name, ti))
            return {"document": name, "kind": "table", "table": index,
                    "detail": f"{old} -> {new}"}
    return None


def jpeg_info(b):
    """(width, height, components) from a JPEG's first SOF marker."""
    i = 2
    while i + 9 < len(b):
        if b[i] != 0xFF:
            i += 1
            continue
        marker, size = b[i + 1], int.from_bytes(b[i + 2:i + 4], "big")
        if marker in (0xC0, 0xC1, 0xC2):
            h = int.from_bytes(b[i + 5:i + 7], "big")
            w = int.from_bytes(b[i + 7:i + 9], "big")
            return w, h, b[i + 9]
        i += 2 + size
    raise SystemExit("not a JPEG with a frame header")


def jpeg_pdf(jpg):
    """A one-page PDF showing the JPEG as a 200 dpi scan (no text layer)."""
    w, h, comps = jpeg_info(jpg)
    pw, ph = w * 72 / 200, h * 72 / 200
    space = {1: "/DeviceGray", 3: "/DeviceRGB", 4: "/DeviceCMYK"}[comps]
    content = f"q {pw:.2f} 0 0 {ph:.2f} 0 0 cm /Im0 Do Q".encode()
    objs = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 {pw:.2f} {ph:.2f}] "
        f"/Resources << /XObject << /Im0 4 0 R >> >> /Contents 5 0 R >>".encode(),
        f"<< /Type /XObject /Subtype /Image /Width {w} /Height {h} /ColorSpace {space} "
        f"/BitsPerComponent 8 /Filter /DCTDecode /Length {len(jpg)} >>\nstream\n".encode()
        + jpg + b"\nendstream",
        f"<< /Length {len(content)} >>\nstream\n".encode() + content + b"\nendstream",
    ]
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for k, o in enumerate(objs):
        offsets.append(len(out))
        out += f"{k + 1} 0 obj\n".encode() + o + b"\nendobj\n"
    xref = len(out)
    out += f"xref\n0 {len(objs) + 1}\n0000000000 65535 f \n".encode()
    for off in offsets:
        out += f"{off:010d} 00000 n \n".encode()
    out += f"trailer\n<< /Size {len(objs) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode()
    return bytes(out)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seed", type=int, required=True)
    ap.add_argument("--n", type=int, required=True)
    ap.add_argument("--omnidoc", required=True)
    ap.add_argument("--tables", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--pdf-images", help="the demo's page images: write each as a one-page "
                    "scanned PDF into OUT/pages and point the truth at it, so OCR providers "
                    "that read PDFs can read the pages")
    a = ap.parse_args()
    rng = random.Random(a.seed)
    with open(a.omnidoc, encoding="utf-8") as f:
        pages = json.load(f)
    tables = {}
    for fn in sorted(os.listdir(a.tables)):
        if fn.endswith(".json"):
            with open(os.path.join(a.tables, fn), encoding="utf-8") as f:
                tables[fn[:-5]] = json.load(f)
    used = set()
    planted = []
    for k in range(a.n):
        t = TYPES[k % len(TYPES)]
        if t == "cell":
            p = wrong_cell(rng, tables, used)
            suite = "table"
        else:
            p = {"misspelt": misspell, "dropped": drop_line, "latex": latex_token,
                 "swapped": swap}[t](rng, pages, used)
            suite = "omnidoc"
        if p is None:
            raise SystemExit(f"no element left to plant a {t} error in")
        p.update({"type": t, "suite": suite})
        planted.append(p)
    os.makedirs(os.path.join(a.out, "tables"), exist_ok=True)
    if a.pdf_images:
        os.makedirs(os.path.join(a.out, "pages"), exist_ok=True)
        for p in pages:
            name = p["page_info"]["image_path"]
            with open(os.path.join(a.pdf_images, name), "rb") as f:
                pdf = jpeg_pdf(f.read())
            p["page_info"]["image_path"] = stem(p) + ".pdf"
            with open(os.path.join(a.out, "pages", stem(p) + ".pdf"), "wb") as f:
                f.write(pdf)
    with open(os.path.join(a.out, "omnidoc.json"), "w", encoding="utf-8") as f:
        json.dump(pages, f, ensure_ascii=False)
    for name, items in tables.items():
        with open(os.path.join(a.out, "tables", name + ".json"), "w", encoding="utf-8") as f:
            json.dump(items, f, ensure_ascii=False)
    with open(os.path.join(a.out, "planted.json"), "w", encoding="utf-8") as f:
        json.dump(planted, f, ensure_ascii=False, indent=1)
    for p in planted:
        print(f"{p['type']:9} {p['suite']:8} {p['document'][:50]:50} {p['detail'][:60]}")


if __name__ == "__main__":
    main()
