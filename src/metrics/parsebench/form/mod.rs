//! `form_field` rules (ParseBench `evaluation/metrics/parse/rules_form.py`, `FormFieldRule`):
//! a labelled field is looked up in the Markdown and its value checked: `text` (the value
//! found equals the expected one, or one of them), `checkbox` (the state of the box next to the
//! label, or a yes/no value) and `signature` (something, or nothing, written by the label).
//! The rules, as the evaluator runs them, are in `docs/parsebench.md` ("form_field").
//!
//! A rule's `page` scopes the lookup to that page's Markdown where the output has pages (a
//! provider's Doc: [`super::sections::PageSections`]), as `_scope_to_page` does for an output
//! with per-page IR (a page the output lacks reads as ""); an output read from Markdown has
//! none, and the whole document is read (the evaluator's fallback).

mod cells;
mod checkbox;
mod pairs;

use serde_json::{Map, Value};

use super::normalize::{normalize_text, py_strip};
use super::Outcome;

/// `CELL_FUZZY_MATCH_THRESHOLD`.
const STRICT: f64 = 0.8;
const PARTIAL: f64 = 0.90;
const PARTIAL_MIN_LEN: usize = 6;
const PARTIAL_PENALTY: f64 = 0.05;

/// A regex with Python's `\s` (which also holds U+001C..U+001F) for `\s` and `\S`.
pub(super) fn py_re(p: &str) -> regex::Regex {
    let mut out = String::new();
    let mut it = p.chars();
    while let Some(c) = it.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match it.next() {
            Some('s') => out.push_str(r"[\s\x1C-\x1F]"),
            Some('S') => out.push_str(r"[^\s\x1C-\x1F]"),
            Some(n) => {
                out.push('\\');
                out.push(n);
            }
            None => out.push('\\'),
        }
    }
    regex::Regex::new(&out).expect("form_field regex")
}

/// Python's `len`.
pub(super) fn clen(s: &str) -> usize {
    s.chars().count()
}

/// Python's `str.strip(chars)`.
pub(super) fn strip_chars<'a>(s: &'a str, chars: &str) -> &'a str {
    s.trim_matches(|c| chars.contains(c))
}

/// The value a rule expects, as pydantic reads `str | bool | list[str]`.
#[derive(Debug, Clone, PartialEq)]
pub enum Expected {
    /// A string.
    Text(String),
    /// `true` / `false`.
    Bool(bool),
    /// Alternatives.
    List(Vec<String>),
}

/// What a `form_field` rule checks.
#[derive(Debug, Clone, PartialEq)]
pub struct FormField {
    /// The label looked for.
    pub label: String,
    /// The expected value.
    pub value: Expected,
    /// `text`, `checkbox` or `signature`.
    pub value_type: String,
}

/// Python's `repr` of a string (the explanations quote labels and values as the evaluator's).
pub(super) fn py_repr(s: &str) -> String {
    let q = if s.contains('\'') && !s.contains('"') { '"' } else { '\'' };
    let mut out = String::from(q);
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c == q => {
                out.push('\\');
                out.push(c);
            }
            c if !py_printable(c) => out.push_str(&match c as u32 {
                n @ 0..=0xff => format!("\\x{n:02x}"),
                n @ 0x100..=0xffff => format!("\\u{n:04x}"),
                n => format!("\\U{n:08x}"),
            }),
            c => out.push(c),
        }
    }
    out.push(q);
    out
}

/// Python's `str.isprintable` for one character, for the characters outputs meet: not the
/// controls, the separators other than the space, nor the format characters.
fn py_printable(c: char) -> bool {
    !(c.is_control()
        || matches!(c,
            '\u{a0}' | '\u{ad}' | '\u{1680}' | '\u{2000}'..='\u{200f}' | '\u{2028}'..='\u{202f}'
            | '\u{205f}'..='\u{2064}' | '\u{3000}' | '\u{feff}'))
}

fn py_bool(b: bool) -> &'static str {
    if b {
        "True"
    } else {
        "False"
    }
}

impl FormField {
    /// The rule from its fields (`label`, `value`, `value_type`).
    pub fn from_fields(f: &Map<String, Value>) -> Result<FormField, String> {
        let label = match f.get("label") {
            None | Some(Value::Null) => String::new(),
            Some(Value::String(s)) => s.clone(),
            Some(_) => return Err("field label: expected a string".into()),
        };
        let value = match f.get("value") {
            None | Some(Value::Null) => Expected::Text(String::new()),
            Some(Value::String(s)) => Expected::Text(s.clone()),
            Some(Value::Bool(b)) => Expected::Bool(*b),
            Some(Value::Array(a)) => Expected::List(
                a.iter()
                    .map(|v| v.as_str().map(str::to_string))
                    .collect::<Option<Vec<_>>>()
                    .ok_or("field value: expected a string, true/false or a list of strings")?,
            ),
            Some(_) => {
                return Err("field value: expected a string, true/false or a list of strings".into())
            }
        };
        let value_type = match f.get("value_type") {
            None | Some(Value::Null) => "text".to_string(),
            Some(Value::String(s)) if ["text", "checkbox", "signature"].contains(&s.as_str()) => {
                s.clone()
            }
            Some(_) => return Err("field value_type: expected text, checkbox or signature".into()),
        };
        Ok(FormField { label, value, value_type })
    }

