//! `corpus merge`: folds shard files into the main store, idempotently, by identity.
//!
//! One transaction per shard file: a file merges whole or not at all. Rows are matched by
//! what they are, never by their row ids: runs by uid, documents by content hash, outputs by
//! cache key, blobs by hash, truths by (document, dataset, format, part, blob), metric rows by
//! (output, truth, suite, suite version, metric). The rules (docs/scale-out.md):
//!
//! - an output the store lacks is added; one it has with the same blob is "present";
//! - a stored failure is superseded by the shard's success (a later retry); a shard failure
//!   where the store has a success is ignored;
//! - the same key with a different blob is a **conflict** (a provider that is not
//!   deterministic): both digests are reported and the stored output is kept; likewise a
//!   metric row with a different value or trace;
//! - a file that is not a shard file, is truncated or corrupt (SQLite's `quick_check`, and
//!   every blob checked against its hash), is of another format or store schema version, or
//!   names a document or truth the store does not hold, is refused with its path, and nothing
//!   of it is merged.
//!
//! Merging the same file twice changes nothing, not even the run list: the merge's own run
//! record is written only when a file brought something new.

use std::collections::HashMap;
use std::path::Path;

use rusqlite::{params, Connection, OptionalExtension, TransactionBehavior};
use serde::Serialize;

use super::shard::{open_for_merge, sqlite_words};
use super::{now, RunId, Store};
use crate::error::{Error, Result};

/// What merging one shard file did.
#[derive(Debug, Clone, Default, Serialize, PartialEq, Eq)]
pub struct MergeCounts {
    /// The file, as given.
    pub file: String,
    /// Runs added.
    pub runs_new: u64,
    /// Runs the store already had (by uid).
    pub runs_present: u64,
    /// Outputs added.
    pub new: u64,
    /// Outputs the store already had, with the same blob (or both failures).
    pub present: u64,
    /// Stored failures replaced by the shard's success.
    pub superseded: u64,
    /// Shard failures ignored because the store has a success.
    pub stale_errors: u64,
    /// Outputs with the same cache key and a different blob (the stored one is kept).
    pub conflicts: u64,
    /// Metric rows added.
    pub metrics_new: u64,
    /// Metric rows the store already had, equal.
    pub metrics_present: u64,
    /// Metric rows that differ from the stored ones (the stored ones are kept).
    pub metric_conflicts: u64,
    /// Bytes of output blobs added.
    pub bytes_new: u64,
    /// Documents a task made (`degrade --shard`) that the store did not have under their name.
    pub documents_new: u64,
    /// Documents a task made that the store had already, under the same name.
    pub documents_present: u64,
    /// Truth files of those documents that the store did not have.
    pub truths_new: u64,
    /// Failures those tasks recorded, added to the store's ingest errors.
    pub errors_new: u64,
}

impl MergeCounts {
    /// Whether the file changed the store.
    pub fn changed(&self) -> bool {
        self.runs_new
            + self.new
            + self.superseded
            + self.metrics_new
            + self.documents_new
            + self.truths_new
            > 0
    }

    /// Adds another file's counts (the file name is kept).
    pub fn add(&mut self, o: &MergeCounts) {
        self.runs_new += o.runs_new;
        self.runs_present += o.runs_present;
        self.new += o.new;
        self.present += o.present;
        self.superseded += o.superseded;
        self.stale_errors += o.stale_errors;
        self.conflicts += o.conflicts;
        self.metrics_new += o.metrics_new;
        self.metrics_present += o.metrics_present;
        self.metric_conflicts += o.metric_conflicts;
        self.bytes_new += o.bytes_new;
        self.documents_new += o.documents_new;
        self.documents_present += o.documents_present;
        self.truths_new += o.truths_new;
        self.errors_new += o.errors_new;
    }
}

/// One disagreement between a shard file and the store.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct Conflict {
    /// The shard file.
    pub file: String,
    /// The output's cache key.
    pub cache_key: String,
    /// The document's blake3.
    pub document: String,
    /// Provider id.
    pub provider: String,
    /// The metric, for a metric conflict.
    pub metric: Option<String>,
    /// What the store has (and keeps): a blob digest, or a metric value.
    pub stored: String,
    /// What the shard file has.
    pub shard: String,
}

