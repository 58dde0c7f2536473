//! ParseBench's rule-based parse evaluation (run-llama/ParseBench, `evaluation/metrics/parse/`
//! and `evaluation/evaluators/parse.py`), written from its description; the rules in
//! `docs/parsebench.md`.
//!
//! A test case is one PDF's rules of one category (`text_content`, `text_formatting`,
//! `table`, `chart`, `layout`). Every rule runs on the provider's whole Markdown and gives
//! `(passed, score)`: the binary rules score 1 or 0, the `_percent` rules their fraction. A
//! rule that cannot be built from its fields (an empty text, an empty bag) fails with score 0
//! and says why, as ParseBench's `Error executing rule`. Empty Markdown fails every rule.
//!
//! Per test case ([`score_case`]): `rule_pass_rate` (mean score of its rules), each rule
//! type's mean (`rule_<type>_pass_rate`), the normalized categories built from those type
//! means, and the dimension scores `content_faithfulness` and `semantic_formatting`. Over a
//! dataset every figure is the mean over the test cases that have it ([`Aggregate`]).
//!
//! Rule types this build does not implement ([`RuleCheck::Unimplemented`]) are not run: they
//! are left out of every rate and counted by type, so a figure never silently covers fewer
//! rules than the data holds.

pub mod attribution;
pub mod bag;
pub mod chart;
pub mod chart_array;
mod fields;
pub mod form;
pub mod format;
pub mod layout;
pub mod normalize;
pub mod rotate;
pub mod sections;
pub mod table_data;
pub mod table_rules;
pub mod table_score;
pub mod table_split;
pub mod table_values;
pub mod tables;
pub mod text;
pub mod title_strip;
pub mod trm;
mod unidecode_table;

use std::collections::BTreeMap;

use fields::py_str;
use fields::{
    anchor_cells, bool_or, counts, list, num_or, opt_int, opt_str, str_or, string_list, wrong,
};

use serde::Serialize;
use serde_json::{Map, Value};

use bag::{BagCheck, BagRule, Unit};

use crate::doc::Doc;

/// The dimensions of ParseBench's leaderboard, with the metric its aggregation report shows
/// for each (`analysis/aggregation_report.py`, `_DEFAULT_METRICS`).
pub const DIMENSIONS: [(&str, &str); 6] = [
    ("table", "grits_trm_composite"),
    ("chart", "rule_pass_rate"),
    ("text_content", "content_faithfulness"),
    ("text_formatting", "semantic_formatting"),
    ("layout", "layout_element_rule_pass_rate"),
    ("form", "rule_form_field_pass_rate"),
];

/// The headline metric of a category: [`DIMENSIONS`]'s, else `rule_pass_rate`.
pub fn headline_of(category: &str) -> &'static str {
    DIMENSIONS.iter().find(|(c, _)| *c == category).map_or("rule_pass_rate", |(_, m)| m)
}

/// One rule's result.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Outcome {
    /// Passed.
    pub passed: bool,
    /// Score in [0, 1] (1/0 for binary rules).
    pub score: f64,
    /// Why it failed (empty when it passed).
    pub explanation: String,
    /// The rule could not be built from its fields.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub error: bool,
    /// For a failing text rule: what was looked for (normalized) and the stretch of the
    /// normalized output that matches it best.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub best_match: Option<BestMatch>,
}

/// What a failing text rule looked for and the closest stretch of the output.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BestMatch {
    /// The rule's text as compared.
    pub looked_for: String,
    /// The window of the compared output with the highest `ratio` to it.
    pub found: String,
    /// `partial_ratio` / 100.
    pub ratio: f64,
}

/// The window of `content` (as long as `query`) with the highest `ratio` to it (the first on
/// ties), with the `partial_ratio`.
pub fn best_match(query: &str, content: &str) -> BestMatch {
    let q: Vec<char> = query.chars().collect();
    let c: Vec<char> = content.chars().collect();
    let ratio = crate::metrics::fuzz::partial_ratio_chars(&q, &c) / 100.0;
    let found: String = if q.is_empty() || c.len() <= q.len() {
        c.iter().collect()
    } else {
        let mut best = (-1.0f64, 0usize);
        for i in 0..=c.len() - q.len() {
            let r = crate::metrics::fuzz::ratio_chars(&q, &c[i..i + q.len()]);
            if r > best.0 {
                best = (r, i);
            }
        }
        c[best.1..best.1 + q.len()].iter().collect()
    };
    BestMatch { looked_for: query.to_string(), found, ratio }
}

impl Outcome {
    /// Passed, score 1.
    pub fn pass() -> Outcome {
        Outcome {
            passed: true,
            score: 1.0,
            explanation: String::new(),
            error: false,
            best_match: None,
        }
    }

