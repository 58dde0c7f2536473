"""Prints the robustness table of `bench/degrade.sh robustness` from the CSV files of
`report --robustness` it wrote (OUT/robustness-DATA-PROFILE.csv): per data set, provider and
headline metric, the clean mean and each profile's degraded mean with the paired delta, its
interval and p. Usage: degrade_table.py OUT DATASETS PROVIDERS CAP"""
import csv
import os
import sys

NAMES = {
    "papers": "GROBID gold papers (paper suite)",
    "tables": "pdf-parse-bench tables (table suite)",
    "omnidoc": "OmniDocBench demo (omnidoc suite)",
}
# The metrics the table shows per data set, where the suite wrote them (lower is better for
# edit distances, higher for the others).
HEADLINE = {
    "papers": ["text_f", "title_chr", "abstract_r"],
    "tables": ["teds", "text_f"],
    "omnidoc": ["text_edit", "table_teds"],
}
LOWER_BETTER = ("_edit",)


def num(v):
    try:
        return float(v)
    except (TypeError, ValueError):
        return None


def fmt(v, d=3):
    return "—" if v is None else f"{v:.{d}f}"


def main(out, datasets, providers, cap):
    print(f"\nRobustness (seed 1; page cap {cap} per data set; delta = degraded − clean, 95 % paired "
          "bootstrap interval, p two-sided sign-flip):\n")
    print("| data | provider | metric | pairs | clean | scan | photo |")
    print("|---|---|---|--:|--:|--:|--:|")
    for d in datasets.split(","):
        tables = {}
        for prof in ("scan", "photo"):
            path = os.path.join(out, f"robustness-{d}-{prof}.csv")
            if os.path.exists(path) and os.path.getsize(path) > 0:
                tables[prof] = list(csv.DictReader(open(path)))
        if not tables:
            print(f"| {NAMES.get(d, d)} | — | — | | no robustness table (see the logs) | | |")
            continue
        rows = [r for t in tables.values() for r in t]
        metrics = sorted({r["metric"] for r in rows})
        # A metric no pair scored (a header-only truth has no full text) is left out.
        scored = {r["metric"] for r in rows if (num(r["n"]) or 0) > 0}
        want = [m for m in HEADLINE.get(d, []) if m in scored] or sorted(scored)[:1]
        seen = sorted({r["provider"] for r in rows})
        for p in providers.split(","):
            names = [s for s in seen if s == p or s.startswith(p + "@")]
            if not names:
                print(f"| {NAMES.get(d, d)} | {p} | | | no scores (see the logs) | | |")
                continue
            for name in names:
                for m in want:
                    cells, clean, pairs = [], None, []
                    for prof in ("scan", "photo"):
                        r = next((r for r in tables.get(prof, []) if r["provider"] == name
                                  and r["metric"] == m), None)
                        if r is None:
                            cells.append("—")
                            continue
                        c, g, dl = num(r["clean"]), num(r["degraded"]), num(r["delta"])
                        clean = c if clean is None else clean
                        pairs.append(r["n"])
                        lo, hi, pv = num(r["delta_lo"]), num(r["delta_hi"]), num(r["p"])
                        cells.append(f"{fmt(g)} ({'+' if (dl or 0) >= 0 else ''}{fmt(dl)} "
                                     f"[{fmt(lo)}, {fmt(hi)}], p {fmt(pv, 2)})")
                    label = m + (" ↓" if m.endswith(LOWER_BETTER) else " ↑")
                    who = name
                    if name.startswith("pdfium"):
                        who += " — text layer only: a twin has none"
                    print(f"| {NAMES.get(d, d)} | {who} | {label} | {'/'.join(pairs)} | "
                          f"{fmt(clean)} | {cells[0]} | {cells[1]} |")
        print(f"\n{d}: metrics written: {', '.join(metrics)}", file=sys.stderr)


if __name__ == "__main__":
    main(*sys.argv[1:5])
