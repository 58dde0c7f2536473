//! Providers: parsers that turn a PDF into a [`Doc`], and the machinery that runs them.
//!
//! A [`Provider`] is registered once (see [`registry`]) and describes itself: its id, its
//! adapter version, its model digest and its config, which together with the PDF's hash and
//! the page selection make the output's [`key::CacheKey`]. Its [`Engine`] does the work, in
//! a worker process (see [`runner`]) so that a PDF that hangs or crashes a native library
//! costs that document, not the batch.

pub mod builtin;
pub mod command;
pub mod key;
pub mod layout;
pub mod manifest;
pub mod openai;
pub mod pdfium;
pub mod runner;
pub mod testing;
pub mod truth;
pub mod worker;

use serde_json::Value;

use crate::doc::Doc;
use crate::error::{Error, Result};
pub use key::{CacheKey, PageSelection};

/// A parser that can be run over documents and cached.
pub trait Provider: Send + Sync {
    /// The provider's id (`pdfium`, `layout`, ...), as users type it.
    fn id(&self) -> &'static str;

    /// A one-line description for `--help` and listings.
    fn description(&self) -> &'static str;

    /// The adapter version: bump it whenever the output for the same input changes.
    fn adapter_version(&self) -> u32;

    /// The version stored with each output (`provider_version`): the adapter version for
    /// built-in providers, the declared version for external tools.
    fn version(&self) -> String {
        self.adapter_version().to_string()
    }

    /// The digest of the model (weights, native build, manifest) this provider would use now.
    ///
    /// Runs in the parent process before any work is scheduled, so a missing library or model
    /// fails the command early with a message that says how to fix it.
    fn model_digest(&self) -> Result<String>;

    /// The provider's configuration, as it enters the cache key.
    fn config(&self) -> Value {
        Value::Object(Default::default())
    }

    /// Whether the provider is for tests only (hidden from listings, enabled by
    /// `CORPUS_TEST_PROVIDERS=1`).
    fn test_only(&self) -> bool {
        false
    }

    /// Loads the provider's libraries and models, in the process that will run it.
    fn load(&self) -> Result<Box<dyn Engine>>;
}

/// A loaded provider, ready to parse documents one after another.
pub trait Engine {
    /// Parses one PDF. An `Err` is a per-document failure, recorded with its message.
    fn run(&mut self, pdf: &[u8], pages: &PageSelection) -> std::result::Result<Doc, String>;

    /// Parses a PDF too large to hold in memory, read on demand from `pdf` (a stored blob:
    /// see `docs/large-files.md`). Providers that can read a PDF in pieces override this;
    /// the default reads it whole, once, and calls [`Engine::run`].
    fn run_reader(
        &mut self,
        pdf: &mut dyn PdfRead,
        pages: &PageSelection,
    ) -> std::result::Result<Doc, String> {
        let mut bytes = Vec::new();
        pdf.read_to_end(&mut bytes).map_err(|e| format!("cannot read the stored PDF: {e}"))?;
        self.run(&bytes, pages)
    }
}

/// A PDF read on demand: `Read + Seek`.
pub trait PdfRead: std::io::Read + std::io::Seek {}
impl<R: std::io::Read + std::io::Seek> PdfRead for R {}

/// Returns every provider this build knows, test-only ones included only when
/// `CORPUS_TEST_PROVIDERS=1`.
pub fn registry() -> Vec<&'static dyn Provider> {
    let show_test = std::env::var("CORPUS_TEST_PROVIDERS").is_ok_and(|v| v == "1");
    ALL.iter().copied().filter(|p| show_test || !p.test_only()).collect()
}

static ALL: &[&dyn Provider] =
    &[&builtin::PdfiumProvider, &layout::LayoutProvider, &testing::FaultyProvider];

/// Every id `corpus ocr --provider` takes: the registry's providers, then `command` (an
/// external tool) and `truth` (each ground truth as a Doc), which are not in the registry
/// because they need more than an id to run.
pub fn known_ids() -> Vec<&'static str> {
    let mut ids: Vec<&'static str> = registry().iter().map(|p| p.id()).collect();
    ids.extend([command::ID, truth::ID, openai::ID]);
    ids
}

/// Returns an error if `id` names a built-in provider, whose outputs an import (or a
/// `command` provider) must not mix with, or is not a usable id.
pub fn check_provider_id(id: &str) -> Result<()> {
    let builtin =
        registry().iter().any(|p| p.id() == id) || matches!(id, "truth" | "command" | "openai");
    if builtin {
        return Err(Error::Usage(format!(
            "{id:?} is a built-in provider; imported outputs need a name of their own (e.g. docling-2.14)"
        )));
    }
    if id.is_empty() || id.chars().any(|c| c.is_whitespace() || c == '@') {
        return Err(Error::Usage(format!(
            "provider id {id:?} must be non-empty, without spaces or '@'"
        )));
    }
    Ok(())
}

/// Finds a registry provider by id, with an error that lists every known id.
pub fn find(id: &str) -> Result<&'static dyn Provider> {
    registry().iter().copied().find(|p| p.id() == id).ok_or_else(|| {
        Error::Usage(format!(
            "unknown provider {id:?}; known providers: {}",
            known_ids().join(", ")
        ))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn provider_ids_are_unique() {
        let mut ids: Vec<&str> = ALL.iter().map(|p| p.id()).collect();
        ids.sort_unstable();
        let n = ids.len();
        ids.dedup();
        assert_eq!(ids.len(), n);
    }

    #[test]
    fn unknown_provider_lists_the_known_ones() {
        let err = find("nope").err().unwrap().to_string();
        assert!(err.contains("unknown provider \"nope\""), "{err}");
    }
}
