//! Agreement between two providers' readings of one page, with no truth: pure functions, no
//! IO (the rules are in `docs/agree.md`).
//!
//! A page is seen through a [`PageView`]: its text blocks' normalised text (normalised by the
//! caller with the omnidoc suite's `normalize_text`), its tables, and its display formulas
//! (normalised with the omnidoc suite's `normalized_formula`). Two views give four measures,
//! each in `[0, 1]` (1 = the same) or `None` where it is undefined:
//!
//! * **text**: `1 − lev(a, b) / max(|a|, |b|)` of the page texts (the omnidoc suite's
//!   normalised edit distance, on the one Levenshtein core [`crate::metrics::levenshtein`]);
//!   undefined when both are empty, 0 when one is.
//! * **table**: the tables paired as the table suite pairs a prediction with a truth
//!   (`crate::metrics::table::match_tables`); a pair scores its TEDS, a table left unpaired
//!   on either side 0; the mean over pairs and unpaired tables. Undefined when neither has a
//!   table.
//! * **formula**: the display formulas paired by the Hungarian assignment of least total
//!   normalised edit distance (OmniDocBench's `simple_match` rule); a pair scores its edit
//!   similarity, an unpaired formula 0; the mean. Undefined when neither has one.
//! * **order**: the text blocks paired ([`match_blocks`]), then `1 − lev(A, B) / k` where `A`
//!   is `0..k` (the pairs in the first provider's order) and `B` the same pairs' ranks in the
//!   second provider's order. Undefined with fewer than two pairs.
//!
//! A page's **spread** ([`spread`]) is `1 − the mean text agreement over the provider pairs
//! that have it defined`; [`cmp_disagreement`] orders pages by it, most disagreed first.

use std::cmp::Ordering;
use std::collections::HashMap;

use serde::Serialize;

use crate::doc::Table;
use crate::metrics::levenshtein::{levenshtein_chars, Pattern, Peq};
use crate::metrics::table::{match_tables, teds_html};

/// Page texts are cut to this many normalised characters before the edit distance (a guard
/// against a garbage output of megabytes; a real page has a few thousand).
pub const MAX_TEXT_CHARS: usize = 50_000;

/// At most this many blocks (or formulas) on each side go into one Hungarian assignment, after
/// the identical ones are paired; the rest stay unpaired.
pub const MAX_ASSIGN: usize = 200;

/// The smallest edit similarity of two blocks that lets them be paired for the order measure
/// (the table suite's plausibility bound for flattened text, [`crate::metrics::table::MIN_EDIT`]).
pub const MIN_BLOCK_SIMILARITY: f64 = crate::metrics::table::MIN_EDIT;

/// One provider's reading of one page, normalised.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PageView {
    /// Each text block's normalised text, in the provider's reading order (empty ones left
    /// out).
    pub blocks: Vec<Vec<char>>,
    /// The tables, in order.
    pub tables: Vec<Table>,
    /// The display formulas, normalised (empty ones left out).
    pub formulas: Vec<Vec<char>>,
}

impl PageView {
    /// The page text: the blocks' normalised text joined, cut to [`MAX_TEXT_CHARS`].
    pub fn text(&self) -> Vec<char> {
        self.blocks.iter().flatten().copied().take(MAX_TEXT_CHARS).collect()
    }
}

listed_enum! {
    /// The four measures, in report order.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
    #[serde(rename_all = "lowercase")]
    pub enum Measure {
        /// Page text edit similarity.
        Text,
        /// TEDS of paired tables.
        Table,
        /// Edit similarity of paired display formulas.
        Formula,
        /// Order of paired text blocks.
        Order,
    }
}

impl Measure {
    /// The measure's name in the output.
    pub fn as_str(self) -> &'static str {
        match self {
            Measure::Text => "text",
            Measure::Table => "table",
            Measure::Formula => "formula",
            Measure::Order => "order",
        }
    }
}

/// The four measures of one page and one pair of providers.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct Agreement {
    /// Text agreement.
    pub text: Option<f64>,
    /// Table agreement.
    pub table: Option<f64>,
    /// Formula agreement.
    pub formula: Option<f64>,
    /// Reading-order agreement.
    pub order: Option<f64>,
}

impl Agreement {
    /// One measure.
    pub fn get(&self, m: Measure) -> Option<f64> {
        match m {
            Measure::Text => self.text,
            Measure::Table => self.table,
            Measure::Formula => self.formula,
            Measure::Order => self.order,
        }
    }
}

