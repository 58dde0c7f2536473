//! Shard files: what one task of a cluster array writes instead of the main store.
//!
//! A task opens the main store as an immutable snapshot ([`Store::open_shard_task`]) and
//! never writes it; everything it produces goes into its own shard file (schema in
//! `schema/shard/`): outputs with their blobs, metric rows, its run records, and the
//! identities `corpus merge` needs (documents by hash, truths by (document, dataset, format,
//! part, blob), outputs by cache key). The rules are in `docs/scale-out.md`.
//!
//! A shard file has one writer. It is opened with `locking_mode=EXCLUSIVE` before its first
//! read, so its write-ahead log uses heap memory instead of a shared-memory index (which
//! network file systems do not provide) and a second process asking for it gets a clear
//! "in use" error. Each document's output is one transaction, as in the main store: a task
//! killed by `scancel` or `kill -9` leaves every finished document whole, and a task started
//! again on the same file recovers the log and carries on where it stopped.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::time::Duration;

use rusqlite::{params, Connection, OpenFlags, OptionalExtension, TransactionBehavior};

use super::{migrate, now, optional, NewOutput, RunId, Store};
use crate::cluster::{Provenance, ShardSpec};
use crate::error::{Error, Result};

/// `PRAGMA application_id` of a shard file ("CSHD").
pub const SHARD_APPLICATION_ID: i32 = 0x4353_4844;
/// The shard file format this build writes and reads (`PRAGMA user_version`).
pub const SHARD_FORMAT_VERSION: i64 = 1;
const SHARD_SCHEMA: &str = include_str!("../../schema/shard/0001_shard.sql");
/// The shard schema's additions, applied in order when a shard file is made.
const SHARD_SCHEMA_ADDED: &[&str] = &[
    include_str!("../../schema/shard/0002_output_usage.sql"),
    include_str!("../../schema/shard/0003_ingests.sql"),
];
/// The documents a task makes (`degrade --shard`): added to a file an older corpus made.
pub(super) const SHARD_INGESTS: &str = include_str!("../../schema/shard/0003_ingests.sql");

/// The writing side of a task: its shard file and the documents of its shard.
pub(super) struct ShardSink {
    pub(super) conn: Connection,
    pub(super) path: PathBuf,
    pub(super) spec: ShardSpec,
    /// Main-store ids of the documents in this shard.
    pub(super) docs: HashSet<i64>,
}

pub(super) fn bad(path: &Path, msg: impl Into<String>) -> Error {
    Error::BadInput { path: path.to_path_buf(), msg: msg.into() }
}

/// Percent-encodes a path for an SQLite `file:` URI.
fn file_uri(path: &Path, query: &str) -> Result<String> {
    let abs = std::path::absolute(path).map_err(|e| Error::io(path, e))?;
    let s = abs.to_str().ok_or_else(|| bad(path, "the path is not valid UTF-8"))?;
    let mut out = String::from("file:");
    for b in s.bytes() {
        match b {
            b'?' | b'#' | b'%' | 0x80.. => out.push_str(&format!("%{b:02X}")),
            _ => out.push(char::from(b)),
        }
    }
    out.push('?');
    out.push_str(query);
    Ok(out)
}

