//! Metric suites: pure functions over normalized text and structures (no IO, no SQL).

pub mod agree;
pub mod audit;
pub mod cdm;
pub mod coco;
pub mod correlation;
pub mod difflib;
pub mod fields;
pub mod formula;
pub mod fuzz;
pub mod grits;
pub mod katex;
pub mod levenshtein;
pub mod olmocr;
pub mod pairwise;
pub mod paper;
pub mod parsebench;
pub mod score;
pub mod stats;
pub mod table;
pub mod teds;

/// Whether lower values of a metric are better: OmniDocBench's normalised edit distances
/// (`text_edit`, `table_edit`, `order_edit`, ... : an id that ends in `_edit` or holds
/// `_edit_`). Every other metric in the store is a score where higher is better
/// (`docs/statistics.md` §4).
pub fn lower_is_better(metric: &str) -> bool {
    metric.ends_with("_edit") || metric.contains("_edit_")
}
