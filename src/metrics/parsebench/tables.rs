//! The tables of a Markdown output as ParseBench reads them
//! (`evaluation/metrics/parse/table_parsing.py`: `parse_markdown_tables`, `parse_html_tables`),
//! as far as the rules implemented here need them: each table's grid of cell texts, spanning
//! cells repeated over every slot they cover.
//!
//! - **Pipe tables**: runs of at least two lines holding `|`; the first line made only of
//!   `-`, ` `, `:` (pipes aside) is the separator and dropped, as is any line made only of
//!   `- :|`; cells are the `|`-split pieces, stripped, without the empty first and last piece.
//!   Rows are padded with empty cells to the widest row.
//! - **HTML tables**: top-level `<table>` elements, parsed with html5ever (`scraper`) where
//!   ParseBench uses BeautifulSoup with lxml (the two agree on well-formed tables); a nested
//!   table counts as its text. A cell's text is all its text with `<br>` as a space and the
//!   digits of `<sup>`/`<sub>` as Unicode super/subscript digits; `rowspan`/`colspan` fill the
//!   grid (a value that is not a number counts as 1, where ParseBench's rule raises).

use scraper::{ElementRef, Html, Node};

/// One table: rows of cell texts.
pub type Grid = Vec<Vec<String>>;

fn process_lines(lines: &[&str]) -> Grid {
    let sep = lines.iter().position(|l| {
        let c = l.replace('|', "");
        let c = super::normalize::py_strip(&c);
        !c.is_empty() && c.chars().all(|ch| "- :".contains(ch))
    });
    let mut out = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        if Some(i) == sep {
            continue;
        }
        if !super::normalize::py_strip(line).is_empty() && line.chars().all(|c| "- :|".contains(c))
        {
            continue;
        }
        let mut cells: Vec<String> =
            line.split('|').map(|c| super::normalize::py_strip(c).to_string()).collect();
        if cells.first().is_some_and(|c| c.is_empty()) {
            cells.remove(0);
        }
        if cells.last().is_some_and(|c| c.is_empty()) {
            cells.pop();
        }
        if !cells.is_empty() {
            out.push(cells);
        }
    }
    out
}

/// `parse_markdown_tables`: the pipe tables, in order.
pub fn markdown_tables(md: &str) -> Vec<Grid> {
    markdown_tables_in_context(md).into_iter().map(|t| t.0).collect()
}

/// The pipe tables with the up to 5 lines before each (`context_before`).
pub fn markdown_tables_in_context(md: &str) -> Vec<(Grid, String)> {
    let lines: Vec<&str> = super::normalize::py_strip(md).split('\n').collect();
    let mut out = Vec::new();
    let mut current: Vec<&str> = Vec::new();
    let mut start = 0;
    let flush = |current: &mut Vec<&str>, out: &mut Vec<(Grid, String)>, start: usize| {
        if current.len() >= 2 {
            let mut t = process_lines(current);
            if !t.is_empty() {
                let w = t.iter().map(Vec::len).max().unwrap_or(0);
                for r in &mut t {
                    r.resize(w, String::new());
                }
                out.push((t, lines[start.saturating_sub(5)..start].join("\n")));
            }
        }
        current.clear();
    };
    for (i, line) in lines.iter().enumerate() {
        if line.contains('|') {
            if current.is_empty() {
                start = i;
            }
            current.push(line);
        } else if !current.is_empty() {
            flush(&mut current, &mut out, start);
        }
    }
    flush(&mut current, &mut out, start);
    out
}

/// The Unicode digits a `<sup>` digit becomes.
pub(super) const SUPERSCRIPTS: [char; 10] = ['⁰', '¹', '²', '³', '⁴', '⁵', '⁶', '⁷', '⁸', '⁹'];
/// The Unicode digits a `<sub>` digit becomes.
pub(super) const SUBSCRIPTS: [char; 10] = ['₀', '₁', '₂', '₃', '₄', '₅', '₆', '₇', '₈', '₉'];

/// Appends `t`, its ASCII digits mapped to `map`'s when given (inside `<sup>`/`<sub>`).
pub(super) fn push_digits(t: &str, map: Option<&[char; 10]>, out: &mut String) {
    match map {
        Some(m) => out.extend(t.chars().map(|c| c.to_digit(10).map_or(c, |d| m[d as usize]))),
        None => out.push_str(t),
    }
}

