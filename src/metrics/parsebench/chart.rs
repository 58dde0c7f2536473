//! `chart_data_point` (ParseBench's `rules_chart.py`, `ChartDataPointRule`): a chart's value
//! must sit in one of the output's tables together with its labels.
//!
//! - **Tables**: the pipe tables (their header row and first column as headers, the 5 lines
//!   before as context), then the HTML tables (`<th>` cells as headers, the text of up to three
//!   preceding siblings and the caption as context) ([`super::tables`]).
//! - **Value**: a cell whose normalized text has `fuzz.ratio` ≥ `max(0.5, 1 − max_diffs/len)`
//!   with the value, or (with `normalize_numbers`) the same number within
//!   `relative_tolerance` (currency, `~`, `%`, thousands separators, spaces and `k`/`m`/`b`/`t`
//!   suffixes understood; a comma also tried as a decimal point); failing that, a composite
//!   value (`25 (13.0%)`) whose numbers fill adjacent cells left to right.
//! - **Labels**: each label must be in the value's row or column (`partial_ratio` over the same
//!   threshold, or contained once everything but `a-z0-9` is removed), or among the headers of
//!   its column or row; otherwise, where the table has context, a label found nowhere in the
//!   table may be a heading or bold text of the context (`ratio` ≥ 0.6), and any label may be
//!   in a heading or caption of the context. The rule passes (score 1) at the first value cell
//!   whose labels are all placed.

use std::collections::BTreeMap;
use std::sync::LazyLock;

use regex::Regex;

use super::normalize::{normalize_text, py_strip};
use super::tables::{html_tables_full, markdown_tables_in_context};
use super::Outcome;
use crate::metrics::fuzz::{partial_ratio, ratio};

fn re(p: &str) -> Regex {
    Regex::new(p).expect("a fixed pattern")
}

static LEAD_CURRENCY: LazyLock<Regex> = LazyLock::new(|| re(r"^[$€£¥]\s*"));
static TRAIL_CURRENCY: LazyLock<Regex> = LazyLock::new(|| re(r"\s*[$€£¥]$"));
static APPROX: LazyLock<Regex> = LazyLock::new(|| re(r"^[~≈]\s*"));
static SUFFIXES: LazyLock<Vec<(Regex, f64)>> = LazyLock::new(|| {
    vec![
        (re(r"(?i)\s*(trillion|trill|trn)$"), 1e12),
        (re(r"(?i)\s*(billion|bill|bln)$"), 1e9),
        (re(r"(?i)\s*(million|mill|mln)$"), 1e6),
        (re(r"(?i)\s*t$"), 1e12),
        (re(r"(?i)\s*g$"), 1e9),
        (re(r"(?i)\s*b$"), 1e9),
        (re(r"(?i)\s*m$"), 1e6),
        (re(r"(?i)\s*k$"), 1e3),
    ]
});
static NUMERIC_PARTS: LazyLock<Regex> = LazyLock::new(|| re(r"[-+]?\d(?:,\d{3}|\d)*\.?\d*%?"));
static BR: LazyLock<Regex> = LazyLock::new(|| re(r"<br\s*/?>"));
static NOT_ALNUM: LazyLock<Regex> = LazyLock::new(|| re(r"[^a-z0-9]"));
static MD_HEADING: LazyLock<Regex> = LazyLock::new(|| re(r"(?m)^#{1,6}\s+(.+?)$"));
static MD_BOLD: LazyLock<Regex> = LazyLock::new(|| re(r"\*\*(.+?)\*\*"));
static HTML_HEADING: LazyLock<Regex> = LazyLock::new(|| re(r"(?i)<h[1-6][^>]*>(.+?)</h[1-6]>"));
static HTML_BOLD: LazyLock<Regex> =
    LazyLock::new(|| re(r"(?i)<(?:strong|b)[^>]*>(.+?)</(?:strong|b)>"));
static CAPTION: LazyLock<Regex> = LazyLock::new(|| re(r"(?i)<caption[^>]*>(.+?)</caption>"));

/// Python's `float()` on a cleaned string (no underscores).
fn py_float(s: &str) -> Option<f64> {
    let t = py_strip(s);
    if t.is_empty() || t.contains('_') {
        return None;
    }
    t.parse::<f64>().ok()
}

/// `normalize_number_string`.
pub fn number(s: &str) -> Option<f64> {
    if s.is_empty() {
        return None;
    }
    let s = py_strip(s);
    let s = LEAD_CURRENCY.replace(s, "");
    let s = TRAIL_CURRENCY.replace(&s, "");
    let s = APPROX.replace(&s, "");
    let s = s.trim_end_matches('%').replace([',', ' '], "");
    let mut mult = 1.0;
    let mut s = s;
    for (p, m) in SUFFIXES.iter() {
        if p.is_match(&s) {
            s = p.replace_all(&s, "").into_owned();
            mult = *m;
            break;
        }
    }
    py_float(&s).map(|v| v * mult)
}

