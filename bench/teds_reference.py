#!/usr/bin/env python3
"""Reference TEDS / TEDS-S for the cross-check: a harness that follows PubTabNet's
`src/metric.py` (class TEDS; OmniDocBench `metrics/table_metric.py` is a verbatim copy using
python-Levenshtein), written from its description in docs/table-metrics.md §1 on top of the same
libraries: lxml (parsing), apted (tree edit distance), Levenshtein or distance (cells).

  score PAIRS.jsonl [--lev levenshtein|distance] [--ids a,b] [--times]
      -> one JSON line per pair: {"id", "teds", "teds_s", "error", "cpu_full", "cpu_struct"}
  compare REF.jsonl RUST.jsonl
      -> max |difference| per metric and every pair that differs by more than 1e-9
  speed REF.jsonl BENCH.txt
      -> reference CPU seconds vs the Rust bench_teds figures for the same pairs, and ratios

Failures (exceptions) are recorded in "error" and scored 0.0, as OmniDocBench's call_TEDS does.
"""

import argparse
import json
import sys
import time

from apted import APTED, Config
from lxml import html


class TableNode:
    """A node of the tree APTED compares (PubTabNet's TableTree)."""

    def __init__(self, tag, colspan, rowspan, content, children):
        self.tag = tag
        self.colspan = colspan
        self.rowspan = rowspan
        self.content = content
        self.children = children


class PubTabNetCosts(Config):
    """insert = delete = 1 (apted defaults); rename as in CustomConfig."""

    def __init__(self, lev):
        self.lev = lev

    def rename(self, a, b):
        if a.tag != b.tag or a.colspan != b.colspan or a.rowspan != b.rowspan:
            return 1.0
        if a.tag == "td" and (a.content or b.content):
            return float(self.lev(a.content, b.content)) / max(len(a.content), len(b.content))
        return 0.0

    def children(self, node):
        return node.children


def cell_tokens(td):
    """Tokens of a td: chars, '<tag>' ... '</tag>' (none for 'unk'), tails except a td's;
    then the td's own '<td>' and '</td>' are cut off."""
    tokens = []

    def walk(el):
        tokens.append("<%s>" % el.tag)
        if el.text is not None:
            tokens.extend(el.text)
        for child in el.getchildren():
            walk(child)
        if el.tag != "unk":
            tokens.append("</%s>" % el.tag)
        if el.tag != "td" and el.tail is not None:
            tokens.extend(el.tail)

    walk(td)
    return tokens[1:-1]


def to_tree(el, structure_only):
    if el.tag == "td":
        content = [] if structure_only else cell_tokens(el)
        return TableNode("td", int(el.attrib.get("colspan", "1")),
                         int(el.attrib.get("rowspan", "1")), content, [])
    return TableNode(el.tag, None, None, None,
                     [to_tree(c, structure_only) for c in el.getchildren()])


def teds(pred, true, structure_only, lev):
    if not pred or not true:
        return 0.0
    parser = html.HTMLParser(remove_comments=True, encoding="utf-8")
    pred = html.fromstring(pred, parser=parser)
    true = html.fromstring(true, parser=parser)
    if not (pred.xpath("body/table") and true.xpath("body/table")):
        return 0.0
    pred = pred.xpath("body/table")[0]
    true = true.xpath("body/table")[0]
    n_nodes = max(len(pred.xpath(".//*")), len(true.xpath(".//*")))
    distance = APTED(to_tree(pred, structure_only), to_tree(true, structure_only),
                     PubTabNetCosts(lev)).compute_edit_distance()
    return 1.0 - float(distance) / n_nodes


def timed(pred, gt, structure_only, lev):
    t0 = time.process_time()
    try:
        value, error = teds(pred, gt, structure_only, lev), None
    except Exception as e:  # noqa: BLE001 - recorded, scored 0 like OmniDocBench
        value, error = 0.0, "%s: %s" % (type(e).__name__, e)
    return value, error, time.process_time() - t0


