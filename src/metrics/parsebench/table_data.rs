//! The table dimension's tables (ParseBench's `table_extraction.py`, `parse_html_tables` of
//! `table_parsing.py`, `merge_preceding_titles_into_tables`, and `normalize_cell_text` of
//! `utils.py`); rules in `docs/parsebench.md` ("The table dimension").
//!
//! - **Slices** ([`html_table_slices`]): every top-level `<table` tag (followed by `>` or
//!   whitespace) up to its matching `</table>` (nested tables counted by depth, an unclosed one
//!   to the end), found by a case-insensitive string scan.
//! - **One slice parsed** ([`parse_table`]): its first top-level table. Rows are every `<tr>`
//!   under it (nested tables count as their text), rows inside the first `<thead>` are header
//!   rows, a row's cells its `<td>`/`<th>` in order, each at the next free slot over its
//!   `rowspan` × `colspan` (a span that is not a number counts as 1); a `<th>` marks its row and
//!   column as header ones, its slots as header cells, and is listed under every column it
//!   covers (`col_headers`, with its row) and every row it covers (`row_headers`, with its
//!   column). A cell's text is its text stripped, `<br>` a space, `<sup>`/`<sub>` digits as
//!   Unicode ones. The grid is the slots' extent, free slots empty; a table without cells is
//!   1 × 0.
//! - **Preceding titles** ([`preceding_titles`]): when an expected table's first row is one
//!   cell spanning at least the next row's width, its text is a title; a predicted table whose
//!   first row is not one spanning cell, whose previous sibling's stripped text has
//!   `fuzz.ratio` ≥ 0.8 with a title (both normalized) and which is at least two columns wide
//!   gets that text as a first row, one `<th>` over all columns.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::LazyLock;

use fancy_regex::Regex as Fancy;
use regex::Regex;
use scraper::{ElementRef, Html, Node};

use super::normalize::{normalize_quotes, normalize_text, py_strip, symbol};
use super::tables::{cell_text, rows_of, span};
use crate::metrics::fuzz::ratio;

/// One parsed table (`TableData`): cell texts not normalized.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TableData {
    /// Columns (rows are `data.len()`; a table without cells has one row of none).
    pub cols: usize,
    /// Rows of cell texts, spanning cells repeated.
    pub data: Vec<Vec<String>>,
    /// Rows holding a `<th>` or inside `<thead>`.
    pub header_rows: BTreeSet<usize>,
    /// Columns where a `<th>` starts.
    pub header_cols: BTreeSet<usize>,
    /// Column -> (row, text) of every `<th>` over it.
    pub col_headers: BTreeMap<usize, Vec<(usize, String)>>,
    /// Row -> (column, text) of every `<th>` across it.
    pub row_headers: BTreeMap<usize, Vec<(usize, String)>>,
    /// Slots covered by a `<th>`.
    pub header_cells: BTreeSet<(usize, usize)>,
}

impl TableData {
    /// Rows.
    pub fn rows(&self) -> usize {
        self.data.len()
    }

    /// Whether the grid has no slot (numpy's `size == 0`).
    pub fn is_empty(&self) -> bool {
        self.rows() * self.cols == 0
    }
}

fn is_tag_end(b: Option<&u8>) -> bool {
    matches!(b, None | Some(b'>' | b' ' | b'\t' | b'\n' | b'\r'))
}

/// `extract_html_tables`: the top-level table slices of a Markdown, in order.
pub fn html_table_slices(content: &str) -> Vec<&str> {
    let lower = content.to_ascii_lowercase();
    let l = lower.as_bytes();
    let find = |pat: &str, from: usize| lower.get(from..)?.find(pat).map(|i| i + from);
    let mut out = Vec::new();
    let mut search = 0;
    while let Some(start) = find("<table", search) {
        if !is_tag_end(l.get(start + 6)) {
            search = start + 1;
            continue;
        }
        let (mut depth, mut pos, mut end) = (0usize, start, None);
        while pos < l.len() {
            let next_open = find("<table", pos + 1);
            let Some(next_close) = find("</table>", pos + 1) else { break };
            match next_open {
                Some(o) if o < next_close => {
                    pos = o;
                    if is_tag_end(l.get(o + 6)) {
                        depth += 1;
                    }
                }
                _ => {
                    if depth == 0 {
                        end = Some(next_close + 8);
                        break;
                    }
                    depth -= 1;
                    pos = next_close;
                }
            }
        }
        match end {
            Some(e) => {
                out.push(&content[start..e]);
                search = e;
            }
            None => {
                out.push(&content[start..]);
                break;
            }
        }
    }
    out
}

