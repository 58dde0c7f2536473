//! Documents a task makes (`corpus degrade --shard K/N --into FILE`): written into its shard
//! file with their truths and attributes, and stored by `corpus merge` exactly as
//! [`Store::ingest`] stores them (`docs/scale-out.md`, "Documents a task makes").
//!
//! The task's side records a document only where the main store lacks part of it (the bytes, the
//! name, a truth or an attribute value), and the bytes only where the main store lacks them. The
//! merge's side replays each record through the ingest of the main store in the merge's
//! transaction: content-hashed and idempotent, so merging a file again changes nothing, and a
//! document made from a document of another store (`derived_from`) refuses the file.

use std::path::Path;

use rusqlite::{params, Connection, OptionalExtension};

use super::docs::{ingest_in, IngestDoc, IngestOutcome, PdfData, TruthFile};
use super::merge::MergeCounts;
use super::shard::{bad, ensure_document, has_table, ShardSink};
use super::{now, put_blob};
use crate::error::{Error, Result};

/// The main store's view of one (dataset, name): its document id and its bytes' hash.
fn main_owner(main: &Connection, dataset: &str, name: &str) -> Result<Option<(i64, String)>> {
    Ok(main
        .prepare_cached(
            "SELECT n.document, d.blob FROM document_names n JOIN documents d ON d.id = n.document
             JOIN datasets s ON s.id = n.dataset WHERE s.name = ?1 AND n.name = ?2",
        )?
        .query_row(params![dataset, name], |r| Ok((r.get(0)?, r.get(1)?)))
        .optional()?)
}

fn taken(source_path: &str, dataset: &str, name: &str, other: &str) -> Error {
    Error::BadInput {
        path: source_path.into(),
        msg: format!(
            "dataset {dataset} already has a document named {name} with other content (blake3 \
             {}); give this one another name or --dataset",
            &other[..16.min(other.len())]
        ),
    }
}

