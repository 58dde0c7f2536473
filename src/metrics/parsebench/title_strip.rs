//! Title-row stripping before the table metrics (ParseBench's `table_title_stripping.py`:
//! `strip_title_rows` and its detectors); rules in `docs/parsebench.md` ("The table
//! dimension").
//!
//! Leading all-empty rows go first. The detectors then run on the table normalized as TRM
//! normalizes it ([`super::trm::normalize_table`]): `<td>` title rows (leading rows, before
//! the first header row, whose every cell holds one same text; not all rows; not a
//! one-column table), the column-header block (consecutive header rows after them whose every
//! non-empty slot is a `<th>` one; its last row leaves the block when it holds a non-`<th>`
//! value), and `<th>` title rows in that block (one distinct header text, covering the other
//! header rows' columns but for the edge ones, with fewer non-empty row headers than covered
//! columns). Up to `max_top_title_rows` top title rows (a rowspan continuation below one comes
//! with it, uncounted; never the whole block) and the `<td>` titles (when the cap is not 0)
//! are removed from the grid; a bottom title row of the block stays in the grid but is
//! recorded. The hints (header block, title rows, the stripped titles' texts) are in the
//! trimmed table's rows.

use std::collections::{BTreeMap, BTreeSet};

use super::normalize::py_strip;
use super::table_data::TableData;
use super::trm::normalize_table;

/// What stripping found, in the trimmed table's rows (`HeaderHints`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct HeaderHints {
    /// The column-header block.
    pub col_header_rows: BTreeSet<usize>,
    /// `<th>` title rows still in the grid (a bottom title).
    pub th_title_rows: BTreeSet<usize>,
    /// The normalized texts of every title row found.
    pub stripped_titles: BTreeSet<String>,
}

fn cell(t: &TableData, r: usize, c: usize) -> &str {
    py_strip(&t.data[r][c])
}

/// `detect_td_title_rows`.
pub(super) fn td_title_rows(t: &TableData, nominal: &BTreeSet<usize>) -> BTreeSet<usize> {
    if t.cols <= 1 {
        return BTreeSet::new();
    }
    let mut out = BTreeSet::new();
    for r in 0..t.rows() {
        if nominal.contains(&r) {
            break;
        }
        let vals: Vec<&str> = (0..t.cols).map(|c| cell(t, r, c)).collect();
        let uniq: BTreeSet<&str> = vals.iter().copied().filter(|v| !v.is_empty()).collect();
        if uniq.len() == 1 && vals.iter().all(|v| !v.is_empty()) {
            out.insert(r);
        } else {
            break;
        }
    }
    if !out.is_empty() && out.len() < t.rows() {
        out
    } else {
        BTreeSet::new()
    }
}

/// `find_col_header_rows`.
pub(super) fn col_header_rows(
    t: &TableData,
    nominal: &BTreeSet<usize>,
    td_titles: &BTreeSet<usize>,
) -> BTreeSet<usize> {
    let first = td_titles.iter().max().map_or(0, |m| m + 1);
    let mut end = first;
    for r in first..t.rows() {
        if !nominal.contains(&r) {
            break;
        }
        let non_th =
            (0..t.cols).any(|c| !cell(t, r, c).is_empty() && !t.header_cells.contains(&(r, c)));
        if non_th {
            break;
        }
        end = r + 1;
    }
    let mut rows: BTreeSet<usize> = (0..end).filter(|r| nominal.contains(r)).collect();
    if let Some(&bottom) = rows.iter().max() {
        if (0..t.cols)
            .any(|c| !cell(t, bottom, c).is_empty() && !t.header_cells.contains(&(bottom, c)))
        {
            rows.remove(&bottom);
        }
    }
    rows
}

/// The non-empty header texts of row `r`, per column (the last entry of that row wins).
fn header_texts(t: &TableData, r: usize) -> Vec<String> {
    (0..t.cols)
        .map(|c| {
            let mut text = String::new();
            for (ri, s) in t.col_headers.get(&c).into_iter().flatten() {
                if *ri == r {
                    text = py_strip(s).to_string();
                }
            }
            text
        })
        .collect()
}

