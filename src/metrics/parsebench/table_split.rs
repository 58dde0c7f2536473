//! The splitter of ambiguous merged tables (ParseBench's `table_splitting.py`,
//! `split_ambiguous_merged_pred`), applied when a case sets
//! `allow_splitting_ambiguous_merged_tables`; rules in `docs/parsebench.md` ("The table
//! dimension").
//!
//! Only when the case has more expected than output tables. Each output table, normalized as
//! TRM normalizes it, offers its split options: not split, and for every period `P` dividing
//! its width (at least two segments) under which some header row (of its header block, found
//! as title stripping finds it) repeats — each later segment matching the first in ≥ 80 % of
//! its slots (`fuzz.ratio` ≥ 0.9 lower-cased, or both empty) — the `width / P` column slices
//! (trailing empty rows dropped). The combination over the tables that offer a split (at most
//! 256) closest to the expected count, then with the most repeating header rows, then the
//! largest periods, replaces the tables when it beats splitting nothing.

use std::collections::{BTreeMap, BTreeSet};

use super::normalize::{normalize_text, py_strip};
use super::table_data::TableData;
use super::title_strip::{col_header_rows, td_title_rows};
use super::trm::{normalize_table, trm_cell};
use crate::metrics::fuzz::ratio;

const SAFETY_CAP: usize = 256;

/// One way to cut one table: (segments, repeating header rows, period, sub-tables).
type Split = (usize, usize, usize, Option<Vec<TableData>>);

fn repeats(vals: &[String], period: usize) -> bool {
    let first = &vals[..period];
    (1..vals.len() / period).all(|s| {
        let seg = &vals[s * period..(s + 1) * period];
        let hits = first
            .iter()
            .zip(seg)
            .filter(|(a, b)| {
                ratio(&a.to_lowercase(), &b.to_lowercase()) / 100.0 >= 0.9
                    || (a.is_empty() && b.is_empty())
            })
            .count();
        hits as f64 >= period as f64 * 0.8
    })
}

/// `_resolve_header_row_values`: per header row, each column's header text.
fn header_values(t: &TableData, block: &BTreeSet<usize>) -> Vec<Vec<String>> {
    let mut look: BTreeMap<(usize, usize), String> = BTreeMap::new();
    for (c, v) in &t.col_headers {
        for (r, s) in v {
            look.insert((*c, *r), trm_cell(&normalize_text(py_strip(s))));
        }
    }
    block
        .iter()
        .map(|r| (0..t.cols).map(|c| look.get(&(c, *r)).cloned().unwrap_or_default()).collect())
        .collect()
}

/// `build_sub_table`: columns `start..end`, trailing empty rows dropped.
fn sub_table(t: &TableData, start: usize, end: usize) -> TableData {
    let data: Vec<Vec<String>> = t.data.iter().map(|r| r[start..end].to_vec()).collect();
    let keep =
        data.iter().rposition(|r| r.iter().any(|c| !py_strip(c).is_empty())).map_or(0, |i| i + 1);
    TableData {
        cols: end - start,
        data: data[..keep].to_vec(),
        header_rows: t.header_rows.clone(),
        header_cols: t
            .header_cols
            .iter()
            .filter(|c| (start..end).contains(*c))
            .map(|c| c - start)
            .collect(),
        col_headers: (start..end)
            .filter_map(|c| Some((c - start, t.col_headers.get(&c)?.clone())))
            .collect(),
        row_headers: BTreeMap::new(),
        header_cells: t
            .header_cells
            .iter()
            .filter(|(r, c)| (start..end).contains(c) && *r < keep)
            .map(|(r, c)| (*r, c - start))
            .collect(),
    }
}