/// `_normalize_number_candidates`: the number, and with a comma also read as a decimal point.
pub(super) fn candidates(s: &str) -> Vec<f64> {
    let mut out = Vec::new();
    out.extend(number(s));
    if s.contains(',') {
        if let Some(v) = number(&s.replace(',', ".")) {
            if !out.contains(&v) {
                out.push(v);
            }
        }
    }
    out
}

/// `numbers_match`.
pub fn numbers_match(a: &str, b: &str, tol: f64) -> bool {
    let (ca, cb) = (candidates(a), candidates(b));
    for x in &ca {
        for y in &cb {
            if *x == 0.0 && *y == 0.0 {
                return true;
            }
            if *x == 0.0 || *y == 0.0 {
                if (x - y).abs() < tol {
                    return true;
                }
                continue;
            }
            if (x - y).abs() / x.abs().max(y.abs()) <= tol {
                return true;
            }
        }
    }
    false
}

/// One table as the rule reads it.
struct Table {
    data: Vec<Vec<String>>,
    col_headers: BTreeMap<usize, Vec<String>>,
    row_headers: BTreeMap<usize, Vec<String>>,
    context: String,
}

fn tables(md: &str) -> Vec<Table> {
    let mut out = Vec::new();
    for (data, ctx) in markdown_tables_in_context(md) {
        let mut col_headers = BTreeMap::new();
        let mut row_headers = BTreeMap::new();
        if let Some(first) = data.first() {
            for (c, t) in first.iter().enumerate() {
                col_headers.insert(c, vec![t.clone()]);
            }
        }
        if data.first().is_some_and(|r| !r.is_empty()) {
            for (r, row) in data.iter().enumerate().skip(1) {
                row_headers.insert(r, vec![row[0].clone()]);
            }
        }
        out.push(Table { data, col_headers, row_headers, context: ctx });
    }
    for t in html_tables_full(md) {
        out.push(Table {
            data: t.grid,
            col_headers: t.col_headers,
            row_headers: t.row_headers,
            context: t.context_before,
        });
    }
    out
}

/// A `chart_data_point` rule.
#[derive(Debug, Clone, PartialEq)]
pub struct DataPoint {
    /// The value as the rule gives it (`str(value)`).
    pub value: String,
    /// The labels (`str(label)` each).
    pub labels: Vec<String>,
    /// Compare numbers as numbers.
    pub normalize_numbers: bool,
    /// Relative tolerance of that comparison.
    pub relative_tolerance: f64,
    /// `max_diffs`.
    pub max_diffs: f64,
}

fn stripped(s: &str) -> String {
    NOT_ALNUM.replace_all(s, "").into_owned()
}

impl DataPoint {
    fn threshold(&self, s: &str) -> f64 {
        (1.0 - self.max_diffs / s.chars().count().max(1) as f64).max(0.5)
    }

    fn label_matches(&self, label: &str, cell: &str) -> bool {
        if partial_ratio(label, cell) / 100.0 >= self.threshold(label) {
            return true;
        }
        let (sl, sc) = (stripped(label), stripped(cell));
        !sl.is_empty() && !sc.is_empty() && sc.contains(&sl)
    }

    fn find_values(&self, t: &Table, value: &str) -> Vec<(usize, usize)> {
        let th = self.threshold(value);
        let mut out = Vec::new();
        for (r, row) in t.data.iter().enumerate() {
            for (c, cell) in row.iter().enumerate() {
                let cell = normalize_text(cell);
                if ratio(value, &cell) / 100.0 >= th
                    || (self.normalize_numbers
                        && numbers_match(value, &cell, self.relative_tolerance))
                {
                    out.push((r, c));
                }
            }
        }
        if out.is_empty() && self.normalize_numbers {
            let parts: Vec<&str> = NUMERIC_PARTS.find_iter(value).map(|m| m.as_str()).collect();
            if parts.len() >= 2 {
                for (r, row) in t.data.iter().enumerate() {
                    for c in 0..row.len() {
                        if !numbers_match(
                            parts[0],
                            &normalize_text(&row[c]),
                            self.relative_tolerance,
                        ) {
                            continue;
                        }
                        let all = parts.iter().enumerate().skip(1).all(|(k, p)| {
                            row.get(c + k).is_some_and(|x| {
                                numbers_match(p, &normalize_text(x), self.relative_tolerance)
                            })
                        });
                        if all {
                            out.push((r, c));
                        }
                    }
                }
            }
        }
        out
    }

    fn associated(&self, t: &Table, vr: usize, vc: usize, label: &str) -> bool {
        let row = &t.data[vr];
        if row
            .iter()
            .enumerate()
            .any(|(c, x)| c != vc && self.label_matches(label, &normalize_text(x)))
        {
            return true;
        }
        if t.data.iter().enumerate().any(|(r, x)| {
            r != vr && x.get(vc).is_some_and(|x| self.label_matches(label, &normalize_text(x)))
        }) {
            return true;
        }
        let headers = |m: &BTreeMap<usize, Vec<String>>, k: usize| {
            m.get(&k).into_iter().flatten().any(|h| self.label_matches(label, &normalize_text(h)))
        };
        headers(&t.col_headers, vc) || headers(&t.row_headers, vr)
    }

