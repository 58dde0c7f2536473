//! Metric suites: pure functions over normalized text and structures (no IO, no SQL).

pub mod cdm;
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
pub mod score;
pub mod stats;
pub mod table;
pub mod teds;
