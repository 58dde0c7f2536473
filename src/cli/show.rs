//! `corpus show`.

use std::io::Write;
use std::process::ExitCode;

use clap::{Args, ValueEnum};
use corpus::doc::Doc;
use corpus::store::Store;

use super::GlobalArgs;

/// How a document is shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum ShowFormat {
    /// Blocks in reading order as text, headings marked with #
    Text,
    /// The Doc as stored (JSON)
    Json,
    /// One line per block: page, kind, text
    Blocks,
}

/// Arguments of `corpus show`.
#[derive(Args, Debug)]
pub struct ShowArgs {
    /// The document: its name, or a prefix (≥ 8 hex digits) of its blake3 hash
    doc: String,
    /// The provider whose output to show
    #[arg(long, default_value = "pdfium")]
    provider: String,
    /// Look the name up only in this dataset
    #[arg(long)]
    dataset: Option<String>,
    /// Output format
    #[arg(long, value_enum, default_value_t = ShowFormat::Text)]
    format: ShowFormat,
}

/// Runs `corpus show`.
pub fn run(g: &GlobalArgs, a: &ShowArgs) -> anyhow::Result<ExitCode> {
    let store = Store::open_read_only(&g.db)?;
    let found = store.find_documents(&a.doc, a.dataset.as_deref())?;
    let doc = match found.as_slice() {
        [] => anyhow::bail!("no document named {:?} (or with that hash prefix)", a.doc),
        [one] => one,
        many if many.iter().all(|d| d.id == many[0].id) => &many[0],
        many => {
            let names: Vec<String> =
                many.iter().map(|d| format!("{}/{}", d.dataset, d.name)).collect();
            anyhow::bail!(
                "{:?} names several documents ({}); pass --dataset",
                a.doc,
                names.join(", ")
            )
        }
    };
    let Some(out) = store.latest_output(doc.id, &a.provider)? else {
        anyhow::bail!(
            "document {} has no output from provider {}; run `corpus ocr --provider {}`",
            doc.name,
            a.provider,
            a.provider
        )
    };
    let Some(blob) = out.blob.as_deref() else {
        anyhow::bail!(
            "provider {} failed on {}: {}",
            a.provider,
            doc.name,
            out.error.unwrap_or_default()
        )
    };
    let bytes =
        store.blob(blob)?.ok_or_else(|| anyhow::anyhow!("output blob {blob} is missing"))?;
    let mut stdout = std::io::stdout().lock();
    match a.format {
        ShowFormat::Json => {
            stdout.write_all(&bytes)?;
            writeln!(stdout)?;
        }
        ShowFormat::Text => {
            let d: Doc = serde_json::from_slice(&bytes)?;
            stdout.write_all(d.to_text().as_bytes())?;
        }
        ShowFormat::Blocks => {
            let d: Doc = serde_json::from_slice(&bytes)?;
            for b in &d.blocks {
                let kind = match b.level {
                    Some(l) => format!("{}/{l}", b.kind),
                    None => b.kind.to_string(),
                };
                writeln!(stdout, "{:>3} {:<12} {}", b.page + 1, kind, b.text)?;
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}
