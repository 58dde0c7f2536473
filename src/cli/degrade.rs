//! `corpus degrade`: scanned, faxed, photographed and damaged twins of a dataset's pages with
//! the same truths (docs/degrade.md).

use std::process::ExitCode;

use clap::Args;
use corpus::degrade::{self, DegradeOptions, Profile};

use super::output::{print_json, print_table, Format, OutputArgs};
use super::{GlobalArgs, EXIT_SOME_FAILED};

/// Arguments of `corpus degrade`.
#[derive(Args, Debug)]
pub struct DegradeArgs {
    /// The dataset whose documents are degraded
    #[arg(long)]
    dataset: String,
    /// Profiles, comma-separated, each `name[:key=value]...`: scan, fax, photo, skew, jpeg-Q
    /// (jpeg-30), Ndpi (150dpi), blur, noise, ink; e.g. `scan:rotate=2:noise=20`. Each gives
    /// the dataset DATASET~PROFILE. The recipes and their parameters: docs/degrade.md
    #[arg(long, value_delimiter = ',', required = true, value_parser = Profile::parse)]
    profile: Vec<Profile>,
    /// Seed of every random draw (rotations, warps, noise); the same seed gives the same bytes
    #[arg(long, default_value_t = 1)]
    seed: u64,
    #[command(flatten)]
    shard: super::shard::ShardArgs,
    #[command(flatten)]
    output: OutputArgs,
}

/// Runs `corpus degrade`.
pub fn run(g: &GlobalArgs, a: &DegradeArgs) -> anyhow::Result<ExitCode> {
    let task = a.shard.task("degrade", &a.dataset)?;
    let mut store = super::shard::open(g, task.as_ref())?;
    let opts = DegradeOptions { dataset: &a.dataset, profiles: &a.profile, seed: a.seed };
    let bar = super::progress::Bar::new("degrade", g.quiet);
    // A dataset without documents (or libpdfium missing) is the command line's to fix: exit 2.
    let summaries = match degrade::degrade(&mut store, &opts, &bar) {
        Err(corpus::Error::Usage(m)) => usage_bail!("{m}"),
        r => r?,
    };
    super::shard::note(g, &store, "twins");
    let failed: u64 = summaries.iter().map(|s| s.failed).sum();
    for s in &summaries {
        for (doc, why) in &s.failures {
            eprintln!("corpus: degrade {}: {}/{doc}: {why}", s.profile, a.dataset);
        }
    }
    match a.output.format {
        Format::Json => print_json(&summaries)?,
        Format::Table => {
            let rows: Vec<Vec<String>> = summaries
                .iter()
                .map(|s| {
                    vec![
                        s.dataset.clone(),
                        s.new.to_string(),
                        s.unchanged.to_string(),
                        s.failed.to_string(),
                        s.pages.to_string(),
                        s.truths.to_string(),
                    ]
                })
                .collect();
            print_table(&["twin dataset", "new", "unchanged", "failed", "pages", "truths"], &rows)?;
            if !g.quiet && summaries.iter().all(|s| s.new + s.unchanged + s.failed == 0) {
                eprintln!("Nothing to do: this shard holds none of the dataset's documents.");
            } else if !g.quiet && summaries.iter().all(|s| s.new == 0 && s.failed == 0) {
                eprintln!(
                    "Nothing new: every twin was in the store already (same profile and seed)."
                );
            }
        }
    }
    Ok(if failed > 0 { ExitCode::from(EXIT_SOME_FAILED) } else { ExitCode::SUCCESS })
}
