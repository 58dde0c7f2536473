//! `corpus gate`: does a candidate score significantly worse than a baseline, beyond what each
//! metric allows? (`docs/statistics.md` §4.)
//!
//! For each gated metric the documents both sides scored are paired. With `d = candidate −
//! baseline` (the metric's sign turned for metrics where lower is better, so that `d < 0` is
//! always a loss) and the allowed drop `δ`, the gate tests the shifted differences `d + δ` with
//! a one-sided paired sign-flip test ([`crate::metrics::stats::one_sided_less`]): exact where
//! the non-zero differences are few, else drawn until the verdict does not depend on the seed.
//! Holm's step-down correction runs across the gate's metrics: the candidate regresses on a
//! metric whose shifted mean is below zero and whose Holm-adjusted p-value is below `alpha`.
//! A metric whose documents are too few for any loss to reach significance (including none) is
//! undecided, never passed. An unchanged re-run (every `d` = 0) never regresses; a drop smaller
//! than `δ`, or one the documents cannot tell from noise, passes.

use polars::prelude::*;

use super::Ci;
use crate::metrics::stats::{holm, one_sided_less, paired, Interval};

/// One metric the gate checks, with the drop it allows.
#[derive(Debug, Clone, PartialEq)]
pub struct GateMetric {
    /// Metric id.
    pub metric: String,
    /// The largest mean drop allowed, in the metric's units (≥ 0).
    pub max_drop: f64,
}

impl GateMetric {
    /// Parses `teds` (with `default_drop`) or `teds:0.005`.
    pub fn parse(s: &str, default_drop: f64) -> Result<GateMetric, String> {
        let (m, d) = match s.split_once(':') {
            Some((m, d)) => {
                let d: f64 = d.parse().map_err(|_| format!("{s:?}: expected METRIC[:MAX_DROP]"))?;
                (m, d)
            }
            None => (s, default_drop),
        };
        if m.is_empty() || !(d.is_finite() && d >= 0.0) {
            return Err(format!("{s:?}: expected METRIC[:MAX_DROP] with MAX_DROP ≥ 0"));
        }
        Ok(GateMetric { metric: m.to_string(), max_drop: d })
    }
}

/// What the gate concluded on one metric.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// Not worse beyond the allowance, or not significantly.
    Pass,
    /// Worse beyond the allowance, significantly after Holm's correction.
    Regressed,
    /// Too few paired documents for any loss to be significant: no verdict.
    Undecided,
}

impl Outcome {
    /// `pass`, `regressed` or `undecided`.
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Pass => "pass",
            Outcome::Regressed => "regressed",
            Outcome::Undecided => "undecided",
        }
    }
}

/// The verdict on one metric.
#[derive(Debug, Clone, PartialEq)]
pub struct GateResult {
    /// Metric id and allowed drop.
    pub gate: GateMetric,
    /// Whether lower values are better for this metric.
    pub lower_is_better: bool,
    /// Documents paired.
    pub n: usize,
    /// The fewest paired documents with which a loss could be significant ([`min_documents`]).
    pub min_n: usize,
    /// Documents with a value on one side only, left out.
    pub dropped: usize,
    /// Means of the baseline and the candidate over the pairs.
    pub baseline: Option<f64>,
    /// See `baseline`.
    pub candidate: Option<f64>,
    /// Mean of candidate − baseline (in the metric's own direction).
    pub diff: Option<f64>,
    /// Its paired bootstrap interval.
    pub ci: Option<Interval>,
    /// One-sided p-value of "the loss exceeds the allowed drop"; `None` when undecided.
    pub p: Option<f64>,
    /// `p` adjusted by Holm's method across the gate's decided metrics.
    pub p_holm: Option<f64>,
    /// Whether `p` enumerated every sign assignment; `None` when undecided.
    pub exact: Option<bool>,
    /// Sign assignments behind `p`.
    pub flips: u64,
    /// The verdict.
    pub outcome: Outcome,
    /// Whether the candidate regressed: worse beyond the allowance, significantly.
    pub regressed: bool,
    /// The one-line reason.
    pub reason: String,
    /// Documents whose value got worse, worst first: (dataset, document, baseline, candidate).
    pub losses: Vec<(String, String, f64, f64)>,
}

