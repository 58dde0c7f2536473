//! The `pdfium` provider: the PDF's own text layer, laid out into blocks in reading order.
//!
//! `extract` reads every character with its box, font size and weight through
//! pdfium-render; [`structure`] (pure, no pdfium types) turns those glyphs into lines, columns
//! and typed blocks. pdfium is not thread-safe: bind one [`Pdfium`] per process and run one
//! document at a time on it; parallelism comes from worker processes.

pub(crate) mod extract;
mod paths;
mod provider;
#[cfg(test)]
mod sample_tests;
pub mod structure;
#[cfg(test)]
mod table_tests;
#[cfg(test)]
mod wrap_tests;

use std::path::{Path, PathBuf};

pub use pdfium_render::prelude::Pdfium;
use pdfium_render::prelude::{PdfiumError as RawError, PdfiumInternalError};
pub use provider::{PdfiumPageCounter, PdfiumProvider};

/// Bump when the output for the same PDF changes (4: run-in headings are split from their
/// paragraph; 5: a run-in heading's paragraph may go on below its first line, and a
/// reference entry whose first column or page holds one unfinished line is continued; 6: a
/// table stops where the page's evidence of its rows stops, and borderless tables of aligned
/// cells are found without a caption or numbers, docs/tables.md § 4).
pub const ADAPTER_VERSION: u32 = 6;

/// The pypdfium2 release whose `libpdfium.so` the set-up script installs (also the page
/// renderer's version in the HTML report's image cache key).
pub const PDFIUM_DIR: &str = "pdfium-5.15.2";

/// Why the pdfium provider could not bind the library or read a document.
#[derive(Debug, thiserror::Error)]
pub enum PdfiumError {
    /// libpdfium could not be loaded from any of the places looked at.
    #[error(
        "libpdfium not found ({tried}); run `corpus setup`, or set CORPUS_PDFIUM to \
         libpdfium.so or the folder that holds it"
    )]
    NotFound {
        /// Each place tried and why it failed, `; `-separated.
        tried: String,
    },
    /// The bytes do not start like a PDF.
    #[error("not a PDF")]
    NotPdf,
    /// pdfium could not parse the file.
    #[error("truncated or damaged PDF")]
    Damaged,
    /// The document needs a password.
    #[error("encrypted PDF (password required)")]
    Encrypted,
    /// Any other pdfium failure.
    #[error("{0}")]
    Pdfium(String),
}

/// Serializes the unit tests' use of libpdfium: it is not thread-safe, and the tests of
/// several modules run on parallel threads of one process.
#[cfg(test)]
pub(crate) fn test_lock() -> std::sync::MutexGuard<'static, ()> {
    static LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());
    LOCK.lock().unwrap_or_else(|e| e.into_inner())
}

/// Binds libpdfium.
///
/// Looks in order at: env `CORPUS_PDFIUM` (the library file or its folder), then
/// `${CORPUS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/corpus}/native/pdfium-5.15.2/libpdfium.so`,
/// then the folder of the running executable, then the system library path. Binding a
/// second time in one process reuses the first binding.
pub fn bind() -> Result<Pdfium, PdfiumError> {
    let mut tried = Vec::new();
    for path in candidate_paths() {
        if !path.is_file() {
            tried.push(format!("{}: no such file", path.display()));
            continue;
        }
        match Pdfium::bind_to_library(&path) {
            Ok(bindings) => return Ok(Pdfium::new(bindings)),
            Err(RawError::PdfiumLibraryBindingsAlreadyInitialized) => return Ok(Pdfium::default()),
            Err(e) => tried.push(format!("{}: {}", path.display(), one_line(&e))),
        }
    }
    match Pdfium::bind_to_system_library() {
        Ok(bindings) => Ok(Pdfium::new(bindings)),
        // `default()` re-uses bindings that are already initialised, without loading anything.
        Err(RawError::PdfiumLibraryBindingsAlreadyInitialized) => Ok(Pdfium::default()),
        Err(e) => {
            tried.push(format!("system library: {}", one_line(&e)));
            Err(PdfiumError::NotFound { tried: tried.join("; ") })
        }
    }
}

