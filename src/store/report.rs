//! Score rows for `corpus report`, read through the public views, and document attributes.

use rusqlite::params;

use super::Store;
use crate::error::Result;

/// Which scores to read.
#[derive(Debug, Clone, Default)]
pub struct ScoreFilter<'a> {
    /// Only the newest score per document / provider version / model / suite / metric
    /// (`v_latest_scores`), else every score ever computed (`v_scores`).
    pub latest: bool,
    /// Only this suite.
    pub suite: Option<&'a str>,
    /// Only documents named in this dataset.
    pub dataset: Option<&'a str>,
    /// Only this provider.
    pub provider: Option<&'a str>,
    /// Only this metric.
    pub metric: Option<&'a str>,
    /// Only scores computed by this run or a later one.
    pub since_run: Option<i64>,
    /// Only scores computed at or after this time (`YYYY-MM-DDTHH:MM:SS.mmmZ` or a prefix).
    pub since_time: Option<&'a str>,
    /// Also read this document attribute.
    pub attribute: Option<&'a str>,
}

/// Score rows, column by column.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ScoreColumns {
    /// Document name.
    pub document: Vec<String>,
    /// Dataset of the truth.
    pub dataset: Vec<String>,
    /// Provider id.
    pub provider: Vec<String>,
    /// Provider version.
    pub provider_version: Vec<String>,
    /// Model digest.
    pub model_digest: Vec<String>,
    /// Metric id.
    pub metric: Vec<String>,
    /// Value (`None` where the truth side is empty).
    pub value: Vec<Option<f64>>,
    /// When it was computed.
    pub computed_at: Vec<String>,
    /// The run that computed it.
    pub run: Vec<Option<i64>>,
    /// When that run started.
    pub run_started_at: Vec<Option<String>>,
    /// The requested attribute's value.
    pub attribute: Vec<Option<String>>,
}

impl Store {
    /// Reads score rows through `v_latest_scores` or `v_scores`.
    pub fn score_columns(&self, f: &ScoreFilter<'_>) -> Result<ScoreColumns> {
        let view = if f.latest { "v_latest_scores" } else { "v_scores" };
        let sql = format!(
            "SELECT s.document, s.dataset, s.provider, s.provider_version, s.model_digest,
                    s.metric, s.value, s.computed_at, s.run, r.started_at, a.value
             FROM {view} s
             LEFT JOIN v_runs r ON r.run = s.run
             LEFT JOIN v_document_attributes a
                    ON ?1 IS NOT NULL AND a.document_id = s.document_id
                   AND a.dataset = s.dataset AND a.attribute = ?1
             WHERE (?2 IS NULL OR s.suite = ?2) AND (?3 IS NULL OR s.dataset = ?3)
               AND (?4 IS NULL OR s.provider = ?4) AND (?5 IS NULL OR s.metric = ?5)
               AND (?6 IS NULL OR s.run >= ?6) AND (?7 IS NULL OR s.computed_at >= ?7)"
        );
        let mut st = self.conn.prepare(&sql)?;
        let mut rows = st.query(params![
            f.attribute,
            f.suite,
            f.dataset,
            f.provider,
            f.metric,
            f.since_run,
            f.since_time
        ])?;
        let mut c = ScoreColumns::default();
        // Consecutive rows repeat most strings: reuse the previous allocation when equal.
        fn push(col: &mut Vec<String>, v: &str) {
            match col.last() {
                Some(last) if last == v => {
                    let again = last.clone();
                    col.push(again);
                }
                _ => col.push(v.to_string()),
            }
        }
        while let Some(r) = rows.next()? {
            push(&mut c.document, r.get_ref(0)?.as_str().map_err(rusqlite::Error::from)?);
            push(&mut c.dataset, r.get_ref(1)?.as_str().map_err(rusqlite::Error::from)?);
            push(&mut c.provider, r.get_ref(2)?.as_str().map_err(rusqlite::Error::from)?);
            push(&mut c.provider_version, r.get_ref(3)?.as_str().map_err(rusqlite::Error::from)?);
            push(&mut c.model_digest, r.get_ref(4)?.as_str().map_err(rusqlite::Error::from)?);
            push(&mut c.metric, r.get_ref(5)?.as_str().map_err(rusqlite::Error::from)?);
            c.value.push(r.get(6)?);
            push(&mut c.computed_at, r.get_ref(7)?.as_str().map_err(rusqlite::Error::from)?);
            c.run.push(r.get(8)?);
            c.run_started_at.push(r.get(9)?);
            c.attribute.push(r.get(10)?);
        }
        Ok(c)
    }

    /// Sets an attribute of a document in a dataset (replacing an earlier value).
    pub fn set_attribute(
        &mut self,
        document: i64,
        dataset: &str,
        name: &str,
        value: &str,
    ) -> Result<()> {
        self.conn
            .prepare_cached(
                "INSERT INTO document_attributes (document, dataset, name, value)
                 SELECT ?1, id, ?3, ?4 FROM datasets WHERE name = ?2
                 ON CONFLICT (document, dataset, name) DO UPDATE SET value = excluded.value",
            )?
            .execute(params![document, dataset, name, value])?;
        Ok(())
    }
}