/// A cell's text: `<br>` as a space, `<sup>`/`<sub>` digits as Unicode ones, a nested table as
/// its stripped strings joined by spaces.
pub(super) fn cell_text(e: ElementRef<'_>, map: Option<&[char; 10]>, out: &mut String) {
    for child in e.children() {
        match child.value() {
            Node::Text(t) => push_digits(t, map, out),
            Node::Element(el) => {
                let Some(ce) = ElementRef::wrap(child) else { continue };
                match el.name() {
                    "br" => out.push(' '),
                    "sup" => cell_text(ce, Some(&SUPERSCRIPTS), out),
                    "sub" => cell_text(ce, Some(&SUBSCRIPTS), out),
                    "table" => {
                        let parts: Vec<&str> = ce
                            .text()
                            .map(super::normalize::py_strip)
                            .filter(|s| !s.is_empty())
                            .collect();
                        out.push_str(&parts.join(" "));
                    }
                    _ => cell_text(ce, map, out),
                }
            }
            _ => {}
        }
    }
}

/// The `tr` elements of a table, not those of tables nested in it.
pub(super) fn rows_of<'a>(table: ElementRef<'a>, out: &mut Vec<ElementRef<'a>>) {
    for child in table.children().filter_map(ElementRef::wrap) {
        match child.value().name() {
            "table" => {}
            "tr" => out.push(child),
            _ => rows_of(child, out),
        }
    }
}

/// The table's first `thead`, not one of a table nested in it.
fn first_thead(table: ElementRef<'_>) -> Option<ElementRef<'_>> {
    for child in table.children().filter_map(ElementRef::wrap) {
        match child.value().name() {
            "table" => {}
            "thead" => return Some(child),
            _ => {
                if let Some(t) = first_thead(child) {
                    return Some(t);
                }
            }
        }
    }
    None
}

pub(super) fn span(e: ElementRef<'_>, attr: &str) -> usize {
    e.value().attr(attr).and_then(|v| v.trim().parse::<usize>().ok()).unwrap_or(1)
}

/// An HTML table as `parse_html_tables` gives it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct HtmlTable {
    /// Rows of cell texts, spanning cells repeated.
    pub grid: Grid,
    /// Column -> texts of the `<th>` cells over it, in order.
    pub col_headers: std::collections::BTreeMap<usize, Vec<String>>,
    /// Row -> texts of the `<th>` cells across it, in order.
    pub row_headers: std::collections::BTreeMap<usize, Vec<String>>,
    /// The rows holding a `<th>` cell or in the table's first `<thead>`.
    pub header_rows: std::collections::BTreeSet<usize>,
    /// The text of up to 3 preceding siblings (the last 300 characters), after the caption.
    pub context_before: String,
}

/// `parse_html_tables`: the top-level HTML tables, in order.
pub fn html_tables(md: &str) -> Vec<Grid> {
    html_tables_full(md).into_iter().map(|t| t.grid).collect()
}

/// BeautifulSoup's `get_text(strip=True)`: the stripped strings, concatenated.
fn stripped_text(e: ElementRef<'_>) -> String {
    e.text().map(super::normalize::py_strip).collect()
}

