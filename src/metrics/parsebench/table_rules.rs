//! Table structure rules (ParseBench's `rules_table.py`: `TableColspanRule`,
//! `TableRowspanRule`, `TableSameRowRule`, `TableSameColumnRule`, the `TableAdjacent*`,
//! `TableTopHeaderRule`, `TableLeftHeaderRule` and `TableNo*` rules) on the output's HTML
//! tables resolved to grids as `table_parsing.py`'s `resolve_html_table_grid` does.
//!
//! - **Grids.** Every `<table>` (nested ones too, each on its own), its rows every `<tr>` under
//!   it, a row's cells every `<td>`/`<th>` under it, in document order; the grid is as wide as
//!   the widest row's colspans; a cell fills the free slots from the next free column over its
//!   `rowspan` × `colspan` (clipped to the grid); its text is its text (`<br>` a newline,
//!   `<sup>`/`<sub>` digits as Unicode ones) normalized ([`normalize_text`]). Pipe tables are
//!   not read: these rules fail without an HTML table, as the evaluator's do. A span that is
//!   not a number counts as 1 (the evaluator's rule errors).
//! - **Finding.** A cell is found by `fuzz.ratio` ≥ 0.8 of the normalized texts, at its anchor
//!   slot. `table_anchor_cells` picks the table: an anchor found (ratio ≥ 0.8) in exactly one
//!   table votes for it; the most voted table is used; anchors found only in several tables
//!   fail the rule as ambiguous; none found fails it.
//! - **colspan / rowspan**: the best-matching cell (first of equal ratios) has the span.
//!   **same_row / same_column**: the two best-matching cells are in one table and their row
//!   (column) ranges meet. **adjacent_{up,down,left,right}**: some matching cell's neighbour
//!   slot in that direction matches the expected neighbour. **top_header / left_header**: some
//!   matching cell has the header in a slot above (left of) it in its column (row).
//!   **no_{left,right,above,below}**: the first matching cell has no neighbour there, or an
//!   empty one.

use scraper::{ElementRef, Html, Node};

use super::normalize::{normalize_text, py_strip};
use super::tables::{push_digits, SUBSCRIPTS, SUPERSCRIPTS};
use super::Outcome;
use crate::metrics::fuzz::ratio;

/// Python's `CELL_FUZZY_MATCH_THRESHOLD`.
const THRESHOLD: f64 = 0.8;

/// One cell of a resolved grid.
#[derive(Debug, Clone, PartialEq)]
pub struct GridCell {
    /// Normalized text.
    pub text: String,
    /// Anchor row.
    pub row: usize,
    /// Anchor column.
    pub col: usize,
    /// `colspan`.
    pub colspan: usize,
    /// `rowspan`.
    pub rowspan: usize,
}

/// A table resolved to slots: each slot the index of the cell covering it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Grid {
    /// The cells.
    pub cells: Vec<GridCell>,
    /// `slots[row][col]`: index into `cells`.
    pub slots: Vec<Vec<Option<usize>>>,
    /// Columns.
    pub cols: usize,
}

impl Grid {
    fn at(&self, r: usize, c: usize) -> Option<&GridCell> {
        self.slots.get(r)?.get(c)?.map(|i| &self.cells[i])
    }

    /// Anchor slots in row-major order: (row, col, cell).
    fn anchors(&self) -> impl Iterator<Item = (usize, usize, &GridCell)> {
        self.slots.iter().enumerate().flat_map(move |(r, row)| {
            row.iter().enumerate().filter_map(move |(c, s)| {
                let cell = &self.cells[(*s)?];
                (cell.row == r && cell.col == c).then_some((r, c, cell))
            })
        })
    }
}

fn text_of(e: ElementRef<'_>, map: Option<&[char; 10]>, out: &mut String) {
    for child in e.children() {
        match child.value() {
            Node::Text(t) => push_digits(t, map, out),
            Node::Element(el) => {
                let Some(ce) = ElementRef::wrap(child) else { continue };
                match el.name() {
                    "br" => out.push('\n'),
                    "sup" => text_of(ce, Some(&SUPERSCRIPTS), out),
                    "sub" => text_of(ce, Some(&SUBSCRIPTS), out),
                    _ => text_of(ce, map, out),
                }
            }
            _ => {}
        }
    }
}

fn descendants<'a>(e: ElementRef<'a>, names: &[&str]) -> Vec<ElementRef<'a>> {
    e.descendants()
        .filter_map(ElementRef::wrap)
        .filter(|d| d.id() != e.id() && names.contains(&d.value().name()))
        .collect()
}