/// The `<table>` elements under `root` in document order, not those nested in a table.
fn top_tables<'a>(root: ElementRef<'a>) -> Vec<ElementRef<'a>> {
    let mut out = Vec::new();
    let mut stack = vec![root];
    while let Some(e) = stack.pop() {
        if e.value().name() == "table" {
            out.push(e);
            continue;
        }
        let kids: Vec<ElementRef<'a>> = e.children().filter_map(ElementRef::wrap).collect();
        stack.extend(kids.into_iter().rev());
    }
    out
}

fn first_descendant<'a>(e: ElementRef<'a>, name: &str) -> Option<ElementRef<'a>> {
    e.descendants().skip(1).filter_map(ElementRef::wrap).find(|d| d.value().name() == name)
}

fn cells_of(row: ElementRef<'_>) -> Vec<ElementRef<'_>> {
    row.children()
        .filter_map(ElementRef::wrap)
        .filter(|e| matches!(e.value().name(), "td" | "th"))
        .collect()
}

/// `parse_html_tables(slice)[0]`: the slice's first top-level table (see the module doc).
pub fn parse_table(slice: &str) -> Option<TableData> {
    parse_tables(slice).into_iter().next()
}

/// `parse_html_tables`: every top-level table of a Markdown (see the module doc).
pub fn parse_tables(md: &str) -> Vec<TableData> {
    if !md.to_ascii_lowercase().contains("<table") {
        return Vec::new();
    }
    let html = Html::parse_document(md);
    top_tables(html.root_element()).into_iter().map(table_data).collect()
}

fn table_data(table: ElementRef<'_>) -> TableData {
    let mut rows = Vec::new();
    rows_of(table, &mut rows);
    let mut t = TableData::default();
    if let Some(thead) = first_descendant(table, "thead") {
        for (i, r) in rows.iter().enumerate() {
            if r.ancestors().any(|a| a.id() == thead.id()) {
                t.header_rows.insert(i);
            }
        }
    }
    let mut grid: BTreeMap<(usize, usize), String> = BTreeMap::new();
    for (r, row) in rows.iter().enumerate() {
        let mut c = 0;
        for cell in cells_of(*row) {
            while grid.contains_key(&(r, c)) {
                c += 1;
            }
            let mut raw = String::new();
            cell_text(cell, None, &mut raw);
            let text = py_strip(&raw).to_string();
            let th = cell.value().name() == "th";
            if th {
                t.header_rows.insert(r);
                t.header_cols.insert(c);
            }
            let (rs, cs) = (span(cell, "rowspan"), span(cell, "colspan"));
            for rr in r..r + rs {
                for cc in c..c + cs {
                    grid.insert((rr, cc), text.clone());
                    if th {
                        t.header_cells.insert((rr, cc));
                    }
                }
            }
            if th {
                for cc in c..c + cs {
                    t.col_headers.entry(cc).or_default().push((r, text.clone()));
                }
                for rr in r..r + rs {
                    t.row_headers.entry(rr).or_default().push((c, text.clone()));
                }
            }
            c += cs;
        }
    }
    let nr = grid.keys().map(|k| k.0 + 1).max().unwrap_or(1);
    t.cols = grid.keys().map(|k| k.1 + 1).max().unwrap_or(0);
    t.data = vec![vec![String::new(); t.cols]; nr];
    for ((r, c), text) in grid {
        t.data[r][c] = text;
    }
    t
}

/// BeautifulSoup's `get_text(strip=True)`.
fn stripped_text(e: ElementRef<'_>) -> String {
    e.text().map(py_strip).collect()
}

fn all_tables<'a>(html: &'a Html) -> impl Iterator<Item = ElementRef<'a>> {
    html.root_element()
        .descendants()
        .filter_map(ElementRef::wrap)
        .filter(|e| e.value().name() == "table")
}