fn has_header_in(t: &TableData, c: usize, rows: impl Fn(usize) -> bool) -> bool {
    t.col_headers.get(&c).into_iter().flatten().any(|(r, s)| rows(*r) && !py_strip(s).is_empty())
}

/// The rows of the header block that are spanning titles.
fn th_title_candidates(t: &TableData, block: &BTreeSet<usize>) -> BTreeSet<usize> {
    let with_headers: BTreeSet<usize> =
        (0..t.cols).filter(|&c| has_header_in(t, c, |r| block.contains(&r))).collect();
    let mut out = BTreeSet::new();
    for &r in block {
        let texts = header_texts(t, r);
        let uniq: BTreeSet<&String> = texts.iter().filter(|s| !s.is_empty()).collect();
        if uniq.len() != 1 {
            continue;
        }
        let covered: BTreeSet<usize> = (0..t.cols).filter(|&c| !texts[c].is_empty()).collect();
        let others: BTreeSet<usize> = (0..t.cols)
            .filter(|&c| has_header_in(t, c, |o| o != r && block.contains(&o)))
            .collect();
        let target = if others.is_empty() { &with_headers } else { &others };
        let (Some(&lo), Some(&hi)) = (target.iter().min(), target.iter().max()) else {
            continue;
        };
        if target.difference(&covered).any(|c| *c != lo && *c != hi) {
            continue;
        }
        let nonempty_th = t
            .row_headers
            .get(&r)
            .into_iter()
            .flatten()
            .filter(|(_, s)| !py_strip(s).is_empty())
            .count();
        if nonempty_th < covered.len() {
            out.insert(r);
        }
    }
    out
}

/// `detect_th_title_rows`: the top titles (up to `max_top`) and a bottom one.
pub(super) fn th_title_rows(
    t: &TableData,
    block: &BTreeSet<usize>,
    max_top: i64,
) -> BTreeSet<usize> {
    let titles = th_title_candidates(t, block);
    if titles.is_empty() {
        return BTreeSet::new();
    }
    let continuation = |r: usize| {
        (0..t.cols).all(|c| !t.col_headers.get(&c).into_iter().flatten().any(|e| e.0 == r))
    };
    let sorted: Vec<usize> = block.iter().copied().collect();
    let bottom = *sorted.last().expect("titles come from a non-empty block");
    let mut strip = BTreeSet::new();
    if max_top > 0 {
        let cap = (block.len() as i64 - 1).min(max_top);
        let (mut taken, mut i) = (0i64, 0usize);
        while i < sorted.len() && taken < cap {
            let r = sorted[i];
            if !titles.contains(&r) {
                break;
            }
            strip.insert(r);
            let mut j = i + 1;
            while j < sorted.len() && continuation(sorted[j]) {
                strip.insert(sorted[j]);
                j += 1;
            }
            taken += 1;
            i = j;
        }
    }
    if titles.contains(&bottom) && !strip.contains(&bottom) {
        let left = block.iter().filter(|r| !strip.contains(r) && **r != bottom).count();
        if left >= 1 {
            strip.insert(bottom);
        }
    }
    strip
}

/// `collect_stripped_titles`.
fn stripped_titles(
    t: &TableData,
    th_titles: &BTreeSet<usize>,
    td_titles: &BTreeSet<usize>,
) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for &r in th_titles {
        for c in 0..t.cols {
            for (ri, s) in t.col_headers.get(&c).into_iter().flatten() {
                if *ri == r && !py_strip(s).is_empty() {
                    out.insert(py_strip(s).to_string());
                }
            }
        }
    }
    for &r in td_titles {
        out.extend((0..t.cols).map(|c| cell(t, r, c).to_string()).filter(|v| !v.is_empty()));
    }
    out
}