/// What merging one shard file did, with its conflicts.
#[derive(Debug, Clone, Default, Serialize)]
pub struct MergeReport {
    /// Counts.
    pub counts: MergeCounts,
    /// Conflicts, in the file's order.
    pub conflicts: Vec<Conflict>,
}

fn refuse(path: &Path, msg: impl Into<String>) -> Error {
    Error::BadInput { path: path.to_path_buf(), msg: msg.into() }
}

/// A stored output, as merge compares it.
struct StoredOutput {
    id: i64,
    status: String,
    blob: Option<String>,
    document: i64,
    provider: String,
}

impl Store {
    /// Prepares for merging many files. Where this is the store's only connection, the merge
    /// runs in SQLite's rollback-journal mode (synchronous FULL) and the store goes back to
    /// WAL in [`Store::end_merge`]: the pages a merge adds are appended to the file once,
    /// where the write-ahead log would write them twice (log, then checkpoint), and only the
    /// pages it changes are journaled. Where other connections are open (a reader), the store
    /// stays in WAL and its log is checkpointed once at the end rather than after every file.
    /// A merge killed in between loses nothing: the next open rolls back or replays.
    pub fn begin_merge(&self) -> Result<()> {
        // Refused at once ("database is locked") while another connection is open.
        let mode: String = self
            .conn
            .query_row("PRAGMA journal_mode = DELETE", [], |r| r.get(0))
            .unwrap_or_else(|_| "wal".into());
        if mode.eq_ignore_ascii_case("delete") {
            self.conn.pragma_update(None, "synchronous", "FULL")?;
        } else {
            self.conn.pragma_update(None, "wal_autocheckpoint", 0)?;
        }
        Ok(())
    }

    /// Puts the store back in WAL mode (or checkpoints what [`Store::begin_merge`] let
    /// accumulate in the log).
    pub fn end_merge(&self) -> Result<()> {
        let _: String = self.conn.query_row("PRAGMA journal_mode = WAL", [], |r| r.get(0))?;
        self.conn.pragma_update(None, "synchronous", "NORMAL")?;
        let _: (i64, i64, i64) =
            self.conn.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |r| {
                Ok((r.get(0)?, r.get(1)?, r.get(2)?))
            })?;
        self.conn.pragma_update(None, "wal_autocheckpoint", 1000)?;
        Ok(())
    }

    /// Folds one shard file into this store in one transaction.
    ///
    /// `merge_run` is this merge's run record: created (with `args`) by the first file that
    /// brings something new, and shared by the files after it.
    pub fn merge_shard(
        &mut self,
        path: &Path,
        label: &str,
        args: &[String],
        merge_run: &mut Option<RunId>,
    ) -> Result<MergeReport> {
        if self.shard.is_some() {
            return Err(Error::Usage("a task's store handle cannot merge".into()));
        }
        let shard = open_for_merge(path)?;
        // Room for the indexes the merge looks up (cache keys, blob hashes) and for a whole
        // file's new pages before they spill: 128 MiB instead of SQLite's 2 MiB.
        self.conn.pragma_update(None, "cache_size", -131_072)?;
        let before = *merge_run;
        let result = self.merge_in(&shard, path, label, args, merge_run);
        if result.is_err() {
            // The transaction rolled back, and with it a merge run it created.
            *merge_run = before;
        }
        result.map_err(|e| match e {
            Error::Sqlite(e) => refuse(path, format!("cannot be merged: {}", sqlite_words(&e))),
            other => other,
        })
    }

    fn merge_in(
        &mut self,
        shard: &Connection,
        path: &Path,
        label: &str,
        args: &[String],
        merge_run: &mut Option<RunId>,
    ) -> Result<MergeReport> {
        let provenance = self.provenance.clone();
        let tx = self.conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
        let mut report = MergeReport {
            counts: MergeCounts { file: label.into(), ..Default::default() },
            ..Default::default()
        };
        let c = &mut report.counts;
        let mut ensure_merge_run = |tx: &Connection| -> Result<i64> {
            if let Some(r) = *merge_run {
                return Ok(r.0);
            }
            tx.prepare_cached(
                "INSERT INTO runs (command, args, started_at, corpus_version, uid, host, scheduler,
                     job_id, array_job_id, array_task_id)
                 VALUES ('merge', ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
            )?
            .execute(params![
                serde_json::to_string(args)?,
                now(),
                env!("CARGO_PKG_VERSION"),
                super::runs::new_uid(),
                provenance.host,
                provenance.scheduler,
                provenance.job_id,
                provenance.array_job_id,
                provenance.array_task_id
            ])?;
            let id = tx.last_insert_rowid();
            *merge_run = Some(RunId(id));
            Ok(id)
        };

        let runs = merge_runs(&tx, shard, label, c, &mut ensure_merge_run)?;
        let documents = merge_documents(&tx, shard, path)?;
        super::shard_ingest::merge_ingests(&tx, shard, path, c, &mut ensure_merge_run)?;
        let output_ids = merge_outputs(&tx, shard, path, label, &runs, &documents, &mut report)?;
        merge_metrics(&tx, shard, path, label, &runs, output_ids, &mut report)?;
        tx.commit()?;
        Ok(report)
    }
}

