"""The table-metric study's recorded correlations, recomputed with SciPy from the study file
and compared with `corpus correlate --study --format json` (bench/table_study.sh).

The pairs are those corpus reads: every extraction with at least one human score and a
non-empty table; the reference is the mean of its human scores. Judges' scores are read where
their prompt_variant is "tuned" or absent, as corpus reads them by default."""
import json
import sys

from scipy import stats


def main(study_path, corr_path):
    study = json.load(open(study_path))
    ours = {r["metric"]: r for r in json.load(open(corr_path))}
    human, columns = [], {}
    for gt in study:
        for ex in gt["extractions"]:
            hs = [h for h in ex.get("human_scores") or [] if isinstance(h, (int, float))]
            if not hs or not (ex.get("extracted_table") or "").strip():
                continue
            i = len(human)
            human.append(sum(hs) / len(hs))
            for k, v in (ex.get("metrics") or {}).items():
                columns.setdefault(f"{k} (recorded)", {})[i] = v
            for s in ex.get("llm_scores") or []:
                if s.get("prompt_variant") not in (None, "tuned"):
                    continue
                columns.setdefault(f"judge:{s['judge_model']} (recorded)", {})[i] = s["score"]
    worst = 0.0
    print(f"{'column':55s} {'n':>4s} {'pearson':>9s} {'scipy':>9s} {'spearman':>9s} {'scipy':>9s} {'kendall':>9s} {'scipy':>9s}")
    for name, col in columns.items():
        idx = sorted(col)
        x = [col[i] for i in idx]
        y = [human[i] for i in idx]
        ref = (stats.pearsonr(x, y)[0], stats.spearmanr(x, y)[0], stats.kendalltau(x, y)[0])
        r = ours.get(name)
        if r is None:
            print(f"{name}: not in corpus's output")
            sys.exit(1)
        got = (r["pearson"], r["spearman"], r["kendall"])
        if r["n"] != len(x):
            print(f"{name}: n {r['n']} in corpus, {len(x)} here")
            sys.exit(1)
        for a, b in zip(got, ref):
            worst = max(worst, abs(a - b))
        print(f"{name:55s} {len(x):4d} {got[0]:9.6f} {ref[0]:9.6f} {got[1]:9.6f} {ref[1]:9.6f} {got[2]:9.6f} {ref[2]:9.6f}")
    print(f"largest difference from SciPy over {len(columns)} recorded columns: {worst:.2e}")
    if worst > 1e-9:
        sys.exit(1)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
