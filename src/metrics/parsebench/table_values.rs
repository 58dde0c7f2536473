//! The `table` and `tables_values` rules (ParseBench's `rules_table.py`: `TableRule`,
//! `TablesValuesRule`) on the output's pipe tables, then its HTML tables, read as
//! `parse_markdown_tables` and `parse_html_tables` read them; rules in `docs/parsebench.md`.
//!
//! - **`table`**: some cell whose normalized text has `fuzz.ratio` ≥ `max(0.5, 1 −
//!   max_diffs/len)` with the rule's cell has every neighbour the rule names (`up`, `down`,
//!   `left`, `right`: the slot next to it, unchecked at the table's edge) and headings
//!   (`top_heading`: the column's `<th>` texts, else a header row above it, else the best of
//!   any non-empty cell above; `left_heading` likewise with the row's headers and header
//!   columns) within the same threshold. A pipe table's header row is its first row and its
//!   header column its first column.
//! - **`tables_values`**: each variation (`{"rows": [{"cells": [{"text", "colspan",
//!   "rowspan"}]}]}`, spans filled; any other shape skipped) against each predicted table:
//!   the multiset Jaccard similarity of their non-empty normalized cells; the best pair must
//!   reach `table_match_threshold` (0.8), then its cells compared slot by slot over the
//!   overlapping region must match at ≥ `table_values_match_threshold` (0.9). A cell is
//!   normalized as `_normalize_cell`: transliterated to ASCII as `unidecode` does
//!   ([`unidecode`]: its own output for the blocks a cell meets, accents stripped elsewhere),
//!   lower-cased, whitespace removed, its first number re-written by Python's `g` format
//!   (a number with a thousands comma ≥ 1,000 by `,.10g` with trailing `0`s and `.` stripped).

use std::collections::HashMap;
use std::sync::LazyLock;

use regex::Regex;
use serde_json::Value;
use unicode_normalization::UnicodeNormalization;

use super::normalize::{normalize_text, py_strip};
use super::table_data::{parse_tables, TableData};
use super::tables::markdown_tables;
use super::unidecode_table::UNIDECODE;
use super::Outcome;
use crate::metrics::fuzz::ratio;

/// `TableRule`'s fields (normalized).
#[derive(Debug, Clone, PartialEq)]
pub struct CellRule {
    /// The cell.
    pub cell: String,
    /// `up`, `down`, `left`, `right`, `top_heading`, `left_heading`.
    pub around: [String; 6],
    /// Pipe tables not read.
    pub ignore_markdown_tables: bool,
    /// `max_diffs`.
    pub max_diffs: f64,
}

/// A pipe table as `parse_markdown_tables` gives it: first row and column as headers.
fn pipe_table(grid: Vec<Vec<String>>) -> Option<TableData> {
    let cols = grid.iter().map(Vec::len).max()?;
    let mut t = TableData { cols, ..TableData::default() };
    t.data = grid
        .into_iter()
        .map(|mut r| {
            r.resize(cols, String::new());
            r
        })
        .collect();
    t.header_rows.insert(0);
    if cols > 0 {
        t.header_cols.insert(0);
    }
    for c in 0..cols {
        t.col_headers.insert(c, vec![(0, t.data[0][c].clone())]);
    }
    if cols > 0 {
        for r in 1..t.rows() {
            t.row_headers.insert(r, vec![(0, t.data[r][0].clone())]);
        }
    }
    Some(t)
}

fn tables(md: &str, pipes: bool) -> Vec<TableData> {
    let mut out: Vec<TableData> = Vec::new();
    if pipes {
        out.extend(markdown_tables(md).into_iter().filter_map(pipe_table));
    }
    out.extend(parse_tables(md));
    out
}

fn threshold(max_diffs: f64, text: &str) -> f64 {
    let n = text.chars().count();
    (1.0 - max_diffs / if n > 0 { n as f64 } else { 1.0 }).max(0.5)
}