    /// Failed, score 0.
    pub fn fail(why: impl Into<String>) -> Outcome {
        Outcome {
            passed: false,
            score: 0.0,
            explanation: why.into(),
            error: false,
            best_match: None,
        }
    }

    /// A graduated result.
    pub fn scored(passed: bool, score: f64, why: String) -> Outcome {
        Outcome { passed, score, explanation: why, error: false, best_match: None }
    }

    /// The rule could not be built: failed, score 0.
    pub fn error(why: impl Into<String>) -> Outcome {
        Outcome {
            passed: false,
            score: 0.0,
            explanation: format!("Error executing rule: {}", why.into()),
            error: true,
            best_match: None,
        }
    }

    /// The outcome with the best match of a failing text rule.
    pub fn with_best(mut self, query: &str, content: &str) -> Outcome {
        if !self.passed && !self.error {
            self.best_match = Some(best_match(query, content));
        }
        self
    }
}

/// What a rule checks, read from its fields.
#[derive(Debug, Clone, PartialEq)]
pub enum RuleCheck {
    /// `present` / `absent`.
    Presence(text::Presence),
    /// `order`.
    Order(text::Order),
    /// `baseline`.
    Baseline(text::Baseline),
    /// The sentence and word bag rules.
    Bag(BagRule),
    /// `missing_specific_sentence`.
    SpecificSentence(String),
    /// `missing_specific_word`.
    SpecificWord(String),
    /// `extra_content`.
    ExtraContent(Vec<(String, i64)>),
    /// `bag_of_digit_percent`.
    Digits(BTreeMap<String, i64>),
    /// `is_<kind>` / `is_not_<kind>`: (kind, present, text).
    Styling(&'static str, bool, String),
    /// `is_title`.
    Title(String),
    /// `title_hierarchy_percent`: the expected tree.
    TitleHierarchy(Value),
    /// `is_latex`: the formula.
    Latex(String),
    /// `is_code_block`: (language, code).
    CodeBlock(String, String),
    /// The table structure rules, with their `table_anchor_cells`.
    Table(table_rules::TableCheck, Vec<String>),
    /// `table`: a cell and its neighbours and headings.
    TableCell(table_values::CellRule),
    /// `tables_values`.
    TableValues(table_values::ValuesRule),
    /// `table_header_chain`: (data cell, column headers, row headers, anchors).
    HeaderChain(String, Vec<String>, Vec<String>, Vec<String>),
    /// `chart_data_point`.
    ChartPoint(chart::DataPoint),
    /// `tables_num_rows` / `tables_num_cols`: (expected, the count the rule carries, rows).
    TableCount(i64, Option<i64>, bool),
    /// `chart_data_array_labels`.
    ArrayLabels(chart_array::ArrayLabels),
    /// `chart_data_array_data`.
    ArrayData(chart_array::ArrayData),
    /// `rotate_check`: the expected angle (`value`).
    Rotate(Value),
    /// `form_field`.
    Form(form::FormField),
    /// A type ParseBench's evaluator has no rule for (`math`): it fails with its error.
    NoRuleClass(String),
    /// `is_header` / `is_footer` (footer, text).
    PageSection(bool, String),
    /// `mark_color`: (text, colour).
    MarkColor(String, String),
    /// `layout`: an element of the visual grounding case, scored per case by [`layout`].
    Layout,
    /// A type this build does not run (tables, formatting, charts, layout, ...).
    Unimplemented,
}

/// The rule types this build runs.
pub const IMPLEMENTED: [&str; 67] = [
    "present",
    "absent",
    "order",
    "baseline",
    "missing_sentence",
    "missing_sentence_percent",
    "unexpected_sentence",
    "unexpected_sentence_percent",
    "too_many_sentence_occurence",
    "too_many_sentence_occurence_percent",
    "missing_specific_sentence",
    "missing_word",
    "missing_word_percent",
    "unexpected_word",
    "unexpected_word_percent",
    "too_many_word_occurence",
    "too_many_word_occurence_percent",
    "missing_specific_word",
    "extra_content",
    "bag_of_digit_percent",
    "is_bold",
    "is_not_bold",
    "is_italic",
    "is_not_italic",
    "is_underline",
    "is_not_underline",
    "is_strikeout",
    "is_not_strikeout",
    "is_mark",
    "is_not_mark",
    "is_sup",
    "is_not_sup",
    "is_sub",
    "is_not_sub",
    "is_title",
    "title_hierarchy_percent",
    "is_latex",
    "is_code_block",
    "table_colspan",
    "table_rowspan",
    "table_same_row",
    "table_same_column",
    "table_adjacent_up",
    "table_adjacent_down",
    "table_adjacent_left",
    "table_adjacent_right",
    "table_top_header",
    "table_left_header",
    "table_no_left",
    "table_no_right",
    "table_no_above",
    "table_no_below",
    "chart_data_point",
    "chart_data_array_labels",
    "chart_data_array_data",
    "rotate_check",
    "math",
    "tables_num_rows",
    "tables_num_cols",
    "table",
    "tables_values",
    "table_header_chain",
    "is_header",
    "is_footer",
    "mark_color",
    "layout",
    "form_field",
];

/// Whether this build runs rules of `kind`.
pub fn is_implemented(kind: &str) -> bool {
    IMPLEMENTED.contains(&kind)
}

/// One rule as the data gives it.
#[derive(Debug, Clone, PartialEq)]
pub struct Rule {
    /// Its `type`.
    pub kind: String,
    /// Its `id`, where given.
    pub id: Option<String>,
    /// Its `page` (1-based), where given.
    pub page: Option<i64>,
    /// Its fields (`type`, `id` and `page` included).
    pub fields: Map<String, Value>,
}

impl Rule {
    /// A rule from its JSON object (ParseBench's rule dict: `type` and its fields); the error
    /// names the field of the wrong type.
    pub fn from_fields(fields: Map<String, Value>) -> Result<Rule, String> {
        let kind = match fields.get("type") {
            Some(Value::String(s)) => s.clone(),
            _ => return Err("no \"type\" string".into()),
        };
        let id = match fields.get("id") {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) => Some(s.clone()),
            Some(v) => Some(v.to_string()),
        };
        let page = opt_int(&fields, "page")?;
        let rule = Rule { kind, id, page, fields };
        rule.check()?;
        Ok(rule)
    }