/// `_remove_rows`: the table without `gone`, and old row -> new row for the rest.
pub(super) fn remove_rows(
    t: &TableData,
    gone: &BTreeSet<usize>,
) -> (TableData, BTreeMap<usize, usize>) {
    let keep: Vec<usize> = (0..t.rows()).filter(|r| !gone.contains(r)).collect();
    let map: BTreeMap<usize, usize> = keep.iter().enumerate().map(|(n, o)| (*o, n)).collect();
    if gone.is_empty() {
        return (t.clone(), map);
    }
    let out = TableData {
        cols: t.cols,
        data: keep.iter().map(|r| t.data[*r].clone()).collect(),
        header_rows: t.header_rows.iter().filter_map(|r| map.get(r).copied()).collect(),
        header_cols: t.header_cols.clone(),
        col_headers: t
            .col_headers
            .iter()
            .filter_map(|(c, v)| {
                let v: Vec<(usize, String)> =
                    v.iter().filter_map(|(r, s)| Some((*map.get(r)?, s.clone()))).collect();
                (!v.is_empty()).then_some((*c, v))
            })
            .collect(),
        row_headers: t
            .row_headers
            .iter()
            .filter_map(|(r, v)| Some((*map.get(r)?, v.clone())))
            .collect(),
        header_cells: t.header_cells.iter().filter_map(|(r, c)| Some((*map.get(r)?, *c))).collect(),
    };
    (out, map)
}

/// `strip_title_rows`: the trimmed table and its hints.
pub fn strip_title_rows(t: &TableData, max_top: i64) -> (TableData, HeaderHints) {
    if t.is_empty() {
        return (t.clone(), HeaderHints::default());
    }
    let leading: BTreeSet<usize> =
        (0..t.rows()).take_while(|&r| (0..t.cols).all(|c| cell(t, r, c).is_empty())).collect();
    let t = if leading.is_empty() { t.clone() } else { remove_rows(t, &leading).0 };
    let norm = normalize_table(&t);
    let nominal = &norm.header_rows;
    let td_titles = if max_top > 0 { td_title_rows(&norm, nominal) } else { BTreeSet::new() };
    let block = col_header_rows(&norm, nominal, &td_titles);
    let th_titles = th_title_rows(&norm, &block, max_top);
    let bottom = block.iter().max().filter(|b| th_titles.contains(b)).copied();
    let titles = stripped_titles(&norm, &th_titles, &td_titles);
    let mut gone: BTreeSet<usize> = td_titles.clone();
    gone.extend(th_titles.iter().filter(|r| Some(**r) != bottom));
    let (trimmed, map) = remove_rows(&t, &gone);
    let hints = HeaderHints {
        col_header_rows: block.iter().filter_map(|r| map.get(r).copied()).collect(),
        th_title_rows: th_titles.iter().filter_map(|r| map.get(r).copied()).collect(),
        stripped_titles: titles,
    };
    (trimmed, hints)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metrics::parsebench::table_data::parse_table;

    #[test]
    fn a_td_title_row_is_removed_and_recorded() {
        let t = parse_table(
            "<table><tr><td colspan=\"2\">Prices</td></tr><tr><th>Fruit</th><th>Price</th></tr>\
             <tr><td>Apple</td><td>1</td></tr></table>",
        )
        .unwrap();
        let (s, h) = strip_title_rows(&t, 1);
        assert_eq!(s.data, vec![vec!["Fruit", "Price"], vec!["Apple", "1"]]);
        assert_eq!(h.col_header_rows, [0].into());
        assert_eq!(h.stripped_titles, ["prices".to_string()].into());
        // A cap of 0 keeps the title row (then not a header row: the block is empty).
        let (s0, h0) = strip_title_rows(&t, 0);
        assert_eq!(s0.rows(), 3);
        assert!(h0.col_header_rows.is_empty());
    }

    #[test]
    fn a_spanning_th_title_over_real_headers_is_removed() {
        let t = parse_table(
            "<table><tr><th colspan=\"2\">Sales</th></tr><tr><th>2023</th><th>2024</th></tr>\
             <tr><td>10</td><td>12</td></tr></table>",
        )
        .unwrap();
        let (s, h) = strip_title_rows(&t, 1);
        assert_eq!(s.data, vec![vec!["2023", "2024"], vec!["10", "12"]]);
        assert_eq!(h.col_header_rows, [0].into());
        assert!(h.th_title_rows.is_empty());
        assert_eq!(h.stripped_titles, ["sales".to_string()].into());
        // One header row only: never stripped.
        let one = parse_table(
            "<table><tr><th>A</th><th>B</th></tr><tr><td>1</td><td>2</td></tr></table>",
        )
        .unwrap();
        assert_eq!(strip_title_rows(&one, 1).0, one);
    }
}
