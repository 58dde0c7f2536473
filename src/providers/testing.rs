//! A provider for testing the runner's failure handling on real worker processes.
//!
//! `test-faulty` is hidden unless `CORPUS_TEST_PROVIDERS=1`. On a PDF whose bytes contain
//! `%CORPUS-CRASH` it aborts the worker process; on `%CORPUS-HANG` it sleeps forever; on
//! `%CORPUS-FAIL` it returns an error; on `%CORPUS-SLOW` it takes 100 ms; otherwise it
//! returns one paragraph giving the size. [`FaultyPageCounter`] does the same to ingest.

use crate::doc::{BBox, Block, BlockKind, Doc};
use crate::error::Result;

use super::{Engine, PageSelection, Provider};

/// The test-only provider described in the module docs.
#[derive(Debug)]
pub struct FaultyProvider;

impl Provider for FaultyProvider {
    fn id(&self) -> &'static str {
        "test-faulty"
    }

    fn description(&self) -> &'static str {
        "test only: crashes, hangs or fails on marked PDFs"
    }

    fn adapter_version(&self) -> u32 {
        1
    }

    fn model_digest(&self) -> Result<String> {
        Ok("none".into())
    }

    fn test_only(&self) -> bool {
        true
    }

    fn load(&self) -> Result<Box<dyn Engine>> {
        Ok(Box::new(FaultyEngine))
    }
}

struct FaultyEngine;

fn contains(hay: &[u8], needle: &[u8]) -> bool {
    hay.windows(needle.len()).any(|w| w == needle)
}

impl Engine for FaultyEngine {
    fn run(&mut self, pdf: &[u8], _pages: &PageSelection) -> std::result::Result<Doc, String> {
        if contains(pdf, b"%CORPUS-CRASH") {
            std::process::abort();
        }
        if contains(pdf, b"%CORPUS-HANG") {
            loop {
                std::thread::sleep(std::time::Duration::from_secs(3600));
            }
        }
        if contains(pdf, b"%CORPUS-FAIL") {
            return Err("asked to fail by %CORPUS-FAIL".into());
        }
        if contains(pdf, b"%CORPUS-SLOW") {
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
        let text = format!("{} bytes", pdf.len());
        Ok(Doc {
            pages: vec![],
            blocks: vec![Block::new(BlockKind::Paragraph, 0, BBox::default(), text)],
            markdown: None,
            meta: None,
        })
    }
}

/// A page counter for testing ingest's isolation: on `%CORPUS-PAGES-CRASH` it aborts the
/// `corpus __pages` worker, on `%CORPUS-PAGES-HANG` it hangs; otherwise it asks the inner one.
pub struct FaultyPageCounter<C>(pub C);

impl<C: crate::ingest::PageCounter> crate::ingest::PageCounter for FaultyPageCounter<C> {
    fn pages(
        &mut self,
        path: &std::path::Path,
        pdf: Option<&[u8]>,
    ) -> std::result::Result<u32, String> {
        let has = |m: &[u8]| pdf.is_some_and(|p| contains(p, m));
        if has(b"%CORPUS-PAGES-CRASH") {
            std::process::abort();
        }
        if has(b"%CORPUS-PAGES-HANG") {
            loop {
                std::thread::sleep(std::time::Duration::from_secs(3600));
            }
        }
        self.0.pages(path, pdf)
    }
}