/// A row's width: its cells' colspans summed.
fn width(row: ElementRef<'_>) -> usize {
    cells_of(row).iter().map(|c| span(*c, "colspan")).sum()
}

/// The expected Markdown's title rows: each table whose first row is one cell spanning at
/// least the next row's width gives that cell's text.
fn expected_titles(expected: &str) -> Vec<String> {
    let html = Html::parse_document(expected);
    let mut out = Vec::new();
    for table in all_tables(&html) {
        let Some(first) = first_descendant(table, "tr") else { continue };
        let cells = cells_of(first);
        if cells.len() != 1 || span(cells[0], "colspan") <= 1 {
            continue;
        }
        let Some(second) =
            first.next_siblings().filter_map(ElementRef::wrap).find(|e| e.value().name() == "tr")
        else {
            continue;
        };
        if span(cells[0], "colspan") < width(second) {
            continue;
        }
        let text = stripped_text(cells[0]);
        if !text.is_empty() {
            out.push(text);
        }
    }
    out
}

/// `merge_preceding_titles_into_tables`, as the title each top-level predicted table gets
/// (see the module doc), in the order of [`html_table_slices`].
pub fn preceding_titles(expected: &str, actual: &str) -> Vec<Option<(String, usize)>> {
    if expected.is_empty() || actual.is_empty() {
        return Vec::new();
    }
    let titles: Vec<String> = expected_titles(expected).iter().map(|t| normalize_text(t)).collect();
    if titles.is_empty() {
        return Vec::new();
    }
    let html = Html::parse_document(actual);
    let tables = top_tables(html.root_element());
    tables
        .into_iter()
        .map(|table| {
            let mut rows = Vec::new();
            rows_of(table, &mut rows);
            if let Some(first) = rows.first() {
                let cells = cells_of(*first);
                if cells.len() == 1 && span(cells[0], "colspan") > 1 {
                    return None;
                }
            }
            let mut prev = table.prev_sibling();
            while let Some(p) = prev {
                match p.value() {
                    Node::Text(t) if py_strip(t).is_empty() => prev = p.prev_sibling(),
                    _ => break,
                }
            }
            let text = match prev.map(|p| (p, p.value())) {
                Some((p, Node::Element(_))) => ElementRef::wrap(p).map(stripped_text)?,
                Some((_, Node::Text(t))) => py_strip(t).to_string(),
                _ => return None,
            };
            if text.is_empty() {
                return None;
            }
            let norm = normalize_text(&text);
            let best = titles.iter().map(|t| ratio(&norm, t) / 100.0).fold(0.0, f64::max);
            let cols = rows.iter().map(|r| width(*r)).max().unwrap_or(0);
            (best >= 0.8 && cols >= 2).then_some((text, cols))
        })
        .collect()
}

/// A table with a title row put first (one `<th>` over its `cols` columns), as the evaluator's
/// reparse of the merged Markdown reads it.
pub fn with_title_row(t: &TableData, title: &str, cols: usize) -> TableData {
    let shift = |r: &usize| r + 1;
    let mut out = TableData {
        cols: t.cols.max(cols),
        data: Vec::with_capacity(t.rows() + 1),
        header_rows: std::iter::once(0).chain(t.header_rows.iter().map(shift)).collect(),
        header_cols: t.header_cols.iter().copied().chain([0]).collect(),
        col_headers: BTreeMap::new(),
        row_headers: BTreeMap::new(),
        header_cells: (0..cols).map(|c| (0, c)).collect(),
    };
    out.header_cells.extend(t.header_cells.iter().map(|(r, c)| (r + 1, *c)));
    out.data.push(vec![title.to_string(); cols]);
    let empty = t.is_empty();
    for row in &t.data {
        if !empty {
            out.data.push(row.clone());
        }
    }
    for row in &mut out.data {
        row.resize(out.cols, String::new());
    }
    for c in 0..cols {
        out.col_headers.entry(c).or_default().push((0, title.to_string()));
    }
    for (c, v) in &t.col_headers {
        out.col_headers.entry(*c).or_default().extend(v.iter().map(|(r, s)| (r + 1, s.clone())));
    }
    out.row_headers.insert(0, vec![(0, title.to_string())]);
    for (r, v) in &t.row_headers {
        out.row_headers.insert(r + 1, v.clone());
    }
    out
}

