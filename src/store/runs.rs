//! Runs: one row per invocation that writes.

use rusqlite::params;

use super::{now, Store};
use crate::error::Result;

/// A run's id.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RunId(pub i64);

impl Store {
    /// Records the start of a run and returns its id.
    pub fn start_run(&self, command: &str, args: &[String]) -> Result<RunId> {
        self.conn
            .prepare_cached(
                "INSERT INTO runs (command, args, started_at, corpus_version) VALUES (?1, ?2, ?3, ?4)",
            )?
            .execute(params![
                command,
                serde_json::to_string(args)?,
                now(),
                env!("CARGO_PKG_VERSION")
            ])?;
        Ok(RunId(self.conn.last_insert_rowid()))
    }

    /// Records the end of a run with its counts (a JSON object) and error count.
    pub fn finish_run(&self, run: RunId, counts: &serde_json::Value, errors: u64) -> Result<()> {
        self.conn
            .prepare_cached(
                "UPDATE runs SET finished_at = ?2, counts = ?3, errors = ?4 WHERE id = ?1",
            )?
            .execute(params![run.0, now(), counts.to_string(), errors as i64])?;
        Ok(())
    }
}
