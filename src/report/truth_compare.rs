//! `report --truth-compare OLD..NEW`: how a truth correction changed each provider version's
//! mean score and the ranking of the provider versions (`docs/truth-versions.md`).
//!
//! The same scores are read twice, once against the truths of version OLD and once against
//! those of version NEW. Per metric and provider version, both means are over the documents
//! that provider version has a value for under both versions (paired), so a document scored
//! only once never moves a mean. Ranks are over the provider versions that have both means,
//! best first (lower is better for edit distances), ties sharing the better place.

use std::collections::{BTreeMap, HashMap};

use polars::prelude::*;

use crate::store::ScoreColumns;

/// One (metric, provider version) row of the comparison.
#[derive(Debug, Clone, PartialEq)]
pub struct TruthDelta {
    /// The metric.
    pub metric: String,
    /// `provider@version`, with the model digest's first 8 digits where one provider version
    /// ran with several models.
    pub provider: String,
    /// Documents it has a value for under both truth versions.
    pub documents: usize,
    /// Of them, those whose truth differs between the two versions.
    pub corrected: usize,
    /// Mean against the old truths.
    pub old: f64,
    /// Mean against the new truths.
    pub new: f64,
    /// Its rank among the provider versions under the old truths (1 = best).
    pub rank_old: usize,
    /// Its rank under the new truths.
    pub rank_new: usize,
}

type Doc = (String, String);

/// Per (metric, provider label): document -> value, from one read of the scores.
fn values(c: &ScoreColumns, labels: &[String]) -> HashMap<(u32, String), HashMap<Doc, f64>> {
    let mut out: HashMap<(u32, String), HashMap<Doc, f64>> = HashMap::new();
    for r in 0..c.len() {
        let Some(v) = c.value[r].filter(|v| v.is_finite()) else { continue };
        let k = &c.keys[c.key[r] as usize];
        let metric = c.metric[r];
        let doc = (k.dataset.clone(), k.document.clone());
        out.entry((metric, labels[c.key[r] as usize].clone())).or_default().insert(doc, v);
    }
    out
}

/// The label of each key of `c`: `provider@version`, plus the model where a provider version
/// has several among `all`.
fn labels(c: &ScoreColumns, several: &std::collections::HashSet<(String, String)>) -> Vec<String> {
    c.keys
        .iter()
        .map(|k| {
            let base = format!("{}@{}", k.provider, k.provider_version);
            if several.contains(&(k.provider.clone(), k.provider_version.clone())) {
                format!("{base}#{}", &k.model_digest[..k.model_digest.len().min(8)])
            } else {
                base
            }
        })
        .collect()
}

/// Compares the scores `old` and `new` (the same filter, read against the old and the new
/// truths) on `metrics`; `changed` says whether a document's truth differs between the two.
pub fn truth_deltas(
    old: &ScoreColumns,
    new: &ScoreColumns,
    metrics: &[String],
    changed: impl Fn(&str, &str) -> bool,
) -> Vec<TruthDelta> {
    let mut models: HashMap<(String, String), std::collections::HashSet<String>> = HashMap::new();
    for k in old.keys.iter().chain(&new.keys) {
        models
            .entry((k.provider.clone(), k.provider_version.clone()))
            .or_default()
            .insert(k.model_digest.clone());
    }
    let several = models.into_iter().filter(|(_, m)| m.len() > 1).map(|(k, _)| k).collect();
    let (lo, ln) = (labels(old, &several), labels(new, &several));
    let (vo, vn) = (values(old, &lo), values(new, &ln));
    let mut out = Vec::new();
    for metric in metrics {
        let (Some(mo), Some(mn)) = (
            old.metrics.iter().position(|m| m == metric),
            new.metrics.iter().position(|m| m == metric),
        ) else {
            continue;
        };
        let mut rows: BTreeMap<String, TruthDelta> = BTreeMap::new();
        for ((m, label), docs_old) in &vo {
            if *m != mo as u32 {
                continue;
            }
            let Some(docs_new) = vn.get(&(mn as u32, label.clone())) else { continue };
            let (mut so, mut sn, mut n, mut corrected) = (0.0, 0.0, 0usize, 0usize);
            for (doc, a) in docs_old {
                if let Some(b) = docs_new.get(doc) {
                    so += a;
                    sn += b;
                    n += 1;
                    corrected += usize::from(changed(&doc.0, &doc.1));
                }
            }
            if n > 0 {
                rows.insert(
                    label.clone(),
                    TruthDelta {
                        metric: metric.clone(),
                        provider: label.clone(),
                        documents: n,
                        corrected,
                        old: so / n as f64,
                        new: sn / n as f64,
                        rank_old: 0,
                        rank_new: 0,
                    },
                );
            }
        }
        let mut rows: Vec<TruthDelta> = rows.into_values().collect();
        let lower = crate::metrics::lower_is_better(metric);
        rank(&mut rows, lower, |r| r.old, |r, k| r.rank_old = k);
        rank(&mut rows, lower, |r| r.new, |r, k| r.rank_new = k);
        rows.sort_by_key(|r| (r.rank_new, r.provider.clone()));
        out.extend(rows);
    }
    out
}