/// One side's tables: each slice parsed (a slice without a table is dropped and counted).
pub fn extract_tables(md: &str) -> (Vec<TableData>, usize) {
    let mut out = Vec::new();
    let mut dropped = 0;
    for s in html_table_slices(md) {
        match parse_table(s) {
            Some(t) => out.push(t),
            None => dropped += 1,
        }
    }
    (out, dropped)
}

fn re(p: &str) -> Regex {
    Regex::new(p).expect("a fixed pattern")
}

static SUP_TAG: LazyLock<Regex> = LazyLock::new(|| re(r"(?i)<sup[^>]*>(.*?)</sup>"));
static SUB_TAG: LazyLock<Regex> = LazyLock::new(|| re(r"(?i)<sub[^>]*>(.*?)</sub>"));
static FORMATTING: LazyLock<Regex> =
    LazyLock::new(|| re(r"(?i)</?(?:b|i|u|s|em|strong|del|strike|mark|ins)>"));
static SPAN_TAG: LazyLock<Regex> = LazyLock::new(|| re(r"(?i)</?span\b[^>]*>"));
static MD_BOLD: LazyLock<Regex> = LazyLock::new(|| re(r"\*\*(.*?)\*\*|__(.*?)__"));
static MD_ITALIC: LazyLock<Fancy> = LazyLock::new(|| {
    Fancy::new(r"(?<!\*)\*(?!\*)(.*?)(?<!\*)\*(?!\*)|(?<!_)_(?!_)(.*?)(?<!_)_(?!_)")
        .expect("a fixed pattern")
});
static MD_STRIKE: LazyLock<Regex> = LazyLock::new(|| re(r"~~(.*?)~~"));
static LEADER_END: LazyLock<Regex> = LazyLock::new(|| re(r"\.{2,}\s*$"));
static SPACES: LazyLock<Regex> = LazyLock::new(|| re(r"\s+"));
static DASH_ONLY: LazyLock<Regex> =
    LazyLock::new(|| re("^[\\s\\-\u{2013}\u{2014}\u{2011}\u{2012}\u{2212}]+$"));

const SUP_FROM: &str = "⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁼⁽⁾ⁿⁱ";
const SUP_TO: &str = "0123456789+-=()ni";
const SUB_FROM: &str = "₀₁₂₃₄₅₆₇₈₉₊₋₌₍₎ₐₑₕᵢⱼₖₗₘₙₒₚᵣₛₜᵤᵥₓ";
const SUB_TO: &str = "0123456789+-=()aehijklmnoprstuvx";

fn translate(s: &str, from: &str, to: &str) -> String {
    s.chars()
        .map(|c| from.chars().position(|f| f == c).and_then(|i| to.chars().nth(i)).unwrap_or(c))
        .collect()
}

/// `_normalize_sub_sup_for_table`: `<sup>`/`<sub>` tags unwrapped, Unicode super/subscripts
/// to ASCII.
pub fn sub_sup_to_ascii(text: &str) -> String {
    let s = SUP_TAG.replace_all(text, "$1");
    let s = SUB_TAG.replace_all(&s, "$1");
    translate(&translate(&s, SUP_FROM, SUP_TO), SUB_FROM, SUB_TO)
}

/// Python's `re.sub` with a two-group alternation replaced by `\1\2` (an unmatched group
/// empty), on a `fancy-regex` pattern.
fn sub_groups(re: &Fancy, s: &str) -> String {
    let mut out = String::new();
    let mut last = 0;
    let mut at = 0;
    while at <= s.len() {
        let Ok(Some(c)) = re.captures_from_pos(s, at) else { break };
        let m = c.get(0).expect("group 0");
        out.push_str(&s[last..m.start()]);
        for g in 1..=2 {
            if let Some(x) = c.get(g) {
                out.push_str(x.as_str());
            }
        }
        last = m.end();
        at = if m.end() == m.start() {
            match s[m.end()..].chars().next() {
                Some(ch) => {
                    out.push(ch);
                    last = m.end() + ch.len_utf8();
                    m.end() + ch.len_utf8()
                }
                None => break,
            }
        } else {
            m.end()
        };
    }
    out.push_str(&s[last.min(s.len())..]);
    out
}