/// Phase 1, runs, by uid: a run merged before keeps its id (and takes a later end); a new one is
/// inserted as merged by this merge's run. Returns shard run id → store run id.
fn merge_runs(
    tx: &Connection,
    shard: &Connection,
    label: &str,
    c: &mut MergeCounts,
    ensure_merge_run: &mut dyn FnMut(&Connection) -> Result<i64>,
) -> Result<HashMap<i64, i64>> {
    let mut runs: HashMap<i64, i64> = HashMap::new();
    let mut st = shard.prepare(
        "SELECT id, uid, command, args, started_at, finished_at, corpus_version, counts,
                    errors, host, scheduler, job_id, array_job_id, array_task_id, shard
             FROM runs ORDER BY id",
    )?;
    let mut rows = st.query([])?;
    while let Some(r) = rows.next()? {
        let (id, uid): (i64, String) = (r.get(0)?, r.get(1)?);
        let found: Option<i64> = tx
            .prepare_cached("SELECT id FROM runs WHERE uid = ?1")?
            .query_row([&uid], |x| x.get(0))
            .optional()?;
        if let Some(main_id) = found {
            // A run merged before may have finished since (a resumed task): keep its
            // latest end, counts and errors.
            tx.prepare_cached(
                "UPDATE runs SET finished_at = ?2, counts = ?3, errors = ?4
                     WHERE id = ?1 AND finished_at IS NULL AND ?2 IS NOT NULL",
            )?
            .execute(params![
                main_id,
                r.get::<_, Option<String>>(5)?,
                r.get::<_, Option<String>>(7)?,
                r.get::<_, i64>(8)?
            ])?;
            runs.insert(id, main_id);
            c.runs_present += 1;
            continue;
        }
        let by = ensure_merge_run(tx)?;
        tx.prepare_cached(
            "INSERT INTO runs (uid, command, args, started_at, finished_at, corpus_version,
                     counts, errors, host, scheduler, job_id, array_job_id, array_task_id,
                     shard, merged_by, merged_from)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16)",
        )?
        .execute(params![
            uid,
            r.get::<_, String>(2)?,
            r.get::<_, String>(3)?,
            r.get::<_, String>(4)?,
            r.get::<_, Option<String>>(5)?,
            r.get::<_, String>(6)?,
            r.get::<_, Option<String>>(7)?,
            r.get::<_, i64>(8)?,
            r.get::<_, Option<String>>(9)?,
            r.get::<_, Option<String>>(10)?,
            r.get::<_, Option<String>>(11)?,
            r.get::<_, Option<String>>(12)?,
            r.get::<_, Option<String>>(13)?,
            r.get::<_, Option<String>>(14)?,
            by,
            label
        ])?;
        runs.insert(id, tx.last_insert_rowid());
        c.runs_new += 1;
    }
    Ok(runs)
}

