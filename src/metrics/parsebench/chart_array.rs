//! `chart_data_array_labels` and `chart_data_array_data` (ParseBench's `rules_chart.py`,
//! `ChartDataArrayLabelsRule`, `ChartDataArrayDataRule`): a chart's whole data array (the
//! rule's `data`, a header row then data rows) against each of the output's tables, pipe
//! tables first then HTML tables, each read as it is and transposed; the best table counts.
//!
//! - **Labels**: the table's width must equal the header count; each header is scored against
//!   the cell of the table's first row in its column (with `x_axis_shuffle`, greedily against
//!   the best unused one): 1 for equal normalized text, equal dates (`2008-01-01 00:00:00`,
//!   `Q1-2008`, `01-2008`, `2008`) or a number within 20 %
//!   (`numeric_similarity` ≥ 0.8, its value), else `0.7·ratio + 0.3·partial_ratio·(shorter /
//!   longer length)`. Score = mean; passes only at 100 %.
//! - **Data**: the table's width must equal the header row's; each expected data cell is
//!   scored against the table's cell (rows after the table's first): 1 where both are empty
//!   (`""`, `nan`, `None`, `-`, `—`, `n/a`, …, or an actual 0 for an empty expected), equal
//!   normalized text or equal dates; else, with `normalize_numbers`, `numeric_similarity`
//!   (`max(0, 1 − |e − a| / |e|)`, the expected also divided by 10³, 10⁶, 10⁹, 10¹² when that
//!   scores better and the direct score is under 0.8); else `ratio`. Rows (`y_axis_shuffle`)
//!   and columns (`x_axis_shuffle`) may be matched greedily by best score. Score = cells' sum /
//!   expected cells; passes at ≥ 99.5 %.
//!
//! A cell the rule reaches outside the table (a data row longer than the table is wide, or a
//! shorter one where columns are gathered) errors as the evaluator's `IndexError` does.

use std::collections::BTreeSet;
use std::sync::LazyLock;

use regex::Regex;
use serde_json::Value;

use super::chart::{candidates, number};
use super::normalize::{normalize_text, py_strip};
use super::tables::{html_tables, markdown_tables, Grid};
use super::{py_str, Outcome};
use crate::metrics::fuzz::{partial_ratio, ratio};

/// ParseBench's `CELL_FUZZY_MATCH_THRESHOLD`.
const CELL_THRESHOLD: f64 = 0.8;

fn re(p: &str) -> Regex {
    Regex::new(p).expect("a fixed pattern")
}

static DATETIME: LazyLock<Regex> =
    LazyLock::new(|| re(r"^(\d{4})-(\d{2})-(\d{2})\s+\d{2}:\d{2}:\d{2}$"));
static QUARTER: LazyLock<Regex> = LazyLock::new(|| re(r"^q\d-\d{4}$"));
static MONTH_YEAR: LazyLock<Regex> = LazyLock::new(|| re(r"^(\d{1,2})-(\d{4})$"));
static YEAR: LazyLock<Regex> = LazyLock::new(|| re(r"^\d{4}$"));

fn quarter_of(month: &str) -> Option<&'static str> {
    match month {
        "01" => Some("1"),
        "04" => Some("2"),
        "07" => Some("3"),
        "10" => Some("4"),
        _ => None,
    }
}

/// `_normalize_date_str`: the forms a date-like label can take (none when it is not one).
fn date_forms(value: &str) -> Vec<String> {
    let value = py_strip(value);
    if let Some(m) = DATETIME.captures(value) {
        let (year, month) = (&m[1], &m[2]);
        let mut forms = vec![year.to_string(), format!("{month}-{year}")];
        if let Some(q) = quarter_of(month) {
            forms.push(format!("q{q}-{year}"));
        }
        return forms;
    }
    let low = value.to_lowercase();
    let low = py_strip(&low);
    if QUARTER.is_match(low) {
        return vec![low.to_string()];
    }
    if let Some(m) = MONTH_YEAR.captures(low) {
        let month = format!("{:0>2}", &m[1]);
        let year = &m[2];
        let mut forms = vec![format!("{month}-{year}"), year.to_string()];
        if let Some(q) = quarter_of(&month) {
            forms.push(format!("q{q}-{year}"));
        }
        return forms;
    }
    if YEAR.is_match(low) {
        return vec![low.to_string()];
    }
    Vec::new()
}

