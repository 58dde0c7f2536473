#!/usr/bin/env python3
"""Generate ground-truth / prediction HTML table pairs for the TEDS cross-check (stdlib only).

Each output line is {"id": str, "gt": str, "pred": str}. The pairs cover: tables of varied
sizes with thead, <b> headers, colspan/rowspan; predictions with OCR-perturbed cells, dropped
rows and columns, merged or lost spans, swapped values, decimal shifts, th/td swaps, missing
tbody/thead, whitespace and entity changes; documents with and without <html><body>, a
doctype, explicit or implied tbody; malformed markup libxml2 and html5ever both accept; edge
cases (empty, whitespace, no table, invalid span); and the two speed pairs "big30x10" and
"big60x20". Deterministic for a given --seed.
"""

import argparse
import json
import random

WORDS = ("total revenue cost net income margin assets equity cash debt ratio growth year "
         "region sales units price share market group north south east west other mean "
         "median std dev p-value n model accuracy recall precision F1 baseline ours").split()
UNICODE_BITS = ["é", "ü", "中文", "表格", "µ", "±", "≤", "−", "²", "‰", "ß", "→", "日本"]
OCR_CONFUSIONS = {"0": "O", "O": "0", "1": "l", "l": "1", "5": "S", "S": "5", "8": "B",
                  "B": "8", "m": "rn", "e": "c", "i": "j", ".": ",", ",": ".", "a": "o"}


def cell_text(rng, col):
    r = rng.random()
    if col == 0 or r < 0.25:
        n = rng.randint(1, 3)
        text = " ".join(rng.choice(WORDS) for _ in range(n))
        if rng.random() < 0.08:
            text += " " + rng.choice(UNICODE_BITS)
        return text.capitalize() if rng.random() < 0.5 else text
    if r < 0.35:
        return ""
    if r < 0.45:
        return "%d" % rng.randint(0, 100000)
    if r < 0.55:
        return "%.1f%%" % rng.uniform(-50, 50)
    if r < 0.6:
        return "%.2f ± %.2f" % (rng.uniform(0, 100), rng.uniform(0, 5))
    return "%.*f" % (rng.randint(1, 3), rng.uniform(-1000, 10000))


def make_grid(rng, rows, cols, n_spans):
    """Cells as dicts {r, c, rs, cs, text, head}; spans are non-overlapping rectangles."""
    owner = [[None] * cols for _ in range(rows)]
    cells = []
    for _ in range(n_spans):
        for _try in range(20):
            rs = rng.choice([1, 1, 2, 3])
            cs = rng.choice([1, 2, 2, 3])
            if rs == 1 and cs == 1:
                continue
            r = rng.randrange(rows)
            c = rng.randrange(cols)
            if r + rs > rows or c + cs > cols:
                continue
            if any(owner[i][j] is not None for i in range(r, r + rs) for j in range(c, c + cs)):
                continue
            cell = {"r": r, "c": c, "rs": rs, "cs": cs, "text": cell_text(rng, c)}
            for i in range(r, r + rs):
                for j in range(c, c + cs):
                    owner[i][j] = cell
            cells.append(cell)
            break
    for i in range(rows):
        for j in range(cols):
            if owner[i][j] is None:
                cell = {"r": i, "c": j, "rs": 1, "cs": 1, "text": cell_text(rng, j)}
                owner[i][j] = cell
                cells.append(cell)
    return owner


def rows_of(owner):
    """Rows as lists of origin cells (cells covered by a span are skipped)."""
    out = []
    for i, row in enumerate(owner):
        out.append([c for j, c in enumerate(row) if c["r"] == i and c["c"] == j])
    return out


class Style:
    def __init__(self, rng, bare=False):
        self.head_rows = rng.choice([0, 1, 1, 2])
        self.head_tag = rng.choice(["th", "td", "td"])
        self.bold_head = rng.random() < 0.6
        self.thead = self.head_rows > 0 and rng.random() < 0.7
        self.tbody = rng.random() < 0.5
        self.wrapper = "bare" if bare else rng.choice(["html", "html", "html", "doctype", "head"])
        self.newlines = rng.random() < 0.3
        self.quote = rng.choice(['"', "'", ""])
        self.upper = rng.random() < 0.05
        self.escape_amp = True


