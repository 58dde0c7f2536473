//! The table dimension's per-case metrics (ParseBench's `ParseEvaluator`:
//! `_compute_table_similarity_metrics`, the no-predicted-table branch,
//! `_compute_grits_trm_composite`, and `GriTSMetric` of `grits_metric.py`); rules in
//! `docs/parsebench.md` ("The table dimension").
//!
//! A case whose expected Markdown holds `<table` gets `grits_con`, `table_record_match` (and
//! `table_record_match_perfect`, the share of truth tables it scores 1) and
//! `grits_trm_composite` (`0.5·grits_con + 0.5·TRM`, or `grits_con` alone when the case says
//! `trm_unsupported`); with predicted tables also the table counts. GriTS_Con of a pair is
//! the factored 2D-MSS of the two grids under `lcs_similarity` ([`crate::metrics::grits`])
//! after [`normalize_cell_text`]; a pair whose larger grid has ≥ 2,500 slots and whose row or
//! column counts differ by more than 1.5× scores 0. Truth and predicted tables are paired by
//! SciPy's linear assignment on GriTS_Con (after the splitter of merged output tables,
//! [`split_merged`], where the case allows it); `grits_con` is the mean over the truth's tables
//! (0 for an unpaired one), and TRM scores the same pairs.

use std::collections::{BTreeMap, HashMap};

use super::table_data::{
    extract_tables, normalize_cell_text, preceding_titles, with_title_row, TableData,
};
use super::table_split::split_merged;
use super::title_strip::{strip_title_rows, HeaderHints};
use super::trm::{assign, table_record_match};
use crate::metrics::difflib::SequenceMatcher;
use crate::metrics::grits::{factored_2dmss_aligned, Grid};

/// A test case's table settings, as ParseBench's loader reads them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableOptions {
    /// `allow_splitting_ambiguous_merged_tables`: merged output tables may be split.
    pub allow_splitting: bool,
    /// `trm_unsupported`: the composite is GriTS_Con alone.
    pub trm_unsupported: bool,
    /// `max_top_title_rows` (1 by default).
    pub max_top_title_rows: i64,
}

impl Default for TableOptions {
    fn default() -> Self {
        TableOptions { allow_splitting: false, trm_unsupported: false, max_top_title_rows: 1 }
    }
}

const MISMATCH_CELLS: usize = 2500;
const MISMATCH_RATIO: f64 = 1.5;

fn lcs_similarity(a: &[char], b: &[char]) -> f64 {
    if a.is_empty() && b.is_empty() {
        return 1.0;
    }
    let m = SequenceMatcher::new(a, b).matched();
    (2 * m) as f64 / (a.len() + b.len()) as f64
}

/// A table's normalized texts as ids into `texts` (each distinct text once).
fn id_grid(t: &TableData, texts: &mut Vec<Vec<char>>) -> Grid<usize> {
    let mut ids: HashMap<String, usize> = HashMap::new();
    let slots = t
        .data
        .iter()
        .flatten()
        .map(|c| {
            *ids.entry(normalize_cell_text(c)).or_insert_with_key(|s| {
                texts.push(s.chars().collect());
                texts.len() - 1
            })
        })
        .collect();
    Grid { rows: t.rows(), cols: t.cols, slots }
}

/// `grits_con_from_table_data`: GriTS_Con of one pair (0 for an empty grid).
pub fn grits_con_pair(gt: &TableData, pred: &TableData) -> f64 {
    if gt.is_empty() || pred.is_empty() {
        return 0.0;
    }
    let (tr, tc, pr, pc) = (gt.rows(), gt.cols, pred.rows(), pred.cols);
    if (tr * tc).max(pr * pc) >= MISMATCH_CELLS {
        let ratio = |a: usize, b: usize| a.max(b) as f64 / a.min(b).max(1) as f64;
        if ratio(tr, pr) > MISMATCH_RATIO || ratio(tc, pc) > MISMATCH_RATIO {
            return 0.0;
        }
    }
    let (mut gt_texts, mut pred_texts) = (Vec::new(), Vec::new());
    let (g, p) = (id_grid(gt, &mut gt_texts), id_grid(pred, &mut pred_texts));
    let n = pred_texts.len();
    let sim: Vec<f64> =
        gt_texts.iter().flat_map(|a| pred_texts.iter().map(|b| lcs_similarity(a, b))).collect();
    let (grits, _) = factored_2dmss_aligned(&g, &p, |a: &usize, b: &usize| sim[a * n + b]);
    grits.f
}

/// `GriTSMetric.compute`: the mean GriTS_Con over the truth's tables and the pairing
/// (truth index, paired prediction).
pub fn grits_pairing(gt: &[TableData], pred: &[TableData]) -> (f64, Vec<(usize, Option<usize>)>) {
    if gt.is_empty() {
        return (0.0, Vec::new());
    }
    if pred.is_empty() {
        return (0.0, (0..gt.len()).map(|i| (i, None)).collect());
    }
    let sim: Vec<f64> =
        gt.iter().flat_map(|g| pred.iter().map(move |p| grits_con_pair(g, p))).collect();
    let pairs = assign(&sim, gt.len(), pred.len());
    let mut scores: Vec<f64> = pairs.iter().map(|(g, p)| sim[g * pred.len() + p]).collect();
    scores.extend(std::iter::repeat_n(0.0, gt.len() - pairs.len()));
    let mean = scores.iter().sum::<f64>() / scores.len() as f64;
    let pairing =
        (0..gt.len()).map(|i| (i, pairs.iter().find(|x| x.0 == i).map(|x| x.1))).collect();
    (mean, pairing)
}

