//! Table-suite metrics: pairing ground-truth and predicted tables by content, and per-pair
//! scores (TEDS, TEDS-S, GriTS-Top, GriTS-Con, value accuracy, SCORE). Pure functions, no IO.
//!
//! **Matching** (`match_tables`). Tables are never paired by index. For every (GT, predicted)
//! pair, [`similarity`] computes
//! * `overlap`: the Dice coefficient of the two multisets of non-empty cell keys
//!   (`2·|A ∩ B| / (|A| + |B|)`), a cell key being its text NFKC-normalized, lowercased, with
//!   every whitespace removed and `− – —` read as `-`;
//! * `edit`: `1 − levenshtein / max(len)` of the two tables' flattened text
//!   (`Table::flat_text`, whitespace collapsed).
//!
//! The pair's weight is `overlap + 0.001 · edit` (overlap first, edit similarity breaks ties),
//! and the assignment maximizing the total weight is found with the Hungarian solver (`lsap`).
//! A pair the solver returns is kept only if it is plausible: `overlap ≥ 0.1` or `edit ≥ 0.5`;
//! otherwise the GT table counts as missed and the prediction as a false positive.
//!
//! **Value accuracy** (`value_accuracy`). A *numeric cell* is a GT cell whose text contains
//! an ASCII digit and no alphabetic character (`0.89`, `+2.8`, `98.87±0.00`, `12,345`, `(3.1)`,
//! `45%`; not `Qwen2.5-7B`, not `τ`). Its *values* are its number tokens (`number_tokens`):
//! maximal runs of digits with inner `.` or `,` between digits, with a leading `-` when a minus
//! sign (`- − – —`) directly precedes the digits and does not follow a digit (a `+` sign is
//! dropped: `+2.8` and `2.8` are the same value). Its *matched cell* is found through the row
//! and column alignment that GriTS-Con computes for the pair: the first grid slot of the GT cell
//! (row-major) whose row and column are both aligned gives the predicted slot, and the predicted
//! cell covering that slot is the matched cell (a hole reads as empty). The GT cell is correct
//! iff the matched cell's number tokens equal its own, in order: so `1.12 → 112`, `+2.8 → −2.8`,
//! `0.5 → 0.50` and a cell left unaligned are errors. `value_acc` = correct / numeric cells,
//! `None` when the GT table has no numeric cell.
//!
//! **TEDS** is PubTabNet's ([`crate::metrics::teds`]) on [`Table::to_html`] wrapped as
//! `<html><body>…</body></html>` on both sides, with every cell rendered as `td`: PubTabNet's
//! TEDS treats `th` as an inner node whose text is not compared, and whether a row is a header
//! is not what is measured here (GT headers come from LaTeX rules, predicted ones from the
//! provider's guess).

use std::collections::HashMap;

use unicode_normalization::UnicodeNormalization;

use crate::doc::Table;
use crate::metrics::grits::{self, Alignment, Grits};
use crate::metrics::levenshtein;

/// The smallest cell-key overlap that makes a pair plausible.
pub const MIN_OVERLAP: f64 = 0.1;
/// The smallest flattened-text similarity that makes a pair plausible without cell overlap.
pub const MIN_EDIT: f64 = 0.5;

/// How alike two tables' contents are.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Similarity {
    /// Dice coefficient of the cell-key multisets.
    pub overlap: f64,
    /// Normalized edit similarity of the flattened text.
    pub edit: f64,
}

impl Similarity {
    /// The Hungarian weight: overlap first, edit similarity as a tie-break.
    pub(crate) fn weight(&self) -> f64 {
        self.overlap + 0.001 * self.edit
    }

    /// Whether the pair is plausible enough to be a match.
    pub(crate) fn plausible(&self) -> bool {
        self.overlap >= MIN_OVERLAP || self.edit >= MIN_EDIT
    }
}

fn dash_to_minus(c: char) -> char {
    match c {
        '\u{2212}' | '\u{2013}' | '\u{2014}' | '\u{2012}' => '-',
        c => c,
    }
}

/// A cell's comparison key: NFKC, lowercase, no whitespace, dashes as `-`.
pub(crate) fn cell_key(text: &str) -> String {
    text.nfkc()
        .filter(|c| !c.is_whitespace())
        .flat_map(char::to_lowercase)
        .map(dash_to_minus)
        .collect()
}