def esc(text):
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def render(rows, st, n_head=None):
    n_head = st.head_rows if n_head is None else n_head
    nl = "\n" if st.newlines else ""
    parts = []

    def attrs(c):
        a = ""
        q = st.quote
        if c["cs"] != 1:
            a += " colspan=%s%s%s" % (q, c.get("cs_raw", c["cs"]), q)
        if c["rs"] != 1:
            a += " rowspan=%s%s%s" % (q, c.get("rs_raw", c["rs"]), q)
        return a

    def row_html(row, head):
        tag = st.head_tag if head else "td"
        out = "<tr>"
        for c in row:
            text = c.get("html", esc(c["text"]))
            if head and st.bold_head and text:
                text = "<b>%s</b>" % text
            out += "<%s%s>%s</%s>" % (tag, attrs(c), text, tag)
        return out + "</tr>" + nl

    head_rows = rows[:n_head]
    body_rows = rows[n_head:]
    if head_rows:
        h = "".join(row_html(r, True) for r in head_rows)
        parts.append("<thead>%s%s</thead>%s" % (nl, h, nl) if st.thead else h)
    b = "".join(row_html(r, False) for r in body_rows)
    parts.append("<tbody>%s%s</tbody>%s" % (nl, b, nl) if st.tbody else b)
    table = "<table>%s%s</table>" % (nl, "".join(parts))
    if st.upper:
        for t in ("table", "thead", "tbody", "tr", "td", "th"):
            table = table.replace("<%s" % t, "<%s" % t.upper()).replace("</%s>" % t, "</%s>" % t.upper())
    if st.wrapper == "bare":
        return table
    if st.wrapper == "doctype":
        return "<!DOCTYPE html>\n" + table
    if st.wrapper == "head":
        return "<html><head><meta charset='utf-8'></head><body>%s</body></html>" % table
    return "<html><body>%s</body></html>" % table


def ocr(rng, text):
    out = []
    for ch in text:
        r = rng.random()
        if r < 0.06 and ch in OCR_CONFUSIONS:
            out.append(OCR_CONFUSIONS[ch])
        elif r < 0.08:
            continue
        elif r < 0.1:
            out.append(ch + rng.choice("., '"))
        else:
            out.append(ch)
    return "".join(out)


def decimal_shift(text):
    if "." in text:
        i = text.index(".")
        if i + 1 < len(text) and text[i + 1].isdigit():
            return text[:i] + text[i + 1] + "." + text[i + 2:]
    return text


def clone_rows(rows):
    return [[dict(c) for c in row] for row in rows]