/// `_dates_match`: the two share a date form.
pub fn dates_match(expected: &str, actual: &str) -> bool {
    let e = date_forms(expected);
    if e.is_empty() {
        return false;
    }
    let a = date_forms(actual);
    e.iter().any(|f| a.contains(f))
}

/// `numeric_similarity`: the best `max(0, 1 − |e − a| / |e|)` over the readings of both
/// numbers (a comma also read as a decimal point); `None` unless both are numbers.
pub fn numeric_similarity(expected: &str, actual: &str) -> Option<f64> {
    let (ce, ca) = (candidates(expected), candidates(actual));
    if ce.is_empty() || ca.is_empty() {
        return None;
    }
    let mut best: Option<f64> = None;
    for e in &ce {
        for a in &ca {
            if *e == 0.0 && *a == 0.0 {
                return Some(1.0);
            }
            let score = if *e == 0.0 {
                if a.abs() < 0.001 {
                    1.0
                } else {
                    0.0
                }
            } else {
                // Python's max(0.0, x): x only when it is greater (a NaN gives 0).
                let x = 1.0 - (e - a).abs() / e.abs();
                if x > 0.0 {
                    x
                } else {
                    0.0
                }
            };
            if best.is_none_or(|b| score > b) {
                best = Some(score);
            }
        }
    }
    best
}

/// A table as the rules index it (numpy's 2-D array): `rows` × `cols` cells.
#[derive(Debug, Clone, PartialEq)]
struct Arr {
    rows: usize,
    cols: usize,
    cells: Vec<Vec<String>>,
}

impl Arr {
    /// A grid padded to its widest row; no cell at all is one empty row (`np.array([[]])`).
    fn of(grid: &Grid) -> Arr {
        if grid.is_empty() {
            return Arr { rows: 1, cols: 0, cells: vec![Vec::new()] };
        }
        let cols = grid.iter().map(Vec::len).max().unwrap_or(0);
        let cells: Vec<Vec<String>> = grid
            .iter()
            .map(|r| {
                let mut r = r.clone();
                r.resize(cols, String::new());
                r
            })
            .collect();
        Arr { rows: cells.len(), cols, cells }
    }

    fn transposed(&self) -> Arr {
        let cells: Vec<Vec<String>> = (0..self.cols)
            .map(|c| (0..self.rows).map(|r| self.cells[r][c].clone()).collect())
            .collect();
        Arr { rows: self.cols, cols: self.rows, cells }
    }

    /// The cell at (r, c), or the evaluator's `IndexError`.
    fn get(&self, r: usize, c: usize) -> Result<&str, String> {
        if r >= self.rows {
            return Err(format!("index {r} is out of bounds for axis 0 with size {}", self.rows));
        }
        if c >= self.cols {
            return Err(format!("index {c} is out of bounds for axis 1 with size {}", self.cols));
        }
        Ok(&self.cells[r][c])
    }
}

/// Every table of the output, pipe tables first, each as it is and transposed.
fn orientations(md: &str) -> Vec<Arr> {
    let mut out = Vec::new();
    for g in markdown_tables(md).iter().chain(html_tables(md).iter()) {
        let a = Arr::of(g);
        let t = a.transposed();
        out.push(a);
        out.push(t);
    }
    out
}

/// Python's iteration over a value of the rule's `data` as `str()`s: a list's items, a
/// string's characters; anything else is not iterable.
fn items(v: &Value) -> Result<Vec<String>, String> {
    match v {
        Value::Array(a) => Ok(a.iter().map(|x| py_str(Some(x))).collect()),
        Value::String(s) => Ok(s.chars().map(String::from).collect()),
        Value::Null => Err("'NoneType' object is not iterable".into()),
        Value::Bool(_) => Err("'bool' object is not iterable".into()),
        Value::Number(n) if n.is_f64() => Err("'float' object is not iterable".into()),
        Value::Number(_) => Err("'int' object is not iterable".into()),
        Value::Object(_) => Err("'dict' object is not iterable".into()),
    }
}

