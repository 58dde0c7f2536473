//! Rendering report frames: aligned tables (numbers to 3 decimals, null as `–`), Markdown,
//! CSV and Parquet (polars-io writers), JSON and NDJSON.

use std::io::Write;

use polars::prelude::*;
use polars_io::prelude::{CsvWriter, ParquetWriter, SerWriter};

listed_enum! {
    /// How a report is written: the one format type of `report`, `sql`, `runs` and `gate`,
    /// each offering the formats it writes ([`ReportFormat::REPORT`], [`ReportFormat::SQL`],
    /// [`ReportFormat::RUNS`], [`ReportFormat::GATE`]). [`render`] writes the frame formats
    /// ([`ReportFormat::is_frame`]); the HTML site and the gate's text and JUnit are written
    /// by their commands.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub enum ReportFormat {
        /// Aligned columns for a terminal.
        Table,
        /// A Markdown (GFM) table.
        Markdown,
        /// CSV with a header row; nulls are empty fields.
        Csv,
        /// One JSON array of objects; nulls are `null`.
        Json,
        /// One JSON object per line.
        Ndjson,
        /// Apache Parquet (to a file).
        Parquet,
        /// A static HTML site (to a folder).
        Html,
        /// Lines for a person to read (`gate`'s verdicts).
        Text,
        /// JUnit XML, for a CI server (`gate`).
        Junit,
    }
}

impl ReportFormat {
    /// What `report` writes.
    pub const REPORT: [ReportFormat; 7] = [
        ReportFormat::Table,
        ReportFormat::Markdown,
        ReportFormat::Csv,
        ReportFormat::Json,
        ReportFormat::Ndjson,
        ReportFormat::Parquet,
        ReportFormat::Html,
    ];
    /// What `sql` writes.
    pub const SQL: [ReportFormat; 6] = [
        ReportFormat::Table,
        ReportFormat::Json,
        ReportFormat::Ndjson,
        ReportFormat::Csv,
        ReportFormat::Markdown,
        ReportFormat::Parquet,
    ];
    /// What `runs` writes.
    pub const RUNS: [ReportFormat; 4] =
        [ReportFormat::Table, ReportFormat::Json, ReportFormat::Ndjson, ReportFormat::Csv];
    /// What `gate` writes.
    pub const GATE: [ReportFormat; 3] =
        [ReportFormat::Text, ReportFormat::Json, ReportFormat::Junit];

    /// The name as typed.
    pub fn name(self) -> &'static str {
        match self {
            ReportFormat::Table => "table",
            ReportFormat::Markdown => "markdown",
            ReportFormat::Csv => "csv",
            ReportFormat::Json => "json",
            ReportFormat::Ndjson => "ndjson",
            ReportFormat::Parquet => "parquet",
            ReportFormat::Html => "html",
            ReportFormat::Text => "text",
            ReportFormat::Junit => "junit",
        }
    }

    /// One line for `--help`.
    pub fn help(self) -> &'static str {
        match self {
            ReportFormat::Table => "aligned columns",
            ReportFormat::Markdown => "a Markdown table",
            ReportFormat::Csv => "comma-separated values with a header line",
            ReportFormat::Json => "one JSON document",
            ReportFormat::Ndjson => "one JSON object per line",
            ReportFormat::Parquet => "Apache Parquet (needs --output)",
            ReportFormat::Html => "a static site in the folder --output names",
            ReportFormat::Text => "lines for a person to read",
            ReportFormat::Junit => "JUnit XML for a CI server",
        }
    }

    /// Whether [`render`] writes it (a frame's rows and columns).
    pub fn is_frame(self) -> bool {
        match self {
            ReportFormat::Table
            | ReportFormat::Markdown
            | ReportFormat::Csv
            | ReportFormat::Json
            | ReportFormat::Ndjson
            | ReportFormat::Parquet => true,
            ReportFormat::Html | ReportFormat::Text | ReportFormat::Junit => false,
        }
    }

    /// The format named `s` among those a command writes.
    pub fn parse_among(s: &str, among: &[ReportFormat]) -> Result<ReportFormat, String> {
        among.iter().copied().find(|f| f.name() == s).ok_or_else(|| {
            let names: Vec<&str> = among.iter().map(|f| f.name()).collect();
            format!("unknown format {s:?}; known: {}", names.join(", "))
        })
    }
}

/// A rendered report: text, or bytes for binary formats.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Rendered {
    /// Text to print.
    Text(String),
    /// Bytes to write to a file.
    Bytes(Vec<u8>),
}