def perturb(rng, rows, st, level):
    """Returns (pred_rows, pred_style, n_head) with a random mix of realistic errors."""
    rows = clone_rows(rows)
    pst = Style.__new__(Style)
    pst.__dict__.update(st.__dict__)
    n_head = st.head_rows
    cells = [c for row in rows for c in row]
    for c in cells:
        if rng.random() < 0.1 * level and c["text"]:
            c["text"] = ocr(rng, c["text"])
        if rng.random() < 0.02 * level:
            c["text"] = decimal_shift(c["text"])
    if rng.random() < 0.3 * level and len(cells) > 2:
        a, b = rng.sample(cells, 2)
        a["text"], b["text"] = b["text"], a["text"]
    if rng.random() < 0.3 * level and len(rows) > 2:
        k = rng.randrange(len(rows))
        del rows[k]
        if k < n_head:
            n_head -= 1
    if rng.random() < 0.2 * level:
        col = rng.randrange(max(1, min(len(r) for r in rows if r) if any(rows) else 1))
        for r in rows:
            if len(r) > col + 1:
                del r[col]
    if rng.random() < 0.2 * level:
        for r in rows:
            for c in r:
                if (c["cs"] != 1 or c["rs"] != 1) and rng.random() < 0.5:
                    c["cs"], c["rs"] = 1, 1
    if rng.random() < 0.2 * level and rows and len(rows[-1]) > 2:
        r = rows[-1]
        r[0]["cs"] = 2
        r[0]["text"] = (r[0]["text"] + " " + r[1]["text"]).strip()
        del r[1]
    if rng.random() < 0.2 * level:
        pst.head_tag = "td" if st.head_tag == "th" else "th"
    if rng.random() < 0.2 * level:
        pst.bold_head = not st.bold_head
    if rng.random() < 0.2 * level:
        pst.thead = not st.thead
    if rng.random() < 0.3 * level:
        pst.tbody = not st.tbody
    if rng.random() < 0.15 * level:
        n_head = max(0, n_head - 1)
    if rng.random() < 0.15:
        pst.newlines = not st.newlines
    if rng.random() < 0.1 * level:
        for c in rng.sample(cells, min(3, len(cells))):
            c["text"] = "  " + c["text"] + " "
    if rng.random() < 0.1 * level:
        for c in rng.sample(cells, min(2, len(cells))):
            if c["text"]:
                words = esc(c["text"]).split(" ")
                c["html"] = "<br>".join(words) if rng.random() < 0.5 else "<i>%s</i>" % esc(c["text"])
    return rows, pst, n_head


