//! `corpus agree`.

use std::process::ExitCode;

use anyhow::Context;
use clap::{Args, ValueEnum};
use corpus::report::agree::{self, render, AgreeOptions};
use corpus::store::Store;

use super::GlobalArgs;

/// Output formats of `corpus agree`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum AgreeFormat {
    /// The matrices and the ranking as text (fits 120 columns)
    Table,
    /// Everything: matrices, provider means, every page's pairs, the ranking
    Json,
}

/// Arguments of `corpus agree`.
#[derive(Args, Debug)]
pub struct AgreeArgs {
    /// Only documents named in this dataset
    #[arg(long)]
    dataset: Option<String>,
    /// Only these providers (repeat the option; default: every provider with outputs)
    #[arg(long = "provider")]
    providers: Vec<String>,
    /// Output format
    #[arg(long, value_enum, default_value_t = AgreeFormat::Table)]
    format: AgreeFormat,
    /// How many of the most disagreed pages to list (the pages to annotate first)
    #[arg(long, default_value_t = 20)]
    top: usize,
    /// Worker threads (default: one per core)
    #[arg(long, short = 'j', default_value_t = 0)]
    jobs: usize,
}

/// Runs `corpus agree`.
pub fn run(g: &GlobalArgs, a: &AgreeArgs) -> anyhow::Result<ExitCode> {
    let store =
        Store::open_read_only(&g.db).with_context(|| format!("opening {}", g.db.display()))?;
    let opts =
        AgreeOptions { dataset: a.dataset.as_deref(), providers: &a.providers, threads: a.jobs };
    let bar = super::progress::Bar::new("agree", g.quiet);
    let report = match agree::agree(&store, &opts, &bar) {
        Ok(r) => r,
        Err(corpus::Error::Usage(why)) => {
            // Nothing to compare: said even with --quiet, and a failure.
            eprintln!("corpus: {why}");
            return Ok(ExitCode::FAILURE);
        }
        Err(e) => return Err(e.into()),
    };
    match a.format {
        AgreeFormat::Table => print!("{}", render::text(&report, a.top)),
        AgreeFormat::Json => {
            println!("{}", serde_json::to_string_pretty(&render::json(&report, a.top))?)
        }
    }
    Ok(ExitCode::SUCCESS)
}
