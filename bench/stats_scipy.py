#!/usr/bin/env python3
"""Check `metrics::stats::paired` (issue 35) against SciPy on the same pairs.

Usage:
    python3 bench/stats_scipy.py CASES.json [--olmocr-utils DIR]   # cases written by bench/stats.sh
                                                 # (DIR: olmOCR-bench's utils.py, printed beside)
    python3 bench/stats_scipy.py --demo          # the hand cases of src/metrics/stats.rs's tests

Needs numpy and scipy (>= 1.11 for `permutation_test(..., rng=)`; written against 1.17.1):
    python3 -m venv /tmp/scipy-venv && /tmp/scipy-venv/bin/pip install scipy numpy

Input: one JSON object.

    {
      "level": 0.95,                 # optional, confidence level of the intervals (default 0.95)
      "resamples": 2000,             # optional, SciPy bootstrap resamples (default 9999)
      "seed": 0,                     # optional, seed of SciPy's generator (default 0)
      "cases": [
        {
          "name": "teds pdfium@3 vs layout@4",  # optional label
          "a": [0.5, 0.6, null, ...],   # baseline, one value per document
          "b": [0.6, 0.8, 0.9, ...],    # candidate, same documents in the same order
          "rust": {                     # what `paired(a, b, ...)` returned
            "p": 0.0625,                #   p-value
            "exact": true,              #   whether it was exact
            "permutations": 32,         #   2^n when exact, its Monte Carlo resamples otherwise
            "mean_diff": 3.0,           #   optional, mean of b - a
            "lo": 1.8, "hi": 4.2        #   optional, its bootstrap interval
          }
        }
      ]
    }

A `null` (or NaN) in `a` or `b` is a missing value; pairs with one are dropped, as Rust does.

Per case this prints SciPy's p-value of the paired sign-flip test,
`scipy.stats.permutation_test((b, a), lambda x, y: mean(x - y), permutation_type='samples',
alternative='two-sided')` -- exact (`n_resamples=inf`, all 2^n sign flips) when Rust's was, else
randomized with as many resamples as Rust used -- and SciPy's percentile bootstrap interval of
the mean difference (`scipy.stats.bootstrap((b - a,), np.mean, method='percentile')`), each
beside Rust's with the absolute difference.

Exit status 1 when any check fails:
  * an exact p-value differs from SciPy's by more than 1e-12;
  * a Monte Carlo p-value is further from SciPy's randomized one than 4 standard errors of
    their difference (both are estimates: each two-sided p is 2 * a proportion of N resamples,
    variance 4 q (1 - q) / N with q = p / 2; plus 2 / (N + 1) for the +1 in SciPy's formula);
  * the mean difference differs by more than 1e-12 (relative to max(1, |mean|)).
The bootstrap intervals use different random draws on each side, so their differences are
printed, in units of SciPy's bootstrap standard error, but never fail the run.
"""

import json
import math
import sys

import numpy as np
from scipy import stats

EXACT_TOL = 1e-12
MEAN_TOL = 1e-12

# The hand cases of src/metrics/stats.rs's tests (baseline 0, candidate = the differences) and
# the exact p-values the Rust tests assert.
DEMO = {
    "cases": [
        {"name": "1..5", "a": [0] * 5, "b": [1, 2, 3, 4, 5], "rust": {"p": 0.0625, "exact": True}},
        {"name": "1,-1,2,3", "a": [0] * 4, "b": [1, -1, 2, 3],
         "rust": {"p": 0.375, "exact": True}},
        {"name": "six", "a": [0] * 6, "b": [2, 2, 2, -1, 3, 1],
         "rust": {"p": 0.09375, "exact": True}},
        {"name": "ten ones", "a": [0] * 10, "b": [1] * 10,
         "rust": {"p": 0.001953125, "exact": True}},
        {"name": "rounding ties", "a": [0] * 4, "b": [0.1, 0.2, -0.3, 0.5],
         "rust": {"p": 0.625, "exact": True}},
        {"name": "eight small", "a": [0] * 8, "b": [0.05, -0.02, 0.1, 0.0, 0.03, -0.04, 0.07, 0.01],
         "rust": {"p": 0.203125, "exact": True}},
        {"name": "all equal", "a": [0] * 5, "b": [0] * 5, "rust": {"p": 1.0, "exact": True}},
    ]
}


def mean_diff(x, y, axis=-1):
    return np.mean(x - y, axis=axis)


def as_array(values):
    return np.array([math.nan if v is None else v for v in values], dtype=float)


