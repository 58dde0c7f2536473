"""Per-rule and per-case agreement between ParseBench's evaluator and corpus
(bench/parsebench_agreement.sh). Standard library only.

Usage: parsebench_compare.py REFERENCE_JSON PROVIDER=CORPUS_EVAL_JSON...
"""

import json
import sys

EPS = 1e-9
# The table dimension's per-case figures (ParseEvaluator's table metrics).
TABLE_METRICS = (
    "grits_con", "table_record_match", "table_record_match_perfect", "grits_trm_composite", "tables_expected", "tables_actual",
    "tables_unparseable_pred", "tables_paired", "tables_unmatched_expected", "tables_unmatched_pred",
)


def corpus_results(s):
    rules, cases = {}, {}
    for d in s["documents_scored"]:
        for c in d["cases"]:
            for r in c["rules"]:
                if "passed" in r:
                    rules[r["id"]] = r
            if c["metrics"]:
                cases[f"{c['category']}:{d['document']}"] = c["metrics"]
    return rules, cases


def main():
    ref = json.load(open(sys.argv[1]))
    total = agree = not_run = 0
    mtotal = magree = 0
    lines = []
    for arg in sys.argv[2:]:
        provider, path = arg.split("=", 1)
        rules, cases = corpus_results(json.load(open(path)))
        r = ref[provider]
        for rid, want in sorted(r["rules"].items()):
            got = rules.get(rid)
            if got is None:
                not_run += 1
                continue
            total += 1
            same = got["passed"] == want["passed"] and abs(got["score"] - want["score"]) < EPS
            agree += same
            if not same:
                lines.append(
                    f"  {provider} {rid} ({want['type']}): ParseBench {want['passed']} {want['score']:.6f}"
                    f" [{want['explanation'][:120]}], corpus {got['passed']} {got['score']:.6f}"
                    f" [{got['explanation'][:120]}]"
                )
        for key, figs in sorted(r["cases"].items()):
            mine = cases.get(key, {})
            for m, v in sorted(figs.items()):
                if not (m.startswith(("rule_", "normalized_", "layout_")) or m in (
                    "content_faithfulness", "semantic_formatting") or m in TABLE_METRICS):
                    continue
                mtotal += 1
                ok = m in mine and abs(mine[m] - v) < EPS
                magree += ok
                if not ok:
                    lines.append(f"  {provider} {key} {m}: ParseBench {v}, corpus {mine.get(m)}")
    print(f"rules: {agree}/{total} agree ({100.0 * agree / max(total, 1):.1f}%); "
          f"{not_run} rule results of types corpus does not run")
    print(f"per-case metrics: {magree}/{mtotal} agree ({100.0 * magree / max(mtotal, 1):.1f}%)")
    for l in lines:
        print(l)
    sys.exit(0 if agree == total and magree == mtotal else 1)


if __name__ == "__main__":
    main()
