//! Table tests: `table_parsing.py` (Markdown and HTML tables, the heading relations) and `tests.py::TableTest`.

use super::*;

/// A cell position `(row, col)` of a cell's top-left grid slot.
pub type CellId = (usize, usize);

/// A parsed table as a graph of cells (`table_parsing.py::TableData`). A spanning cell is stored
/// once, at its top-left slot; relations list the nearest distinct cell in each direction from
/// every row/column the cell spans.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct TableData {
    /// Cells in creation order (row-major), with their raw text.
    pub cells: Vec<(CellId, String)>,
    /// Cells marked as headings (`th`, inside `thead`, or first row/column of a pipe table).
    pub heading_cells: HashSet<CellId>,
    /// Whether every grid slot is covered by a cell.
    pub is_rectangular: bool,
    /// Nearest cells above.
    pub up: HashMap<CellId, BTreeSet<CellId>>,
    /// Nearest cells below.
    pub down: HashMap<CellId, BTreeSet<CellId>>,
    /// Nearest cells to the left.
    pub left: HashMap<CellId, BTreeSet<CellId>>,
    /// Nearest cells to the right.
    pub right: HashMap<CellId, BTreeSet<CellId>>,
}

impl TableData {
    /// Text of a cell.
    pub fn text(&self, id: CellId) -> Option<&str> {
        self.cells.iter().find(|(c, _)| *c == id).map(|(_, t)| t.as_str())
    }

    fn walk_headings(&self, start: CellId, rel: &HashMap<CellId, BTreeSet<CellId>>) -> Vec<CellId> {
        let mut headings = BTreeSet::new();
        let mut ends = BTreeSet::new();
        let mut visited = HashSet::new();
        let mut stack = vec![start];
        while let Some(cur) = stack.pop() {
            if !visited.insert(cur) {
                continue;
            }
            if self.heading_cells.contains(&cur) {
                headings.insert(cur);
            }
            match rel.get(&cur) {
                Some(next) if !next.is_empty() => stack.extend(next.iter().copied()),
                _ => {
                    ends.insert(cur);
                }
            }
        }
        headings.remove(&start);
        ends.remove(&start);
        if headings.is_empty() {
            ends.into_iter().collect()
        } else {
            headings.into_iter().collect()
        }
    }

    /// Heading cells reached by walking up from `id`, or the topmost cells when none is a heading.
    pub(crate) fn top_heading_relations(&self, id: CellId) -> Vec<CellId> {
        self.walk_headings(id, &self.up)
    }

    /// Heading cells reached by walking left from `id`, or the leftmost cells when none is.
    pub(crate) fn left_heading_relations(&self, id: CellId) -> Vec<CellId> {
        self.walk_headings(id, &self.left)
    }
}

/// One cell before grid placement (`row_specs` in the reference).
#[derive(Debug, Clone, PartialEq)]
pub struct CellSpec {
    /// Cell text.
    pub text: String,
    /// Rows spanned (at least 1).
    pub rowspan: usize,
    /// Columns spanned (at least 1).
    pub colspan: usize,
    /// Heading cell.
    pub is_heading: bool,
}

