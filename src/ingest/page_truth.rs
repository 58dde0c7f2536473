//! Page truths of stored documents: OmniDocBench pages that carry corpus's `corpus_source`
//! (drafts from `corpus truth draft`) and Label Studio tasks, each attached to the document
//! and page it names as that document's truth part `page-N` (one truth per page), never as a
//! new image document (`docs/label-studio.md`).
//!
//! A file's pages are attached together or not at all: a page whose document is not in the
//! store (or not in the dataset, or has no such page) fails the whole file, each such page
//! named, and nothing is stored. The document's `truth_status` attribute says whether its page
//! truths are drafts ingested unchanged (`draft <provider>@<version>`) or `reviewed`.

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::Value;

use super::IngestSummary;
use crate::error::{Error, Result};
use crate::formats::omnidocbench::{self as odb, Source};
use crate::formats::TruthFormat;
use crate::store::{AttachTruth, RunId, Store, TruthFile};

/// The attribute that says whether a document's page truths were reviewed.
pub const TRUTH_STATUS: &str = "truth_status";

/// One page truth read from a file.
#[derive(Debug, Clone)]
pub struct PageTruth {
    /// The page as messages name it (`draft.json[3]`, `export.json task 12`).
    pub label: String,
    /// The page it belongs to.
    pub source: Source,
    /// Its `truth_status` ([`odb::truth_status`]).
    pub status: String,
    /// The bytes stored as the truth.
    pub bytes: Vec<u8>,
}

impl PageTruth {
    /// A page truth of an OmniDocBench page object with `corpus_source`.
    pub fn omnidocbench(label: String, page: &Value, source: Source) -> Result<PageTruth> {
        Ok(PageTruth {
            label,
            source,
            status: odb::truth_status(page),
            bytes: serde_json::to_vec(page)?,
        })
    }
}

/// Attaches every page truth of `file` (of `format`) in `dataset`, or none (see the module
/// docs); counts them into `summary`.
pub fn attach(
    store: &mut Store,
    file: &Path,
    format: TruthFormat,
    dataset: &str,
    pages: &[PageTruth],
    run: Option<RunId>,
    summary: &mut IngestSummary,
) -> Result<()> {
    let mut problems = Vec::new();
    let mut resolved = Vec::new();
    for p in pages {
        let hash = &p.source.document;
        let short = &hash[..hash.len().min(16)];
        let Some((document, count)) = store.document_by_hash(hash)? else {
            problems.push(format!(
                "{}: document {short} is not in the store (ingest its PDF first)",
                p.label
            ));
            continue;
        };
        if p.source.page == 0 || p.source.page > count {
            problems.push(format!(
                "{}: document {short} has {count} page(s), not a page {}",
                p.label, p.source.page
            ));
            continue;
        }
        if store.name_in(document, dataset)?.is_none() {
            problems.push(format!(
                "{}: document {short} is not in dataset {dataset} (give the dataset it was \
                 drafted from with --dataset)",
                p.label
            ));
            continue;
        }
        resolved.push((document, p));
    }
    if !problems.is_empty() {
        for msg in &problems {
            store.record_ingest_error(run, &file.display().to_string(), msg)?;
        }
        return Err(Error::BadInput {
            path: file.into(),
            msg: format!("{}; nothing was stored", problems.join("; ")),
        });
    }
    // A document is a draft while one of its pages is.
    let mut status: BTreeMap<i64, String> = BTreeMap::new();
    for (doc, p) in &resolved {
        let s = status.entry(*doc).or_insert_with(|| odb::REVIEWED.to_string());
        if p.status != odb::REVIEWED {
            *s = p.status.clone();
        }
    }
    let source_path = file.display().to_string();
    let parts: Vec<String> = resolved.iter().map(|(_, p)| p.source.part()).collect();
    let items: Vec<AttachTruth<'_>> = resolved
        .iter()
        .zip(&parts)
        .map(|((doc, p), part)| AttachTruth {
            document: *doc,
            truth: TruthFile {
                format: format.as_str(),
                part,
                bytes: &p.bytes,
                source_path: &source_path,
            },
            attributes: vec![(TRUTH_STATUS.to_string(), status[doc].clone())],
        })
        .collect();
    let added = store.attach_truths(dataset, &items)?;
    summary.files += pages.len() as u64;
    summary.truths_added += u64::from(added);
    summary.unchanged += pages.len() as u64 - u64::from(added);
    Ok(())
}
