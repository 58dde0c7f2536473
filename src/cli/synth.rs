//! `corpus synth`.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::Context;
use clap::{Args, ValueEnum};
use corpus::store::Store;
use corpus::synth::{SynthKind, SynthOptions};

use super::output::{print_json, print_table, Format, OutputArgs};
use super::{argv, GlobalArgs, EXIT_SOME_FAILED};

/// What the pages hold.
#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum KindArg {
    /// Tables between paragraphs; truth `latex-tables` (scored by the table suite)
    Tables,
    /// Display formulas and text with inline formulas; truth in pdf-parse-bench's formula
    /// format
    Formulas,
}

/// Arguments of `corpus synth`.
#[derive(Args, Debug)]
pub struct SynthArgs {
    /// What the pages hold
    #[arg(value_enum)]
    kind: KindArg,
    /// LaTeX sources: .tex files, arXiv source tarballs (.tar.gz, .tgz), gzipped single
    /// files (.gz), pdf-parse-bench truth files (.json), or folders of them (can be repeated)
    ///
    /// Nothing is unpacked to disk. Top-level tabular/tabular* environments (tables) or
    /// display and inline math (formulas) are taken; \cite, \ref, \label and comments are
    /// removed; an item using a macro its file defines is dropped and counted; each item is
    /// compiled alone to check it and measure it. See docs/synth.md.
    #[arg(long = "from", value_name = "PATH")]
    from: Vec<PathBuf>,
    /// Add items from the seeded generator (tables with spans, rules, numbers, units and
    /// text; formulas); without --from, every item is generated
    #[arg(long)]
    generate: bool,
    /// Pages to make
    #[arg(long, default_value_t = 100)]
    pages: u32,
    /// The seed: the same seed and sources give byte-identical PDFs
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// The folder the pages go into (pdfs/, ground_truth/, tex/) [default:
    /// synth-<kind>-<seed>]
    #[arg(long)]
    out: Option<PathBuf>,
    /// The dataset the pages are stored under [default: the --out folder's name]
    #[arg(long)]
    dataset: Option<String>,
    /// Write the pages only; do not store them
    #[arg(long)]
    no_ingest: bool,
    /// Parallel pdflatex runs [default: the number of CPUs]
    #[arg(long)]
    jobs: Option<usize>,
    /// Time limit of one pdflatex run in seconds
    #[arg(long, default_value_t = 60)]
    timeout: u64,
    #[command(flatten)]
    output: OutputArgs,
}

/// Runs `corpus synth`.
pub fn run(g: &GlobalArgs, a: &SynthArgs) -> anyhow::Result<ExitCode> {
    let kind = match a.kind {
        KindArg::Tables => SynthKind::Tables,
        KindArg::Formulas => SynthKind::Formulas,
    };
    if a.from.is_empty() && !a.generate {
        usage_bail!("give LaTeX sources with --from, or --generate");
    }
    if a.pages == 0 || a.timeout == 0 {
        usage_bail!("--pages and --timeout must be positive");
    }
    let out = a.out.clone().unwrap_or_else(|| format!("synth-{}-{}", kind.as_str(), a.seed).into());
    let dataset = a.dataset.clone().unwrap_or_else(|| {
        out.file_name().map_or("synth".into(), |n| n.to_string_lossy().into_owned())
    });
    let jobs =
        a.jobs.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let opts = SynthOptions {
        kind,
        from: a.from.clone(),
        generate: a.generate || a.from.is_empty(),
        pages: a.pages,
        seed: a.seed,
        out: out.clone(),
        jobs,
        timeout: Duration::from_secs(a.timeout),
    };
    let started = std::time::Instant::now();
    let bar = super::progress::Bar::new("synth", g.quiet);
    let (sum, pages) = corpus::synth::synthesize(&opts, &bar).map_err(|e| match e {
        corpus::Error::Usage(m) => anyhow::Error::new(super::UsageError(m)),
        other => other.into(),
    })?;
    let mut stored = None;
    if !a.no_ingest {
        let mut store =
            Store::open(&g.db).with_context(|| format!("opening {}", g.db.display()))?;
        let run = store.start_run("synth", &argv())?;
        let s = corpus::synth::store_pages(&mut store, &dataset, kind, &pages)
            .with_context(|| format!("storing the pages of {}", out.display()))?;
        store.finish_run(run, &serde_json::to_value(&sum)?, sum.failed_pages)?;
        stored = Some(s);
    }
    let secs = started.elapsed().as_secs_f64();
    match a.output.format {
        Format::Json => print_json(&serde_json::json!({
            "out": out.display().to_string(),
            "dataset": (!a.no_ingest).then_some(&dataset),
            "seconds": secs,
            "pages_per_second": sum.pages as f64 / secs.max(1e-9),
            "summary": &sum,
            "stored": &stored,
        }))?,
        Format::Table => {
            let pool: Vec<String> = sum.pool.iter().map(|(k, v)| format!("{k} {v}")).collect();
            let rows = vec![vec![
                out.display().to_string(),
                if a.no_ingest { "-".into() } else { dataset.clone() },
                sum.pages.to_string(),
                sum.failed_pages.to_string(),
                pool.join(", "),
                format!("{:.2}", sum.pages as f64 / secs.max(1e-9)),
            ]];
            print_table(&["out", "dataset", "pages", "failed", "items", "pages/s"], &rows)?;
            if !g.quiet {
                let st = &sum.sources;
                if st.found > 0 || !st.errors.is_empty() {
                    eprintln!(
                        "Sources: {} file(s), {} item(s) found; dropped {} using their own macros, {} out of scope, {} repeats, {} failing to compile alone, {} unusable.",
                        st.files, st.found, st.dropped_custom_macro, st.dropped_other, st.duplicates, sum.failed_compile, sum.unusable
                    );
                }
                for (p, e) in &st.errors {
                    eprintln!("corpus: {p}: {e}");
                }
                for f in &sum.failures {
                    eprintln!("corpus: page {}: {}", f.page, f.error);
                }
                if let Some(s) = &stored {
                    if s.truth_format.is_none() {
                        eprintln!("corpus: this build reads no formula truth; the truth files are in {} but were not stored", out.join("ground_truth").display());
                    }
                }
            }
        }
    }
    Ok(if sum.failed_pages == 0 { ExitCode::SUCCESS } else { ExitCode::from(EXIT_SOME_FAILED) })
}
