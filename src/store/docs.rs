//! Documents, their names, datasets and ground truths.

use rusqlite::{params, Connection, OptionalExtension};

use super::{now, optional, put_blob, Store};
use crate::error::{Error, Result};

/// One PDF to ingest, already hashed and counted.
#[derive(Debug)]
pub struct IngestDoc<'a> {
    /// Dataset name (created if new).
    pub dataset: &'a str,
    /// The document's name within the dataset.
    pub name: &'a str,
    /// Where it came from, for messages.
    pub source_path: &'a str,
    /// The PDF.
    pub pdf: PdfData<'a>,
    /// Page count.
    pub pages: u32,
    /// Ground-truth files to attach (one, or several parts of one truth).
    pub truths: &'a [TruthFile<'a>],
    /// Attributes (name, value) to set on the document in this dataset.
    pub attributes: &'a [(String, String)],
}

/// A PDF's bytes as ingest has them.
#[derive(Debug, Clone, Copy)]
pub enum PdfData<'a> {
    /// In memory.
    Bytes(&'a [u8]),
    /// A file too large to hold in memory, hashed beforehand (`hash`, `size`): stored in
    /// chunks from the file, hashed again on the way, refused if it changed since.
    File {
        /// The file.
        path: &'a std::path::Path,
        /// Its size when it was hashed.
        size: u64,
        /// Its blake3 (hex).
        hash: &'a str,
    },
    /// Bytes the store already holds, by their blake3 (hex): a shard file's twin whose bytes
    /// the main store had ([`Store::merge_shard`]). Refused where the store lacks them.
    Stored {
        /// The document's blake3.
        hash: &'a str,
    },
}

/// One ground-truth file to store verbatim.
#[derive(Debug, Clone, Copy)]
pub struct TruthFile<'a> {
    /// Format (`peerread`, `grobid-tei`, ...).
    pub format: &'a str,
    /// Which part of a truth kept in several files (`header`, `fulltext`), or `""`.
    pub part: &'a str,
    /// The file's bytes.
    pub bytes: &'a [u8],
    /// Where it came from.
    pub source_path: &'a str,
}

/// A truth to attach to a document already stored ([`Store::attach_truths`]).
#[derive(Debug, Clone)]
pub struct AttachTruth<'a> {
    /// The document's id.
    pub document: i64,
    /// The truth file.
    pub truth: TruthFile<'a>,
    /// Attributes to set on the document in the dataset.
    pub attributes: Vec<(String, String)>,
}

/// What ingesting one PDF did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IngestOutcome {
    /// The document's id.
    pub document: i64,
    /// The bytes were new to the store.
    pub new_document: bool,
    /// The (dataset, name) pair was new.
    pub new_name: bool,
    /// Truth files attached that the store did not have.
    pub new_truths: u32,
}

/// A stored document with one of its names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DocumentRow {
    /// Internal id.
    pub id: i64,
    /// blake3 hex of the PDF.
    pub hash: String,
    /// Page count.
    pub pages: u32,
    /// A name it is known by (the first, by dataset then name).
    pub name: String,
    /// The dataset of that name.
    pub dataset: String,
}

/// A stored ground truth.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TruthRow {
    /// Internal id.
    pub id: i64,
    /// The document it belongs to.
    pub document: i64,
    /// Dataset.
    pub dataset: String,
    /// Format (`peerread`, ...).
    pub format: String,
    /// Part (`header`, `fulltext`), or `""` for a truth in one file.
    pub part: String,
    /// Blob hash of the verbatim file.
    pub blob: String,
}

fn ensure_dataset(conn: &Connection, name: &str) -> Result<i64> {
    conn.prepare_cached(
        "INSERT INTO datasets (name, created_at) VALUES (?1, ?2) ON CONFLICT (name) DO NOTHING",
    )?
    .execute(params![name, now()])?;
    Ok(conn
        .prepare_cached("SELECT id FROM datasets WHERE name = ?1")?
        .query_row([name], |r| r.get(0))?)
}

/// A dataset's counts: (name, documents, pages, documents with a truth, documents without
/// one), as [`Store::dataset_counts`] gives them.
pub type DatasetCounts = (String, i64, i64, i64, i64);

