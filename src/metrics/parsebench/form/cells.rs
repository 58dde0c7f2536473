//! The label/value pairs of the Markdown's tables: two-column rows, column headers over data
//! rows, `label<br>value` cells, the value-shaped neighbours of wide HTML tables' cells, and
//! `Column (row N)` lookups.

use std::collections::HashMap;
use std::sync::LazyLock;

use regex::Regex;
use scraper::{ElementRef, Html, Node};

use super::super::normalize::{is_decimal, py_strip};
use super::super::tables::{html_tables_full, markdown_tables, Grid, HtmlTable};
use super::{clen, label_matches, py_re, strip_chars};

static ROW_LABEL: LazyLock<Regex> = LazyLock::new(|| py_re(r"(?i)\s*\(row\s+(\d+)\)\s*$"));

/// A table as the form rules read it: its grid, the row after its header rows (`None`: no
/// header rows recorded) and its column headers.
struct Table {
    grid: Grid,
    header_end: Option<usize>,
    col_headers: HashMap<usize, Vec<String>>,
}

impl Table {
    fn rows(&self) -> usize {
        self.grid.len()
    }

    fn cols(&self) -> usize {
        self.grid.first().map_or(0, Vec::len)
    }

    fn cell(&self, r: usize, c: usize) -> &str {
        py_strip(&self.grid[r][c])
    }

    /// `_column_header_for_index`: the distinct header texts over the column, else row 0's.
    fn column_header(&self, c: usize) -> String {
        let mut parts: Vec<&str> = Vec::new();
        for t in self.col_headers.get(&c).into_iter().flatten() {
            let t = py_strip(t);
            if !t.is_empty() && !parts.contains(&t) {
                parts.push(t);
            }
        }
        if !parts.is_empty() {
            return parts.join(" ");
        }
        if self.rows() > 0 && self.cols() > 0 && c < self.cols() {
            return self.cell(0, c).to_string();
        }
        String::new()
    }
}

fn md_tables(md: &str) -> Vec<Table> {
    markdown_tables(md)
        .into_iter()
        .map(|grid| {
            let col_headers =
                grid.first().map(|r| r.iter().cloned().map(|t| vec![t]).enumerate().collect());
            Table { grid, header_end: Some(1), col_headers: col_headers.unwrap_or_default() }
        })
        .collect()
}

fn html_tables(md: &str) -> Vec<Table> {
    html_tables_full(md)
        .into_iter()
        .map(|t: HtmlTable| Table {
            header_end: t.header_rows.iter().next_back().map(|r| r + 1),
            col_headers: t.col_headers.into_iter().collect(),
            grid: t.grid,
        })
        .collect()
}

/// `_multi_col_header_data_pairs`: (column header, cell) for every data row of a table of more
/// than two columns.
fn header_data_pairs(t: &Table) -> Vec<(String, String)> {
    let mut out = Vec::new();
    if t.cols() <= 2 || t.rows() == 0 {
        return out;
    }
    let n_header = t.header_end.unwrap_or(1);
    for c in 0..t.cols() {
        let h = t.column_header(c);
        if h.is_empty() {
            continue;
        }
        for r in n_header..t.rows() {
            out.push((h.clone(), t.cell(r, c).to_string()));
        }
    }
    out
}

fn kv_rows(tables: &[Table], out: &mut Vec<(String, String)>) {
    for t in tables {
        if t.cols() == 2 {
            for r in 0..t.rows() {
                out.push((t.cell(r, 0).to_string(), t.cell(r, 1).to_string()));
            }
        } else if t.cols() > 2 {
            out.extend(header_data_pairs(t));
        }
    }
}

/// `_iter_md_table_kv_rows`.
pub(super) fn md_table_kv_rows(md: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    kv_rows(&md_tables(md), &mut out);
    out
}

