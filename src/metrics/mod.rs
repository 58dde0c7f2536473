//! Metric suites: pure functions over normalized text and structures (no IO, no SQL).

pub mod correlation;
pub mod difflib;
pub mod grits;
pub mod levenshtein;
pub mod paper;
pub mod table;
pub mod teds;
