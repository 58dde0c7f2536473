//! Read-only SQL for users (`corpus sql`): one statement, no writes, a time limit.

use std::path::Path;
use std::time::{Duration, Instant};

use rusqlite::types::ValueRef;

use super::Store;
use crate::error::{Error, Result};

/// A query's result: column names and rows of JSON values.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct QueryResult {
    /// Column names, in order.
    pub columns: Vec<String>,
    /// Rows; each value is null, a number or a string (blobs as their size).
    pub rows: Vec<Vec<serde_json::Value>>,
}

impl Store {
    /// The newest `limit` runs as `corpus runs` lists them (from `v_runs`: seconds taken or
    /// `unfinished`, the scheduler's job, the shard, what merged it, the counts).
    pub fn runs_listing(path: &Path, limit: u32) -> Result<QueryResult> {
        let sql = "SELECT run, command, started_at, finished_at,
                          CASE WHEN finished_at IS NULL THEN 'unfinished'
                               ELSE printf('%.1f', (julianday(finished_at) - julianday(started_at)) * 86400) END
                            AS seconds,
                          errors, host,
                          CASE WHEN scheduler IS NULL THEN NULL
                               ELSE scheduler || coalesce(' ' || job_id, '')
                                    || coalesce(' task ' || array_task_id, '') END AS job,
                          shard, merged_by, counts, corpus_version
                   FROM v_runs ORDER BY run DESC LIMIT :limit";
        let params = [("limit".to_string(), limit.to_string())];
        Store::query_read_only(path, sql, &params, Duration::from_secs(30))
    }

    /// Runs one read-only statement with named parameters (`:name`, `@name` or `$name`, given
    /// without the sigil) and stops it after `timeout`.
    pub fn query_read_only(
        path: &Path,
        sql: &str,
        params: &[(String, String)],
        timeout: Duration,
    ) -> Result<QueryResult> {
        let store = Store::open_read_only(path)?;
        let conn = &store.conn;
        conn.pragma_update(None, "query_only", "ON")?;
        let first = first_keyword(sql);
        if matches!(first.as_str(), "ATTACH" | "DETACH") || (first == "PRAGMA" && !read_pragma(sql))
        {
            return Err(Error::Usage(format!(
                "corpus sql is read-only: this {first} statement is not allowed"
            )));
        }
        let mut stmt = conn.prepare(sql).map_err(|e| Error::Usage(format!("bad SQL: {e}")))?;
        if !stmt.readonly() {
            return Err(Error::Usage(
                "corpus sql is read-only: the statement would write to the store".into(),
            ));
        }
        for (name, value) in params {
            let idx = [":", "@", "$"]
                .iter()
                .find_map(|s| stmt.parameter_index(&format!("{s}{name}")).ok().flatten())
                .ok_or_else(|| Error::Usage(format!("the query has no parameter named {name}")))?;
            stmt.raw_bind_parameter(idx, value)?;
        }
        let columns: Vec<String> = stmt.column_names().into_iter().map(String::from).collect();
        let deadline = Instant::now() + timeout;
        conn.progress_handler(10_000, Some(move || Instant::now() > deadline));
        let mut out = QueryResult { columns, rows: Vec::new() };
        let mut rows = stmt.raw_query();
        loop {
            let row = match rows.next() {
                Ok(Some(r)) => r,
                Ok(None) => break,
                Err(rusqlite::Error::SqliteFailure(e, _))
                    if e.code == rusqlite::ErrorCode::OperationInterrupted =>
                {
                    return Err(Error::Usage(format!(
                        "the query ran past its time limit of {} s (--timeout)",
                        timeout.as_secs_f64()
                    )));
                }
                Err(e) => return Err(e.into()),
            };
            let mut vals = Vec::with_capacity(out.columns.len());
            for i in 0..out.columns.len() {
                vals.push(match row.get_ref(i)? {
                    ValueRef::Null => serde_json::Value::Null,
                    ValueRef::Integer(n) => n.into(),
                    ValueRef::Real(x) => serde_json::Number::from_f64(x)
                        .map(serde_json::Value::Number)
                        .unwrap_or(serde_json::Value::Null),
                    ValueRef::Text(t) => String::from_utf8_lossy(t).into_owned().into(),
                    ValueRef::Blob(b) => format!("<{} bytes>", b.len()).into(),
                });
            }
            out.rows.push(vals);
        }
        Ok(out)
    }
}

