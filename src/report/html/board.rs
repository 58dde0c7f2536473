//! The index's leaderboard: each suite's headline metrics first, one row per provider version
//! and model sorted by the first headline, each mean drawn as a bar with its interval as a
//! whisker and the best of each column marked; every metric in a `<details>` table below. No
//! script: bars are inline SVG, the full table opens with `<details>`.
//!
//! The numbers are [`crate::report::summary_ci`]'s by provider, as `corpus report --by
//! provider --format json` prints them (`m`, `m_lo`, `m_hi`); each cell carries them to full
//! precision in `data-value`, `data-lo` and `data-hi`.

use std::fmt::Write as _;

use polars::prelude::*;

use super::escape::{esc, num};
use crate::metrics::lower_is_better;
use crate::suites::Suite;

/// The headline metrics of a suite's leaderboard, in order; the first sorts the rows. The
/// paper suite's are its own [`crate::metrics::paper::HEADLINE`]; olmOCR-bench's `overall`
/// is followed by every `group_score:<group>` the store holds ([`headline_columns`]). A suite
/// not named here has none, and its leaderboard leads with its first metric.
pub fn headline_metrics(suite: &str) -> &'static [&'static str] {
    Suite::of_stored(suite).map_or(&[], Suite::headline)
}

/// The headline columns of a leaderboard over `metrics`: [`headline_metrics`] that are among
/// them (absent ones skipped), for olmOCR-bench then its `group_score:*` in `metrics`' order;
/// the first metric where none is present.
pub fn headline_columns(suite: &str, metrics: &[String]) -> Vec<String> {
    let mut out: Vec<String> = headline_metrics(suite)
        .iter()
        .filter(|h| metrics.iter().any(|m| m == *h))
        .map(|h| h.to_string())
        .collect();
    if headline_metrics(suite) == crate::suites::olmocr::HEADLINE {
        out.extend(
            metrics.iter().filter(|m| m.starts_with(crate::suites::olmocr::GROUP_PREFIX)).cloned(),
        );
    }
    if out.is_empty() {
        out.extend(metrics.first().cloned());
    }
    out
}

/// The provider whose pages are all empty: every suite's floor.
const FLOOR_PROVIDER: &str = "empty@";

/// One mean with its interval.
#[derive(Debug, Clone, Copy, Default)]
struct Mean {
    value: Option<f64>,
    lo: Option<f64>,
    hi: Option<f64>,
}

/// One row of the leaderboard.
#[derive(Debug, Clone)]
struct Row {
    provider: String,
    model: String,
    n: Option<i64>,
    means: Vec<Mean>,
    /// What a page took: [`USAGE`]'s columns, where the table has them.
    usage: Vec<Option<f64>>,
}

/// The cost-and-speed columns of [`crate::report::with_usage`], shown after the headlines.
const USAGE: [&str; 4] = ["s/page", "cpu s/page", "tokens/page", "¢/page"];

fn f64s(df: &DataFrame, name: &str) -> PolarsResult<Vec<Option<f64>>> {
    match df.column(name) {
        Ok(c) => Ok(c.cast(&DataType::Float64)?.f64()?.iter().collect()),
        Err(_) => Ok(vec![None; df.height()]),
    }
}

fn strs(df: &DataFrame, name: &str) -> PolarsResult<Vec<String>> {
    Ok(df
        .column(name)?
        .cast(&DataType::String)?
        .str()?
        .iter()
        .map(|s| s.unwrap_or_default().to_string())
        .collect())
}

/// Orders `a` before `b` when its value is better (higher, or lower where
/// [`lower_is_better`]); values absent last.
fn better(metric: &str, a: Option<f64>, b: Option<f64>) -> std::cmp::Ordering {
    use std::cmp::Ordering::*;
    match (a.filter(|x| !x.is_nan()), b.filter(|x| !x.is_nan())) {
        (Some(x), Some(y)) => {
            let o = y.total_cmp(&x);
            if lower_is_better(metric) {
                o.reverse()
            } else {
                o
            }
        }
        (Some(_), None) => Less,
        (None, Some(_)) => Greater,
        (None, None) => Equal,
    }
}

