//! `corpus sql` and `corpus runs`.

use std::io::Write;
use std::process::ExitCode;
use std::time::Duration;

use clap::Args;
use corpus::store::{QueryResult, Store};

use anyhow::Context;
use corpus::report::ReportFormat;

use super::output::{render_table, report_formats};
use super::GlobalArgs;

/// Arguments of `corpus sql`.
#[derive(Args, Debug)]
pub struct SqlArgs {
    /// One SELECT over the views (v_documents, v_outputs, v_scores, v_runs); `-` reads stdin
    query: String,
    /// A named parameter for :name in the query (can be repeated)
    #[arg(short = 'p', long = "param", value_name = "NAME=VALUE", value_parser = parse_param)]
    params: Vec<(String, String)>,
    /// Stop the query after this many seconds
    #[arg(long, default_value_t = 30.0)]
    timeout: f64,
    /// Output format
    #[arg(long, default_value = "table", value_parser = report_formats(&ReportFormat::SQL))]
    format: ReportFormat,
    /// Write to this file instead of stdout (required for parquet)
    #[arg(long, short = 'o')]
    output: Option<std::path::PathBuf>,
}

fn parse_param(s: &str) -> Result<(String, String), String> {
    let (k, v) = s.split_once('=').ok_or_else(|| format!("expected NAME=VALUE, got {s:?}"))?;
    Ok((k.trim_start_matches([':', '@', '$']).to_string(), v.to_string()))
}

/// Arguments of `corpus runs`.
#[derive(Args, Debug)]
pub struct RunsArgs {
    /// Show at most this many runs, newest first
    #[arg(long, default_value_t = 50)]
    limit: u32,
    /// Output format
    #[arg(long, default_value = "table", value_parser = report_formats(&ReportFormat::RUNS))]
    format: ReportFormat,
}

/// Runs `corpus sql`.
pub fn run(g: &GlobalArgs, a: &SqlArgs) -> anyhow::Result<ExitCode> {
    let sql =
        if a.query == "-" { std::io::read_to_string(std::io::stdin())? } else { a.query.clone() };
    if !a.timeout.is_finite() || a.timeout <= 0.0 {
        usage_bail!("--timeout must be a positive number of seconds");
    }
    if a.format == ReportFormat::Parquet && a.output.is_none() {
        usage_bail!("--format parquet writes a binary file: give --output FILE");
    }
    let r = Store::query_read_only(&g.db, &sql, &a.params, Duration::from_secs_f64(a.timeout))?;
    // Markdown and Parquet are the report renderers'; the others are printed from the rows.
    let via_report = matches!(a.format, ReportFormat::Markdown | ReportFormat::Parquet);
    if !via_report && a.output.is_none() {
        print(&r, a.format, &mut std::io::stdout().lock())?;
        return Ok(ExitCode::SUCCESS);
    }
    let mut out: Box<dyn Write> = match &a.output {
        Some(p) => {
            Box::new(std::fs::File::create(p).with_context(|| format!("creating {}", p.display()))?)
        }
        None => Box::new(std::io::stdout().lock()),
    };
    if via_report {
        let df = corpus::report::render::frame_from_rows(&r.columns, &r.rows)?;
        corpus::report::render::write(&corpus::report::render(&df, a.format)?, &mut out)?;
    } else {
        print(&r, a.format, &mut out)?;
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

/// Runs `corpus runs`.
pub fn runs(g: &GlobalArgs, a: &RunsArgs) -> anyhow::Result<ExitCode> {
    let r = Store::runs_listing(&g.db, a.limit)?;
    print(&r, a.format, &mut std::io::stdout().lock())?;
    Ok(ExitCode::SUCCESS)
}

fn print(r: &QueryResult, format: ReportFormat, out: &mut dyn Write) -> anyhow::Result<()> {
    let text = |v: &serde_json::Value| match v {
        serde_json::Value::Null => String::new(),
        serde_json::Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    let object = |row: &[serde_json::Value]| {
        serde_json::Value::Object(r.columns.iter().cloned().zip(row.iter().cloned()).collect())
    };
    match format {
        ReportFormat::Table => {
            let rows: Vec<Vec<String>> = r
                .rows
                .iter()
                .map(|row| {
                    row.iter()
                        .map(|v| if v.is_null() { "–".to_string() } else { text(v) })
                        .collect()
                })
                .collect();
            let headers: Vec<&str> = r.columns.iter().map(String::as_str).collect();
            out.write_all(render_table(&headers, &rows).as_bytes())?;
        }
        ReportFormat::Json => {
            let all: Vec<_> = r.rows.iter().map(|row| object(row)).collect();
            serde_json::to_writer_pretty(&mut *out, &all)?;
            writeln!(out)?;
        }
        ReportFormat::Ndjson => {
            for row in &r.rows {
                writeln!(out, "{}", object(row))?;
            }
        }
        ReportFormat::Markdown
        | ReportFormat::Parquet
        | ReportFormat::Html
        | ReportFormat::Text
        | ReportFormat::Junit => {
            anyhow::bail!("corpus sql does not print {} from rows", format.name())
        }
        ReportFormat::Csv => {
            let line = |cells: Vec<String>| {
                cells.into_iter().map(|c| csv_field(&c)).collect::<Vec<_>>().join(",")
            };
            writeln!(out, "{}", line(r.columns.clone()))?;
            for row in &r.rows {
                writeln!(out, "{}", line(row.iter().map(text).collect()))?;
            }
        }
    }
    Ok(())
}

/// Quotes a CSV field when it holds a comma, a quote or a line break (RFC 4180).
fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}
