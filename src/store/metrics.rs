//! Metric rows: one per (output, truth, suite, suite version, metric).

use rusqlite::params;

use super::{now, RunId, Store};
use crate::error::Result;

/// An ok output that a suite can score.
#[derive(Debug, Clone)]
pub struct ScorableOutput {
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
    /// Blob hash of the Doc JSON.
    pub blob: String,
}

/// The newest value of one metric of one document and provider (`v_latest_scores`).
#[derive(Debug, Clone, PartialEq)]
pub struct LatestValue {
    /// The document's name.
    pub document: String,
    /// Provider id.
    pub provider: String,
    /// Metric id.
    pub metric: String,
    /// The value.
    pub value: f64,
}

/// One stored score with its context, for `corpus show`.
#[derive(Debug, Clone, serde::Serialize)]
pub struct ScoreRow {
    /// Suite id.
    pub suite: String,
    /// Suite version.
    pub suite_version: i64,
    /// Metric id.
    pub metric: String,
    /// The value (`None`: the truth side is empty).
    pub value: Option<f64>,
    /// The trace JSON.
    pub trace: Option<String>,
    /// Provider id.
    pub provider: String,
    /// Adapter version.
    pub provider_version: String,
    /// Truth format.
    pub truth_format: String,
    /// Truth dataset.
    pub dataset: String,
    /// When it was computed.
    pub computed_at: String,
}

/// What an insert does with a metric row that already exists.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum OnConflict {
    /// Keep the stored row (scores are insert-once per suite version).
    Keep,
    /// Replace its value and trace (derived rows, recomputed from the others).
    Replace,
}

impl Store {
    /// Lists ok outputs, optionally of one provider, in id order.
    pub fn scorable_outputs(&self, provider: Option<&str>) -> Result<Vec<ScorableOutput>> {
        let mut st = self.conn.prepare_cached(
            "SELECT id, document, provider, provider_version, model_digest, blob FROM outputs
             WHERE status = 'ok' AND (?1 IS NULL OR provider = ?1) ORDER BY id",
        )?;
        let rows = st.query_map([provider], |r| {
            Ok(ScorableOutput {
                id: r.get(0)?,
                document: r.get(1)?,
                provider: r.get(2)?,
                provider_version: r.get(3)?,
                model_digest: r.get(4)?,
                blob: r.get(5)?,
            })
        })?;
        let rows: Vec<ScorableOutput> = rows.collect::<rusqlite::Result<_>>()?;
        Ok(rows.into_iter().filter(|o| self.in_shard(o.document)).collect())
    }

    /// Returns the stored (metric, value) pairs of one scoring, empty if it was never scored.
    #[cfg(test)]
    pub(crate) fn metric_values(
        &self,
        output: i64,
        truth: i64,
        suite: &str,
        version: u32,
    ) -> Result<Vec<(String, Option<f64>)>> {
        let rows = self.metric_rows(output, truth, suite, version)?;
        Ok(rows.into_iter().map(|r| (r.metric, r.value)).collect())
    }

    /// Stores one scoring (every metric of one output against one truth) in one transaction.
    /// Rows that exist already are kept as they are.
    pub fn put_metrics(
        &mut self,
        output: i64,
        truth: i64,
        suite: &str,
        version: u32,
        run: Option<RunId>,
        rows: &[(&str, Option<f64>, String)],
    ) -> Result<()> {
        self.insert_metrics(output, truth, suite, version, run, rows, OnConflict::Keep)
    }