/// A `chart_data_array_labels` rule.
#[derive(Debug, Clone, PartialEq)]
pub struct ArrayLabels {
    /// The rule's `data` (the header row first).
    pub data: Vec<Value>,
    /// Columns may come in any order.
    pub x_axis_shuffle: bool,
}

/// `_label_similarity`.
fn label_similarity(expected: &str, actual: &str) -> f64 {
    let (e, a) = (normalize_text(expected), normalize_text(actual));
    if e == a || dates_match(expected, actual) {
        return 1.0;
    }
    if let Some(n) = numeric_similarity(expected, actual) {
        if n >= CELL_THRESHOLD {
            return n;
        }
    }
    let r = ratio(&e, &a) / 100.0;
    let p = partial_ratio(&e, &a) / 100.0;
    let (le, la) = (e.chars().count(), a.chars().count());
    let length_ratio = le.min(la) as f64 / le.max(la).max(1) as f64;
    r * 0.7 + p * length_ratio * 0.3
}

impl ArrayLabels {
    fn headers(&self) -> Result<Vec<String>, String> {
        match self.data.first() {
            None => Err("data field must contain at least one row (headers)".into()),
            Some(h) => items(h),
        }
    }

    /// Sum of the header scores on one orientation (0 when the widths differ).
    fn check(&self, headers: &[String], t: &Arr) -> Result<f64, String> {
        if t.cols != headers.len() {
            return Ok(0.0);
        }
        let actual: Vec<&str> = (0..t.cols).map(|c| t.get(0, c)).collect::<Result<_, _>>()?;
        let mut total = 0.0;
        if !self.x_axis_shuffle {
            for (h, a) in headers.iter().zip(&actual) {
                total += label_similarity(h, a);
            }
            return Ok(total);
        }
        let mut used = vec![false; actual.len()];
        for h in headers {
            let mut best: (f64, Option<usize>) = (0.0, None);
            for (i, a) in actual.iter().enumerate() {
                if used[i] {
                    continue;
                }
                let s = label_similarity(h, a);
                if s > best.0 {
                    best = (s, Some(i));
                }
            }
            if let Some(i) = best.1 {
                used[i] = true;
                total += best.0;
            }
        }
        Ok(total)
    }

    /// Runs the rule on the output's Markdown.
    pub fn run(&self, md: &str) -> Outcome {
        let headers = match self.headers() {
            Ok(h) => h,
            Err(e) => return Outcome::error(e),
        };
        let tables = orientations(md);
        if tables.is_empty() {
            return Outcome::fail("No tables found in content");
        }
        let total = headers.len() as f64;
        let mut best = 0.0;
        for t in &tables {
            match self.check(&headers, t) {
                Ok(s) if s > best => best = s,
                Ok(_) => {}
                Err(e) => return Outcome::error(e),
            }
        }
        if total == 0.0 {
            return Outcome::fail("No labels to check");
        }
        let pct = best / total * 100.0;
        let why = format!("Labels: {pct:.1}% ({best:.2}/{total:.0})");
        if pct == 100.0 {
            return Outcome::scored(true, 1.0, why);
        }
        Outcome::scored(false, pct / 100.0, why)
    }
}

/// A `chart_data_array_data` rule.
#[derive(Debug, Clone, PartialEq)]
pub struct ArrayData {
    /// The rule's `data` (the header row first).
    pub data: Vec<Value>,
    /// Columns may come in any order.
    pub x_axis_shuffle: bool,
    /// Rows may come in any order.
    pub y_axis_shuffle: bool,
    /// Compare numbers as numbers.
    pub normalize_numbers: bool,
}

/// `_is_empty_or_nan` of a value's `str()`.
fn empty_like(s: &str) -> bool {
    matches!(py_strip(s), "" | "nan" | "NaN" | "NAN" | "none" | "None" | "-" | "—" | "n/a" | "N/A")
}

