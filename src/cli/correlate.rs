//! `corpus correlate`.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use clap::Args;
use corpus::report::correlate::{correlate, read_ratings};
use corpus::store::Store;

use super::output::{fmt_value, print_json, print_table, Format, OutputArgs};
use super::GlobalArgs;

/// Arguments of `corpus correlate`.
#[derive(Args, Debug)]
pub struct CorrelateArgs {
    /// CSV of human ratings with a header naming `document` and `rating` columns (and
    /// optionally `provider`)
    #[arg(long)]
    ratings: PathBuf,
    /// The suite whose stored metrics are correlated
    #[arg(long, default_value = "table", value_parser = super::values::stored_suite())]
    suite: String,
    /// Only this provider's scores
    #[arg(long)]
    provider: Option<String>,
    #[command(flatten)]
    output: OutputArgs,
}

/// Runs `corpus correlate`: Pearson, Spearman and Kendall τ-b per stored metric.
pub fn run(g: &GlobalArgs, a: &CorrelateArgs) -> anyhow::Result<ExitCode> {
    let text = std::fs::read_to_string(&a.ratings)
        .with_context(|| format!("reading {}", a.ratings.display()))?;
    let ratings =
        read_ratings(&text).map_err(|e| anyhow::anyhow!("{}: {e}", a.ratings.display()))?;
    let store =
        Store::open_read_only(&g.db).with_context(|| format!("opening {}", g.db.display()))?;
    let values = store.latest_values(&a.suite, a.provider.as_deref())?;
    let rows = correlate(&values, &ratings);
    match a.output.format {
        Format::Json => print_json(&rows)?,
        Format::Table => {
            let cells: Vec<Vec<String>> = rows
                .iter()
                .map(|r| {
                    vec![
                        r.metric.clone(),
                        r.n.to_string(),
                        fmt_value(r.pearson),
                        fmt_value(r.spearman),
                        fmt_value(r.kendall),
                    ]
                })
                .collect();
            print_table(&["metric", "n", "pearson", "spearman", "kendall_tau_b"], &cells)?;
            if !g.quiet && rows.iter().all(|r| r.n == 0) {
                eprintln!("No rated document has a stored {} score.", a.suite);
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}