fn sim(a: &str, b: &str) -> f64 {
    ratio(a, b) / 100.0
}

/// The best heading among `candidates` in three tiers (see the module doc): `Ok` when one
/// reaches the threshold, else the reason.
fn heading(want: &str, th: f64, tiers: [Vec<String>; 3]) -> Result<(), String> {
    let (mut best, mut best_sim) = (String::new(), 0.0);
    let [first, second, third] = tiers;
    for tier in [first, second] {
        for h in tier {
            let s = sim(want, &h);
            if s > best_sim {
                (best, best_sim) = (h, s);
                if best_sim >= th {
                    return Ok(());
                }
            }
        }
    }
    if best.is_empty() {
        for h in third {
            let s = sim(want, &h);
            if s > best_sim {
                (best, best_sim) = (h, s);
            }
        }
    }
    if best.is_empty() {
        return Err("No heading found".into());
    }
    if best_sim < th {
        return Err(format!(
            "Heading '{best}' doesn't match expected '{want}' (similarity: {best_sim:.2})"
        ));
    }
    Ok(())
}

fn cell_at(t: &TableData, r: usize, c: usize) -> String {
    normalize_text(&t.data[r][c])
}

/// The failures of one matching cell's relationships (empty: all hold).
fn relations(rule: &CellRule, t: &TableData, r: usize, c: usize) -> Vec<String> {
    let mut fails = Vec::new();
    let [up, down, left, right, top, side] = &rule.around;
    let near = [
        (up, r > 0, (r.wrapping_sub(1), c)),
        (down, r + 1 < t.rows(), (r + 1, c)),
        (left, c > 0, (r, c.wrapping_sub(1))),
        (right, c + 1 < t.cols, (r, c + 1)),
    ];
    for (want, inside, (rr, cc)) in near {
        if want.is_empty() || !inside {
            continue;
        }
        let got = cell_at(t, rr, cc);
        let s = sim(want, &got);
        if s < threshold(rule.max_diffs, want) {
            fails
                .push(format!("Cell '{got}' doesn't match expected '{want}' (similarity: {s:.2})"));
        }
    }
    if !top.is_empty() {
        let tiers = [
            t.col_headers.get(&c).into_iter().flatten().map(|(_, h)| normalize_text(h)).collect(),
            t.header_rows
                .iter()
                .filter(|&&i| i < r && !py_strip(&t.data[i][c]).is_empty())
                .map(|&i| cell_at(t, i, c))
                .collect(),
            (0..r)
                .filter(|&i| !py_strip(&t.data[i][c]).is_empty())
                .map(|i| cell_at(t, i, c))
                .collect(),
        ];
        if let Err(e) = heading(top, threshold(rule.max_diffs, top), tiers) {
            fails.push(format!("Top: {e}"));
        }
    }
    if !side.is_empty() {
        let tiers = [
            t.row_headers.get(&r).into_iter().flatten().map(|(_, h)| normalize_text(h)).collect(),
            t.header_cols
                .iter()
                .filter(|&&j| j < c && !py_strip(&t.data[r][j]).is_empty())
                .map(|&j| cell_at(t, r, j))
                .collect(),
            (0..c)
                .filter(|&j| !py_strip(&t.data[r][j]).is_empty())
                .map(|j| cell_at(t, r, j))
                .collect(),
        ];
        if let Err(e) = heading(side, threshold(rule.max_diffs, side), tiers) {
            fails.push(format!("Left: {e}"));
        }
    }
    fails
}

