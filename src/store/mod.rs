//! The store: one SQLite file holding blobs, documents, truths, runs, outputs and metrics.
//!
//! This is the only module that speaks SQL. Invariants:
//! - Blobs are content-addressed by blake3 hex and written with `ON CONFLICT DO NOTHING`, so a
//!   re-run never duplicates them.
//! - Every write that belongs together (a document with its blob and name, an output with its
//!   blob) happens in one transaction: a crash leaves all of it or none of it.
//! - The schema moves forward only through `schema/NNNN_*.sql` migrations ([`migrate`]).
//!
//! Concurrency: WAL mode, so readers (`corpus sql`, notebooks) never block the one writer;
//! a busy timeout makes a second writer wait instead of failing at once.

mod blobs;
mod cdm;
mod docs;
mod llm;
pub mod merge;
mod metrics;
pub mod migrate;
mod outputs;
mod report;
mod runs;
pub mod shard;
mod shard_ingest;
mod site;
mod sql;
mod suite_rows;
mod truths;

use std::path::Path;
use std::time::Duration;

use rusqlite::{Connection, OpenFlags};

use crate::error::{Error, Result};

pub use blobs::{hash_file, BlobReader, StoredPdf, CHUNK, MAX_PDF};
pub use docs::{
    AttachTruth, DatasetCounts, DocumentRow, IngestDoc, IngestOutcome, PdfData, TruthFile, TruthRow,
};
pub use llm::StoredReply;
pub use metrics::{LatestValue, ScorableOutput, ScoreRow};
pub use outputs::{CostBasis, NewOutput, OutputRow, ProviderCount, ReplyHealth, Usage};
pub use report::{ScoreColumns, ScoreFilter, ScoreKey, StoredInterval, UsageRow};
pub use runs::RunId;
pub use site::{SiteOutput, SiteScore};
pub use sql::QueryResult;
pub use suite_rows::{MetricRow, NamedScore, PageOutput};
pub use truths::{TruthSelect, TruthVersion};

/// A handle on one store file (or, for one task of a sharded run, on an immutable snapshot
/// of it plus the task's own shard file: see [`shard`]).
pub struct Store {
    conn: Connection,
    /// Where a task's writes go; `None` for an ordinary handle, which writes `conn`.
    shard: Option<Box<shard::ShardSink>>,
    /// Where this process runs, recorded with each run it starts.
    provenance: crate::cluster::Provenance,
    /// Which truth versions reads follow, and what ingests supersede (`truths`).
    truth: truths::TruthSettings,
}

impl std::fmt::Debug for Store {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Store").field("path", &self.conn.path()).finish()
    }
}

impl Store {
    /// Opens (creating if needed) the store at `path` and applies pending migrations.
    pub fn open(path: &Path) -> Result<Store> {
        let conn = Connection::open(path)?;
        Self::init(conn)
    }

    /// Opens a private in-memory store (for tests).
    pub fn open_in_memory() -> Result<Store> {
        Self::init(Connection::open_in_memory()?)
    }

    /// Opens an existing store read-only: any write fails.
    pub fn open_read_only(path: &Path) -> Result<Store> {
        if !path.exists() {
            return Err(Error::Usage(format!(
                "{}: no store there (run `corpus ingest` first, or pass --db)",
                path.display()
            )));
        }
        let open = || -> Result<Connection> {
            let conn = Connection::open_with_flags(
                path,
                OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
            )?;
            conn.busy_timeout(Duration::from_secs(10))?;
            Ok(conn)
        };
        let conn = open()?;
        let app: i32 = conn.query_row("PRAGMA application_id", [], |r| r.get(0))?;
        if app == shard::SHARD_APPLICATION_ID {
            return Err(Error::Usage(format!(
                "{}: this is a shard file, not a store: fold it into a store with `corpus merge`",
                path.display()
            )));
        }
        let version: i64 = conn.query_row("PRAGMA user_version", [], |r| r.get(0))?;
        if version < migrate::MIGRATIONS.len() as i64 {
            // A store written by an older corpus: bring it up to date (views included) if the
            // file is writable, else read it as it is.
            drop(conn);
            if let Err(e) = Store::open(path) {
                tracing::warn!("{}: cannot upgrade the store's schema: {e}", path.display());
            }
            return Ok(Store::plain(open()?));
        }
        Ok(Store::plain(conn))
    }

    fn plain(conn: Connection) -> Store {
        Store {
            conn,
            shard: None,
            provenance: crate::cluster::Provenance::here(),
            truth: Default::default(),
        }
    }

    /// Opens an existing store as an immutable snapshot, without locks: for the workers of a
    /// task that reads a store on a shared file system (see [`Store::open_shard_task`]).
    pub(crate) fn open_snapshot(path: &Path) -> Result<Store> {
        Ok(Store::plain(shard::open_snapshot(path)?))
    }

