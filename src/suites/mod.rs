//! Suites: score stored outputs against stored truths and keep every score.
//!
//! A suite reads outputs and truths from the store, calls pure metric functions
//! ([`crate::metrics`]) and writes one `metrics` row per (output, truth, metric), tagged with
//! the suite's id and version. Scoring is idempotent per version: an (output, truth) pair
//! already scored by this version is not scored again; a new version adds rows beside the old.
//! Every suite runs through one loop, [`driver::run`]: the suite says what it scores and
//! how, the driver does the reading, reuse, storing, progress and failures.

pub mod driver;
pub mod formula;
pub mod icdar2013;
pub mod judge;
pub mod olmocr;
pub mod omnidoc;
pub mod paper;
pub mod table;

use serde::Serialize;

/// One (output, truth) pair that could not be scored.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct EvalFailure {
    /// The document's name.
    pub document: String,
    /// The provider.
    pub provider: String,
    /// Why.
    pub error: String,
}

/// The suites this build has.
pub const SUITES: &[&str] = &["paper", "omnidoc", "olmocr", "table", "formula"];