/// One cell of a frame, for the text renderers.
#[derive(Debug, Clone, PartialEq)]
enum Cell {
    Null,
    Int(i64),
    Bool(bool),
    Num(f64),
    Str(String),
}

fn cells(df: &DataFrame) -> PolarsResult<Vec<Vec<Cell>>> {
    let mut cols = Vec::with_capacity(df.width());
    for c in df.columns() {
        let s = c.as_materialized_series();
        let col: Vec<Cell> = match s.dtype() {
            DataType::Float64 | DataType::Float32 => s
                .cast(&DataType::Float64)?
                .f64()?
                .iter()
                .map(|v| v.map_or(Cell::Null, Cell::Num))
                .collect(),
            DataType::Boolean => {
                s.bool()?.iter().map(|v| v.map_or(Cell::Null, Cell::Bool)).collect()
            }
            dt if dt.is_integer() => s
                .cast(&DataType::Int64)?
                .i64()?
                .iter()
                .map(|v| v.map_or(Cell::Null, Cell::Int))
                .collect(),
            DataType::String => s
                .str()?
                .iter()
                .map(|v: Option<&str>| v.map_or(Cell::Null, |t| Cell::Str(t.to_string())))
                .collect(),
            _ => s
                .cast(&DataType::String)?
                .str()?
                .iter()
                .map(|v: Option<&str>| v.map_or(Cell::Null, |t| Cell::Str(t.to_string())))
                .collect(),
        };
        cols.push(col);
    }
    let n = df.height();
    Ok((0..n).map(|i| cols.iter().map(|c| c[i].clone()).collect()).collect())
}

fn text(c: &Cell) -> String {
    match c {
        Cell::Null => "–".into(),
        Cell::Int(i) => i.to_string(),
        Cell::Bool(b) => b.to_string(),
        Cell::Num(f) => format!("{f:.3}"),
        Cell::Str(s) => s.clone(),
    }
}

fn json_value(c: &Cell) -> serde_json::Value {
    match c {
        Cell::Null => serde_json::Value::Null,
        Cell::Int(i) => (*i).into(),
        Cell::Bool(b) => (*b).into(),
        Cell::Num(f) => {
            serde_json::Number::from_f64(*f).map_or(serde_json::Value::Null, Into::into)
        }
        Cell::Str(s) => s.clone().into(),
    }
}

/// A frame's rows as JSON objects, one per row, keyed by column name (what `--format json`
/// prints as an array).
pub fn json_rows(df: &DataFrame) -> PolarsResult<Vec<serde_json::Value>> {
    let names: Vec<String> = df.get_column_names().iter().map(|s| s.to_string()).collect();
    Ok(cells(df)?
        .iter()
        .map(|r| {
            let m: serde_json::Map<String, serde_json::Value> =
                names.iter().cloned().zip(r.iter().map(json_value)).collect();
            serde_json::Value::Object(m)
        })
        .collect())
}

/// Renders a frame in `format`.
pub fn render(df: &DataFrame, format: ReportFormat) -> PolarsResult<Rendered> {
    let names: Vec<String> = df.get_column_names().iter().map(|s| s.to_string()).collect();
    match format {
        ReportFormat::Table | ReportFormat::Markdown => {
            let rows = cells(df)?;
            let numeric: Vec<bool> = (0..names.len())
                .map(|j| rows.iter().any(|r| matches!(r[j], Cell::Int(_) | Cell::Num(_))))
                .collect();
            let body: Vec<Vec<String>> =
                rows.iter().map(|r| r.iter().map(text).collect()).collect();
            Ok(Rendered::Text(if format == ReportFormat::Table {
                aligned(&names, &body, &numeric)
            } else {
                markdown(&names, &body, &numeric)
            }))
        }
        ReportFormat::Json | ReportFormat::Ndjson => {
            let objs = json_rows(df)?;
            let mut out = String::new();
            if format == ReportFormat::Json {
                out = serde_json::to_string_pretty(&objs).map_err(to_polars)?;
                out.push('\n');
            } else {
                for o in objs {
                    out.push_str(&o.to_string());
                    out.push('\n');
                }
            }
            Ok(Rendered::Text(out))
        }
        ReportFormat::Csv => {
            let mut buf = Vec::new();
            let mut df = df.clone();
            CsvWriter::new(&mut buf).include_header(true).finish(&mut df)?;
            Ok(Rendered::Text(String::from_utf8_lossy(&buf).into_owned()))
        }
        ReportFormat::Parquet => {
            let mut buf = Vec::new();
            let mut df = df.clone();
            ParquetWriter::new(&mut buf).finish(&mut df)?;
            Ok(Rendered::Bytes(buf))
        }
        ReportFormat::Html | ReportFormat::Text | ReportFormat::Junit => {
            Err(PolarsError::InvalidOperation(
                format!("{} is not a table's format: its command writes it", format.name()).into(),
            ))
        }
    }
}