fn collapse_ws(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Returns the content similarity of a GT and a predicted table.
pub fn similarity(gt: &Table, pred: &Table) -> Similarity {
    let keys = |t: &Table| {
        let mut m: HashMap<String, usize> = HashMap::new();
        for c in &t.cells {
            let k = cell_key(&c.text);
            if !k.is_empty() {
                *m.entry(k).or_default() += 1;
            }
        }
        m
    };
    let (a, b) = (keys(gt), keys(pred));
    let (na, nb): (usize, usize) = (a.values().sum(), b.values().sum());
    let common: usize = a.iter().map(|(k, n)| (*n).min(b.get(k).copied().unwrap_or(0))).sum();
    let overlap = if na + nb == 0 { 0.0 } else { 2.0 * common as f64 / (na + nb) as f64 };
    let edit =
        levenshtein::similarity(&collapse_ws(&gt.flat_text()), &collapse_ws(&pred.flat_text()));
    Similarity { overlap, edit }
}

/// Pairs GT tables with predicted tables: `out[g]` is the predicted index matched to GT table
/// `g`, or `None` (see the module doc).
pub(crate) fn match_tables(gt: &[Table], pred: &[Table]) -> Vec<Option<usize>> {
    let mut out = vec![None; gt.len()];
    if gt.is_empty() || pred.is_empty() {
        return out;
    }
    let sims: Vec<Vec<Similarity>> =
        gt.iter().map(|g| pred.iter().map(|p| similarity(g, p)).collect()).collect();
    let weights: Vec<f64> = sims
        .iter()
        .flat_map(|row| row.iter().map(|s| if s.plausible() { s.weight() } else { 0.0 }))
        .collect();
    // Weights are finite and the matrix is dense, so the problem is always feasible.
    if let Ok((rows, cols)) = lsap::solve(gt.len(), pred.len(), &weights, true) {
        for (g, p) in rows.into_iter().zip(cols) {
            if sims[g][p].plausible() {
                out[g] = Some(p);
            }
        }
    }
    out
}

/// Returns a cell's number tokens (see the module doc), signs normalized.
pub(crate) fn number_tokens(text: &str) -> Vec<String> {
    let chars: Vec<char> = text.nfkc().map(dash_to_minus).collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        if !chars[i].is_ascii_digit() {
            i += 1;
            continue;
        }
        let start = i;
        while i < chars.len()
            && (chars[i].is_ascii_digit()
                || (matches!(chars[i], '.' | ',')
                    && chars.get(i + 1).is_some_and(char::is_ascii_digit)
                    && i > start))
        {
            i += 1;
        }
        let mut tok: String = chars[start..i].iter().collect();
        let minus = start > 0
            && chars[start - 1] == '-'
            && (start < 2 || !chars[start - 2].is_ascii_digit());
        if minus {
            tok.insert(0, '-');
        }
        out.push(tok);
    }
    out
}

/// Whether a GT cell is numeric: it has an ASCII digit and no alphabetic character.
pub(crate) fn is_numeric_cell(text: &str) -> bool {
    text.chars().any(|c| c.is_ascii_digit()) && !text.chars().any(char::is_alphabetic)
}

/// One numeric GT cell whose value did not survive.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ValueError {
    /// The GT cell's top-left grid position.
    pub row: u32,
    /// Its column.
    pub col: u32,
    /// The GT text.
    pub gt: String,
    /// The matched predicted cell's text, `None` when the cell was not aligned.
    pub pred: Option<String>,
}

/// Value accuracy of one table pair.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ValueAccuracy {
    /// Numeric GT cells.
    pub numeric: usize,
    /// Of those, cells whose values are unchanged at the matched cell.
    pub correct: usize,
    /// The others.
    pub errors: Vec<ValueError>,
}

impl ValueAccuracy {
    /// `correct / numeric`, `None` without numeric cells.
    pub fn value(&self) -> Option<f64> {
        (self.numeric > 0).then(|| self.correct as f64 / self.numeric as f64)
    }
}