impl ShardSink {
    /// [`Store::ingest`] (and `ingest_derived`) of a task: into its shard file, one
    /// transaction; nothing where the main store has the document whole already.
    pub(super) fn ingest(
        &mut self,
        main: &Connection,
        doc: &IngestDoc<'_>,
        source: Option<&str>,
    ) -> Result<IngestOutcome> {
        let PdfData::Bytes(bytes) = doc.pdf else {
            return Err(Error::Usage(
                "a task of a sharded run stores documents held in memory only".into(),
            ));
        };
        let hash = blake3::hash(bytes).to_hex().to_string();
        let main_doc: Option<i64> = main
            .prepare_cached("SELECT id FROM documents WHERE blob = ?1")?
            .query_row([&hash], |r| r.get(0))
            .optional()?;
        let owner = main_owner(main, doc.dataset, doc.name)?;
        if let Some((_, other)) = owner.as_ref().filter(|(_, h)| *h != hash) {
            return Err(taken(doc.source_path, doc.dataset, doc.name, other));
        }
        let row: Option<(i64, String)> = self
            .conn
            .prepare_cached("SELECT id, document FROM ingests WHERE dataset = ?1 AND name = ?2")?
            .query_row(params![doc.dataset, doc.name], |r| Ok((r.get(0)?, r.get(1)?)))
            .optional()?;
        if let Some((_, other)) = row.as_ref().filter(|(_, h)| *h != hash) {
            return Err(taken(doc.source_path, doc.dataset, doc.name, other));
        }
        let in_shard: bool = self
            .conn
            .prepare_cached("SELECT count(*) FROM ingests WHERE document = ?1")?
            .query_row([&hash], |r| r.get::<_, i64>(0))?
            > 0;
        let mut new_truths = 0;
        for t in doc.truths {
            let blob = blake3::hash(t.bytes).to_hex().to_string();
            let in_main = main_doc.is_some()
                && main
                    .prepare_cached(
                        "SELECT count(*) FROM truths t JOIN datasets s ON s.id = t.dataset
                         WHERE t.document = ?1 AND s.name = ?2 AND t.format = ?3 AND t.part = ?4
                           AND t.blob = ?5",
                    )?
                    .query_row(params![main_doc, doc.dataset, t.format, t.part, blob], |r| {
                        r.get::<_, i64>(0)
                    })?
                    > 0;
            let in_file = match &row {
                None => false,
                Some((id, _)) => {
                    self.conn
                        .prepare_cached(
                            "SELECT count(*) FROM ingest_truths WHERE ingest = ?1 AND format = ?2
                             AND part = ?3 AND blob = ?4",
                        )?
                        .query_row(params![id, t.format, t.part, blob], |r| r.get::<_, i64>(0))?
                        > 0
                }
            };
            new_truths += u32::from(!in_main && !in_file);
        }
        let mut attributes_in_main = true;
        for (name, value) in doc.attributes {
            let stored: Option<String> = match main_doc {
                None => None,
                Some(id) => main
                    .prepare_cached(
                        "SELECT a.value FROM document_attributes a JOIN datasets s
                         ON s.id = a.dataset WHERE a.document = ?1 AND s.name = ?2 AND a.name = ?3",
                    )?
                    .query_row(params![id, doc.dataset, name], |r| r.get(0))
                    .optional()?,
            };
            attributes_in_main &= stored.as_ref() == Some(value);
        }
        let outcome = IngestOutcome {
            document: main_doc.unwrap_or(0),
            new_document: main_doc.is_none() && !in_shard,
            new_name: owner.is_none() && row.is_none(),
            new_truths,
        };
        let truths_in_main = new_truths == 0 && row.is_none();
        if owner.is_some() && truths_in_main && attributes_in_main {
            return Ok(outcome);
        }
        let tx = self.conn.transaction()?;
        let pdf_blob = match main_doc {
            Some(_) => None,
            None => Some(put_blob(&tx, bytes, super::docs::document_media_type(bytes))?),
        };
        if let Some(src) = source {
            let pages: Option<u32> = main
                .prepare_cached("SELECT pages FROM documents WHERE blob = ?1")?
                .query_row([src], |r| r.get(0))
                .optional()?;
            let Some(pages) = pages else {
                return Err(bad(
                    &self.path,
                    format!(
                        "{} is made from document {src}, which the store does not hold",
                        doc.name
                    ),
                ));
            };
            ensure_document(&tx, src, pages)?;
        }
        tx.prepare_cached(
            "INSERT INTO ingests (document, pages, pdf_blob, derived_from, dataset, name,
                 source_path, created_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)
             ON CONFLICT (dataset, name) DO NOTHING",
        )?
        .execute(params![
            hash,
            doc.pages,
            pdf_blob,
            source,
            doc.dataset,
            doc.name,
            doc.source_path,
            now()
        ])?;
        let id: i64 = tx
            .prepare_cached("SELECT id FROM ingests WHERE dataset = ?1 AND name = ?2")?
            .query_row(params![doc.dataset, doc.name], |r| r.get(0))?;
        for t in doc.truths {
            let blob = put_blob(&tx, t.bytes, crate::formats::media_type_of(t.format))?;
            tx.prepare_cached(
                "INSERT INTO ingest_truths (ingest, format, part, blob, source_path)
                 VALUES (?1, ?2, ?3, ?4, ?5) ON CONFLICT DO NOTHING",
            )?
            .execute(params![id, t.format, t.part, blob, t.source_path])?;
        }
        for (name, value) in doc.attributes {
            tx.prepare_cached(
                "INSERT INTO ingest_attributes (ingest, name, value) VALUES (?1, ?2, ?3)
                 ON CONFLICT (ingest, name) DO UPDATE SET value = excluded.value",
            )?
            .execute(params![id, name, value])?;
        }
        tx.commit()?;
        Ok(outcome)
    }

    /// [`Store::record_ingest_error`] of a task: into its shard file.
    pub(super) fn record_ingest_error(&self, path: &str, error: &str) -> Result<()> {
        self.conn
            .prepare_cached(
                "INSERT INTO ingest_errors (path, error, created_at) VALUES (?1, ?2, ?3)",
            )?
            .execute(params![path, error, now()])?;
        Ok(())
    }
}

/// A blob of the shard file, checked against its hash.
fn checked_blob(shard: &Connection, path: &Path, hash: &str, what: &str) -> Result<Vec<u8>> {
    let data: Option<Vec<u8>> = shard
        .prepare_cached("SELECT data FROM blobs WHERE hash = ?1")?
        .query_row([hash], |r| r.get(0))
        .optional()?;
    match data {
        Some(d) if blake3::hash(&d).to_hex().as_str() == hash => Ok(d),
        Some(_) => {
            Err(bad(path, format!("corrupt: the bytes of {what} do not match their hash {hash}")))
        }
        None => Err(bad(path, format!("corrupt: the bytes of {what} ({hash}) are missing"))),
    }
}

/// A truth file of an ingest record: format, part, blob hash, source path.
type TruthRecord = (String, String, String, String);

