//! `report --compare A B`: per-document deltas between two provider selections and the
//! per-metric paired statistics (`docs/statistics.md` §2).

use polars::prelude::*;

use super::{Ci, Selector};
use crate::store::ScoreColumns;

/// Keeps the rows of a long frame whose provider label matches a selector.
fn select_rows(long: &DataFrame, c: &ScoreColumns, sel: &Selector) -> PolarsResult<DataFrame> {
    let hit: Vec<bool> = c
        .keys
        .iter()
        .map(|k| sel.matches(&k.provider, &k.provider_version, &k.model_digest))
        .collect();
    let mask: BooleanChunked = c.key.iter().map(|&k| hit[k as usize]).collect();
    long.filter(&mask)
}

/// `--compare A B`: per document and metric, A's and B's latest values and B − A, biggest
/// losses first; and per metric the means over documents that have both. With `ci`, the
/// per-metric table also holds the paired statistics of `docs/statistics.md` §2
/// ([`paired_table`]).
pub fn compare(
    long: &DataFrame,
    c: &ScoreColumns,
    a: &Selector,
    b: &Selector,
    ci: Option<&Ci>,
) -> PolarsResult<(DataFrame, DataFrame)> {
    // Both sides in one frame, tagged, then one row per (dataset, document, metric) with
    // each side's value: documents scored by only one side keep a null on the other.
    let mut both = select_rows(long, c, a)?.lazy().with_column(lit("a").alias("side")).collect()?;
    let b_rows = select_rows(long, c, b)?.lazy().with_column(lit("b").alias("side")).collect()?;
    both.vstack_mut(&b_rows)?;
    let value_of = |side: &str| {
        col("value").filter(col("side").eq(lit(side.to_string()))).first().alias(side.to_string())
    };
    let joined = both
        .lazy()
        .group_by_stable([col("dataset"), col("document"), col("metric")])
        .agg([value_of("a"), value_of("b")])
        .with_column((col("b") - col("a")).alias("delta"));
    let rows = joined
        .clone()
        .sort(
            ["delta", "metric", "document"],
            SortMultipleOptions::default()
                .with_nulls_last_multi([true, false, false])
                .with_maintain_order(true),
        )
        .collect()?;
    if let Some(ci) = ci {
        return Ok((paired_table(&rows, ci)?, rows));
    }
    let both = col("a").is_not_null().and(col("b").is_not_null());
    let per_metric = joined
        .group_by_stable([col("metric")])
        .agg([
            both.clone().sum().alias("n"),
            col("a").filter(both.clone()).mean().alias("a"),
            col("b").filter(both.clone()).mean().alias("b"),
            col("delta").mean().alias("delta"),
            col("delta").lt(lit(0.0)).sum().alias("worse"),
            col("delta").gt(lit(0.0)).sum().alias("better"),
        ])
        .sort(["metric"], SortMultipleOptions::default())
        .collect()?;
    Ok((per_metric, rows))
}

/// One metric's paired comparison ([`paired_table`]).
#[derive(Debug, Clone, PartialEq)]
pub struct PairedRow {
    /// Metric id.
    pub metric: String,
    /// The paired statistics; `None` where no document has both values.
    pub stats: Option<crate::metrics::stats::Paired>,
    /// Documents with a value on one side only (or on neither), left out of the pairs.
    pub dropped: usize,
    /// Means of A and B over the pairs.
    pub a: Option<f64>,
    /// See `a`.
    pub b: Option<f64>,
    /// Pairs where B is lower, and higher.
    pub worse: usize,
    /// See `worse`.
    pub better: usize,
    /// Holm's adjusted p-value across the metrics compared.
    pub p_holm: Option<f64>,
}