/// Value accuracy of `pred` against `gt` under the GriTS-Con alignment `al` (see the module
/// doc).
pub(crate) fn value_accuracy(gt: &Table, pred: &Table, al: &Alignment) -> ValueAccuracy {
    let row_of: HashMap<usize, usize> = al.rows.iter().copied().collect();
    let col_of: HashMap<usize, usize> = al.cols.iter().copied().collect();
    let pred_idx = grits::cell_index_grid(pred);
    let mut acc = ValueAccuracy::default();
    for c in &gt.cells {
        if !is_numeric_cell(&c.text) {
            continue;
        }
        acc.numeric += 1;
        let want = number_tokens(&c.text);
        let slot = (c.row..c.row + c.row_span.max(1))
            .flat_map(|r| (c.col..c.col + c.col_span.max(1)).map(move |k| (r, k)))
            .find_map(|(r, k)| Some((*row_of.get(&(r as usize))?, *col_of.get(&(k as usize))?)));
        let got = slot.map(|(pr, pc)| match pred_idx.get(pr, pc) {
            Some(k) => pred.cells[*k].text.clone(),
            None => String::new(),
        });
        if got.as_deref().is_some_and(|g| number_tokens(g) == want) {
            acc.correct += 1;
        } else {
            acc.errors.push(ValueError { row: c.row, col: c.col, gt: c.text.clone(), pred: got });
        }
    }
    acc
}

/// Every score of one GT table.
#[derive(Debug, Clone, PartialEq)]
pub struct TableScores {
    /// TEDS.
    pub teds: f64,
    /// TEDS-S (structure only).
    pub teds_s: f64,
    /// GriTS-Top.
    pub grits_top: Grits,
    /// GriTS-Con.
    pub grits_con: Grits,
    /// Value accuracy (its `value()` is the metric).
    pub values: ValueAccuracy,
    /// SCORE's structure (index) and content accuracy ([`crate::metrics::score`]).
    pub score: crate::metrics::score::Score,
}

impl TableScores {
    /// The scores of a GT table without a match: 0 everywhere (value accuracy 0 too, with
    /// every numeric cell an error).
    pub fn missed(gt: &Table) -> TableScores {
        let zero = Grits { precision: 0.0, recall: 0.0, f: 0.0 };
        let numeric = gt.cells.iter().filter(|c| is_numeric_cell(&c.text)).count();
        TableScores {
            teds: 0.0,
            teds_s: 0.0,
            grits_top: zero,
            grits_con: zero,
            values: ValueAccuracy { numeric, correct: 0, errors: Vec::new() },
            score: Default::default(),
        }
    }

    /// Value accuracy as a metric value: 0 for a missed table even without numeric cells.
    pub fn value_acc(&self, matched: bool) -> Option<f64> {
        if matched {
            self.values.value()
        } else {
            Some(0.0)
        }
    }
}

/// Renders a table for TEDS: every cell a `td`, inside `<html><body>`.
pub(crate) fn teds_html(t: &Table) -> String {
    let mut plain = t.clone();
    for c in &mut plain.cells {
        c.header = false;
    }
    format!("<html><body>{}</body></html>", plain.to_html())
}