/// `TableRule.run`.
pub fn run_cell_rule(rule: &CellRule, md: &str) -> Outcome {
    let all = tables(md, !rule.ignore_markdown_tables);
    if all.is_empty() {
        return Outcome::fail("No tables found in the content");
    }
    let th = threshold(rule.max_diffs, &rule.cell);
    let mut reasons = Vec::new();
    for t in &all {
        for r in 0..t.rows() {
            for c in 0..t.cols {
                if sim(&rule.cell, &cell_at(t, r, c)) < th {
                    continue;
                }
                let fails = relations(rule, t, r, c);
                if fails.is_empty() {
                    return Outcome::pass();
                }
                reasons.extend(fails);
            }
        }
    }
    if reasons.is_empty() {
        Outcome::fail(format!(
            "No cell matching '{}' found in any table with threshold {th}",
            rule.cell
        ))
    } else {
        Outcome::fail(format!(
            "Found cells matching '{}' but relationships were not satisfied: {}",
            rule.cell,
            reasons.join("; ")
        ))
    }
}

/// `TablesValuesRule`'s fields.
#[derive(Debug, Clone, PartialEq)]
pub struct ValuesRule {
    /// `table_variations`.
    pub variations: Vec<Value>,
    /// `json_path` was given (corpus does not read files a rule names).
    pub json_path: bool,
    /// `table_match_threshold`.
    pub match_threshold: f64,
    /// `table_values_match_threshold`.
    pub values_threshold: f64,
}

/// `_table_schema_to_dataframe`; `None` for a variation of another shape.
fn variation_grid(v: &Value) -> Option<Vec<Vec<String>>> {
    let rows = v.as_object()?.get("rows")?.as_array()?;
    let mut grid: HashMap<(usize, usize), String> = HashMap::new();
    let mut max_cols = 0;
    for (r, row) in rows.iter().enumerate() {
        let cells = row.as_object()?.get("cells")?.as_array()?;
        let mut c = 0;
        for cell in cells {
            while grid.contains_key(&(r, c)) {
                c += 1;
            }
            let o = cell.as_object()?;
            let text = match o.get("text") {
                None => String::new(),
                Some(Value::String(s)) => s.clone(),
                Some(v) => v.to_string(),
            };
            let span = |k: &str| match o.get(k) {
                None => Some(1),
                Some(v) => v.as_i64().map(|n| n.max(0) as usize),
            };
            let (cs, rs) = (span("colspan")?, span("rowspan")?);
            for dr in 0..rs {
                for dc in 0..cs {
                    grid.insert((r + dr, c + dc), text.clone());
                }
            }
            c += cs;
            max_cols = max_cols.max(c);
        }
    }
    let nr = grid.keys().map(|k| k.0 + 1).max().unwrap_or(0);
    Some(
        (0..nr)
            .map(|r| {
                (0..max_cols).map(|c| grid.get(&(r, c)).cloned().unwrap_or_default()).collect()
            })
            .collect(),
    )
}

static NUMBER: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(-?\d{1,3}(?:,\d{3})*\.?\d*)").expect("a fixed pattern"));
static ZERO_WIDTH: LazyLock<Regex> =
    LazyLock::new(|| Regex::new("[\u{200B}-\u{200D}\u{FEFF}\u{00AD}]").expect("a fixed pattern"));

/// Python's `format(x, f"{',' if grouped}.{p}g")`.
pub(super) fn py_g(x: f64, p: usize, grouped: bool) -> String {
    if x == 0.0 {
        return if x.is_sign_negative() { "-0" } else { "0" }.into();
    }
    let sci = format!("{:.*e}", p - 1, x);
    let (mant, exp) = sci.split_once('e').expect("an exponent");
    let exp: i32 = exp.parse().expect("an integer exponent");
    if exp < -4 || exp >= p as i32 {
        let m = mant.trim_end_matches('0').trim_end_matches('.');
        let sign = if exp < 0 { '-' } else { '+' };
        return format!("{m}e{sign}{:02}", exp.abs());
    }
    let fixed = format!("{:.*}", (p as i32 - 1 - exp).max(0) as usize, x);
    let fixed = if fixed.contains('.') {
        fixed.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        fixed
    };
    if !grouped {
        return fixed;
    }
    let (sign, body) = fixed.strip_prefix('-').map_or(("", fixed.as_str()), |b| ("-", b));
    let (int, frac) = body.split_once('.').map_or((body, None), |(i, f)| (i, Some(f)));
    let mut g = String::new();
    for (i, ch) in int.chars().enumerate() {
        if i > 0 && (int.len() - i) % 3 == 0 {
            g.push(',');
        }
        g.push(ch);
    }
    match frac {
        Some(f) => format!("{sign}{g}.{f}"),
        None => format!("{sign}{g}"),
    }
}

