//! What suites that score several outputs at once need (olmOCR-bench: every repeat of a page):
//! outputs with their configs and pages, whole scorings with traces, derived rows that are
//! rewritten in place, and scores looked up by metric id.

use rusqlite::params;

use super::{RunId, Store};
use crate::error::Result;

/// An ok output with its config and page selection.
#[derive(Debug, Clone)]
pub struct PageOutput {
    /// Output id.
    pub id: i64,
    /// Document id.
    pub document: i64,
    /// Provider id.
    pub provider: String,
    /// Adapter version.
    pub provider_version: String,
    /// Model digest.
    pub model_digest: String,
    /// Canonical config JSON.
    pub config: String,
    /// Page selection (`all`, `3`).
    pub pages: String,
    /// Blob hash of the Doc JSON.
    pub blob: String,
}

/// One stored metric row of a scoring.
#[derive(Debug, Clone)]
pub struct MetricRow {
    /// Metric id.
    pub metric: String,
    /// Value.
    pub value: Option<f64>,
    /// Trace JSON.
    pub trace: Option<String>,
}

/// A stored score found by its metric id, with the document it is on.
#[derive(Debug, Clone, serde::Serialize)]
pub struct NamedScore {
    /// The document's name in the truth's dataset.
    pub document: String,
    /// The truth's dataset.
    pub dataset: String,
    /// Provider id.
    pub provider: String,
    /// Adapter version.
    pub provider_version: String,
    /// Suite version.
    pub suite_version: i64,
    /// Metric id.
    pub metric: String,
    /// Value.
    pub value: Option<f64>,
    /// Trace JSON.
    pub trace: Option<String>,
    /// When it was computed.
    pub computed_at: String,
}

impl Store {
    /// Returns a document's page count (0 if there is no such document).
    pub(crate) fn document_pages(&self, document: i64) -> Result<u32> {
        let mut st = self.conn.prepare_cached("SELECT pages FROM documents WHERE id = ?1")?;
        Ok(super::optional(st.query_row([document], |r| r.get(0)))?.unwrap_or(0))
    }

    /// Lists ok outputs with config and pages, optionally of one provider, in id order.
    pub(crate) fn page_outputs(&self, provider: Option<&str>) -> Result<Vec<PageOutput>> {
        let mut st = self.conn.prepare_cached(
            "SELECT id, document, provider, provider_version, model_digest, config, pages, blob
             FROM outputs WHERE status = 'ok' AND (?1 IS NULL OR provider = ?1) ORDER BY id",
        )?;
        let rows = st.query_map([provider], |r| {
            Ok(PageOutput {
                id: r.get(0)?,
                document: r.get(1)?,
                provider: r.get(2)?,
                provider_version: r.get(3)?,
                model_digest: r.get(4)?,
                config: r.get(5)?,
                pages: r.get(6)?,
                blob: r.get(7)?,
            })
        })?;
        let rows: Vec<PageOutput> = rows.collect::<rusqlite::Result<_>>()?;
        Ok(rows.into_iter().filter(|o| self.in_shard(o.document)).collect())
    }

    /// Returns the stored rows (with traces) of one scoring, empty if it was never scored.
    pub(crate) fn metric_rows(
        &self,
        output: i64,
        truth: i64,
        suite: &str,
        version: u32,
    ) -> Result<Vec<MetricRow>> {
        let mut st = self.conn.prepare_cached(
            "SELECT metric, value, trace FROM metrics
             WHERE output = ?1 AND truth = ?2 AND suite = ?3 AND suite_version = ?4 ORDER BY id",
        )?;
        let rows = st.query_map(params![output, truth, suite, version], |r| {
            Ok(MetricRow { metric: r.get(0)?, value: r.get(1)?, trace: r.get(2)? })
        })?;
        let rows: Vec<MetricRow> = rows.collect::<rusqlite::Result<_>>()?;
        match &self.shard {
            // A task's handle: what the main store has, else what the shard file has.
            Some(shard) if rows.is_empty() => {
                shard.metric_rows(&self.conn, output, truth, suite, version)
            }
            _ => Ok(rows),
        }
    }

    /// Stores derived rows (aggregates over many documents) on one (output, truth) pair in one
    /// transaction, replacing the same metric's earlier value for this suite version: they are
    /// recomputed from the per-document rows whenever the set of documents changes. A task's
    /// handle writes none (it sees one shard of the documents).
    pub(crate) fn put_derived_metrics(
        &mut self,
        output: i64,
        truth: i64,
        suite: &str,
        version: u32,
        run: Option<RunId>,
        rows: &[(&str, Option<f64>, String)],
    ) -> Result<()> {
        self.insert_metrics(
            output,
            truth,
            suite,
            version,
            run,
            rows,
            super::metrics::OnConflict::Replace,
        )
    }

