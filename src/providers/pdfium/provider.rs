//! The `pdfium` provider behind the [`Provider`] trait, and pdfium as ingest's page counter.

use std::path::PathBuf;

use super::{self as pdf, Pdfium};
use crate::doc::Doc;
use crate::error::{Error, Result};
use crate::providers::manifest::{Manifest, MANIFESTS};
use crate::providers::{Engine, PageSelection, Provider};

/// The text-layer provider (see [`super`]).
#[derive(Debug)]
pub struct PdfiumProvider;

fn manifest_text() -> &'static str {
    MANIFESTS
        .iter()
        .find(|(p, _)| *p == "pdfium/libpdfium.toml")
        .map(|(_, t)| *t)
        .unwrap_or_default()
}

fn library() -> Result<PathBuf> {
    pdf::library_path().map_err(|e| Error::Native(e.to_string()))
}

impl Provider for PdfiumProvider {
    fn id(&self) -> &'static str {
        "pdfium"
    }

    fn description(&self) -> &'static str {
        "text layer via libpdfium: lines, blocks, headings, columns, captions, header/footer"
    }

    fn adapter_version(&self) -> u32 {
        pdf::ADAPTER_VERSION
    }

    fn model_digest(&self) -> Result<String> {
        // The native build is the model: a different libpdfium can move char boxes.
        Manifest::digest(manifest_text(), &library()?)
    }

    fn load(&self) -> Result<Box<dyn Engine>> {
        let pdfium = pdf::bind().map_err(|e| Error::Native(e.to_string()))?;
        Ok(Box::new(PdfiumEngine { pdfium }))
    }
}

struct PdfiumEngine {
    pdfium: Pdfium,
}

impl Engine for PdfiumEngine {
    fn run(&mut self, bytes: &[u8], pages: &PageSelection) -> std::result::Result<Doc, String> {
        let doc = pdf::parse(&self.pdfium, bytes).map_err(|e| e.to_string())?;
        Ok(select(doc, pages))
    }

    fn run_reader(
        &mut self,
        reader: &mut dyn crate::providers::PdfRead,
        pages: &PageSelection,
    ) -> std::result::Result<Doc, String> {
        let doc = pdf::parse_reader(&self.pdfium, reader).map_err(|e| e.to_string())?;
        Ok(select(doc, pages))
    }
}

/// Keeps the blocks of the selected pages.
fn select(mut doc: Doc, pages: &PageSelection) -> Doc {
    if *pages != PageSelection::All {
        doc.blocks.retain(|b| pages.contains(b.page));
    }
    doc
}

/// Counts pages with pdfium, binding the library on first use.
#[derive(Default)]
pub struct PdfiumPageCounter {
    pdfium: Option<Pdfium>,
}

impl crate::ingest::PageCounter for PdfiumPageCounter {
    fn pages(
        &mut self,
        path: &std::path::Path,
        bytes: Option<&[u8]>,
    ) -> std::result::Result<u32, String> {
        if self.pdfium.is_none() {
            self.pdfium = Some(pdf::bind().map_err(|e| e.to_string())?);
        }
        // Invariant: bound just above.
        let p = self.pdfium.as_ref().expect("pdfium is bound");
        match bytes {
            Some(b) => pdf::page_count(p, b),
            None => pdf::page_count_file(p, path),
        }
        .map_err(|e| e.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_pdfium_manifest_is_compiled_in() {
        let m = Manifest::parse(manifest_text(), "pdfium/libpdfium.toml").unwrap();
        assert_eq!(m.source.package, "pypdfium2");
    }
}
