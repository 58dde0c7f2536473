//! `corpus gate`.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use clap::Args;
use corpus::report::gate::{gate, overall, to_json, to_junit, GateMetric, Outcome};
use corpus::report::{self, ReportFormat, Selector};
use corpus::store::{ScoreFilter, Store};

use super::output::report_formats;
use super::GlobalArgs;

/// Arguments of `corpus gate`.
#[derive(Args, Debug)]
pub struct GateArgs {
    /// The suite whose scores are compared
    #[arg(long, value_parser = super::values::stored_suite())]
    suite: String,
    /// The reference: PROVIDER[@VERSION] (a version, or a model digest prefix of 6+ chars)
    #[arg(long, value_parser = Selector::parse)]
    baseline: Selector,
    /// The version under test: PROVIDER[@VERSION]
    #[arg(long, value_parser = Selector::parse)]
    candidate: Selector,
    /// A metric to gate on, METRIC or METRIC:MAX_DROP (repeat for several); MAX_DROP is the
    /// mean loss allowed in the metric's units (for edit distances, lower is better, the rise
    /// allowed)
    #[arg(long, required = true)]
    metric: Vec<String>,
    /// The allowed drop of a --metric given without one
    #[arg(long, default_value_t = 0.0)]
    max_drop: f64,
    /// Significance level: a loss beyond the allowance fails only when its one-sided p-value
    /// is below this
    #[arg(long, default_value_t = 0.05)]
    alpha: f64,
    /// Only documents of this dataset
    #[arg(long)]
    dataset: Option<String>,
    /// Only scores computed since then (as `report --since`)
    #[arg(long)]
    since: Option<String>,
    /// Output: text (one line per metric, then the documents that lost most), json or junit
    #[arg(long, default_value = "text", value_parser = report_formats(&ReportFormat::GATE))]
    format: ReportFormat,
    /// Write to this file instead of stdout
    #[arg(long, short = 'o')]
    output: Option<PathBuf>,
    /// Documents listed per regressed metric (text and junit)
    #[arg(long, default_value_t = 10)]
    limit: usize,
    /// Bootstrap resamples of the intervals (the p-values draw their own count)
    #[arg(long, default_value_t = report::Ci::DEFAULT.resamples as u32, value_parser = clap::value_parser!(u32).range(100..=1_000_000))]
    resamples: u32,
    /// Seed of the random draws (the verdict does not depend on it: p-values are exact, or
    /// drawn until their side of every threshold is settled)
    #[arg(long, default_value_t = report::Ci::DEFAULT.seed)]
    seed: u64,
    /// Pass (exit 0) where the gate cannot decide (too few paired documents) instead of
    /// exiting 5
    #[arg(long)]
    allow_undecided: bool,
}