/// `unidecode(text)`: ASCII kept; a character of the blocks `tools/gen_unidecode_table.py`
/// lists replaced by what unidecode 1.4.0 writes for it (`–` → `-`, `—` → `--`, `≤` → `<=`,
/// `π` → `p`, `€` → `EUR`, `ﬁ` → `fi`, "" where unidecode drops it); any other character
/// decomposed (NFKD) with its combining marks dropped (`docs/parsebench.md` § 5).
pub fn unidecode(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if c.is_ascii() {
            out.push(c);
            continue;
        }
        match UNIDECODE.binary_search_by_key(&c, |&(k, _)| k) {
            Ok(i) => out.push_str(UNIDECODE[i].1),
            Err(_) => {
                out.extend(std::iter::once(c).nfkd().filter(|c| !super::normalize::is_mn(*c)))
            }
        }
    }
    out
}

/// `_normalize_cell` (see the module doc).
pub fn normalize_value(cell: &str) -> String {
    let ascii = unidecode(cell);
    // Python's `\s` also matches U+001C..U+001F.
    let text: String = ascii
        .to_lowercase()
        .chars()
        .filter(|c| !c.is_whitespace() && !('\u{1c}'..='\u{1f}').contains(c))
        .collect();
    let text = ZERO_WIDTH.replace_all(&text, "").into_owned();
    let Some(m) = NUMBER.find(&text) else { return text };
    let num = m.as_str();
    let Ok(v) = num.replace(',', "").parse::<f64>() else { return text };
    let formatted = if num.contains(',') && v >= 1000.0 {
        py_g(v, 10, true).trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        py_g(v, 6, false)
    };
    text.replace(num, &formatted)
}

fn words(grid: &[Vec<String>]) -> HashMap<String, usize> {
    let mut out = HashMap::new();
    for v in grid.iter().flatten().map(|c| normalize_value(c)).filter(|v| !v.is_empty()) {
        *out.entry(v).or_insert(0) += 1;
    }
    out
}

fn jaccard(gt: &[Vec<String>], pred: &[Vec<String>]) -> f64 {
    let (g, p) = (words(gt), words(pred));
    if g.is_empty() || p.is_empty() {
        return 0.0;
    }
    let inter: usize = g.iter().map(|(k, n)| (*n).min(p.get(k).copied().unwrap_or(0))).sum();
    let mut union: usize = g.iter().map(|(k, n)| (*n).max(p.get(k).copied().unwrap_or(0))).sum();
    union += p.iter().filter(|(k, _)| !g.contains_key(*k)).map(|(_, n)| n).sum::<usize>();
    if union > 0 {
        inter as f64 / union as f64
    } else {
        0.0
    }
}