/// Returns the libpdfium file that [`bind`] loads first, for hashing into the model digest.
///
/// A library found only on the system search path has no path to hash, so it is refused
/// here with the same advice as a missing one.
pub(crate) fn library_path() -> Result<PathBuf, PdfiumError> {
    let candidates = candidate_paths();
    candidates.iter().find(|p| p.is_file()).cloned().ok_or_else(|| PdfiumError::NotFound {
        tried: candidates
            .iter()
            .map(|p| format!("{}: no such file", p.display()))
            .collect::<Vec<_>>()
            .join("; "),
    })
}

/// Returns an error's text on one line (pdfium-render prints some errors as multi-line Debug).
fn one_line(e: &RawError) -> String {
    e.to_string().split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Says in a sentence what a pdfium-render error means. Its `Display` is Rust's pretty
/// `Debug` (`PdfiumLibraryInternalError(\n    Unknown,\n)`), which is what a stored failure
/// must never read like.
pub fn describe(e: &RawError) -> String {
    match e {
        RawError::PdfiumLibraryInternalError(i) => match i {
            PdfiumInternalError::FileError => "pdfium could not read the file".into(),
            PdfiumInternalError::FormatError => {
                "pdfium could not parse the PDF (truncated or damaged)".into()
            }
            PdfiumInternalError::PasswordError => "the PDF needs a password".into(),
            PdfiumInternalError::SecurityError => {
                "the PDF's security settings do not allow it".into()
            }
            PdfiumInternalError::PageError => "pdfium could not load the page".into(),
            PdfiumInternalError::Unknown => {
                "pdfium could not load the page (internal error: Unknown)".into()
            }
        },
        other => {
            // `VariantName(payload)` -> "variant name (payload)", on one line.
            let debug = format!("{other:?}");
            let (name, rest) = debug.split_once('(').unwrap_or((debug.as_str(), ""));
            let mut words = String::new();
            for (i, c) in name.trim().chars().enumerate() {
                if c.is_uppercase() && i > 0 {
                    words.push(' ');
                }
                words.extend(c.to_lowercase());
            }
            let words = words.strip_prefix("pdfium ").unwrap_or(&words).to_string();
            let rest: String =
                rest.trim_end_matches(')').split_whitespace().collect::<Vec<_>>().join(" ");
            let rest = rest.trim_end_matches(',');
            if rest.is_empty() {
                format!("pdfium: {words}")
            } else {
                format!("pdfium: {words} ({rest})")
            }
        }
    }
}

/// Returns the library paths to try before the system library, in order.
fn candidate_paths() -> Vec<PathBuf> {
    let lib = Pdfium::pdfium_platform_library_name();
    let mut out = Vec::new();
    if let Some(p) = std::env::var_os("CORPUS_PDFIUM").filter(|p| !p.is_empty()) {
        let p = PathBuf::from(p);
        out.push(if p.is_dir() { p.join(&lib) } else { p });
    }
    if let Some(cache) = crate::paths::cache_dir() {
        out.push(cache.join("native").join(PDFIUM_DIR).join(&lib));
    }
    if let Some(dir) = std::env::current_exe().ok().as_deref().and_then(Path::parent) {
        out.push(dir.join(&lib));
    }
    out
}

/// Returns the number of pages.
///
/// Fails (never panics) on bytes that are not a PDF, on a truncated or damaged file and on an
/// encrypted file that needs a password.
pub fn page_count(pdfium: &Pdfium, bytes: &[u8]) -> Result<u32, PdfiumError> {
    let doc = open(pdfium, bytes)?;
    Ok(u32::try_from(doc.pages().len()).unwrap_or(0))
}

/// Returns every page's size in PDF points, without reading its text.
pub(crate) fn page_sizes(
    pdfium: &Pdfium,
    bytes: &[u8],
) -> Result<Vec<crate::doc::Page>, PdfiumError> {
    let doc = open(pdfium, bytes)?;
    Ok(doc
        .pages()
        .iter()
        .map(|p| crate::doc::Page { width: p.width().value, height: p.height().value })
        .collect())
}

/// Parses a PDF's text layer into a [`Doc`](crate::doc::Doc) with blocks in reading order.
pub fn parse(pdfium: &Pdfium, bytes: &[u8]) -> Result<crate::doc::Doc, PdfiumError> {
    let doc = open(pdfium, bytes)?;
    let pages = extract::pages(&doc);
    Ok(structure::build_doc(&pages))
}

/// Reads every page's glyphs, rules and art, before any layout (for tools and tests that
/// look at what the layout is given).
#[cfg(test)]
pub(crate) fn read_pages(
    pdfium: &Pdfium,
    bytes: &[u8],
) -> Result<Vec<structure::PageGlyphs>, PdfiumError> {
    let doc = open(pdfium, bytes)?;
    Ok(extract::pages(&doc))
}

/// Opens a document, mapping pdfium's load errors to ours.
pub fn open<'a>(
    pdfium: &'a Pdfium,
    bytes: &'a [u8],
) -> Result<pdfium_render::prelude::PdfDocument<'a>, PdfiumError> {
    // pdfium accepts a header anywhere in the first KiB, as Acrobat does.
    let head = &bytes[..bytes.len().min(1024)];
    if !head.windows(5).any(|w| w == b"%PDF-") {
        return Err(PdfiumError::NotPdf);
    }
    pdfium.load_pdf_from_byte_slice(bytes, None).map_err(load_error)
}