/// Returns whether a PRAGMA only reads: no assignment, and arguments only for the pragmas
/// that take a table or index name to describe.
fn read_pragma(sql: &str) -> bool {
    let lower = sql.to_ascii_lowercase();
    if lower.contains('=') {
        return false;
    }
    if !lower.contains('(') {
        return true;
    }
    ["table_info", "table_xinfo", "index_list", "index_info", "index_xinfo", "foreign_key_list"]
        .iter()
        .any(|p| lower.contains(p))
}

/// Returns the statement's first keyword, upper-cased, after white space and comments.
fn first_keyword(sql: &str) -> String {
    let mut s = sql.trim_start();
    loop {
        if let Some(rest) = s.strip_prefix("--") {
            s = rest.split_once('\n').map(|(_, r)| r).unwrap_or("").trim_start();
        } else if let Some(rest) = s.strip_prefix("/*") {
            s = rest.split_once("*/").map(|(_, r)| r).unwrap_or("").trim_start();
        } else {
            break;
        }
    }
    s.chars().take_while(|c| c.is_ascii_alphabetic()).collect::<String>().to_ascii_uppercase()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn db() -> (tempfile::TempDir, std::path::PathBuf) {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("c.db");
        Store::open(&p).unwrap();
        (d, p)
    }

    const T: Duration = Duration::from_secs(5);

    #[test]
    fn selects_with_named_parameters() {
        let (_d, p) = db();
        let params = [("x".to_string(), "7".to_string())];
        let r = Store::query_read_only(&p, "SELECT :x + 1 AS y, NULL AS n", &params, T).unwrap();
        assert_eq!(r.columns, ["y", "n"]);
        assert_eq!(r.rows, vec![vec![serde_json::json!(8), serde_json::Value::Null]]);
        let missing = Store::query_read_only(&p, "SELECT 1", &params, T).unwrap_err();
        assert!(missing.to_string().contains("no parameter named x"));
    }

    #[test]
    fn refuses_writes_attach_and_schema_pragmas() {
        let (_d, p) = db();
        for sql in [
            "INSERT INTO datasets (name, created_at) VALUES ('x', 'y')",
            "DELETE FROM blobs",
            "  -- sneaky\n ATTACH DATABASE '/tmp/other.db' AS o",
            "PRAGMA writable_schema = ON",
            "CREATE TABLE t (x)",
            "PRAGMA user_version(5)",
        ] {
            let e = Store::query_read_only(&p, sql, &[], T).unwrap_err().to_string();
            assert!(e.contains("read-only"), "{sql}: {e}");
        }
    }

    #[test]
    fn describing_pragmas_are_allowed() {
        let (_d, p) = db();
        let r = Store::query_read_only(&p, "PRAGMA table_info(v_outputs)", &[], T).unwrap();
        assert!(r.rows.len() > 10);
        let v = Store::query_read_only(&p, "PRAGMA user_version", &[], T).unwrap();
        assert_eq!(v.rows.len(), 1);
    }

    #[test]
    fn a_runaway_query_is_stopped_at_its_time_limit() {
        let (_d, p) = db();
        let sql = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c";
        let t0 = Instant::now();
        let e = Store::query_read_only(&p, sql, &[], Duration::from_millis(200)).unwrap_err();
        assert!(e.to_string().contains("time limit"), "{e}");
        assert!(t0.elapsed() < Duration::from_secs(10));
    }
}
