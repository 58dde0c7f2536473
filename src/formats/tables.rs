//! A table written as text in any of the three notations the table suite reads, into
//! [`Table`]s by the same readers the suite uses: HTML `<table>` ([`super::html`], as the
//! Markdown reader reads an HTML block), Markdown pipe tables ([`super::markdown`], as an
//! imported Markdown output is read) and LaTeX `tabular` ([`super::latex_table`], as a
//! `latex-tables` truth is read). `corpus score` and `corpus correlate --study` read their
//! pairs here, so a pair scores what the suite would score for it.
//!
//! Detection, when the notation is not given: a `\begin{tabular}` (or `tabular*`, `tabularx`,
//! `tabulary`, `longtable`, `array`) is LaTeX; else a `<table` is HTML; else Markdown.

use crate::doc::{BlockKind, Table};

listed_enum! {
    /// A table notation.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub enum TableFormat {
        /// HTML `<table>`, with `rowspan`/`colspan` and `th` header cells.
        Html,
        /// Markdown pipe tables (HTML tables inside Markdown are read too).
        Markdown,
        /// LaTeX `tabular` and its siblings, `\multicolumn`/`\multirow` spans.
        Latex,
    }
}

impl TableFormat {
    /// Its name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            TableFormat::Html => "html",
            TableFormat::Markdown => "markdown",
            TableFormat::Latex => "latex",
        }
    }

    /// The notation named `s`.
    pub fn parse(s: &str) -> Result<TableFormat, String> {
        TableFormat::ALL
            .into_iter()
            .find(|f| f.name() == s)
            .ok_or_else(|| format!("unknown table format {s:?}; known: html, markdown, latex"))
    }

    /// The notation of `text` (see the module doc).
    pub fn detect(text: &str) -> TableFormat {
        const ENVS: [&str; 6] =
            ["tabular}", "tabular*}", "tabularx}", "tabulary}", "longtable}", "array}"];
        if ENVS.iter().any(|e| text.contains(&format!("\\begin{{{e}"))) {
            TableFormat::Latex
        } else if text.to_ascii_lowercase().contains("<table") {
            TableFormat::Html
        } else {
            TableFormat::Markdown
        }
    }
}

/// Every table of `text` in the notation `format` (detected when `None`), in order; an error
/// says what is not there. LaTeX gives the first tabular-like environment.
pub(crate) fn read_tables(text: &str, format: Option<TableFormat>) -> Result<Vec<Table>, String> {
    let format = format.unwrap_or_else(|| TableFormat::detect(text));
    let tables: Vec<Table> = match format {
        TableFormat::Html => super::html::tables(text),
        TableFormat::Markdown => super::markdown::read_markdown(text, 0)
            .blocks
            .into_iter()
            .filter(|b| b.kind == BlockKind::Table)
            .filter_map(|b| b.table)
            .collect(),
        TableFormat::Latex => {
            vec![super::latex_table::parse_latex_table(text).map_err(|e| format!("LaTeX: {e}"))?]
        }
    };
    let tables: Vec<Table> = tables.into_iter().filter(|t| !t.cells.is_empty()).collect();
    if tables.is_empty() {
        return Err(match format {
            TableFormat::Html => "no <table> element with cells".into(),
            TableFormat::Markdown => "no Markdown table with cells".into(),
            TableFormat::Latex => "no tabular with cells".into(),
        });
    }
    Ok(tables)
}

/// The one table of `text`: the first where there are several.
pub fn read_table(text: &str, format: Option<TableFormat>) -> Result<Table, String> {
    Ok(read_tables(text, format)?.swap_remove(0))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_notation_is_detected_and_read_into_the_same_table() {
        let md = "| a | b |\n|---|---|\n| 1 | 2 |\n";
        let html = "<table><tr><th>a</th><th>b</th></tr><tr><td>1</td><td>2</td></tr></table>";
        let tex = "\\begin{tabular}{cc}\\hline a & b \\\\ \\hline 1 & 2 \\\\ \\end{tabular}";
        assert_eq!(TableFormat::detect(md), TableFormat::Markdown);
        assert_eq!(TableFormat::detect(html), TableFormat::Html);
        assert_eq!(TableFormat::detect(tex), TableFormat::Latex);
        let text = |t: &Table| {
            let mut c: Vec<(u32, u32, String)> =
                t.cells.iter().map(|c| (c.row, c.col, c.text.clone())).collect();
            c.sort();
            c
        };
        let want = vec![
            (0, 0, "a".to_string()),
            (0, 1, "b".to_string()),
            (1, 0, "1".to_string()),
            (1, 1, "2".to_string()),
        ];
        for src in [md, html, tex] {
            let t = read_table(src, None).unwrap();
            assert_eq!((t.rows, t.cols), (2, 2), "{src}");
            assert_eq!(text(&t), want, "{src}");
        }
    }

    #[test]
    fn a_side_without_a_table_is_an_error_that_says_so() {
        assert!(read_table("just prose", None).unwrap_err().contains("no Markdown table"));
        assert!(read_table("<p>x</p>", Some(TableFormat::Html)).unwrap_err().contains("<table>"));
        assert!(read_table("\\begin{tabular}{c", None).unwrap_err().starts_with("LaTeX"));
        assert_eq!(TableFormat::parse("latex"), Ok(TableFormat::Latex));
        assert!(TableFormat::parse("csv").is_err());
    }
}