/// `_build_table_data_from_specs`: place cells on a grid honouring row/colspans and derive the
/// neighbour relations.
pub(crate) fn build_table(rows: &[Vec<CellSpec>]) -> Option<TableData> {
    if rows.is_empty() {
        return None;
    }
    let mut cells: Vec<(CellId, String)> = Vec::new();
    let mut heading = HashSet::new();
    let mut meta: Vec<(CellId, usize, usize)> = Vec::new();
    let mut occupancy: Vec<Vec<Option<CellId>>> = Vec::new();
    let mut active: Vec<Option<(CellId, usize)>> = Vec::new();
    for (r, specs) in rows.iter().enumerate() {
        let mut entries: Vec<Option<CellId>> = Vec::new();
        let mut col = 0usize;
        let mut si = 0usize;
        while si < specs.len() || col < active.len() {
            if col < active.len() {
                if let Some((id, remaining)) = active[col] {
                    entries.push(Some(id));
                    active[col] = if remaining > 1 { Some((id, remaining - 1)) } else { None };
                    col += 1;
                    continue;
                }
            }
            if si >= specs.len() {
                if col < active.len() {
                    entries.push(None);
                    col += 1;
                    continue;
                }
                break;
            }
            let spec = &specs[si];
            si += 1;
            let rowspan = spec.rowspan.max(1);
            let colspan = spec.colspan.max(1);
            let id = (r, col);
            cells.push((id, spec.text.clone()));
            if spec.is_heading {
                heading.insert(id);
            }
            meta.push((id, rowspan, colspan));
            if active.len() < col + colspan {
                active.resize(col + colspan, None);
            }
            for slot in active.iter_mut().skip(col).take(colspan) {
                entries.push(Some(id));
                *slot = if rowspan > 1 { Some((id, rowspan - 1)) } else { None };
            }
            col += colspan;
        }
        occupancy.push(entries);
    }
    while active.iter().any(Option::is_some) {
        let mut entries = Vec::new();
        for slot in active.iter_mut() {
            match *slot {
                None => entries.push(None),
                Some((id, remaining)) => {
                    entries.push(Some(id));
                    *slot = if remaining > 1 { Some((id, remaining - 1)) } else { None };
                }
            }
        }
        occupancy.push(entries);
    }
    if cells.is_empty() {
        return None;
    }
    let width = occupancy
        .iter()
        .flat_map(|row| row.iter().enumerate().filter(|(_, v)| v.is_some()).map(|(i, _)| i))
        .max()?
        + 1;
    for row in occupancy.iter_mut() {
        row.resize(width, None);
    }
    let height = occupancy.len();
    let mut t = TableData {
        is_rectangular: occupancy.iter().all(|row| row.iter().all(Option::is_some)),
        heading_cells: heading,
        ..TableData::default()
    };
    for &(id, rowspan, colspan) in &meta {
        let (r0, c0) = id;
        let (r1, c1) = (r0 + rowspan - 1, c0 + colspan - 1);
        let link = |map: &mut HashMap<CellId, BTreeSet<CellId>>, n: Option<&CellId>| {
            if let Some(&n) = n {
                map.entry(id).or_default().insert(n);
            }
        };
        for row in occupancy.iter().take(r1 + 1).skip(r0) {
            let right_of = row.get(c1 + 1..).unwrap_or_default();
            link(&mut t.right, right_of.iter().flatten().find(|n| **n != id));
            link(&mut t.left, row[..c0.min(width)].iter().rev().flatten().find(|n| **n != id));
        }
        for col in c0..=c1.min(width - 1) {
            let below = occupancy.get(r1 + 1..).unwrap_or_default();
            link(&mut t.down, below.iter().filter_map(|r| r[col].as_ref()).find(|n| **n != id));
            let above = &occupancy[..r0.min(height)];
            link(&mut t.up, above.iter().rev().filter_map(|r| r[col].as_ref()).find(|n| **n != id));
        }
    }
    t.cells = cells;
    Some(t)
}

/// `_process_table_lines`: split pipe-table lines into rows of trimmed cells, dropping the first
/// delimiter-looking row and rows made only of `- :|`.
fn process_table_lines(lines: &[&str]) -> Vec<Vec<String>> {
    let sep_index = lines.iter().position(|line| {
        let without = line.replace('|', "");
        let c = py_strip(&without);
        !c.is_empty() && c.chars().all(|ch| "- :".contains(ch))
    });
    let mut out = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        if Some(i) == sep_index {
            continue;
        }
        if !py_strip(line).is_empty() && line.chars().all(|ch| "- :|".contains(ch)) {
            continue;
        }
        let mut cells: Vec<String> = line.split('|').map(|c| py_strip(c).to_string()).collect();
        if cells.first().is_some_and(String::is_empty) {
            cells.remove(0);
        }
        if cells.last().is_some_and(String::is_empty) {
            cells.pop();
        }
        if !cells.is_empty() {
            out.push(cells);
        }
    }
    out
}

/// `parse_markdown_tables`: every run of at least two consecutive lines containing `|` is a
/// table; its first row and first column are headings.
pub(crate) fn parse_markdown_tables(md: &str) -> Vec<TableData> {
    let mut tables = Vec::new();
    let flush = |block: &[&str], tables: &mut Vec<TableData>| {
        if block.len() < 2 {
            return;
        }
        let rows = process_table_lines(block);
        if rows.is_empty() {
            return;
        }
        let specs: Vec<Vec<CellSpec>> = rows
            .into_iter()
            .enumerate()
            .map(|(r, row)| {
                row.into_iter()
                    .enumerate()
                    .map(|(c, text)| CellSpec {
                        text,
                        rowspan: 1,
                        colspan: 1,
                        is_heading: r == 0 || c == 0,
                    })
                    .collect()
            })
            .collect();
        if let Some(t) = build_table(&specs) {
            tables.push(t);
        }
    };
    let mut block: Vec<&str> = Vec::new();
    let mut in_table = false;
    for line in py_strip(md).split('\n') {
        if line.contains('|') {
            if !in_table {
                in_table = true;
                block.clear();
            }
            block.push(line);
        } else if in_table {
            flush(&block, &mut tables);
            in_table = false;
        }
    }
    if in_table {
        flush(&block, &mut tables);
    }
    tables
}