    /// Allowed edit distance (`max_diffs`, 0 by default).
    fn max_diffs(&self) -> Result<f64, String> {
        match self.fields.get("max_diffs") {
            None | Some(Value::Null) => Ok(0.0),
            Some(v) => v.as_f64().ok_or_else(|| wrong("max_diffs", "a number")),
        }
    }

    /// What the rule checks; an error for a field of the wrong type.
    pub fn check(&self) -> Result<RuleCheck, String> {
        let f = &self.fields;
        let bag = |check, unit, percent| -> Result<RuleCheck, String> {
            let key = match unit {
                Unit::Sentence => "bag_of_sentence",
                Unit::Word => "bag_of_word",
            };
            Ok(RuleCheck::Bag(BagRule {
                check,
                unit,
                percent,
                bag: counts(f, key)?,
                original_md: opt_str(f, "original_md")?,
            }))
        };
        Ok(match self.kind.as_str() {
            "present" | "absent" => RuleCheck::Presence(text::Presence {
                present: self.kind == "present",
                text: str_or(f, "text", "")?,
                keep_formatting: bool_or(f, "keep_formatting_text_normalisation", false)?,
                case_sensitive: bool_or(f, "case_sensitive", true)?,
                first_n: opt_int(f, "first_n")?,
                last_n: opt_int(f, "last_n")?,
                count: opt_int(f, "count")?,
                max_diffs: self.max_diffs()?,
            }),
            "order" => RuleCheck::Order(text::Order {
                before: str_or(f, "before", "")?,
                after: str_or(f, "after", "")?,
                keep_formatting: bool_or(f, "keep_formatting_text_normalisation", false)?,
                max_diffs: self.max_diffs()?,
            }),
            "baseline" => RuleCheck::Baseline(text::Baseline {
                max_length: opt_int(f, "max_length")?,
                max_length_skips_image_alt_tags: bool_or(
                    f,
                    "max_length_skips_image_alt_tags",
                    false,
                )?,
                check_disallowed_characters: bool_or(f, "check_disallowed_characters", true)?,
            }),
            "missing_sentence" => bag(BagCheck::Missing, Unit::Sentence, false)?,
            "missing_sentence_percent" => bag(BagCheck::Missing, Unit::Sentence, true)?,
            "unexpected_sentence" => bag(BagCheck::Unexpected, Unit::Sentence, false)?,
            "unexpected_sentence_percent" => bag(BagCheck::Unexpected, Unit::Sentence, true)?,
            "too_many_sentence_occurence" => bag(BagCheck::TooMany, Unit::Sentence, false)?,
            "too_many_sentence_occurence_percent" => bag(BagCheck::TooMany, Unit::Sentence, true)?,
            "missing_word" => bag(BagCheck::Missing, Unit::Word, false)?,
            "missing_word_percent" => bag(BagCheck::Missing, Unit::Word, true)?,
            "unexpected_word" => bag(BagCheck::Unexpected, Unit::Word, false)?,
            "unexpected_word_percent" => bag(BagCheck::Unexpected, Unit::Word, true)?,
            "too_many_word_occurence" => bag(BagCheck::TooMany, Unit::Word, false)?,
            "too_many_word_occurence_percent" => bag(BagCheck::TooMany, Unit::Word, true)?,
            "missing_specific_sentence" => RuleCheck::SpecificSentence(str_or(f, "sentence", "")?),
            "missing_specific_word" => RuleCheck::SpecificWord(str_or(f, "word", "")?),
            "extra_content" => RuleCheck::ExtraContent(counts(f, "bag_of_sentence")?),
            "bag_of_digit_percent" => {
                RuleCheck::Digits(counts(f, "bag_of_digit")?.into_iter().collect())
            }
            "is_title" => RuleCheck::Title(str_or(f, "text", "")?),
            "title_hierarchy_percent" => match f.get("title_hierarchy") {
                None | Some(Value::Null) => RuleCheck::TitleHierarchy(Value::Object(Map::new())),
                Some(v @ Value::Object(_)) => RuleCheck::TitleHierarchy(v.clone()),
                Some(_) => return Err(wrong("title_hierarchy", "an object")),
            },
            "is_latex" => RuleCheck::Latex(str_or(f, "formula", "")?),
            "is_code_block" => {
                RuleCheck::CodeBlock(str_or(f, "language", "")?, str_or(f, "code", "")?)
            }
            "chart_data_point" => RuleCheck::ChartPoint(chart::DataPoint {
                value: py_str(f.get("value")),
                labels: match f.get("labels") {
                    None | Some(Value::Null) => Vec::new(),
                    Some(Value::Array(a)) => a
                        .iter()
                        .map(|l| l.as_str().map(str::to_string))
                        .collect::<Option<Vec<_>>>()
                        .ok_or_else(|| wrong("labels", "a list of strings"))?,
                    Some(_) => return Err(wrong("labels", "a list of strings")),
                },
                normalize_numbers: bool_or(f, "normalize_numbers", true)?,
                relative_tolerance: match f.get("relative_tolerance") {
                    None | Some(Value::Null) => 0.01,
                    Some(v) => v.as_f64().ok_or_else(|| wrong("relative_tolerance", "a number"))?,
                },
                max_diffs: self.max_diffs()?,
            }),
            "chart_data_array_labels" => RuleCheck::ArrayLabels(chart_array::ArrayLabels {
                data: list(f, "data")?,
                x_axis_shuffle: bool_or(f, "x_axis_shuffle", false)?,
            }),
            "chart_data_array_data" => RuleCheck::ArrayData(chart_array::ArrayData {
                data: list(f, "data")?,
                x_axis_shuffle: bool_or(f, "x_axis_shuffle", false)?,
                y_axis_shuffle: bool_or(f, "y_axis_shuffle", false)?,
                normalize_numbers: bool_or(f, "normalize_numbers", true)?,
            }),
            "rotate_check" => match f.get("value") {
                None => RuleCheck::Rotate(Value::Null),
                Some(v @ (Value::Null | Value::Number(_) | Value::String(_))) => {
                    RuleCheck::Rotate(v.clone())
                }
                Some(_) => return Err(wrong("value", "a number or a string")),
            },
            "math" => RuleCheck::NoRuleClass(self.kind.clone()),
            "form_field" => RuleCheck::Form(form::FormField::from_fields(f)?),
            "tables_num_rows" => RuleCheck::TableCount(
                opt_int(f, "expected_num_rows")?.unwrap_or(0),
                opt_int(f, "actual_num_rows")?,
                true,
            ),
            "tables_num_cols" => RuleCheck::TableCount(
                opt_int(f, "expected_num_cols")?.unwrap_or(0),
                opt_int(f, "actual_num_cols")?,
                false,
            ),
            "table" | "tables_values" | "table_header_chain" => self.table_check()?,
            "is_header" | "is_footer" => {
                RuleCheck::PageSection(self.kind == "is_footer", str_or(f, "text", "")?)
            }
            "mark_color" => RuleCheck::MarkColor(str_or(f, "text", "")?, str_or(f, "color", "")?),
            "layout" => {
                layout::Element::from_fields(f)?;
                RuleCheck::Layout
            }
            k if k.starts_with("table_") => {
                let s = |x: &str| str_or(f, x, "");
                let n = |x: &str| opt_int(f, x).map(|o| o.unwrap_or(1));
                match table_rules::check_of(k, s, n) {
                    Some(c) => RuleCheck::Table(c?, anchor_cells(f)?),
                    None => RuleCheck::Unimplemented,
                }
            }
            k => match format::styling_kind(k) {
                Some((kind, present)) => RuleCheck::Styling(kind, present, str_or(f, "text", "")?),
                None => RuleCheck::Unimplemented,
            },
        })
    }