/// Python's `str()` of a float (the shortest text that reads back as it).
fn py_float_str(x: f64) -> String {
    format!("{x:?}")
}

impl ArrayData {
    /// `_cell_score`.
    fn cell_score(&self, expected: &str, actual: &str) -> f64 {
        if empty_like(expected) && (empty_like(actual) || number(actual) == Some(0.0)) {
            return 1.0;
        }
        if normalize_text(expected) == normalize_text(actual) || dates_match(expected, actual) {
            return 1.0;
        }
        if self.normalize_numbers {
            if let Some(mut n) = numeric_similarity(expected, actual) {
                if n < CELL_THRESHOLD {
                    if let Some(e) = number(expected).filter(|e| *e != 0.0) {
                        for scale in [1e3, 1e6, 1e9, 1e12] {
                            match numeric_similarity(&py_float_str(e / scale), actual) {
                                Some(s) if s > n => n = s,
                                _ => {}
                            }
                        }
                    }
                }
                return n;
            }
        }
        ratio(&normalize_text(expected), &normalize_text(actual)) / 100.0
    }

    /// Sum of the cell scores on one orientation, and the expected cell count.
    fn check(&self, rows: &[Vec<String>], ncols: usize, t: &Arr) -> Result<(f64, f64), String> {
        let total = (rows.len() * ncols) as f64;
        if t.cols != ncols {
            return Ok((0.0, total));
        }
        let data_rows = t.rows as i64 - 1;
        let matchable = data_rows.min(rows.len() as i64);
        let score = match (self.x_axis_shuffle, self.y_axis_shuffle) {
            (false, false) => self.fixed(rows, matchable, t)?,
            (false, true) => self.rows_shuffled(rows, t)?,
            (true, false) => self.columns_shuffled(rows, ncols, matchable, t)?,
            (true, true) => self.both_shuffled(rows, ncols, t)?,
        };
        Ok((score, total))
    }

    fn fixed(&self, rows: &[Vec<String>], matchable: i64, t: &Arr) -> Result<f64, String> {
        let mut total = 0.0;
        for (i, row) in rows.iter().enumerate() {
            if i as i64 >= matchable {
                break;
            }
            let mut s = 0.0;
            for (c, e) in row.iter().enumerate() {
                s += self.cell_score(e, t.get(i + 1, c)?);
            }
            total += s;
        }
        Ok(total)
    }

    fn rows_shuffled(&self, rows: &[Vec<String>], t: &Arr) -> Result<f64, String> {
        let mut used: BTreeSet<usize> = BTreeSet::new();
        let mut total = 0.0;
        for row in rows {
            let mut best: (f64, Option<usize>) = (0.0, None);
            for r in 1..t.rows {
                if used.contains(&r) {
                    continue;
                }
                let mut s = 0.0;
                for (c, e) in row.iter().enumerate() {
                    s += self.cell_score(e, t.get(r, c)?);
                }
                if s > best.0 {
                    best = (s, Some(r));
                }
            }
            if let Some(r) = best.1 {
                used.insert(r);
                total += best.0;
            }
        }
        Ok(total)
    }

    /// Column `c` of the expected rows (`row[c]` of each; a short row is an `IndexError`).
    fn column(rows: &[Vec<String>], c: usize) -> Result<Vec<&str>, String> {
        rows.iter()
            .map(|r| r.get(c).map(String::as_str).ok_or_else(|| "list index out of range".into()))
            .collect()
    }

