//! `corpus import`.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use clap::Args;
use corpus::formats::ImportFormat;
use corpus::import::ImportOptions;
use corpus::store::Store;

use super::output::{print_json, print_table, Format};
use super::{argv, GlobalArgs, UsageError, EXIT_SOME_FAILED};

/// Arguments of `corpus import`.
#[derive(Args, Debug)]
pub struct ImportArgs {
    /// Files, folders (searched recursively) or zip archives of a parser's outputs
    ///
    /// Folder symlinks are not followed (see --follow); only regular files are read.
    #[arg(required = true)]
    paths: Vec<PathBuf>,
    /// Follow folder symlinks; every folder and file is still visited once
    #[arg(long)]
    follow: bool,
    /// The provider id the outputs are stored under, e.g. docling-2.14 or marker-1.10
    /// (not a built-in provider's id)
    #[arg(long)]
    provider: String,
    /// The outputs' format
    ///
    /// docling-json: DoclingDocument JSON (<name>.json); markdown: <name>.md (also .mmd,
    /// <name>.pdf.md, olmOCR's <pdf>_pg<N>_repeat<K>.md, OmniDocBench's <image>.md);
    /// grobid-tei: GROBID output (<name>.tei.xml); peerread: science-parse JSON
    /// (<name>.pdf.json); text: plain text (<name>.txt, form feeds between pages); alto: ALTO
    /// XML, as pdfalto writes it (<name>.xml, also .alto.xml; pdfalto's _metadata.xml is
    /// skipped); unstructured-json: Unstructured's element list (<name>.json);
    /// opendataloader-json: opendataloader-pdf's JSON (<name>.json); mineru: MinerU's
    /// <name>_middle.json or <name>_content_list.json (the middle file is preferred where both
    /// are there); paddleocr-json: PaddleOCR's (PP-StructureV3, PaddleOCR-VL)
    /// <name>[_<page>]_res.json (a PDF's pages imported together); marker-json: Marker's
    /// <name>/<name>.json (_meta.json skipped); olmocr-jsonl: olmOCR's pipeline
    /// results/output_*.jsonl (one document per line, matched by its Source-File).
    #[arg(long, value_parser = super::values::import_format())]
    format: ImportFormat,
    /// The provider's version, stored with every output (compare versions with `report`)
    #[arg(long, default_value = "imported")]
    provider_version: String,
    /// The model version the tool ran with, where it has one (e.g. granite-258m)
    #[arg(long)]
    model_version: Option<String>,
    /// Match files only to documents named in this dataset
    #[arg(long)]
    dataset: Option<String>,
    /// How to print the summary
    #[arg(long = "print", value_enum, default_value_t = Format::Table)]
    print: Format,
}

/// Runs `corpus import`.
pub fn run(g: &GlobalArgs, a: &ImportArgs) -> anyhow::Result<ExitCode> {
    corpus::providers::check_provider_id(&a.provider).map_err(|e| UsageError(e.to_string()))?;
    let mut store = Store::open(&g.db).with_context(|| format!("opening {}", g.db.display()))?;
    let run = store.start_run("import", &argv())?;
    let opts = ImportOptions {
        inputs: &a.paths,
        format: a.format,
        provider: &a.provider,
        provider_version: &a.provider_version,
        model_version: a.model_version.as_deref(),
        dataset: a.dataset.as_deref(),
        run: Some(run),
        follow: a.follow,
    };
    let bar = super::progress::Bar::new("import", g.quiet);
    let sum = corpus::import::import(&mut store, &opts, &bar)?;
    let failed = (sum.errors.len() + sum.unmatched.len()) as u64;
    store.finish_run(run, &serde_json::to_value(&sum)?, failed)?;
    match a.print {
        Format::Json => print_json(&sum)?,
        Format::Table => {
            let rows = vec![vec![
                a.provider.clone(),
                a.format.as_str().to_string(),
                sum.files.to_string(),
                sum.imported.to_string(),
                sum.unchanged.to_string(),
                sum.skipped.len().to_string(),
                sum.documents.to_string(),
                sum.unmatched.len().to_string(),
                sum.errors.len().to_string(),
            ]];
            print_table(
                &[
                    "provider",
                    "format",
                    "files",
                    "imported",
                    "unchanged",
                    "skipped",
                    "documents",
                    "unmatched",
                    "errors",
                ],
                &rows,
            )?;
            if !g.quiet {
                if sum.files == 0 {
                    eprintln!(
                        "corpus: no {} files found (expected names ending in {})",
                        a.format.as_str(),
                        a.format.extensions().join(", ")
                    );
                } else if sum.imported == 0 && sum.unchanged > 0 && failed == 0 {
                    eprintln!("Nothing new: every file was already imported.");
                }
                if !sum.skipped.is_empty() {
                    eprintln!(
                        "corpus: skipped {} file(s), e.g. {}: {}",
                        sum.skipped.len(),
                        sum.skipped[0].file,
                        sum.skipped[0].reason
                    );
                }
                for s in sum.unmatched.iter().chain(&sum.errors) {
                    eprintln!("corpus: {}: {}", s.file, s.reason);
                }
            }
        }
    }
    Ok(if failed == 0 { ExitCode::SUCCESS } else { ExitCode::from(EXIT_SOME_FAILED) })
}