/// The paired statistics of each metric of a comparison's rows (`dataset`, `document`,
/// `metric`, `a`, `b`): documents are paired by dataset and name; those with a value on one
/// side only are dropped and counted. Holm's correction runs across the metrics.
pub fn paired_rows(rows: &DataFrame, ci: &Ci) -> PolarsResult<Vec<PairedRow>> {
    let metric = rows.column("metric")?.str()?.clone();
    let a = rows.column("a")?.cast(&DataType::Float64)?.f64()?.clone();
    let b = rows.column("b")?.cast(&DataType::Float64)?.f64()?.clone();
    let mut order: Vec<String> = Vec::new();
    let mut by_metric: std::collections::HashMap<String, (Vec<f64>, Vec<f64>, usize)> =
        Default::default();
    for i in 0..rows.height() {
        let m = metric.get(i).unwrap_or("").to_string();
        let e = by_metric.entry(m.clone()).or_insert_with(|| {
            order.push(m);
            Default::default()
        });
        match (a.get(i), b.get(i)) {
            (Some(x), Some(y)) => {
                e.0.push(x);
                e.1.push(y);
            }
            _ => e.2 += 1,
        }
    }
    order.sort();
    let mut out: Vec<PairedRow> = order
        .iter()
        .map(|m| {
            let (xa, xb, dropped) = &by_metric[m];
            let stats = crate::metrics::stats::paired(xa, xb, ci.resamples, ci.level, ci.seed);
            let mean = |v: &[f64]| (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64);
            let worse = xa.iter().zip(xb).filter(|(x, y)| y < x).count();
            let better = xa.iter().zip(xb).filter(|(x, y)| y > x).count();
            PairedRow {
                metric: m.clone(),
                stats,
                dropped: *dropped,
                a: mean(xa),
                b: mean(xb),
                worse,
                better,
                p_holm: None,
            }
        })
        .collect();
    let ps: Vec<f64> = out.iter().map(|r| r.stats.as_ref().map_or(f64::NAN, |s| s.p)).collect();
    for (r, p) in out.iter_mut().zip(crate::metrics::stats::holm(&ps)) {
        r.p_holm = (!p.is_nan()).then_some(p);
    }
    Ok(out)
}

/// [`paired_rows`] as a frame: metric, n, dropped, a, b, delta (B − A), delta_lo, delta_hi,
/// p, p_holm, exact, worse, better.
pub fn paired_table(rows: &DataFrame, ci: &Ci) -> PolarsResult<DataFrame> {
    let r = paired_rows(rows, ci)?;
    let f = |g: &dyn Fn(&PairedRow) -> Option<f64>| r.iter().map(g).collect::<Vec<_>>();
    DataFrame::new_infer_height(vec![
        Column::new("metric".into(), r.iter().map(|x| x.metric.as_str()).collect::<Vec<_>>()),
        Column::new(
            "n".into(),
            r.iter().map(|x| x.stats.as_ref().map_or(0, |s| s.n as u32)).collect::<Vec<_>>(),
        ),
        Column::new("dropped".into(), r.iter().map(|x| x.dropped as u32).collect::<Vec<_>>()),
        Column::new("a".into(), f(&|x| x.a)),
        Column::new("b".into(), f(&|x| x.b)),
        Column::new("delta".into(), f(&|x| x.stats.as_ref().map(|s| s.mean_diff))),
        Column::new("delta_lo".into(), f(&|x| x.stats.as_ref().map(|s| s.ci.lo))),
        Column::new("delta_hi".into(), f(&|x| x.stats.as_ref().map(|s| s.ci.hi))),
        Column::new("p".into(), f(&|x| x.stats.as_ref().map(|s| s.p))),
        Column::new("p_holm".into(), f(&|x| x.p_holm)),
        Column::new(
            "exact".into(),
            r.iter().map(|x| x.stats.as_ref().map(|s| s.exact)).collect::<Vec<_>>(),
        ),
        Column::new("worse".into(), r.iter().map(|x| x.worse as u32).collect::<Vec<_>>()),
        Column::new("better".into(), r.iter().map(|x| x.better as u32).collect::<Vec<_>>()),
    ])
}