/// `TablesValuesRule.run`.
pub fn run_values_rule(rule: &ValuesRule, md: &str) -> Outcome {
    if rule.variations.is_empty() && !rule.json_path {
        return Outcome::error("Either table_variations or json_path must be provided");
    }
    let preds: Vec<Vec<Vec<String>>> = tables(md, true).into_iter().map(|t| t.data).collect();
    if preds.is_empty() {
        return Outcome::fail("No tables found in the content");
    }
    if rule.variations.is_empty() {
        return Outcome::fail("Error loading ground truth data: json_path is not read by corpus");
    }
    let mut best: Option<(f64, usize, usize, Vec<Vec<String>>)> = None;
    for (vi, v) in rule.variations.iter().enumerate() {
        let Some(gt) = variation_grid(v) else { continue };
        for (pi, p) in preds.iter().enumerate() {
            let s = jaccard(&gt, p);
            if s > best.as_ref().map_or(0.0, |b| b.0) {
                best = Some((s, vi, pi, gt.clone()));
            }
        }
    }
    let th = rule.match_threshold;
    let (s, bv, bp) = best.as_ref().map_or((0.0, -1, -1), |b| (b.0, b.1 as i64, b.2 as i64));
    let Some((score, vi, pi, gt)) = best.filter(|b| b.0 >= th) else {
        let (vi, pi) = (bv, bp);
        return Outcome::fail(format!(
            "Best match: GT variation {vi} with pred table {pi} scored {s:.3}, below threshold {th:.3}"
        ));
    };
    let pred = &preds[pi];
    let rows = gt.len().min(pred.len());
    let cols = gt.first().map_or(0, Vec::len).min(pred.first().map_or(0, Vec::len));
    let total = rows * cols;
    let matching = (0..rows)
        .flat_map(|r| (0..cols).map(move |c| (r, c)))
        .filter(|&(r, c)| normalize_value(&gt[r][c]) == normalize_value(&pred[r][c]))
        .count();
    let ratio = if total > 0 { matching as f64 / total as f64 } else { 0.0 };
    let head = format!(
        "Best match: GT variation {vi} with pred table {pi} scored {score:.3} (>= {th:.3})"
    );
    if ratio < rule.values_threshold {
        // The evaluator returns a third element here (its explanation's tail), which it then
        // records as the score; corpus scores the failure 0.
        return Outcome::fail(format!(
            "{head}, but cell exact match {matching}/{total} ({ratio:.3}) below threshold {:.3}",
            rule.values_threshold
        ));
    }
    let mut o = Outcome::pass();
    o.explanation = format!("{head}, cell exact match {matching}/{total} ({ratio:.3})");
    o
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `TablesValuesRule._normalize_cell` on these cells, as ParseBench's evaluator (facdaf0,
    /// unidecode 1.4.0) returned them: dashes, quotes, comparison signs, Greek letters,
    /// currency, ligatures, fractions, symbols.
    const EVALUATOR_CELLS: &[(&str, &str)] = &[
        ("$9,595–$17,992", "$9,595-$17,992"),
        ("“Total”", "\"total\""),
        ("≤ 5", "<=5"),
        ("≥ 10%", ">=10%"),
        ("π r²", "pr2"),
        ("— ", "--"),
        ("Δ 3.5", "d3.5"),
        ("€1,250.00", "eur1,25"),
        ("ﬁnal", "final"),
        ("café", "cafe"),
        ("10–20", "10-20"),
        ("½ cup", "1/2cup"),
        ("± 0.5", "+-0.5"),
        ("α-β", "a-b"),
        ("µg/m³", "ug/m3"),
        ("naïve", "naive"),
        ("→ next", "-next"),
        ("São Paulo", "saopaulo"),
        ("1,234,567", "1,234,567"),
        ("Ω", "o"),
        ("‘quoted’", "'quoted'"),
        ("x ≠ y", "xy"),
        ("Straße", "strasse"),
        ("Ærø", "aero"),
        ("œuvre", "oeuvre"),
        ("№ 5", "no.5"),
        ("½", "1/2"),
        ("−3.2", "-3.2"),
        ("3 × 4", "3x4"),
        ("°C", "degc"),
        ("•", "*"),
        ("¥500", "y=500"),
        ("£12", "ps12"),
        ("‰", "%0"),
        ("ℓ", "l"),
        ("Ⅳ", "iv"),
        ("ﬀ", "ff"),
    ];

    #[test]
    fn cells_fold_to_ascii_as_the_evaluator_does() {
        for (cell, want) in EVALUATOR_CELLS {
            assert_eq!(normalize_value(cell), *want, "{cell:?}");
        }
        // Outside the table's blocks: accents stripped (unidecode would romanize).
        assert_eq!(unidecode("日本"), "日本");
        assert_eq!(unidecode("e\u{301}"), "e");
    }

    #[test]
    fn a_range_with_an_en_dash_matches_its_ascii_reading() {
        // The issue's case: the truth's `$9,595–$17,992` against an output's `$9,595-$17,992`.
        assert_eq!(normalize_value("$9,595–$17,992"), normalize_value("$9,595-$17,992"));
        assert_ne!(normalize_value("5 – 7"), normalize_value("5 — 7"), "— is --");
    }

    const MD: &str = "| Name | Age |\n|---|---|\n| Ann | 31 |\n| Bob | 42 |\n\n\
        <table><tr><th>City</th><th>Visitors</th></tr><tr><td>Lyon</td><td>1,500</td></tr></table>";

    fn cell(c: &str, around: [&str; 6]) -> bool {
        let rule = CellRule {
            cell: normalize_text(c),
            around: around.map(normalize_text),
            ignore_markdown_tables: false,
            max_diffs: 0.0,
        };
        run_cell_rule(&rule, MD).passed
    }

    #[test]
    fn table_cells_with_neighbours_and_headings() {
        assert!(cell("31", ["Age", "42", "Ann", "", "", ""]));
        assert!(!cell("31", ["", "", "Bob", "", "", ""]));
        assert!(cell("31", ["", "", "", "", "Age", "Ann"]));
        assert!(cell("1,500", ["", "", "", "", "Visitors", ""]));
        assert!(!cell("1,500", ["", "", "", "", "City", ""]));
        // The edge is not checked.
        assert!(cell("Ann", ["", "", "Nobody", "", "", ""]));
        assert!(!cell("Zed", ["", "", "", "", "", ""]));
        assert!(
            !run_cell_rule(
                &CellRule {
                    cell: "x".into(),
                    around: Default::default(),
                    ignore_markdown_tables: false,
                    max_diffs: 0.0
                },
                "no tables"
            )
            .passed
        );
    }

    #[test]
    fn values_compare_by_jaccard_then_cell_by_cell() {
        let var = |rows: &[&[&str]]| serde_json::json!({"rows": rows.iter().map(|r| serde_json::json!({"cells": r.iter().map(|t| serde_json::json!({"text": t})).collect::<Vec<_>>()})).collect::<Vec<_>>()});
        let rule = |v: Value| ValuesRule {
            variations: vec![v],
            json_path: false,
            match_threshold: 0.8,
            values_threshold: 0.9,
        };
        let ok = var(&[&["Name", "Age"], &["Ann", "31"], &["Bob", "42"]]);
        assert!(run_values_rule(&rule(ok), MD).passed);
        // 4 of 6 cells shared, union 8: Jaccard 0.5 < 0.8.
        let off = var(&[&["Name", "Age"], &["Ann", "13"], &["Bob", "24"]]);
        let o = run_values_rule(&rule(off), MD);
        assert!(!o.passed && o.explanation.contains("scored 0.500"), "{}", o.explanation);
        // A list of rows is not a variation: nothing to match.
        assert!(!run_values_rule(&rule(serde_json::json!([["Name"]])), MD).passed);
    }

    #[test]
    fn numbers_are_rewritten_as_python_formats_them() {
        assert_eq!(normalize_value("1,500"), "1,5");
        assert_eq!(normalize_value(" 0.50 "), "0.5");
        assert_eq!(normalize_value("1,000,000 $"), "1,000,$");
        assert_eq!(normalize_value("Café 12.0"), "cafe12");
        assert_eq!(py_g(1234567.0, 6, false), "1.23457e+06");
        assert_eq!(py_g(0.0001, 6, false), "0.0001");
    }
}
