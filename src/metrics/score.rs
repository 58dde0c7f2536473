//! SCORE's table metrics (Li et al. 2025, "SCORE: A Semantic Evaluation Framework for Generative
//! Document Parsing"; Unstructured's `unstructured-eval-metrics`, `TableAlignment`): a table is a
//! list of format-agnostic cell tuples `(row, col, content)`, and a (GT, predicted) table pair
//! gets a **structure** score (*index accuracy*: do cells whose content is found sit in the
//! right row and column?) and a **content** score (*content accuracy*: how alike is the text of
//! each GT row and column to the predicted row or column with the same index?), each the mean of
//! a row and a column part. pdf-parse-bench's study (the seed's Table 1) reports both and their
//! mean, `SCORE-Avg`. The rules, with the reference's quirks kept and the ones not kept, are in
//! `docs/table-metrics.md` §SCORE. Pure functions, no IO.

use crate::doc::Table;
use crate::metrics::difflib::ratio_str;
use crate::metrics::levenshtein::levenshtein;

/// The smallest `difflib` ratio at which a predicted cell's content finds a GT cell.
pub const CUTOFF: f64 = 0.8;

/// SCORE's scores of one (GT, predicted) table pair.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Score {
    /// Share of matched cells in the GT cell's row.
    pub row_index: f64,
    /// Share of matched cells in the GT cell's column.
    pub col_index: f64,
    /// Mean row-text similarity.
    pub row_content: f64,
    /// Mean column-text similarity.
    pub col_content: f64,
    /// Predicted cells whose content found a GT cell.
    pub matched_cells: usize,
}

impl Score {
    /// Structure: (row index accuracy + column index accuracy) / 2.
    pub fn index(&self) -> f64 {
        (self.row_index + self.col_index) / 2.0
    }

    /// Content: (row content accuracy + column content accuracy) / 2.
    pub fn content(&self) -> f64 {
        (self.row_content + self.col_content) / 2.0
    }

    /// SCORE-Avg: the mean of structure and content.
    pub fn avg(&self) -> f64 {
        (self.index() + self.content()) / 2.0
    }
}

/// A table's cell tuples `(row, col, content)`, sorted by row then column (every cell, empty
/// ones too: an HTML table lists them).
pub(crate) fn tuples(t: &Table) -> Vec<(u32, u32, &str)> {
    let mut v: Vec<(u32, u32, &str)> =
        t.cells.iter().map(|c| (c.row, c.col, c.text.as_str())).collect();
    v.sort_by_key(|&(r, c, _)| (r, c));
    v
}

/// `difflib.get_close_matches(word, possibilities, n=1, cutoff)`: the possibility with the
/// highest `SequenceMatcher(None, possibility, word).ratio()` at or above `cutoff`, ties to the
/// greatest string (Python compares `(score, string)` tuples).
pub(crate) fn close_match<'a>(
    word: &str,
    possibilities: &[&'a str],
    cutoff: f64,
) -> Option<&'a str> {
    let mut best: Option<(f64, &'a str)> = None;
    for &p in possibilities {
        let r = ratio_str(p, word);
        if r >= cutoff && best.is_none_or(|(s, b)| r > s || (r == s && p > b)) {
            best = Some((r, p));
        }
    }
    best.map(|(_, p)| p)
}

