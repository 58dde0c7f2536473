//! `corpus __worker`: the process `corpus ocr` hands documents to.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;
use corpus::providers::{find, PageSelection};

/// Arguments of the hidden worker command.
#[derive(Args, Debug)]
pub struct WorkerArgs {
    #[arg(long)]
    provider: String,
    #[arg(long)]
    db: PathBuf,
    #[arg(long, value_parser = PageSelection::parse)]
    pages: PageSelection,
    /// Read the store as an immutable snapshot (a task of a sharded run)
    #[arg(long)]
    snapshot: bool,
}

/// Serves parse requests on stdin until it closes.
pub fn run(a: &WorkerArgs) -> anyhow::Result<ExitCode> {
    let provider = find(&a.provider)?;
    let stdin = std::io::stdin().lock();
    let stdout = std::io::stdout().lock();
    corpus::providers::worker::serve(provider, &a.db, &a.pages, a.snapshot, stdin, stdout)?;
    Ok(ExitCode::SUCCESS)
}

/// Serves page-count requests (`corpus ingest` starts it): one PDF path per line on stdin.
pub fn pages() -> anyhow::Result<ExitCode> {
    let pdfium = corpus::providers::pdfium::PdfiumPageCounter::default();
    let mut counter: Box<dyn corpus::ingest::PageCounter> =
        if std::env::var("CORPUS_TEST_PROVIDERS").is_ok_and(|v| v == "1") {
            Box::new(corpus::providers::testing::FaultyPageCounter(pdfium))
        } else {
            Box::new(pdfium)
        };
    let stdin = std::io::stdin().lock();
    let stdout = std::io::stdout().lock();
    corpus::ingest::isolated::serve_pages(counter.as_mut(), stdin, stdout)?;
    Ok(ExitCode::SUCCESS)
}