/// The fewest paired documents with which a gate of `metrics` metrics at level `alpha` could
/// ever fail one: the smallest one-sided sign-flip p-value of `n` documents is `2^-n` (every
/// one of them lost beyond the allowance), and Holm's first step compares the smallest p with
/// `alpha / metrics`, so `n` must satisfy `2^-n < alpha / metrics`.
pub fn min_documents(alpha: f64, metrics: usize) -> usize {
    let bar = alpha / metrics.max(1) as f64;
    let mut n = 0;
    while 0.5f64.powi(n as i32) >= bar && n < 1100 {
        n += 1;
    }
    n
}

/// One metric's pairs, in the better-is-higher direction.
struct Pairs {
    base: Vec<f64>,
    cand: Vec<f64>,
    dropped: usize,
    losses: Vec<(String, String, f64, f64)>,
}

/// The pairs of metric `g` in a comparison's rows.
fn pairs_of(rows: &DataFrame, g: &GateMetric, sign: f64) -> PolarsResult<Pairs> {
    let dataset = rows.column("dataset")?.str()?;
    let document = rows.column("document")?.str()?;
    let metric = rows.column("metric")?.str()?;
    let a = rows.column("a")?.cast(&DataType::Float64)?;
    let b = rows.column("b")?.cast(&DataType::Float64)?;
    let (a, b) = (a.f64()?, b.f64()?);
    let mut p = Pairs { base: Vec::new(), cand: Vec::new(), dropped: 0, losses: Vec::new() };
    for i in 0..rows.height() {
        if metric.get(i) != Some(g.metric.as_str()) {
            continue;
        }
        match (a.get(i), b.get(i)) {
            (Some(x), Some(y)) => {
                p.base.push(x);
                p.cand.push(y);
                if sign * (y - x) < 0.0 {
                    let name = |c: &StringChunked| c.get(i).unwrap_or("").to_string();
                    p.losses.push((name(dataset), name(document), x, y));
                }
            }
            _ => p.dropped += 1,
        }
    }
    p.losses.sort_by(|p, q| (sign * (p.3 - p.2)).total_cmp(&(sign * (q.3 - q.2))));
    Ok(p)
}

/// Runs the gate on a comparison's rows (`dataset`, `document`, `metric`, `a` = baseline, `b` =
/// candidate; [`super::compare`]'s per-document frame), at significance `alpha`. `ci` gives the
/// bootstrap of the intervals and the seed of the sign flips (whose count is the test's own).
pub fn gate(
    rows: &DataFrame,
    metrics: &[GateMetric],
    alpha: f64,
    ci: &Ci,
) -> PolarsResult<Vec<GateResult>> {
    let m = metrics.len();
    let min_n = min_documents(alpha, m);
    // Holm compares the k-th smallest p with α / (m − k + 1): settle each p against all of them.
    let thresholds: Vec<f64> = (1..=m.max(1)).map(|j| alpha / j as f64).collect();
    let mut out = Vec::with_capacity(m);
    for g in metrics {
        let lower = crate::metrics::lower_is_better(&g.metric);
        let sign = if lower { -1.0 } else { 1.0 };
        let Pairs { base: xa, cand: xb, dropped, losses } = pairs_of(rows, g, sign)?;
        let n = xa.len();
        let mean = |v: &[f64]| (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64);
        let plain = paired(&xa, &xb, ci.resamples, ci.level, ci.seed);
        // In the better-is-higher direction, shifted by the allowance: loss beyond δ ⇔ mean < 0.
        let shifted: Vec<f64> =
            xa.iter().zip(&xb).map(|(x, y)| sign * (y - x) + g.max_drop).collect();
        let test = (n >= min_n).then(|| one_sided_less(&shifted, &thresholds, ci.seed)).flatten();
        out.push(GateResult {
            gate: g.clone(),
            lower_is_better: lower,
            n,
            min_n,
            dropped,
            baseline: mean(&xa),
            candidate: mean(&xb),
            diff: plain.as_ref().map(|s| s.mean_diff),
            ci: plain.as_ref().map(|s| s.ci),
            p: test.map(|t| t.p),
            p_holm: None,
            exact: test.map(|t| t.exact),
            flips: test.map_or(0, |t| t.flips),
            outcome: if test.is_some() { Outcome::Pass } else { Outcome::Undecided },
            regressed: false,
            reason: String::new(),
            losses,
        });
        let r = out.last_mut().expect("just pushed");
        r.regressed = mean(&shifted).is_some_and(|s| s < 0.0);
    }
    let ps: Vec<f64> = out.iter().map(|r| r.p.unwrap_or(f64::NAN)).collect();
    for (r, adjusted) in out.iter_mut().zip(holm(&ps)) {
        r.p_holm = (!adjusted.is_nan()).then_some(adjusted);
        let loses = r.regressed;
        r.regressed = loses && r.p_holm.is_some_and(|p| p < alpha);
        if r.regressed {
            r.outcome = Outcome::Regressed;
        }
        r.reason = reason(r, alpha, m, loses);
    }
    Ok(out)
}