impl Store {
    /// Returns the id and page count of the document with these bytes, if stored.
    pub(crate) fn document_by_hash(&self, hash: &str) -> Result<Option<(i64, u32)>> {
        let mut st = self.conn.prepare_cached("SELECT id, pages FROM documents WHERE blob = ?1")?;
        optional(st.query_row([hash], |r| Ok((r.get(0)?, r.get(1)?))))
    }

    /// Returns the blob hash of a document by id.
    pub(crate) fn document_hash(&self, id: i64) -> Result<Option<String>> {
        let mut st = self.conn.prepare_cached("SELECT blob FROM documents WHERE id = ?1")?;
        optional(st.query_row([id], |r| r.get(0)))
    }

    /// Stores one PDF with its name (and truth) in one transaction.
    ///
    /// Idempotent: the same bytes under the same name change nothing. A name that already
    /// belongs to other bytes in the dataset is refused, and nothing is written.
    ///
    /// A task's handle ([`Store::open_shard_task`]) writes the document into its shard file
    /// instead, for `corpus merge` to store as this would; its outcome says what is new to the
    /// main store and the shard file together, and its `document` is the main store's id, or
    /// 0 for bytes the main store does not hold yet.
    pub fn ingest(&mut self, doc: &IngestDoc<'_>) -> Result<IngestOutcome> {
        self.ingest_from(doc, None)
    }

    /// [`Store::ingest`] of a document made from another one of the store (a degraded twin
    /// from its source, by hash): a task's shard file records the source, and `corpus merge`
    /// refuses the file in a store that does not hold it (a shard of another store).
    pub fn ingest_derived(&mut self, doc: &IngestDoc<'_>, source: &str) -> Result<IngestOutcome> {
        self.ingest_from(doc, Some(source))
    }

    fn ingest_from(&mut self, doc: &IngestDoc<'_>, source: Option<&str>) -> Result<IngestOutcome> {
        if let Some(shard) = self.shard.as_mut() {
            return shard.ingest(&self.conn, doc, source);
        }
        let tx = self.conn.transaction()?;
        let outcome = ingest_in(&tx, &mut self.truth, doc)?;
        tx.commit()?;
        Ok(outcome)
    }
}

