//! `corpus ingest`.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::Context;
use clap::Args;
use corpus::formats::TruthFormat;
use corpus::ingest::isolated::IsolatedPageCounter;
use corpus::ingest::IngestOptions;
use corpus::store::Store;

use super::output::{print_json, print_table, Format, OutputArgs};
use super::{argv, GlobalArgs, EXIT_SOME_FAILED};

/// Arguments of `corpus ingest`.
#[derive(Args, Debug)]
pub struct IngestArgs {
    /// PDF files or folders (searched recursively for *.pdf) (can be repeated)
    ///
    /// Folder symlinks are not followed (see --follow); a symlink to a file is that file, and
    /// a file reached under several names is ingested once. Only regular files are read: a
    /// FIFO, socket or device named *.pdf is reported and skipped. PDFs may be up to 16 GiB;
    /// above 64 MiB they are stored in chunks and read back in pieces.
    #[arg(required = true)]
    paths: Vec<PathBuf>,
    /// Follow folder symlinks; every folder and file is still visited once (cycles are
    /// detected by device and inode)
    #[arg(long)]
    follow: bool,
    /// The dataset the documents are added to
    #[arg(long, default_value = "default")]
    dataset: String,
    /// Attach ground truth of this format found beside each PDF
    ///
    /// peerread: <name>.pdf.json beside the PDF, or in a sibling parsed_pdfs/ folder
    /// (PeerRead's layout). grobid-tei: <stem>.tei.xml or GROBID's training files, beside
    /// the PDF or in a sibling tei/ folder. s2orc: <stem>.json beside the PDF. jats: JATS /
    /// PubMed Central XML, <stem>.nxml or <stem>.xml beside the PDF. docling:
    /// DoclingDocument JSON <stem>.json beside the PDF or in a sibling groundtruth/ folder (a
    /// parser's output as reference: scores then measure agreement with Docling, not
    /// accuracy). latex-tables: pdf-parse-bench's <stem>.json in ground_truth/ beside the PDF
    /// or in a sibling ground_truth/ folder (every table must parse). pdf-parse-bench: the
    /// same files from either of its folders, tables/ or formulas/ (text, table,
    /// inline-formula and display-formula items; the table and formula suites each score
    /// what a truth has). icdar2013:
    /// <stem>-reg.xml and <stem>-str.xml beside the PDF. omnidocbench: the paths are
    /// OmniDocBench JSON files (a draft's pages attach to their stored documents).
    /// label-studio: the paths are Label Studio JSON exports of a project made from `corpus
    /// truth draft --label-studio` (each task's latest submitted annotation; skipped tasks are
    /// named). Truths are validated; a malformed file is reported with its path and the
    /// parse error, and the PDF still ingests.
    #[arg(long, value_parser = super::values::truth_format())]
    truth: Option<TruthFormat>,
    /// With --truth omnidocbench: the folder of page images [default: images/ beside the JSON]
    #[arg(long)]
    images: Option<PathBuf>,
    /// Set an attribute on every document ingested, e.g. --attribute source=arxiv (can be
    /// repeated); reports group by it with --by attribute:source
    #[arg(long = "attribute", value_name = "NAME=VALUE", value_parser = parse_attribute)]
    attributes: Vec<(String, String)>,
    /// The truth ingested for a document supersedes this stored truth (its id: `corpus sql
    /// "SELECT truth_id, document, format, version FROM v_truths"`), e.g. a corrected truth
    /// of another format (a Label Studio export replacing an OmniDocBench draft). A newer
    /// ingest of the same document, dataset, format and part supersedes the older one without
    /// it. Can be repeated; see docs/truth-versions.md
    #[arg(long, value_name = "TRUTH_ID", requires = "truth")]
    supersedes: Vec<i64>,
    /// Per-file time limit in seconds for reading a PDF's page count
    #[arg(long, default_value_t = 120.0)]
    timeout: f64,
    #[command(flatten)]
    output: OutputArgs,
}

fn parse_attribute(s: &str) -> Result<(String, String), String> {
    match s.split_once('=') {
        Some((k, v)) if !k.trim().is_empty() => Ok((k.trim().to_string(), v.to_string())),
        _ => Err(format!("expected NAME=VALUE, got {s:?}")),
    }
}