/// A cell's text with `<br>` as a newline.
fn text_with_breaks(e: ElementRef<'_>) -> String {
    let mut out = String::new();
    for n in e.descendants() {
        match n.value() {
            Node::Text(t) => out.push_str(t),
            Node::Element(el) if el.name() == "br" => out.push('\n'),
            _ => {}
        }
    }
    out
}

/// `_iter_html_cell_kv_pairs`: (first line, rest) of every table cell holding a `<br>`; a cell
/// of a nested table counts once for each table holding it.
fn html_cell_kv_pairs(md: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let doc = Html::parse_document(md);
    let tables = doc
        .root_element()
        .descendants()
        .filter_map(ElementRef::wrap)
        .filter(|e| e.value().name() == "table");
    for table in tables {
        let cells = table
            .descendants()
            .skip(1)
            .filter_map(ElementRef::wrap)
            .filter(|e| matches!(e.value().name(), "td" | "th"));
        for cell in cells {
            let text = text_with_breaks(cell);
            let text = py_strip(&text);
            let Some((l, v)) = text.split_once('\n') else { continue };
            let l = strip_chars(py_strip(l), "*_ \t");
            let v = strip_chars(py_strip(v), "*_ \t");
            if !l.is_empty() {
                out.push((l.to_string(), v.to_string()));
            }
        }
    }
    out
}

/// `_iter_html_table_kv_rows`: the `label<br>value` cells, then the HTML tables' rows.
pub(super) fn html_table_kv_rows(md: &str) -> Vec<(String, String)> {
    if !md.to_lowercase().contains("<table") {
        return Vec::new();
    }
    let mut out = html_cell_kv_pairs(md);
    kv_rows(&html_tables(md), &mut out);
    out
}

/// `_cell_text_is_label_like`.
fn label_like(text: &str) -> bool {
    let s = py_strip(text);
    if s.is_empty() {
        return false;
    }
    if s.ends_with(':') {
        return true;
    }
    if clen(s) > 30 || s.chars().any(|c| is_decimal(c) || "#@/_,()$%".contains(c)) {
        return false;
    }
    s == s.to_uppercase() && s.chars().any(|c| c.is_ascii_uppercase())
}

/// `_build_cell_text_counts`: text -> cells holding it, a span's repeats counted once.
fn text_counts(g: &Grid) -> HashMap<String, usize> {
    let mut counts = HashMap::new();
    for r in 0..g.len() {
        for c in 0..g[r].len() {
            let t = py_strip(&g[r][c]);
            if t.is_empty()
                || (c > 0 && py_strip(&g[r][c - 1]) == t)
                || (r > 0 && py_strip(&g[r - 1][c]) == t)
            {
                continue;
            }
            *counts.entry(t.to_string()).or_default() += 1;
        }
    }
    counts
}

/// A neighbour fit to be a value: two or more characters, not a lone box glyph, not
/// label-like, not short text that repeats in the table.
fn value_neighbour(n: Option<&str>, counts: &HashMap<String, usize>) -> bool {
    let Some(n) = n.filter(|n| !n.is_empty()) else { return false };
    let s = py_strip(n);
    if clen(s) < 2 || (clen(s) <= 2 && super::pairs::MARKER_GLYPH.is_match(s)) {
        return false;
    }
    let repeated = clen(n) <= 30 && counts.get(n).copied().unwrap_or(0) >= 2;
    !(label_like(n) || repeated)
}