/// [`Store::ingest`] inside a transaction (shared with `corpus merge`).
pub(super) fn ingest_in(
    tx: &Connection,
    settings: &mut super::truths::TruthSettings,
    doc: &IngestDoc<'_>,
) -> Result<IngestOutcome> {
    let dataset = ensure_dataset(tx, doc.dataset)?;
    let hash = match doc.pdf {
        PdfData::Bytes(b) => blake3::hash(b).to_hex().to_string(),
        PdfData::File { hash, .. } | PdfData::Stored { hash } => hash.to_string(),
    };
    let existing: Option<i64> = tx
        .prepare_cached("SELECT id FROM documents WHERE blob = ?1")?
        .query_row([&hash], |r| r.get(0))
        .optional()?;
    let (document, new_document) = match existing {
        Some(id) => (id, false),
        None => {
            match doc.pdf {
                PdfData::Bytes(b) => drop(put_blob(tx, b, document_media_type(b))?),
                PdfData::File { path, size, hash } => {
                    let kind = "application/pdf";
                    super::blobs::put_file_blob(tx, path, size, hash, kind, super::CHUNK)?;
                }
                PdfData::Stored { hash } => {
                    return Err(Error::BadInput {
                        path: doc.source_path.into(),
                        msg: format!("the store does not hold document {hash}"),
                    })
                }
            }
            tx.prepare_cached(
                "INSERT INTO documents (blob, pages, created_at) VALUES (?1, ?2, ?3)",
            )?
            .execute(params![hash, doc.pages, now()])?;
            (tx.last_insert_rowid(), true)
        }
    };
    let owner: Option<(i64, String)> = tx
        .prepare_cached(
            "SELECT n.document, d.blob FROM document_names n JOIN documents d ON d.id = n.document
                 WHERE n.dataset = ?1 AND n.name = ?2",
        )?
        .query_row(params![dataset, doc.name], |r| Ok((r.get(0)?, r.get(1)?)))
        .optional()?;
    let new_name = match owner {
        Some((id, _)) if id == document => false,
        Some((_, other)) => {
            return Err(Error::BadInput {
                path: doc.source_path.into(),
                msg: format!(
                    "dataset {} already has a document named {} with other content \
                         (blake3 {}); give this one another name or --dataset",
                    doc.dataset,
                    doc.name,
                    &other[..16]
                ),
            });
        }
        None => {
            tx.prepare_cached(
                "INSERT INTO document_names (document, dataset, name, source_path, created_at)
                     VALUES (?1, ?2, ?3, ?4, ?5)",
            )?
            .execute(params![document, dataset, doc.name, doc.source_path, now()])?;
            true
        }
    };
    let mut new_truths = 0;
    for t in doc.truths {
        let blob = put_blob(tx, t.bytes, crate::formats::media_type_of(t.format))?;
        let inserted = tx
                .prepare_cached(
                    "INSERT INTO truths (document, dataset, format, part, blob, source_path, created_at)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)
                     ON CONFLICT (document, dataset, format, part, blob) DO NOTHING",
                )?
                .execute(params![document, dataset, t.format, t.part, blob, t.source_path, now()])?
                as u32;
        new_truths += inserted;
        let id: i64 = tx
            .prepare_cached(
                "SELECT id FROM truths WHERE document = ?1 AND dataset = ?2 AND format = ?3
                     AND part = ?4 AND blob = ?5",
            )?
            .query_row(params![document, dataset, t.format, t.part, blob], |r| r.get(0))?;
        // A newer ingest supersedes the truth it replaces (docs/truth-versions.md).
        Store::link_truth(tx, settings, id, inserted == 1, doc.truths.len())?;
    }
    for (name, value) in doc.attributes {
        tx.prepare_cached(
            "INSERT INTO document_attributes (document, dataset, name, value)
                 VALUES (?1, ?2, ?3, ?4)
                 ON CONFLICT (document, dataset, name) DO UPDATE SET value = excluded.value",
        )?
        .execute(params![document, dataset, name, value])?;
    }
    Ok(IngestOutcome { document, new_document, new_name, new_truths })
}

impl Store {
    /// Attaches truths (each with its document's attributes) to documents already stored,
    /// all in one transaction: every one, or none when one fails. Returns the truth files the
    /// store did not have.
    pub fn attach_truths(&mut self, dataset: &str, items: &[AttachTruth<'_>]) -> Result<u32> {
        let tx = self.conn.transaction()?;
        let dataset_id = ensure_dataset(&tx, dataset)?;
        let mut new_truths = 0;
        for it in items {
            let t = &it.truth;
            let blob = put_blob(&tx, t.bytes, crate::formats::media_type_of(t.format))?;
            new_truths += tx
                .prepare_cached(
                    "INSERT INTO truths (document, dataset, format, part, blob, source_path, created_at)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)
                     ON CONFLICT (document, dataset, format, part, blob) DO NOTHING",
                )?
                .execute(params![it.document, dataset_id, t.format, t.part, blob, t.source_path, now()])?
                as u32;
            for (name, value) in &it.attributes {
                tx.prepare_cached(
                    "INSERT INTO document_attributes (document, dataset, name, value)
                     VALUES (?1, ?2, ?3, ?4)
                     ON CONFLICT (document, dataset, name) DO UPDATE SET value = excluded.value",
                )?
                .execute(params![it.document, dataset_id, name, value])?;
            }
        }
        tx.commit()?;
        Ok(new_truths)
    }

    /// Records a per-file ingest failure.
    pub(crate) fn record_ingest_error(
        &self,
        run: Option<super::RunId>,
        path: &str,
        error: &str,
    ) -> Result<()> {
        if let Some(shard) = &self.shard {
            return shard.record_ingest_error(path, error);
        }
        self.conn
            .prepare_cached(
                "INSERT INTO ingest_errors (run, path, error, created_at) VALUES (?1, ?2, ?3, ?4)",
            )?
            .execute(params![run.map(|r| r.0), path, error, now()])?;
        Ok(())
    }

    /// Lists distinct documents, optionally only those named in `dataset`, in id order (a
    /// task's handle: those of its shard).
    pub fn documents(&self, dataset: Option<&str>) -> Result<Vec<DocumentRow>> {
        let mut st = self.conn.prepare_cached(
            "SELECT id, blob, pages, name, dataset FROM (
                 SELECT d.id, d.blob, d.pages, n.name, s.name AS dataset,
                        row_number() OVER (PARTITION BY d.id ORDER BY s.name, n.name) AS k
                 FROM documents d JOIN document_names n ON n.document = d.id
                 JOIN datasets s ON s.id = n.dataset
                 WHERE ?1 IS NULL OR s.name = ?1)
             WHERE k = 1 ORDER BY id",
        )?;
        let rows = st.query_map([dataset], |r| {
            Ok(DocumentRow {
                id: r.get(0)?,
                hash: r.get(1)?,
                pages: r.get(2)?,
                name: r.get(3)?,
                dataset: r.get(4)?,
            })
        })?;
        let rows: Vec<DocumentRow> = rows.collect::<rusqlite::Result<_>>()?;
        Ok(rows.into_iter().filter(|d| self.in_shard(d.id)).collect())
    }

