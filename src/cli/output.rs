//! Shared output options and a small aligned-table renderer.

use std::io::Write;

use clap::{Args, ValueEnum};
use corpus::report::ReportFormat;

/// How tabular results are printed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, Default)]
pub enum Format {
    /// Aligned columns for people
    #[default]
    Table,
    /// One JSON document
    Json,
}

/// The `--format` option.
#[derive(Args, Debug, Clone)]
pub struct OutputArgs {
    /// Output format
    #[arg(long, value_enum, default_value_t = Format::Table)]
    pub format: Format,
}

/// The `--format` parser of a command that writes `among` ([`ReportFormat`]'s lists): the
/// names `--help` shows with their meaning, and the format each names.
pub fn report_formats(
    among: &'static [ReportFormat],
) -> impl clap::builder::TypedValueParser<Value = ReportFormat> {
    use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
    PossibleValuesParser::new(among.iter().map(|f| PossibleValue::new(f.name()).help(f.help())))
        .map(move |s| {
            ReportFormat::parse_among(&s, among).expect("clap offered only these formats' names")
        })
}

/// Prints rows as aligned columns; numeric-looking cells are right-aligned.
pub fn print_table(headers: &[&str], rows: &[Vec<String>]) -> std::io::Result<()> {
    std::io::stdout().lock().write_all(render_table(headers, rows).as_bytes())
}

/// Renders rows as aligned columns; numeric-looking cells are right-aligned. A table wider
/// than a terminal's 120 columns has its widest text columns cut with `…` (JSON shows them
/// whole); numbers are never cut.
pub fn render_table(headers: &[&str], rows: &[Vec<String>]) -> String {
    let numeric = |i: usize| {
        rows.iter().all(|r| {
            r[i].is_empty() || r[i] == "–" || r[i].trim_end_matches('%').parse::<f64>().is_ok()
        })
    };
    let right: Vec<bool> = (0..headers.len()).map(|i| !rows.is_empty() && numeric(i)).collect();
    let shrink: Vec<bool> = right.iter().map(|r| !r).collect();
    let names: Vec<String> = headers.iter().map(|h| h.to_string()).collect();
    corpus::report::render::aligned_columns(&names, rows, &right, &shrink)
}

/// Prints a table whose columns from `first_metric` on are metrics. Where it would be wider
/// than 120 columns, only the metrics in `keep` (the suite's headline metrics) are shown, and
/// stderr says which were left out and how to see them.
pub fn print_metric_table(
    headers: &[&str],
    rows: &[Vec<String>],
    first_metric: usize,
    keep: &[&str],
    quiet: bool,
) -> std::io::Result<()> {
    let full = render_table(headers, rows);
    let width = corpus::report::render::TABLE_WIDTH;
    let cols: Vec<usize> =
        (0..headers.len()).filter(|&i| i < first_metric || keep.contains(&headers[i])).collect();
    if full.lines().all(|l| l.chars().count() <= width) || cols.len() == headers.len() {
        return std::io::stdout().lock().write_all(full.as_bytes());
    }
    let h: Vec<&str> = cols.iter().map(|&i| headers[i]).collect();
    let r: Vec<Vec<String>> =
        rows.iter().map(|row| cols.iter().map(|&i| row[i].clone()).collect()).collect();
    if !quiet {
        eprintln!(
            "corpus: showing the headline metrics ({} of {}) to fit {width} columns; --format json for all, or `corpus report --metric all`",
            h.len() - first_metric,
            headers.len() - first_metric
        );
    }
    std::io::stdout().lock().write_all(render_table(&h, &r).as_bytes())
}

/// Prints a value as pretty JSON on stdout.
pub fn print_json(v: &impl serde::Serialize) -> anyhow::Result<()> {
    let mut out = std::io::stdout().lock();
    serde_json::to_writer_pretty(&mut out, v)?;
    writeln!(out)?;
    Ok(())
}

/// Formats a metric value to 3 decimals, or `–` for null.
pub fn fmt_value(v: Option<f64>) -> String {
    v.map(|x| format!("{x:.3}")).unwrap_or_else(|| "–".into())
}