/// Runs `corpus gate`: exit 0 when no metric regressed, 4 when one did, 5 when none did but
/// one cannot be decided (0 with `--allow-undecided`).
pub fn run(g: &GlobalArgs, a: &GateArgs) -> anyhow::Result<ExitCode> {
    if !(a.alpha > 0.0 && a.alpha < 1.0) {
        usage_bail!("--alpha must be between 0 and 1, got {}", a.alpha);
    }
    let metrics: Vec<GateMetric> = a
        .metric
        .iter()
        .map(|m| GateMetric::parse(m, a.max_drop))
        .collect::<Result<_, _>>()
        .map_err(|e| anyhow::Error::new(super::UsageError(format!("--metric {e}"))))?;
    let since = super::report::parse_since_arg(a.since.as_deref())?;
    let (since_run, since_time) = super::report::since_bounds(&since);
    let store =
        Store::open_read_only(&g.db).with_context(|| format!("opening {}", g.db.display()))?;
    let latest = store.truth_ids(corpus::store::TruthSelect::Latest)?;
    let filter = ScoreFilter {
        latest: true,
        suite: Some(a.suite.as_str()),
        skip_suite: None,
        dataset: a.dataset.as_deref(),
        provider: None,
        metric: None,
        since_run,
        since_time,
        attribute: None,
        // As `report`: the scores against each document's newest truth.
        truths: Some(&latest),
    };
    let (cols, _) = report::report_columns(&store, &filter, true)?;
    for sel in [&a.baseline, &a.candidate] {
        let filters = super::nomatch::Filters { filter: &filter, since: a.since.as_deref() };
        super::report::require_scores(&store, &cols, &filters, sel, "gate")?;
    }
    for m in &metrics {
        if !cols.metrics.contains(&m.metric) {
            usage_bail!(
                "--metric {}: the {} suite stored no such metric; stored: {}",
                m.metric,
                a.suite,
                cols.metrics.join(", ")
            );
        }
    }
    let long = report::long_frame(&cols)?;
    let (_, rows) = report::compare(&long, &cols, &a.baseline, &a.candidate, None)?;
    let ci = report::Ci { resamples: a.resamples as usize, seed: a.seed, ..report::Ci::DEFAULT };
    let results = gate(&rows, &metrics, a.alpha, &ci)?;
    let (base, cand) = (a.baseline.label(), a.candidate.label());
    let text = match a.format {
        ReportFormat::Json => {
            let mut s = serde_json::to_string_pretty(&to_json(&results, a.alpha, &base, &cand))?;
            s.push('\n');
            s
        }
        ReportFormat::Junit => to_junit(&results, &base, &cand, a.limit),
        ReportFormat::Text => {
            let mut s = String::new();
            for r in &results {
                let tag = match r.outcome {
                    Outcome::Regressed => "FAIL",
                    Outcome::Undecided => "????",
                    Outcome::Pass => "ok  ",
                };
                s.push_str(&format!("{tag} {}\n", r.reason));
            }
            for r in results.iter().filter(|r| r.regressed) {
                s.push_str(&format!("\n{} lost most on:\n", r.gate.metric));
                for (ds, d, x, y) in r.losses.iter().take(a.limit) {
                    s.push_str(&format!("  {ds}/{d}  {x:.4} → {y:.4}  ({:+.4})\n", y - x));
                }
                if r.losses.len() > a.limit {
                    s.push_str(&format!("  ... {} more (--limit)\n", r.losses.len() - a.limit));
                }
            }
            s
        }
        other @ (ReportFormat::Table
        | ReportFormat::Markdown
        | ReportFormat::Csv
        | ReportFormat::Ndjson
        | ReportFormat::Parquet
        | ReportFormat::Html) => {
            usage_bail!("corpus gate writes text, json or junit, not {}", other.name())
        }
    };
    match &a.output {
        Some(p) => std::fs::write(p, &text).with_context(|| format!("writing {}", p.display()))?,
        None => std::io::stdout().lock().write_all(text.as_bytes())?,
    }
    let regressed = results.iter().filter(|r| r.regressed).count();
    let undecided = results.iter().filter(|r| r.outcome == Outcome::Undecided).count();
    let outcome = overall(&results);
    if !g.quiet {
        let n = results.len();
        eprintln!(
            "corpus: gate {base} → {cand}: {}",
            match outcome {
                Outcome::Pass => format!("passed on {n} metric(s)"),
                Outcome::Regressed => format!("{regressed} of {n} metric(s) regressed"),
                Outcome::Undecided if a.allow_undecided => format!(
                    "cannot decide on {undecided} of {n} metric(s) (too few paired documents); passed as --allow-undecided asks"
                ),
                Outcome::Undecided => format!(
                    "cannot decide on {undecided} of {n} metric(s): too few paired documents for any loss to be significant (exit 5; --allow-undecided passes)"
                ),
            }
        );
    }
    Ok(match outcome {
        Outcome::Pass => ExitCode::SUCCESS,
        Outcome::Regressed => ExitCode::from(super::EXIT_REGRESSED),
        Outcome::Undecided if a.allow_undecided => ExitCode::SUCCESS,
        Outcome::Undecided => ExitCode::from(super::EXIT_UNDECIDED),
    })
}