    /// Lists every (document, name) pair, optionally only names in `dataset`: one row per name.
    pub fn document_names(&self, dataset: Option<&str>) -> Result<Vec<DocumentRow>> {
        let mut st = self.conn.prepare_cached(
            "SELECT d.id, d.blob, d.pages, n.name, s.name
             FROM document_names n JOIN documents d ON d.id = n.document
             JOIN datasets s ON s.id = n.dataset
             WHERE ?1 IS NULL OR s.name = ?1
             ORDER BY d.id, s.name, n.name",
        )?;
        let rows = st.query_map([dataset], |r| {
            Ok(DocumentRow {
                id: r.get(0)?,
                hash: r.get(1)?,
                pages: r.get(2)?,
                name: r.get(3)?,
                dataset: r.get(4)?,
            })
        })?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    /// Finds documents by name (in any dataset, or in `dataset`), or by a hash prefix of at
    /// least 8 hex digits.
    pub fn find_documents(&self, key: &str, dataset: Option<&str>) -> Result<Vec<DocumentRow>> {
        let mut st = self.conn.prepare_cached(
            "SELECT d.id, d.blob, d.pages, n.name, s.name
             FROM document_names n JOIN documents d ON d.id = n.document
             JOIN datasets s ON s.id = n.dataset
             WHERE (n.name = ?1 OR (length(?1) >= 8 AND d.blob LIKE ?1 || '%'))
               AND (?2 IS NULL OR s.name = ?2)
             ORDER BY s.name, n.name",
        )?;
        let rows = st.query_map(params![key, dataset], |r| {
            Ok(DocumentRow {
                id: r.get(0)?,
                hash: r.get(1)?,
                pages: r.get(2)?,
                name: r.get(3)?,
                dataset: r.get(4)?,
            })
        })?;
        let mut out: Vec<DocumentRow> = rows.collect::<rusqlite::Result<_>>()?;
        out.dedup_by_key(|d| (d.id, d.dataset.clone()));
        Ok(out)
    }

    /// Per dataset: (name, documents, pages, documents with a truth, documents without one).
    pub fn dataset_counts(&self) -> Result<Vec<DatasetCounts>> {
        let mut st = self.conn.prepare_cached(
            "SELECT s.name,
                    (SELECT count(*) FROM document_names n WHERE n.dataset = s.id),
                    (SELECT coalesce(sum(d.pages), 0) FROM document_names n
                     JOIN documents d ON d.id = n.document WHERE n.dataset = s.id),
                    (SELECT count(DISTINCT t.document) FROM truths t WHERE t.dataset = s.id),
                    (SELECT count(*) FROM document_names n WHERE n.dataset = s.id
                       AND NOT EXISTS (SELECT 1 FROM truths t
                                       WHERE t.document = n.document AND t.dataset = s.id))
             FROM datasets s ORDER BY s.name",
        )?;
        let rows =
            st.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?)))?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    /// Distinct documents with no truth in any dataset they are named in.
    pub fn documents_without_truth(&self) -> Result<i64> {
        Ok(self.conn.query_row(
            "SELECT count(*) FROM documents d
             WHERE NOT EXISTS (SELECT 1 FROM truths t WHERE t.document = d.id)",
            [],
            |r| r.get(0),
        )?)
    }

    /// Totals: (distinct documents, their pages, ingest errors recorded).
    pub fn totals(&self) -> Result<(i64, i64, i64)> {
        Ok(self.conn.query_row(
            "SELECT (SELECT count(*) FROM documents), (SELECT coalesce(sum(pages), 0) FROM documents),
                    (SELECT count(*) FROM ingest_errors)",
            [],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
        )?)
    }
}

