//! The `paper` suite (rules in `docs/paper-suite.md`): every output of a provider against every
//! PeerRead, GROBID TEI, S2ORC, JATS or Docling truth of the same document.

use std::collections::HashMap;
use std::time::Instant;

use serde::Serialize;

use super::EvalFailure;
use crate::doc::Doc;
use crate::error::Result;
use crate::formats::TruthFormat;
use crate::metrics::fields::Pooled;
use crate::metrics::paper::{score, HEADLINE, PAPER_SUITE_VERSION};
use crate::paper::{from_doc, Paper};
use crate::progress::Progress;
use crate::store::{RunId, Store};
use crate::truth::truth_groups;

/// The suite's id in the store.
pub const SUITE: &str = "paper";

/// What to score.
#[derive(Debug, Clone, Default)]
pub struct EvalOptions<'a> {
    /// Only outputs of this provider.
    pub provider: Option<&'a str>,
    /// Only truths of this dataset.
    pub dataset: Option<&'a str>,
    /// The run the rows belong to.
    pub run: Option<RunId>,
}

/// One scored (document, provider, truth) with its metric values.
#[derive(Debug, Clone, Serialize)]
pub struct PaperRow {
    /// The document's name in the truth's dataset.
    pub document: String,
    /// The truth's dataset.
    pub dataset: String,
    /// The truth's format.
    pub truth_format: String,
    /// Provider id.
    pub provider: String,
    /// Provider adapter version.
    pub provider_version: String,
    /// Every metric of the suite: (id, value), null where the truth side is empty.
    pub metrics: Vec<(String, Option<f64>)>,
}

impl PaperRow {
    /// Returns a metric's value.
    pub fn get(&self, id: &str) -> Option<f64> {
        self.metrics.iter().find(|(m, _)| m == id).and_then(|(_, v)| *v)
    }
}

/// GROBID-style field scores pooled over the papers of one provider version and dataset:
/// counts summed over papers, then precision, recall and F1 per field and their micro and
/// macro averages, as GROBID's end-to-end evaluation reports a corpus.
#[derive(Debug, Clone, Serialize)]
pub struct FieldReport {
    /// Provider id.
    pub provider: String,
    /// Provider adapter version.
    pub provider_version: String,
    /// The truths' dataset.
    pub dataset: String,
    /// [`crate::metrics::fields::Pooled::report`]: `papers`, then per group (`header`,
    /// `citations`) and matching (`strict`, `soft`, `lev`, `ro`) the fields' `precision`,
    /// `recall`, `f1`, `support` and the `micro` and `macro` averages.
    pub report: serde_json::Value,
}

/// What an evaluation did.
#[derive(Debug, Clone, Default, Serialize)]
pub struct EvalSummary {
    /// Suite id.
    pub suite: &'static str,
    /// Suite version.
    pub suite_version: u32,
    /// (output, truth) pairs considered.
    pub pairs: u64,
    /// Pairs scored now.
    pub scored: u64,
    /// Pairs already scored by this suite version.
    pub cached: u64,
    /// Pairs that could not be scored.
    pub failures: Vec<EvalFailure>,
    /// Mean time of one scoring (all metrics and traces), in ms.
    pub score_ms_per_paper: Option<f64>,
    /// Every pair's values, computed now or before.
    pub rows: Vec<PaperRow>,
    /// The unweighted mean of each metric over the rows, nulls left out.
    pub average: Vec<(String, Option<f64>)>,
    /// The field scores pooled per provider version and dataset, GROBID's way.
    pub fields: Vec<FieldReport>,
}

