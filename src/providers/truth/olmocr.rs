//! The `truth` provider's rendering of an olmOCR-bench truth ([`olmocr_pages`]): per tested
//! page, Markdown that passes the page's tests, in the section order that fails fewest.

use std::collections::BTreeMap;

use super::{Rendered, Unrendered};
use crate::metrics::olmocr::default_baseline;
use crate::metrics::olmocr::Test;
use crate::providers::key::PageSelection;

/// A table test's cells as rows of (text, heading): the cell with each neighbour the test
/// names on its side, headings in the top row and the left column, empty cells between.
fn table_rows(t: &crate::metrics::olmocr::TableTest) -> Vec<Vec<String>> {
    let has = |s: &str| !s.is_empty();
    // Rows: top heading, up, cell, down; columns: left heading, left, cell, right.
    let row_c = usize::from(has(&t.top_heading)) + usize::from(has(&t.up));
    let col_c = usize::from(has(&t.left_heading)) + usize::from(has(&t.left));
    let rows = row_c + 1 + usize::from(has(&t.down));
    let cols = col_c + 1 + usize::from(has(&t.right));
    let mut grid = vec![vec![String::new(); cols]; rows];
    grid[row_c][col_c] = t.cell.clone();
    if has(&t.top_heading) {
        grid[0][col_c] = t.top_heading.clone();
    }
    if has(&t.up) {
        grid[row_c - 1][col_c] = t.up.clone();
    }
    if has(&t.down) {
        grid[row_c + 1][col_c] = t.down.clone();
    }
    if has(&t.left_heading) {
        grid[row_c][0] = t.left_heading.clone();
    }
    if has(&t.left) {
        grid[row_c][col_c - 1] = t.left.clone();
    }
    if has(&t.right) {
        grid[row_c][col_c + 1] = t.right.clone();
    }
    grid
}

/// A table test as a table: a Markdown pipe table (its top row and left column are headings),
/// or an HTML one (`th` there) where the test ignores Markdown tables or a cell holds a `|`.
fn table_markdown(t: &crate::metrics::olmocr::TableTest) -> String {
    let grid = table_rows(t);
    if !t.ignore_markdown_tables && grid.iter().flatten().all(|c| !c.contains('|')) {
        let line = |r: &[String]| format!("| {} |", r.join(" | "));
        let mut out = vec![line(&grid[0]), format!("|{}", " --- |".repeat(grid[0].len()))];
        out.extend(grid[1..].iter().map(|r| line(r)));
        return out.join("\n");
    }
    let esc = |s: &str| s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;");
    let mut out = String::from("<table>");
    for (r, row) in grid.iter().enumerate() {
        out.push_str("<tr>");
        for (c, cell) in row.iter().enumerate() {
            let tag = if r == 0 || c == 0 { "th" } else { "td" };
            out.push_str(&format!("<{tag}>{}</{tag}>", esc(cell)));
        }
        out.push_str("</tr>");
    }
    out.push_str("</table>");
    out
}