/// Opens the main store as an immutable snapshot, refusing where that would read something
/// other than what the store holds: an un-checkpointed write-ahead log (an immutable reader
/// does not see it), a schema this build does not write, or a shard file.
pub(super) fn open_snapshot(path: &Path) -> Result<Connection> {
    let meta = std::fs::metadata(path).map_err(|e| {
        if e.kind() == std::io::ErrorKind::NotFound {
            Error::Usage(format!("{}: no store there (give --db)", path.display()))
        } else {
            Error::io(path, e)
        }
    })?;
    if !meta.is_file() {
        return Err(bad(path, "not a regular file"));
    }
    let mut wal = path.as_os_str().to_owned();
    wal.push("-wal");
    let wal = PathBuf::from(wal);
    if let Ok(w) = std::fs::metadata(&wal) {
        if w.len() > 0 {
            return Err(bad(
                path,
                format!(
                    "the store has an un-checkpointed write-ahead log ({}, {} bytes): a writer is \
                     running, or one was killed. Tasks read the store without locks, so they \
                     would not see what the log holds. Stop every writer, then run \
                     `corpus checkpoint --db {}` once, on one machine, before the array",
                    wal.display(),
                    w.len(),
                    path.display()
                ),
            ));
        }
    }
    let conn = Connection::open_with_flags(
        file_uri(path, "immutable=1")?,
        OpenFlags::SQLITE_OPEN_READ_ONLY
            | OpenFlags::SQLITE_OPEN_URI
            | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )?;
    let app: i32 = conn
        .query_row("PRAGMA application_id", [], |r| r.get(0))
        .map_err(|e| bad(path, format!("not a corpus store: {e}")))?;
    if app == SHARD_APPLICATION_ID {
        return Err(bad(path, "this is a shard file, not a store: fold it in with `corpus merge`"));
    }
    let version: i64 = conn.query_row("PRAGMA user_version", [], |r| r.get(0))?;
    let known = migrate::MIGRATIONS.len() as i64;
    if version != known {
        return Err(bad(
            path,
            format!(
                "the store is at schema version {version} and this corpus writes version {known}; \
                 tasks never change the store, so bring it to this version first by running \
                 `corpus checkpoint --db {}` with this corpus (and use one corpus build on every node)",
                path.display()
            ),
        ));
    }
    Ok(conn)
}

/// Opens (creating if needed) a task's shard file and takes its lock.
fn open_for_write(path: &Path, spec: ShardSpec) -> Result<Connection> {
    if let Ok(m) = std::fs::symlink_metadata(path) {
        if !m.is_file() {
            return Err(bad(path, "the shard file exists and is not a regular file"));
        }
    }
    let conn = Connection::open(path)?;
    conn.busy_timeout(Duration::from_secs(1))?;
    let _: String = conn.query_row("PRAGMA locking_mode = EXCLUSIVE", [], |r| r.get(0))?;
    let app: i32 = conn.query_row("PRAGMA application_id", [], |r| r.get(0)).map_err(|e| {
        match in_use(path, e) {
            Error::Sqlite(e) => bad(path, format!("not a shard file ({})", sqlite_words(&e))),
            other => other,
        }
    })?;
    let _: String = conn
        .query_row("PRAGMA journal_mode = WAL", [], |r| r.get(0))
        .map_err(|e| in_use(path, e))?;
    conn.pragma_update(None, "synchronous", "NORMAL")?;
    conn.pragma_update(None, "foreign_keys", "ON")?;
    let mut conn = conn;
    let tx = conn
        .transaction_with_behavior(TransactionBehavior::Exclusive)
        .map_err(|e| in_use(path, e))?;
    let tables: i64 = tx.query_row("SELECT count(*) FROM sqlite_master", [], |r| r.get(0))?;
    if app == 0 && tables == 0 {
        tx.execute_batch(SHARD_SCHEMA)?;
        for added in SHARD_SCHEMA_ADDED {
            tx.execute_batch(added)?;
        }
        tx.pragma_update(None, "application_id", SHARD_APPLICATION_ID)?;
        tx.pragma_update(None, "user_version", SHARD_FORMAT_VERSION)?;
        let info = [
            ("format", "corpus-shard".to_string()),
            ("store_schema", migrate::MIGRATIONS.len().to_string()),
            ("shard", spec.to_string()),
            ("created_at", now()),
            ("corpus_version", env!("CARGO_PKG_VERSION").to_string()),
        ];
        for (k, v) in info {
            tx.execute("INSERT INTO shard_info (key, value) VALUES (?1, ?2)", params![k, v])?;
        }
    } else {
        check_header(&tx, path, app)?;
        if !has_table(&tx, "ingests")? {
            tx.execute_batch(SHARD_INGESTS)?;
        }
        let theirs = info_value(&tx, "shard")?.unwrap_or_default();
        if theirs != spec.to_string() {
            return Err(bad(
                path,
                format!(
                    "this shard file holds shard {theirs}, not {spec}: give each task its own file \
                     (--into a folder names them by shard)"
                ),
            ));
        }
    }
    tx.commit()?;
    Ok(conn)
}

fn in_use(path: &Path, e: rusqlite::Error) -> Error {
    match e.sqlite_error_code() {
        Some(rusqlite::ErrorCode::DatabaseBusy) | Some(rusqlite::ErrorCode::DatabaseLocked) => {
            bad(path, "the shard file is in use by another process (is this task already running?)")
        }
        _ => e.into(),
    }
}