    /// Runs the rule on the Markdown.
    pub fn run(&self, md: &str) -> Outcome {
        if self.label.is_empty() {
            return Outcome::error("label field cannot be empty");
        }
        match self.value_type.as_str() {
            "checkbox" => self.run_checkbox(md),
            "signature" => self.run_signature(md),
            _ => self.run_text(md),
        }
    }

    fn not_found(&self) -> Outcome {
        Outcome::fail(format!("label not found: {}", py_repr(&self.label)))
    }

    /// `_value_alternatives`.
    fn alternatives(&self) -> Vec<String> {
        match &self.value {
            Expected::Text(s) => vec![s.clone()],
            Expected::Bool(b) => vec![py_bool(*b).to_string()],
            Expected::List(l) => l.clone(),
        }
    }

    fn run_text(&self, md: &str) -> Outcome {
        // Every text lookup reads the HTML tables, where the evaluator raises on a bad span.
        if let Some(e) = cells::span_error(md) {
            return Outcome::error(e);
        }
        let alts = self.alternatives();
        let found = if cells::split_row_label(&self.label).is_some() {
            cells::table_cell_for_row_label(md, &self.label)
        } else {
            text_value_for_label(md, &self.label, Some(&alts))
        };
        let Some(value) = found else { return self.not_found() };
        if alts.iter().any(|e| values_match_text(&value, e)) {
            return Outcome::pass();
        }
        if alts.len() == 1 {
            return Outcome::fail(format!(
                "expected {}, got {}",
                py_repr(&alts[0]),
                py_repr(&value)
            ));
        }
        let list: Vec<String> = alts.iter().map(|a| py_repr(a)).collect();
        Outcome::fail(format!("expected any of [{}], got {}", list.join(", "), py_repr(&value)))
    }

    fn run_checkbox(&self, md: &str) -> Outcome {
        let expected = match &self.value {
            Expected::Bool(b) => Some(*b),
            Expected::List(_) => None,
            Expected::Text(s) => coerce_bool(s),
        };
        let Some(expected) = expected else {
            let shown = match &self.value {
                Expected::List(l) => {
                    let l: Vec<String> = l.iter().map(|a| py_repr(a)).collect();
                    format!("[{}]", l.join(", "))
                }
                Expected::Text(s) => py_repr(s),
                Expected::Bool(b) => py_bool(*b).to_string(),
            };
            return Outcome::fail(format!("checkbox value must be coercible to bool, got {shown}"));
        };
        let state = match checkbox::state_for_label(md, &self.label) {
            Some(s) => s,
            None => {
                if let Some(e) = cells::span_error(md) {
                    return Outcome::error(e);
                }
                let found = if cells::split_row_label(&self.label).is_some() {
                    cells::table_cell_for_row_label(md, &self.label)
                } else {
                    text_value_for_label(md, &self.label, None)
                };
                let text = match found {
                    Some(t) if !t.is_empty() => t,
                    _ => return self.not_found(),
                };
                match coerce_bool(&text) {
                    Some(s) => s,
                    None => {
                        return Outcome::fail(format!(
                            "could not interpret {} as checkbox state",
                            py_repr(&text)
                        ))
                    }
                }
            }
        };
        if state == expected {
            Outcome::pass()
        } else {
            Outcome::fail(format!("expected {}, got {}", py_bool(expected), py_bool(state)))
        }
    }

    fn run_signature(&self, md: &str) -> Outcome {
        let expected = match &self.value {
            Expected::Bool(b) => *b,
            Expected::List(l) => l.iter().any(|v| !py_strip(v).is_empty()),
            Expected::Text(s) => !py_strip(s).is_empty(),
        };
        if let Some(e) = cells::span_error(md) {
            return Outcome::error(e);
        }
        let Some(text) = text_value_for_label(md, &self.label, None) else {
            return self.not_found();
        };
        let signed = !py_strip(&text).is_empty();
        if signed == expected {
            Outcome::pass()
        } else {
            Outcome::fail(format!(
                "expected signed={}, got signed={}",
                py_bool(expected),
                py_bool(signed)
            ))
        }
    }
}

/// `_coerce_bool` of a string.
pub fn coerce_bool(s: &str) -> Option<bool> {
    let t = py_strip(s).to_lowercase();
    if ["yes", "y", "true", "t", "1", "checked", "x", "selected", "on"].contains(&t.as_str()) {
        return Some(true);
    }
    if ["no", "n", "false", "f", "0", "unchecked", "unselected", "off", ""].contains(&t.as_str()) {
        return Some(false);
    }
    None
}