fn safe_span(raw: Option<&str>) -> usize {
    match raw {
        None | Some("") => 1,
        Some(v) => match py_int(v) {
            Some(n) if n > 0 => n as usize,
            _ => 1,
        },
    }
}

/// The cell specifications `parse_html_tables` reads from every `<table>` (nested ones too, in
/// document order): all its descendant `<tr>` rows; a row's cells are its direct `th`/`td`
/// children; `th` cells and rows inside a `thead` are headings; the text is all descendant text
/// with `<br>` as a newline, stripped; `rowspan="0"` spans to the last row.
pub fn html_table_specs(html: &str) -> Vec<Vec<Vec<CellSpec>>> {
    use scraper::{ElementRef, Html, Node, Selector};
    if !html.contains('<') {
        return Vec::new();
    }
    let doc = Html::parse_document(html);
    // Literal selectors, covered by the tests.
    let table_sel = Selector::parse("table").expect("valid selector");
    let tr_sel = Selector::parse("tr").expect("valid selector");
    let mut out = Vec::new();
    for table in doc.select(&table_sel) {
        let rows: Vec<ElementRef> = table.select(&tr_sel).collect();
        if rows.is_empty() {
            continue;
        }
        let total = rows.len();
        let mut specs = Vec::new();
        for (r, row) in rows.iter().enumerate() {
            let in_thead = row
                .ancestors()
                .any(|a| a.value().as_element().is_some_and(|e| e.name() == "thead"));
            let mut spec_row = Vec::new();
            for cell in row.children().filter_map(ElementRef::wrap) {
                let name = cell.value().name();
                if name != "td" && name != "th" {
                    continue;
                }
                let mut text = String::new();
                for node in cell.descendants() {
                    match node.value() {
                        Node::Text(t) => text.push_str(t),
                        Node::Element(e) if e.name() == "br" => text.push('\n'),
                        _ => {}
                    }
                }
                let raw_rowspan = cell.value().attr("rowspan");
                let mut rowspan = safe_span(raw_rowspan);
                let colspan = safe_span(cell.value().attr("colspan"));
                if raw_rowspan.is_some_and(|v| py_strip(v) == "0") {
                    rowspan = (total - r).max(1);
                }
                spec_row.push(CellSpec {
                    text: py_strip(&text).to_string(),
                    rowspan,
                    colspan,
                    is_heading: name == "th" || in_thead,
                });
            }
            specs.push(spec_row);
        }
        out.push(specs);
    }
    out
}

/// `parse_html_tables`: [`html_table_specs`] placed on grids by [`build_table`].
pub(crate) fn parse_html_tables(html: &str) -> Vec<TableData> {
    html_table_specs(html).iter().filter_map(|specs| build_table(specs)).collect()
}

