//! Shared output options and a small aligned-table renderer.

use std::io::Write;

use clap::{Args, ValueEnum};

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

/// Prints rows as aligned columns; numeric-looking cells are right-aligned.
pub fn print_table(headers: &[&str], rows: &[Vec<String>]) -> std::io::Result<()> {
    std::io::stdout().lock().write_all(render_table(headers, rows).as_bytes())
}

/// Renders rows as aligned columns; numeric-looking cells are right-aligned.
pub fn render_table(headers: &[&str], rows: &[Vec<String>]) -> String {
    let mut widths: Vec<usize> = headers.iter().map(|h| h.chars().count()).collect();
    for r in rows {
        for (i, c) in r.iter().enumerate() {
            widths[i] = widths[i].max(c.chars().count());
        }
    }
    let numeric = |i: usize| {
        rows.iter().all(|r| {
            r[i].is_empty() || r[i] == "–" || r[i].trim_end_matches('%').parse::<f64>().is_ok()
        })
    };
    let right: Vec<bool> = (0..headers.len()).map(|i| !rows.is_empty() && numeric(i)).collect();
    let mut out = String::new();
    let line = |out: &mut String, cells: &[String]| {
        let mut s = String::new();
        for (i, c) in cells.iter().enumerate() {
            if i > 0 {
                s.push_str("  ");
            }
            let pad = widths[i] - c.chars().count();
            if right[i] {
                s.push_str(&" ".repeat(pad));
                s.push_str(c);
            } else {
                s.push_str(c);
                if i + 1 < cells.len() {
                    s.push_str(&" ".repeat(pad));
                }
            }
        }
        out.push_str(s.trim_end());
        out.push('\n');
    };
    let hdr: Vec<String> = headers.iter().map(|h| h.to_string()).collect();
    line(&mut out, &hdr);
    for r in rows {
        line(&mut out, r);
    }
    out
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