/// Phase 2, documents, by content hash: every one must be in the store. Returns hash → store id.
fn merge_documents(
    tx: &Connection,
    shard: &Connection,
    path: &Path,
) -> Result<HashMap<String, i64>> {
    let mut documents: HashMap<String, i64> = HashMap::new();
    let mut st = shard.prepare("SELECT hash FROM documents ORDER BY hash")?;
    let hashes = st.query_map([], |r| r.get::<_, String>(0))?;
    let mut look = tx.prepare_cached("SELECT id FROM documents WHERE blob = ?1")?;
    for h in hashes {
        let h = h?;
        let Some(id) = look.query_row([&h], |r| r.get::<_, i64>(0)).optional()? else {
            return Err(refuse(
                path,
                format!(
                    "names document {h} that this store does not hold: the shard was made \
                         from another store (merge it there, or ingest that PDF first); \
                         nothing of it was merged"
                ),
            ));
        };
        documents.insert(h, id);
    }
    Ok(documents)
}

/// Phase 3, outputs, by cache key, with their blobs checked against their hashes. Returns cache
/// key → store output id.
fn merge_outputs(
    tx: &Connection,
    shard: &Connection,
    path: &Path,
    label: &str,
    runs: &HashMap<i64, i64>,
    documents: &HashMap<String, i64>,
    report: &mut MergeReport,
) -> Result<HashMap<String, i64>> {
    let c = &mut report.counts;
    let mut output_ids: HashMap<String, i64> = HashMap::new();
    let mut st = shard.prepare(
        "SELECT o.cache_key, o.document, o.provider, o.provider_version, o.model_digest,
                    o.config, o.pages, o.status, o.error, o.blob, o.wall_ms, o.device, o.run,
                    o.created_at, b.data, b.media_type, o.page_count, o.cpu_ms,
                    o.prompt_tokens, o.completion_tokens, o.cost_usd
             FROM outputs o LEFT JOIN blobs b ON b.hash = o.blob ORDER BY o.rowid",
    )?;
    let mut rows = st.query([])?;
    while let Some(r) = rows.next()? {
        let key: String = r.get(0)?;
        let doc_hash: String = r.get(1)?;
        let provider: String = r.get(2)?;
        let status: String = r.get(7)?;
        let blob: Option<String> = r.get(9)?;
        let run: Option<i64> = r.get::<_, Option<i64>>(12)?.and_then(|x| runs.get(&x).copied());
        let Some(&document) = documents.get(&doc_hash) else {
            return Err(refuse(path, format!("corrupt: output {key} names no document")));
        };
        let data: Option<&[u8]> = match r.get_ref(14)? {
            rusqlite::types::ValueRef::Blob(b) => Some(b),
            rusqlite::types::ValueRef::Null => None,
            _ => return Err(refuse(path, format!("output {key}: its blob is not bytes"))),
        };
        if status == "ok" {
            check_blob(path, &key, blob.as_deref(), data)?;
        }
        let stored = stored_output(tx, &key)?;
        let insert_blob = |tx: &Connection| -> Result<u64> {
            let (Some(hash), Some(data)) = (&blob, data) else { return Ok(0) };
            let media: String = r.get(15)?;
            let n = tx
                .prepare_cached(
                    "INSERT INTO blobs (hash, size, media_type, data) VALUES (?1, ?2, ?3, ?4)
                         ON CONFLICT (hash) DO NOTHING",
                )?
                .execute(params![hash, data.len() as i64, media, data])?;
            Ok(if n > 0 { data.len() as u64 } else { 0 })
        };
        match stored {
            None => {
                c.bytes_new += insert_blob(tx)?;
                tx.prepare_cached(
                    "INSERT INTO outputs (cache_key, document, provider, provider_version,
                             model_digest, config, pages, status, error, blob, wall_ms, device,
                             run, created_at, page_count, cpu_ms, prompt_tokens,
                             completion_tokens, cost_usd)
                         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14,
                                 ?15, ?16, ?17, ?18, ?19)",
                )?
                .execute(params![
                    key,
                    document,
                    provider,
                    r.get::<_, String>(3)?,
                    r.get::<_, String>(4)?,
                    r.get::<_, String>(5)?,
                    r.get::<_, String>(6)?,
                    status,
                    r.get::<_, Option<String>>(8)?,
                    blob,
                    r.get::<_, Option<i64>>(10)?,
                    r.get::<_, Option<String>>(11)?,
                    run,
                    r.get::<_, String>(13)?,
                    r.get::<_, Option<i64>>(16)?,
                    r.get::<_, Option<i64>>(17)?,
                    r.get::<_, Option<i64>>(18)?,
                    r.get::<_, Option<i64>>(19)?,
                    r.get::<_, Option<f64>>(20)?
                ])?;
                output_ids.insert(key, tx.last_insert_rowid());
                c.new += 1;
            }
            Some(s) => {
                output_ids.insert(key.clone(), s.id);
                let conflict = |stored: String, shard: String| Conflict {
                    file: label.into(),
                    cache_key: key.clone(),
                    document: doc_hash.clone(),
                    provider: provider.clone(),
                    metric: None,
                    stored,
                    shard,
                };
                if s.document != document || s.provider != provider {
                    c.conflicts += 1;
                    report.conflicts.push(conflict(
                        format!("document {} provider {}", s.document, s.provider),
                        format!("document {document} provider {provider}"),
                    ));
                    continue;
                }
                match (s.status.as_str(), status.as_str()) {
                    ("ok", "ok") if s.blob == blob => c.present += 1,
                    ("ok", "ok") => {
                        c.conflicts += 1;
                        report.conflicts.push(conflict(
                            s.blob.unwrap_or_default(),
                            blob.clone().unwrap_or_default(),
                        ));
                    }
                    ("ok", _) => c.stale_errors += 1,
                    (_, "ok") => {
                        c.bytes_new += insert_blob(tx)?;
                        tx.prepare_cached(
                            "UPDATE outputs SET status = 'ok', error = NULL, blob = ?2,
                                     wall_ms = ?3, device = ?4, run = ?5, created_at = ?6,
                                     page_count = ?7, cpu_ms = ?8, prompt_tokens = ?9,
                                     completion_tokens = ?10, cost_usd = ?11
                                 WHERE id = ?1",
                        )?
                        .execute(params![
                            s.id,
                            blob,
                            r.get::<_, Option<i64>>(10)?,
                            r.get::<_, Option<String>>(11)?,
                            run,
                            r.get::<_, String>(13)?,
                            r.get::<_, Option<i64>>(16)?,
                            r.get::<_, Option<i64>>(17)?,
                            r.get::<_, Option<i64>>(18)?,
                            r.get::<_, Option<i64>>(19)?,
                            r.get::<_, Option<f64>>(20)?
                        ])?;
                        c.superseded += 1;
                    }
                    _ => c.present += 1,
                }
            }
        }
    }
    Ok(output_ids)
}