    /// The `table`, `tables_values` and `table_header_chain` rules' fields.
    fn table_check(&self) -> Result<RuleCheck, String> {
        let f = &self.fields;
        Ok(match self.kind.as_str() {
            "table" => {
                let o = |k: &str| {
                    opt_str(f, k).map(|v| normalize::normalize_text(&v.unwrap_or_default()))
                };
                RuleCheck::TableCell(table_values::CellRule {
                    cell: normalize::normalize_text(&str_or(f, "cell", "")?),
                    around: [
                        o("up")?,
                        o("down")?,
                        o("left")?,
                        o("right")?,
                        o("top_heading")?,
                        o("left_heading")?,
                    ],
                    ignore_markdown_tables: bool_or(f, "ignore_markdown_tables", false)?,
                    max_diffs: self.max_diffs()?,
                })
            }
            "tables_values" => RuleCheck::TableValues(table_values::ValuesRule {
                variations: match f.get("table_variations") {
                    None | Some(Value::Null) => Vec::new(),
                    Some(Value::Array(a)) => a.clone(),
                    Some(_) => return Err(wrong("table_variations", "a list")),
                },
                json_path: opt_str(f, "json_path")?.is_some_and(|p| !p.is_empty()),
                match_threshold: num_or(f, "table_match_threshold", 0.8)?,
                values_threshold: num_or(f, "table_values_match_threshold", 0.9)?,
            }),
            "table_header_chain" => {
                let list = |k: &str| string_list(f, k);
                RuleCheck::HeaderChain(
                    str_or(f, "data_cell", "")?,
                    list("column_headers")?,
                    list("row_headers")?,
                    anchor_cells(f)?,
                )
            }
            other => return Err(format!("{other} is not a table rule type")),
        })
    }