/// Compares two readings of one page.
pub fn compare(a: &PageView, b: &PageView) -> Agreement {
    Agreement {
        text: text_agreement(&a.text(), &b.text()),
        table: table_agreement(&a.tables, &b.tables),
        formula: formula_agreement(&a.formulas, &b.formulas),
        order: order_agreement(&a.blocks, &b.blocks),
    }
}

/// `1 − lev / max len`, or `None` when both are empty.
pub fn text_agreement(a: &[char], b: &[char]) -> Option<f64> {
    let m = a.len().max(b.len());
    (m > 0).then(|| 1.0 - levenshtein_chars(a, b) as f64 / m as f64)
}

/// Edit similarity of two non-empty-or-empty strings (1 for two empty ones).
fn similarity(a: &[char], b: &[char]) -> f64 {
    text_agreement(a, b).unwrap_or(1.0)
}

/// Mean over `pairs` scores and `unpaired` zeros; `None` when there is nothing.
fn mean_with_zeros(scores: &[f64], unpaired: usize) -> Option<f64> {
    let n = scores.len() + unpaired;
    (n > 0).then(|| scores.iter().sum::<f64>() / n as f64)
}

/// TEDS of a pair as the table suite computes it (both tables through `teds_html`).
pub fn table_teds(pred: &Table, gt: &Table) -> f64 {
    crate::metrics::teds::teds(&teds_html(pred), &teds_html(gt), false)
}

/// TEDS of the tables paired as the table suite pairs them, unpaired tables 0.
pub fn table_agreement(a: &[Table], b: &[Table]) -> Option<f64> {
    let pairing = match_tables(a, b);
    let scores: Vec<f64> = pairing
        .iter()
        .enumerate()
        .filter_map(|(i, j)| j.map(|j| table_teds(&b[j], &a[i])))
        .collect();
    mean_with_zeros(&scores, a.len() + b.len() - 2 * scores.len())
}

/// Edit similarity of the formulas paired by least total edit distance, unpaired ones 0.
pub fn formula_agreement(a: &[Vec<char>], b: &[Vec<char>]) -> Option<f64> {
    let pairs = assign(a, b, 0.0);
    let scores: Vec<f64> = pairs.iter().map(|&(i, j)| similarity(&a[i], &b[j])).collect();
    mean_with_zeros(&scores, a.len() + b.len() - 2 * scores.len())
}

/// Pairs the blocks of two readings one to one: identical texts first (in order), then the
/// rest by the Hungarian assignment of greatest total edit similarity, keeping pairs with a
/// similarity of at least [`MIN_BLOCK_SIMILARITY`]. Returned sorted by the first side.
pub fn match_blocks(a: &[Vec<char>], b: &[Vec<char>]) -> Vec<(usize, usize)> {
    assign(a, b, MIN_BLOCK_SIMILARITY)
}

/// Identical items paired first, the rest (at most [`MAX_ASSIGN`] a side) by the Hungarian
/// assignment of greatest total similarity, keeping pairs of similarity ≥ `min` (and > 0).
fn assign(a: &[Vec<char>], b: &[Vec<char>], min: f64) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut free_b: HashMap<&[char], Vec<usize>> = HashMap::new();
    for (j, t) in b.iter().enumerate().rev() {
        free_b.entry(t.as_slice()).or_default().push(j);
    }
    let mut rest_a = Vec::new();
    for (i, t) in a.iter().enumerate() {
        match free_b.get_mut(t.as_slice()).and_then(Vec::pop) {
            Some(j) => out.push((i, j)),
            None => rest_a.push(i),
        }
    }
    let mut rest_b: Vec<usize> = free_b.into_values().flatten().collect();
    rest_b.sort_unstable();
    rest_a.truncate(MAX_ASSIGN);
    rest_b.truncate(MAX_ASSIGN);
    if !rest_a.is_empty() && !rest_b.is_empty() {
        let mut sims = Vec::with_capacity(rest_a.len() * rest_b.len());
        for &i in &rest_a {
            // One pattern per row, run against every column: the exact distance in the
            // unbanded (global) mode, which for block-length texts costs less than setting up
            // a band per pair; the value is the same Levenshtein distance.
            let mut pattern = None;
            for &j in &rest_b {
                // Two lengths this far apart cannot reach `min`: skip the distance.
                let (la, lb) = (a[i].len(), b[j].len());
                let longest = la.max(lb);
                let bound = 1.0 - la.abs_diff(lb) as f64 / longest.max(1) as f64;
                sims.push(if bound < min {
                    0.0
                } else if longest == 0 {
                    1.0
                } else {
                    let p = pattern.get_or_insert_with(|| Pattern::new(&a[i]));
                    1.0 - p.distance(&b[j]) as f64 / longest as f64
                });
            }
        }
        if let Ok((rows, cols)) = lsap::solve(rest_a.len(), rest_b.len(), &sims, true) {
            for (r, c) in rows.into_iter().zip(cols) {
                let s = sims[r * rest_b.len() + c];
                if s > 0.0 && s >= min {
                    out.push((rest_a[r], rest_b[c]));
                }
            }
        }
    }
    out.sort_unstable();
    out
}