/// Refuses an ok output whose blob is missing or does not match its hash.
fn check_blob(path: &Path, key: &str, blob: Option<&str>, data: Option<&[u8]>) -> Result<()> {
    let (Some(hash), Some(data)) = (blob, data) else {
        return Err(refuse(path, format!("corrupt: output {key} is ok but its blob is missing")));
    };
    if blake3::hash(data).to_hex().as_str() != hash {
        return Err(refuse(
            path,
            format!("corrupt: the blob of output {key} does not match its hash {hash}"),
        ));
    }
    Ok(())
}

/// Phase 4, metric rows, on outputs by cache key and truths by identity.
fn merge_metrics(
    tx: &Connection,
    shard: &Connection,
    path: &Path,
    label: &str,
    runs: &HashMap<i64, i64>,
    mut output_ids: HashMap<String, i64>,
    report: &mut MergeReport,
) -> Result<()> {
    let c = &mut report.counts;
    let mut st = shard.prepare(
        "SELECT m.output, t.document, t.dataset, t.format, t.part, t.blob, m.suite,
                    m.suite_version, m.metric, m.value, m.trace, m.run, m.computed_at
             FROM metrics m JOIN truths t ON t.id = m.truth ORDER BY m.rowid",
    )?;
    let mut rows = st.query([])?;
    let mut truths: HashMap<[String; 5], i64> = HashMap::new();
    while let Some(r) = rows.next()? {
        let key: String = r.get(0)?;
        let output = match output_ids.get(&key) {
            Some(&id) => id,
            None => match stored_output(tx, &key)? {
                Some(s) => {
                    output_ids.insert(key.clone(), s.id);
                    s.id
                }
                None => {
                    return Err(refuse(
                        path,
                        format!(
                            "has scores of output {key}, which neither this store nor the \
                                 shard file holds (merge the shard files of its `ocr` run \
                                 first); nothing of it was merged"
                        ),
                    ))
                }
            },
        };
        let ident: [String; 5] = [r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?, r.get(5)?];
        let truth = match truths.get(&ident) {
            Some(&t) => t,
            None => {
                let found: Option<i64> = tx
                    .prepare_cached(
                        "SELECT t.id FROM truths t JOIN documents d ON d.id = t.document
                             JOIN datasets s ON s.id = t.dataset
                             WHERE d.blob = ?1 AND s.name = ?2 AND t.format = ?3
                               AND t.part = ?4 AND t.blob = ?5",
                    )?
                    .query_row(params![ident[0], ident[1], ident[2], ident[3], ident[4]], |x| {
                        x.get(0)
                    })
                    .optional()?;
                let Some(t) = found else {
                    return Err(refuse(
                        path,
                        format!(
                            "has scores against a {} truth of document {} in dataset {} \
                                 that this store does not hold; nothing of it was merged",
                            ident[2], ident[0], ident[1]
                        ),
                    ));
                };
                truths.insert(ident.clone(), t);
                t
            }
        };
        let suite: String = r.get(6)?;
        let version: i64 = r.get(7)?;
        let metric: String = r.get(8)?;
        let value: Option<f64> = r.get(9)?;
        let trace: Option<String> = r.get(10)?;
        let run: Option<i64> = r.get::<_, Option<i64>>(11)?.and_then(|x| runs.get(&x).copied());
        let n = tx
            .prepare_cached(
                "INSERT INTO metrics (output, truth, suite, suite_version, metric, value,
                         trace, run, computed_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)
                     ON CONFLICT (output, truth, suite, suite_version, metric) DO NOTHING",
            )?
            .execute(params![
                output,
                truth,
                suite,
                version,
                metric,
                value,
                trace,
                run,
                r.get::<_, String>(12)?
            ])?;
        if n > 0 {
            c.metrics_new += 1;
            continue;
        }
        let (v, t): (Option<f64>, Option<String>) = tx
            .prepare_cached(
                "SELECT value, trace FROM metrics WHERE output = ?1 AND truth = ?2
                     AND suite = ?3 AND suite_version = ?4 AND metric = ?5",
            )?
            .query_row(params![output, truth, suite, version, metric], |x| {
                Ok((x.get(0)?, x.get(1)?))
            })?;
        let same_value = match (v, value) {
            (Some(a), Some(b)) => a.to_bits() == b.to_bits() || a == b,
            (None, None) => true,
            _ => false,
        };
        if same_value && t == trace {
            c.metrics_present += 1;
        } else {
            c.metric_conflicts += 1;
            let show = |v: Option<f64>| v.map_or("null".to_string(), |x| format!("{x}"));
            report.conflicts.push(Conflict {
                file: label.into(),
                cache_key: key,
                document: ident[0].clone(),
                provider: String::new(),
                metric: Some(format!("{suite} v{version} {metric}")),
                stored: if same_value { "same value, other trace".into() } else { show(v) },
                shard: show(value),
            });
        }
    }
    Ok(())
}

fn stored_output(tx: &Connection, key: &str) -> Result<Option<StoredOutput>> {
    Ok(tx
        .prepare_cached(
            "SELECT id, status, blob, document, provider FROM outputs WHERE cache_key = ?1",
        )?
        .query_row([key], |r| {
            Ok(StoredOutput {
                id: r.get(0)?,
                status: r.get(1)?,
                blob: r.get(2)?,
                document: r.get(3)?,
                provider: r.get(4)?,
            })
        })
        .optional()?)
}

#[cfg(test)]
#[path = "merge_tests.rs"]
mod tests;
