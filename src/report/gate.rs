//! `corpus gate`: does a candidate score significantly worse than a baseline, beyond what each
//! metric allows? (`docs/statistics.md` §4.)
//!
//! For each gated metric the documents both sides scored are paired. With `d = candidate −
//! baseline` (the metric's sign turned for metrics where lower is better, so that `d < 0` is
//! always a loss) and the allowed drop `δ`, the gate tests the shifted differences `d + δ` with
//! the paired sign-flip test of [`crate::metrics::stats::paired`]: the candidate regresses when
//! their mean is below zero and the one-sided p-value (half the two-sided one, the null being
//! symmetric) is below `alpha`. An unchanged re-run (every `d` = 0) never regresses; a drop
//! smaller than `δ`, or one the documents cannot tell from noise, passes.

use polars::prelude::*;

use super::Ci;
use crate::metrics::stats::{paired, Interval};

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

/// The verdict on one metric.
#[derive(Debug, Clone, PartialEq)]
pub struct GateResult {
    /// Metric id and allowed drop.
    pub gate: GateMetric,
    /// Whether lower values are better for this metric.
    pub lower_is_better: bool,
    /// Documents paired.
    pub n: usize,
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
    /// One-sided p-value of "the loss exceeds the allowed drop".
    pub p: Option<f64>,
    /// Whether the candidate regressed: worse beyond the allowance, significantly.
    pub regressed: bool,
    /// The one-line reason.
    pub reason: String,
    /// Documents whose value got worse, worst first: (dataset, document, baseline, candidate).
    pub losses: Vec<(String, String, f64, f64)>,
}

/// Runs the gate on a comparison's rows (`dataset`, `document`, `metric`, `a` = baseline, `b` =
/// candidate; [`super::compare`]'s per-document frame), at significance `alpha`.
pub fn gate(
    rows: &DataFrame,
    metrics: &[GateMetric],
    alpha: f64,
    ci: &Ci,
) -> PolarsResult<Vec<GateResult>> {
    let dataset = rows.column("dataset")?.str()?.clone();
    let document = rows.column("document")?.str()?.clone();
    let metric = rows.column("metric")?.str()?.clone();
    let a = rows.column("a")?.cast(&DataType::Float64)?.f64()?.clone();
    let b = rows.column("b")?.cast(&DataType::Float64)?.f64()?.clone();
    let mut out = Vec::with_capacity(metrics.len());
    for g in metrics {
        let lower = crate::metrics::lower_is_better(&g.metric);
        let sign = if lower { -1.0 } else { 1.0 };
        let (mut xa, mut xb, mut dropped, mut losses) = (Vec::new(), Vec::new(), 0, Vec::new());
        for i in 0..rows.height() {
            if metric.get(i) != Some(g.metric.as_str()) {
                continue;
            }
            match (a.get(i), b.get(i)) {
                (Some(x), Some(y)) => {
                    xa.push(x);
                    xb.push(y);
                    if sign * (y - x) < 0.0 {
                        let name = |c: &StringChunked| c.get(i).unwrap_or("").to_string();
                        losses.push((name(&dataset), name(&document), x, y));
                    }
                }
                _ => dropped += 1,
            }
        }
        losses.sort_by(|p, q| (sign * (p.3 - p.2)).total_cmp(&(sign * (q.3 - q.2))));
        let mean = |v: &[f64]| (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64);
        let plain = paired(&xa, &xb, ci.resamples, ci.level, ci.seed);
        // In the better-is-higher direction, shifted by the allowance: loss beyond δ ⇔ mean < 0.
        let base: Vec<f64> = xa.iter().map(|x| sign * x - g.max_drop).collect();
        let cand: Vec<f64> = xb.iter().map(|y| sign * y).collect();
        let shifted = paired(&base, &cand, ci.resamples, ci.level, ci.seed);
        let (p, regressed) = match &shifted {
            Some(s) if s.mean_diff < 0.0 => {
                let p = (s.p / 2.0).min(1.0);
                (Some(p), p < alpha)
            }
            // No loss beyond the allowance at all: nothing to test.
            Some(_) => (Some(1.0), false),
            None => (None, false),
        };
        let diff = plain.as_ref().map(|s| s.mean_diff);
        let reason = match (&plain, p) {
            (None, _) | (_, None) => format!(
                "{}: no document has both a baseline and a candidate value ({dropped} one-sided)",
                g.metric
            ),
            (Some(s), Some(p)) => {
                let verdict = if regressed {
                    "worse beyond the allowed drop"
                } else if s.mean_diff * sign < -g.max_drop {
                    "lower beyond the allowed drop, but not significantly"
                } else {
                    "within the allowed drop"
                };
                format!(
                    "{}: {verdict}: {:+.4} [{:+.4}, {:+.4}] over {} documents (allowed −{}{}), one-sided p = {p:.4} (α = {alpha})",
                    g.metric,
                    s.mean_diff,
                    s.ci.lo,
                    s.ci.hi,
                    s.n,
                    g.max_drop,
                    if lower { ", lower is better" } else { "" },
                )
            }
        };
        out.push(GateResult {
            gate: g.clone(),
            lower_is_better: lower,
            n: plain.as_ref().map_or(0, |s| s.n),
            dropped,
            baseline: mean(&xa),
            candidate: mean(&xb),
            diff,
            ci: plain.as_ref().map(|s| s.ci),
            p,
            regressed,
            reason,
            losses,
        });
    }
    Ok(out)
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
                "p": r.p,
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
        "metrics": metrics,
    })
}

/// Escapes text for XML.
fn xml(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

/// The gate's results as a JUnit XML report, as CI systems read it: one `testsuite` named
/// after the comparison, one `testcase` per metric, a `failure` (its message the reason, its
/// body the documents that lost most) where the candidate regressed.
pub fn to_junit(results: &[GateResult], baseline: &str, candidate: &str, limit: usize) -> String {
    let failures = results.iter().filter(|r| r.regressed).count();
    let mut x = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let name = xml(&format!("corpus gate {baseline} → {candidate}"));
    x.push_str(&format!(
        "<testsuites name=\"{name}\" tests=\"{}\" failures=\"{failures}\">\n<testsuite name=\"{name}\" tests=\"{}\" failures=\"{failures}\" errors=\"0\" skipped=\"0\">\n",
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
