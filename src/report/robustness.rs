//! `report --robustness DATASET~PROFILE`: each provider's scores on the degraded twins of
//! `corpus degrade` beside its scores on their sources (`docs/degrade.md`).
//!
//! A twin is paired with its source by name (a twin keeps its source's name, in the dataset
//! `<source>~<profile>`), per provider version (`provider@version` as the scores name it: a
//! provider whose clean and degraded pages were read by different versions is not paired)
//! and metric; the paired statistics are `report --compare`'s (`docs/statistics.md` §2), with
//! the clean scores as A and the degraded as B, Holm's correction across each provider's
//! metrics.

use polars::prelude::*;

use super::compare::paired_rows;
use super::Ci;

/// The source dataset and profile of a twin dataset's name (`contracts~scan` →
/// (`contracts`, `scan`)); `None` without the separator.
pub fn split_twin(twin: &str) -> Option<(&str, &str)> {
    twin.rsplit_once(crate::degrade::SEPARATOR).filter(|(a, b)| !a.is_empty() && !b.is_empty())
}

/// One row per provider version and metric: `provider`, `metric`, `n` (pairs), `dropped`,
/// `clean`, `degraded` (means over the pairs), `delta` (degraded − clean), `delta_lo`,
/// `delta_hi`, `p`, `p_holm`, `worse`, `better`; from the long frame of the scores of both
/// datasets.
pub fn robustness(long: &DataFrame, twin: &str, ci: &Ci) -> PolarsResult<DataFrame> {
    let Some((source, _)) = split_twin(twin) else {
        return Err(PolarsError::ComputeError(format!("{twin} is not a twin dataset name").into()));
    };
    let side = |ds: &str, name: &str| -> PolarsResult<DataFrame> {
        long.clone()
            .lazy()
            .filter(col("dataset").eq(lit(ds.to_string())))
            .group_by_stable([col("provider"), col("document"), col("metric")])
            .agg([col("value").first().alias(name.to_string())])
            .collect()
    };
    let (clean, degraded) = (side(source, "a")?, side(twin, "b")?);
    let joined = degraded
        .lazy()
        .join(
            clean.lazy(),
            [col("provider"), col("document"), col("metric")],
            [col("provider"), col("document"), col("metric")],
            JoinArgs::new(JoinType::Left),
        )
        .with_column(lit(source.to_string()).alias("dataset"))
        .collect()?;
    let providers = joined.column("provider")?.str()?;
    let mut names: Vec<String> =
        (0..providers.len()).filter_map(|i| providers.get(i)).map(str::to_string).collect();
    names.sort();
    names.dedup();
    let (mut provider, mut metric, mut n, mut dropped) = (vec![], vec![], vec![], vec![]);
    let (mut a, mut b, mut d, mut lo, mut hi, mut p, mut ph, mut worse, mut better) =
        (vec![], vec![], vec![], vec![], vec![], vec![], vec![], vec![], vec![]);
    for name in &names {
        let rows = joined.clone().lazy().filter(col("provider").eq(lit(name.clone()))).collect()?;
        for r in paired_rows(&rows, ci)? {
            provider.push(name.clone());
            metric.push(r.metric.clone());
            n.push(r.stats.as_ref().map_or(0, |s| s.n as u32));
            dropped.push(r.dropped as u32);
            a.push(r.a);
            b.push(r.b);
            d.push(r.stats.as_ref().map(|s| s.mean_diff));
            lo.push(r.stats.as_ref().map(|s| s.ci.lo));
            hi.push(r.stats.as_ref().map(|s| s.ci.hi));
            p.push(r.stats.as_ref().map(|s| s.p));
            ph.push(r.p_holm);
            worse.push(r.worse as u32);
            better.push(r.better as u32);
        }
    }
    DataFrame::new_infer_height(vec![
        Column::new("provider".into(), provider),
        Column::new("metric".into(), metric),
        Column::new("n".into(), n),
        Column::new("dropped".into(), dropped),
        Column::new("clean".into(), a),
        Column::new("degraded".into(), b),
        Column::new("delta".into(), d),
        Column::new("delta_lo".into(), lo),
        Column::new("delta_hi".into(), hi),
        Column::new("p".into(), p),
        Column::new("p_holm".into(), ph),
        Column::new("worse".into(), worse),
        Column::new("better".into(), better),
    ])
}

/// The note printed with the table: what is paired and how the intervals are made.
pub fn robustness_note(twin: &str, ci: &Ci) -> String {
    let source = split_twin(twin).map_or(twin, |s| s.0);
    format!(
        "{twin} against {source}: each degraded document paired with its source by name, per provider version and metric (twins without a scored source are counted as dropped); delta = degraded − clean; {}% intervals: percentile bootstrap of the pairs, {} resamples, seed {}; p: two-sided paired sign-flip test; p_holm: Holm across each provider's metrics",
        ci.level * 100.0,
        ci.resamples,
        ci.seed
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn twins_pair_with_their_sources_by_name_provider_and_metric() {
        type Row = (String, String, String, f64);
        let row = |doc: &str, ds: &str, prov: &str, v: f64| -> Row {
            (doc.to_string(), ds.to_string(), prov.to_string(), v)
        };
        let rows = [
            row("a", "c", "p@1", 0.9),
            row("b", "c", "p@1", 0.8),
            row("a", "c~scan", "p@1", 0.5),
            row("b", "c~scan", "p@1", 0.6),
            // Another version's twin: no clean score of its own, dropped.
            row("a", "c~scan", "p@2", 0.4),
            // Another dataset: ignored.
            row("a", "x", "p@1", 0.0),
        ];
        let col = |f: &dyn Fn(&Row) -> String| rows.iter().map(f).collect::<Vec<_>>();
        let long = DataFrame::new_infer_height(vec![
            Column::new("document".into(), col(&|r| r.0.clone())),
            Column::new("dataset".into(), col(&|r| r.1.clone())),
            Column::new("provider".into(), col(&|r| r.2.clone())),
            Column::new("metric".into(), vec!["m"; rows.len()]),
            Column::new("value".into(), rows.iter().map(|r| r.3).collect::<Vec<_>>()),
        ])
        .unwrap();
        let t = robustness(&long, "c~scan", &Ci { resamples: 200, level: 0.95, seed: 0 }).unwrap();
        assert_eq!(t.height(), 2);
        let f = |c: &str, i: usize| t.column(c).unwrap().get(i).unwrap().try_extract::<f64>().ok();
        // p@1: clean mean 0.85, degraded 0.55, delta −0.3 over 2 pairs.
        assert!((f("clean", 0).unwrap() - 0.85).abs() < 1e-12);
        assert!((f("degraded", 0).unwrap() - 0.55).abs() < 1e-12);
        assert!((f("delta", 0).unwrap() + 0.3).abs() < 1e-12);
        assert_eq!(f("n", 0), Some(2.0));
        // p@2: its one twin has no clean score.
        assert_eq!((f("n", 1), f("dropped", 1)), (Some(0.0), Some(1.0)));
        assert_eq!(split_twin("a~b~scan"), Some(("a~b", "scan")));
        assert_eq!(split_twin("plain"), None);
    }
}