    /// Inserts metric rows in one transaction; `on_conflict` says what happens to a row of the
    /// same (output, truth, suite, version, metric) that is already there.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn insert_metrics(
        &mut self,
        output: i64,
        truth: i64,
        suite: &str,
        version: u32,
        run: Option<RunId>,
        rows: &[(&str, Option<f64>, String)],
        on_conflict: OnConflict,
    ) -> Result<()> {
        if let Some(shard) = self.shard.as_mut() {
            // Derived rows summarise every document; a task sees only its shard, so they
            // are left to an `eval` over the merged store (docs/scale-out.md).
            if on_conflict == OnConflict::Replace {
                return Ok(());
            }
            return shard.put_metrics(&self.conn, output, truth, suite, version, run, rows);
        }
        let conflict = match on_conflict {
            OnConflict::Keep => "DO NOTHING",
            OnConflict::Replace => {
                "DO UPDATE SET
                     value = excluded.value, trace = excluded.trace, run = excluded.run,
                     computed_at = excluded.computed_at
                 WHERE metrics.value IS NOT excluded.value OR metrics.trace IS NOT excluded.trace"
            }
        };
        let tx = self.conn.transaction()?;
        insert_metrics(&tx, &output, truth, suite, version, run, rows, conflict)?;
        tx.commit()?;
        Ok(())
    }

    /// Lists the scores of one document's outputs from `provider`, newest suite version and
    /// output first, optionally of one suite or metric.
    pub fn scores(
        &self,
        document: i64,
        provider: &str,
        suite: Option<&str>,
        metric: Option<&str>,
    ) -> Result<Vec<ScoreRow>> {
        let mut st = self.conn.prepare_cached(
            "SELECT m.suite, m.suite_version, m.metric, m.value, m.trace, o.provider,
                    o.provider_version, t.format, s.name, m.computed_at
             FROM metrics m JOIN outputs o ON o.id = m.output JOIN truths t ON t.id = m.truth
             JOIN datasets s ON s.id = t.dataset
             WHERE o.document = ?1 AND o.provider = ?2 AND (?3 IS NULL OR m.suite = ?3)
               AND (?4 IS NULL OR m.metric = ?4)
             ORDER BY m.suite, m.suite_version DESC, o.id DESC, t.id DESC, m.id",
        )?;
        let rows = st.query_map(params![document, provider, suite, metric], score_row)?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    /// Lists the newest non-null value of every metric of a suite (optionally of one
    /// provider), per document name and provider.
    pub fn latest_values(&self, suite: &str, provider: Option<&str>) -> Result<Vec<LatestValue>> {
        let mut st = self.conn.prepare_cached(
            "SELECT document, provider, metric, value FROM v_latest_scores
             WHERE suite = ?1 AND (?2 IS NULL OR provider = ?2) AND value IS NOT NULL
             ORDER BY metric, document, provider",
        )?;
        let rows = st.query_map(params![suite, provider], |r| {
            Ok(LatestValue {
                document: r.get(0)?,
                provider: r.get(1)?,
                metric: r.get(2)?,
                value: r.get(3)?,
            })
        })?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    /// Returns the name of a document in a dataset (the first, by name).
    pub fn name_in(&self, document: i64, dataset: &str) -> Result<Option<String>> {
        let mut st = self.conn.prepare_cached(
            "SELECT n.name FROM document_names n JOIN datasets s ON s.id = n.dataset
             WHERE n.document = ?1 AND s.name = ?2 ORDER BY n.name LIMIT 1",
        )?;
        super::optional(st.query_row(params![document, dataset], |r| r.get(0)))
    }
}

/// Reads a [`ScoreRow`] from the columns `suite, suite_version, metric, value, trace,
/// provider, provider_version, truth format, dataset name, computed_at`, in that order.
pub(super) fn score_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<ScoreRow> {
    Ok(ScoreRow {
        suite: r.get(0)?,
        suite_version: r.get(1)?,
        metric: r.get(2)?,
        value: r.get(3)?,
        trace: r.get(4)?,
        provider: r.get(5)?,
        provider_version: r.get(6)?,
        truth_format: r.get(7)?,
        dataset: r.get(8)?,
        computed_at: r.get(9)?,
    })
}

/// Writes one output's metric rows in `tx`, with `conflict` as the `ON CONFLICT` action
/// (`DO NOTHING`, or an update): the statement shared by a store and a shard file, which
/// name the output differently (row id, cache key).
#[allow(clippy::too_many_arguments)]
pub(super) fn insert_metrics(
    tx: &rusqlite::Transaction<'_>,
    output: &dyn rusqlite::ToSql,
    truth: i64,
    suite: &str,
    version: u32,
    run: Option<RunId>,
    rows: &[(&str, Option<f64>, String)],
    conflict: &str,
) -> Result<()> {
    let sql = format!(
        "INSERT INTO metrics (output, truth, suite, suite_version, metric, value, trace, run,
             computed_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)
         ON CONFLICT (output, truth, suite, suite_version, metric) {conflict}"
    );
    let mut st = tx.prepare_cached(&sql)?;
    let at = now();
    for (metric, value, trace) in rows {
        st.execute(params![
            output,
            truth,
            suite,
            version,
            metric,
            value,
            trace,
            run.map(|r| r.0),
            at
        ])?;
    }
    Ok(())
}
