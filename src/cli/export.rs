//! `corpus export`: one document's output to stdout, or every document of a selection into a
//! folder (`--dataset D -o DIR`), one file each.

use std::collections::HashSet;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context;
use clap::{Args, ValueEnum};
use corpus::doc::Doc;
use corpus::progress::Progress;
use corpus::store::{DocumentRow, Store};

use super::show::{load_output, resolve, write_json, write_markdown, write_text};
use super::{GlobalArgs, EXIT_SOME_FAILED};

/// Export formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum ExportFormat {
    /// PeerRead / science-parse JSON (the paper suite's linearization), key order as GT
    /// (<name>.pdf.json)
    Peerread,
    /// The Doc as stored (<name>.doc.json in a folder)
    Json,
    /// Blocks as plain text, headings marked with # (<name>.txt)
    Text,
    /// The Markdown the Markdown-reading suites score: the imported Markdown verbatim, else
    /// the blocks rendered (<name>.md)
    Markdown,
    /// A standalone HTML page: blocks in reading order per page, kinds and boxes as
    /// attributes, tables with their spans (<name>.html)
    Html,
    /// DoclingDocument JSON, as `corpus import --format docling-json` reads it (<name>.json)
    Docling,
    /// Each page's Markdown as the suites render it, a JSON array of {"page" (1-based),
    /// "markdown"}: the per-page split that ParseBench's form_field and page-section rules
    /// read (an output imported as Markdown has no pages) (<name>.pages.json)
    Pages,
}

impl ExportFormat {
    /// The file name ending of a document exported in this format.
    fn extension(self) -> &'static str {
        match self {
            ExportFormat::Peerread => ".pdf.json",
            ExportFormat::Json => ".doc.json",
            ExportFormat::Text => ".txt",
            ExportFormat::Markdown => ".md",
            ExportFormat::Html => ".html",
            ExportFormat::Docling => ".json",
            ExportFormat::Pages => ".pages.json",
        }
    }
}

/// Arguments of `corpus export`.
#[derive(Args, Debug)]
pub struct ExportArgs {
    /// The document: its name, or a prefix (≥ 8 hex digits) of its blake3 hash. Leave it out
    /// with -o DIR to export every document of --dataset (or of the store)
    doc: Option<String>,
    /// The provider whose output to export
    #[arg(long, default_value = "pdfium")]
    provider: String,
    /// Look the name up only in this dataset; with -o and no DOC, export its every document
    #[arg(long)]
    dataset: Option<String>,
    /// Output format
    #[arg(long, value_enum, default_value_t = ExportFormat::Peerread)]
    format: ExportFormat,
    /// Write one file per document into this folder (created if needed) instead of stdout:
    /// named after the document (its folders kept, characters other than letters, digits,
    /// `.`, `-` and `_` replaced by `_`, a suffix where two names would meet), one folder
    /// per dataset when the documents come from several
    #[arg(long, short = 'o', value_name = "DIR")]
    output: Option<PathBuf>,
}

/// Runs `corpus export`.
pub fn run(g: &GlobalArgs, a: &ExportArgs) -> anyhow::Result<ExitCode> {
    let store = Store::open_read_only(&g.db)?;
    let Some(dir) = &a.output else {
        let Some(key) = &a.doc else {
            usage_bail!(
                "give a document to export to stdout, or -o DIR (with --dataset D) to export every document into a folder"
            );
        };
        let doc = resolve(&store, key, a.dataset.as_deref())?;
        let bytes = load_output(&store, &doc, &a.provider)?;
        let mut out = std::io::stdout().lock();
        let source = format!("{} ({})", doc.name, a.provider);
        out.write_all(&render(a.format, &bytes, &doc, &source)?)?;
        return Ok(ExitCode::SUCCESS);
    };
    if dir.is_file() {
        usage_bail!(
            "{} is a file; -o names the folder the documents are written into",
            dir.display()
        );
    }
    let docs = match &a.doc {
        Some(key) => vec![resolve(&store, key, a.dataset.as_deref())?],
        None => store.document_names(a.dataset.as_deref())?,
    };
    if docs.is_empty() {
        anyhow::bail!(
            "{} has no documents to export",
            a.dataset.as_deref().map_or("the store".to_string(), |d| format!("dataset {d}"))
        );
    }
    bulk(g, a, &store, &docs, dir)
}