/// Checks the application id, format version and store schema of an existing shard file.
fn check_header(conn: &Connection, path: &Path, app: i32) -> Result<()> {
    if app != SHARD_APPLICATION_ID {
        let store_like: bool = conn
            .query_row(
                "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'document_names'",
                [],
                |r| r.get::<_, i64>(0),
            )
            .map(|n| n > 0)
            .unwrap_or(false);
        return Err(bad(
            path,
            if store_like {
                "this is a corpus store, not a shard file (merge takes the files tasks wrote with --into)"
            } else {
                "not a corpus shard file"
            },
        ));
    }
    let version: i64 = conn.query_row("PRAGMA user_version", [], |r| r.get(0))?;
    if version != SHARD_FORMAT_VERSION {
        return Err(bad(
            path,
            format!(
                "shard file format version {version}; this corpus reads version \
                 {SHARD_FORMAT_VERSION}: merge it with the corpus that wrote it"
            ),
        ));
    }
    let schema = info_value(conn, "store_schema")?.unwrap_or_default();
    let known = migrate::MIGRATIONS.len().to_string();
    if schema != known {
        return Err(bad(
            path,
            format!(
                "written against store schema version {schema}; this corpus's store is version \
                 {known}: merge it with the corpus that wrote it"
            ),
        ));
    }
    Ok(())
}

/// Whether the file has this table (a shard file of an older corpus lacks the later ones).
pub(super) fn has_table(conn: &Connection, name: &str) -> Result<bool> {
    Ok(conn.query_row(
        "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?1",
        [name],
        |r| r.get::<_, i64>(0),
    )? > 0)
}

fn info_value(conn: &Connection, key: &str) -> Result<Option<String>> {
    optional(conn.query_row("SELECT value FROM shard_info WHERE key = ?1", [key], |r| r.get(0)))
}

/// Opens a shard file for `corpus merge`: it must exist, be a shard file of this format and
/// store schema, and pass SQLite's `quick_check`. Nothing is created; a write-ahead log left
/// by a killed task is recovered.
pub(super) fn open_for_merge(path: &Path) -> Result<Connection> {
    let meta = std::fs::metadata(path).map_err(|e| Error::io(path, e))?;
    if !meta.is_file() {
        return Err(bad(path, "not a regular file"));
    }
    let conn = Connection::open_with_flags(
        path,
        OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )
    .map_err(|e| bad(path, format!("cannot open it as a shard file: {}", sqlite_words(&e))))?;
    conn.busy_timeout(Duration::from_secs(2))?;
    let _: String = conn.query_row("PRAGMA locking_mode = EXCLUSIVE", [], |r| r.get(0))?;
    // Blobs are read once, in order: map the file rather than copy it through read(2).
    let _: i64 = conn.query_row("PRAGMA mmap_size = 1073741824", [], |r| r.get(0))?;
    let app: i32 =
        conn.query_row("PRAGMA application_id", [], |r| r.get(0)).map_err(|e| {
            match e.sqlite_error_code() {
                Some(rusqlite::ErrorCode::DatabaseCorrupt) => {
                    bad(path, format!("corrupt or truncated: {}", sqlite_words(&e)))
                }
                _ => match in_use(path, e) {
                    Error::Sqlite(e) => {
                        bad(path, format!("not a corpus shard file ({})", sqlite_words(&e)))
                    }
                    other => other,
                },
            }
        })?;
    if app != SHARD_APPLICATION_ID {
        // Always an error; said before SQLite checks a file that may be a whole store.
        check_header(&conn, path, app)?;
    }
    let _: String =
        conn.query_row("PRAGMA journal_mode = WAL", [], |r| r.get(0)).map_err(|e| match in_use(
            path, e,
        ) {
            Error::Sqlite(e) => bad(path, format!("unreadable: {}", sqlite_words(&e))),
            other => other,
        })?;
    let check: String = conn.query_row("PRAGMA quick_check", [], |r| r.get(0)).map_err(|e| {
        match in_use(path, e) {
            Error::Sqlite(e) => bad(path, format!("corrupt or truncated: {}", sqlite_words(&e))),
            other => other,
        }
    })?;
    if check != "ok" {
        return Err(bad(path, format!("corrupt or truncated: SQLite's check says {check:?}")));
    }
    check_header(&conn, path, app).map_err(|e| match e {
        Error::Sqlite(e) => bad(path, format!("corrupt or truncated: {}", sqlite_words(&e))),
        other => other,
    })?;
    Ok(conn)
}