/// [`html_tables`] with each table's headers and preceding context.
pub fn html_tables_full(md: &str) -> Vec<HtmlTable> {
    if !md.to_lowercase().contains("<table") {
        return Vec::new();
    }
    let html = Html::parse_document(md);
    let mut tables = Vec::new();
    let mut stack: Vec<ElementRef<'_>> = vec![html.root_element()];
    // Depth-first in document order, not descending into tables.
    let mut order: Vec<ElementRef<'_>> = Vec::new();
    while let Some(e) = stack.pop() {
        if e.value().name() == "table" {
            order.push(e);
            continue;
        }
        let kids: Vec<ElementRef<'_>> = e.children().filter_map(ElementRef::wrap).collect();
        stack.extend(kids.into_iter().rev());
    }
    for table in order {
        let mut rows = Vec::new();
        rows_of(table, &mut rows);
        let mut out = HtmlTable::default();
        let mut grid: std::collections::HashMap<(usize, usize), String> = Default::default();
        for (r, row) in rows.iter().enumerate() {
            let mut c = 0;
            for cell in row
                .children()
                .filter_map(ElementRef::wrap)
                .filter(|e| matches!(e.value().name(), "td" | "th"))
            {
                while grid.contains_key(&(r, c)) {
                    c += 1;
                }
                let mut text = String::new();
                cell_text(cell, None, &mut text);
                let text = super::normalize::py_strip(&text).to_string();
                let (rs, cs) = (span(cell, "rowspan"), span(cell, "colspan"));
                for rr in r..r + rs {
                    for cc in c..c + cs {
                        grid.insert((rr, cc), text.clone());
                    }
                }
                if cell.value().name() == "th" {
                    out.header_rows.insert(r);
                    for cc in c..c + cs {
                        out.col_headers.entry(cc).or_default().push(text.clone());
                    }
                    for rr in r..r + rs {
                        out.row_headers.entry(rr).or_default().push(text.clone());
                    }
                }
                c += cs;
            }
        }
        if let Some(thead) = first_thead(table) {
            for (r, row) in rows.iter().enumerate() {
                if row.ancestors().any(|a| a.id() == thead.id()) {
                    out.header_rows.insert(r);
                }
            }
        }
        let nr = grid.keys().map(|k| k.0 + 1).max().unwrap_or(0);
        let nc = grid.keys().map(|k| k.1 + 1).max().unwrap_or(0);
        let mut t: Grid = vec![vec![String::new(); nc]; nr];
        for ((r, c), text) in grid {
            t[r][c] = text;
        }
        out.grid = t;
        let mut parts: Vec<String> = Vec::new();
        let mut prev = table.prev_sibling();
        for _ in 0..3 {
            let Some(p) = prev else { break };
            let text = match p.value() {
                Node::Element(el) if el.name() == "table" => break,
                Node::Element(_) => ElementRef::wrap(p).map(stripped_text).unwrap_or_default(),
                Node::Text(t) => super::normalize::py_strip(t).to_string(),
                _ => String::new(),
            };
            if !text.is_empty() {
                parts.insert(0, text);
            }
            prev = p.prev_sibling();
        }
        let full = parts.join(" ");
        let n = full.chars().count();
        let mut ctx: String = if n > 300 { full.chars().skip(n - 300).collect() } else { full };
        let caption = table
            .children()
            .filter_map(ElementRef::wrap)
            .find(|e| e.value().name() == "caption")
            .map(stripped_text)
            .unwrap_or_default();
        if !caption.is_empty() {
            let markup = format!("<caption>{caption}</caption>");
            ctx = if ctx.is_empty() { markup } else { format!("{markup} {ctx}") };
        }
        out.context_before = ctx;
        tables.push(out);
    }
    tables
}

/// `_extract_table_cell_texts`: every non-empty cell's text, and for each row of more than one
/// such cell the row's texts joined by spaces; pipe tables first, then HTML tables.
pub fn cell_texts(md: &str) -> Vec<String> {
    let mut out = Vec::new();
    for t in markdown_tables(md).into_iter().chain(html_tables(md)) {
        for row in t {
            let parts: Vec<String> = row
                .iter()
                .map(|c| super::normalize::py_strip(c).to_string())
                .filter(|c| !c.is_empty())
                .collect();
            out.extend(parts.iter().cloned());
            if parts.len() > 1 {
                out.push(parts.join(" "));
            }
        }
    }
    out
}

/// `_augment_with_table_cell_text`: the Markdown, then a newline and the cell texts one per
/// line, where there are any.
pub fn augment_with_cells(md: &str) -> String {
    let cells = cell_texts(md);
    if cells.is_empty() {
        return md.to_string();
    }
    format!("{md}\n{}", cells.join("\n"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pipe_tables_lose_their_separator_and_outer_pipes() {
        let md = "Intro\n| a | b |\n|---|:-:|\n| 1 | 2 |\n| 3 |\ntext";
        assert_eq!(markdown_tables(md), vec![vec![vec!["a", "b"], vec!["1", "2"], vec!["3", ""]]]);
        assert_eq!(cell_texts(md), ["a", "b", "a b", "1", "2", "1 2", "3"]);
    }

    #[test]
    fn html_tables_repeat_spanning_cells_and_map_sup_digits() {
        let md = "<table><tr><th colspan=\"2\">Head</th></tr>\
                  <tr><td>x<sup>1</sup></td><td>a<br>b</td></tr></table>";
        assert_eq!(html_tables(md), vec![vec![vec!["Head", "Head"], vec!["x¹", "a b"]]]);
        assert_eq!(cell_texts(md), ["Head", "Head", "Head Head", "x¹", "a b", "x¹ a b"]);
    }
}