/// `" ".join(s.split())`, the reference's whitespace standardisation.
fn squash(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The reference's `calculate_edit_distance(gt, pred, return_as="score")`: `1 − min(lev /
/// max(len(pred), 1), 1)` on whitespace-squashed strings. The denominator is the *prediction's*
/// length, as the reference passes it as the `source` argument.
pub(crate) fn edit_score(gt: &str, pred: &str) -> f64 {
    let (g, p) = (squash(gt), squash(pred));
    let d = levenshtein(&g, &p) as f64;
    let len = p.chars().count().max(1) as f64;
    1.0 - (d / len).clamp(0.0, 1.0)
}

/// Content accuracy along one axis: GT cells grouped by `key` (row or column), each group's
/// contents joined with a space in tuple order, and compared with the predicted group of the
/// same index (empty if there is none); the mean over GT groups, 0 for a table without cells.
fn content_axis(
    gt: &[(u32, u32, &str)],
    pred: &[(u32, u32, &str)],
    key: fn(&(u32, u32, &str)) -> u32,
) -> f64 {
    let group = |cells: &[(u32, u32, &str)]| {
        let mut m: std::collections::BTreeMap<u32, Vec<&str>> = Default::default();
        for c in cells {
            m.entry(key(c)).or_default().push(c.2);
        }
        m.into_iter().map(|(k, v)| (k, v.join(" "))).collect::<std::collections::BTreeMap<_, _>>()
    };
    let (g, p) = (group(gt), group(pred));
    if g.is_empty() {
        return 0.0;
    }
    let sum: f64 = g
        .iter()
        .map(|(k, text)| edit_score(text, p.get(k).map(String::as_str).unwrap_or("")))
        .sum();
    sum / g.len() as f64
}

/// Scores one (GT, predicted) table pair (see the module doc and `docs/table-metrics.md`).
pub fn score(gt: &Table, pred: &Table) -> Score {
    let (g, p) = (tuples(gt), tuples(pred));
    let lower: Vec<String> = g.iter().map(|c| c.2.to_lowercase()).collect();
    let possibilities: Vec<&str> = lower.iter().map(String::as_str).collect();
    let mut used = std::collections::HashSet::new();
    let (mut rows, mut cols, mut matched) = (0usize, 0usize, 0usize);
    for &(r, c, text) in &p {
        let Some(close) = close_match(&text.to_lowercase(), &possibilities, CUTOFF) else {
            continue;
        };
        let same = |i: &usize| possibilities[*i] == close;
        let mut pick = (0..g.len()).filter(same).find(|i| !used.contains(i));
        if pick.is_none() {
            // Every GT cell with this content was taken: the reference starts over.
            used.clear();
            pick = (0..g.len()).find(same);
        }
        if let Some(i) = pick {
            used.insert(i);
            matched += 1;
            rows += usize::from(g[i].0 == r);
            cols += usize::from(g[i].1 == c);
        }
    }
    let ratio = |n: usize| if matched == 0 { 0.0 } else { n as f64 / matched as f64 };
    Score {
        row_index: ratio(rows),
        col_index: ratio(cols),
        row_content: content_axis(&g, &p, |c| c.0),
        col_content: content_axis(&g, &p, |c| c.1),
        matched_cells: matched,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(rows: &[&[&str]]) -> Table {
        Table::from_rows(rows, 0)
    }

    #[test]
    fn identical_tables_score_one() {
        let t = table(&[&["Model", "Acc"], &["A", "0.91"], &["B", "0.87"]]);
        let s = score(&t, &t);
        assert_eq!((s.index(), s.content(), s.avg(), s.matched_cells), (1.0, 1.0, 1.0, 6));
    }

    #[test]
    fn a_dropped_first_row_shifts_every_index_and_row_text() {
        // GT 3×2; the prediction lost the header row, so its rows are numbered one lower.
        let gt = table(&[&["Model", "Acc"], &["A", "0.91"], &["B", "0.87"]]);
        let pred = table(&[&["A", "0.91"], &["B", "0.87"]]);
        let s = score(&gt, &pred);
        // By hand: the 4 predicted cells all find their GT cell; rows 0/1 vs GT rows 1/2: no
        // row agrees, every column does.
        assert_eq!((s.matched_cells, s.row_index, s.col_index), (4, 0.0, 1.0));
        // Rows: GT "Model Acc" vs pred "A 0.91": lev 8, pred length 6 -> clamped to 1 -> 0;
        // GT "A 0.91" vs pred "B 0.87": lev 3 / 6 -> 0.5; GT "B 0.87" vs nothing -> 0.
        assert!((s.row_content - 0.5 / 3.0).abs() < 1e-12, "{s:?}");
        // Columns: GT "Model A B" vs pred "A B": lev 6 / 3 -> 0; GT "Acc 0.91 0.87" vs
        // "0.91 0.87": lev 4 / 9 -> 5/9.
        assert!((s.col_content - (5.0 / 9.0) / 2.0).abs() < 1e-12, "{s:?}");
        assert!((s.index() - 0.5).abs() < 1e-12);
    }

    #[test]
    fn a_typo_in_one_cell_is_a_content_error_but_still_found() {
        let gt = table(&[&["Method", "Score"], &["Baseline", "12.5"]]);
        let pred = table(&[&["Method", "Score"], &["Baselin", "12.5"]]);
        let s = score(&gt, &pred);
        // "baselin" vs "baseline": ratio 14/15 >= 0.8, found in place.
        assert_eq!((s.matched_cells, s.index()), (4, 1.0));
        // Row 1: "Baseline 12.5" vs "Baselin 12.5": lev 1 / 12; col 0: "Method Baseline" vs
        // "Method Baselin": lev 1 / 14.
        let want = ((1.0 + (1.0 - 1.0 / 12.0)) / 2.0 + (1.0 + (1.0 - 1.0 / 14.0)) / 2.0) / 2.0;
        assert!((s.content() - want).abs() < 1e-12, "{s:?}");
    }

    #[test]
    fn repeated_contents_are_used_in_order_then_start_over() {
        // Three "x" in the prediction, two in the GT: the third takes the first GT "x" again.
        let gt = table(&[&["x", "x"]]);
        let pred = table(&[&["x", "x", "x"]]);
        let s = score(&gt, &pred);
        // Matches: (0,0)->(0,0), (0,1)->(0,1), (0,2)->(0,0): rows 3/3, columns 2/3.
        assert_eq!(s.matched_cells, 3);
        assert_eq!(s.row_index, 1.0);
        assert!((s.col_index - 2.0 / 3.0).abs() < 1e-12);
    }

    #[test]
    fn nothing_found_scores_zero_structure() {
        let gt = table(&[&["alpha", "beta"]]);
        let pred = table(&[&["zzz", "qqq"]]);
        let s = score(&gt, &pred);
        assert_eq!((s.matched_cells, s.index()), (0, 0.0));
    }

    #[test]
    fn close_match_takes_the_best_ratio_then_the_greatest_string() {
        assert_eq!(close_match("abcd", &["abce", "abcd", "zzzz"], 0.6), Some("abcd"));
        // "ab" vs "abc" and "abd": equal ratios 0.8; Python's nlargest takes "abd".
        assert_eq!(close_match("ab", &["abc", "abd"], 0.8), Some("abd"));
        assert_eq!(close_match("ab", &["xyz"], 0.8), None);
        // Empty strings match each other (ratio 1.0).
        assert_eq!(close_match("", &[""], 0.8), Some(""));
    }

    #[test]
    fn edit_score_divides_by_the_prediction_length() {
        assert_eq!(edit_score("abcdef", "abc"), 0.0);
        assert!((edit_score("abc", "abcdef") - 0.5).abs() < 1e-12);
        assert_eq!(edit_score(" a  b ", "a b"), 1.0);
        assert_eq!(edit_score("", ""), 1.0);
        assert_eq!(edit_score("abc", ""), 0.0);
    }
}
