//! pdf-parse-bench table truths (`--truth latex-tables`): a JSON list, in page order, of
//! `{type: table|text, data, complexity?}` items whose tables are LaTeX `tabular` source,
//! each parsed by [`super::latex_table`].

use serde::Deserialize;

use super::latex_table::parse_latex_table;
use super::{Format, FormatError};
use crate::doc::Table;

/// One ground-truth table.
#[derive(Debug, Clone, PartialEq)]
pub struct GtTable {
    /// Its cells.
    pub table: Table,
    /// pdf-parse-bench's class (`simple`, `moderate`, `complex`), if given.
    pub complexity: Option<String>,
    /// The table as the truth file writes it (LaTeX `tabular` source), if it has one.
    pub source: Option<String>,
}

#[derive(Deserialize)]
struct Item {
    #[serde(rename = "type")]
    kind: String,
    data: String,
    #[serde(default)]
    complexity: Option<String>,
}

/// Reads a `latex-tables` truth file: its tables in order, each parsed. Fails if the file is
/// not a list of `{type, data}` items or any table does not parse.
pub fn read_truth(bytes: &[u8]) -> Result<Vec<GtTable>, FormatError> {
    let err = |msg: String| FormatError::new(Format::LatexTables, msg);
    let items: Vec<Item> = serde_json::from_slice(bytes)
        .map_err(|e| err(format!("not a list of {{type, data, complexity?}} items: {e}")))?;
    let mut out = Vec::new();
    for (i, it) in items.iter().enumerate() {
        if it.kind != "table" {
            continue;
        }
        let table = parse_latex_table(&it.data)
            .map_err(|e| err(format!("table {} (item {i}) does not parse: {e}", out.len())))?;
        out.push(GtTable {
            table,
            complexity: it.complexity.clone(),
            source: Some(it.data.clone()),
        });
    }
    Ok(out)
}

/// The document attribute `complexity`: the class every table shares, `mixed` when they
/// differ, none without classes.
pub fn complexity_attribute(tables: &[GtTable]) -> Option<String> {
    let mut classes: Vec<&str> = tables.iter().filter_map(|t| t.complexity.as_deref()).collect();
    classes.sort_unstable();
    classes.dedup();
    match classes.as_slice() {
        [] => None,
        [one] => Some(one.to_string()),
        _ => Some("mixed".into()),
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// Two tables (simple, complex) around a text item (shared with the table suite's tests).
    pub(crate) const TRUTH: &str = r#"[
        {"type": "table", "data": "\\begin{tabular}{lc}\\hline A & B \\\\ \\hline x & 1.5 \\\\ y & 2 \\\\ \\end{tabular}", "complexity": "simple"},
        {"type": "text", "data": "Some prose."},
        {"type": "table", "data": "\\begin{tabular}{ll} p & q \\\\ r & s \\\\ \\end{tabular}", "complexity": "complex"}
    ]"#;

    #[test]
    fn truth_reads_tables_in_order_with_their_class() {
        let t = read_truth(TRUTH.as_bytes()).unwrap();
        assert_eq!(t.len(), 2);
        assert_eq!(
            t[0].table.cells.iter().map(|c| c.text.as_str()).collect::<Vec<_>>(),
            ["A", "B", "x", "1.5", "y", "2"]
        );
        assert_eq!(t[1].complexity.as_deref(), Some("complex"));
        assert_eq!(complexity_attribute(&t).as_deref(), Some("mixed"));
        assert_eq!(complexity_attribute(&t[..1]).as_deref(), Some("simple"));
        let bad = r#"[{"type": "table", "data": "\\begin{tabular}{l} a \\\\"}]"#;
        let e = read_truth(bad.as_bytes()).unwrap_err().to_string();
        assert!(e.contains("table 0 (item 0) does not parse"), "{e}");
        assert!(read_truth(b"{}").unwrap_err().to_string().contains("not a list"));
    }
}