    fn columns_shuffled(
        &self,
        rows: &[Vec<String>],
        ncols: usize,
        matchable: i64,
        t: &Arr,
    ) -> Result<f64, String> {
        // `data_rows[:matchable]`, a negative end counting from the back as in Python.
        let take = if matchable < 0 {
            rows.len().saturating_sub(matchable.unsigned_abs() as usize)
        } else {
            (matchable as usize).min(rows.len())
        };
        let rows = &rows[..take];
        let cols: Vec<Vec<&str>> =
            (0..ncols).map(|c| Self::column(rows, c)).collect::<Result<_, _>>()?;
        let mut used: BTreeSet<usize> = BTreeSet::new();
        let mut mapping: Vec<Option<usize>> = vec![None; ncols];
        let mut total = 0.0;
        for (ci, col) in cols.iter().enumerate() {
            let mut best: (f64, Option<usize>) = (0.0, None);
            for a in 0..t.cols {
                if used.contains(&a) {
                    continue;
                }
                let mut s = 0.0;
                for (r, e) in col.iter().enumerate() {
                    s += self.cell_score(e, t.get(r + 1, a)?);
                }
                if s > best.0 {
                    best = (s, Some(a));
                }
            }
            if let Some(a) = best.1 {
                used.insert(a);
                mapping[ci] = Some(a);
                total += best.0;
            }
        }
        // The evaluator's row-by-row report reads every cell through the mapping (an
        // unmapped column as itself), which fails where a row is wider than the table.
        for (r, row) in rows.iter().enumerate() {
            for c in 0..row.len() {
                t.get(r + 1, mapping.get(c).copied().flatten().unwrap_or(c))?;
            }
        }
        Ok(total)
    }

    fn both_shuffled(&self, rows: &[Vec<String>], ncols: usize, t: &Arr) -> Result<f64, String> {
        let cols: Vec<Vec<&str>> =
            (0..ncols).map(|c| Self::column(rows, c)).collect::<Result<_, _>>()?;
        let mut used: BTreeSet<usize> = BTreeSet::new();
        let mut total = 0.0;
        for col in &cols {
            let mut best: (f64, Option<usize>) = (0.0, None);
            for a in 0..t.cols {
                if used.contains(&a) {
                    continue;
                }
                let mut s = 0.0;
                for e in col {
                    let mut b = 0.0;
                    for r in 1..t.rows {
                        let x = self.cell_score(e, t.get(r, a)?);
                        if x > b {
                            b = x;
                        }
                    }
                    s += b;
                }
                if s > best.0 {
                    best = (s, Some(a));
                }
            }
            if let Some(a) = best.1 {
                used.insert(a);
                total += best.0;
            }
        }
        Ok(total)
    }

    /// The header row's width and the data rows, as the evaluator reads them.
    fn shape(&self) -> Result<(usize, Vec<Vec<String>>), String> {
        if self.data.len() < 2 {
            return Err("data field must contain at least header row and one data row".into());
        }
        let ncols = match &self.data[0] {
            Value::Array(a) => a.len(),
            Value::String(s) => s.chars().count(),
            Value::Object(o) => o.len(),
            Value::Null => return Err("object of type 'NoneType' has no len()".into()),
            Value::Bool(_) => return Err("object of type 'bool' has no len()".into()),
            Value::Number(_) => return Err("object of type 'int' has no len()".into()),
        };
        Ok((ncols, self.data[1..].iter().map(items).collect::<Result<_, _>>()?))
    }