fn span(e: ElementRef<'_>, attr: &str) -> usize {
    e.value().attr(attr).and_then(|v| v.trim().parse::<usize>().ok()).unwrap_or(1)
}

fn resolve(table: ElementRef<'_>) -> Option<Grid> {
    let rows = descendants(table, &["tr"]);
    let cells_of: Vec<Vec<ElementRef<'_>>> =
        rows.iter().map(|r| descendants(*r, &["td", "th"])).collect();
    let cols =
        cells_of.iter().map(|cs| cs.iter().map(|c| span(*c, "colspan")).sum::<usize>()).max()?;
    if rows.is_empty() || cols == 0 {
        return None;
    }
    let mut g = Grid { cells: Vec::new(), slots: vec![vec![None; cols]; rows.len()], cols };
    for (r, cs) in cells_of.iter().enumerate() {
        let mut c = 0;
        for cell in cs {
            while c < cols && g.slots[r][c].is_some() {
                c += 1;
            }
            if c >= cols {
                break;
            }
            let (colspan, rowspan) = (span(*cell, "colspan"), span(*cell, "rowspan"));
            let mut raw = String::new();
            text_of(*cell, None, &mut raw);
            let idx = g.cells.len();
            g.cells.push(GridCell {
                text: normalize_text(py_strip(&raw)),
                row: r,
                col: c,
                colspan,
                rowspan,
            });
            for rr in r..(r + rowspan).min(rows.len()) {
                for cc in c..(c + colspan).min(cols) {
                    g.slots[rr][cc] = Some(idx);
                }
            }
            c += colspan;
        }
    }
    Some(g)
}

/// `find_all_html_tables`: every table of the output, resolved.
pub fn html_grids(md: &str) -> Vec<Grid> {
    if !md.to_lowercase().contains("<table") {
        return Vec::new();
    }
    let html = Html::parse_document(md);
    html.root_element()
        .descendants()
        .filter_map(ElementRef::wrap)
        .filter(|e| e.value().name() == "table")
        .filter_map(resolve)
        .collect()
}

fn similar(a: &str, b: &str) -> f64 {
    ratio(a, b) / 100.0
}

/// `find_table_by_anchors`: the table the anchors pick, or why none.
fn by_anchors(grids: Vec<Grid>, anchors: &[String]) -> Result<Vec<Grid>, String> {
    if anchors.is_empty() {
        return Ok(grids);
    }
    let mut votes: Vec<usize> = vec![0; grids.len()];
    let mut any: std::collections::BTreeSet<usize> = Default::default();
    // Python's max() over the votes dict keeps the first table (in first-vote order) of the
    // highest count; first-vote order and table order agree on which table wins only when
    // counts differ, so ties go to the table voted first.
    let mut order: Vec<usize> = Vec::new();
    for a in anchors {
        let a = normalize_text(a);
        let hits: Vec<usize> = grids
            .iter()
            .enumerate()
            .filter(|(_, g)| {
                g.slots.iter().flatten().flatten().any(|&i| similar(&a, &g.cells[i].text) >= 0.8)
            })
            .map(|(i, _)| i)
            .collect();
        any.extend(hits.iter().copied());
        if let [only] = hits[..] {
            votes[only] += 1;
            if !order.contains(&only) {
                order.push(only);
            }
        }
    }
    if let Some(best) = order.iter().copied().fold(None::<usize>, |b, i| match b {
        Some(b) if votes[b] >= votes[i] => Some(b),
        _ => Some(i),
    }) {
        return Ok(grids.into_iter().nth(best).into_iter().collect());
    }
    if !any.is_empty() {
        return Err(format!(
            "[AMBIGUOUS ANCHORS] Anchors matched {} tables - could not uniquely identify target table",
            any.len()
        ));
    }
    Err("Table anchor cells not found in any table".into())
}

/// `find_cell_in_grids`: (grid, cell) of the best match ≥ 0.8 (the first of equal ratios).
fn find_cell<'a>(grids: &'a [Grid], text: &str) -> Option<(usize, &'a GridCell)> {
    let want = normalize_text(text);
    let mut best: Option<(usize, &GridCell)> = None;
    let mut score = 0.0;
    for (gi, g) in grids.iter().enumerate() {
        for (_, _, cell) in g.anchors() {
            let s = similar(&want, &cell.text);
            if s > score && s >= 0.8 {
                score = s;
                best = Some((gi, cell));
            }
        }
    }
    best
}

