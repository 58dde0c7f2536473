//! pdf-parse-bench truths: a JSON list, in page order, of `{type, data, complexity?}` items.
//! `--truth latex-tables` reads its `tables/` folder (types `table` and `text`, tables in
//! LaTeX `tabular` source, each parsed by [`super::latex_table`]); `--truth pdf-parse-bench`
//! reads either folder, `tables/` or `formulas/` (types `text`, `inline-formula`,
//! `display-formula`, formulas as LaTeX with their `$`/`$$` delimiters), and the suites tell
//! them apart by content: the table suite scores the tables a truth has, the formula suite its
//! formulas (`docs/formula-suite.md`).

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

/// The item types a pdf-parse-bench truth may hold.
pub const ITEM_TYPES: [&str; 4] = ["text", "table", "inline-formula", "display-formula"];

/// Whether a formula is inline (`$…$` in running text) or displayed (`$$…$$`, its own line).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FormulaKind {
    /// `inline-formula`.
    Inline,
    /// `display-formula`.
    Display,
}

impl FormulaKind {
    /// `inline` or `display`.
    pub fn name(self) -> &'static str {
        match self {
            FormulaKind::Inline => "inline",
            FormulaKind::Display => "display",
        }
    }
}

/// One ground-truth formula.
#[derive(Debug, Clone, PartialEq)]
pub struct GtFormula {
    /// Inline or display.
    pub kind: FormulaKind,
    /// The formula as the truth file writes it, delimiters included (`$$x^2$$`).
    pub source: String,
}

/// One item of a pdf-parse-bench truth, in page order.
#[derive(Debug, Clone, PartialEq)]
pub enum TruthItem {
    /// Running text.
    Text(String),
    /// A table (parsed, with its source and class).
    Table(GtTable),
    /// A formula.
    Formula(GtFormula),
}

/// Reads a `pdf-parse-bench` truth file: every item in order. Fails, naming the item, if the
/// file is not a list of `{type, data}` items, a type is not one of [`ITEM_TYPES`], or a table
/// does not parse.
pub(crate) fn read_items(bytes: &[u8]) -> Result<Vec<TruthItem>, FormatError> {
    let err = |msg: String| FormatError::new(Format::PdfParseBench, msg);
    let items: Vec<Item> = serde_json::from_slice(bytes)
        .map_err(|e| err(format!("not a list of {{type, data, complexity?}} items: {e}")))?;
    let mut out = Vec::with_capacity(items.len());
    for (i, it) in items.into_iter().enumerate() {
        out.push(match it.kind.as_str() {
            "text" => TruthItem::Text(it.data),
            "table" => {
                let table = parse_latex_table(&it.data)
                    .map_err(|e| err(format!("item {i}: table does not parse: {e}")))?;
                TruthItem::Table(GtTable {
                    table,
                    complexity: it.complexity,
                    source: Some(it.data),
                })
            }
            "inline-formula" | "display-formula" => {
                let kind = if it.kind == "inline-formula" {
                    FormulaKind::Inline
                } else {
                    FormulaKind::Display
                };
                TruthItem::Formula(GtFormula { kind, source: it.data })
            }
            other => {
                return Err(err(format!(
                    "item {i}: unknown type {other:?} (expected one of {})",
                    ITEM_TYPES.join(", ")
                )))
            }
        });
    }
    Ok(out)
}

/// The formulas of a `pdf-parse-bench` truth, in order.
pub(crate) fn read_formulas(bytes: &[u8]) -> Result<Vec<GtFormula>, FormatError> {
    Ok(read_items(bytes)?
        .into_iter()
        .filter_map(|i| match i {
            TruthItem::Formula(f) => Some(f),
            _ => None,
        })
        .collect())
}

/// The tables of a `pdf-parse-bench` truth, in order.
pub(crate) fn read_tables(bytes: &[u8]) -> Result<Vec<GtTable>, FormatError> {
    Ok(read_items(bytes)?
        .into_iter()
        .filter_map(|i| match i {
            TruthItem::Table(t) => Some(t),
            _ => None,
        })
        .collect())
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

/// A truth as Markdown, as a parser that got everything right would write it: running text
/// and inline formulas joined into paragraphs, each display formula and each table (as HTML)
/// a block of its own. The `truth` provider's Doc of a `pdf-parse-bench` truth.
pub(crate) fn to_markdown(items: &[TruthItem]) -> String {
    let mut blocks: Vec<String> = Vec::new();
    let mut para = String::new();
    let flush = |para: &mut String, blocks: &mut Vec<String>| {
        if !para.trim().is_empty() {
            blocks.push(std::mem::take(para));
        }
        para.clear();
    };
    for it in items {
        match it {
            TruthItem::Text(t) => {
                if !para.is_empty() {
                    para.push(' ');
                }
                para.push_str(t.trim());
            }
            TruthItem::Formula(f) if f.kind == FormulaKind::Inline => {
                if !para.is_empty() {
                    para.push(' ');
                }
                para.push_str(f.source.trim());
            }
            TruthItem::Formula(f) => {
                flush(&mut para, &mut blocks);
                blocks.push(f.source.trim().to_string());
            }
            TruthItem::Table(t) => {
                flush(&mut para, &mut blocks);
                blocks.push(t.table.to_html());
            }
        }
    }
    flush(&mut para, &mut blocks);
    let mut out = blocks.join("\n\n");
    out.push('\n');
    out
}

/// The document attribute `complexity`: the class every table shares, `mixed` when they
/// differ, none without classes.
pub(crate) fn complexity_attribute(tables: &[GtTable]) -> Option<String> {
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