    /// Runs the rule on the output's Markdown.
    pub fn run(&self, md: &str) -> Outcome {
        let (ncols, rows) = match self.shape() {
            Ok(s) => s,
            Err(e) => return Outcome::error(e),
        };
        let tables = orientations(md);
        if tables.is_empty() {
            return Outcome::fail("No tables found in content");
        }
        // Every orientation is scored out of the same expected cell count.
        let best_total = (rows.len() * ncols) as f64;
        let mut best = 0.0;
        for t in &tables {
            let (score, total) = match self.check(&rows, ncols, t) {
                Ok(x) => x,
                Err(e) => return Outcome::error(e),
            };
            if score == total {
                return Outcome::scored(true, 1.0, format!("Data: 100% ({score:.1}/{total:.0})"));
            }
            if score > best {
                best = score;
            }
        }
        let pct = if best_total > 0.0 { best / best_total * 100.0 } else { 0.0 };
        let why = format!("Data: {pct:.1}% ({best:.1}/{best_total:.0})");
        Outcome::scored(pct >= 99.5, pct / 100.0, why)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const GOOD: &str =
        "| Season | 2023 | 2024 |\n|---|---|---|\n| Summer | 1500 | 1720 |\n| Winter | 800 | 910 |";
    const SWAPPED: &str =
        "| Season | 2023 | 2024 |\n|---|---|---|\n| Summer | 1720 | 1500 |\n| Winter | 910 | 800 |";

    fn data(v: Value) -> Vec<Value> {
        v.as_array().unwrap().clone()
    }

    fn array(v: Value, x: bool, y: bool) -> ArrayData {
        ArrayData { data: data(v), x_axis_shuffle: x, y_axis_shuffle: y, normalize_numbers: true }
    }

    fn seasons() -> Value {
        json!([["Season", "2023", "2024"], ["Summer", 1500, 1720], ["Winter", 800, 910]])
    }

    #[test]
    fn dates_and_numbers_compare_as_the_evaluator_does() {
        assert!(dates_match("2008-04-01 00:00:00", "Q2-2008"));
        assert!(dates_match("1-2008", "01-2008"));
        assert!(!dates_match("2008", "2009"));
        assert_eq!(numeric_similarity("100", "90"), Some(0.9));
        assert_eq!(numeric_similarity("0", "0.0005"), Some(1.0));
        assert_eq!(numeric_similarity("3,5", "3.5"), Some(1.0));
        assert_eq!(numeric_similarity("abc", "1"), None);
    }

    #[test]
    fn labels_score_each_header_and_try_the_transposed_table() {
        let r = |h: Value| ArrayLabels { data: vec![h], x_axis_shuffle: false };
        let o = r(json!(["Season", "2023", "2024"])).run(GOOD);
        assert!(o.passed && o.score == 1.0, "{o:?}");
        // Three headers fit only the transposed table (3 × 2 read as 2 × 3).
        let o = r(json!(["Season", "2023", "2024x"]))
            .run("| Season | 2023 |\n|---|---|\n| a | 1 |\n| b | 2 |");
        assert!(!o.passed);
        // Transposed: first row Season, a, b: 1 + 0 + 0 (no common character) = 1 of 3.
        assert!((o.score - 1.0 / 3.0).abs() < 1e-12, "{o:?}");
        let o = r(json!(["Year"])).run("no table");
        assert_eq!((o.passed, o.score), (false, 0.0));
        assert!(r(json!([])).run(GOOD).explanation.contains("No labels"));
    }

    #[test]
    fn data_cells_score_by_relative_error_and_shuffles_find_the_best_columns() {
        assert_eq!(array(seasons(), false, false).run(GOOD).score, 1.0);
        let o = array(seasons(), false, false).run(SWAPPED);
        // 2 labels + (1 − 220/1500) + (1 − 220/1720) + (1 − 110/800) + (1 − 110/910), of 6.
        let want = (2.0
            + (1.0 - 220.0 / 1500.0)
            + (1.0 - 220.0 / 1720.0)
            + (1.0 - 110.0 / 800.0)
            + (1.0 - 110.0 / 910.0))
            / 6.0;
        assert!(!o.passed);
        assert!((o.score - want).abs() < 1e-12, "{o:?} {want}");
        // With columns free to move, 2023's values are found in the table's third column.
        let o = array(seasons(), true, false).run(SWAPPED);
        assert!(o.passed && o.score == 1.0, "{o:?}");
        let o = array(seasons(), true, true).run(SWAPPED);
        assert!(o.passed, "{o:?}");
    }

    #[test]
    fn empty_cells_scales_and_out_of_range_rows() {
        let t = "| x | y |\n|---|---|\n| a | 0 |";
        assert!(array(json!([["x", "y"], ["a", null]]), false, false).run(t).passed);
        let t = "| x | y |\n|---|---|\n| a | 1.5 |";
        assert!(array(json!([["x", "y"], ["a", 1500000]]), false, false).run(t).passed);
        let o = array(json!([["x", "y"], ["a", "1.5", "z"]]), false, false).run(t);
        assert!(o.error, "{o:?}");
        let o = array(json!([["x", "y"]]), false, false).run(t);
        assert!(o.error && o.explanation.contains("at least header row"), "{o:?}");
    }
}