/// Phase 2b of a merge: the documents the shard's tasks made, each stored as `Store::ingest`
/// stores it, in the merge's transaction; then the failures they recorded (once each).
pub(super) fn merge_ingests(
    tx: &Connection,
    shard: &Connection,
    path: &Path,
    c: &mut MergeCounts,
    ensure_merge_run: &mut dyn FnMut(&Connection) -> Result<i64>,
) -> Result<()> {
    if !has_table(shard, "ingests")? {
        return Ok(()); // a shard file of an older corpus: outputs and scores only
    }
    let mut settings = Default::default();
    let mut st = shard.prepare(
        "SELECT id, document, pages, pdf_blob, dataset, name, source_path FROM ingests ORDER BY id",
    )?;
    let mut rows = st.query([])?;
    while let Some(r) = rows.next()? {
        let (id, hash, pages): (i64, String, u32) = (r.get(0)?, r.get(1)?, r.get(2)?);
        let (pdf_blob, dataset, name, source_path): (Option<String>, String, String, String) =
            (r.get(3)?, r.get(4)?, r.get(5)?, r.get(6)?);
        let what = format!("{dataset}/{name}");
        let bytes = match &pdf_blob {
            Some(b) if *b == hash => Some(checked_blob(shard, path, b, &what)?),
            Some(b) => {
                return Err(bad(path, format!("corrupt: {what}: bytes {b} for document {hash}")))
            }
            None => None,
        };
        let in_store: bool = tx
            .prepare_cached("SELECT count(*) FROM documents WHERE blob = ?1")?
            .query_row([&hash], |x| x.get::<_, i64>(0))?
            > 0;
        if bytes.is_none() && !in_store {
            return Err(bad(
                path,
                format!(
                    "{what} is document {hash}, whose bytes the file does not carry (the store \
                     its task read held them) and this store does not hold: the shard was made \
                     from another store; nothing of it was merged"
                ),
            ));
        }
        let mut truths: Vec<(TruthRecord, Vec<u8>)> = Vec::new();
        {
            let mut ts = shard.prepare_cached(
                "SELECT format, part, blob, source_path FROM ingest_truths WHERE ingest = ?1
                 ORDER BY rowid",
            )?;
            let list = ts.query_map([id], |x| Ok((x.get(0)?, x.get(1)?, x.get(2)?, x.get(3)?)))?;
            for t in list {
                let t: TruthRecord = t?;
                let data = checked_blob(shard, path, &t.2, &format!("a truth of {what}"))?;
                truths.push((t, data));
            }
        }
        let attributes: Vec<(String, String)> = shard
            .prepare_cached(
                "SELECT name, value FROM ingest_attributes WHERE ingest = ?1 ORDER BY name",
            )?
            .query_map([id], |x| Ok((x.get(0)?, x.get(1)?)))?
            .collect::<rusqlite::Result<_>>()?;
        let files: Vec<TruthFile<'_>> = truths
            .iter()
            .map(|((format, part, _, src), data)| TruthFile {
                format,
                part,
                bytes: data,
                source_path: src,
            })
            .collect();
        let doc = IngestDoc {
            dataset: &dataset,
            name: &name,
            source_path: &source_path,
            pdf: match &bytes {
                Some(b) => PdfData::Bytes(b),
                None => PdfData::Stored { hash: &hash },
            },
            pages,
            truths: &files,
            attributes: &attributes,
        };
        let outcome = ingest_in(tx, &mut settings, &doc).map_err(|e| match e {
            Error::BadInput { msg, .. } => {
                bad(path, format!("{what}: {msg}; nothing of it was merged"))
            }
            other => other,
        })?;
        if outcome.new_document || outcome.new_name {
            c.documents_new += 1;
        } else {
            c.documents_present += 1;
        }
        c.truths_new += u64::from(outcome.new_truths);
        if outcome.new_document || outcome.new_name || outcome.new_truths > 0 {
            ensure_merge_run(tx)?;
        }
    }
    let mut st =
        shard.prepare("SELECT path, error, created_at FROM ingest_errors ORDER BY rowid")?;
    let mut rows = st.query([])?;
    while let Some(r) = rows.next()? {
        let (p, e, at): (String, String, String) = (r.get(0)?, r.get(1)?, r.get(2)?);
        c.errors_new += tx
            .prepare_cached(
                "INSERT INTO ingest_errors (run, path, error, created_at)
                 SELECT NULL, ?1, ?2, ?3 WHERE NOT EXISTS (SELECT 1 FROM ingest_errors
                     WHERE path = ?1 AND error = ?2 AND created_at = ?3)",
            )?
            .execute(params![p, e, at])? as u64;
    }
    Ok(())
}
