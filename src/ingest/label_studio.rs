//! `corpus ingest EXPORT.json --truth label-studio --dataset D`: each task of a Label Studio
//! JSON export of a corpus project becomes the truth of the stored page it names
//! ([`crate::formats::label_studio`], `docs/label-studio.md`): the task is stored verbatim as
//! the truth part `page-N` of the document, and its latest submitted annotation is what the
//! omnidoc suite scores. Tasks that were skipped (every annotation cancelled) or never
//! annotated are named in the summary and recorded as the run's ingest errors. The whole file
//! is read before anything is stored: one bad task (another labelling configuration, a region
//! outside the image, a page not in the store) fails the file, naming the task, and nothing is
//! stored.

use std::path::Path;

use super::page_truth::{self, PageTruth};
use super::IngestSummary;
use crate::error::{Error, Result};
use crate::formats::label_studio::{self as ls, Outcome};
use crate::formats::omnidocbench as odb;
use crate::formats::TruthFormat;
use crate::progress::Progress;
use crate::store::{RunId, Store};

/// Ingests every annotated task of the export `json` into `dataset`.
pub fn ingest_label_studio(
    store: &mut Store,
    json: &Path,
    dataset: &str,
    run: Option<RunId>,
    progress: &dyn Progress,
) -> Result<IngestSummary> {
    let bad = |msg: String| Error::BadInput { path: json.into(), msg };
    let bytes =
        crate::walk::read_regular(json, crate::walk::MAX_TEXT_FILE, "a Label Studio export")
            .map_err(bad)?;
    let tasks = ls::read_export(&bytes).map_err(|e| bad(e.to_string()))?;
    let mut summary = IngestSummary::default();
    let mut pages = Vec::new();
    let mut problems = Vec::new();
    progress.start(tasks.len() as u64);
    for task in &tasks {
        let name = ls::task_name(task);
        let outcome = ls::read_task(task).map_err(|e| format!("{name}: {e}"));
        let source = ls::task_source(task).map_err(|e| format!("{name}: {e}"));
        match (outcome, source) {
            (Ok(Outcome::Annotated(page)), Ok(source)) => {
                let status = odb::truth_status(&page);
                let bytes = serde_json::to_vec(task)?;
                pages.push(PageTruth { label: name.clone(), source, status, bytes });
            }
            (Ok(Outcome::Skipped), Ok(s)) => summary.tasks_not_ingested.push(format!(
                "{name} (document {}, page {}): skipped (every annotation cancelled)",
                &s.document[..s.document.len().min(16)],
                s.page
            )),
            (Ok(Outcome::Unannotated), Ok(s)) => summary.tasks_not_ingested.push(format!(
                "{name} (document {}, page {}): no submitted annotation",
                &s.document[..s.document.len().min(16)],
                s.page
            )),
            (Err(e), _) | (_, Err(e)) => problems.push(e),
        }
        progress.advance(&name, true);
    }
    progress.finish();
    if !problems.is_empty() {
        for msg in &problems {
            store.record_ingest_error(run, &json.display().to_string(), msg)?;
        }
        return Err(bad(format!("{}; nothing was stored", problems.join("; "))));
    }
    if pages.is_empty() && summary.tasks_not_ingested.is_empty() {
        return Err(bad("the export has no tasks".into()));
    }
    for msg in &summary.tasks_not_ingested {
        store.record_ingest_error(run, &json.display().to_string(), msg)?;
    }
    let f = TruthFormat::LabelStudio;
    page_truth::attach(store, json, f, dataset, &pages, run, &mut summary)?;
    Ok(summary)
}