def random_pair(rng, pid, rows, cols, level=1.0, bare=False, spans=None):
    n_spans = rng.randint(0, max(1, rows * cols // 15)) if spans is None else spans
    owner = make_grid(rng, rows, cols, n_spans)
    gt_rows = rows_of(owner)
    st = Style(rng, bare=bare)
    gt = render(gt_rows, st)
    pred_rows, pst, n_head = perturb(rng, gt_rows, st, level)
    if bare:
        pst.wrapper = "bare"
    pred = render(pred_rows, pst, n_head)
    return {"id": pid, "gt": gt, "pred": pred}


def big_pair(rng, pid, rows, cols):
    """The timing pairs of docs/table-metrics.md §3: thead with <b>, one colspan=3, one
    rowspan=3, ~10% OCR errors, one row dropped, spans partly wrong."""
    owner = [[None] * cols for _ in range(rows)]
    cs_cell = {"r": 3, "c": 1, "rs": 1, "cs": 3, "text": cell_text(rng, 1)}
    rs_cell = {"r": 6, "c": 0, "rs": 3, "cs": 1, "text": cell_text(rng, 0)}
    for c in (cs_cell, rs_cell):
        for i in range(c["r"], c["r"] + c["rs"]):
            for j in range(c["c"], c["c"] + c["cs"]):
                owner[i][j] = c
    for i in range(rows):
        for j in range(cols):
            if owner[i][j] is None:
                owner[i][j] = {"r": i, "c": j, "rs": 1, "cs": 1, "text": cell_text(rng, j)}
    gt_rows = rows_of(owner)
    st = Style(rng)
    st.head_rows, st.head_tag, st.bold_head, st.thead, st.tbody = 1, "td", True, True, True
    st.wrapper, st.upper, st.newlines = "html", False, False
    gt = render(gt_rows, st)
    pred_rows = clone_rows(gt_rows)
    for c in (c for r in pred_rows for c in r):
        if c["text"] and rng.random() < 0.1:
            c["text"] = ocr(rng, c["text"]) if rng.random() < 0.8 else decimal_shift(c["text"])
    del pred_rows[rows // 2]
    for c in pred_rows[3]:
        if c["cs"] == 3:
            c["cs"] = 2
    pred = render(pred_rows, st)
    return {"id": pid, "gt": gt, "pred": pred}


def doc(table):
    return "<html><body>%s</body></html>" % table


SIMPLE = "<table><tr><td>a</td><td>1.5</td></tr><tr><td>b</td><td>2</td></tr></table>"
EDGE = [
    ("empty_pred", doc(SIMPLE), ""),
    ("whitespace_pred", doc(SIMPLE), "   \n"),
    ("text_pred", doc(SIMPLE), "no table here"),
    ("bare_both", SIMPLE, SIMPLE.replace("1.5", "15")),
    ("bare_pred", doc(SIMPLE), SIMPLE),
    ("body_no_html", doc(SIMPLE), "<body>%s</body>" % SIMPLE),
    ("head_fragment", doc(SIMPLE), "<head><title>t</title></head>" + SIMPLE),
    ("style_fragment", doc(SIMPLE), "<style>td{}</style>" + SIMPLE),
    ("doctype_upper", doc(SIMPLE), "  <!doctype HTML>" + SIMPLE),
    ("div_table", doc(SIMPLE), "<html><body><div>%s</div></body></html>" % SIMPLE),
    ("two_tables", doc(SIMPLE), doc(SIMPLE.replace("a", "x") + SIMPLE)),
    ("empty_tables", doc("<table></table>"), doc("<table></table>")),
    ("empty_vs_simple", doc("<table></table>"), doc(SIMPLE)),
    ("implied_vs_explicit_tbody", doc(SIMPLE), doc(SIMPLE.replace("<table>", "<table><tbody>").replace("</table>", "</tbody></table>"))),
    ("thead_implied_body", doc("<table><thead><tr><th>h</th><th>v</th></tr></thead><tr><td>a</td><td>1</td></tr></table>"),
     doc("<table><thead><tr><td>h</td><td>v</td></tr></thead><tbody><tr><td>a</td><td>1</td></tr></tbody></table>")),
    ("unclosed_cells", doc(SIMPLE), doc("<table><tr><td>a<td>1.5<tr><td>b<td>2</table>")),
    ("td_in_table", doc(SIMPLE), doc("<table><td>a</td><td>1.5</td></table>")),
    ("comments", doc(SIMPLE), doc("<table><!-- c --><tr><td>a<!--x--></td><td>1.<!-- -->5</td></tr><tr><td>b</td><td>2</td></tr></table>")),
    ("upper_attrs", doc("<table><tr><td colspan='2'>a</td></tr><tr><td>b</td><td>2</td></tr></table>"),
     doc("<TABLE><TR><TD COLSPAN=' 2 ' colspan=3>a</TD></TR><TR><TD RowSpan=+01>b</TD><TD>2</TD></TR></TABLE>")),
    ("span_zero_pad", doc("<table><tr><td rowspan=2>a</td><td>1</td></tr><tr><td>2</td></tr></table>"),
     doc("<table><tr><td rowspan=02>a</td><td>1</td></tr><tr><td>2</td></tr></table>")),
    ("invalid_span", doc(SIMPLE), doc(SIMPLE.replace("<td>a", "<td colspan='2.0'>a"))),
    ("self_closing", doc(SIMPLE), doc("<table><tr><td>a<b/>x</td><td/><td>1.5</td></tr><tr><td>b<br/>c</td><td>2</td></tr></table>")),
    ("close_br_stray_p", doc(SIMPLE), doc("<table><tr><td>a</br>b</td><td>1.5</p></td></tr><tr><td><p>b</p></td><td>2</td></tr></table>")),
    ("misnested_inline", doc("<table><tr><td><b>a</b><i>x</i></td></tr></table>"), doc("<table><tr><td><b>a<i>x</b>y</i>z</td></tr></table>")),
    ("nested_table", doc("<table><tr><td>a<table><tr><td>in</td></tr></table>t</td><td>2</td></tr></table>"),
     doc("<table><tr><td>a<table><tbody><tr><td>in</td> </tr></tbody></table></td><td>2</td></tr></table>")),
    ("entities_ws", doc("<table><tr><td>a &amp; b</td><td>&lt;1&gt;</td></tr><tr><td>&nbsp;</td><td>x\ny</td></tr></table>"),
     doc("<table><tr><td>a & b</td><td> &lt;1&gt; </td></tr><tr><td> </td><td>x\r\ny</td></tr></table>")),
    ("th_bold_vs_td", doc("<table><tr><th><b>Name</b></th><th><b>Value</b></th></tr><tr><td>a</td><td>1</td></tr></table>"),
     doc("<table><tr><td><b>Name</b></td><td><b>Value</b></td></tr><tr><td>a</td><td>1</td></tr></table>")),
    ("caption_colgroup", doc("<table><caption>Table 1</caption><colgroup><col><col></colgroup><tr><td>a</td><td>1</td></tr></table>"),
     doc("<table><caption>Table 1.</caption><col><tr><td>a</td><td>1</td></tr></table>")),
    ("unk_and_sup", doc("<table><tr><td>x<sup>2</sup></td><td>H<sub>2</sub>O</td></tr></table>"),
     doc("<table><tr><td>x<unk>2</unk></td><td>H<span>2</span>O</td></tr></table>")),
    ("unicode_cells", doc("<table><tr><td>中文表格</td><td>µ ± σ</td></tr><tr><td>é</td><td>😀x</td></tr></table>"),
     doc("<table><tr><td>中文表</td><td>µ±σ</td></tr><tr><td>e</td><td>😀y</td></tr></table>")),
    ("long_cells", doc("<table><tr><td>%s</td><td>b</td></tr></table>" % ("lorem ipsum dolor sit amet " * 6)),
     doc("<table><tr><td>%s</td><td>b</td></tr></table>" % ("lorem ipsum dolr sit amet, " * 5))),
    ("script_in_cell", doc("<table><tr><td>a<script>x<tr></script></td></tr></table>"), doc("<table><tr><td>a</td></tr></table>")),
    ("noscript_image_nul", doc(SIMPLE), doc("<table><tr><td><noscript><b>a</b></noscript><image src=x>b</td><td>1\x00.5</td></tr></table>")),
    ("p_before_table_quirks", doc(SIMPLE), "<html><body><p>x<table><tr><td>a</td><td>1.5</td></tr></table></body></html>"),
    ("attr_with_gt", doc(SIMPLE), doc("<table><tr><td title='a>b'>a</td><td data-x=\"<tr>\">1.5</td></tr></table>")),
    ("pre_textarea_lists", doc("<table><tr><td><pre>\nx</pre></td><td><ul><li>a<li>b</ul></td></tr></table>"),
     doc("<table><tr><td><pre>x</pre></td><td><textarea><b>a</b></textarea><h1>a<h2>b</h2></h1></td></tr></table>")),
    ("unicode_spans", doc("<table><tr><td colspan=2>a</td></tr><tr><td>b</td><td>c</td></tr></table>"),
     doc("<table><tr><td colspan='\u00a02\u3000'>a</td></tr><tr><td rowspan='\u0661'>b</td><td>c</td></tr></table>")),
    # Content outside cells stays in place in libxml2 (an HTML5 parser would move it out).
    ("stray_element_in_table", doc(SIMPLE), doc("<table><b>x</b><tr><td>a</td><td>1.5</td></tr></table>")),
    ("stray_text_nested_table", doc(SIMPLE),
     doc("<table><tr><td>a<table><tr><td>in</td>zz</tr></table></td><td>1.5</td></tr></table>")),
    ("table_in_tr", doc(SIMPLE), doc("<table><tr><td>a</td><table><tr><td>1.5</td></tr></table></tr></table>")),
    ("div_spans_cells", doc(SIMPLE), doc("<table><tr><td><div>a<td>1.5</td></tr><tr><td>b</td><td>2</td></tr></table>")),
]


SOUP_CELL = ["x", "yz", " ", "<b>", "</b>", "<i>", "</i>", "<br>", "<p>", "</p>", "<span>",
             "</span>", "<div>", "</div>", "<sup>1</sup>", "&amp;", "<br/>", "<b/>"]


SOUP_ANY = [
    "x", " ", "\n", "yz", "&amp;", "&nbsp;", "&lt;", "<", "< ", "&am", "\r", "<b>", "</b>", "<i>",
    "</i>", "<br>", "<br/>", "</br>", "<p>", "</p>", '<span class="a">', "</span>", "<div>",
    "</div>", "<sup>", "</sup>", "<td>", "</td>", "<th>", "</th>", "<tr>", "</tr>",
    '<td colspan="2">', "<td rowspan=3>", "<thead>", "</thead>", "<tbody>", "</tbody>", "<tfoot>",
    "</tfoot>", "<table>", "</table>", "<caption>", "</caption>", "<colgroup>", "<col>",
    "</colgroup>", "<!-- c -->", "<!---->", "<script>a<b</script>", "<style>td{}</style>",
    "<title>t&amp;</title>", "<textarea><b></textarea>", "<html>", "</html>", "<body>", "</body>",
    "<head>", "</head>", "<meta charset=utf-8>", "<img src=x>", "<img/>", "<a href=x>", "</a>",
    "<ul>", "<li>", "</li>", "</ul>", "<h1>", "</h1>", "<pre>\n", "</pre>", "<font>", "</font>",
    "<form>", "</form>", "<select>", "<option>", "</select>", "<unk>", "</unk>", "<o:p>", "</o:p>",
    "<td/>", "<tr/>", "<b/>", "<?x?>", "<!doctype html>", "<wbr>", "<embed>", "<source>",
    "<input>", "<hr>", "<center>", "</center>", "<xmp><b></xmp>", "</foo>", "<foo>",
]


def soup_pair(rng, pid):
    """Malformed tag soup (unclosed or misnested cells, inline/block/structure tags)."""
    if rng.random() < 0.5:
        pred = "<html><body><table><tr><td>" + "".join(
            rng.choice(SOUP_ANY) for _ in range(rng.randint(3, 25)))
        return {"id": pid, "gt": doc(SIMPLE), "pred": pred}
    parts = []
    for _ in range(rng.randint(1, 3)):
        parts.append(rng.choice(["<tr>", "<tr>", ""]))
        for _ in range(rng.randint(1, 3)):
            parts.append(rng.choice(["<td>", "<th>", "<td colspan=2>", "<td>"]))
            parts += [rng.choice(SOUP_CELL) for _ in range(rng.randint(0, 5))]
            parts.append(rng.choice(["</td>", "</th>", "", "</td>"]))
        parts.append(rng.choice(["</tr>", ""]))
    pred = doc("<table>" + rng.choice(["", "<thead>", "<tbody>"]) + "".join(parts) + "</table>")
    return {"id": pid, "gt": doc(SIMPLE), "pred": pred}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--seed", type=int, default=20261202)
    ap.add_argument("--random", type=int, default=110, help="number of random pairs")
    ap.add_argument("--soup", type=int, default=100,
                    help="number of malformed tag-soup pairs (ids soupNNN)")
    args = ap.parse_args()
    rng = random.Random(args.seed)
    pairs = [{"id": pid, "gt": gt, "pred": pred} for pid, gt, pred in EDGE]
    for k in range(args.random):
        r = rng.random()
        if r < 0.5:
            rows, cols = rng.randint(2, 8), rng.randint(2, 6)
        elif r < 0.85:
            rows, cols = rng.randint(6, 16), rng.randint(3, 8)
        else:
            rows, cols = rng.randint(15, 30), rng.randint(4, 10)
        level = rng.choice([0.0, 0.5, 1.0, 1.0, 2.0])
        bare = rng.random() < 0.05
        pairs.append(random_pair(rng, "rand%03d" % k, rows, cols, level=level, bare=bare))
    soup_rng = random.Random(args.seed + 1)
    pairs += [soup_pair(soup_rng, "soup%03d" % k) for k in range(args.soup)]
    pairs.append(big_pair(rng, "big30x10", 30, 10))
    pairs.append(big_pair(rng, "big60x20", 60, 20))
    with open(args.out, "w", encoding="utf-8") as f:
        for p in pairs:
            f.write(json.dumps(p, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