/// `_strip_label_punct`: dots, colons and commas removed, whitespace runs as one space.
fn strip_label_punct(s: &str) -> String {
    let s = s.replace(['.', ':', ','], "");
    let words: Vec<&str> =
        s.split(super::normalize::is_py_space).filter(|w| !w.is_empty()).collect();
    words.join(" ")
}

/// `_label_match_score`: 0 when `candidate` is not `label`, else how well it matches (strict
/// ratio, penalized partial ratio, or 1 for equality without dots, colons and commas).
pub fn label_match_score(candidate: &str, label: &str) -> f64 {
    let cand = normalize_text(candidate);
    let lbl = normalize_text(label);
    if cand.is_empty() || lbl.is_empty() {
        return 0.0;
    }
    let mut best = 0.0;
    let ratio = crate::metrics::fuzz::ratio(&cand, &lbl) / 100.0;
    if ratio >= STRICT {
        best = ratio;
    }
    if clen(&cand).min(clen(&lbl)) >= PARTIAL_MIN_LEN {
        let partial = crate::metrics::fuzz::partial_ratio(&cand, &lbl) / 100.0;
        if partial >= PARTIAL {
            let penalized = f64::max(partial - PARTIAL_PENALTY, 0.0);
            if penalized > best {
                best = penalized;
            }
        }
    }
    let (cs, ls) = (strip_label_punct(&cand), strip_label_punct(&lbl));
    if !cs.is_empty() && cs == ls && 1.0 > best {
        best = 1.0;
    }
    best
}

/// `_label_matches`.
pub fn label_matches(candidate: &str, label: &str) -> bool {
    label_match_score(candidate, label) > 0.0
}

/// `_values_match_text`: equal after `normalize_text` (struck-out spans of the found value
/// dropped), or the same number.
pub fn values_match_text(found: &str, expected: &str) -> bool {
    let found = pairs::strip_strikethrough(found);
    let (f, e) = (normalize_text(&found), normalize_text(expected));
    if f == e {
        return true;
    }
    if f.is_empty() || e.is_empty() {
        return false;
    }
    matches!(
        (super::chart::number(&found), super::chart::number(expected)),
        (Some(a), Some(b)) if a == b
    )
}

/// One candidate value: (score, source priority, index in its source, value).
type Candidate = (f64, i32, usize, String);

/// `_find_text_value_for_label`: `None` when the label is not found, else the value (empty when
/// the label is found with no value). `expected` breaks ties among the best-scoring candidates.
pub fn text_value_for_label(md: &str, label: &str, expected: Option<&[String]>) -> Option<String> {
    let mut seen = false;
    let mut cands: Vec<Candidate> = Vec::new();
    let mut collect = |list: Vec<(String, String)>, prio: i32, cands: &mut Vec<Candidate>| {
        for (i, (l, v)) in list.into_iter().enumerate() {
            let s = label_match_score(&l, label);
            if s <= 0.0 {
                continue;
            }
            seen = true;
            if !v.is_empty() {
                cands.push((s, prio, i, v));
            }
        }
    };
    collect(pairs::bold_colon_pairs(md), 4, &mut cands);
    collect(pairs::plain_colon_pairs(md), 3, &mut cands);
    collect(cells::md_table_kv_rows(md), 2, &mut cands);
    collect(cells::html_table_kv_rows(md), 1, &mut cands);
    if cands.is_empty() {
        if md.contains("<u>") {
            collect(pairs::underline_fill_pairs(md), 0, &mut cands);
        }
        collect(cells::html_cell_neighbor_pairs(md), -1, &mut cands);
    }
    // The underscore blanks only mark the label as seen (their pass comes before the fallbacks
    // in the evaluator; the order does not change what is found).
    if pairs::underscore_blank_labels(md).iter().any(|l| label_matches(l, label)) {
        seen = true;
    }
    if !cands.is_empty() {
        cands.sort_by(|a, b| {
            b.0.total_cmp(&a.0).then(b.1.cmp(&a.1)).then(a.2.cmp(&b.2)).then(a.3.cmp(&b.3))
        });
        if let Some(exp) = expected.filter(|e| !e.is_empty()) {
            let top = cands[0].0;
            for c in cands.iter().take_while(|c| c.0 == top) {
                if exp.iter().any(|e| values_match_text(&c.3, e)) {
                    return Some(c.3.clone());
                }
            }
        }
        return Some(cands.swap_remove(0).3);
    }
    if !seen {
        if let Some(v) = pairs::adjacent_line_value(md, label) {
            return Some(v);
        }
        return None;
    }
    Some(String::new())
}

#[cfg(test)]
mod tests;
