//! `corpus export`.

use std::io::Write;
use std::process::ExitCode;

use clap::{Args, ValueEnum};
use corpus::doc::Doc;
use corpus::store::Store;

use super::show::{load_output, resolve, write_json, write_markdown, write_text};
use super::GlobalArgs;

/// Export formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum ExportFormat {
    /// PeerRead / science-parse JSON (the paper suite's linearization), key order as GT
    Peerread,
    /// The Doc as stored
    Json,
    /// Blocks as plain text, headings marked with #
    Text,
    /// Exactly the Markdown the suites score, as `corpus show --format markdown` prints it
    Markdown,
    /// Each page's Markdown as the suites render it, a JSON array of {"page" (1-based),
    /// "markdown"}: the per-page split that ParseBench's form_field and page-section rules
    /// read (an output imported as Markdown has no pages)
    Pages,
}

/// Arguments of `corpus export`.
#[derive(Args, Debug)]
pub struct ExportArgs {
    /// The document: its name, or a prefix (≥ 8 hex digits) of its blake3 hash
    doc: String,
    /// The provider whose output to export
    #[arg(long, default_value = "pdfium")]
    provider: String,
    /// Look the name up only in this dataset
    #[arg(long)]
    dataset: Option<String>,
    /// Output format
    #[arg(long, value_enum, default_value_t = ExportFormat::Peerread)]
    format: ExportFormat,
}

/// Runs `corpus export`.
pub fn run(g: &GlobalArgs, a: &ExportArgs) -> anyhow::Result<ExitCode> {
    let store = Store::open_read_only(&g.db)?;
    let doc = resolve(&store, &a.doc, a.dataset.as_deref())?;
    let bytes = load_output(&store, &doc, &a.provider)?;
    let mut out = std::io::stdout().lock();
    match a.format {
        ExportFormat::Json => write_json(&mut out, &bytes)?,
        ExportFormat::Text => write_text(&mut out, &bytes)?,
        ExportFormat::Markdown => write_markdown(&mut out, &bytes)?,
        ExportFormat::Pages => {
            let d: Doc = serde_json::from_slice(&bytes)?;
            if d.markdown.is_some() || d.pages.is_empty() {
                anyhow::bail!(
                    "{}: {}'s output has no pages (it was read from Markdown); --format pages needs a provider's Doc",
                    doc.name,
                    a.provider
                );
            }
            let pages: Vec<serde_json::Value> = (0..d.pages.len() as u32)
                .map(|p| serde_json::json!({"page": p + 1, "markdown": d.page_markdown(p)}))
                .collect();
            writeln!(out, "{}", serde_json::to_string_pretty(&pages)?)?;
        }
        ExportFormat::Peerread => {
            let d: Doc = serde_json::from_slice(&bytes)?;
            let paper = corpus::paper::from_doc(&d);
            let name = format!("{}.pdf", doc.name.rsplit('/').next().unwrap_or(&doc.name));
            writeln!(out, "{}", corpus::formats::peerread::write_peerread(&paper, &name))?;
        }
    }
    Ok(ExitCode::SUCCESS)
}