/// Opens a document that pdfium reads on demand from `reader` (a PDF too large to hold in
/// memory: a file, or a stored blob read in pieces), mapping load errors as [`open`] does.
pub(crate) fn open_reader<'a, R: std::io::Read + std::io::Seek + 'a>(
    pdfium: &'a Pdfium,
    mut reader: R,
) -> Result<pdfium_render::prelude::PdfDocument<'a>, PdfiumError> {
    use std::io::Read as _;
    let mut head = Vec::with_capacity(1024);
    let io = |e: std::io::Error| PdfiumError::Pdfium(format!("cannot read the PDF: {e}"));
    (&mut reader).take(1024).read_to_end(&mut head).map_err(io)?;
    if !head.windows(5).any(|w| w == b"%PDF-") {
        return Err(PdfiumError::NotPdf);
    }
    reader.seek(std::io::SeekFrom::Start(0)).map_err(io)?;
    pdfium.load_pdf_from_reader(reader, None).map_err(load_error)
}

/// Counts the pages of a PDF file that pdfium reads on demand.
pub(crate) fn page_count_file(pdfium: &Pdfium, path: &std::path::Path) -> Result<u32, PdfiumError> {
    let f = std::fs::File::open(path)
        .map_err(|e| PdfiumError::Pdfium(format!("cannot open: {}", crate::walk::io_words(&e))))?;
    let doc = open_reader(pdfium, std::io::BufReader::with_capacity(1 << 16, f))?;
    Ok(u32::try_from(doc.pages().len()).unwrap_or(0))
}

/// Parses a PDF that pdfium reads on demand from `reader` (see [`open_reader`]).
pub(crate) fn parse_reader<R: std::io::Read + std::io::Seek>(
    pdfium: &Pdfium,
    reader: R,
) -> Result<crate::doc::Doc, PdfiumError> {
    let doc = open_reader(pdfium, reader)?;
    let pages = extract::pages(&doc);
    Ok(structure::build_doc(&pages))
}

fn load_error(e: RawError) -> PdfiumError {
    match e {
        RawError::PdfiumLibraryInternalError(
            PdfiumInternalError::PasswordError | PdfiumInternalError::SecurityError,
        ) => PdfiumError::Encrypted,
        RawError::PdfiumLibraryInternalError(
            PdfiumInternalError::FormatError | PdfiumInternalError::FileError,
        ) => PdfiumError::Damaged,
        other => PdfiumError::Pdfium(describe(&other)),
    }
}

#[cfg(test)]
mod describe_tests {
    use super::*;

    #[test]
    fn pdfium_errors_read_as_sentences_on_one_line() {
        let e = RawError::PdfiumLibraryInternalError(PdfiumInternalError::Unknown);
        assert!(e.to_string().contains('\n'), "pdfium-render's Display is multi-line Debug");
        assert_eq!(describe(&e), "pdfium could not load the page (internal error: Unknown)");
        let p = RawError::PdfiumLibraryInternalError(PdfiumInternalError::PageError);
        assert_eq!(describe(&p), "pdfium could not load the page");
        let other = describe(&RawError::PageIndexOutOfBounds);
        assert_eq!(other, "pdfium: page index out of bounds");
        assert!(!other.contains('\n'));
    }
}