/// The document's output in `format`.
fn render(
    format: ExportFormat,
    bytes: &[u8],
    doc: &DocumentRow,
    source: &str,
) -> anyhow::Result<Vec<u8>> {
    let mut out = Vec::new();
    let stem = doc.name.rsplit('/').next().unwrap_or(&doc.name);
    match format {
        ExportFormat::Json => write_json(&mut out, bytes)?,
        ExportFormat::Text => write_text(&mut out, bytes)?,
        ExportFormat::Peerread => {
            let d: Doc = serde_json::from_slice(bytes)?;
            let paper = corpus::paper::from_doc(&d);
            let name = format!("{stem}.pdf");
            writeln!(out, "{}", corpus::formats::peerread::write_peerread(&paper, &name))?;
        }
        ExportFormat::Markdown => write_markdown(&mut out, bytes)?,
        ExportFormat::Pages => {
            let d: Doc = serde_json::from_slice(bytes)?;
            if d.markdown.is_some() || d.pages.is_empty() {
                anyhow::bail!(
                    "{source}: the output has no pages (it was read from Markdown); --format pages needs a provider's Doc"
                );
            }
            let pages: Vec<serde_json::Value> = (0..d.pages.len() as u32)
                .map(|p| serde_json::json!({"page": p + 1, "markdown": d.page_markdown(p)}))
                .collect();
            writeln!(out, "{}", serde_json::to_string_pretty(&pages)?)?;
        }
        ExportFormat::Html => {
            let d: Doc = serde_json::from_slice(bytes)?;
            let page = corpus::formats::html_page::write_html_page(&d, &doc.name, source);
            out.extend_from_slice(page.as_bytes());
        }
        ExportFormat::Docling => {
            let d: Doc = serde_json::from_slice(bytes)?;
            let v = corpus::formats::docling_out::write_docling(&d, stem);
            serde_json::to_writer_pretty(&mut out, &v)?;
            out.push(b'\n');
        }
    }
    Ok(out)
}

/// A file name made of a document name: each folder component kept, characters other than
/// ASCII letters, digits, `.`, `-`, `_` replaced by `_`, no component `.`/`..` or empty.
fn safe_path(name: &str) -> PathBuf {
    let mut p = PathBuf::new();
    for part in name.split('/') {
        let s: String = part
            .chars()
            .map(
                |c| if c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_') { c } else { '_' },
            )
            .collect();
        p.push(match s.as_str() {
            "" | "." | ".." => s.replace('.', "_") + "_",
            _ => s,
        });
    }
    p
}

/// Where each document goes under `dir`: its safe name (under its dataset's folder where the
/// documents come from several), made unique with `-2`, `-3`, ... (case-insensitively, for
/// file systems that fold case).
fn file_names(docs: &[DocumentRow], ext: &str) -> Vec<PathBuf> {
    let datasets: HashSet<&str> = docs.iter().map(|d| d.dataset.as_str()).collect();
    let mut taken: HashSet<String> = HashSet::new();
    docs.iter()
        .map(|d| {
            let base = if datasets.len() > 1 {
                safe_path(&d.dataset).join(safe_path(&d.name))
            } else {
                safe_path(&d.name)
            };
            let mut k = 1;
            loop {
                let mut p = base.clone().into_os_string();
                if k > 1 {
                    p.push(format!("-{k}"));
                }
                p.push(ext);
                let p = PathBuf::from(p);
                if taken.insert(p.to_string_lossy().to_lowercase()) {
                    return p;
                }
                k += 1;
            }
        })
        .collect()
}