/// Scores every selected output against every paper truth of its document.
pub fn eval(
    store: &mut Store,
    opts: &EvalOptions<'_>,
    progress: &dyn Progress,
) -> Result<EvalSummary> {
    let groups = truth_groups(store, opts.dataset, TruthFormat::is_paper)?;
    let mut by_doc: HashMap<i64, Vec<usize>> = HashMap::new();
    for (i, g) in groups.iter().enumerate() {
        by_doc.entry(g.document).or_default().push(i);
    }
    let outputs: Vec<_> = store
        .scorable_outputs(opts.provider)?
        .into_iter()
        .filter(|o| by_doc.contains_key(&o.document))
        .collect();
    let mut summary =
        EvalSummary { suite: SUITE, suite_version: PAPER_SUITE_VERSION, ..Default::default() };
    let total: usize = outputs.iter().map(|o| by_doc[&o.document].len()).sum(); // at most
    progress.start(total as u64);
    let mut truth_cache: HashMap<usize, std::result::Result<Paper, String>> = HashMap::new();
    let mut pools: std::collections::BTreeMap<(String, String, String), Pooled> =
        Default::default();
    let mut score_time = 0.0;
    for o in &outputs {
        let mut pred: Option<std::result::Result<Paper, String>> = None;
        for &gi in &by_doc[&o.document] {
            let g = &groups[gi];
            // A truth output stands for one truth: it is scored against that truth only, and
            // only as the current adapter renders it (an older rendering is stale).
            if o.provider == crate::providers::truth::ID
                && (o.model_digest != g.digest()
                    || o.provider_version != crate::providers::truth::ADAPTER_VERSION.to_string())
            {
                continue;
            }
            summary.pairs += 1;
            let name = store.name_in(g.document, &g.dataset)?.unwrap_or_default();
            let stored = store.metric_rows(o.id, g.id(), SUITE, PAPER_SUITE_VERSION)?;
            let pool = pools
                .entry((o.provider.clone(), o.provider_version.clone(), g.dataset.clone()))
                .or_default();
            let mut values: Vec<(String, Option<f64>)> =
                stored.iter().map(|r| (r.metric.clone(), r.value)).collect();
            if !stored.is_empty() {
                let traces: Vec<(&str, serde_json::Value)> = stored
                    .iter()
                    .filter(|r| is_field_f1(&r.metric))
                    .map(|r| {
                        let t = r.trace.as_deref().and_then(|t| serde_json::from_str(t).ok());
                        (r.metric.as_str(), t.unwrap_or_default())
                    })
                    .collect();
                pool.add(traces.iter().map(|(m, t)| (*m, t)));
            }
            if values.is_empty() {
                let fail = |error: String| EvalFailure {
                    document: name.clone(),
                    provider: o.provider.clone(),
                    error,
                };
                let p = pred.get_or_insert_with(|| load_prediction(store, &o.blob));
                let p = match p {
                    Ok(p) => p,
                    Err(e) => {
                        summary.failures.push(fail(e.clone()));
                        progress.advance(&name, false);
                        continue;
                    }
                };
                let truth = truth_cache
                    .entry(gi)
                    .or_insert_with(|| g.load_paper(store).map_err(|e| e.to_string()));
                let truth = match truth {
                    Ok(t) => t,
                    Err(e) => {
                        summary.failures.push(fail(e.clone()));
                        progress.advance(&name, false);
                        continue;
                    }
                };
                let t0 = Instant::now();
                let metrics = score(truth, p);
                score_time += t0.elapsed().as_secs_f64() * 1000.0;
                let rows: Vec<(&str, Option<f64>, String)> =
                    metrics.iter().map(|m| (m.id, m.value, m.trace.to_string())).collect();
                store.put_metrics(o.id, g.id(), SUITE, PAPER_SUITE_VERSION, opts.run, &rows)?;
                pool.add(metrics.iter().filter(|m| is_field_f1(m.id)).map(|m| (m.id, &m.trace)));
                // The rows are written whole in one transaction: what was stored is this.
                values = metrics.iter().map(|m| (m.id.to_string(), m.value)).collect();
                summary.scored += 1;
            } else {
                summary.cached += 1;
            }
            summary.rows.push(PaperRow {
                document: name.clone(),
                dataset: g.dataset.clone(),
                truth_format: g.format.as_str().to_string(),
                provider: o.provider.clone(),
                provider_version: o.provider_version.clone(),
                metrics: values,
            });
            progress.advance(&name, true);
        }
    }
    progress.finish();
    if summary.scored > 0 {
        summary.score_ms_per_paper = Some(score_time / summary.scored as f64);
    }
    summary.rows.sort_by(|a, b| {
        (&a.provider, &a.provider_version, &a.dataset, &a.document).cmp(&(
            &b.provider,
            &b.provider_version,
            &b.dataset,
            &b.document,
        ))
    });
    summary.average = average(&summary.rows);
    summary.fields = pools
        .into_iter()
        .map(|((provider, provider_version, dataset), pool)| FieldReport {
            provider,
            provider_version,
            dataset,
            report: pool.report(),
        })
        .collect();
    Ok(summary)
}

/// Whether a metric is a field score's F1, whose trace holds the counts that are pooled.
fn is_field_f1(id: &str) -> bool {
    (id.starts_with("hdr_") || id.starts_with("cit_")) && id.ends_with("_f")
}

fn load_prediction(store: &Store, blob: &str) -> std::result::Result<Paper, String> {
    let bytes = store
        .blob(blob)
        .map_err(|e| e.to_string())?
        .ok_or_else(|| format!("output blob {blob} is missing"))?;
    let doc: Doc =
        serde_json::from_slice(&bytes).map_err(|e| format!("output is not a Doc: {e}"))?;
    Ok(from_doc(&doc))
}

/// The unweighted mean of each metric over rows, leaving nulls out (a metric that is null
/// everywhere stays null).
pub fn average(rows: &[PaperRow]) -> Vec<(String, Option<f64>)> {
    let Some(first) = rows.first() else { return Vec::new() };
    first
        .metrics
        .iter()
        .map(|(id, _)| {
            let vals: Vec<f64> = rows.iter().filter_map(|r| r.get(id)).collect();
            let mean = (!vals.is_empty()).then(|| vals.iter().sum::<f64>() / vals.len() as f64);
            (id.clone(), mean)
        })
        .collect()
}

/// The per-paper table's columns: (header, metric id), as in the seed's report.
pub const COLUMNS: [(&str, &str); 6] = [
    ("Text", HEADLINE[0]),
    ("Table", HEADLINE[1]),
    ("Formula", HEADLINE[2]),
    ("Order", HEADLINE[3]),
    ("Refs", HEADLINE[4]),
    ("Mentions", HEADLINE[5]),
];

#[cfg(test)]
mod tests {
    use super::*;

    fn row(vals: &[Option<f64>]) -> PaperRow {
        PaperRow {
            document: "d".into(),
            dataset: "s".into(),
            truth_format: "peerread".into(),
            provider: "p".into(),
            provider_version: "1".into(),
            metrics: vals.iter().enumerate().map(|(i, v)| (format!("m{i}"), *v)).collect(),
        }
    }

    #[test]
    fn average_leaves_nulls_out_and_never_counts_them_as_zero() {
        let rows = [row(&[Some(1.0), None, None]), row(&[Some(0.5), Some(0.25), None])];
        let avg = average(&rows);
        assert_eq!(avg[0], ("m0".to_string(), Some(0.75)));
        assert_eq!(avg[1], ("m1".to_string(), Some(0.25)));
        assert_eq!(avg[2], ("m2".to_string(), None));
    }
}