/// `enumerate_split_options` on a normalized table: not split first.
fn options(t: &TableData) -> Vec<Split> {
    let mut out: Vec<Split> = vec![(1, 0, 0, None)];
    if t.is_empty() {
        return out;
    }
    let nominal = &t.header_rows;
    let td = td_title_rows(t, nominal);
    let block = col_header_rows(t, nominal, &td);
    if block.is_empty() || t.cols < 2 {
        return out;
    }
    let rows = header_values(t, &block);
    for p in 1..=t.cols / 2 {
        if t.cols % p != 0 || t.cols / p < 2 {
            continue;
        }
        let n = rows.iter().filter(|r| repeats(r, p)).count();
        if n > 0 {
            let segs = t.cols / p;
            let subs = (0..segs).map(|s| sub_table(t, s * p, (s + 1) * p)).collect();
            out.push((segs, n, p, Some(subs)));
        }
    }
    out
}

/// `split_ambiguous_merged_pred`: the output tables, split where that brings their count
/// closer to the expected one.
pub fn split_merged(expected: usize, actual: Vec<TableData>) -> Vec<TableData> {
    if expected <= actual.len() || actual.is_empty() {
        return actual;
    }
    let opts: Vec<Vec<Split>> = actual.iter().map(|t| options(&normalize_table(t))).collect();
    let variable: Vec<usize> = (0..opts.len()).filter(|&i| opts[i].len() >= 2).collect();
    if variable.is_empty() {
        return actual;
    }
    let mut product = 1usize;
    for &i in &variable {
        product *= opts[i].len();
        if product > SAFETY_CAP {
            return actual;
        }
    }
    let fixed: usize =
        (0..opts.len()).filter(|i| !variable.contains(i)).map(|i| opts[i][0].0).sum();
    // Every combination, the last variable table's choice varying fastest (itertools.product).
    let mut best: Option<((usize, i64, i64), Vec<usize>)> = None;
    let mut combo = vec![0usize; variable.len()];
    'all: loop {
        let (mut segs, mut reps, mut per) = (fixed, 0i64, 0i64);
        for (&i, &k) in variable.iter().zip(&combo) {
            segs += opts[i][k].0;
            reps += opts[i][k].1 as i64;
            per += opts[i][k].2 as i64;
        }
        let score = (segs.abs_diff(expected), -reps, -per);
        if best.as_ref().is_none_or(|b| score < b.0) {
            best = Some((score, combo.clone()));
        }
        let mut k = combo.len();
        loop {
            if k == 0 {
                break 'all;
            }
            k -= 1;
            combo[k] += 1;
            if combo[k] < opts[variable[k]].len() {
                break;
            }
            combo[k] = 0;
        }
    }
    let Some((score, combo)) = best else { return actual };
    if score >= (actual.len().abs_diff(expected), 0, 0) {
        return actual;
    }
    let mut out = Vec::new();
    for (i, t) in actual.into_iter().enumerate() {
        let choice = variable.iter().position(|&v| v == i).map(|p| &opts[i][combo[p]]);
        match choice.and_then(|o| o.3.as_ref()) {
            Some(subs) => out.extend(subs.iter().cloned()),
            None => out.push(t),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metrics::parsebench::table_data::parse_table;

    #[test]
    fn side_by_side_tables_are_split_when_more_are_expected() {
        let merged = parse_table(
            "<table><tr><th>Name</th><th>Age</th><th>Name</th><th>Age</th></tr>\
             <tr><td>Ann</td><td>31</td><td>Bob</td><td>42</td></tr>\
             <tr><td>Cy</td><td>5</td><td></td><td></td></tr></table>",
        )
        .unwrap();
        let out = split_merged(2, vec![merged.clone()]);
        assert_eq!(out.len(), 2);
        // Sub-tables carry the normalized text; the second loses its empty last row.
        assert_eq!(out[0].data, vec![vec!["name", "age"], vec!["ann", "31"], vec!["cy", "5"]]);
        assert_eq!(out[1].data, vec![vec!["name", "age"], vec!["bob", "42"]]);
        // Not when as many tables are expected as given.
        assert_eq!(split_merged(1, vec![merged.clone()]), vec![merged]);
        // No repeating header: nothing to split.
        let plain = parse_table(
            "<table><tr><th>A</th><th>B</th><th>C</th><th>D</th></tr><tr><td>1</td><td>2</td><td>3</td><td>4</td></tr></table>",
        )
        .unwrap();
        assert_eq!(split_merged(2, vec![plain.clone()]).len(), 1);
    }
}