/// Writes every document's output into `dir`; documents without an output of the provider
/// are counted and named, never a silent gap.
fn bulk(
    g: &GlobalArgs,
    a: &ExportArgs,
    store: &Store,
    docs: &[DocumentRow],
    dir: &Path,
) -> anyhow::Result<ExitCode> {
    std::fs::create_dir_all(dir)
        .with_context(|| format!("cannot create the folder {}", dir.display()))?;
    let names = file_names(docs, a.format.extension());
    let bar = super::progress::Bar::new("export", g.quiet);
    bar.start(docs.len() as u64);
    let (mut written, mut bytes_out) = (0usize, 0u64);
    let mut missing: Vec<String> = Vec::new();
    let mut failed: Vec<String> = Vec::new();
    for (doc, name) in docs.iter().zip(&names) {
        let shown = format!("{}/{}", doc.dataset, doc.name);
        let Some(out) = store.latest_output(doc.id, &a.provider)? else {
            missing.push(shown.clone());
            bar.advance(&shown, false);
            continue;
        };
        let Some(blob) = out.blob.as_deref() else {
            failed.push(format!("{shown}: {}", out.error.unwrap_or_default()));
            bar.advance(&shown, false);
            continue;
        };
        let bytes = store
            .blob(blob)?
            .with_context(|| format!("the output of {shown} is missing its blob"))?;
        let source = format!("{}@{}", out.provider, out.provider_version);
        let data =
            render(a.format, &bytes, doc, &source).with_context(|| format!("rendering {shown}"))?;
        let path = dir.join(name);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)
                .with_context(|| format!("cannot create {}", parent.display()))?;
        }
        std::fs::write(&path, &data).with_context(|| format!("cannot write {}", path.display()))?;
        written += 1;
        bytes_out += data.len() as u64;
        bar.advance(&shown, true);
    }
    bar.finish();
    if written == 0 {
        anyhow::bail!(
            "nothing exported: none of the {} document(s) has an output of provider {}{} (run `corpus ocr --provider {}`)",
            docs.len(),
            a.provider,
            if failed.is_empty() { String::new() } else { format!(" that did not fail ({} failed)", failed.len()) },
            a.provider
        );
    }
    if !g.quiet {
        eprintln!(
            "corpus: exported {written} of {} document(s) from {} as {} into {} ({bytes_out} bytes); {} without an output{}, {} failed outputs",
            docs.len(),
            a.provider,
            a.format.to_possible_value().map(|v| v.get_name().to_string()).unwrap_or_default(),
            dir.display(),
            missing.len(),
            missing.first().map(|m| format!(" (e.g. {m})")).unwrap_or_default(),
            failed.len()
        );
        for f in &failed {
            eprintln!("corpus: not exported, the provider failed: {f}");
        }
    }
    Ok(if failed.is_empty() { ExitCode::SUCCESS } else { ExitCode::from(EXIT_SOME_FAILED) })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(dataset: &str, name: &str) -> DocumentRow {
        DocumentRow {
            id: 1,
            hash: String::new(),
            pages: 1,
            name: name.into(),
            dataset: dataset.into(),
        }
    }

    #[test]
    fn file_names_are_safe_and_unique() {
        assert_eq!(safe_path("a/b c?.x"), PathBuf::from("a/b_c_.x"));
        assert_eq!(safe_path("../x"), PathBuf::from("___/x"));
        let docs = [row("d", "Paper 1"), row("d", "paper_1"), row("d", "paper?1"), row("d", "q")];
        let names = file_names(&docs, ".md");
        let shown: Vec<String> = names.iter().map(|p| p.display().to_string()).collect();
        assert_eq!(shown, ["Paper_1.md", "paper_1-2.md", "paper_1-3.md", "q.md"]);
        let two = file_names(&[row("a", "x"), row("b", "x")], ".json");
        assert_eq!(two, [PathBuf::from("a/x.json"), PathBuf::from("b/x.json")]);
    }
}