    /// Runs the rule on the output's Markdown (`normalized`: [`normalize::normalize_text`] of
    /// it); `None` for a type this build does not run and for `layout` ([`score_case_in`]).
    pub fn run(&self, md: &str, normalized: &str) -> Option<Outcome> {
        self.run_in(md, normalized, None)
    }

    /// [`Rule::run`], with the output's structured page sections where it has them.
    pub fn run_in(
        &self,
        md: &str,
        normalized: &str,
        sections: Option<&sections::PageSections>,
    ) -> Option<Outcome> {
        let check = match self.check() {
            Ok(c) => c,
            Err(e) => return Some(Outcome::error(e)),
        };
        if matches!(check, RuleCheck::Unimplemented | RuleCheck::Layout) {
            return None;
        }
        if md.is_empty() {
            return Some(Outcome::fail("No markdown content provided"));
        }
        Some(match check {
            RuleCheck::Presence(p) => p.run(md, normalized),
            RuleCheck::Order(o) => o.run(md),
            RuleCheck::Baseline(b) => b.run(md),
            RuleCheck::Bag(b) => b.run(md),
            RuleCheck::SpecificSentence(s) => bag::missing_specific_sentence(&s, md),
            RuleCheck::SpecificWord(w) => bag::missing_specific_word(&w, md, normalized),
            RuleCheck::ExtraContent(b) => bag::extra_content(&b, md),
            RuleCheck::Digits(d) => bag::bag_of_digit_percent(&d, md),
            RuleCheck::Styling(kind, present, text) => format::styling(kind, present, &text, md),
            RuleCheck::Title(t) => format::is_title(&t, md),
            RuleCheck::TitleHierarchy(tree) => format::title_hierarchy(&tree, md),
            RuleCheck::Latex(f) => format::is_latex(&f, md),
            RuleCheck::CodeBlock(l, c) => format::is_code_block(&l, &c, md),
            RuleCheck::Table(c, anchors) => table_rules::run(&c, &anchors, md),
            RuleCheck::TableCell(r) => table_values::run_cell_rule(&r, md),
            RuleCheck::TableValues(r) => table_values::run_values_rule(&r, md),
            RuleCheck::HeaderChain(d, c, r, a) => table_rules::header_chain(&d, &c, &r, &a, md),
            RuleCheck::ChartPoint(p) => p.run(md),
            RuleCheck::ArrayLabels(r) => r.run(md),
            RuleCheck::ArrayData(r) => r.run(md),
            // Corpus's outputs report no page orientation: the evaluator's fallback.
            RuleCheck::Rotate(v) => rotate::rotate_check(&v, None),
            // `_scope_to_page`: the rule's page alone once the output has pages.
            RuleCheck::Form(r) => match (sections, self.page) {
                (Some(s), Some(page)) => r.run(s.page_markdown(page)),
                _ => r.run(md),
            },
            RuleCheck::NoRuleClass(k) => Outcome::error(format!("Unknown parse rule type: {k}")),
            // As the evaluator has it: the count the rule carries (filled in when the data was
            // made) against the expected one; the output is not read.
            RuleCheck::TableCount(want, got, rows) => {
                let what = if rows { "Row" } else { "Column" };
                match got {
                    None => Outcome::fail(format!("{what} count not populated")),
                    Some(g) if g == want => Outcome::pass(),
                    Some(g) => {
                        Outcome::fail(format!("{what} count mismatch: expected {want}, got {g}"))
                    }
                }
            }
            RuleCheck::PageSection(footer, text) => {
                sections::page_section(footer, &text, self.page, md, sections)
            }
            RuleCheck::MarkColor(text, color) => sections::mark_color(&text, &color, md),
            RuleCheck::Unimplemented | RuleCheck::Layout => return None,
        })
    }
}

