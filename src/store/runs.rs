//! Runs: one row per invocation that writes, with where it ran.

use std::io::Read;

use rusqlite::params;

use super::{now, Store};
use crate::error::Result;

/// A run's id.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RunId(pub i64);

/// A new run's identity: unique across machines, so that a run merged in from a shard file is
/// recognised when the same file is merged again.
pub(super) fn new_uid() -> String {
    let mut h = blake3::Hasher::new();
    let mut random = [0u8; 16];
    if let Ok(mut f) = std::fs::File::open("/dev/urandom") {
        let _ = f.read_exact(&mut random);
    }
    h.update(&random);
    h.update(&std::process::id().to_le_bytes());
    let t = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
    h.update(&t.as_nanos().to_le_bytes());
    h.update(crate::cluster::Provenance::here().host.unwrap_or_default().as_bytes());
    h.finalize().to_hex()[..32].to_string()
}

impl Store {
    /// Records the start of a run (with this process's host and scheduler) and returns its id.
    /// A task's handle records it in its shard file.
    pub fn start_run(&self, command: &str, args: &[String]) -> Result<RunId> {
        let args = serde_json::to_string(args)?;
        let uid = new_uid();
        let p = &self.provenance;
        if let Some(shard) = &self.shard {
            return shard.start_run(command, &args, &uid, p);
        }
        insert_run(&self.conn, command, &args, &uid, p)?;
        Ok(RunId(self.conn.last_insert_rowid()))
    }

    /// Records the end of a run with its counts (a JSON object) and error count.
    pub fn finish_run(&self, run: RunId, counts: &serde_json::Value, errors: u64) -> Result<()> {
        if let Some(shard) = &self.shard {
            return shard.finish_run(run, &counts.to_string(), errors);
        }
        self.conn
            .prepare_cached(
                "UPDATE runs SET finished_at = ?2, counts = ?3, errors = ?4 WHERE id = ?1",
            )?
            .execute(params![run.0, now(), counts.to_string(), errors as i64])?;
        Ok(())
    }
}

/// Writes a run's row: the statement shared by a store and a shard file.
pub(super) fn insert_run(
    conn: &rusqlite::Connection,
    command: &str,
    args: &str,
    uid: &str,
    p: &crate::cluster::Provenance,
) -> Result<()> {
    conn.prepare_cached(
        "INSERT INTO runs (uid, command, args, started_at, corpus_version, host, scheduler,
             job_id, array_job_id, array_task_id, shard)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
    )?
    .execute(params![
        uid,
        command,
        args,
        now(),
        env!("CARGO_PKG_VERSION"),
        p.host,
        p.scheduler,
        p.job_id,
        p.array_job_id,
        p.array_task_id,
        p.shard
    ])?;
    Ok(())
}
