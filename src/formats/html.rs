//! HTML tables into [`Table`] cells, with `rowspan`/`colspan`, by a real HTML parser
//! (html5ever through `scraper`).
//!
//! A cell is placed in the first grid column of its row not already covered by a cell
//! spanning down from an earlier row (the HTML table model). A cell is a header when it is a
//! `th` or sits in `thead`. Its text is its text content with white space collapsed; `<br>`
//! counts as a space.

use scraper::{ElementRef, Html, Node, Selector};

use crate::doc::{Cell, Table};
use crate::normalize::collapse_ws;

/// Returns every top-level table in an HTML fragment, in document order (tables nested in a
/// cell are part of that cell's text).
pub fn tables(html: &str) -> Vec<Table> {
    let frag = Html::parse_fragment(html);
    let Ok(sel) = Selector::parse("table") else { return Vec::new() };
    frag.select(&sel)
        .filter(|t| {
            !t.ancestors().filter_map(ElementRef::wrap).any(|a| a.value().name() == "table")
        })
        .map(table)
        .collect()
}

/// Returns the text of an HTML fragment without its markup and comments.
pub fn text(html: &str) -> String {
    let frag = Html::parse_fragment(html);
    let mut out = String::new();
    text_into(frag.root_element(), &mut out);
    collapse_ws(&out)
}

fn text_into(el: ElementRef<'_>, out: &mut String) {
    for child in el.children() {
        match child.value() {
            Node::Text(t) => out.push_str(t),
            Node::Element(e) => {
                let name = e.name();
                if matches!(name, "script" | "style" | "img") {
                    continue;
                }
                if name == "br" {
                    out.push(' ');
                    continue;
                }
                if let Some(c) = ElementRef::wrap(child) {
                    let block = matches!(
                        name,
                        "p" | "div" | "td" | "th" | "tr" | "li" | "table" | "h1" | "h2" | "h3"
                    );
                    if block {
                        out.push(' ');
                    }
                    text_into(c, out);
                    if block {
                        out.push(' ');
                    }
                }
            }
            _ => {}
        }
    }
}

/// The rows of a table: `tr` elements whose nearest enclosing table is `t`.
fn rows(t: ElementRef<'_>) -> Vec<(ElementRef<'_>, bool)> {
    let mut out = Vec::new();
    for child in t.children().filter_map(ElementRef::wrap) {
        match child.value().name() {
            "tr" => out.push((child, false)),
            "thead" | "tbody" | "tfoot" => {
                let head = child.value().name() == "thead";
                for tr in child.children().filter_map(ElementRef::wrap) {
                    if tr.value().name() == "tr" {
                        out.push((tr, head));
                    }
                }
            }
            _ => {}
        }
    }
    out
}

fn span(el: ElementRef<'_>, attr: &str) -> u32 {
    el.value()
        .attr(attr)
        .and_then(|v| v.trim().trim_matches('"').parse::<u32>().ok())
        .filter(|&n| n >= 1)
        .map_or(1, |n| n.min(1000))
}

fn table(t: ElementRef<'_>) -> Table {
    let mut cells = Vec::new();
    // covered[c] = number of further rows column c stays covered by a rowspan from above.
    let mut covered: Vec<u32> = Vec::new();
    let mut n_rows = 0u32;
    let mut n_cols = 0u32;
    for (r, (tr, in_head)) in rows(t).into_iter().enumerate() {
        let r = r as u32;
        let mut col = 0usize;
        for td in tr.children().filter_map(ElementRef::wrap) {
            let name = td.value().name();
            if name != "td" && name != "th" {
                continue;
            }
            while covered.get(col).is_some_and(|&c| c > 0) {
                col += 1;
            }
            let (rs, cs) = (span(td, "rowspan"), span(td, "colspan"));
            if covered.len() < col + cs as usize {
                covered.resize(col + cs as usize, 0);
            }
            for c in &mut covered[col..col + cs as usize] {
                *c = rs;
            }
            let mut s = String::new();
            text_into(td, &mut s);
            cells.push(Cell {
                row: r,
                col: col as u32,
                row_span: rs,
                col_span: cs,
                text: collapse_ws(&s),
                header: name == "th" || in_head,
            });
            n_rows = n_rows.max(r + rs);
            col += cs as usize;
            n_cols = n_cols.max(col as u32);
        }
        for c in &mut covered {
            *c = c.saturating_sub(1);
        }
        n_rows = n_rows.max(r + 1);
    }
    Table { rows: n_rows, cols: n_cols, cells }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cell(t: &Table, row: u32, col: u32) -> &Cell {
        t.cells.iter().find(|c| c.row == row && c.col == col).unwrap()
    }

    #[test]
    fn spans_push_later_cells_right() {
        let t = &tables(
            "<table><thead><tr><th rowspan=2>a</th><th colspan=2>b</th></tr>\
             <tr><th>c</th><th>d</th></tr></thead>\
             <tr><td>1</td><td>2<br>x</td><td>3</td></tr></table>",
        )[0];
        assert_eq!((t.rows, t.cols), (3, 3));
        assert_eq!((cell(t, 0, 0).row_span, cell(t, 0, 1).col_span), (2, 2));
        assert_eq!(cell(t, 1, 1).text, "c");
        assert_eq!(cell(t, 1, 2).text, "d");
        assert!(cell(t, 1, 2).header);
        assert_eq!(cell(t, 2, 1).text, "2 x");
        assert!(!cell(t, 2, 1).header);
    }

    #[test]
    fn nested_tables_stay_inside_their_cell_and_text_drops_comments() {
        let ts = tables("<table><tr><td>out <table><tr><td>in</td></tr></table></td></tr></table>");
        assert_eq!(ts.len(), 1);
        assert_eq!(ts[0].cells.len(), 1);
        assert_eq!(ts[0].cells[0].text, "out in");
        assert_eq!(text("<p>a <!-- note --> b</p><img src=x>"), "a b");
    }

    #[test]
    fn bad_spans_count_as_one() {
        let t = &tables("<table><tr><td colspan=0>a</td><td rowspan=x>b</td></tr></table>")[0];
        assert_eq!((t.rows, t.cols), (1, 2));
    }
}