/// `_iter_html_cell_neighbor_pairs`: every cell of the wide HTML tables with its first
/// value-shaped neighbour to the right, else below, else "".
pub(super) fn html_cell_neighbor_pairs(md: &str) -> Vec<(String, String)> {
    if !md.to_lowercase().contains("<table") {
        return Vec::new();
    }
    let mut out = Vec::new();
    for t in html_tables(md) {
        let (rows, cols) = (t.rows(), t.cols());
        if cols <= 2 || rows == 0 {
            continue;
        }
        let counts = text_counts(&t.grid);
        for r in 0..rows {
            for c in 0..cols {
                let cell = t.cell(r, c);
                if cell.is_empty() {
                    continue;
                }
                let right =
                    (c + 1..cols).map(|cc| t.cell(r, cc)).find(|n| !n.is_empty() && *n != cell);
                let below =
                    (r + 1..rows).map(|rr| t.cell(rr, c)).find(|n| !n.is_empty() && *n != cell);
                let value = if value_neighbour(right, &counts) {
                    right.unwrap_or("")
                } else if value_neighbour(below, &counts) {
                    below.unwrap_or("")
                } else {
                    ""
                };
                out.push((cell.to_string(), value.to_string()));
            }
        }
    }
    out
}

/// Python's `int()` reads `s` (whitespace, which for `int()` is not U+001C..U+001F, a sign,
/// ASCII digits with single `_` between them; other Unicode digits are not read here).
fn py_int_reads(s: &str) -> bool {
    let t = s.trim();
    let t = t.strip_prefix(['+', '-']).unwrap_or(t);
    !t.is_empty()
        && !t.starts_with('_')
        && !t.ends_with('_')
        && !t.contains("__")
        && t.chars().all(|c| c.is_ascii_digit() || c == '_')
}

/// The error `parse_html_tables` raises: a cell of a top-level table whose `rowspan` or
/// `colspan` Python's `int()` cannot read.
pub(super) fn span_error(md: &str) -> Option<String> {
    if !md.to_lowercase().contains("<table") {
        return None;
    }
    let doc = Html::parse_document(md);
    for e in doc.root_element().descendants().filter_map(ElementRef::wrap) {
        if !matches!(e.value().name(), "td" | "th") {
            continue;
        }
        let tables = e
            .ancestors()
            .filter_map(ElementRef::wrap)
            .filter(|a| a.value().name() == "table")
            .count();
        if tables != 1 {
            continue;
        }
        for attr in ["rowspan", "colspan"] {
            if let Some(v) = e.value().attr(attr).filter(|v| !py_int_reads(v)) {
                return Some(format!(
                    "invalid literal for int() with base 10: {}",
                    super::py_repr(v)
                ));
            }
        }
    }
    None
}

/// `_split_row_label`: (column label, N) of a `Column (row N)` label.
pub(super) fn split_row_label(label: &str) -> Option<(String, i64)> {
    let m = ROW_LABEL.captures(label)?;
    let col = py_strip(&label[..m.get(0)?.start()]);
    if col.is_empty() {
        return None;
    }
    let mut n: i64 = 0;
    for ch in m[1].chars() {
        // Python's int() reads any decimal digit; digits other than ASCII are not read here.
        n = n.saturating_mul(10).saturating_add(i64::from(ch.to_digit(10)? as u8));
    }
    Some((col.to_string(), n))
}

/// `_find_table_cell_for_row_label`: the cell of row N under the column the label names.
pub(super) fn table_cell_for_row_label(md: &str, label: &str) -> Option<String> {
    let (col_label, n) = split_row_label(label)?;
    let mut seen = false;
    let tables = html_tables(md)
        .into_iter()
        .map(|t| (t, 0))
        .chain(md_tables(md).into_iter().map(|t| (t, 1)));
    for (t, default_header) in tables {
        if t.rows() == 0 || t.cols() == 0 {
            continue;
        }
        let n_header = t.header_end.unwrap_or(default_header) as i64;
        let row = n_header.saturating_add(n).saturating_sub(1);
        for c in 0..t.cols() {
            let h = t.column_header(c);
            if h.is_empty() || !label_matches(&h, &col_label) {
                continue;
            }
            seen = true;
            if (0..t.rows() as i64).contains(&row) {
                let v = t.cell(row as usize, c);
                if !v.is_empty() {
                    return Some(v.to_string());
                }
            }
        }
    }
    seen.then(String::new)
}