/// The leaderboard's HTML from [`crate::report::summary_ci`]'s table by provider (`table`,
/// with `m`, `m_lo`, `m_hi` for each of `metrics`): the headline table (`heads`) and, behind a
/// `<details>`, every metric.
pub fn leaderboard(
    table: &DataFrame,
    metrics: &[String],
    heads: &[String],
) -> PolarsResult<String> {
    let providers = strs(table, "provider")?;
    let models = strs(table, "model")?;
    let n: Vec<Option<i64>> = match table.column("n") {
        Ok(c) => c.cast(&DataType::Int64)?.i64()?.iter().collect(),
        Err(_) => vec![None; table.height()],
    };
    // Each metric's means, lower and upper bounds, one value per row of `table`.
    type Bounds = [Vec<Option<f64>>; 3];
    let cols: Vec<Bounds> = metrics
        .iter()
        .map(|m| {
            Ok([
                f64s(table, m)?,
                f64s(table, &format!("{m}_lo"))?,
                f64s(table, &format!("{m}_hi"))?,
            ])
        })
        .collect::<PolarsResult<_>>()?;
    let usage: Vec<Vec<Option<f64>>> =
        USAGE.iter().map(|u| f64s(table, u)).collect::<PolarsResult<_>>()?;
    let has_usage = USAGE.iter().any(|u| table.column(u).is_ok_and(|c| c.null_count() < c.len()));
    let mut rows: Vec<Row> = (0..table.height())
        .map(|i| Row {
            provider: providers[i].clone(),
            model: models[i].clone(),
            n: n[i],
            means: cols
                .iter()
                .map(|[v, lo, hi]| Mean { value: v[i], lo: lo[i], hi: hi[i] })
                .collect(),
            usage: if has_usage { usage.iter().map(|u| u[i]).collect() } else { Vec::new() },
        })
        .collect();
    // Sorted by the headlines in turn (the first decides; the rest break its ties), then by
    // provider and model.
    let head_idx: Vec<usize> =
        heads.iter().filter_map(|h| metrics.iter().position(|m| m == h)).collect();
    rows.sort_by(|a, b| {
        head_idx
            .iter()
            .map(|&j| better(&metrics[j], a.means[j].value, b.means[j].value))
            .find(|o| o.is_ne())
            .unwrap_or(std::cmp::Ordering::Equal)
            .then_with(|| (&a.provider, &a.model).cmp(&(&b.provider, &b.model)))
    });

    let mut s = String::new();
    let first = head_idx.first().map(|&j| metrics[j].as_str()).unwrap_or("");
    let _ = write!(
        s,
        r#"<p class="muted">Each provider version's mean over the documents it scored (n), as <code>corpus report --by provider</code> prints it, with its {}: the bar is the mean, the whisker the interval. Sorted by {} ({} is better); the best of each column is <strong>bold</strong>.</p>"#,
        esc(&crate::report::Ci::DEFAULT.describe()),
        esc(first),
        if lower_is_better(first) { "lower" } else { "higher" }
    );
    s.push_str(&board_table(&rows, metrics, &head_idx, "leaderboard", true));
    let all: Vec<usize> = (0..metrics.len()).collect();
    let _ = write!(
        s,
        r#"<details class="all-metrics"><summary>All {} metrics</summary>"#,
        metrics.len()
    );
    s.push_str(&board_table(&rows, metrics, &all, "all-metrics", false));
    s.push_str("</details>");
    Ok(s)
}

/// The axis of a column's bars: from 0 (or below, for a negative value) to 1 where every
/// value and bound is at most 1, to 100 where at most 100 (OmniDocBench's `overall`), else
/// to the largest.
fn axis(rows: &[Row], j: usize) -> (f64, f64) {
    let xs = rows
        .iter()
        .flat_map(|r| [r.means[j].value, r.means[j].lo, r.means[j].hi])
        .flatten()
        .filter(|x| x.is_finite());
    let (mut lo, mut hi) = (0.0f64, 0.0f64);
    for x in xs {
        lo = lo.min(x);
        hi = hi.max(x);
    }
    let hi = if hi <= 1.0 {
        1.0
    } else if hi <= 100.0 {
        100.0
    } else {
        hi
    };
    (lo, hi)
}