fn to_polars(e: serde_json::Error) -> PolarsError {
    PolarsError::ComputeError(e.to_string().into())
}

/// The width every default table is made to fit: a terminal's 120 columns.
pub const TABLE_WIDTH: usize = 120;

/// Narrows the text columns (`shrink`) of a table whose widths `w` (columns two spaces
/// apart) exceed `max`: the last text column first (a description, free text) down to 24,
/// then the widest first, each down to no less than its header's width (at most 12) or 6;
/// numbers are never cut, nor is the first column, the row's key (cut, two keys could read
/// the same: `all (micro)` and `all (macro)`). A table that still does not fit keeps what is
/// left.
pub fn fit_widths(w: &mut [usize], headers: &[usize], shrink: &[bool], max: usize) {
    let total = |w: &[usize]| w.iter().sum::<usize>() + 2 * w.len().saturating_sub(1);
    let floor = |j: usize| headers[j].clamp(6, 12);
    if let Some(last) = (1..w.len()).rev().find(|&j| shrink[j]) {
        let over = total(w).saturating_sub(max);
        let room = w[last].saturating_sub(floor(last).max(24));
        w[last] -= over.min(room);
    }
    while total(w) > max {
        let widest =
            (1..w.len()).filter(|&j| shrink[j] && w[j] > floor(j)).max_by_key(|&j| (w[j], j));
        let Some(j) = widest else { break };
        w[j] -= 1;
    }
}

/// `s` cut to `width` characters, ending in `…` where it was longer.
pub fn cut(s: &str, width: usize) -> String {
    if s.chars().count() <= width {
        return s.to_string();
    }
    let mut out: String = s.chars().take(width.saturating_sub(1)).collect();
    out.push('…');
    out
}

fn aligned(names: &[String], rows: &[Vec<String>], numeric: &[bool]) -> String {
    // Numbers, and means folded with their intervals (`0.512 [0.401, 0.613]`), are never cut.
    let number =
        |c: &str| c == "–" || c.split(' ').next().is_some_and(|x| x.parse::<f64>().is_ok());
    let shrink: Vec<bool> = (0..names.len())
        .map(|j| !numeric[j] && (rows.is_empty() || !rows.iter().all(|r| number(&r[j]))))
        .collect();
    aligned_columns(names, rows, numeric, &shrink)
}

/// Rows as columns two spaces apart, fitted to [`TABLE_WIDTH`] by [`fit_widths`]: `right`
/// columns right-aligned, `shrink` columns the ones that may be cut with `…`; trailing spaces
/// trimmed. Every aligned table corpus prints goes through here.
pub fn aligned_columns(
    names: &[String],
    rows: &[Vec<String>],
    right: &[bool],
    shrink: &[bool],
) -> String {
    let heads: Vec<usize> = names.iter().map(|n| n.chars().count()).collect();
    let mut w = heads.clone();
    for r in rows {
        for (j, c) in r.iter().enumerate() {
            w[j] = w[j].max(c.chars().count());
        }
    }
    fit_widths(&mut w, &heads, shrink, TABLE_WIDTH);
    let mut out = String::new();
    let line = |cells: &[String], out: &mut String| {
        let mut s = String::new();
        for (j, c) in cells.iter().enumerate() {
            if j > 0 {
                s.push_str("  ");
            }
            let c = &cut(c, w[j]);
            let pad = w[j] - c.chars().count();
            if right[j] {
                s.push_str(&" ".repeat(pad));
                s.push_str(c);
            } else {
                s.push_str(c);
                s.push_str(&" ".repeat(pad));
            }
        }
        out.push_str(s.trim_end());
        out.push('\n');
    };
    line(names, &mut out);
    for r in rows {
        line(r, &mut out);
    }
    out
}

fn markdown(names: &[String], rows: &[Vec<String>], numeric: &[bool]) -> String {
    let esc = |s: &str| s.replace('|', "\\|");
    let mut out = String::new();
    out.push_str(&format!(
        "| {} |\n",
        names.iter().map(|n| esc(n)).collect::<Vec<_>>().join(" | ")
    ));
    let rule: Vec<&str> = numeric.iter().map(|&n| if n { "---:" } else { "---" }).collect();
    out.push_str(&format!("| {} |\n", rule.join(" | ")));
    for r in rows {
        out.push_str(&format!(
            "| {} |\n",
            r.iter().map(|c| esc(c)).collect::<Vec<_>>().join(" | ")
        ));
    }
    out
}

