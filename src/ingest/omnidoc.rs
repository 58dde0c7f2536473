//! `corpus ingest OmniDocBench.json --truth omnidocbench [--images DIR]`: each page of an
//! OmniDocBench ground-truth file becomes a one-page document (its page image, keyed by content
//! hash like a PDF) named by the image's stem, with that page's JSON object as its truth and
//! its `page_attribute`s (data_source, language, layout, ...) as document attributes, so
//! reports group by them (`--by attribute:data_source`). A page that carries corpus's
//! `corpus_source` (a draft of `corpus truth draft`) is a page of a stored document instead:
//! those pages are attached to their documents together ([`super::page_truth`]), and need no
//! image.

use std::path::Path;

use serde_json::Value;

use super::page_truth::PageTruth;
use super::{FileError, IngestSummary};
use crate::error::{Error, Result};
use crate::formats::omnidocbench::{read_page_list, Page};
use crate::formats::TruthFormat;
use crate::progress::Progress;
use crate::store::{IngestDoc, RunId, Store, TruthFile};

/// An attribute value as the store keeps it: strings as they are, lists joined by `,`.
fn attribute_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Array(items) => items.iter().map(attribute_text).collect::<Vec<_>>().join(","),
        Value::Bool(b) => if *b { "True" } else { "False" }.to_string(),
        Value::Null => "None".into(),
        other => other.to_string(),
    }
}

/// Ingests every page of `json` whose image is in `images` (default: `images/` beside the
/// JSON file).
pub fn ingest_omnidocbench(
    store: &mut Store,
    json: &Path,
    images: Option<&Path>,
    dataset: &str,
    run: Option<RunId>,
    progress: &dyn Progress,
) -> Result<IngestSummary> {
    let bad = |msg: String| Error::BadInput { path: json.into(), msg };
    let bytes = crate::walk::read_regular(json, crate::walk::MAX_TEXT_FILE, "a ground-truth file")
        .map_err(bad)?;
    let raw = read_page_list(&bytes).map_err(|e| bad(e.to_string()))?;
    let default_images = json.parent().unwrap_or(Path::new(".")).join("images");
    let images = images.unwrap_or(&default_images);
    let mut summary = IngestSummary::default();
    let mut sourced = Vec::new();
    progress.start(raw.len() as u64);
    for (i, value) in raw.iter().enumerate() {
        let shown = format!("{}[{i}]", json.display());
        if let Some(src) = value.pointer("/page_info/corpus_source") {
            let checked = serde_json::from_value::<Page>(value.clone()).map_err(|e| e.to_string());
            match (serde_json::from_value(src.clone()).map_err(|e| e.to_string()), checked) {
                (Ok(source), Ok(_)) => {
                    sourced.push(PageTruth::omnidocbench(shown.clone(), value, source)?);
                }
                (Err(e), _) | (_, Err(e)) => {
                    return Err(bad(format!("page {i} is not a corpus draft page: {e}")))
                }
            }
            progress.advance(&shown, true);
            continue;
        }
        let page: Page = match serde_json::from_value(value.clone()) {
            Ok(p) => p,
            Err(e) => {
                let error = format!("page {i} is not an OmniDocBench page: {e}");
                store.record_ingest_error(run, &shown, &error)?;
                summary.errors.push(FileError { path: shown.clone(), error });
                progress.advance(&shown, false);
                continue;
            }
        };
        summary.files += 1;
        let image = images.join(page.image_name());
        let result = (|| -> std::result::Result<(), String> {
            let pixels = crate::walk::read_regular(&image, crate::store::CHUNK, "a page image")
                .map_err(|e| format!("page image {}: {e}", image.display()))?;
            let truth = serde_json::to_vec(value).map_err(|e| e.to_string())?;
            let attributes: Vec<(String, String)> = page
                .page_info
                .page_attribute
                .iter()
                .map(|(k, v)| (k.clone(), attribute_text(v)))
                .collect();
            let source = image.display().to_string();
            let json_path = json.display().to_string();
            let out = store
                .ingest(&IngestDoc {
                    dataset,
                    name: page.stem(),
                    source_path: &source,
                    pdf: crate::store::PdfData::Bytes(&pixels),
                    pages: 1,
                    truths: &[TruthFile {
                        format: TruthFormat::OmniDocBench.as_str(),
                        part: "",
                        bytes: &truth,
                        source_path: &json_path,
                    }],
                    attributes: &attributes,
                })
                .map_err(|e| e.to_string())?;
            // A page image is one page.
            summary.count(&out, 1);
            Ok(())
        })();
        if let Err(error) = &result {
            store.record_ingest_error(run, &shown, error)?;
            summary.errors.push(FileError {
                path: format!("{shown} ({})", page.image_name()),
                error: error.clone(),
            });
        }
        progress.advance(page.stem(), result.is_ok());
    }
    progress.finish();
    if !sourced.is_empty() {
        let f = TruthFormat::OmniDocBench;
        super::page_truth::attach(store, json, f, dataset, &sourced, run, &mut summary)?;
    }
    Ok(summary)
}