/// Width of a bar in CSS pixels.
const BAR_W: f64 = 72.0;

/// A mean's bar with its interval as a whisker, inline SVG.
fn bar(m: &Mean, (lo, hi): (f64, f64)) -> String {
    let Some(v) = m.value.filter(|v| v.is_finite()) else { return String::new() };
    let x = |v: f64| ((v - lo) / (hi - lo).max(f64::MIN_POSITIVE) * BAR_W).clamp(0.0, BAR_W);
    let zero = x(0.0);
    let (a, b) = if x(v) < zero { (x(v), zero) } else { (zero, x(v)) };
    let mut s = format!(
        r#"<svg class="bar" width="{BAR_W}" height="12" viewBox="0 0 {BAR_W} 12" aria-hidden="true"><rect class="track" x="0" y="3" width="{BAR_W}" height="6"/><rect class="fill" x="{a:.1}" y="3" width="{:.1}" height="6"/>"#,
        b - a
    );
    if let (Some(l), Some(h)) = (m.lo, m.hi) {
        let (l, h) = (x(l), x(h));
        let _ =
            write!(s, r#"<path class="whisker" d="M{l:.1} 6H{h:.1}M{l:.1} 1V11M{h:.1} 1V11"/>"#);
    }
    s.push_str("</svg>");
    s
}

/// Full precision for a `data-` attribute (`null` for none).
fn full(v: Option<f64>) -> String {
    v.map_or("null".into(), |x| x.to_string())
}

/// One table of the leaderboard: rank, provider, model, n, then the columns `idx` of
/// `metrics`; with `bars`, each mean drawn as a bar.
fn board_table(rows: &[Row], metrics: &[String], idx: &[usize], class: &str, bars: bool) -> String {
    let mut s = format!(
        r#"<div class="scroll"><table class="{class}"><thead><tr><th>#</th><th>provider</th><th>model</th><th>n</th>"#
    );
    for &j in idx {
        let m = &metrics[j];
        let _ = write!(
            s,
            r#"<th data-metric="{}" title="{}">{}<span class="dir">{}</span></th>"#,
            esc(m),
            if lower_is_better(m) { "lower is better" } else { "higher is better" },
            esc(m),
            if lower_is_better(m) { "↓" } else { "↑" }
        );
    }
    if bars && rows.iter().any(|r| !r.usage.is_empty()) {
        for u in USAGE {
            let _ = write!(
                s,
                r#"<th class="usage" title="what a page took (docs/endpoints.md)">{}</th>"#,
                esc(u)
            );
        }
    }
    s.push_str("</tr></thead><tbody>");
    // The best value of each column, and the axis of its bars.
    let best: Vec<Option<f64>> = idx
        .iter()
        .map(|&j| {
            rows.iter()
                .map(|r| r.means[j].value)
                .filter(|v| v.is_some_and(|x| !x.is_nan()))
                .min_by(|a, b| better(&metrics[j], *a, *b))
                .flatten()
        })
        .collect();
    let axes: Vec<(f64, f64)> = idx.iter().map(|&j| axis(rows, j)).collect();
    for (rank, r) in rows.iter().enumerate() {
        let floor = r.provider.starts_with(FLOOR_PROVIDER);
        let _ = write!(
            s,
            r#"<tr data-provider="{}" data-model="{}"{}><td class="n">{}</td><td class="p">{}{}</td><td>{}</td><td class="n">{}</td>"#,
            esc(&r.provider),
            esc(&r.model),
            if floor { r#" class="floor""# } else { "" },
            rank + 1,
            esc(&r.provider),
            if floor { r#" <span class="note">floor: every page empty</span>"# } else { "" },
            esc(&r.model),
            r.n.map_or("–".into(), |n| n.to_string())
        );
        for (k, &j) in idx.iter().enumerate() {
            let m = &r.means[j];
            let is_best = m.value.is_some() && m.value == best[k];
            let interval = match (m.lo, m.hi) {
                (Some(l), Some(h)) => format!("[{}, {}]", num(Some(l)), num(Some(h))),
                _ => String::new(),
            };
            let text =
                if is_best { format!("<strong>{}</strong>", num(m.value)) } else { num(m.value) };
            let _ = write!(
                s,
                r#"<td class="n{}" data-metric="{}" data-value="{}" data-lo="{}" data-hi="{}"{}>{}{}{}</td>"#,
                if is_best { " best" } else { "" },
                esc(&metrics[j]),
                full(m.value),
                full(m.lo),
                full(m.hi),
                if interval.is_empty() {
                    String::new()
                } else {
                    format!(r#" title="95% interval {interval}""#)
                },
                text,
                if bars { bar(m, axes[k]) } else { String::new() },
                if interval.is_empty() {
                    String::new()
                } else {
                    format!(r#"<span class="ci">{interval}</span>"#)
                }
            );
        }
        if bars {
            for (u, v) in USAGE.iter().zip(&r.usage) {
                let _ = write!(
                    s,
                    r#"<td class="n usage" data-usage="{}" data-usage-value="{}">{}</td>"#,
                    esc(u),
                    full(*v),
                    v.map_or("–".into(), |x| format!("{x:.3}"))
                );
            }
        }
        s.push_str("</tr>");
    }
    s.push_str("</tbody></table></div>");
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_suite_names_its_headlines_and_absent_ones_are_skipped() {
        for suite in crate::suites::names() {
            assert!(!headline_metrics(suite).is_empty(), "{suite}");
        }
        assert_eq!(headline_metrics("paper"), crate::metrics::paper::HEADLINE);
        let metrics: Vec<String> =
            ["pass_rate", "group_score:math", "group_score:table", "overall", "pass:x"]
                .iter()
                .map(|s| s.to_string())
                .collect();
        assert_eq!(
            headline_columns("olmocr-exact", &metrics),
            ["overall", "group_score:math", "group_score:table"]
        );
        let metrics: Vec<String> =
            ["teds", "grits_con_f", "value_acc"].iter().map(|s| s.to_string()).collect();
        assert_eq!(headline_columns("table", &metrics), ["teds", "grits_con_f"]);
        assert_eq!(headline_columns("nope", &metrics), ["teds"]);
    }

    #[test]
    fn rows_sort_by_the_first_headline_best_first_and_the_best_is_marked() {
        let df = df!(
            "provider" => ["a@1", "b@1", "empty@1"],
            "model" => ["m", "m", "none"],
            "n" => [3i64, 3, 3],
            "text_edit" => [Some(0.3), Some(0.1), Some(1.0)],
            "text_edit_lo" => [Some(0.2), Some(0.05), Some(1.0)],
            "text_edit_hi" => [Some(0.4), Some(0.15), Some(1.0)],
            "overall" => [Some(70.0), Some(80.0), None],
            "overall_lo" => [None::<f64>, None, None],
            "overall_hi" => [None::<f64>, None, None],
        )
        .unwrap();
        let metrics = vec!["text_edit".to_string(), "overall".to_string()];
        let html = leaderboard(&df, &metrics, &["text_edit".to_string()]).unwrap();
        let board = html.split("<details").next().unwrap();
        let a = board.find(r#"data-provider="a@1""#).unwrap();
        let b = board.find(r#"data-provider="b@1""#).unwrap();
        let e = board.find(r#"data-provider="empty@1""#).unwrap();
        assert!(b < a && a < e, "lower text_edit first, the floor last");
        assert!(board.contains(r#"<td class="n best" data-metric="text_edit" data-value="0.1" data-lo="0.05" data-hi="0.15""#));
        assert!(board.contains(r#"class="floor""#) && board.contains("floor: every page empty"));
        assert!(!board.contains(r#"data-metric="overall""#));
        let all = html.split("<details").nth(1).unwrap();
        assert!(all.contains("All 2 metrics"));
        assert!(all.contains(r#"<td class="n best" data-metric="overall" data-value="80""#));
        assert!(!html.contains("<script"));
    }
}
