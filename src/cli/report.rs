//! `corpus report`.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use clap::Args;
use corpus::report::{self, render, By, Rendered, ReportFormat, Selector, Since};
use corpus::store::{ScoreFilter, Store};

use super::GlobalArgs;

/// Arguments of `corpus report`.
#[derive(Args, Debug)]
pub struct ReportArgs {
    /// Only this suite's scores
    #[arg(long, value_parser = super::values::stored_suite())]
    suite: Option<String>,
    /// Only this provider's scores
    #[arg(long)]
    provider: Option<String>,
    /// Only documents named in this dataset
    #[arg(long)]
    dataset: Option<String>,
    /// Only this metric (required with --history)
    #[arg(long)]
    metric: Option<String>,
    /// Only scores computed since then: a run id (42), a date (2026-11-01), today, yesterday,
    /// last-week, last-month, or an age (3d, 12h, 2w)
    #[arg(long)]
    since: Option<String>,
    /// Group rows by provider, document, dataset or attribute:<name>
    #[arg(long, default_value = "document", value_parser = By::parse)]
    by: By,
    /// Compare two provider versions side by side: PROVIDER[@VERSION] PROVIDER[@VERSION];
    /// per-metric means and per-document deltas (B − A), biggest losses first
    #[arg(long, num_args = 2, value_names = ["A", "B"], value_parser = Selector::parse)]
    compare: Vec<Selector>,
    /// One row per run and provider version: how the metric moved over time
    #[arg(long, requires = "metric", conflicts_with = "compare")]
    history: bool,
    /// With --compare, at most this many per-document rows in table and markdown output
    #[arg(long, default_value_t = 30)]
    limit: usize,
    /// paper: also the GROBID-style field scores (`hdr_*`, `cit_*`: 216 metrics per paper,
    /// left out otherwise, as `eval` prints them only with --fields); --metric names one alone
    #[arg(long)]
    fields: bool,
    /// Output format: table, markdown, csv, json, ndjson or parquet
    #[arg(long, default_value = "table", value_parser = ReportFormat::parse)]
    format: ReportFormat,
    /// Write to this file instead of stdout (required for parquet)
    #[arg(long, short = 'o')]
    output: Option<PathBuf>,
}

/// Runs `corpus report`.
pub fn run(g: &GlobalArgs, a: &ReportArgs) -> anyhow::Result<ExitCode> {
    if a.format == ReportFormat::Parquet && a.output.is_none() {
        usage_bail!("--format parquet writes a binary file: give --output FILE");
    }
    let store =
        Store::open_read_only(&g.db).with_context(|| format!("opening {}", g.db.display()))?;
    let since = a
        .since
        .as_deref()
        .map(|s| Since::parse(s, &corpus::store::now()))
        .transpose()
        .map_err(anyhow::Error::msg)?;
    let attribute = match &a.by {
        By::Attribute(name) => Some(name.as_str()),
        _ => None,
    };
    let filter = ScoreFilter {
        latest: !a.history,
        suite: a.suite.as_deref(),
        dataset: a.dataset.as_deref(),
        provider: a.provider.as_deref(),
        metric: a.metric.as_deref(),
        since_run: match &since {
            Some(Since::Run(r)) => Some(*r),
            _ => None,
        },
        since_time: match &since {
            Some(Since::Time(t)) => Some(t.as_str()),
            _ => None,
        },
        attribute,
    };
    let mut cols = store.score_columns(&filter)?;
    if !a.fields && a.metric.is_none() {
        let fields: std::collections::HashSet<&str> =
            corpus::metrics::fields::metric_ids().iter().copied().collect();
        cols.retain_metrics(|m| !fields.contains(m));
    }
    if cols.is_empty() {
        if !g.quiet {
            eprintln!("corpus: no scores match; run `corpus eval` first, or widen the filters");
        }
        return Ok(ExitCode::SUCCESS);
    }
    let preferred: Vec<&str> = match a.suite.as_deref() {
        Some("paper") | None => corpus::metrics::paper::metric_ids().to_vec(),
        _ => Vec::new(),
    };
    let metrics = report::metric_order(&cols, &preferred);
    let mut out: Box<dyn Write> = match &a.output {
        Some(p) => Box::new(std::io::BufWriter::new(
            std::fs::File::create(p).with_context(|| format!("creating {}", p.display()))?,
        )),
        None => Box::new(std::io::BufWriter::new(std::io::stdout().lock())),
    };
    let textual = matches!(a.format, ReportFormat::Table | ReportFormat::Markdown);
    if let [sel_a, sel_b] = a.compare.as_slice() {
        let long = report::long_frame(&cols)?;
        let (per_metric, rows) = report::compare(&long, &cols, sel_a, sel_b)?;
        if textual {
            report::render::write(&render(&per_metric, a.format)?, &mut out)?;
            writeln!(out)?;
            let shown = rows.head(Some(a.limit));
            report::render::write(&render(&shown, a.format)?, &mut out)?;
            if rows.height() > a.limit && !g.quiet {
                eprintln!(
                    "corpus: showing the first {} of {} (document, metric) rows; --limit or --format csv for all",
                    a.limit,
                    rows.height()
                );
            }
        } else {
            report::render::write(&render(&rows, a.format)?, &mut out)?;
        }
    } else if a.history {
        let h = report::history(&report::long_frame(&cols)?, &metrics)?;
        report::render::write(&render(&h, a.format)?, &mut out)?;
    } else {
        let t = report::summary(&report::wide_frame(&cols, &metrics)?, &metrics, &a.by)?;
        let t = match &a.by {
            By::Attribute(name) => {
                let mut t = t;
                t.rename("attribute", name.as_str().into())?;
                t
            }
            _ => t,
        };
        let r = render(&t, a.format)?;
        if let (Rendered::Bytes(_), None) = (&r, &a.output) {
            usage_bail!("binary output needs --output FILE");
        }
        report::render::write(&r, &mut out)?;
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}
