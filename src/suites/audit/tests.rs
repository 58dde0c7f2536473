//! olmOCR-bench's tests for the audit, from the stored `pass:<test>` rows (the newest value
//! per document, provider and test): a test is one element, read by every provider with a
//! row for it, as `pass` or `fail`. A test every witness fails the same way is the finding:
//! support = failing / providers with a row; no text, so coherence is 1. The test's own
//! text is in the store's truth (`corpus show TEST --suite olmocr`); the finding names it.

use std::collections::{BTreeMap, BTreeSet};

use super::Element;
use crate::error::Result;
use crate::store::Store;
use crate::suites::Suite;

/// Every olmOCR-bench test in scope with a stored result, read as pass or fail.
pub fn elements(
    store: &Store,
    dataset: Option<&str>,
    providers: &[String],
) -> Result<Vec<Element>> {
    let names: Option<BTreeMap<String, String>> = match dataset {
        Some(d) => {
            Some(store.document_names(Some(d))?.into_iter().map(|r| (r.name, r.dataset)).collect())
        }
        None => None,
    };
    let wanted: BTreeSet<&str> = providers.iter().map(String::as_str).collect();
    let mut by_test: BTreeMap<(String, String), Element> = BTreeMap::new();
    for suite in Suite::Olmocr.stored_names() {
        for v in store.latest_values(suite, None)? {
            let Some(test) = v.metric.strip_prefix("pass:") else { continue };
            if !wanted.contains(v.provider.as_str()) {
                continue;
            }
            let ds = match &names {
                Some(n) => match n.get(&v.document) {
                    Some(d) => d.clone(),
                    None => continue,
                },
                None => dataset.unwrap_or_default().to_string(),
            };
            let el =
                by_test.entry((v.document.clone(), test.to_string())).or_insert_with(|| Element {
                    kind: "test",
                    dataset: ds,
                    document: v.document.clone(),
                    page: None,
                    label: format!("test {test}"),
                    truth_text: "pass".into(),
                    truth: vec!["pass".into()],
                    units: None,
                    bbox: None,
                    image: None,
                    readings: Vec::new(),
                });
            if el.readings.iter().any(|r| r.0 == v.provider) {
                continue; // the newest row of another stored variant was taken first
            }
            let read = if v.value >= 1.0 { "pass" } else { "fail" };
            el.readings.push((v.provider.clone(), read.into(), vec![read.into()]));
        }
    }
    Ok(by_test.into_values().collect())
}
