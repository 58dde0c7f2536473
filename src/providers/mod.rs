//! Providers: parsers that turn a PDF into a [`Doc`], and the machinery that runs them.
//!
//! A [`Provider`] is registered once (see [`registry`]) and describes itself: its id, its
//! adapter version, its model digest and its config, which together with the PDF's hash and
//! the page selection make the output's [`key::CacheKey`]. Its [`Engine`] does the work, in
//! a worker process (see [`runner`]) so that a PDF that hangs or crashes a native library
//! costs that document, not the batch.

pub mod command;
pub mod empty;
pub mod endpoint;
pub mod key;
pub mod layout;
pub mod manifest;
pub mod openai;
pub mod pdfium;
pub mod preset;
pub mod raster;
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

    /// CPU time the last run spent in processes this one does not wait for (a Python
    /// parser's persistent worker), in ms; `None` where there are none or it is unknown.
    /// Time in this process and in children it waited for is measured by the caller.
    fn outside_cpu_ms(&mut self) -> Option<u64> {
        None
    }
}

/// A PDF read on demand: `Read + Seek`.
pub trait PdfRead: std::io::Read + std::io::Seek {}
impl<R: std::io::Read + std::io::Seek> PdfRead for R {}

/// Returns every provider compiled into this build, test-only ones included only when
/// `CORPUS_TEST_PROVIDERS=1` (presets and the special entries are in [`entries`]).
pub fn registry() -> Vec<&'static dyn Provider> {
    let show_test = std::env::var("CORPUS_TEST_PROVIDERS").is_ok_and(|v| v == "1");
    ALL.iter().copied().filter(|p| show_test || !p.test_only()).collect()
}

static ALL: &[&dyn Provider] = &[
    &pdfium::PdfiumProvider,
    &layout::LayoutProvider,
    &empty::EmptyProvider,
    &testing::FaultyProvider,
];

/// How a provider runs: every entry of the registry has exactly one kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Compiled into corpus, run in `corpus __worker` processes (pdfium, layout, empty).
    InProcess,
    /// An external command run once per PDF (`command`, and command presets).
    Command,
    /// A Python parser in its own environment, in persistent workers (Python presets).
    PythonWorker,
    /// A model behind an OpenAI-compatible HTTP endpoint (`openai`).
    Endpoint,
    /// The document's own ground truth (`truth`).
    Truth,
}

impl Kind {
    /// The kind's name in listings.
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::InProcess => "in-process",
            Kind::Command => "command",
            Kind::PythonWorker => "python",
            Kind::Endpoint => "endpoint",
            Kind::Truth => "truth",
        }
    }
}

/// One provider `corpus ocr --provider` can run.
#[derive(Clone)]
pub enum Entry {
    /// A provider compiled into corpus.
    Builtin(&'static dyn Provider),
    /// `command`: any external tool declared on the command line.
    Command,
    /// `truth`: each ground truth as a Doc.
    Truth,
    /// `openai`: a VLM behind an OpenAI-compatible API.
    Endpoint,
    /// A parser preset (`presets/`, or the user's folder).
    Preset(Box<preset::Preset>),
}

impl Entry {
    /// The id users type.
    pub fn id(&self) -> &str {
        match self {
            Entry::Builtin(p) => p.id(),
            Entry::Command => command::ID,
            Entry::Truth => truth::ID,
            Entry::Endpoint => openai::ID,
            Entry::Preset(p) => &p.id,
        }
    }

    /// How it runs.
    pub fn kind(&self) -> Kind {
        match self {
            Entry::Builtin(_) => Kind::InProcess,
            Entry::Command => Kind::Command,
            Entry::Truth => Kind::Truth,
            Entry::Endpoint => Kind::Endpoint,
            Entry::Preset(p) => match p.kind() {
                preset::RunKind::Python => Kind::PythonWorker,
                preset::RunKind::Command => Kind::Command,
                preset::RunKind::Endpoint => Kind::Endpoint,
            },
        }
    }

    /// One line for listings.
    pub fn description(&self) -> String {
        match self {
            Entry::Builtin(p) => p.description().to_string(),
            Entry::Command => {
                "any command-line parser, cached under --name and --version (see `corpus ocr --help`)"
                    .into()
            }
            Entry::Truth => "the document's own ground truth as a Doc (GT-vs-GT sanity)".into(),
            Entry::Endpoint => {
                "a vision-language model behind an OpenAI-compatible API, page by page".into()
            }
            Entry::Preset(p) => p.description.clone(),
        }
    }
}

/// The ids that are not presets: the compiled-in providers and the special entries.
fn fixed_ids() -> Vec<&'static str> {
    let mut ids: Vec<&'static str> = registry().iter().map(|p| p.id()).collect();
    ids.extend([command::ID, truth::ID, openai::ID]);
    ids
}

/// Every provider: compiled-in, the special entries, then the presets (built-in and the
/// user's), with an error for each preset file that could not be used.
pub fn entries() -> (Vec<Entry>, Vec<Error>) {
    let mut out: Vec<Entry> = registry().into_iter().map(Entry::Builtin).collect();
    out.extend([Entry::Command, Entry::Truth, Entry::Endpoint]);
    let (presets, errors) = preset::load_all(&fixed_ids());
    out.extend(presets.into_iter().map(|p| Entry::Preset(Box::new(p))));
    (out, errors)
}

/// Finds the entry `id`, with an error that lists every known id (and, when a preset file
/// could not be read, why).
pub fn resolve(id: &str) -> Result<Entry> {
    let (all, errors) = entries();
    if let Some(e) = all.iter().find(|e| e.id() == id) {
        return Ok(e.clone());
    }
    let ids: Vec<&str> = all.iter().map(Entry::id).collect();
    let mut msg = format!("unknown provider {id:?}; known providers: {}", ids.join(", "));
    for e in errors {
        msg.push_str(&format!("\n  (not loaded: {e})"));
    }
    Err(Error::Usage(msg))
}

/// Every id `corpus ocr --provider` takes.
pub fn known_ids() -> Vec<String> {
    entries().0.iter().map(|e| e.id().to_string()).collect()
}

/// Returns an error if `id` names a provider corpus runs itself (compiled in, special or a
/// preset), whose outputs an import (or a `command` provider) must not mix with, or is not a
/// usable id.
pub fn check_provider_id(id: &str) -> Result<()> {
    if known_ids().iter().any(|k| k == id) {
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

/// Finds a compiled-in provider by id, with an error that lists every known id.
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