/// An SQLite error in words, without Rust debug text.
pub(super) fn sqlite_words(e: &rusqlite::Error) -> String {
    match e {
        rusqlite::Error::SqliteFailure(f, Some(msg)) => format!("{msg} ({:?})", f.code),
        rusqlite::Error::SqliteFailure(f, None) => format!("{:?}", f.code),
        other => other.to_string(),
    }
}

/// A document's identity in the main store.
fn document_identity(main: &Connection, id: i64) -> Result<(String, u32)> {
    Ok(main
        .prepare_cached("SELECT blob, pages FROM documents WHERE id = ?1")?
        .query_row([id], |r| Ok((r.get(0)?, r.get(1)?)))?)
}

/// A truth's identity in the main store: (document hash, pages, dataset, format, part, blob).
type TruthIdentity = (String, u32, String, String, String, String);

fn truth_identity(main: &Connection, id: i64) -> Result<TruthIdentity> {
    Ok(main
        .prepare_cached(
            "SELECT d.blob, d.pages, s.name, t.format, t.part, t.blob FROM truths t
             JOIN documents d ON d.id = t.document JOIN datasets s ON s.id = t.dataset
             WHERE t.id = ?1",
        )?
        .query_row([id], |r| {
            Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?, r.get(5)?))
        })?)
}

fn output_key(main: &Connection, id: i64) -> Result<String> {
    Ok(main
        .prepare_cached("SELECT cache_key FROM outputs WHERE id = ?1")?
        .query_row([id], |r| r.get(0))?)
}

pub(super) fn ensure_document(conn: &Connection, hash: &str, pages: u32) -> Result<()> {
    conn.prepare_cached(
        "INSERT INTO documents (hash, pages) VALUES (?1, ?2) ON CONFLICT (hash) DO NOTHING",
    )?
    .execute(params![hash, pages])?;
    Ok(())
}

/// The shard file's id of a main-store truth, inserting its identity first if `create`.
fn shard_truth_id(
    conn: &Connection,
    main: &Connection,
    truth: i64,
    create: bool,
) -> Result<Option<i64>> {
    let (doc, pages, dataset, format, part, blob) = truth_identity(main, truth)?;
    if create {
        ensure_document(conn, &doc, pages)?;
        conn.prepare_cached(
            "INSERT INTO truths (document, dataset, format, part, blob)
             VALUES (?1, ?2, ?3, ?4, ?5) ON CONFLICT DO NOTHING",
        )?
        .execute(params![doc, dataset, format, part, blob])?;
    }
    Ok(conn
        .prepare_cached(
            "SELECT id FROM truths WHERE document = ?1 AND dataset = ?2 AND format = ?3
             AND part = ?4 AND blob = ?5",
        )?
        .query_row(params![doc, dataset, format, part, blob], |r| r.get(0))
        .optional()?)
}

impl Store {
    /// Opens the store for one task of a sharded run: `main` as an immutable snapshot (never
    /// written), `shard_file` (created if needed) for everything the task writes. The handle
    /// sees only the documents of `spec` in [`Store::documents`], [`Store::truths`],
    /// [`Store::scorable_outputs`] and `Store::page_outputs`; cached outputs and scores are
    /// looked up in both files.
    pub fn open_shard_task(main: &Path, shard_file: &Path, spec: ShardSpec) -> Result<Store> {
        let conn = open_snapshot(main)?;
        let mut docs = HashSet::new();
        {
            let mut st = conn.prepare("SELECT id, blob FROM documents")?;
            let rows = st.query_map([], |r| Ok((r.get::<_, i64>(0)?, r.get::<_, String>(1)?)))?;
            for row in rows {
                let (id, hash) = row?;
                if spec.contains(&hash) {
                    docs.insert(id);
                }
            }
        }
        let shard = open_for_write(shard_file, spec)?;
        let mut provenance = Provenance::here();
        provenance.shard = Some(spec.to_string());
        Ok(Store {
            conn,
            shard: Some(Box::new(ShardSink {
                conn: shard,
                path: shard_file.to_path_buf(),
                spec,
                docs,
            })),
            provenance,
            truth: Default::default(),
        })
    }

