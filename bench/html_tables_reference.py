"""Random HTML tables (fixed seed): compare the cell specs the Rust parser (html5ever) extracts
with what olmOCR's parse_html_tables extracts through BeautifulSoup's html.parser.

  python html_tables_reference.py gen N > cases.jsonl
  python html_tables_reference.py compare cases.jsonl rust.jsonl [--wellformed-only]
"""
import json
import random
import sys


def cell(rng, heading):
    tag = "th" if heading or rng.random() < 0.1 else "td"
    attrs = ""
    if rng.random() < 0.2:
        attrs += f' rowspan="{rng.choice(["2", "3", "0", " 2 ", "x", "-1", ""])}"'
    if rng.random() < 0.2:
        attrs += f' colspan="{rng.choice(["2", "3", "1", "0", "abc"])}"'
    text = rng.choice(["a", "1,136", "Sales", "Q1 &amp; Q2", "x<br>y", "<b>bold</b> t", " pad ",
                       "<i>it</i><br/>z", "αβγ", "", "a  b", "<span>s</span>"])
    return f"<{tag}{attrs}>{text}</{tag}>"


def table(rng, depth=0):
    rows = []
    use_thead = rng.random() < 0.4
    n_rows, n_cols = rng.randint(1, 5), rng.randint(1, 4)
    for r in range(n_rows):
        cells = "".join(cell(rng, use_thead and r == 0) for _ in range(n_cols))
        if depth == 0 and rng.random() < 0.05:
            cells += f"<td>{table(rng, 1)}</td>"
        rows.append(f"<tr>{cells}</tr>")
    if use_thead:
        body = f"<thead>{rows[0]}</thead><tbody>{''.join(rows[1:])}</tbody>"
    else:
        body = "".join(rows)
    return f"<table>{body}</table>"


def gen(n):
    rng = random.Random(2026)
    for _ in range(n):
        parts = []
        for _ in range(rng.randint(1, 3)):
            parts.append(rng.choice(["Some text.", "| md | table |", "x < y and y > z", "\n\n"]))
            parts.append(table(rng))
        doc = "\n".join(parts)
        # Every 10th document drops its closing cell/row tags (reported separately).
        if _ % 10 == 9:
            doc = doc.replace("</td>", "").replace("</th>", "").replace("</tr>", "")
        print(json.dumps(doc, ensure_ascii=False))


def reference_specs(html):
    from bs4 import BeautifulSoup

    def safe(v):
        if v in (None, "", 0):
            return 1
        try:
            s = int(v)
        except (TypeError, ValueError):
            return 1
        return s if s > 0 else 1

    out = []
    soup = BeautifulSoup(html, "html.parser")
    for t in soup.find_all("table"):
        rows = t.find_all("tr")
        if not rows:
            continue
        specs = []
        for r, row in enumerate(rows):
            head = row.find_parent("thead") is not None
            spec = []
            for c in row.find_all(["th", "td"], recursive=False):
                for br in c.find_all("br"):
                    br.replace_with("\n")
                text = c.get_text(separator="").strip()
                raw = c.get("rowspan")
                rs, cs = safe(raw), safe(c.get("colspan"))
                if isinstance(raw, str) and raw.strip() == "0":
                    rs = max(1, len(rows) - r)
                spec.append([text, rs, cs, c.name == "th" or head])
            specs.append(spec)
        out.append(specs)
    return out


def compare(cases_path, rust_path):
    cases = [json.loads(l) for l in open(cases_path, encoding="utf-8")]
    rust = [json.loads(l) for l in open(rust_path, encoding="utf-8")]
    bad_all = [i for i, (c, r) in enumerate(zip(cases, rust)) if reference_specs(c) != r]
    malformed = [i for i in range(len(cases)) if i % 10 == 9]
    bad = [i for i in bad_all if i % 10 != 9]
    print(f"documents without closing td/th/tr tags: {len(malformed)}, "
          f"{sum(1 for i in bad_all if i % 10 == 9)} differ")
    for i in bad[:5]:
        print(f"  case {i}: {cases[i][:300]!r}\n    rust {json.dumps(rust[i])[:300]}\n    ref  {json.dumps(reference_specs(cases[i]))[:300]}")
    print(f"{len(cases)} HTML documents, {len(bad)} with different table cell specs")
    return 1 if bad else 0


if __name__ == "__main__":
    if sys.argv[1] == "gen":
        gen(int(sys.argv[2]))
    else:
        sys.exit(compare(sys.argv[2], sys.argv[3]))