/// A table rule's kind and fields.
#[derive(Debug, Clone, PartialEq)]
pub enum TableCheck {
    /// `table_colspan` / `table_rowspan`: (cell, expected span, is colspan).
    Span(String, i64, bool),
    /// `table_same_row` / `table_same_column`: (a, b, is row).
    Same(String, String, bool),
    /// `table_adjacent_<dir>`: (anchor cell, expected neighbour, direction).
    Adjacent(String, String, &'static str),
    /// `table_top_header` / `table_left_header`: (data cell, header, is top).
    Header(String, String, bool),
    /// `table_no_<dir>`: (cell, direction).
    NoBorder(String, &'static str),
}

fn neighbour(r: usize, c: usize, g: &Grid, dir: &str) -> Option<(usize, usize)> {
    match dir {
        "up" if r > 0 => Some((r - 1, c)),
        "down" if r + 1 < g.slots.len() => Some((r + 1, c)),
        "left" if c > 0 => Some((r, c - 1)),
        "right" if c + 1 < g.cols => Some((r, c + 1)),
        _ => None,
    }
}

/// Runs a table rule with its `table_anchor_cells` on the output's Markdown.
pub fn run(check: &TableCheck, anchors: &[String], md: &str) -> Outcome {
    // Built as the evaluator builds the rule: empty texts are errors.
    let empty = |s: &str| normalize_text(s).is_empty();
    match check {
        TableCheck::Span(c, n, col) => {
            if empty(c) {
                return Outcome::error("cell must be provided");
            }
            if *n < 1 {
                let which = if *col { "colspan" } else { "rowspan" };
                return Outcome::error(format!("expected_{which} must be >= 1"));
            }
        }
        TableCheck::Same(a, b, _) if empty(a) || empty(b) => {
            return Outcome::error("Both cell_a and cell_b must be provided")
        }
        TableCheck::Adjacent(a, n, _) => {
            if empty(a) {
                return Outcome::error("anchor_cell must be provided");
            }
            if empty(n) {
                return Outcome::error("expected_neighbor must be provided");
            }
        }
        TableCheck::Header(d, h, _) => {
            if empty(d) {
                return Outcome::error("data_cell must be provided");
            }
            if empty(h) {
                return Outcome::error("expected_header must be provided");
            }
        }
        TableCheck::NoBorder(c, _) if empty(c) => return Outcome::error("cell must be provided"),
        _ => {}
    }
    let grids = html_grids(md);
    if grids.is_empty() {
        return Outcome::fail(match check {
            TableCheck::Span(..) | TableCheck::Same(..) => "No HTML tables found in content",
            _ => "No HTML tables found",
        });
    }
    let grids = match by_anchors(grids, anchors) {
        Ok(g) => g,
        Err(e) => return Outcome::fail(e),
    };
    match check {
        TableCheck::Span(text, want, col) => {
            let norm = normalize_text(text);
            let Some((_, cell)) = find_cell(&grids, text) else {
                return Outcome::fail(format!("Cell '{norm}' not found in target table"));
            };
            let (got, which) =
                if *col { (cell.colspan, "colspan") } else { (cell.rowspan, "rowspan") };
            if got as i64 == *want {
                Outcome::pass()
            } else {
                Outcome::fail(format!("Cell '{norm}' has {which}={got}, expected {want}"))
            }
        }
        TableCheck::Same(a, b, row) => {
            let (Some((ga, ca)), Some((gb, cb))) = (find_cell(&grids, a), find_cell(&grids, b))
            else {
                let missing = if find_cell(&grids, a).is_none() { a } else { b };
                return Outcome::fail(format!(
                    "Cell '{}' not found in target table",
                    normalize_text(missing)
                ));
            };
            if ga != gb {
                return Outcome::fail("Cells are in different tables");
            }
            let range = |c: &GridCell| {
                if *row {
                    c.row..c.row + c.rowspan
                } else {
                    c.col..c.col + c.colspan
                }
            };
            let (ra, rb) = (range(ca), range(cb));
            if ra.start.max(rb.start) < ra.end.min(rb.end) {
                Outcome::pass()
            } else {
                let what = if *row { "row" } else { "column" };
                Outcome::fail(format!("Cells do not share any {what}"))
            }
        }
        TableCheck::Adjacent(a, n, dir) => {
            let (a, n) = (normalize_text(a), normalize_text(n));
            for g in &grids {
                for (r, c, cell) in g.anchors() {
                    if similar(&a, &cell.text) < THRESHOLD {
                        continue;
                    }
                    let Some((nr, nc)) = neighbour(r, c, g, dir) else { continue };
                    if g.at(nr, nc).is_some_and(|x| similar(&n, &x.text) >= THRESHOLD) {
                        return Outcome::pass();
                    }
                }
            }
            Outcome::fail(format!("No '{a}' has '{n}' {dir}"))
        }
        TableCheck::Header(d, h, top) => {
            let (d, h) = (normalize_text(d), normalize_text(h));
            for g in &grids {
                for (r, c, cell) in g.anchors() {
                    if similar(&d, &cell.text) < THRESHOLD {
                        continue;
                    }
                    let found = if *top {
                        (0..r).any(|hr| {
                            g.at(hr, c).is_some_and(|x| similar(&h, &x.text) >= THRESHOLD)
                        })
                    } else {
                        (0..c).any(|hc| {
                            g.at(r, hc).is_some_and(|x| similar(&h, &x.text) >= THRESHOLD)
                        })
                    };
                    if found {
                        return Outcome::pass();
                    }
                }
            }
            let place = if *top { "above" } else { "to left" };
            Outcome::fail(format!("No '{d}' has header '{h}' {place}"))
        }
        TableCheck::NoBorder(text, dir) => {
            let t = normalize_text(text);
            for g in &grids {
                for (r, c, cell) in g.anchors() {
                    if similar(&t, &cell.text) < THRESHOLD {
                        continue;
                    }
                    let Some((nr, nc)) = neighbour(r, c, g, dir) else { return Outcome::pass() };
                    return match g.at(nr, nc) {
                        Some(x) if !x.text.trim().is_empty() => Outcome::fail(format!(
                            "Cell '{t}' has unexpected neighbor '{}' to {dir}",
                            x.text
                        )),
                        _ => Outcome::pass(),
                    };
                }
            }
            Outcome::fail(format!("Could not find cell '{t}' in any table"))
        }
    }
}

/// The distinct non-empty cells in the slots above (`column`) or left of a cell, in order
/// (`_get_column_headers`, `_get_row_headers`).
fn chain(g: &Grid, r: usize, c: usize, column: bool) -> Vec<String> {
    let mut seen = std::collections::BTreeSet::new();
    let slots: Vec<(usize, usize)> =
        if column { (0..r).map(|i| (i, c)).collect() } else { (0..c).map(|j| (r, j)).collect() };
    let mut out = Vec::new();
    for (i, j) in slots {
        let Some(cell) = g.at(i, j) else { continue };
        if seen.insert((cell.row, cell.col)) && !cell.text.is_empty() {
            out.push(cell.text.clone());
        }
    }
    out
}

fn same_list(want: &[String], got: &[String]) -> Result<(), String> {
    if want.len() != got.len() {
        return Err(format!("Length mismatch: expected {} headers, got {}", want.len(), got.len()));
    }
    for (i, (w, g)) in want.iter().zip(got).enumerate() {
        let s = similar(&normalize_text(w), &normalize_text(g));
        if s < THRESHOLD {
            return Err(format!(
                "Header {i} mismatch: expected '{w}', got '{g}' (similarity: {s:.2})"
            ));
        }
    }
    Ok(())
}

/// `table_header_chain`: the data cell's column headers (every distinct non-empty cell above
/// it, top down) and row headers (left of it) are, one by one at `fuzz.ratio` ≥ 0.8, the
/// expected lists (each checked when not empty).
pub fn header_chain(
    data_cell: &str,
    columns: &[String],
    rows: &[String],
    anchors: &[String],
    md: &str,
) -> Outcome {
    if normalize_text(data_cell).is_empty() {
        return Outcome::error("data_cell must be provided");
    }
    if columns.is_empty() && rows.is_empty() {
        return Outcome::error("At least one of column_headers or row_headers must be provided");
    }
    let grids = html_grids(md);
    if grids.is_empty() {
        return Outcome::fail("No HTML tables found in content");
    }
    let grids = match by_anchors(grids, anchors) {
        Ok(g) => g,
        Err(e) => return Outcome::fail(e),
    };
    let Some((gi, cell)) = find_cell(&grids, data_cell) else {
        return Outcome::fail(format!(
            "Data cell '{}' not found in target table",
            normalize_text(data_cell)
        ));
    };
    let g = &grids[gi];
    let mut errors = Vec::new();
    for (want, column, what) in [(columns, true, "Column"), (rows, false, "Row")] {
        if want.is_empty() {
            continue;
        }
        let got = chain(g, cell.row, cell.col, column);
        if let Err(e) = same_list(want, &got) {
            errors.push(format!("{what} headers: {e}. Expected: {want:?}, Got: {got:?}"));
        }
    }
    if errors.is_empty() {
        let mut o = Outcome::pass();
        o.explanation = format!("Header chain verified for '{}'", normalize_text(data_cell));
        o
    } else {
        Outcome::fail(errors.join("; "))
    }
}

/// A table rule type's check from its fields: `(type, getter of a string field, of an integer
/// field)`; `None` for a type that is not one of these.
pub fn check_of(
    kind: &str,
    s: impl Fn(&str) -> Result<String, String>,
    n: impl Fn(&str) -> Result<i64, String>,
) -> Option<Result<TableCheck, String>> {
    let dir = |d: &str| -> &'static str {
        match d {
            "up" | "above" => "up",
            "down" | "below" => "down",
            "left" => "left",
            _ => "right",
        }
    };
    Some((|| {
        Ok(match kind {
            "table_colspan" => TableCheck::Span(s("cell")?, n("expected_colspan")?, true),
            "table_rowspan" => TableCheck::Span(s("cell")?, n("expected_rowspan")?, false),
            "table_same_row" => TableCheck::Same(s("cell_a")?, s("cell_b")?, true),
            "table_same_column" => TableCheck::Same(s("cell_a")?, s("cell_b")?, false),
            "table_top_header" => TableCheck::Header(s("data_cell")?, s("expected_header")?, true),
            "table_left_header" => {
                TableCheck::Header(s("data_cell")?, s("expected_header")?, false)
            }
            k => {
                if let Some(d) = k.strip_prefix("table_adjacent_") {
                    if !["up", "down", "left", "right"].contains(&d) {
                        return Err(format!("unknown direction {d}"));
                    }
                    TableCheck::Adjacent(s("anchor_cell")?, s("expected_neighbor")?, dir(d))
                } else if let Some(d) = k.strip_prefix("table_no_") {
                    if !["left", "right", "above", "below"].contains(&d) {
                        return Err(format!("unknown direction {d}"));
                    }
                    TableCheck::NoBorder(s("cell")?, dir(d))
                } else {
                    return Err(String::new());
                }
            }
        })
    })())
    .filter(|r| !matches!(r, Err(e) if e.is_empty()))
}

#[cfg(test)]
mod tests {
    use super::*;