/// Scores a matched pair.
pub fn score_pair(gt: &Table, pred: &Table) -> TableScores {
    let (teds, teds_s) = match (
        crate::metrics::teds::parse_table(&teds_html(pred)),
        crate::metrics::teds::parse_table(&teds_html(gt)),
    ) {
        (Ok(p), Ok(g)) => crate::metrics::teds::teds_both(&p, &g),
        _ => (0.0, 0.0),
    };
    let grits_top = grits::grits_top(gt, pred);
    let (grits_con, al) = grits::grits_con_aligned(gt, pred);
    let values = value_accuracy(gt, pred, &al);
    let score = crate::metrics::score::score(gt, pred);
    TableScores { teds, teds_s, grits_top, grits_con, values, score }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(rows: &[&[&str]]) -> Table {
        Table::from_rows(rows, 1)
    }

    #[test]
    fn number_tokens_keep_sign_and_decimal_point() {
        assert_eq!(number_tokens("1.12"), ["1.12"]);
        assert_eq!(number_tokens("112"), ["112"]);
        assert_eq!(number_tokens("+2.8"), ["2.8"]);
        assert_eq!(number_tokens("\u{2212}2.8"), ["-2.8"]);
        assert_eq!(number_tokens("98.87±0.00"), ["98.87", "0.00"]);
        assert_eq!(number_tokens("12,345 (3.)"), ["12,345", "3"]);
        // A dash between numbers is a range, not a sign.
        assert_eq!(number_tokens("1–5"), ["1", "5"]);
        assert!(is_numeric_cell("45%") && is_numeric_cell("(3.1)") && is_numeric_cell("-0.2"));
        assert!(!is_numeric_cell("Qwen2.5-7B") && !is_numeric_cell("τ") && !is_numeric_cell(""));
    }

    #[test]
    fn value_accuracy_counts_changed_numbers_as_errors() {
        let gt = table(&[&["Model", "A", "B"], &["x", "1.12", "+2.8"], &["y", "0.5", "7"]]);
        let pred = table(&[&["Model", "A", "B"], &["x", "112", "\u{2212}2.8"], &["y", "0.5", "7"]]);
        let s = score_pair(&gt, &pred);
        // Numeric GT cells: 1.12, +2.8, 0.5, 7; the first two changed.
        assert_eq!((s.values.numeric, s.values.correct), (4, 2));
        assert_eq!(s.values.value(), Some(0.5));
        let wrong: Vec<&str> = s.values.errors.iter().map(|e| e.gt.as_str()).collect();
        assert_eq!(wrong, ["1.12", "+2.8"]);
        assert_eq!(s.values.errors[0].pred.as_deref(), Some("112"));
        // Identical tables: everything 1.
        let same = score_pair(&gt, &gt);
        assert_eq!(same.values.value(), Some(1.0));
        assert_eq!(
            (same.teds, same.teds_s, same.grits_con.f, same.grits_top.f),
            (1.0, 1.0, 1.0, 1.0)
        );
    }

    #[test]
    fn value_accuracy_follows_the_alignment_not_the_position() {
        // The prediction has an extra leading row and column: positions shift by one, the
        // alignment maps them back.
        let gt = table(&[&["a", "1.5"], &["b", "2.5"]]);
        let pred = table(&[&["", "", ""], &["", "a", "1.5"], &["", "b", "2.5"]]);
        let (_, al) = grits::grits_con_aligned(&gt, &pred);
        assert_eq!(al.rows, [(0, 1), (1, 2)]);
        assert_eq!(al.cols, [(0, 1), (1, 2)]);
        let v = value_accuracy(&gt, &pred, &al);
        assert_eq!((v.numeric, v.correct), (2, 2));
        // A prediction missing the numbers' column leaves them unaligned: errors with no cell.
        let pred = table(&[&["a"], &["b"]]);
        let (_, al) = grits::grits_con_aligned(&gt, &pred);
        let v = value_accuracy(&gt, &pred, &al);
        assert_eq!((v.numeric, v.correct), (2, 0));
        assert_eq!(v.errors[0].pred, None);
    }

    #[test]
    fn no_numeric_cells_means_no_value_accuracy() {
        let gt = table(&[&["a", "b"]]);
        assert_eq!(score_pair(&gt, &gt).values.value(), None);
        assert_eq!(TableScores::missed(&gt).value_acc(false), Some(0.0));
    }

    #[test]
    fn similarity_is_cell_dice_and_flat_text_edit() {
        let a = table(&[&["x", "1"], &["y", "2"]]);
        let b = table(&[&["X", " 1 "], &["z", "3"]]);
        let s = similarity(&a, &b);
        // Keys {x,1,y,2} vs {x,1,z,3}: 2 common of 4 + 4.
        assert_eq!(s.overlap, 0.5);
        // "x 1\ny 2" vs "X 1\nz 3": 3 edits of 7.
        assert!((s.edit - (1.0 - 3.0 / 7.0)).abs() < 1e-12);
    }

    #[test]
    fn tables_are_matched_by_content_not_by_index() {
        let t1 = table(&[&["Class", "Precision"], &["DREB", "0.89"]]);
        let t2 = table(&[&["Area", "Count"], &["Life", "264"], &["Law", "1"]]);
        let t3 = table(&[&["alpha", "beta"], &["gamma", "delta"]]);
        // Predicted in another order, t1 lost, plus a junk table.
        let junk = table(&[&["qqq", "zzz"]]);
        let pred = vec![junk, t3.clone(), t2.clone()];
        assert_eq!(match_tables(&[t1, t2, t3], &pred), [None, Some(2), Some(1)]);
        assert_eq!(match_tables(&[], &pred), Vec::<Option<usize>>::new());
        assert_eq!(match_tables(&[table(&[&["a"]])], &[]), [None]);
    }

    #[test]
    fn teds_ignores_header_marks() {
        let gt = table(&[&["a", "b"], &["1", "2"]]);
        let mut pred = gt.clone();
        for c in &mut pred.cells {
            c.header = false;
        }
        assert_eq!(score_pair(&gt, &pred).teds, 1.0);
        assert!(teds_html(&gt).starts_with("<html><body><table><tr><td>"));
    }
}