    /// Finds scores by suite and metric id (`pass:<test id>`), optionally of one provider,
    /// newest first.
    pub fn scores_named(
        &self,
        suite: &str,
        metric: &str,
        provider: Option<&str>,
    ) -> Result<Vec<NamedScore>> {
        let mut st = self.conn.prepare_cached(
            "SELECT n.name, s.name, o.provider, o.provider_version, m.suite_version, m.metric,
                    m.value, m.trace, m.computed_at
             FROM metrics m JOIN outputs o ON o.id = m.output JOIN truths t ON t.id = m.truth
             JOIN datasets s ON s.id = t.dataset
             JOIN document_names n ON n.document = o.document AND n.dataset = t.dataset
             WHERE m.suite = ?1 AND m.metric = ?2 AND (?3 IS NULL OR o.provider = ?3)
             GROUP BY m.id
             ORDER BY m.computed_at DESC, m.suite_version DESC, m.id DESC",
        )?;
        let rows = st.query_map(params![suite, metric, provider], |r| {
            Ok(NamedScore {
                document: r.get(0)?,
                dataset: r.get(1)?,
                provider: r.get(2)?,
                provider_version: r.get(3)?,
                suite_version: r.get(4)?,
                metric: r.get(5)?,
                value: r.get(6)?,
                trace: r.get(7)?,
                computed_at: r.get(8)?,
            })
        })?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    /// Lists one suite's scores of a document from every provider, newest first.
    pub fn scores_named_on(&self, document: i64, suite: &str) -> Result<Vec<super::ScoreRow>> {
        let mut st = self.conn.prepare_cached(
            "SELECT m.suite, m.suite_version, m.metric, m.value, m.trace, o.provider,
                    o.provider_version, t.format, s.name, m.computed_at
             FROM metrics m JOIN outputs o ON o.id = m.output JOIN truths t ON t.id = m.truth
             JOIN datasets s ON s.id = t.dataset
             WHERE o.document = ?1 AND m.suite = ?2
             ORDER BY m.computed_at DESC, m.suite_version DESC, o.id DESC, m.id",
        )?;
        let rows = st.query_map(params![document, suite], super::metrics::score_row)?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::{IngestDoc, NewOutput, TruthFile};

    #[test]
    fn derived_rows_are_rewritten_in_place_and_found_by_metric_id() {
        let mut s = Store::open_in_memory().unwrap();
        let truth =
            [TruthFile { format: "olmocr-bench", part: "g", bytes: b"{}", source_path: "g" }];
        let doc = s
            .ingest(&IngestDoc {
                dataset: "d",
                name: "a",
                source_path: "a.pdf",
                pdf: crate::store::PdfData::Bytes(b"pdf"),
                pages: 1,
                truths: &truth,
                attributes: &[],
            })
            .unwrap()
            .document;
        s.put_output(&NewOutput {
            cache_key: "k",
            document: doc,
            provider: "p",
            provider_version: "1",
            model_digest: "-",
            config: r#"{"repeat":1}"#,
            pages: "1",
            result: Ok(b"{}"),
            usage: crate::store::Usage::default(),
            device: "import",
            run: None,
        })
        .unwrap();
        let out = s.page_outputs(Some("p")).unwrap();
        assert_eq!((out.len(), out[0].pages.as_str()), (1, "1"));
        let t = s.truths(None).unwrap()[0].id;
        let o = out[0].id;
        s.put_derived_metrics(o, t, "olmocr", 1, None, &[("overall", Some(0.5), "{}".into())])
            .unwrap();
        s.put_derived_metrics(o, t, "olmocr", 1, None, &[("overall", Some(0.75), "{}".into())])
            .unwrap();
        let rows = s.metric_rows(o, t, "olmocr", 1).unwrap();
        assert_eq!(rows.len(), 1);
        assert_eq!(rows[0].value, Some(0.75));
        let named = s.scores_named("olmocr", "overall", None).unwrap();
        assert_eq!((named.len(), named[0].document.as_str()), (1, "a"));
        assert_eq!(s.scores_named_on(doc, "olmocr").unwrap().len(), 1);
    }
}
