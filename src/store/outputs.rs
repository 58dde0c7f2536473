//! Provider outputs, keyed by cache key.

use rusqlite::params;

use super::{now, optional, put_blob, RunId, Store};
use crate::error::Result;

/// One provider result to store.
#[derive(Debug)]
pub struct NewOutput<'a> {
    /// The cache key (hex).
    pub cache_key: &'a str,
    /// The document id.
    pub document: i64,
    /// Provider id.
    pub provider: &'a str,
    /// Provider adapter version.
    pub provider_version: &'a str,
    /// Model digest (hex, or a short id for providers without weights).
    pub model_digest: &'a str,
    /// Canonical config JSON.
    pub config: &'a str,
    /// Page selection.
    pub pages: &'a str,
    /// The Doc JSON, or the error message.
    pub result: std::result::Result<&'a [u8], &'a str>,
    /// What it took: pages, wall and CPU time, tokens, cost.
    pub usage: Usage,
    /// Where it ran (`cpu`, `cuda`).
    pub device: &'a str,
    /// The run that produced it.
    pub run: Option<RunId>,
}

/// What one output took. `None` is unknown (not measured, or no price), never 0.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Usage {
    /// Pages read.
    pub pages: u64,
    /// Wall time, in ms.
    pub wall_ms: u64,
    /// CPU time of the process that did the work (and its children), in ms.
    pub cpu_ms: Option<u64>,
    /// Prompt tokens of every reply (endpoints).
    pub prompt_tokens: Option<u64>,
    /// Completion tokens of every reply (endpoints).
    pub completion_tokens: Option<u64>,
    /// Cost in US dollars at the prices in force (endpoints with a price).
    pub cost_usd: Option<f64>,
    /// What `cost_usd` rests on (endpoints with a cost).
    pub cost_basis: Option<CostBasis>,
    /// How the model's page replies ended (endpoints).
    pub replies: Option<ReplyHealth>,
}

/// What an output's cost rests on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CostBasis {
    /// Tokens × the price per token.
    Tokens,
    /// An estimate: the requests' wall time × the GPU's price per hour ÷ the concurrency the
    /// server actually ran.
    GpuTime,
}

impl CostBasis {
    /// The name stored in `outputs.cost_basis`.
    pub fn as_str(self) -> &'static str {
        match self {
            CostBasis::Tokens => "tokens",
            CostBasis::GpuTime => "gpu-time",
        }
    }
}

/// How a model's page replies ended, counted in pages: cut at the token limit, a repeated
/// tail removed, no text at all (docs/endpoints.md §Degenerate replies).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ReplyHealth {
    /// Pages with a reply cut at the token limit (`finish_reason` = `length`).
    pub cut: u64,
    /// Pages with a repeated tail removed.
    pub looped: u64,
    /// Pages whose replies gave no text.
    pub empty: u64,
}

/// A stored output row.
#[derive(Debug, Clone)]
pub struct OutputRow {
    /// Internal id.
    pub id: i64,
    /// Provider id.
    pub provider: String,
    /// Adapter version.
    pub provider_version: String,
    /// Model digest.
    pub model_digest: String,
    /// `ok` or `error`.
    pub status: String,
    /// Error message, for failures.
    pub error: Option<String>,
    /// Blob hash of the Doc JSON, for successes.
    pub blob: Option<String>,
    /// When it was stored.
    pub created_at: String,
}

/// Output counts of one provider version.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProviderCount {
    /// Provider id.
    pub provider: String,
    /// Adapter version.
    pub provider_version: String,
    /// Outputs with status ok.
    pub ok: i64,
    /// Recorded failures.
    pub errors: i64,
}

impl Store {
    /// Returns the status (`ok` or `error`) stored under a cache key, if any.
    ///
    /// A task's handle looks in the main store, then in its shard file; a success in either
    /// wins.
    pub(crate) fn output_status(&self, cache_key: &str) -> Result<Option<String>> {
        let mut st = self.conn.prepare_cached("SELECT status FROM outputs WHERE cache_key = ?1")?;
        let main: Option<String> = optional(st.query_row([cache_key], |r| r.get(0)))?;
        let Some(shard) = &self.shard else { return Ok(main) };
        if main.as_deref() == Some("ok") {
            return Ok(main);
        }
        Ok(shard.output_status(cache_key)?.or(main))
    }

    /// Stores an output or a failure in one transaction.
    ///
    /// A failure may be replaced later (by a retry); a success is never overwritten.
    /// Returns whether a row was written. A task's handle writes its shard file.
    pub fn put_output(&mut self, o: &NewOutput<'_>) -> Result<bool> {
        if let Some(shard) = self.shard.as_mut() {
            return shard.put_output(&self.conn, o);
        }
        let tx = self.conn.transaction()?;
        let n = insert_output(&tx, &o.document, o)?;
        // Endpoint outputs only, which are never sharded: shard files keep the older columns.
        if n && (o.usage.replies.is_some() || o.usage.cost_basis.is_some()) {
            let h = o.usage.replies;
            tx.prepare_cached(
                "UPDATE outputs SET pages_cut = ?2, pages_looped = ?3, pages_empty = ?4,
                        cost_basis = ?5 WHERE cache_key = ?1",
            )?
            .execute(params![
                o.cache_key,
                h.map(|h| h.cut as i64),
                h.map(|h| h.looped as i64),
                h.map(|h| h.empty as i64),
                o.usage.cost_basis.map(CostBasis::as_str)
            ])?;
        }
        tx.commit()?;
        Ok(n)
    }