/// `1 − lev(A, B) / k` over the `k` paired blocks (see the module doc); `None` when `k < 2`.
pub fn order_agreement(a: &[Vec<char>], b: &[Vec<char>]) -> Option<f64> {
    order_of_pairs(&match_blocks(a, b))
}

/// The order measure of pairs `(i, j)` sorted by `i`.
pub fn order_of_pairs(pairs: &[(usize, usize)]) -> Option<f64> {
    let k = pairs.len();
    if k < 2 {
        return None;
    }
    // Rank r is the r-th pair in the first side's order; B lists the ranks in the second's.
    let mut by_b: Vec<(usize, u32)> =
        pairs.iter().enumerate().map(|(r, &(_, j))| (j, r as u32)).collect();
    by_b.sort_unstable();
    let peq = Peq::new((0..k as u32).collect(), k);
    let d = peq.global(by_b.into_iter().map(|(_, r)| r));
    Some(1.0 - d as f64 / k as f64)
}

/// `1 − mean` of the defined values (the page's text agreements over its provider pairs);
/// `None` when none is defined.
pub fn spread(values: impl IntoIterator<Item = Option<f64>>) -> Option<f64> {
    mean_defined(values).0.map(|m| 1.0 - m)
}

/// The ranking order of two pages given as (spread, document name, page): larger spread
/// first, pages without one last; ties by document name, then page (so the order never
/// depends on how the pages were visited).
pub fn cmp_disagreement(x: (Option<f64>, &str, u32), y: (Option<f64>, &str, u32)) -> Ordering {
    let key = |s: Option<f64>| s.unwrap_or(f64::NEG_INFINITY);
    key(y.0).total_cmp(&key(x.0)).then_with(|| x.1.cmp(y.1)).then(x.2.cmp(&y.2))
}