    const MD: &str = "<table><tr><th rowspan=\"2\">Region</th><th colspan=\"2\">Sales</th></tr>\
        <tr><th>2023</th><th>2024</th></tr><tr><td>North</td><td>10</td><td>12</td></tr></table>";

    fn run1(c: TableCheck) -> bool {
        run(&c, &[], MD).passed
    }

    #[test]
    fn spans_rows_columns_neighbours_and_headers() {
        let g = &html_grids(MD)[0];
        assert_eq!((g.slots.len(), g.cols), (3, 3));
        assert_eq!(g.at(1, 0).unwrap().text, "region");
        assert!(run1(TableCheck::Span("Sales".into(), 2, true)));
        assert!(run1(TableCheck::Span("Region".into(), 2, false)));
        assert!(!run1(TableCheck::Span("North".into(), 2, true)));
        assert!(run1(TableCheck::Same("North".into(), "12".into(), true)));
        assert!(run1(TableCheck::Same("2024".into(), "12".into(), false)));
        assert!(!run1(TableCheck::Same("2023".into(), "12".into(), false)));
        assert!(run1(TableCheck::Adjacent("2023".into(), "10".into(), "down")));
        assert!(run1(TableCheck::Header("12".into(), "Sales".into(), true)));
        assert!(run1(TableCheck::Header("12".into(), "North".into(), false)));
        assert!(run1(TableCheck::NoBorder("North".into(), "down")));
        assert!(!run1(TableCheck::NoBorder("North".into(), "right")));
        let pipe = "| a | b |\n|---|---|\n| 1 | 2 |";
        assert!(!run(&TableCheck::Span("a".into(), 1, true), &[], pipe).passed);
        let chain = |d: &str, c: &[&str], r: &[&str]| {
            let v = |x: &[&str]| x.iter().map(|s| s.to_string()).collect::<Vec<_>>();
            header_chain(d, &v(c), &v(r), &[], MD).passed
        };
        assert!(chain("12", &["Sales", "2024"], &["North", "10"]));
        assert!(chain("North", &["Region"], &[]));
        assert!(!chain("12", &["2024"], &[]));
        assert!(!chain("12", &["Sales", "2023"], &[]));
        assert!(header_chain("12", &[], &[], &[], MD).error);
        let anchors = vec!["Nowhere at all".to_string()];
        let o = run(&TableCheck::Span("Sales".into(), 2, true), &anchors, MD);
        assert_eq!(o.explanation, "Table anchor cells not found in any table");
    }
}