/// The one-line reason of a result; `loses`: the shifted mean is below zero.
fn reason(r: &GateResult, alpha: f64, metrics: usize, loses: bool) -> String {
    let name = &r.gate.metric;
    if r.n == 0 {
        return format!(
            "{name}: cannot decide: no document has both a baseline and a candidate value ({} one-sided)",
            r.dropped
        );
    }
    let (Some(p), Some(p_holm), Some(diff), Some(ci)) = (r.p, r.p_holm, r.diff, r.ci) else {
        let bar = if metrics > 1 {
            format!(
                "α/{metrics} = {:.4} (Holm's first step over {metrics} metrics)",
                alpha / metrics as f64
            )
        } else {
            format!("α = {alpha}")
        };
        return format!(
            "{name}: cannot decide: {} paired document(s); the smallest one-sided p-value of n documents is 2^-n, below {bar} only from {} documents",
            r.n, r.min_n
        );
    };
    let verdict = if r.regressed {
        "worse beyond the allowed drop"
    } else if loses {
        "lower beyond the allowed drop, but not significantly"
    } else {
        "within the allowed drop"
    };
    let how =
        if r.exact == Some(true) { "exact".to_string() } else { format!("{} sign flips", r.flips) };
    let holm = if metrics > 1 { format!(", Holm {p_holm:.4}") } else { String::new() };
    format!(
        "{name}: {verdict}: {diff:+.4} [{:+.4}, {:+.4}] over {} documents (allowed −{}{}), one-sided p = {p:.4} ({how}{holm}; α = {alpha})",
        ci.lo,
        ci.hi,
        r.n,
        r.gate.max_drop,
        if r.lower_is_better { ", lower is better" } else { "" },
    )
}

/// The gate's results as JSON: `{"regressed": bool, "alpha", "metrics": [...]}`, each metric
/// with its numbers, reason and per-document losses.
pub fn to_json(
    results: &[GateResult],
    alpha: f64,
    baseline: &str,
    candidate: &str,
) -> serde_json::Value {
    let metrics: Vec<serde_json::Value> = results
        .iter()
        .map(|r| {
            serde_json::json!({
                "metric": r.gate.metric,
                "max_drop": r.gate.max_drop,
                "lower_is_better": r.lower_is_better,
                "n": r.n,
                "dropped": r.dropped,
                "baseline": r.baseline,
                "candidate": r.candidate,
                "diff": r.diff,
                "diff_lo": r.ci.map(|c| c.lo),
                "diff_hi": r.ci.map(|c| c.hi),
                "min_n": r.min_n,
                "p": r.p,
                "p_holm": r.p_holm,
                "exact": r.exact,
                "flips": r.flips,
                "outcome": r.outcome.as_str(),
                "regressed": r.regressed,
                "reason": r.reason,
                "losses": r.losses.iter().map(|(ds, d, a, b)| serde_json::json!({
                    "dataset": ds, "document": d, "baseline": a, "candidate": b
                })).collect::<Vec<_>>(),
            })
        })
        .collect();
    serde_json::json!({
        "baseline": baseline,
        "candidate": candidate,
        "alpha": alpha,
        "regressed": results.iter().any(|r| r.regressed),
        "undecided": results.iter().filter(|r| r.outcome == Outcome::Undecided).count(),
        "outcome": overall(results).as_str(),
        "metrics": metrics,
    })
}

/// The gate's verdict over all its metrics: regressed if any metric regressed, else undecided
/// if any is undecided, else pass.
pub fn overall(results: &[GateResult]) -> Outcome {
    if results.iter().any(|r| r.outcome == Outcome::Regressed) {
        Outcome::Regressed
    } else if results.iter().any(|r| r.outcome == Outcome::Undecided) {
        Outcome::Undecided
    } else {
        Outcome::Pass
    }
}