/// Mean of the defined values, and how many there were.
pub fn mean_defined(values: impl IntoIterator<Item = Option<f64>>) -> (Option<f64>, usize) {
    let (s, n) = values.into_iter().flatten().fold((0.0, 0usize), |(s, n), v| (s + v, n + 1));
    ((n > 0).then(|| s / n as f64), n)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(s: &str) -> Vec<char> {
        s.chars().collect()
    }

    fn table(rows: &[&[&str]]) -> Table {
        Table::from_rows(rows, 0)
    }

    #[test]
    fn text_is_one_minus_the_normalised_distance() {
        // kitten → sitting: 3 edits over 7 chars.
        assert_eq!(text_agreement(&c("kitten"), &c("sitting")), Some(1.0 - 3.0 / 7.0));
        assert_eq!(text_agreement(&c("same"), &c("same")), Some(1.0));
        assert_eq!(text_agreement(&c("abc"), &c("")), Some(0.0));
        assert_eq!(text_agreement(&c(""), &c("")), None);
    }

    #[test]
    fn page_text_joins_blocks_and_is_capped() {
        let v = PageView { blocks: vec![c("ab"), c("cd")], ..Default::default() };
        assert_eq!(v.text(), c("abcd"));
        let long = PageView { blocks: vec![vec!['x'; MAX_TEXT_CHARS + 10]], ..Default::default() };
        assert_eq!(long.text().len(), MAX_TEXT_CHARS);
    }

    #[test]
    fn order_counts_moved_blocks() {
        let a = vec![c("alpha"), c("bravo"), c("charlie"), c("delta")];
        assert_eq!(order_agreement(&a, &a), Some(1.0));
        // Two neighbours swapped: A = 0 1 2 3, B = 0 2 1 3, two substitutions over 4.
        let b = vec![c("alpha"), c("charlie"), c("bravo"), c("delta")];
        assert_eq!(order_agreement(&a, &b), Some(0.5));
        // The last block first: B = 3 0 1 2, one deletion and one insertion over 4.
        let b = vec![c("delta"), c("alpha"), c("bravo"), c("charlie")];
        assert_eq!(order_agreement(&a, &b), Some(0.5));
        // One pair only: undefined.
        assert_eq!(order_agreement(&a[..1], &a[..1]), None);
        // Nothing alike: no pairs, undefined.
        assert_eq!(order_agreement(&a, &[c("zzzzzzzz"), c("yyyyyyy")]), None);
    }

    #[test]
    fn blocks_pair_identical_first_then_similar_above_the_bound() {
        let a = vec![c("introduction"), c("resultsaregood"), c("xyz")];
        let b = vec![c("resultsaregod"), c("introduction"), c("qqqqqqqqqq")];
        // "resultsaregood" vs "resultsaregod": 1 edit over 14 → 0.93, paired; xyz/qqq… not.
        assert_eq!(match_blocks(&a, &b), vec![(0, 1), (1, 0)]);
        // Repeated identical blocks pair in order.
        let a = vec![c("same"), c("same")];
        assert_eq!(match_blocks(&a, &a), vec![(0, 0), (1, 1)]);
    }

    #[test]
    fn formulas_pair_and_unpaired_ones_count_zero() {
        let a = vec![c("x^2+y^2"), c("e=mc^2")];
        let b = vec![c("e=mc^2")];
        // One identical pair (1.0) and one unpaired (0): mean 0.5.
        assert_eq!(formula_agreement(&a, &b), Some(0.5));
        // ab vs ac: 1 − 1/2.
        assert_eq!(formula_agreement(&[c("ab")], &[c("ac")]), Some(0.5));
        assert_eq!(formula_agreement(&a, &[]), Some(0.0));
        assert_eq!(formula_agreement(&[], &[]), None);
    }

    #[test]
    fn tables_score_teds_and_unpaired_ones_zero() {
        let t = table(&[&["a", "b"], &["1", "2"]]);
        let one = std::slice::from_ref(&t);
        assert_eq!(table_agreement(one, one), Some(1.0));
        assert_eq!(table_agreement(one, &[]), Some(0.0));
        assert_eq!(table_agreement(&[], &[]), None);
        // One pair identical, one extra table on one side: (1 + 0) / 2.
        let other = table(&[&["zz", "yy"], &["qq", "ww"]]);
        assert_eq!(table_agreement(&[t.clone(), other], one), Some(0.5));
        // A changed cell: TEDS below 1, the value TEDS itself gives.
        let u = table(&[&["a", "b"], &["1", "3"]]);
        let v = table_agreement(one, std::slice::from_ref(&u)).unwrap();
        assert!(v < 1.0 && v > 0.5, "{v}");
        assert_eq!(v, table_teds(&u, &t));
    }

    #[test]
    fn compare_reports_each_measure_and_undefined_ones() {
        let a = PageView { blocks: vec![c("hello"), c("world")], ..Default::default() };
        let empty = PageView::default();
        let g = compare(&a, &empty);
        assert_eq!(g.text, Some(0.0));
        assert_eq!(g.table, None);
        assert_eq!(g.formula, None);
        assert_eq!(g.order, None);
        let g = compare(&a, &a);
        assert_eq!((g.text, g.order), (Some(1.0), Some(1.0)));
        assert_eq!(compare(&empty, &empty), Agreement::default());
    }

    #[test]
    fn spread_and_ranking() {
        assert_eq!(spread([Some(1.0), Some(0.5), None]), Some(0.25));
        assert_eq!(spread([None, None]), None);
        let mut pages =
            [(Some(0.2), "b", 0), (Some(0.2), "a", 1), (Some(0.2), "a", 0), (Some(0.9), "c", 0)];
        pages.sort_by(|x, y| cmp_disagreement(*x, *y));
        let order: Vec<(&str, u32)> = pages.iter().map(|p| (p.1, p.2)).collect();
        assert_eq!(order, vec![("c", 0), ("a", 0), ("a", 1), ("b", 0)]);
        assert_eq!(cmp_disagreement((None, "a", 0), (Some(0.0), "b", 0)), Ordering::Greater);
        assert_eq!(mean_defined([Some(1.0), None, Some(0.0)]), (Some(0.5), 2));
    }
}
