//! `corpus`: a corpus manager for people who evaluate PDF parsers.
//!
//! PDFs and their ground truth live in one content-hashed SQLite store ([`store`]); parsers
//! ("providers", [`providers`]) run once per model version and their outputs are cached by a
//! key that names everything that can change them ([`providers::key`]); suites score outputs
//! against the truth and keep every score.
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod browser;
pub mod cdm;
pub mod cluster;
pub mod doc;
pub mod error;
pub mod formats;
pub mod import;
pub mod ingest;
pub mod llm;
pub mod metrics;
pub mod normalize;
pub mod paper;
pub mod process;
pub mod progress;
pub mod providers;
pub mod report;
pub mod sample;
pub mod store;
pub mod suites;
pub mod synth;
pub mod truth;
pub mod walk;

pub use error::{Error, Result};