/// Runs `corpus ingest`.
pub fn run(g: &GlobalArgs, a: &IngestArgs) -> anyhow::Result<ExitCode> {
    if !a.timeout.is_finite() || a.timeout <= 0.0 {
        usage_bail!("--timeout must be a positive number of seconds");
    }
    let mut store = Store::open(&g.db).with_context(|| format!("opening {}", g.db.display()))?;
    store
        .supersede_on_ingest(&a.supersedes)
        .map_err(|e| anyhow::Error::new(super::UsageError(e.to_string())))?;
    let run = store.start_run("ingest", &argv())?;
    let first_truth = corpus::ingest::next_truth_id(&store)?;
    let opts = IngestOptions {
        paths: a.paths.clone(),
        dataset: a.dataset.clone(),
        truth: a.truth,
        run: Some(run),
        attributes: a.attributes.clone(),
        follow: a.follow,
    };
    let bar = super::progress::Bar::new("ingest", g.quiet);
    if a.truth == Some(TruthFormat::LabelStudio) {
        // The export lists the tasks; each is a page of a stored document.
        let mut sum = corpus::ingest::IngestSummary::default();
        for p in &a.paths {
            let s = corpus::ingest::label_studio::ingest_label_studio(
                &mut store,
                p,
                &a.dataset,
                Some(run),
                &bar,
            )?;
            sum.files += s.files;
            sum.unchanged += s.unchanged;
            sum.truths_added += s.truths_added;
            sum.tasks_not_ingested.extend(s.tasks_not_ingested);
        }
        return finish(g, a, &mut store, (run, first_truth), sum);
    }
    if a.truth == Some(TruthFormat::OmniDocBench) {
        // The JSON lists the pages; each page image becomes a one-page document.
        let mut sum = corpus::ingest::IngestSummary::default();
        for p in &a.paths {
            let s = corpus::ingest::omnidoc::ingest_omnidocbench(
                &mut store,
                p,
                a.images.as_deref(),
                &a.dataset,
                Some(run),
                &bar,
            )?;
            sum.files += s.files;
            sum.new_documents += s.new_documents;
            sum.new_pages += s.new_pages;
            sum.new_names += s.new_names;
            sum.unchanged += s.unchanged;
            sum.truths_added += s.truths_added;
            sum.errors.extend(s.errors);
        }
        return finish(g, a, &mut store, (run, first_truth), sum);
    }
    // Page counts come from pdfium in a worker process: a PDF that hangs or crashes it costs
    // that file only.
    let exe = std::env::current_exe().context("locating the corpus binary")?;
    let mut pages = IsolatedPageCounter::new(exe, Duration::from_secs_f64(a.timeout));
    let sum = corpus::ingest::ingest(&mut store, &opts, &mut pages, &bar)?;
    finish(g, a, &mut store, (run, first_truth), sum)
}

fn finish(
    g: &GlobalArgs,
    a: &IngestArgs,
    store: &mut Store,
    (run, first_truth): (corpus::store::RunId, i64),
    sum: corpus::ingest::IngestSummary,
) -> anyhow::Result<ExitCode> {
    let mut sum = sum;
    sum.truth_versions = corpus::ingest::stored_truths(store, first_truth)?;
    for (truth, document) in store.supersedes_unused()? {
        sum.errors.push(corpus::ingest::FileError {
            path: format!("--supersedes {truth}"),
            error: format!(
                "truth {truth} (of {document}) was not superseded: this ingest attached \
                 no truth to its document{}",
                if a.supersedes.len() > 1 { " (or none of the same part)" } else { "" }
            ),
        });
    }
    store.finish_run(run, &serde_json::to_value(&sum)?, sum.errors.len() as u64)?;
    match a.output.format {
        Format::Json => print_json(&sum)?,
        Format::Table => {
            let rows = vec![vec![
                a.dataset.clone(),
                sum.files.to_string(),
                sum.new_documents.to_string(),
                sum.new_pages.to_string(),
                sum.new_names.to_string(),
                sum.unchanged.to_string(),
                sum.truths_added.to_string(),
                sum.errors.len().to_string(),
            ]];
            print_table(
                &["dataset", "files", "new", "pages", "new names", "unchanged", "truths", "errors"],
                &rows,
            )?;
            if !g.quiet {
                if sum.truth_versions.is_empty() {
                    if sum.files > 0 && sum.unchanged == sum.files {
                        eprintln!("Nothing new: every file was already ingested under its name.");
                    }
                } else if sum.files > 0 && sum.unchanged == sum.files {
                    eprintln!("No new documents: every file was already ingested under its name.");
                }
                for t in &sum.truth_versions {
                    eprintln!("corpus: {}", t.describe());
                }
                for e in &sum.errors {
                    eprintln!("corpus: {}: {}", e.path, e.error);
                }
                let mut skipped = Vec::new();
                if sum.dir_links_skipped > 0 {
                    skipped.push(format!(
                        "{} folder symlink(s) not followed (--follow follows them)",
                        sum.dir_links_skipped
                    ));
                }
                if sum.loops > 0 {
                    skipped.push(format!("{} symlink(s) to a folder already walked", sum.loops));
                }
                if sum.aliases > 0 {
                    skipped.push(format!(
                        "{} further name(s) of a PDF already found (links)",
                        sum.aliases
                    ));
                }
                if !sum.dangling_links.is_empty() {
                    skipped.push(format!(
                        "{} symlink(s) to nothing, e.g. {}",
                        sum.dangling_links.len(),
                        sum.dangling_links[0]
                    ));
                }
                if !skipped.is_empty() {
                    eprintln!("corpus: skipped {}", skipped.join("; "));
                }
                if !sum.truths_missing.is_empty() {
                    eprintln!(
                        "corpus: no ground truth found for {} PDF(s), e.g. {}",
                        sum.truths_missing.len(),
                        sum.truths_missing[0]
                    );
                }
                for t in &sum.tasks_not_ingested {
                    eprintln!("corpus: not ingested: {t}");
                }
                if !sum.rules_not_run.is_empty() {
                    let n: u64 = sum.rules_not_run.values().sum();
                    let kinds: Vec<String> =
                        sum.rules_not_run.iter().map(|(k, c)| format!("{k} ({c})")).collect();
                    eprintln!(
                        "corpus: warning: {n} ParseBench rule(s) of types this build does not run (stored, counted by eval, left out of its rates): {}",
                        kinds.join(", ")
                    );
                }
            }
        }
    }
    Ok(if sum.errors.is_empty() { ExitCode::SUCCESS } else { ExitCode::from(EXIT_SOME_FAILED) })
}