    /// Returns the newest output of `provider` for a document (successes before failures).
    pub fn latest_output(&self, document: i64, provider: &str) -> Result<Option<OutputRow>> {
        let mut st = self.conn.prepare_cached(
            "SELECT id, provider, provider_version, model_digest, status, error, blob, created_at
             FROM outputs WHERE document = ?1 AND provider = ?2
             ORDER BY status = 'ok' DESC, created_at DESC, id DESC LIMIT 1",
        )?;
        optional(st.query_row(params![document, provider], |r| {
            Ok(OutputRow {
                id: r.get(0)?,
                provider: r.get(1)?,
                provider_version: r.get(2)?,
                model_digest: r.get(3)?,
                status: r.get(4)?,
                error: r.get(5)?,
                blob: r.get(6)?,
                created_at: r.get(7)?,
            })
        }))
    }

    /// Output counts per provider and version.
    pub fn provider_counts(&self) -> Result<Vec<ProviderCount>> {
        let mut st = self.conn.prepare_cached(
            "SELECT provider, provider_version, sum(status = 'ok'), sum(status = 'error')
             FROM outputs GROUP BY provider, provider_version ORDER BY provider, provider_version",
        )?;
        let rows = st.query_map([], |r| {
            Ok(ProviderCount {
                provider: r.get(0)?,
                provider_version: r.get(1)?,
                ok: r.get(2)?,
                errors: r.get(3)?,
            })
        })?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    /// Counts outputs per cache key that appear more than once (always 0: the key is unique).
    pub fn duplicate_outputs(&self) -> Result<i64> {
        Ok(self.conn.query_row(
            "SELECT count(*) FROM (SELECT document, provider, provider_version, model_digest, config,
                 pages FROM outputs GROUP BY 1, 2, 3, 4, 5, 6 HAVING count(*) > 1)",
            [],
            |r| r.get(0),
        )?)
    }
}

/// Writes one output row (and its blob) in `tx`: the statement shared by a store and a
/// shard file, which name the document differently (row id, content hash). A failure may
/// be replaced by a later attempt; a success never is. Returns whether a row was written.
pub(super) fn insert_output(
    tx: &rusqlite::Transaction<'_>,
    document: &dyn rusqlite::ToSql,
    o: &NewOutput<'_>,
) -> Result<bool> {
    let (status, error, blob) = match o.result {
        Ok(json) => ("ok", None, Some(put_blob(tx, json, "application/json")?)),
        Err(msg) => ("error", Some(msg), None),
    };
    let n = tx
        .prepare_cached(
            "INSERT INTO outputs (cache_key, document, provider, provider_version, model_digest,
                 config, pages, status, error, blob, wall_ms, device, run, created_at,
                 page_count, cpu_ms, prompt_tokens, completion_tokens, cost_usd)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14,
                     ?15, ?16, ?17, ?18, ?19)
             ON CONFLICT (cache_key) DO UPDATE SET
                 status = excluded.status, error = excluded.error, blob = excluded.blob,
                 wall_ms = excluded.wall_ms, device = excluded.device, run = excluded.run,
                 created_at = excluded.created_at, page_count = excluded.page_count,
                 cpu_ms = excluded.cpu_ms, prompt_tokens = excluded.prompt_tokens,
                 completion_tokens = excluded.completion_tokens, cost_usd = excluded.cost_usd
             WHERE outputs.status = 'error'",
        )?
        .execute(params![
            o.cache_key,
            document,
            o.provider,
            o.provider_version,
            o.model_digest,
            o.config,
            o.pages,
            status,
            error,
            blob,
            o.usage.wall_ms as i64,
            o.device,
            o.run.map(|r| r.0),
            now(),
            o.usage.pages as i64,
            o.usage.cpu_ms.map(|v| v as i64),
            o.usage.prompt_tokens.map(|v| v as i64),
            o.usage.completion_tokens.map(|v| v as i64),
            o.usage.cost_usd
        ])?;
    Ok(n > 0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::IngestDoc;

    fn setup() -> (Store, i64) {
        let mut s = Store::open_in_memory().unwrap();
        let d = s
            .ingest(&IngestDoc {
                dataset: "d",
                name: "a",
                source_path: "a.pdf",
                pdf: crate::store::PdfData::Bytes(b"pdf"),
                pages: 1,
                truths: &[],
                attributes: &[],
            })
            .unwrap()
            .document;
        (s, d)
    }

    fn out<'a>(doc: i64, result: std::result::Result<&'a [u8], &'a str>) -> NewOutput<'a> {
        NewOutput {
            cache_key: "k1",
            document: doc,
            provider: "p",
            provider_version: "1",
            model_digest: "m",
            config: "{}",
            pages: "all",
            result,
            usage: crate::store::Usage { wall_ms: 5, ..Default::default() },
            device: "cpu",
            run: None,
        }
    }

    #[test]
    fn an_error_is_replaced_by_a_retry_but_a_success_never_is() {
        let (mut s, d) = setup();
        assert!(s.put_output(&out(d, Err("boom"))).unwrap());
        assert_eq!(s.output_status("k1").unwrap().as_deref(), Some("error"));
        assert!(s.put_output(&out(d, Ok(b"{}"))).unwrap());
        assert_eq!(s.output_status("k1").unwrap().as_deref(), Some("ok"));
        assert!(!s.put_output(&out(d, Err("later"))).unwrap());
        assert_eq!(s.output_status("k1").unwrap().as_deref(), Some("ok"));
        assert_eq!(s.duplicate_outputs().unwrap(), 0);
        let row = s.latest_output(d, "p").unwrap().unwrap();
        assert_eq!(row.blob.unwrap(), blake3::hash(b"{}").to_hex().to_string());
    }
}