impl TableTest {
    pub(super) fn run(&self, content: &str) -> (bool, String) {
        let cell_len = self.cell.chars().count();
        let threshold = diff_threshold(self.base.max_diffs, cell_len).max(0.5);
        let mut tables = Vec::new();
        if !self.ignore_markdown_tables {
            tables.extend(parse_markdown_tables(content));
        }
        tables.extend(parse_html_tables(content));
        if tables.is_empty() {
            return (false, "No tables found in the content".to_string());
        }
        let mut failed: Vec<String> = Vec::new();
        for table in &tables {
            let normalized: HashMap<CellId, String> =
                table.cells.iter().map(|(id, t)| (*id, normalize_text(t))).collect();
            let matches: Vec<CellId> = table
                .cells
                .iter()
                .filter(|(id, _)| fuzz::ratio(&self.cell, &normalized[id]) / 100.0 >= threshold)
                .map(|(id, _)| *id)
                .collect();
            for id in matches {
                let mut ok = true;
                let mut reasons = Vec::new();
                let mut check = |expected: &str, related: Vec<CellId>| {
                    let thr =
                        diff_threshold(self.base.max_diffs, expected.chars().count()).max(0.5);
                    let mut satisfied = false;
                    let mut best = 0.0f64;
                    let mut best_text: Option<&str> = None;
                    for rc in related {
                        let text = normalized.get(&rc).map(String::as_str).unwrap_or("");
                        let sim = fuzz::ratio(expected, text) / 100.0;
                        if sim > best {
                            best = sim;
                            best_text = Some(text);
                        }
                        if sim >= thr {
                            satisfied = true;
                        }
                    }
                    if !satisfied {
                        ok = false;
                        reasons.push(format!(
                            "Cell compared to '{}' doesn't match expected '{expected}' (best similarity: {best:.2})",
                            best_text.unwrap_or("None")
                        ));
                    }
                };
                let rel = |m: &HashMap<CellId, BTreeSet<CellId>>| -> Vec<CellId> {
                    m.get(&id).map(|s| s.iter().copied().collect()).unwrap_or_default()
                };
                if !self.up.is_empty() {
                    check(&self.up, rel(&table.up));
                }
                if !self.down.is_empty() {
                    check(&self.down, rel(&table.down));
                }
                if !self.left.is_empty() {
                    check(&self.left, rel(&table.left));
                }
                if !self.right.is_empty() {
                    check(&self.right, rel(&table.right));
                }
                if !self.left_heading.is_empty() {
                    check(&self.left_heading, table.left_heading_relations(id));
                }
                if !self.top_heading.is_empty() {
                    check(&self.top_heading, table.top_heading_relations(id));
                }
                if ok {
                    return (true, String::new());
                }
                failed.extend(reasons);
            }
        }
        if failed.is_empty() {
            (
                false,
                format!(
                    "No cell matching '{}' found in any table with threshold {}",
                    self.cell,
                    py_float(threshold)
                ),
            )
        } else {
            (
                false,
                format!(
                    "Found cells matching '{}' but relationships were not satisfied: {}",
                    self.cell,
                    failed.join("; ")
                ),
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markdown_table_relations() {
        let md = "intro\n| Name | A | B |\n|---|---|---|\n| x | 1 | 2 |\n| y | 3 | 4 |\nend";
        let tables = parse_markdown_tables(md);
        assert_eq!(tables.len(), 1);
        let tb = &tables[0];
        assert_eq!(tb.text((1, 1)), Some("1"));
        assert_eq!(tb.up[&(1, 1)].iter().copied().collect::<Vec<_>>(), vec![(0, 1)]);
        assert_eq!(tb.top_heading_relations((2, 2)), vec![(0, 2)]);
        assert_eq!(tb.left_heading_relations((2, 2)), vec![(2, 0)]);
        let test = t(
            r#"{"pdf":"a.pdf","page":1,"id":"t","type":"table","cell":"3","top_heading":"A","left_heading":"y","right":"4","up":"1"}"#,
        );
        assert!(passes(&test, md));
        let wrong = t(r#"{"pdf":"a.pdf","page":1,"id":"t","type":"table","cell":"3","left":"x"}"#);
        assert!(!passes(&wrong, md));
        assert!(!passes(&wrong, "no table here"));
    }

    #[test]
    fn table_threshold_by_one_char() {
        // cell "abcd", max_diffs 1: threshold max(0.5, 0.75). "abcx" ratio 0.75 (pass),
        // "abxx" ratio 0.5 (fail).
        let test =
            t(r#"{"pdf":"a.pdf","page":1,"id":"t","type":"table","cell":"abcd","max_diffs":1}"#);
        assert!(passes(&test, "| h | h2 |\n|--|--|\n| abcx | z |"));
        assert!(!passes(&test, "| h | h2 |\n|--|--|\n| abxx | z |"));
        // max_diffs 2 on a 2-char cell: the 0.5 floor still needs ratio 0.5 ("ax" vs "ab").
        let short =
            t(r#"{"pdf":"a.pdf","page":1,"id":"t","type":"table","cell":"ab","max_diffs":2}"#);
        assert!(passes(&short, "| ax | c |\n| d | e |"));
        assert!(!passes(&short, "| xy | c |\n| d | e |"));
    }

    #[test]
    fn html_table_spans_and_headings() {
        let html = "<table><thead><tr><th>Item</th><th colspan=\"2\">Sales</th></tr></thead>\
            <tr><td rowspan=\"2\">Apples</td><td>1</td><td>2</td></tr>\
            <tr><td>3</td><td>4<br>x</td></tr></table>";
        let tables = parse_html_tables(html);
        assert_eq!(tables.len(), 1);
        let tb = &tables[0];
        assert_eq!(tb.text((2, 2)), Some("4\nx"));
        // (2,1) "3" sits under "1"; its left neighbour is the row-spanning "Apples".
        assert_eq!(tb.left[&(2, 1)].iter().copied().collect::<Vec<_>>(), vec![(1, 0)]);
        assert_eq!(tb.top_heading_relations((2, 2)), vec![(0, 1)]);
        let test = t(
            r#"{"pdf":"a.pdf","page":1,"id":"t","type":"table","cell":"4 x","top_heading":"Sales","left":"3"}"#,
        );
        assert!(passes(&test, html));
        // Apples spans both rows: both "1" and "3" are to its right.
        assert_eq!(tb.right[&(1, 0)].iter().copied().collect::<Vec<_>>(), vec![(1, 1), (2, 1)]);
        assert_eq!(safe_span(Some(" 3 ")), 3);
        assert_eq!(safe_span(Some("-1")), 1);
        assert_eq!(safe_span(Some("x")), 1);
    }
}