    fn init(mut conn: Connection) -> Result<Store> {
        conn.busy_timeout(Duration::from_secs(30))?;
        let app: i32 = conn.query_row("PRAGMA application_id", [], |r| r.get(0))?;
        if app == shard::SHARD_APPLICATION_ID {
            return Err(Error::Usage(format!(
                "{}: this is a shard file, not a store: fold it into a store with `corpus merge`",
                conn.path().unwrap_or("?")
            )));
        }
        conn.pragma_update(None, "foreign_keys", "ON")?;
        // journal_mode returns a row; in-memory databases answer "memory".
        let _: String = conn.query_row("PRAGMA journal_mode = WAL", [], |r| r.get(0))?;
        conn.pragma_update(None, "synchronous", "NORMAL")?;
        migrate::migrate(&mut conn)?;
        Ok(Store::plain(conn))
    }

    /// Returns the raw connection, for the read-only SQL command.
    pub fn connection(&self) -> &Connection {
        &self.conn
    }

    /// Checkpoints and empties the write-ahead log; returns the schema version.
    pub fn checkpoint(&self) -> Result<i64> {
        let version: i64 = self.conn.query_row("PRAGMA user_version", [], |r| r.get(0))?;
        let (busy, _log, _done): (i64, i64, i64) =
            self.conn.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |r| {
                Ok((r.get(0)?, r.get(1)?, r.get(2)?))
            })?;
        if busy != 0 {
            return Err(Error::Usage(
                "the write-ahead log could not be emptied: another process has the store open"
                    .into(),
            ));
        }
        Ok(version)
    }

    /// Runs `PRAGMA integrity_check` and returns its first line (`ok` when healthy).
    pub fn integrity_check(&self) -> Result<String> {
        Ok(self.conn.query_row("PRAGMA integrity_check", [], |r| r.get(0))?)
    }

    /// Returns a blob's bytes, or `None` if no blob has this hash.
    /// A blob stored in chunks (larger than [`CHUNK`]) is read whole; providers read PDFs
    /// through [`Store::pdf`] instead.
    pub fn blob(&self, hash: &str) -> Result<Option<Vec<u8>>> {
        let mut st = self.conn.prepare_cached("SELECT chunks, data FROM blobs WHERE hash = ?1")?;
        match optional(st.query_row([hash], |r| Ok((r.get::<_, i64>(0)?, r.get(1)?))))? {
            None => Ok(None),
            Some((0, data)) => Ok(Some(data)),
            Some(_) => match self.blob_reader(hash)? {
                Some(r) => Ok(Some(r.read_all()?)),
                None => Ok(None),
            },
        }
    }
}

/// Inserts a blob unless it is already there; returns its hash.
fn put_blob(conn: &Connection, data: &[u8], media_type: &str) -> Result<String> {
    let hash = blake3::hash(data).to_hex().to_string();
    let mut st = conn.prepare_cached(
        "INSERT INTO blobs (hash, size, media_type, data) VALUES (?1, ?2, ?3, ?4)
         ON CONFLICT (hash) DO NOTHING",
    )?;
    st.execute(rusqlite::params![hash, data.len() as i64, media_type, data])?;
    Ok(hash)
}

/// Maps "no rows" to `None`.
fn optional<T>(r: rusqlite::Result<T>) -> Result<Option<T>> {
    match r {
        Ok(v) => Ok(Some(v)),
        Err(rusqlite::Error::QueryReturnedNoRows) => Ok(None),
        Err(e) => Err(e.into()),
    }
}

/// Returns the current time as RFC 3339 UTC with milliseconds.
///
/// `CORPUS_TEST_NOW` (an RFC 3339 string) overrides the clock; this is the only place that
/// reads it.
pub fn now() -> String {
    if let Ok(t) = std::env::var("CORPUS_TEST_NOW") {
        return t;
    }
    let d = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
    format_utc(d.as_secs() as i64, d.subsec_millis())
}

/// Formats seconds since the Unix epoch as `YYYY-MM-DDTHH:MM:SS.mmmZ`.
pub(crate) fn format_utc(secs: i64, millis: u32) -> String {
    let days = secs.div_euclid(86_400);
    let rem = secs.rem_euclid(86_400);
    // Civil-from-days (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}.{millis:03}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_utc_dates() {
        assert_eq!(format_utc(0, 0), "1970-01-01T00:00:00.000Z");
        assert_eq!(format_utc(951_782_400, 5), "2000-02-29T00:00:00.005Z");
        assert_eq!(format_utc(1_796_083_199, 999), "2026-11-30T23:59:59.999Z");
    }

    #[test]
    fn blobs_are_content_addressed_and_written_once() {
        let store = Store::open_in_memory().unwrap();
        let h1 = put_blob(&store.conn, b"abc", "text/plain").unwrap();
        let h2 = put_blob(&store.conn, b"abc", "text/plain").unwrap();
        assert_eq!(h1, h2);
        assert_eq!(h1, blake3::hash(b"abc").to_hex().to_string());
        let n: i64 = store.conn.query_row("SELECT count(*) FROM blobs", [], |r| r.get(0)).unwrap();
        assert_eq!(n, 1);
        assert_eq!(store.blob(&h1).unwrap().as_deref(), Some(&b"abc"[..]));
        assert_eq!(store.blob("00").unwrap(), None);
    }
}
