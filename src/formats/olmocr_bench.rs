//! olmOCR-bench unit tests: JSON lines, one test per line. Each line is loaded and checked by
//! the olmOCR metric's own loader ([`crate::metrics::olmocr::load_tests`]), which copies the
//! reference runner's validation and normalisation, so a file is accepted here exactly when
//! the scorer can run it.

use super::{Format, FormatError};
use crate::metrics::olmocr::{load_tests, Test};

/// Reads a JSONL file of tests; duplicate ids are an error, as the reference runner has it.
pub(crate) fn read_tests(bytes: &[u8]) -> Result<Vec<Test>, FormatError> {
    let text = std::str::from_utf8(bytes).map_err(|e| FormatError::utf8(Format::OlmocrBench, e))?;
    load_tests(text).map_err(|e| FormatError::new(Format::OlmocrBench, e))
}
