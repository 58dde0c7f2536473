//! Schema migrations, applied in order by `PRAGMA user_version`.
//!
//! Append-only: never edit, reorder or delete a file that has been merged. Each file in
//! `schema/` must appear here, in file-name order (a test checks it). The runner takes an
//! exclusive transaction, applies every pending file and sets `user_version` to the number
//! applied, so two processes opening a fresh store cannot both migrate it.

use rusqlite::{Connection, TransactionBehavior};

use crate::error::{Error, Result};

/// Every migration, in order: (name, SQL).
pub const MIGRATIONS: &[(&str, &str)] = &[
    ("0001_init", include_str!("../../schema/0001_init.sql")),
    ("0002_scores", include_str!("../../schema/0002_scores.sql")),
    ("0003_runs_view", include_str!("../../schema/0003_runs_view.sql")),
    ("0004_latest_scores", include_str!("../../schema/0004_latest_scores.sql")),
    ("0005_run_provenance", include_str!("../../schema/0005_run_provenance.sql")),
    ("0006_blob_chunks", include_str!("../../schema/0006_blob_chunks.sql")),
    ("0007_llm_replies", include_str!("../../schema/0007_llm_replies.sql")),
    ("0008_cdm_renders", include_str!("../../schema/0008_cdm_renders.sql")),
    ("0009_output_usage", include_str!("../../schema/0009_output_usage.sql")),
    ("0010_truth_versions", include_str!("../../schema/0010_truth_versions.sql")),
    ("0011_output_replies", include_str!("../../schema/0011_output_replies.sql")),
];

/// Applies every migration the store has not seen yet.
pub(crate) fn migrate(conn: &mut Connection) -> Result<()> {
    let tx = conn.transaction_with_behavior(TransactionBehavior::Exclusive)?;
    let version: i64 = tx.query_row("PRAGMA user_version", [], |r| r.get(0))?;
    let known = MIGRATIONS.len() as i64;
    if version > known {
        return Err(Error::SchemaTooNew { found: version, known });
    }
    for (_, sql) in &MIGRATIONS[version as usize..] {
        tx.execute_batch(sql)?;
    }
    if version < known {
        tx.pragma_update(None, "user_version", known)?;
    }
    tx.commit()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_schema_file_is_listed_in_order() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/schema");
        let mut files: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .filter(|n| n.ends_with(".sql"))
            .collect();
        files.sort();
        let listed: Vec<String> = MIGRATIONS.iter().map(|(n, _)| format!("{n}.sql")).collect();
        assert_eq!(files, listed, "schema/ and MIGRATIONS disagree");
        for (i, (name, sql)) in MIGRATIONS.iter().enumerate() {
            assert!(name.starts_with(&format!("{:04}_", i + 1)), "{name} is out of order");
            let on_disk = std::fs::read_to_string(format!("{dir}/{name}.sql")).unwrap();
            assert_eq!(&on_disk, sql);
            assert!(sql.starts_with("--"), "{name} must start with a comment saying why");
        }
    }

    #[test]
    fn migrating_twice_is_a_no_op() {
        let mut conn = Connection::open_in_memory().unwrap();
        migrate(&mut conn).unwrap();
        migrate(&mut conn).unwrap();
        let v: i64 = conn.query_row("PRAGMA user_version", [], |r| r.get(0)).unwrap();
        assert_eq!(v, MIGRATIONS.len() as i64);
    }

    #[test]
    fn applies_each_migration_in_order_from_any_version() {
        // A store at version k gets exactly migrations k+1.. applied.
        for k in 0..=MIGRATIONS.len() {
            let mut conn = Connection::open_in_memory().unwrap();
            for (_, sql) in &MIGRATIONS[..k] {
                conn.execute_batch(sql).unwrap();
            }
            conn.pragma_update(None, "user_version", k as i64).unwrap();
            migrate(&mut conn).unwrap();
            let v: i64 = conn.query_row("PRAGMA user_version", [], |r| r.get(0)).unwrap();
            assert_eq!(v, MIGRATIONS.len() as i64);
        }
    }

    #[test]
    fn refuses_a_newer_store() {
        let mut conn = Connection::open_in_memory().unwrap();
        conn.pragma_update(None, "user_version", 999).unwrap();
        assert!(matches!(migrate(&mut conn), Err(Error::SchemaTooNew { found: 999, .. })));
    }
}
