//! What the HTML report (`corpus report --format html`) reads beyond the score columns: one
//! document's ok outputs and its newest score rows with their traces, the attribute names,
//! and the newest trace of a derived metric (olmOCR's `overall` holds the bootstrap interval).

use rusqlite::params;

use super::Store;
use crate::error::Result;

/// An ok output of a document, for drawing its blocks.
#[derive(Debug, Clone)]
pub struct SiteOutput {
    /// Output id.
    pub id: i64,
    /// Provider id.
    pub provider: String,
    /// Adapter version.
    pub provider_version: String,
    /// Model digest.
    pub model_digest: String,
    /// Blob hash of the Doc JSON.
    pub blob: String,
}

/// The newest score of one (output's provider version and model, dataset, metric) of a
/// document, with its trace.
#[derive(Debug, Clone)]
pub struct SiteScore {
    /// Output id.
    pub output: i64,
    /// Provider id.
    pub provider: String,
    /// Adapter version.
    pub provider_version: String,
    /// Model digest.
    pub model_digest: String,
    /// The truth's dataset.
    pub dataset: String,
    /// Metric id.
    pub metric: String,
    /// Value (`None`: the truth side is empty).
    pub value: Option<f64>,
    /// Trace JSON.
    pub trace: Option<String>,
}

impl Store {
    /// Lists a document's ok outputs, newest first.
    pub(crate) fn document_outputs(&self, document: i64) -> Result<Vec<SiteOutput>> {
        let mut st = self.conn.prepare_cached(
            "SELECT id, provider, provider_version, model_digest, blob FROM outputs
             WHERE document = ?1 AND status = 'ok' AND blob IS NOT NULL
             ORDER BY created_at DESC, id DESC",
        )?;
        let rows = st.query_map([document], |r| {
            Ok(SiteOutput {
                id: r.get(0)?,
                provider: r.get(1)?,
                provider_version: r.get(2)?,
                model_digest: r.get(3)?,
                blob: r.get(4)?,
            })
        })?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    /// Lists a document's newest score per (provider, version, model, dataset, metric) in a
    /// suite, with the trace, in the order `v_latest_scores` picks (newest `computed_at`,
    /// then output, then suite version), sorted by provider, version, model, dataset, metric.
    /// `CROSS JOIN` keeps SQLite's join order: the document's outputs by `outputs_document`,
    /// then their rows by `metrics_report` (suite, output); the other order scans every row
    /// of the suite for each document.
    pub(crate) fn document_scores(&self, document: i64, suite: &str) -> Result<Vec<SiteScore>> {
        let mut st = self.conn.prepare_cached(
            "SELECT o.id, o.provider, o.provider_version, o.model_digest, s.name, m.metric,
                    m.value, m.trace
             FROM outputs o CROSS JOIN metrics m ON m.output = o.id
             JOIN truths t ON t.id = m.truth JOIN datasets s ON s.id = t.dataset
             WHERE o.document = ?1 AND m.suite = ?2
             ORDER BY o.provider, o.provider_version, o.model_digest, s.name, m.metric,
                      m.computed_at DESC, o.id DESC, m.suite_version DESC",
        )?;
        newest_first(&mut st, params![document, suite])
    }

    /// Lists the names of the document attributes in use, sorted.
    pub(crate) fn attribute_names(&self) -> Result<Vec<String>> {
        let mut st = self
            .conn
            .prepare_cached("SELECT DISTINCT name FROM document_attributes ORDER BY name")?;
        let rows = st.query_map([], |r| r.get(0))?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    /// Returns the newest score of a metric per (provider, version, model digest, dataset) in
    /// a suite, with its trace: for derived rows such as olmOCR's `overall`, whose trace holds
    /// the bootstrap interval.
    pub(crate) fn latest_named(&self, suite: &str, metric: &str) -> Result<Vec<SiteScore>> {
        let mut st = self.conn.prepare_cached(
            "SELECT o.id, o.provider, o.provider_version, o.model_digest, s.name, m.metric,
                    m.value, m.trace
             FROM metrics m JOIN outputs o ON o.id = m.output JOIN truths t ON t.id = m.truth
             JOIN datasets s ON s.id = t.dataset
             WHERE m.suite = ?1 AND m.metric = ?2
             ORDER BY o.provider, o.provider_version, o.model_digest, s.name,
                      m.computed_at DESC, o.id DESC, m.suite_version DESC",
        )?;
        newest_first(&mut st, params![suite, metric])
    }
}

/// Runs a score query whose columns are those of [`SiteScore`] in order, sorted by provider,
/// version, model, dataset and metric with the newest row of each first, and keeps that
/// newest row of each.
fn newest_first(
    st: &mut rusqlite::CachedStatement<'_>,
    p: impl rusqlite::Params,
) -> Result<Vec<SiteScore>> {
    let rows = st.query_map(p, |r| {
        Ok(SiteScore {
            output: r.get(0)?,
            provider: r.get(1)?,
            provider_version: r.get(2)?,
            model_digest: r.get(3)?,
            dataset: r.get(4)?,
            metric: r.get(5)?,
            value: r.get(6)?,
            trace: r.get(7)?,
        })
    })?;
    let mut out: Vec<SiteScore> = Vec::new();
    for r in rows {
        let r = r?;
        let same = out.last().is_some_and(|l| {
            (&l.provider, &l.provider_version, &l.model_digest, &l.dataset, &l.metric)
                == (&r.provider, &r.provider_version, &r.model_digest, &r.dataset, &r.metric)
        });
        if !same {
            out.push(r);
        }
    }
    Ok(out)
}