/// `normalize_cell_text`: a cell's text as GriTS compares it (see `docs/parsebench.md`).
pub fn normalize_cell_text(text: &str) -> String {
    let s = sub_sup_to_ascii(text);
    let s = FORMATTING.replace_all(&s, "");
    let s = SPAN_TAG.replace_all(&s, "");
    let s = MD_BOLD.replace_all(&s, "$1$2");
    let s = sub_groups(&MD_ITALIC, &s);
    let s = MD_STRIKE.replace_all(&s, "$1");
    let s: String = s.chars().map(symbol).collect();
    let s = normalize_quotes(&s);
    let s: String = s
        .chars()
        .map(|c| match c {
            '\u{2013}' | '\u{2014}' | '\u{2011}' | '\u{2012}' | '\u{2212}' => '-',
            c => c,
        })
        .collect();
    let s = LEADER_END.replace_all(&s, "");
    let s = SPACES.replace_all(&s, " ");
    let s = py_strip(&s);
    if DASH_ONLY.is_match(s) {
        return "-".into();
    }
    s.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slices_are_top_level_tables_with_their_nested_ones() {
        let md =
            "a <tabledata> <TABLE><tr><td><table><tr><td>x</td></tr></table></td></tr></TABLE>\
                  b <table>\n<tr><td>y</td></tr>";
        let s = html_table_slices(md);
        assert_eq!(s.len(), 2);
        assert!(s[0].starts_with("<TABLE>") && s[0].ends_with("</TABLE>"), "{}", s[0]);
        assert_eq!(s[1], "<table>\n<tr><td>y</td></tr>");
    }

    #[test]
    fn a_table_parses_to_grid_headers_and_header_cells() {
        let t = parse_table(
            "<table><thead><tr><th rowspan=\"2\">R</th><th colspan=\"2\">S<sup>1</sup></th></tr>\
             <tr><th>a</th><th>b</th></tr></thead><tr><td>x</td><td>1<br>2</td></tr></table>",
        )
        .unwrap();
        assert_eq!(t.data, vec![vec!["R", "S¹", "S¹"], vec!["R", "a", "b"], vec!["x", "1 2", ""]]);
        assert_eq!(t.header_rows, [0, 1].into());
        assert_eq!(t.col_headers[&1], vec![(0, "S¹".to_string()), (1, "a".to_string())]);
        assert_eq!(
            t.row_headers[&1],
            vec![(0, "R".to_string()), (1, "a".to_string()), (2, "b".to_string())]
        );
        assert!(t.header_cells.contains(&(1, 0)) && !t.header_cells.contains(&(2, 0)));
        let empty = parse_table("<table></table>").unwrap();
        assert!(empty.is_empty() && empty.rows() == 1);
    }

    #[test]
    fn cell_text_normalization() {
        assert_eq!(normalize_cell_text("  **Total** ..... "), "Total");
        assert_eq!(normalize_cell_text("H<sub>2</sub>O x²"), "H2O x2");
        assert_eq!(normalize_cell_text("“a” – *b* _c_"), "\"a\" - b c");
        assert_eq!(normalize_cell_text(" — – "), "-");
        assert_eq!(normalize_cell_text("a**b"), "a**b");
    }

    #[test]
    fn a_preceding_title_becomes_a_first_row() {
        let gt = "<table><tr><td colspan=\"2\">Prices 2024</td></tr><tr><td>a</td><td>b</td></tr></table>";
        let pred = "## Prices 2024\n\n<table><tr><td>a</td><td>b</td></tr></table>";
        let titles = preceding_titles(gt, pred);
        assert_eq!(titles, vec![Some(("## Prices 2024".to_string(), 2))]);
        assert_eq!(
            preceding_titles(gt, "Other words\n<table><tr><td>a</td><td>b</td></tr></table>"),
            vec![None]
        );
        let t = with_title_row(&parse_table(pred).unwrap(), "T", 2);
        assert_eq!(t.data, vec![vec!["T", "T"], vec!["a", "b"]]);
        assert_eq!(t.header_rows, [0].into());
    }
}