    fn in_table(&self, t: &Table, label: &str) -> bool {
        t.data.iter().flatten().any(|x| self.label_matches(label, &normalize_text(x)))
            || [&t.col_headers, &t.row_headers]
                .iter()
                .flat_map(|m| m.values().flatten())
                .any(|h| self.label_matches(label, &normalize_text(h)))
    }

    fn in_formatted(&self, ctx: &str, label: &str) -> bool {
        let mut found: Vec<String> = Vec::new();
        for p in [&*MD_HEADING, &*MD_BOLD, &*HTML_HEADING, &*HTML_BOLD] {
            for c in p.captures_iter(ctx) {
                found.push(normalize_text(c.get(1).map_or("", |m| m.as_str())));
            }
        }
        let nl = normalize_text(label);
        let sl = stripped(&nl);
        found.iter().any(|f| {
            if ratio(&nl, f) / 100.0 >= 0.6 {
                return true;
            }
            let sf = stripped(f);
            !sl.is_empty() && !sf.is_empty() && ratio(&sl, &sf) / 100.0 >= 0.6
        })
    }

    fn in_heading_or_caption(&self, ctx: &str, label: &str) -> bool {
        let nl = normalize_text(label);
        let sl = stripped(&nl);
        let th = self.threshold(&nl);
        let matches = |text: &str| {
            let t = normalize_text(text);
            if partial_ratio(&nl, &t) / 100.0 >= th {
                return true;
            }
            let st = stripped(&t);
            !sl.is_empty() && !st.is_empty() && st.contains(&sl)
        };
        CAPTION.captures_iter(ctx).any(|c| matches(c.get(1).map_or("", |m| m.as_str())))
            || MD_HEADING.captures_iter(ctx).any(|c| matches(c.get(1).map_or("", |m| m.as_str())))
    }

    /// Runs the rule on the output's Markdown.
    pub fn run(&self, md: &str) -> Outcome {
        let value = normalize_text(&self.value);
        let labels: Vec<String> =
            self.labels.iter().map(|l| normalize_text(&BR.replace_all(l, " "))).collect();
        if value.is_empty() {
            return Outcome::error("value field cannot be empty");
        }
        if labels.is_empty() {
            return Outcome::error("labels field must contain at least one label");
        }
        let ts = tables(md);
        if ts.is_empty() {
            return Outcome::fail("No tables found in content");
        }
        let mut reasons: Vec<String> = Vec::new();
        for t in &ts {
            let ctx = py_strip(&t.context).to_string();
            for (vr, vc) in self.find_values(t, &value) {
                let missing: Vec<&String> =
                    labels.iter().filter(|l| !self.associated(t, vr, vc, l)).collect();
                if missing.is_empty() {
                    return Outcome::pass();
                }
                if ctx.is_empty() {
                    reasons.push(format!("Value at ({vr}, {vc}) missing labels: {missing:?}"));
                    continue;
                }
                let missing: Vec<&String> = labels
                    .iter()
                    .filter(|l| {
                        !(self.associated(t, vr, vc, l)
                            || (!self.in_table(t, l) && self.in_formatted(&ctx, l))
                            || self.in_heading_or_caption(&ctx, l))
                    })
                    .collect();
                if missing.is_empty() {
                    return Outcome::pass();
                }
                reasons.push(format!("Value at ({vr}, {vc}) missing labels: {missing:?}"));
            }
        }
        if reasons.is_empty() {
            return Outcome::fail(format!("Value '{value}' not found in any table"));
        }
        let first: Vec<String> = reasons.into_iter().take(3).collect();
        Outcome::fail(format!("Value found but labels not associated: {}", first.join("; ")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn point(value: &str, labels: &[&str]) -> DataPoint {
        DataPoint {
            value: value.into(),
            labels: labels.iter().map(|l| l.to_string()).collect(),
            normalize_numbers: true,
            relative_tolerance: 0.01,
            max_diffs: 0.0,
        }
    }

    #[test]
    fn numbers_are_read_with_units_and_separators() {
        assert_eq!(number("$39.2M"), Some(39.2e6));
        assert_eq!(number("1,500"), Some(1500.0));
        assert_eq!(number("45%"), Some(45.0));
        assert!(numbers_match("2,08", "2.08", 0.01));
        assert!(!numbers_match("10", "12", 0.01));
    }

    #[test]
    fn a_value_needs_its_labels_in_its_row_column_or_context() {
        let md = "## Sales by year\n\n| Year | Sales |\n|---|---|\n| 2021 | 10 |\n| 2022 | 15 |\n";
        assert!(point("15", &["2022"]).run(md).passed);
        assert!(point("15", &["2022", "Sales"]).run(md).passed);
        assert!(!point("15", &["2021"]).run(md).passed);
        assert!(point("15", &["Sales by year", "2022"]).run(md).passed);
        assert!(!point("99", &["2022"]).run(md).passed);
        assert!(!point("15", &["2022"]).run("no table").passed);
    }
}
