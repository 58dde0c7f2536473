//! ParseBench test cases (run-llama/ParseBench, `test_cases/loader.py`), in either of its two
//! forms:
//!
//! - **JSON lines** (`{category}.jsonl` beside `pdfs/{category}/*.pdf`, the public dataset):
//!   one rule per line, `{"pdf", "page", "category", "id", "type", "verified", "rule"}`, where
//!   `rule` holds the rule's fields as an object or as a JSON string of one. The rule is
//!   `{"type": type, **rule}` with the line's `id` (when not empty) and `page` (when not null)
//!   over it, as the loader builds it. `category` defaults to the file's stem. A line of type
//!   `expected_markdown` points at the truth's Markdown and is no rule; `tags`,
//!   `verified` and the table metadata (`allow_splitting_ambiguous_merged_tables`, ...) are
//!   left alone.
//! - **Sidecar** (`<pdf stem>.test.json` beside the PDF): an object whose `test_rules` is the
//!   list of rule objects (each with its `type`), and optionally `expected_markdown` and
//!   `tags`; its category is the PDF's folder name.
//!
//! corpus stores a PDF's truth as one part per category, named by it, holding that
//! category's JSON lines verbatim (or the sidecar file), and a part `expected_markdown` with
//! the truth's Markdown where the data gives one (`expected_markdown.json`, a line's
//! `expected_markdown`, the sidecar's field or a `<stem>.md` beside it). A sidecar's chart
//! array rules get the table of a `<stem>.csv` beside the PDF as their `data` ([`csv`]).
//!
//! Rule fields are checked for their JSON types as the evaluator's schemas declare them for
//! the rule types corpus runs ([`Rule::from_fields`]); rules of other types are read and kept
//! (counted at ingest and at eval, never run). A line that is not a JSON object, has no
//! `type`, or has a field of the wrong type is an error naming its line.

pub mod csv;

use serde_json::{Map, Value};

use super::{Format, FormatError};
use crate::metrics::parsebench::table_score::TableOptions;
use crate::metrics::parsebench::Rule;

/// The part holding the truth's Markdown.
pub const EXPECTED_MARKDOWN: &str = "expected_markdown";

/// One JSON line read: its category, its rule (`None` for an `expected_markdown` pointer)
/// and the Markdown it carries, if any.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    /// The PDF, as the line names it (relative to the dataset's folder).
    pub pdf: String,
    /// The category (`category`, else the file's stem as given).
    pub category: String,
    /// The rule.
    pub rule: Option<Rule>,
    /// The line's inline `expected_markdown`.
    pub expected_markdown: Option<String>,
}

fn err(e: impl Into<String>) -> FormatError {
    FormatError::new(Format::ParseBench, e.into())
}

/// Names the line an error is on (before the place in the line, if any).
pub fn at_line(mut e: FormatError, n: usize) -> FormatError {
    e.at = Some(match e.at.take() {
        Some(a) if a != "$" => format!("line {n}, {a}"),
        _ => format!("line {n}"),
    });
    e
}

/// Reads one JSON line of a `{category}.jsonl` file (`stem`: the file's stem).
pub fn read_row(line: &str, stem: &str) -> Result<Row, FormatError> {
    let v: Value =
        serde_json::from_str(line).map_err(|e| FormatError::json(Format::ParseBench, e))?;
    let Value::Object(row) = v else {
        return Err(FormatError::shape(Format::ParseBench, "a JSON object", "$"));
    };
    let s = |k: &str| -> Result<Option<String>, FormatError> {
        match row.get(k) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(x)) => Ok(Some(x.clone())),
            Some(_) => Err(FormatError::shape(Format::ParseBench, "a string", k)),
        }
    };
    let pdf = s("pdf")?.unwrap_or_default();
    let category = s("category")?.unwrap_or_else(|| stem.to_string());
    let kind = s("type")?.unwrap_or_default();
    let expected_markdown = s("expected_markdown")?.filter(|m| !m.is_empty());
    if kind == EXPECTED_MARKDOWN {
        return Ok(Row { pdf, category, rule: None, expected_markdown });
    }
    if kind.is_empty() {
        return Err(err("no \"type\""));
    }
    let fields = match row.get("rule") {
        None | Some(Value::Null) => Map::new(),
        Some(Value::Object(m)) => m.clone(),
        Some(Value::String(js)) => match serde_json::from_str::<Value>(js) {
            Ok(Value::Object(m)) => m,
            Ok(_) => return Err(FormatError::shape(Format::ParseBench, "a JSON object", "rule")),
            Err(e) => return Err(err(format!("rule: invalid JSON: {e}"))),
        },
        Some(_) => return Err(FormatError::shape(Format::ParseBench, "an object", "rule")),
    };
    let mut rule = Map::new();
    rule.insert("type".into(), Value::String(kind));
    for (k, v) in fields {
        rule.insert(k, v);
    }
    match row.get("id") {
        None | Some(Value::Null) => {}
        Some(Value::String(id)) if id.is_empty() => {}
        Some(id) => {
            rule.insert("id".into(), id.clone());
        }
    }
    if let Some(p) = row.get("page").filter(|p| !p.is_null()) {
        rule.insert("page".into(), p.clone());
    }
    let rule = Rule::from_fields(rule).map_err(err)?;
    Ok(Row { pdf, category, rule: Some(rule), expected_markdown })
}