    /// The shard file this handle writes, and its shard, when it is a task's handle.
    pub fn shard(&self) -> Option<(&Path, ShardSpec)> {
        self.shard.as_ref().map(|s| (s.path.as_path(), s.spec))
    }

    /// Whether a document (by main-store id) is visible: always, except outside a task's shard.
    pub(super) fn in_shard(&self, document: i64) -> bool {
        self.shard.as_ref().is_none_or(|s| s.docs.contains(&document))
    }

    /// How many documents the store (or this task's shard of it) holds.
    pub fn visible_documents(&self) -> Result<usize> {
        match &self.shard {
            Some(s) => Ok(s.docs.len()),
            None => Ok(self
                .conn
                .query_row("SELECT count(*) FROM documents", [], |r| r.get::<_, i64>(0))?
                as usize),
        }
    }
}

impl ShardSink {
    /// [`Store::output_status`] in the shard file.
    pub(super) fn output_status(&self, cache_key: &str) -> Result<Option<String>> {
        let mut st = self.conn.prepare_cached("SELECT status FROM outputs WHERE cache_key = ?1")?;
        optional(st.query_row([cache_key], |r| r.get(0)))
    }

    /// [`Store::put_output`] into the shard file, with the document's identity.
    pub(super) fn put_output(&mut self, main: &Connection, o: &NewOutput<'_>) -> Result<bool> {
        let (hash, pages) = document_identity(main, o.document)?;
        let tx = self.conn.transaction()?;
        ensure_document(&tx, &hash, pages)?;
        let n = super::outputs::insert_output(&tx, &hash, o)?;
        tx.commit()?;
        Ok(n)
    }

    /// [`Store::metric_rows`] in the shard file.
    pub(super) fn metric_rows(
        &self,
        main: &Connection,
        output: i64,
        truth: i64,
        suite: &str,
        version: u32,
    ) -> Result<Vec<super::MetricRow>> {
        let Some(truth) = shard_truth_id(&self.conn, main, truth, false)? else {
            return Ok(Vec::new());
        };
        let key = output_key(main, output)?;
        let mut st = self.conn.prepare_cached(
            "SELECT metric, value, trace FROM metrics
             WHERE output = ?1 AND truth = ?2 AND suite = ?3 AND suite_version = ?4
             ORDER BY rowid",
        )?;
        let rows = st.query_map(params![key, truth, suite, version], |r| {
            Ok(super::MetricRow { metric: r.get(0)?, value: r.get(1)?, trace: r.get(2)? })
        })?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    /// [`Store::put_metrics`] into the shard file: one transaction, existing rows kept.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn put_metrics(
        &mut self,
        main: &Connection,
        output: i64,
        truth: i64,
        suite: &str,
        version: u32,
        run: Option<RunId>,
        rows: &[(&str, Option<f64>, String)],
    ) -> Result<()> {
        let key = output_key(main, output)?;
        let tx = self.conn.transaction()?;
        let truth = shard_truth_id(&tx, main, truth, true)?.ok_or_else(|| {
            bad(&self.path, "a truth written to the shard file cannot be read back")
        })?;
        super::metrics::insert_metrics(&tx, &key, truth, suite, version, run, rows, "DO NOTHING")?;
        tx.commit()?;
        Ok(())
    }

    /// [`Store::start_run`] in the shard file.
    pub(super) fn start_run(
        &self,
        command: &str,
        args: &str,
        uid: &str,
        p: &Provenance,
    ) -> Result<RunId> {
        super::runs::insert_run(&self.conn, command, args, uid, p)?;
        Ok(RunId(self.conn.last_insert_rowid()))
    }

    /// [`Store::finish_run`] in the shard file.
    pub(super) fn finish_run(&self, run: RunId, counts: &str, errors: u64) -> Result<()> {
        self.conn
            .prepare_cached(
                "UPDATE runs SET finished_at = ?2, counts = ?3, errors = ?4 WHERE id = ?1",
            )?
            .execute(params![run.0, now(), counts, errors as i64])?;
        Ok(())
    }
}