/// One rule's result in a test case.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RuleResult {
    /// Rule type.
    #[serde(rename = "type")]
    pub kind: String,
    /// Rule id, where given.
    pub id: Option<String>,
    /// Page, where given.
    pub page: Option<i64>,
    /// The result; `None` for a type this build does not run.
    #[serde(flatten)]
    pub outcome: Option<Outcome>,
    /// A `rotate_check` rule's angle as `int(value)`, for the per-angle rates.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expected_angle: Option<i64>,
}

/// One test case scored.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CaseScore {
    /// The category (ParseBench's group).
    pub category: String,
    /// Every rule, in the data's order.
    pub rules: Vec<RuleResult>,
    /// `(metric, value)`: `rule_pass_rate`, `rule_<type>_pass_rate`, the `normalized_*`
    /// categories, `normalized_text_score`, `content_faithfulness`, `semantic_formatting`, as
    /// far as the case's rules give them.
    pub metrics: BTreeMap<String, f64>,
}

impl CaseScore {
    /// Rule types not run, with their counts.
    pub fn unimplemented(&self) -> BTreeMap<String, usize> {
        let mut out = BTreeMap::new();
        for r in self.rules.iter().filter(|r| r.outcome.is_none()) {
            *out.entry(r.kind.clone()).or_default() += 1;
        }
        out
    }
}

const STYLING_PAIRS: [(&str, &str); 4] = [
    ("is_bold", "is_not_bold"),
    ("is_strikeout", "is_not_strikeout"),
    ("is_sup", "is_not_sup"),
    ("is_sub", "is_not_sub"),
];
const CORRECTNESS_TYPES: [&str; 8] = [
    "missing_word_percent",
    "unexpected_word_percent",
    "too_many_word_occurence_percent",
    "missing_sentence_percent",
    "unexpected_sentence_percent",
    "too_many_sentence_occurence_percent",
    "extra_content",
    "bag_of_digit_percent",
];

fn weighted(cats: &BTreeMap<&str, f64>, weights: &[(&str, f64)]) -> Option<f64> {
    let (mut s, mut w) = (0.0, 0.0);
    for (c, wt) in weights {
        if let Some(v) = cats.get(c) {
            s += v * wt;
            w += wt;
        }
    }
    (w > 0.0).then(|| s / w)
}

/// Scores one test case: runs its rules on the Markdown and computes its metrics as
/// `ParseEvaluator.evaluate` does (an output with no boxes and no page sections).
pub fn score_case(category: &str, rules: &[Rule], md: &str) -> CaseScore {
    score_case_in(category, rules, md, None)
}

/// [`score_case`] on a provider's Doc: its page sections for `is_header`/`is_footer`, and
/// its boxes for the `layout` rules, which are scored together as
/// `LayoutDetectionEvaluator.evaluate` does ([`layout::score`]); their metrics are the case's.
pub fn score_case_in(category: &str, rules: &[Rule], md: &str, doc: Option<&Doc>) -> CaseScore {
    let normalized = normalize::normalize_text(md);
    let sections = doc.and_then(sections::PageSections::of);
    let mut results: Vec<RuleResult> = rules
        .iter()
        .map(|r| RuleResult {
            kind: r.kind.clone(),
            id: r.id.clone(),
            page: r.page,
            outcome: r.run_in(md, &normalized, sections.as_ref()),
            // Read again only for `rotate_check`, the one type with a per-angle rate.
            expected_angle: match (r.kind == "rotate_check").then(|| r.check()) {
                Some(Ok(RuleCheck::Rotate(v))) => rotate::angle_key(&v),
                _ => None,
            },
        })
        .collect();
    let mut metrics = case_metrics(&results);
    let at: Vec<usize> = (0..rules.len()).filter(|&i| rules[i].kind == "layout").collect();
    if !at.is_empty() {
        let fields: Vec<Map<String, Value>> = at.iter().map(|&i| rules[i].fields.clone()).collect();
        let preds = doc.map(layout::predictions);
        if let layout::LayoutCase::Scored(outcomes, m) = layout::score(&fields, preds.as_deref()) {
            for (&i, o) in at.iter().zip(outcomes) {
                results[i].outcome = o;
            }
            metrics.extend(m);
        }
    }
    CaseScore { category: category.to_string(), rules: results, metrics }
}

