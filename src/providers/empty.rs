//! The `empty` provider: every page of every document, empty. It is the floor of every suite
//! (`docs/statistics.md` §5): a metric that scores an empty output above zero shows it in
//! `report --by provider`, as olmOCR-bench's fuzzy matching once let near-empty outputs pass.

use super::pdfium::{self as pdf, Pdfium};
use super::{Engine, PageSelection, Provider};
use crate::doc::Doc;
use crate::error::{Error, Result};

/// The provider described in the module docs.
#[derive(Debug)]
pub struct EmptyProvider;

impl Provider for EmptyProvider {
    fn id(&self) -> &'static str {
        "empty"
    }

    fn description(&self) -> &'static str {
        "every page empty (no text, no blocks): the floor every suite's scores should sit on"
    }

    fn adapter_version(&self) -> u32 {
        1
    }

    fn model_digest(&self) -> Result<String> {
        // Page sizes are all it reads, and any libpdfium reads them alike.
        Ok("none".into())
    }

    fn load(&self) -> Result<Box<dyn Engine>> {
        let pdfium = pdf::bind().map_err(|e| Error::Native(e.to_string()))?;
        Ok(Box::new(EmptyEngine { pdfium }))
    }
}

struct EmptyEngine {
    pdfium: Pdfium,
}

impl Engine for EmptyEngine {
    fn run(&mut self, bytes: &[u8], _pages: &PageSelection) -> std::result::Result<Doc, String> {
        let pages = pdf::page_sizes(&self.pdfium, bytes).map_err(|e| e.to_string())?;
        // An empty Markdown too, so suites that score Markdown (olmOCR-bench) read "".
        Ok(Doc { pages, blocks: Vec::new(), markdown: Some(String::new()), meta: None })
    }
}