/// Writes a rendered report to stdout or a file.
pub fn write(r: &Rendered, out: &mut dyn Write) -> std::io::Result<()> {
    match r {
        Rendered::Text(t) => out.write_all(t.as_bytes()),
        Rendered::Bytes(b) => out.write_all(b),
    }
}

/// Builds a frame from query rows (as `corpus sql` returns them): a column of integers
/// becomes Int64, of numbers Float64, anything else String; nulls stay null.
pub fn frame_from_rows(
    columns: &[String],
    rows: &[Vec<serde_json::Value>],
) -> PolarsResult<DataFrame> {
    use serde_json::Value;
    let mut cols = Vec::with_capacity(columns.len());
    for (j, name) in columns.iter().enumerate() {
        let vals: Vec<&Value> = rows.iter().map(|r| r.get(j).unwrap_or(&Value::Null)).collect();
        let all = |f: fn(&Value) -> bool| vals.iter().all(|v| v.is_null() || f(v));
        let c = if all(|v| v.is_i64()) {
            Column::new(name.as_str().into(), vals.iter().map(|v| v.as_i64()).collect::<Vec<_>>())
        } else if all(|v| v.is_number()) {
            Column::new(name.as_str().into(), vals.iter().map(|v| v.as_f64()).collect::<Vec<_>>())
        } else {
            let s: Vec<Option<String>> = vals
                .iter()
                .map(|v| match v {
                    Value::Null => None,
                    Value::String(s) => Some(s.clone()),
                    other => Some(other.to_string()),
                })
                .collect();
            Column::new(name.as_str().into(), s)
        };
        cols.push(c);
    }
    DataFrame::new(rows.len(), cols)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wide_tables_cut_their_text_columns_last_first_and_never_numbers() {
        // provider 10, notes 30, a number 5, description 200: 251 wide.
        let mut w = vec![10, 30, 5, 200];
        fit_widths(&mut w, &[8, 5, 3, 11], &[true, true, false, true], 80);
        // The last text column (a description) gives way alone while it can.
        assert_eq!(w, vec![10, 30, 5, 29]);
        // Narrower: the description down to 24, then the widest text column first.
        let mut w = vec![10, 30, 5, 200];
        fit_widths(&mut w, &[8, 5, 3, 11], &[true, true, false, true], 60);
        assert_eq!(w, vec![10, 20, 5, 19]);
        assert_eq!(cut("abcdef", 4), "abc…");
        assert_eq!(cut("abc", 4), "abc");
        // Nothing to cut: left as it is.
        let mut n = vec![50, 50, 50];
        fit_widths(&mut n, &[3, 3, 3], &[false, false, false], 80);
        assert_eq!(n, vec![50, 50, 50]);
        // The first column is the row's key: never cut.
        let mut k = vec![40, 5, 5];
        fit_widths(&mut k, &[3, 3, 3], &[true, false, false], 30);
        assert_eq!(k, vec![40, 5, 5]);
    }

    fn frame() -> DataFrame {
        DataFrame::new_infer_height(vec![
            Column::new("document".into(), ["a", "AVG"]),
            Column::new("n".into(), [Some(2i64), None]),
            Column::new("text_r".into(), [Some(0.5f64), None]),
        ])
        .unwrap()
    }

    #[test]
    fn tables_show_three_decimals_and_a_dash_for_null() {
        let Rendered::Text(t) = render(&frame(), ReportFormat::Table).unwrap() else { panic!() };
        assert_eq!(t, "document  n  text_r\na         2   0.500\nAVG       –       –\n");
        let Rendered::Text(m) = render(&frame(), ReportFormat::Markdown).unwrap() else { panic!() };
        assert_eq!(m, "| document | n | text_r |\n| --- | ---: | ---: |\n| a | 2 | 0.500 |\n| AVG | – | – |\n");
    }

    #[test]
    fn json_keeps_nulls_and_full_precision() {
        let Rendered::Text(t) = render(&frame(), ReportFormat::Ndjson).unwrap() else { panic!() };
        assert_eq!(t, "{\"document\":\"a\",\"n\":2,\"text_r\":0.5}\n{\"document\":\"AVG\",\"n\":null,\"text_r\":null}\n");
    }
}