/// Sets each row's place by `value` (1 = best; equal values share the better place).
fn rank(
    rows: &mut [TruthDelta],
    lower_is_better: bool,
    value: impl Fn(&TruthDelta) -> f64,
    set: impl Fn(&mut TruthDelta, usize),
) {
    let mut order: Vec<usize> = (0..rows.len()).collect();
    order.sort_by(|&a, &b| {
        let o = value(&rows[b]).total_cmp(&value(&rows[a]));
        if lower_is_better {
            o.reverse()
        } else {
            o
        }
    });
    let mut place = 0;
    let mut last: Option<f64> = None;
    for (i, &r) in order.iter().enumerate() {
        let v = value(&rows[r]);
        if last != Some(v) {
            place = i + 1;
            last = Some(v);
        }
        set(&mut rows[r], place);
    }
}

/// The comparison as a frame (metric, provider, documents, corrected, old, new, delta,
/// rank_old, rank_new), the column names carrying the two versions' labels.
pub fn truth_delta_frame(rows: &[TruthDelta], old: &str, new: &str) -> PolarsResult<DataFrame> {
    let col = |name: String, v: Vec<f64>| Column::new(name.as_str().into(), v);
    DataFrame::new(
        rows.len(),
        vec![
            Column::new("metric".into(), rows.iter().map(|r| r.metric.clone()).collect::<Vec<_>>()),
            Column::new(
                "provider".into(),
                rows.iter().map(|r| r.provider.clone()).collect::<Vec<_>>(),
            ),
            Column::new(
                "documents".into(),
                rows.iter().map(|r| r.documents as u64).collect::<Vec<_>>(),
            ),
            Column::new(
                "corrected".into(),
                rows.iter().map(|r| r.corrected as u64).collect::<Vec<_>>(),
            ),
            col(format!("mean_{old}"), rows.iter().map(|r| r.old).collect()),
            col(format!("mean_{new}"), rows.iter().map(|r| r.new).collect()),
            col("delta".into(), rows.iter().map(|r| r.new - r.old).collect()),
            Column::new(
                format!("rank_{old}").as_str().into(),
                rows.iter().map(|r| r.rank_old as u64).collect::<Vec<_>>(),
            ),
            Column::new(
                format!("rank_{new}").as_str().into(),
                rows.iter().map(|r| r.rank_new as u64).collect::<Vec<_>>(),
            ),
        ],
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::ScoreKey;

    fn key(doc: &str, provider: &str) -> ScoreKey {
        ScoreKey {
            document: doc.into(),
            dataset: "d".into(),
            provider: provider.into(),
            provider_version: "1".into(),
            model_digest: "m".into(),
            attribute: None,
        }
    }

    #[test]
    fn a_correction_moves_means_and_swaps_ranks_by_hand() {
        // Old truths: a scores 0.9 and 0.5 (mean 0.7), b 0.6 and 0.6 (0.6): a first.
        // The truth of doc y is corrected: a now 0.1 there (mean 0.5), b 1.0 (mean 0.8).
        let mut old = ScoreColumns::default();
        old.push(key("x", "a"), "m1", Some(0.9), None);
        old.push(key("y", "a"), "m1", Some(0.5), None);
        old.push(key("x", "b"), "m1", Some(0.6), None);
        old.push(key("y", "b"), "m1", Some(0.6), None);
        old.push(key("z", "b"), "m1", Some(0.0), None); // scored only under the old truths
        let mut new = ScoreColumns::default();
        new.push(key("x", "a"), "m1", Some(0.9), None);
        new.push(key("y", "a"), "m1", Some(0.1), None);
        new.push(key("x", "b"), "m1", Some(0.6), None);
        new.push(key("y", "b"), "m1", Some(1.0), None);
        let rows = truth_deltas(&old, &new, &["m1".into()], |_, doc| doc == "y");
        assert_eq!(rows.len(), 2);
        let b = &rows[0];
        assert_eq!((b.provider.as_str(), b.documents, b.corrected), ("b@1", 2, 1));
        assert!((b.old - 0.6).abs() < 1e-12 && (b.new - 0.8).abs() < 1e-12);
        assert_eq!((b.rank_old, b.rank_new), (2, 1));
        let a = &rows[1];
        assert!((a.old - 0.7).abs() < 1e-12 && (a.new - 0.5).abs() < 1e-12);
        assert_eq!((a.rank_old, a.rank_new), (1, 2));
        let f = truth_delta_frame(&rows, "v1", "v2").unwrap();
        assert_eq!(f.height(), 2);
        assert!(f.column("rank_v2").is_ok() && f.column("mean_v1").is_ok());
    }

    #[test]
    fn edit_distances_rank_lower_first_and_ties_share_a_place() {
        let mut old = ScoreColumns::default();
        old.push(key("x", "a"), "text_edit", Some(0.2), None);
        old.push(key("x", "b"), "text_edit", Some(0.1), None);
        old.push(key("x", "c"), "text_edit", Some(0.1), None);
        let rows = truth_deltas(&old, &old, &["text_edit".into()], |_, _| false);
        let place: Vec<(String, usize)> =
            rows.iter().map(|r| (r.provider.clone(), r.rank_old)).collect();
        assert_eq!(place, [("b@1".into(), 1), ("c@1".into(), 1), ("a@1".into(), 3)]);
    }
}
