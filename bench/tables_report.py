"""Prints the table of bench/tables_vs_pymupdf4llm.sh from `corpus eval --suite table
--format json` summaries and the CPU seconds of each provider's `corpus ocr`.

    python bench/tables_report.py PAGES NAME=EVAL.json:CPU_S [NAME=EVAL.json:CPU_S ...]

Rows: every GT table of both datasets (`all`), then each complexity class (pdf-parse-bench's
`simple`, `moderate`, `complex`; `none` is ICDAR 2013's, which has no classes). Values are
means over GT tables (an unmatched table scores 0); det R = matched / GT tables.
"""

import json
import sys

COLS = [("teds", "TEDS"), ("grits_con_f", "GriTS-Con F"), ("value_acc", "value acc"), ("det_r", "det R")]


def figures(g):
    v = dict((k, x) for k, x in g["values"])
    return [v.get(k) for k, _ in COLS]


def fmt(x):
    return "–" if x is None else f"{x:.3f}"


def main() -> None:
    pages = int(sys.argv[1])
    runs = []
    for arg in sys.argv[2:]:
        name, rest = arg.split("=", 1)
        path, cpu = rest.rsplit(":", 1)
        with open(path, encoding="utf-8") as f:
            runs.append((name, json.load(f), float(cpu)))
    classes = sorted({c for _, s, _ in runs for c in s["by_complexity"]},
                     key=lambda c: ["simple", "moderate", "complex", "none"].index(c)
                     if c in ["simple", "moderate", "complex", "none"] else 9)
    head = ["provider", "tables", "n", "matched"] + [h for _, h in COLS] + ["pages/CPU-s"]
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for name, s, cpu in runs:
        groups = [("all", s["tables"])] + [(c, s["by_complexity"][c]) for c in classes
                                           if c in s["by_complexity"]]
        for label, g in groups:
            if label == "none":
                label = "icdar (no class)"
            rate = f"{pages / cpu:.1f}" if label == "all" and cpu > 0 else ""
            row = [name, label, str(g["tables"]), str(g["matched"])] + [fmt(x) for x in figures(g)]
            print("| " + " | ".join(row + [rate]) + " |")
    print()
    print(f"pages: {pages}; pages/CPU-s = pages / (user + sys CPU seconds of `corpus ocr`, "
          "its workers and the tools it runs)")


if __name__ == "__main__":
    main()
