//! `corpus show`.

use std::io::Write;
use std::process::ExitCode;

use clap::{Args, ValueEnum};
use corpus::doc::Doc;
use corpus::store::{DocumentRow, Store};

use super::GlobalArgs;

/// How a document is shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum ShowFormat {
    /// Blocks in reading order as text, headings marked with #
    Text,
    /// The Doc as stored (JSON); with --metric/--suite, the scores as JSON
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
    /// Show this metric's score and its trace instead of the output
    #[arg(long)]
    metric: Option<String>,
    /// Show every score of this suite (newest suite version first) instead of the output
    #[arg(long)]
    suite: Option<String>,
    /// Output format
    #[arg(long, value_enum, default_value_t = ShowFormat::Text)]
    format: ShowFormat,
}

/// Finds exactly one document by name or hash prefix.
pub fn resolve(store: &Store, key: &str, dataset: Option<&str>) -> anyhow::Result<DocumentRow> {
    let found = store.find_documents(key, dataset)?;
    match found.as_slice() {
        [] => anyhow::bail!("no document named {key:?} (or with that hash prefix)"),
        [one] => Ok(one.clone()),
        many if many.iter().all(|d| d.id == many[0].id) => Ok(many[0].clone()),
        many => {
            let names: Vec<String> =
                many.iter().map(|d| format!("{}/{}", d.dataset, d.name)).collect();
            anyhow::bail!("{key:?} names several documents ({}); pass --dataset", names.join(", "))
        }
    }
}

/// Returns the newest ok output of a provider for a document, as Doc JSON bytes.
pub fn load_output(store: &Store, doc: &DocumentRow, provider: &str) -> anyhow::Result<Vec<u8>> {
    let Some(out) = store.latest_output(doc.id, provider)? else {
        anyhow::bail!(
            "document {} has no output from provider {provider}; run `corpus ocr --provider {provider}`",
            doc.name
        )
    };
    let Some(blob) = out.blob.as_deref() else {
        anyhow::bail!(
            "provider {provider} failed on {}: {}",
            doc.name,
            out.error.unwrap_or_default()
        )
    };
    store.blob(blob)?.ok_or_else(|| anyhow::anyhow!("output blob {blob} is missing"))
}

/// Writes a stored Doc as it is (JSON), with a final newline.
pub fn write_json(out: &mut impl Write, doc_json: &[u8]) -> anyhow::Result<()> {
    out.write_all(doc_json)?;
    writeln!(out)?;
    Ok(())
}

/// Writes a stored Doc as plain text, headings marked with #.
pub fn write_text(out: &mut impl Write, doc_json: &[u8]) -> anyhow::Result<()> {
    let d: Doc = serde_json::from_slice(doc_json)?;
    out.write_all(d.to_text().as_bytes())?;
    Ok(())
}

/// Runs `corpus show`.
pub fn run(g: &GlobalArgs, a: &ShowArgs) -> anyhow::Result<ExitCode> {
    let store = Store::open_read_only(&g.db)?;
    let doc = resolve(&store, &a.doc, a.dataset.as_deref())?;
    if a.metric.is_some() || a.suite.is_some() {
        return show_scores(&store, &doc, a);
    }
    let bytes = load_output(&store, &doc, &a.provider)?;
    let mut stdout = std::io::stdout().lock();
    match a.format {
        ShowFormat::Json => write_json(&mut stdout, &bytes)?,
        ShowFormat::Text => write_text(&mut stdout, &bytes)?,
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

fn show_scores(store: &Store, doc: &DocumentRow, a: &ShowArgs) -> anyhow::Result<ExitCode> {
    let rows = store.scores(doc.id, &a.provider, a.suite.as_deref(), a.metric.as_deref())?;
    if rows.is_empty() {
        anyhow::bail!(
            "no {} score for {} from provider {}; run `corpus eval --provider {}`",
            a.metric.as_deref().unwrap_or("stored"),
            doc.name,
            a.provider,
            a.provider
        );
    }
    let mut out = std::io::stdout().lock();
    if a.format == ShowFormat::Json {
        serde_json::to_writer_pretty(&mut out, &rows)?;
        writeln!(out)?;
        return Ok(ExitCode::SUCCESS);
    }
    for r in &rows {
        let value = super::output::fmt_value(r.value);
        writeln!(
            out,
            "{} = {value}  ({} v{}, {}@{}, truth {}/{}, {})",
            r.metric,
            r.suite,
            r.suite_version,
            r.provider,
            r.provider_version,
            r.dataset,
            r.truth_format,
            r.computed_at
        )?;
        if a.metric.is_some() {
            if let Some(t) = &r.trace {
                let v: serde_json::Value = serde_json::from_str(t)?;
                writeln!(out, "{}", serde_json::to_string_pretty(&v)?)?;
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}
