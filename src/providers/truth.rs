//! The `truth` provider: a document's own ground truth as a [`Doc`](crate::doc::Doc), so that
//! scoring the truth against itself (which must give 1.0 everywhere) is one command.
//!
//! It runs in the calling process, since it reads the store rather than the PDF. Its cache key
//! uses the truth's content digest as the model digest, so a changed truth gives a new output.
//!
//! The Doc is [`paper::to_doc`] of the truth as its reader gives it, and the suite scores the
//! truth as [`paper::canonical`] (that Doc read back by the linearizer), so the two sides are
//! one paper by construction, whatever the truth holds.

use serde_json::json;

use super::key::CacheKey;
use crate::error::Result;
use crate::formats::TruthFormat;
use crate::paper;
use crate::store::{NewOutput, RunId, Store};
use crate::truth::truth_groups;

/// The provider id.
pub const ID: &str = "truth";

/// Bump when the Doc made from a truth changes (2: reference blocks carry their fields,
/// headings their levels, and the Doc the paper's authors and keywords).
pub const ADAPTER_VERSION: u32 = 2;

/// What [`materialize`] did: (outputs already stored, outputs written, failures).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TruthCounts {
    /// Truth outputs already in the store.
    pub cached: u64,
    /// Truth outputs written now.
    pub written: u64,
    /// Truths that could not be turned into a Doc (recorded as failures).
    pub failed: u64,
}

/// Stores a `truth` output for every paper-suite truth (optionally of one dataset) that does
/// not have one yet.
pub fn materialize(
    store: &mut Store,
    dataset: Option<&str>,
    run: Option<RunId>,
) -> Result<TruthCounts> {
    materialize_with(store, dataset, run, TruthFormat::is_paper, |store, g| {
        g.read_paper(store).map(|p| paper::to_doc(&p))
    })
}

/// Stores a `truth` output for every `pdf-parse-bench` truth (optionally of one dataset) that
/// does not have one yet: the truth written as Markdown
/// ([`crate::formats::pdf_parse_bench::to_markdown`]) and read back by the Markdown importer,
/// so the Doc keeps that Markdown, formulas and their delimiters included, as an imported
/// Markdown output would.
pub fn materialize_pdf_parse_bench(
    store: &mut Store,
    dataset: Option<&str>,
    run: Option<RunId>,
) -> Result<TruthCounts> {
    use crate::formats::{pdf_parse_bench, ImportFormat};
    materialize_with(
        store,
        dataset,
        run,
        |f| f == TruthFormat::PdfParseBench,
        |store, g| {
            let part =
                g.parts.first().ok_or_else(|| crate::Error::Usage("truth has no file".into()))?;
            let bytes = store.blob(&part.blob)?.ok_or_else(|| {
                crate::Error::Usage(format!("truth blob {} is missing from the store", part.blob))
            })?;
            let bad = |msg: String| crate::Error::BadInput {
                path: format!("truth pdf-parse-bench of document {}", g.document).into(),
                msg,
            };
            let items = pdf_parse_bench::read_items(&bytes).map_err(|e| bad(e.to_string()))?;
            let md = pdf_parse_bench::to_markdown(&items);
            ImportFormat::Markdown
                .read(md.as_bytes(), 0)
                .map(|p| p.doc)
                .map_err(|e| bad(e.to_string()))
        },
    )
}

fn materialize_with(
    store: &mut Store,
    dataset: Option<&str>,
    run: Option<RunId>,
    keep: impl Fn(TruthFormat) -> bool,
    make: impl Fn(&Store, &crate::truth::TruthGroup) -> Result<crate::doc::Doc>,
) -> Result<TruthCounts> {
    let mut counts = TruthCounts::default();
    let groups = truth_groups(store, dataset, keep)?;
    for g in groups {
        let Some(pdf_hash) = store.document_hash(g.document)? else { continue };
        let digest = g.digest();
        let config = json!({"dataset": g.dataset, "format": g.format.as_str()});
        let key =
            CacheKey::builder(ID, ADAPTER_VERSION, &digest, &pdf_hash).config(&config).compute();
        if store.output_status(key.as_str())?.as_deref() == Some("ok") {
            counts.cached += 1;
            continue;
        }
        let t0 = std::time::Instant::now();
        let doc = make(store, &g);
        let json = match &doc {
            Ok(d) => Ok(serde_json::to_vec(d)?),
            Err(e) => Err(e.to_string()),
        };
        store.put_output(&NewOutput {
            cache_key: key.as_str(),
            document: g.document,
            provider: ID,
            provider_version: &ADAPTER_VERSION.to_string(),
            model_digest: &digest,
            config: &super::key::canonical_json(&config),
            pages: "all",
            result: json.as_ref().map(Vec::as_slice).map_err(String::as_str),
            usage: crate::store::Usage {
                wall_ms: t0.elapsed().as_millis() as u64,
                ..Default::default()
            },
            device: "cpu",
            run,
        })?;
        if json.is_ok() {
            counts.written += 1;
        } else {
            counts.failed += 1;
        }
    }
    Ok(counts)
}
