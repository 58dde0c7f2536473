//! `corpus truth`: truths made from the store (`truth draft`).

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use clap::{Args, Subcommand};
use corpus::draft::{self, DraftOptions};
use corpus::store::Store;

use super::output::{print_json, print_table, Format, OutputArgs};
use super::GlobalArgs;

/// Arguments of `corpus truth`.
#[derive(Args, Debug)]
pub struct TruthArgs {
    #[command(subcommand)]
    cmd: TruthCmd,
}

#[derive(Subcommand, Debug)]
enum TruthCmd {
    /// Write a provider's stored blocks as a truth a person corrects: OmniDocBench JSON
    /// (DIR/draft.json, ingestible as it is with `corpus ingest DIR/draft.json --truth
    /// omnidocbench`) with the page images beside it (DIR/images/), and with --label-studio
    /// the same pages as Label Studio tasks and its labelling configuration
    ///
    /// Each page's truth records its document, page and dpi, so it attaches to that page of the
    /// stored document: `corpus eval --suite omnidoc` then scores every provider's existing
    /// outputs on it. A draft says it is one ("drafted from P@V, not reviewed"); a truth
    /// ingested unchanged is marked `truth_status = draft P@V` (`report --by
    /// attribute:truth_status`). Blocks without boxes (Markdown imports) are placed by their
    /// text in the page's text layer where it is found, else written without a region; each
    /// block says which. See docs/label-studio.md.
    Draft(DraftArgs),
}

/// Arguments of `corpus truth draft`.
#[derive(Args, Debug)]
pub struct DraftArgs {
    /// The dataset whose documents are drafted
    #[arg(long)]
    dataset: String,
    /// The provider whose newest outputs are drafted (e.g. layout)
    #[arg(long = "from", value_name = "PROVIDER")]
    from: String,
    /// Draft this many pages: the first ones, documents in the order they were stored, pages in
    /// order [default: every page with an output]
    #[arg(long, value_name = "N")]
    pages: Option<usize>,
    /// Take the N pages the providers disagree on most (`corpus agree`'s ranking) instead of
    /// the first ones
    #[arg(long, requires = "pages")]
    most_disagreed: bool,
    /// The folder the draft is written to
    #[arg(short = 'o', long = "out", value_name = "DIR", default_value = "draft")]
    out: PathBuf,
    /// Also write the pages as Label Studio tasks (DIR/tasks.json, DIR/images/) with the
    /// labelling configuration (DIR/label_config.xml)
    #[arg(long, value_name = "DIR")]
    label_studio: Option<PathBuf>,
    /// Resolution of the page images; the boxes are in their pixels
    #[arg(long, default_value_t = draft::DEFAULT_DPI)]
    dpi: f64,
    #[command(flatten)]
    output: OutputArgs,
}

/// Runs `corpus truth`.
pub fn run(g: &GlobalArgs, a: &TruthArgs) -> anyhow::Result<ExitCode> {
    match &a.cmd {
        TruthCmd::Draft(d) => run_draft(g, d),
    }
}

fn run_draft(g: &GlobalArgs, a: &DraftArgs) -> anyhow::Result<ExitCode> {
    let store = Store::open(&g.db).with_context(|| format!("opening {}", g.db.display()))?;
    let mut drafted = draft::first_pages(&store, &a.dataset, &a.from, None)?;
    let pages = if a.most_disagreed {
        let have: std::collections::BTreeSet<draft::PageRef> = drafted.iter().copied().collect();
        // `corpus agree`'s ranking over every provider with outputs, kept to the pages the
        // drafting provider has an output for.
        let bar = super::progress::Bar::new("agree", g.quiet);
        let opts = corpus::report::agree::AgreeOptions {
            dataset: Some(&a.dataset),
            providers: &[],
            threads: 0,
        };
        let ranked: Vec<draft::PageRef> =
            corpus::report::agree::most_disagreed_pages(&store, &opts, &bar)?
                .into_iter()
                .map(|p| draft::PageRef { document: p.document_id, page: p.page + 1 })
                .filter(|p| have.contains(p))
                .collect();
        draft::top_pages(&ranked, a.pages)
    } else {
        drafted.truncate(a.pages.unwrap_or(usize::MAX));
        drafted
    };
    let opts = DraftOptions {
        dataset: &a.dataset,
        provider: &a.from,
        out: &a.out,
        label_studio: a.label_studio.as_deref(),
        dpi: a.dpi,
    };
    let bar = super::progress::Bar::new("draft", g.quiet);
    let s = draft::draft(&store, &opts, &pages, &bar)?;
    match a.output.format {
        Format::Json => print_json(&s)?,
        Format::Table => {
            let rows = vec![vec![
                format!("{}@{}", s.provider, s.versions.join(",")),
                s.pages.to_string(),
                s.blocks.to_string(),
                s.placed_by_provider.to_string(),
                s.placed_by_text_layer.to_string(),
                s.unplaced.to_string(),
            ]];
            print_table(
                &["drafted from", "pages", "blocks", "provider's box", "text layer", "no region"],
                &rows,
            )?;
            if !g.quiet {
                eprintln!("Wrote {} and its page images (not reviewed).", s.json.display());
                if let (Some(t), Some(c)) = (&s.label_studio_tasks, &s.label_studio_config) {
                    eprintln!(
                        "Label Studio: tasks {}, labelling configuration {} (docs/label-studio.md).",
                        t.display(),
                        c.display()
                    );
                }
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}