/// A sidecar `<stem>.test.json`: its rules and its Markdown.
pub fn read_sidecar(bytes: &[u8]) -> Result<(Vec<Rule>, Option<String>), FormatError> {
    let v: Value =
        serde_json::from_slice(bytes).map_err(|e| FormatError::json(Format::ParseBench, e))?;
    let Value::Object(o) = v else {
        return Err(FormatError::shape(Format::ParseBench, "a JSON object", "$"));
    };
    let rules = match o.get("test_rules") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(a)) => {
            a.iter()
                .enumerate()
                .map(|(i, r)| match r {
                    Value::Object(m) => Rule::from_fields(m.clone())
                        .map_err(|e| err(e).at(format!("test_rules[{i}]"))),
                    _ => Err(FormatError::shape(
                        Format::ParseBench,
                        "an object",
                        format!("test_rules[{i}]"),
                    )),
                })
                .collect::<Result<Vec<_>, _>>()?
        }
        Some(_) => return Err(FormatError::shape(Format::ParseBench, "a list", "test_rules")),
    };
    let md = match o.get(EXPECTED_MARKDOWN) {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) => Some(s.clone()),
        Some(_) => {
            return Err(FormatError::shape(Format::ParseBench, "a string", EXPECTED_MARKDOWN))
        }
    };
    Ok((rules, md))
}

/// Reads one category part as stored: a sidecar object, or JSON lines (their rules, in
/// order). Errors name the line (`line N`).
pub fn read_part(bytes: &[u8]) -> Result<Vec<Rule>, FormatError> {
    let text = std::str::from_utf8(bytes).map_err(|e| FormatError::utf8(Format::ParseBench, e))?;
    let first = text.trim_start();
    if first.starts_with('{')
        && serde_json::from_str::<Value>(text).is_ok_and(|v| v.get("test_rules").is_some())
    {
        return read_sidecar(bytes).map(|(r, _)| r);
    }
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let row = read_row(line, "").map_err(|e| at_line(e, i + 1))?;
        out.extend(row.rule);
    }
    Ok(out)
}

/// Python's truthiness of a JSON value.
fn truthy(v: &Value) -> bool {
    match v {
        Value::Null => false,
        Value::Bool(b) => *b,
        Value::Number(n) => n.as_f64().is_some_and(|x| x != 0.0),
        Value::String(s) => !s.is_empty(),
        Value::Array(a) => !a.is_empty(),
        Value::Object(o) => !o.is_empty(),
    }
}

fn set_option(o: &mut TableOptions, k: &str, v: &Value) {
    match k {
        "allow_splitting_ambiguous_merged_tables" => o.allow_splitting = truthy(v),
        "trm_unsupported" => o.trm_unsupported = truthy(v),
        "max_top_title_rows" => o.max_top_title_rows = v.as_i64().unwrap_or(1),
        _ => {}
    }
}