fn composite(m: &mut BTreeMap<String, f64>, opts: &TableOptions) {
    let Some(&g) = m.get("grits_con") else { return };
    let v = match m.get("table_record_match") {
        Some(t) if !opts.trm_unsupported => 0.5 * g + 0.5 * t,
        _ => g,
    };
    m.insert("grits_trm_composite".into(), v);
}

/// The table metrics of one case: `{}` when the expected Markdown has no `<table`.
pub fn table_metrics(expected: &str, actual: &str, opts: &TableOptions) -> BTreeMap<String, f64> {
    let mut m = BTreeMap::new();
    if expected.is_empty() || !expected.to_lowercase().contains("<table") {
        return m;
    }
    let (gt, _) = extract_tables(expected);
    if !actual.to_lowercase().contains("<table") {
        m.insert("grits_con".into(), 0.0);
        if !gt.is_empty() {
            m.insert("table_record_match".into(), 0.0);
            m.insert("table_record_match_perfect".into(), 0.0);
        }
        composite(&mut m, opts);
        return m;
    }
    let (pred, dropped) = extract_tables(actual);
    let titles = preceding_titles(expected, actual);
    let pred: Vec<TableData> = pred
        .iter()
        .enumerate()
        .map(|(i, t)| match titles.get(i) {
            Some(Some((title, cols))) => with_title_row(t, title, *cols),
            _ => t.clone(),
        })
        .collect();
    let found = pred.len();
    let pred = if opts.allow_splitting { split_merged(gt.len(), pred) } else { pred };
    let strip = |ts: &[TableData]| -> Vec<(TableData, HeaderHints)> {
        ts.iter().map(|t| strip_title_rows(t, opts.max_top_title_rows)).collect()
    };
    let (gs, ps) = (strip(&gt), strip(&pred));
    let grids = |v: &[(TableData, HeaderHints)]| v.iter().map(|x| x.0.clone()).collect::<Vec<_>>();
    let (grits, pairing) = grits_pairing(&grids(&gs), &grids(&ps));
    m.insert("grits_con".into(), grits);
    if let Some((t, perfect)) = table_record_match(&gs, &ps, &pairing) {
        m.insert("table_record_match".into(), t);
        m.insert("table_record_match_perfect".into(), perfect);
    }
    composite(&mut m, opts);
    let paired = pairing.iter().filter(|p| p.1.is_some()).count();
    let counts = [
        ("tables_expected", gt.len()),
        ("tables_actual", found),
        ("tables_unparseable_pred", dropped),
        ("tables_paired", paired),
        ("tables_unmatched_expected", pairing.len() - paired),
        ("tables_unmatched_pred", ps.len().saturating_sub(paired)),
    ];
    for (k, v) in counts {
        m.insert(k.into(), v as f64);
    }
    m
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metrics::parsebench::table_data::parse_table;

    const GT: &str =
        "<table><tr><th>Fruit</th><th>Price</th></tr><tr><td>Apple</td><td>1</td></tr>\
                      <tr><td>Pear</td><td>2</td></tr></table>";

    #[test]
    fn grits_of_a_pair() {
        let g = parse_table(GT).unwrap();
        assert_eq!(grits_con_pair(&g, &g), 1.0);
        // One cell of six differs ("2" vs "3": similarity 0): 5/6 on both sides.
        let p = parse_table(&GT.replace(">2<", ">3<")).unwrap();
        assert!((grits_con_pair(&g, &p) - 5.0 / 6.0).abs() < 1e-12);
        // A missing row: 4 matched slots of 6 true, 4 predicted -> P 1, R 2/3, F 0.8.
        let short = parse_table(
            "<table><tr><th>Fruit</th><th>Price</th></tr><tr><td>Apple</td><td>1</td></tr></table>",
        )
        .unwrap();
        assert!((grits_con_pair(&g, &short) - 0.8).abs() < 1e-12);
    }

    #[test]
    fn a_case_without_predicted_tables_scores_zero() {
        let m = table_metrics(GT, "Fruit Price Apple 1", &TableOptions::default());
        assert_eq!(m["grits_con"], 0.0);
        assert_eq!(m["table_record_match"], 0.0);
        assert_eq!(m["grits_trm_composite"], 0.0);
        assert!(table_metrics("no tables", GT, &TableOptions::default()).is_empty());
    }

    #[test]
    fn the_composite_halves_grits_and_trm() {
        let pred = GT.replace(">2<", ">3<");
        let m = table_metrics(GT, &pred, &TableOptions::default());
        // GriTS 5/6; TRM: (2 + 1) / (2 records * 2 columns) = 0.75.
        assert!((m["grits_con"] - 5.0 / 6.0).abs() < 1e-12);
        assert_eq!((m["table_record_match"], m["table_record_match_perfect"]), (0.75, 0.0));
        assert!((m["grits_trm_composite"] - (0.5 * 5.0 / 6.0 + 0.375)).abs() < 1e-12);
        assert_eq!(
            (m["tables_expected"], m["tables_paired"], m["tables_unmatched_pred"]),
            (1.0, 1.0, 0.0)
        );
        let only = TableOptions { trm_unsupported: true, ..TableOptions::default() };
        assert!((table_metrics(GT, &pred, &only)["grits_trm_composite"] - 5.0 / 6.0).abs() < 1e-12);
        // Two predicted tables: the better one is paired, the other unmatched.
        let two = format!("{pred}\n\n{GT}");
        let m2 = table_metrics(GT, &two, &TableOptions::default());
        assert_eq!((m2["grits_con"], m2["tables_unmatched_pred"]), (1.0, 1.0));
    }
}