/// A test case's metrics from its rule results (those not run left out).
pub fn case_metrics(results: &[RuleResult]) -> BTreeMap<String, f64> {
    let run: Vec<(&str, f64)> = results
        .iter()
        .filter_map(|r| r.outcome.as_ref().map(|o| (r.kind.as_str(), o.score)))
        .collect();
    let mut m = BTreeMap::new();
    if run.is_empty() {
        return m;
    }
    m.insert("rule_pass_rate".to_string(), run.iter().map(|r| r.1).sum::<f64>() / run.len() as f64);
    let mut by_type: BTreeMap<&str, Vec<f64>> = BTreeMap::new();
    for (k, s) in &run {
        by_type.entry(k).or_default().push(*s);
    }
    let per_type: BTreeMap<&str, f64> =
        by_type.iter().map(|(k, v)| (*k, v.iter().sum::<f64>() / v.len() as f64)).collect();
    for (k, v) in &per_type {
        m.insert(format!("rule_{k}_pass_rate"), *v);
    }
    let angles: Vec<(i64, f64)> = results
        .iter()
        .filter_map(|r| Some((r.expected_angle?, r.outcome.as_ref()?.score)))
        .collect();
    m.extend(rotate::angle_rates(&angles));
    let mut cats: BTreeMap<&str, f64> = BTreeMap::new();
    // Text styling: F-beta (beta 0.5) of the positive and negative styling rules' means.
    let pos: Vec<f64> = run
        .iter()
        .filter(|(k, _)| STYLING_PAIRS.iter().any(|(p, _)| p == k))
        .map(|r| r.1)
        .collect();
    let neg: Vec<f64> = run
        .iter()
        .filter(|(k, _)| STYLING_PAIRS.iter().any(|(_, n)| n == k))
        .map(|r| r.1)
        .collect();
    if !pos.is_empty() || !neg.is_empty() {
        let mean =
            |v: &[f64]| if v.is_empty() { 1.0 } else { v.iter().sum::<f64>() / v.len() as f64 };
        let (p, n) = (mean(&pos), mean(&neg));
        let beta2 = 0.25;
        let v = if p + n > 0.0 { (1.0 + beta2) * p * n / (beta2 * p + n) } else { 0.0 };
        cats.insert("normalized_text_styling", v);
    }
    let groups: [(&str, &[&str]); 5] = [
        ("normalized_text_correctness", &CORRECTNESS_TYPES),
        ("normalized_order", &["order"]),
        ("normalized_title_accuracy", &["is_title", "title_hierarchy_percent"]),
        ("normalized_code_block", &["is_code_block"]),
        ("normalized_latex", &["is_latex"]),
    ];
    for (name, types) in groups {
        let v: Vec<f64> = types.iter().filter_map(|t| per_type.get(t).copied()).collect();
        if !v.is_empty() {
            cats.insert(name, v.iter().sum::<f64>() / v.len() as f64);
        }
    }
    for (k, v) in &cats {
        m.insert(k.to_string(), *v);
    }
    let fifth = 1.0 / 5.0;
    let combos: [(&str, &[(&str, f64)]); 3] = [
        (
            "normalized_text_score",
            &[
                ("normalized_text_correctness", 1.0),
                ("normalized_text_styling", 1.0),
                ("normalized_order", 1.0),
                ("normalized_title_accuracy", 1.0),
                ("normalized_latex", fifth),
                ("normalized_code_block", fifth),
            ],
        ),
        (
            "content_faithfulness",
            &[("normalized_text_correctness", 1.0), ("normalized_order", 0.5)],
        ),
        (
            "semantic_formatting",
            &[
                ("normalized_text_styling", 1.0),
                ("normalized_title_accuracy", 1.0),
                ("normalized_latex", fifth),
                ("normalized_code_block", fifth),
            ],
        ),
    ];
    for (name, w) in combos {
        if let Some(v) = weighted(&cats, w) {
            m.insert(name.to_string(), v);
        }
    }
    m
}

/// Figures over many test cases: per category, each metric's mean over the cases that have
/// it (ParseBench's `avg_<metric>`), with the number of cases.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Aggregate {
    /// Category -> metric -> (mean, cases).
    pub categories: BTreeMap<String, BTreeMap<String, (f64, usize)>>,
    /// Category -> test cases.
    pub cases: BTreeMap<String, usize>,
    /// Category -> rule type not run -> rules.
    pub unimplemented: BTreeMap<String, BTreeMap<String, usize>>,
}

impl Aggregate {
    /// Adds one test case.
    pub fn add(
        &mut self,
        category: &str,
        metrics: &BTreeMap<String, f64>,
        unimplemented: &BTreeMap<String, usize>,
    ) {
        *self.cases.entry(category.to_string()).or_default() += 1;
        let cat = self.categories.entry(category.to_string()).or_default();
        for (k, v) in metrics {
            let e = cat.entry(k.clone()).or_insert((0.0, 0));
            e.0 += v;
            e.1 += 1;
        }
        let u = self.unimplemented.entry(category.to_string()).or_default();
        for (k, n) in unimplemented {
            *u.entry(k.clone()).or_default() += n;
        }
    }