def cmd_score(args):
    if args.lev == "distance":
        import distance
        lev = distance.levenshtein
    else:
        import Levenshtein
        lev = Levenshtein.distance
    ids = set(args.ids.split(",")) if args.ids else None
    with open(args.pairs, encoding="utf-8") as f:
        for line in f:
            p = json.loads(line)
            if ids is not None and p["id"] not in ids:
                continue
            full, err_full, cpu_full = timed(p["pred"], p["gt"], False, lev)
            struct, err_struct, cpu_struct = timed(p["pred"], p["gt"], True, lev)
            out = {"id": p["id"], "teds": full, "teds_s": struct, "error": err_full or err_struct,
                   "cpu_full": cpu_full, "cpu_struct": cpu_struct}
            print(json.dumps(out), flush=True)
            if args.times:
                print("%-12s TEDS %.12f (%.3f s CPU)  TEDS-S %.12f (%.3f s CPU)"
                      % (p["id"], full, cpu_full, struct, cpu_struct), file=sys.stderr)


def load(path):
    with open(path, encoding="utf-8") as f:
        return {r["id"]: r for r in map(json.loads, f)}


def cmd_compare(args):
    ref, rust = load(args.ref), load(args.rust)
    missing = sorted(set(ref) - set(rust))
    worst = {"teds": 0.0, "teds_s": 0.0}
    bad = []
    identical = 0
    for pid, r in ref.items():
        if pid not in rust:
            continue
        same = True
        for k in worst:
            d = abs(r[k] - rust[pid][k])
            worst[k] = max(worst[k], d)
            same &= r[k] == rust[pid][k]
            if d > 1e-9:
                bad.append((pid, k, r[k], rust[pid][k], r.get("error"), rust[pid].get("error")))
        identical += same
    n = sum(1 for pid in ref if pid in rust)
    print("pairs compared: %d (bit-identical on both metrics: %d)" % (n, identical))
    print("reference errors (scored 0.0): %d" % sum(1 for r in ref.values() if r.get("error")))
    print("max |dTEDS| = %.3g   max |dTEDS-S| = %.3g" % (worst["teds"], worst["teds_s"]))
    for row in bad:
        print("MISMATCH %s %s ref=%r rust=%r ref_error=%r rust_error=%r" % row)
    if missing:
        print("missing from rust output: %s" % ", ".join(missing))
    return 1 if bad or missing else 0


def cmd_speed(args):
    ref = load(args.ref)
    rust = {}
    with open(args.bench, encoding="utf-8") as f:
        for line in f:
            parts = line.split()
            if len(parts) == 4 and parts[1].endswith("_ms"):
                rust[(parts[0], parts[1])] = {k: float(v) for k, v in (p.split("=") for p in parts[2:])}
    print("%-10s %-7s %14s %16s %16s %9s" % ("pair", "metric", "python CPU s", "rust CPU ms", "rust wall ms", "ratio"))
    for pid in sorted({p for p, _ in rust}):
        for label, py_key, rust_key in (("TEDS", "cpu_full", "teds_html_full_ms"),
                                        ("TEDS-S", "cpu_struct", "teds_html_struct_ms")):
            if pid not in ref or (pid, rust_key) not in rust:
                continue
            py = ref[pid][py_key]
            r = rust[(pid, rust_key)]
            print("%-10s %-7s %14.3f %16.3f %16.3f %8.0fx" % (pid, label, py, r["cpu_mean"],
                                                             r["wall_best"], py * 1e3 / r["cpu_mean"]))


def main():
    ap = argparse.ArgumentParser(description="TEDS reference harness")
    sub = ap.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("score")
    s.add_argument("pairs")
    s.add_argument("--lev", choices=["levenshtein", "distance"], default="levenshtein")
    s.add_argument("--ids")
    s.add_argument("--times", action="store_true")
    c = sub.add_parser("compare")
    c.add_argument("ref")
    c.add_argument("rust")
    sp = sub.add_parser("speed")
    sp.add_argument("ref")
    sp.add_argument("bench")
    args = ap.parse_args()
    sys.exit({"score": cmd_score, "compare": cmd_compare, "speed": cmd_speed}[args.cmd](args))


if __name__ == "__main__":
    main()