/// A document's media type by its first bytes: PDFs, and the page images of image benchmarks
/// (OmniDocBench).
pub(super) fn document_media_type(bytes: &[u8]) -> &'static str {
    if bytes.starts_with(b"\x89PNG") {
        "image/png"
    } else if bytes.starts_with(&[0xff, 0xd8, 0xff]) {
        "image/jpeg"
    } else {
        "application/pdf"
    }
}
#[cfg(test)]
mod tests {
    use super::*;

    fn doc<'a>(dataset: &'a str, name: &'a str, bytes: &'a [u8]) -> IngestDoc<'a> {
        IngestDoc {
            dataset,
            name,
            source_path: name,
            pdf: PdfData::Bytes(bytes),
            pages: 1,
            truths: &[],
            attributes: &[],
        }
    }

    fn count(store: &Store, table: &str) -> i64 {
        store.conn.query_row(&format!("SELECT count(*) FROM {table}"), [], |r| r.get(0)).unwrap()
    }

    #[test]
    fn same_bytes_twice_is_one_document() {
        let mut s = Store::open_in_memory().unwrap();
        let a = s.ingest(&doc("d", "a", b"%PDF-1 x")).unwrap();
        assert!(a.new_document && a.new_name);
        let again = s.ingest(&doc("d", "a", b"%PDF-1 x")).unwrap();
        assert!(!again.new_document && !again.new_name);
        let other_name = s.ingest(&doc("e", "b", b"%PDF-1 x")).unwrap();
        assert!(!other_name.new_document && other_name.new_name);
        assert_eq!(other_name.document, a.document);
        assert_eq!((count(&s, "documents"), count(&s, "document_names")), (1, 2));
        assert_eq!(count(&s, "blobs"), 1);
    }

    #[test]
    fn a_taken_name_with_other_bytes_is_refused_and_nothing_is_written() {
        let mut s = Store::open_in_memory().unwrap();
        s.ingest(&doc("d", "a", b"one")).unwrap();
        let err = s.ingest(&doc("d", "a", b"two")).unwrap_err();
        assert!(err.to_string().contains("already has a document named a"), "{err}");
        assert_eq!((count(&s, "documents"), count(&s, "blobs")), (1, 1));
    }

    #[test]
    fn truths_attach_once_and_newest_wins() {
        let mut s = Store::open_in_memory().unwrap();
        let file = |bytes: &'static [u8]| TruthFile {
            format: "peerread",
            part: "",
            bytes,
            source_path: "a.pdf.json",
        };
        let mut d = doc("d", "a", b"pdf");
        let first = [file(b"{}")];
        d.truths = &first;
        assert_eq!(s.ingest(&d).unwrap().new_truths, 1);
        assert_eq!(s.ingest(&d).unwrap().new_truths, 0);
        let second = [file(b"{\"v\":2}")];
        d.truths = &second;
        assert_eq!(s.ingest(&d).unwrap().new_truths, 1);
        let t = s.truths(None).unwrap();
        assert_eq!(t.len(), 1);
        assert_eq!(t[0].blob, blake3::hash(b"{\"v\":2}").to_hex().to_string());
    }

    #[test]
    fn finds_documents_by_name_or_hash_prefix() {
        let mut s = Store::open_in_memory().unwrap();
        s.ingest(&doc("d", "paper", b"bytes")).unwrap();
        let h = blake3::hash(b"bytes").to_hex().to_string();
        assert_eq!(s.find_documents("paper", None).unwrap().len(), 1);
        assert_eq!(s.find_documents(&h[..10], None).unwrap().len(), 1);
        assert!(s.find_documents(&h[..4], None).unwrap().is_empty());
        assert!(s.find_documents("paper", Some("other")).unwrap().is_empty());
    }
}