/// A category part's table settings, as the loader reads them: the sidecar's top-level keys,
/// or each line's rule fields (any line, `expected_markdown` pointers too; a later line's
/// value wins). Unreadable lines are left out (the rules' reading names them).
pub fn read_table_options(bytes: &[u8]) -> TableOptions {
    let mut o = TableOptions::default();
    let Ok(text) = std::str::from_utf8(bytes) else { return o };
    if let Ok(Value::Object(top)) = serde_json::from_str::<Value>(text) {
        if top.contains_key("test_rules") {
            for (k, v) in &top {
                set_option(&mut o, k, v);
            }
            return o;
        }
    }
    for line in text.lines() {
        let Ok(Value::Object(row)) = serde_json::from_str::<Value>(line) else { continue };
        let rule = match row.get("rule") {
            Some(Value::Object(m)) => m.clone(),
            Some(Value::String(js)) => match serde_json::from_str::<Value>(js) {
                Ok(Value::Object(m)) => m,
                _ => continue,
            },
            _ => continue,
        };
        for (k, v) in &rule {
            set_option(&mut o, k, v);
        }
    }
    o
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_becomes_its_rule_with_id_and_page_over_the_fields() {
        let line = r#"{"pdf":"pdfs/text/a.pdf","page":1,"category":"text_content","id":"r1","type":"present","verified":true,"rule":"{\"text\": \"Hello\", \"max_diffs\": 1}"}"#;
        let row = read_row(line, "x").unwrap();
        assert_eq!(row.pdf, "pdfs/text/a.pdf");
        assert_eq!(row.category, "text_content");
        let r = row.rule.unwrap();
        assert_eq!((r.kind.as_str(), r.id.as_deref(), r.page), ("present", Some("r1"), Some(1)));
        assert_eq!(r.fields["text"], "Hello");
        assert_eq!(r.fields["max_diffs"], 1);
        // The category defaults to the file's stem; a rule object works too.
        let line = r#"{"pdf":"a.pdf","type":"order","rule":{"before":"a","after":"b"}}"#;
        assert_eq!(read_row(line, "chart").unwrap().category, "chart");
        let md = r##"{"pdf":"a.pdf","type":"expected_markdown","expected_markdown":"# A"}"##;
        let row = read_row(md, "t").unwrap();
        assert_eq!((row.rule, row.expected_markdown.as_deref()), (None, Some("# A")));
    }

    #[test]
    fn table_options_come_from_any_line_of_the_part() {
        let part = concat!(
            r#"{"pdf":"a.pdf","type":"table","rule":{"cell":"x","trm_unsupported":true}}"#,
            "\n",
            r#"{"pdf":"a.pdf","type":"expected_markdown","rule":"{\"max_top_title_rows\": 0}"}"#,
        );
        let o = read_table_options(part.as_bytes());
        assert_eq!((o.trm_unsupported, o.max_top_title_rows, o.allow_splitting), (true, 0, false));
        assert!(read_table_options(b"{\"test_rules\":[],\"trm_unsupported\":1}").trm_unsupported);
        assert_eq!(read_table_options(b"").max_top_title_rows, 1);
    }

    #[test]
    fn malformed_lines_are_named() {
        let e =
            read_part(b"{\"pdf\":\"a.pdf\",\"type\":\"present\",\"rule\":{\"text\":\"x\"}}\n[1]\n")
                .unwrap_err();
        assert_eq!(e.to_string(), "expected a JSON object at line 2");
        let e = read_part(b"{\"pdf\":\"a.pdf\",\"type\":\"present\",\"rule\":{\"text\":5}}")
            .unwrap_err();
        assert_eq!(e.to_string(), "field text: expected a string at line 1");
        let e = read_part(b"{\"pdf\":\"a.pdf\"}").unwrap_err();
        assert!(e.to_string().contains("no \"type\""), "{e}");
    }

    #[test]
    fn sidecars_and_unknown_types_are_read() {
        let s = br#"{"test_rules":[{"type":"present","text":"A"},{"type":"is_bold","text":"B"}],
                    "expected_markdown":"A **B**"}"#;
        let (rules, md) = read_sidecar(s).unwrap();
        assert_eq!(
            rules.iter().map(|r| r.kind.as_str()).collect::<Vec<_>>(),
            ["present", "is_bold"]
        );
        assert_eq!(md.as_deref(), Some("A **B**"));
        assert_eq!(read_part(s).unwrap().len(), 2);
        let e = read_sidecar(br#"{"test_rules":[3]}"#).unwrap_err();
        assert_eq!(e.to_string(), "expected an object at test_rules[0]");
    }
}
