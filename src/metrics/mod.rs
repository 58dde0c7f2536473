//! Metric suites: pure functions over normalized text and structures (no IO, no SQL).

pub mod levenshtein;
pub mod paper;