def check_case(case, level, resamples, seed):
    """Print one case's comparison; return the list of failed checks."""
    a, b = as_array(case["a"]), as_array(case["b"])
    if a.shape != b.shape:
        return [f"a has {a.size} values, b {b.size}"]
    keep = np.isfinite(a) & np.isfinite(b)
    a, b = a[keep], b[keep]
    n = a.size
    rust = case.get("rust", {})
    name = case.get("name", "")
    failures = []
    print(f"== {name} (n = {n}, dropped {int((~keep).sum())})")
    if n == 0:
        return ["no pairs"]

    exact = bool(rust.get("exact", True))
    mc_resamples = int(rust.get("permutations", 9999)) if not exact else math.inf
    rng = np.random.default_rng(seed)
    res = stats.permutation_test(
        (b, a),
        mean_diff,
        vectorized=True,
        permutation_type="samples",
        alternative="two-sided",
        n_resamples=mc_resamples,
        batch=1 << 14,
        rng=rng,
    )
    p_scipy = float(res.pvalue)
    p_rust = rust.get("p")
    kind = "exact" if exact else f"Monte Carlo, {mc_resamples} resamples"
    if p_rust is None:
        print(f"  p: scipy {p_scipy!r} ({kind}); no Rust value")
    else:
        diff = abs(p_rust - p_scipy)
        if exact:
            ok = diff <= EXACT_TOL
            bound = f"tolerance {EXACT_TOL:g}"
        else:
            q = (p_rust + p_scipy) / 4.0
            se = math.sqrt(2.0 * 4.0 * q * (1.0 - q) / mc_resamples)
            limit = 4.0 * se + 2.0 / (mc_resamples + 1)
            ok = diff <= limit
            bound = f"4 SE = {4.0 * se:.3g} (+ {2.0 / (mc_resamples + 1):.2g})"
        print(f"  p: rust {p_rust!r} scipy {p_scipy!r} ({kind}) |diff| {diff:.3g} "
              f"[{bound}] {'ok' if ok else 'FAIL'}")
        if not ok:
            failures.append(f"p differs by {diff:.3g} ({kind})")

    observed = float(np.mean(b - a))
    if "mean_diff" in rust:
        diff = abs(rust["mean_diff"] - observed)
        ok = diff <= MEAN_TOL * max(1.0, abs(observed))
        print(f"  mean diff: rust {rust['mean_diff']!r} numpy {observed!r} |diff| {diff:.3g} "
              f"{'ok' if ok else 'FAIL'}")
        if not ok:
            failures.append(f"mean difference differs by {diff:.3g}")

    if n > 1:
        boot = stats.bootstrap(
            (b - a,),
            np.mean,
            method="percentile",
            confidence_level=level,
            n_resamples=resamples,
            rng=np.random.default_rng(seed),
        )
        lo, hi = float(boot.confidence_interval.low), float(boot.confidence_interval.high)
        se = float(boot.standard_error)
        line = f"  {level:g} interval: scipy [{lo!r}, {hi!r}] (bootstrap SE {se:.3g})"
        if "lo" in rust and "hi" in rust:
            dlo, dhi = abs(rust["lo"] - lo), abs(rust["hi"] - hi)
            in_se = (f" = {dlo / se:.2f}, {dhi / se:.2f} SE" if se > 0 else "")
            line += (f"; rust [{rust['lo']!r}, {rust['hi']!r}] |diff| {dlo:.3g}, {dhi:.3g}"
                     f"{in_se} (different draws: informational)")
        print(line)
    return failures


def olmocr_peer(utils_dir, data):
    """Prints olmOCR-bench's own statistics on each case, from its utils.py (read where it
    lies, not copied): calculate_bootstrap_ci of the candidate's scores and
    perform_permutation_test of baseline against candidate. Both are unpaired and drawn with
    NumPy's global generator, so they are shown beside ours, never compared for equality."""
    sys.path.insert(0, utils_dir)
    import utils as olm  # noqa: E402 (olmOCR-bench's utils.py)

    np.random.seed(0)
    print("\nolmOCR-bench's utils.py on the same scores (unpaired, NumPy's global generator):")
    for case in data["cases"]:
        a, b = as_array(case["a"]), as_array(case["b"])
        keep = ~(np.isnan(a) | np.isnan(b))
        a, b = a[keep].tolist(), b[keep].tolist()
        lo, hi = olm.calculate_bootstrap_ci(b, n_bootstrap=1000)
        diff, p = olm.perform_permutation_test(b, a, n_permutations=10000)
        rust = case["rust"]
        print(
            f"  {case.get('name', '?')}: candidate CI [{lo:.4f}, {hi:.4f}], "
            f"unpaired p = {p:.4f} (diff {diff:+.4f}); ours paired p = {rust['p']:.4g}"
        )


def main(argv):
    olmocr_utils = None
    if "--olmocr-utils" in argv:
        i = argv.index("--olmocr-utils")
        olmocr_utils = argv[i + 1]
        argv = argv[:i] + argv[i + 2 :]
    if len(argv) != 2 or argv[1] in ("-h", "--help"):
        print(__doc__)
        return 2
    if argv[1] == "--demo":
        data = DEMO
    else:
        with open(argv[1], encoding="utf-8") as f:
            data = json.load(f)
    level = float(data.get("level", 0.95))
    resamples = int(data.get("resamples", 9999))
    seed = int(data.get("seed", 0))
    failed = []
    for i, case in enumerate(data["cases"]):
        for failure in check_case(case, level, resamples, seed):
            failed.append(f"{case.get('name', i)}: {failure}")
    if olmocr_utils:
        olmocr_peer(olmocr_utils, data)
    print()
    if failed:
        print(f"{len(failed)} check(s) failed:")
        for f in failed:
            print(f"  {f}")
        return 1
    print(f"all {len(data['cases'])} case(s) agree with SciPy {__import__('scipy').__version__}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