/// The Markdown sections of one page: texts in an order that keeps the `order` pairs,
/// formulas, tables.
fn page_sections(tests: &[&Test]) -> [Vec<String>; 3] {
    // Texts: nodes in first-seen order, `order` tests as edges; `first_n` texts first,
    // `last_n` ones last.
    let mut nodes: Vec<(String, i8)> = Vec::new();
    let mut edges: Vec<(usize, usize)> = Vec::new();
    let node = |s: String, rank: i8, nodes: &mut Vec<(String, i8)>| -> usize {
        match nodes.iter().position(|(n, _)| *n == s) {
            Some(i) => {
                if nodes[i].1 == 0 {
                    nodes[i].1 = rank;
                }
                i
            }
            None => {
                nodes.push((s, rank));
                nodes.len() - 1
            }
        }
    };
    let mut formulas = Vec::new();
    let mut tables = Vec::new();
    for t in tests {
        match t {
            Test::Present(p) => {
                let rank = if p.first_n.is_some_and(|n| n != 0) {
                    -1
                } else if p.last_n.is_some_and(|n| n != 0) {
                    1
                } else {
                    0
                };
                node(p.text.trim().to_string(), rank, &mut nodes);
            }
            Test::Order(o) => {
                let a = node(o.before.trim().to_string(), 0, &mut nodes);
                let b = node(o.after.trim().to_string(), 0, &mut nodes);
                edges.push((a, b));
            }
            Test::Format(f) => {
                let text = f.text.trim();
                let s = match f.format.as_str() {
                    "heading" => format!("# {text}"),
                    "bold" => format!("**{text}**"),
                    _ => format!("*{text}*"),
                };
                node(s, 0, &mut nodes);
            }
            Test::Footnote(f) => {
                let before = f.appears_before_marker.as_deref().unwrap_or("").trim();
                let after = f.appears_after_marker.as_deref().unwrap_or("").trim();
                let s = format!("{before}[^{}] {after}", f.marker);
                node(s.trim().to_string(), 0, &mut nodes);
            }
            Test::Math(m) => {
                let s = format!("\\[{}\\]", m.math);
                if !formulas.contains(&s) {
                    formulas.push(s);
                }
            }
            Test::Table(t) => tables.push(table_markdown(t)),
            Test::Absent(_) | Test::Baseline(_) => {}
        }
    }
    // Kahn's algorithm, the lowest (rank, first seen) ready node first; a cycle's nodes go
    // last in first-seen order (the tests that need the cycle fail and are reported).
    let n = nodes.len();
    let mut indeg = vec![0usize; n];
    for &(_, b) in &edges {
        indeg[b] += 1;
    }
    let mut done = vec![false; n];
    let mut texts = Vec::with_capacity(n);
    loop {
        let next = (0..n).filter(|&i| !done[i] && indeg[i] == 0).min_by_key(|&i| (nodes[i].1, i));
        let Some(i) = next.or_else(|| (0..n).find(|&i| !done[i])) else { break };
        done[i] = true;
        for &(a, b) in &edges {
            if a == i && !done[b] {
                indeg[b] = indeg[b].saturating_sub(1);
            }
        }
        texts.push(nodes[i].0.clone());
    }
    [texts, formulas, tables]
}

/// The section orders tried, texts first.
const SECTION_ORDERS: [[usize; 3]; 6] =
    [[0, 1, 2], [0, 2, 1], [1, 2, 0], [2, 1, 0], [1, 0, 2], [2, 0, 1]];

/// Renders an olmOCR-bench truth's tests (of the document named `name`): one Doc per tested
/// page, and the tests (the suite's added baseline included) that its Markdown does not pass.
pub(super) fn olmocr_pages(tests: &[Test], name: &str) -> Rendered {
    let mut all: Vec<Test> = tests.to_vec();
    if !all.iter().any(|t| matches!(t, Test::Baseline(_))) {
        all.push(default_baseline(&format!("{name}.pdf")));
    }
    let mut by_page: BTreeMap<i64, Vec<&Test>> = BTreeMap::new();
    for t in &all {
        by_page.entry(t.base().page).or_default().push(t);
    }
    let mut out = Rendered { pages: Vec::new(), unrendered: Vec::new() };
    for (page, tests) in by_page {
        let sections = page_sections(&tests);
        let mut best: Option<(String, Vec<(&Test, String)>)> = None;
        for order in SECTION_ORDERS {
            let parts: Vec<&String> = order.iter().flat_map(|&s| &sections[s]).collect();
            let mut md = parts.iter().map(|s| s.as_str()).collect::<Vec<_>>().join("\n\n");
            if !md.is_empty() {
                md.push('\n');
            }
            let failing: Vec<(&Test, String)> = tests
                .iter()
                .filter_map(|t| {
                    let (ok, why) = t.run(&md);
                    (!ok).then_some((*t, why))
                })
                .collect();
            if best.as_ref().is_none_or(|(_, f)| failing.len() < f.len()) {
                best = Some((md, failing));
            }
        }
        let Some((md, failing)) = best else { continue };
        for (t, mut why) in failing {
            if md.is_empty() {
                why = format!("the page's tests name no text to write ({why})");
            }
            let u = Unrendered { document: name.to_string(), id: t.base().id.clone(), why };
            out.unrendered.push((t.type_name().to_string(), u));
        }
        let index = u32::try_from(page - 1).unwrap_or(0);
        let mut doc = crate::formats::markdown::read_markdown(&md, index);
        doc.markdown = Some(md);
        let sel = PageSelection::Pages(vec![u32::try_from(page).unwrap_or(1)]);
        out.pages.push((sel, doc));
    }
    out
}