    /// The means (call once, after every case is added).
    pub fn finish(mut self) -> Aggregate {
        for cat in self.categories.values_mut() {
            for (s, n) in cat.values_mut() {
                *s /= *n as f64;
            }
        }
        self.unimplemented.retain(|_, v| !v.is_empty());
        self
    }

    /// A category's mean of `metric`.
    pub fn get(&self, category: &str, metric: &str) -> Option<f64> {
        self.categories.get(category)?.get(metric).map(|v| v.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rule(json: &str) -> Rule {
        let v: Value = serde_json::from_str(json).unwrap();
        Rule::from_fields(v.as_object().unwrap().clone()).unwrap()
    }

    #[test]
    fn a_case_reports_type_rates_and_content_faithfulness() {
        let rules = vec![
            rule(r#"{"type":"present","text":"Revenue grew"}"#),
            rule(r#"{"type":"absent","text":"Revenue grew"}"#),
            rule(r#"{"type":"order","before":"Revenue grew","after":"Costs fell"}"#),
            rule(r#"{"type":"missing_word_percent","bag_of_word":{"revenue":1,"profit":1}}"#),
            rule(r#"{"type":"not_a_rule_type","label":"3"}"#),
        ];
        let c = score_case("text_content", &rules, "Revenue grew. Costs fell.");
        assert_eq!(c.metrics["rule_present_pass_rate"], 1.0);
        assert_eq!(c.metrics["rule_absent_pass_rate"], 0.0);
        assert_eq!(c.metrics["rule_missing_word_percent_pass_rate"], 0.5);
        // (1 + 0 + 1 + 0.5) / 4: the rule of an unknown type is not run.
        assert_eq!(c.metrics["rule_pass_rate"], 2.5 / 4.0);
        // (correctness 0.5 * 1 + order 1 * 0.5) / 1.5
        assert!((c.metrics["content_faithfulness"] - 1.0 / 1.5).abs() < 1e-12);
        assert!(!c.metrics.contains_key("semantic_formatting"));
        assert_eq!(c.unimplemented(), [("not_a_rule_type".to_string(), 1)].into());
        let empty = score_case("text_content", &rules, "");
        assert_eq!(empty.metrics["rule_pass_rate"], 0.0);
    }

    #[test]
    fn fields_of_the_wrong_type_are_named_and_bad_values_fail_the_rule() {
        let v: Value = serde_json::from_str(r#"{"type":"present","text":3}"#).unwrap();
        let e = Rule::from_fields(v.as_object().unwrap().clone()).unwrap_err();
        assert_eq!(e, "field text: expected a string");
        let r = rule(r#"{"type":"present","text":"  "}"#);
        let o = r.run("x", "x").unwrap();
        assert!(o.error && !o.passed, "{o:?}");
        assert!(o.explanation.starts_with("Error executing rule"));
    }

    #[test]
    fn math_fails_as_a_type_the_evaluator_has_no_rule_for() {
        let r = rule(r#"{"type":"math","text":"x^2"}"#);
        let o = r.run("x^2", "x^2").unwrap();
        assert!(o.error && o.score == 0.0);
        assert_eq!(o.explanation, "Error executing rule: Unknown parse rule type: math");
        assert_eq!(r.run("", "").unwrap().explanation, "No markdown content provided");
    }

    #[test]
    fn rotate_check_rules_give_per_angle_rates() {
        let rules = vec![
            rule(r#"{"type":"rotate_check","value":90}"#),
            rule(r#"{"type":"rotate_check","value":"0"}"#),
        ];
        let c = score_case("text_content", &rules, "A page.");
        assert_eq!(c.rules[0].expected_angle, Some(90));
        assert_eq!(c.metrics["rule_rotate_check_pass_rate"], 0.0);
        assert_eq!(c.metrics["rule_rotate_check_90deg_pass_rate"], 0.0);
        assert_eq!(c.metrics["rule_rotate_check_0deg_pass_rate"], 0.0);
        assert_eq!(c.metrics["rule_rotate_check_normalized_pass_rate"], 0.0);
    }

    #[test]
    fn aggregates_are_means_over_the_cases_that_have_the_metric() {
        let mut a = Aggregate::default();
        a.add("chart", &[("rule_pass_rate".to_string(), 1.0)].into(), &BTreeMap::new());
        a.add(
            "chart",
            &[("rule_pass_rate".to_string(), 0.0), ("rule_order_pass_rate".to_string(), 0.5)]
                .into(),
            &[("form_field".to_string(), 2)].into(),
        );
        let a = a.finish();
        assert_eq!(a.get("chart", "rule_pass_rate"), Some(0.5));
        assert_eq!(a.get("chart", "rule_order_pass_rate"), Some(0.5));
        assert_eq!(a.cases["chart"], 2);
        assert_eq!(a.unimplemented["chart"]["form_field"], 2);
    }
}