/// Escapes text for XML.
fn xml(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

/// The gate's results as a JUnit XML report, as CI systems read it: one `testsuite` named
/// after the comparison, one `testcase` per metric, a `failure` (its message the reason, its
/// body the documents that lost most) where the candidate regressed, a `skipped` (its message
/// the reason) where the gate cannot decide.
pub fn to_junit(results: &[GateResult], baseline: &str, candidate: &str, limit: usize) -> String {
    let failures = results.iter().filter(|r| r.regressed).count();
    let skipped = results.iter().filter(|r| r.outcome == Outcome::Undecided).count();
    let mut x = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let name = xml(&format!("corpus gate {baseline} → {candidate}"));
    x.push_str(&format!(
        "<testsuites name=\"{name}\" tests=\"{}\" failures=\"{failures}\">\n<testsuite name=\"{name}\" tests=\"{}\" failures=\"{failures}\" errors=\"0\" skipped=\"{skipped}\">\n",
        results.len(),
        results.len()
    ));
    for r in results {
        x.push_str(&format!(
            "<testcase classname=\"corpus.gate\" name=\"{}\">",
            xml(&r.gate.metric)
        ));
        if r.regressed {
            let body: Vec<String> = r
                .losses
                .iter()
                .take(limit)
                .map(|(ds, d, a, b)| format!("{ds}/{d}: {a:.4} → {b:.4}"))
                .collect();
            x.push_str(&format!(
                "<failure message=\"{}\" type=\"regression\">{}</failure>",
                xml(&r.reason),
                xml(&body.join("\n"))
            ));
        } else if r.outcome == Outcome::Undecided {
            x.push_str(&format!("<skipped message=\"{}\"/>", xml(&r.reason)));
        } else {
            x.push_str(&format!("<system-out>{}</system-out>", xml(&r.reason)));
        }
        x.push_str("</testcase>\n");
    }
    x.push_str("</testsuite>\n</testsuites>\n");
    x
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows(a: &[f64], b: &[f64], metric: &str) -> DataFrame {
        let n = a.len();
        DataFrame::new_infer_height(vec![
            Column::new("dataset".into(), vec!["set"; n]),
            Column::new("document".into(), (0..n).map(|i| format!("d{i}")).collect::<Vec<_>>()),
            Column::new("metric".into(), vec![metric; n]),
            Column::new("a".into(), a.to_vec()),
            Column::new("b".into(), b.to_vec()),
        ])
        .unwrap()
    }

    const CI: Ci = Ci::DEFAULT;

    #[test]
    fn parses_metric_and_drop() {
        assert_eq!(
            GateMetric::parse("teds:0.01", 0.0).unwrap(),
            GateMetric { metric: "teds".into(), max_drop: 0.01 }
        );
        assert_eq!(GateMetric::parse("teds", 0.005).unwrap().max_drop, 0.005);
        assert!(GateMetric::parse("teds:-1", 0.0).is_err());
        assert!(GateMetric::parse(":0.1", 0.0).is_err());
    }

    #[test]
    fn an_unchanged_rerun_passes_and_a_planted_drop_fails() {
        let a: Vec<f64> = (0..12).map(|i| 0.5 + 0.03 * i as f64).collect();
        let same =
            gate(&rows(&a, &a, "teds"), &[GateMetric::parse("teds", 0.0).unwrap()], 0.05, &CI)
                .unwrap();
        assert!(!same[0].regressed, "{}", same[0].reason);
        assert_eq!(same[0].p, Some(1.0));
        // Every document loses 0.1: 12 of 12 signs agree, exact one-sided p = 1/4096.
        let b: Vec<f64> = a.iter().map(|x| x - 0.1).collect();
        let g = [GateMetric::parse("teds:0.005", 0.0).unwrap()];
        let r = gate(&rows(&a, &b, "teds"), &g, 0.05, &CI).unwrap();
        assert!(r[0].regressed, "{}", r[0].reason);
        assert!((r[0].p.unwrap() - 1.0 / 4096.0).abs() < 1e-12, "{:?}", r[0].p);
        assert_eq!(r[0].losses.len(), 12);
        // The same drop is allowed with max_drop 0.2.
        let g = [GateMetric::parse("teds:0.2", 0.0).unwrap()];
        assert!(!gate(&rows(&a, &b, "teds"), &g, 0.05, &CI).unwrap()[0].regressed);
    }

    #[test]
    fn lower_is_better_turns_the_sign() {
        let a = vec![0.2; 10];
        let b = vec![0.1; 10];
        let g = [GateMetric::parse("text_edit", 0.0).unwrap()];
        let r = gate(&rows(&a, &b, "text_edit"), &g, 0.05, &CI).unwrap();
        assert!(r[0].lower_is_better && !r[0].regressed, "an edit distance that falls is a gain");
        let r = gate(&rows(&b, &a, "text_edit"), &g, 0.05, &CI).unwrap();
        assert!(r[0].regressed, "{}", r[0].reason);
    }

    /// Two metrics in one frame.
    fn rows2(a: &[f64], b: &[f64], c: &[f64], d: &[f64]) -> DataFrame {
        let mut x = rows(a, b, "teds");
        x.vstack_mut(&rows(c, d, "grits_con")).unwrap();
        x
    }

    #[test]
    fn no_paired_document_and_two_documents_cannot_decide() {
        let g = [GateMetric::parse("teds", 0.0).unwrap()];
        // Baseline values only: nothing paired.
        let mut x = rows(&[0.9, 0.8, 0.7], &[0.0; 3], "teds");
        x.with_column(Column::new("b".into(), vec![None::<f64>; 3])).unwrap();
        let r = gate(&x, &g, 0.05, &CI).unwrap();
        assert_eq!((r[0].outcome, r[0].n, r[0].dropped), (Outcome::Undecided, 0, 3));
        assert!(!r[0].regressed && r[0].p.is_none());
        assert!(
            r[0].reason.starts_with("teds: cannot decide: no document has both"),
            "{}",
            r[0].reason
        );
        assert_eq!(overall(&r), Outcome::Undecided);
        // Two documents, both far worse: p could be no smaller than 1/4.
        let r = gate(&rows(&[0.9, 0.9], &[0.1, 0.1], "teds"), &g, 0.05, &CI).unwrap();
        assert_eq!((r[0].outcome, r[0].n, r[0].min_n), (Outcome::Undecided, 2, 5));
        assert!(r[0].reason.contains("cannot decide: 2 paired document(s)"), "{}", r[0].reason);
        // A regression on another metric still fails the gate.
        let a: Vec<f64> = vec![0.9; 12];
        let b: Vec<f64> = vec![0.5; 12];
        let g2 = [g[0].clone(), GateMetric::parse("grits_con", 0.0).unwrap()];
        let x = rows2(&[0.9, 0.9], &[0.1, 0.1], &a, &b);
        let r = gate(&x, &g2, 0.05, &CI).unwrap();
        assert_eq!((r[0].outcome, r[1].outcome), (Outcome::Undecided, Outcome::Regressed));
        assert_eq!(overall(&r), Outcome::Regressed);
    }

    #[test]
    fn the_smallest_decidable_count_follows_alpha_and_the_metrics() {
        // 2^-n < α / m.
        assert_eq!(min_documents(0.05, 1), 5);
        assert_eq!(min_documents(0.05, 2), 6);
        assert_eq!(min_documents(0.05, 3), 6);
        assert_eq!(min_documents(0.05, 4), 7);
        assert_eq!(min_documents(0.0625, 1), 5, "2^-4 = α is not below it");
        assert_eq!(min_documents(0.01, 1), 7);
    }

    #[test]
    fn ten_non_zero_differences_of_fifty_are_exact() {
        // 10 documents lose 0.1, 40 are unchanged: the zeros do not count, 2^10 assignments,
        // and only the observed one reaches its mean: p = 1/1024.
        let a = vec![0.5; 50];
        let b: Vec<f64> = (0..50).map(|i| if i < 10 { 0.4 } else { 0.5 }).collect();
        let g = [GateMetric::parse("teds", 0.0).unwrap()];
        let r = gate(&rows(&a, &b, "teds"), &g, 0.05, &CI).unwrap();
        assert_eq!((r[0].exact, r[0].flips), (Some(true), 1024));
        assert!((r[0].p.unwrap() - 1.0 / 1024.0).abs() < 1e-15, "{:?}", r[0].p);
        assert_eq!(r[0].outcome, Outcome::Regressed);
    }

    /// The case near α: 30 non-zero shifted differences (multiples of 1/64, so every sum is
    /// exact) among 50 documents, allowed drop 2/64. The exact one-sided p, from the
    /// distribution of the signed sums of the integers (a convolution), is 0.046315 (also
    /// `scipy.stats.permutation_test(..., alternative='less')` on them, docs/statistics.md).
    const NEAR: [i64; 30] = [
        -12, 5, -3, 1, -5, -11, -10, -7, -6, -9, 6, -6, -8, 11, 6, -9, -4, 1, 12, 2, -4, -3, 3, 1,
        -4, -5, -9, -5, 6, 3,
    ];

    /// `P(Σ ±k ≤ Σ k)` over every sign assignment, counted exactly.
    fn exact_less(ks: &[i64]) -> f64 {
        let total: i64 = ks.iter().map(|k| k.abs()).sum();
        let mut ways = vec![0f64; (2 * total + 1) as usize];
        ways[total as usize] = 1.0;
        for k in ks {
            let mut next = vec![0f64; ways.len()];
            for (s, w) in ways.iter().enumerate().filter(|(_, w)| **w > 0.0) {
                next[(s as i64 + k) as usize] += w;
                next[(s as i64 - k) as usize] += w;
            }
            ways = next;
        }
        let observed = (total + ks.iter().sum::<i64>()) as usize;
        ways[..=observed].iter().sum::<f64>() / 2f64.powi(ks.len() as i32)
    }

    #[test]
    fn twenty_seeds_give_one_verdict_near_alpha() {
        let exact = exact_less(&NEAR);
        assert!((exact - 0.046_314_721_927_046_78).abs() < 1e-12, "{exact}");
        let drop = 2.0 / 64.0;
        let a = vec![0.5; 50];
        let b: Vec<f64> =
            (0..50).map(|i| 0.5 + NEAR.get(i).map_or(0.0, |&k| k as f64 / 64.0) - drop).collect();
        let g = [GateMetric { metric: "teds".into(), max_drop: drop }];
        let mut verdicts = Vec::new();
        for seed in 0..20 {
            let ci = Ci { seed, ..CI };
            let r = gate(&rows(&a, &b, "teds"), &g, 0.05, &ci).unwrap();
            assert_eq!(r[0].exact, Some(false));
            let p = r[0].p.unwrap();
            assert!((p - exact).abs() < 0.002, "seed {seed}: p {p} vs exact {exact}");
            verdicts.push(r[0].outcome);
        }
        assert!(verdicts.iter().all(|&v| v == Outcome::Regressed), "{verdicts:?}");
    }

    #[test]
    fn holm_runs_across_the_gated_metrics() {
        // teds alone: 8 documents, differences −3, −2, −1, −4, −2, −1, +1, −3 (exact p = 4/256
        // = 0.015625); grits_con unchanged (p = 1). Holm over two: 2 × 0.015625 = 0.03125.
        let a = vec![0.5; 8];
        let b: Vec<f64> = [-3.0, -2.0, -1.0, -4.0, -2.0, -1.0, 1.0, -3.0]
            .iter()
            .map(|d| 0.5 + d / 64.0)
            .collect();
        let g =
            [GateMetric::parse("teds", 0.0).unwrap(), GateMetric::parse("grits_con", 0.0).unwrap()];
        let r = gate(&rows2(&a, &b, &a, &a), &g, 0.05, &CI).unwrap();
        assert!((r[0].p.unwrap() - 0.015625).abs() < 1e-15, "{:?}", r[0].p);
        assert!((r[0].p_holm.unwrap() - 0.03125).abs() < 1e-15, "{:?}", r[0].p_holm);
        assert_eq!((r[0].outcome, r[1].outcome), (Outcome::Regressed, Outcome::Pass));
        assert_eq!(r[1].p_holm, Some(1.0));
        // At α = 0.03 it fails alone (0.0156 < 0.03) but not after Holm (0.03125 ≥ 0.03).
        assert_eq!(
            gate(&rows(&a, &b, "teds"), &g[..1], 0.03, &CI).unwrap()[0].outcome,
            Outcome::Regressed
        );
        assert_eq!(gate(&rows2(&a, &b, &a, &a), &g, 0.03, &CI).unwrap()[0].outcome, Outcome::Pass);
    }

    #[test]
    fn junit_has_one_case_per_metric_and_a_failure_per_regression() {
        let a = vec![0.9; 10];
        let b = vec![0.5; 10];
        let g = [GateMetric::parse("teds", 0.0).unwrap()];
        let r = gate(&rows(&a, &b, "teds"), &g, 0.05, &CI).unwrap();
        let x = to_junit(&r, "p@1", "p@2", 3);
        let doc = roxmltree::Document::parse(&x).unwrap();
        let cases: Vec<_> = doc.descendants().filter(|n| n.has_tag_name("testcase")).collect();
        assert_eq!(cases.len(), 1);
        let f = cases[0].children().find(|n| n.has_tag_name("failure")).unwrap();
        assert!(f.attribute("message").unwrap().starts_with("teds: worse"));
        assert_eq!(f.text().unwrap().lines().count(), 3);
        let suite = doc.descendants().find(|n| n.has_tag_name("testsuite")).unwrap();
        assert_eq!(suite.attribute("failures"), Some("1"));
    }
}
