//! Reading a rule's fields from its JSON object: each accessor names the field and the JSON
//! type it wanted when the rule's JSON holds another (an ingest error, as the evaluator's
//! pydantic schemas reject it), and `py_str` prints a value as Python's `str()` does.

use serde_json::{Map, Value};

/// A field of the wrong JSON type, named.
pub(super) fn wrong(field: &str, want: &str) -> String {
    format!("field {field}: expected {want}")
}

pub(super) fn opt_str(f: &Map<String, Value>, k: &str) -> Result<Option<String>, String> {
    match f.get(k) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(_) => Err(wrong(k, "a string")),
    }
}

pub(super) fn str_or(f: &Map<String, Value>, k: &str, d: &str) -> Result<String, String> {
    Ok(opt_str(f, k)?.unwrap_or_else(|| d.to_string()))
}

pub(super) fn opt_int(f: &Map<String, Value>, k: &str) -> Result<Option<i64>, String> {
    match f.get(k) {
        None | Some(Value::Null) => Ok(None),
        Some(v) => match v.as_i64() {
            Some(i) => Ok(Some(i)),
            // pydantic accepts a float with no fractional part for an int field.
            None => match v.as_f64() {
                Some(x) if x.fract() == 0.0 => Ok(Some(x as i64)),
                _ => Err(wrong(k, "an integer")),
            },
        },
    }
}

pub(super) fn list(f: &Map<String, Value>, k: &str) -> Result<Vec<Value>, String> {
    match f.get(k) {
        None => Ok(Vec::new()),
        Some(Value::Array(a)) => Ok(a.clone()),
        Some(_) => Err(wrong(k, "a list")),
    }
}

pub(super) fn num_or(f: &Map<String, Value>, k: &str, d: f64) -> Result<f64, String> {
    match f.get(k) {
        None | Some(Value::Null) => Ok(d),
        Some(v) => v.as_f64().ok_or_else(|| wrong(k, "a number")),
    }
}

pub(super) fn bool_or(f: &Map<String, Value>, k: &str, d: bool) -> Result<bool, String> {
    match f.get(k) {
        None | Some(Value::Null) => Ok(d),
        Some(Value::Bool(b)) => Ok(*b),
        Some(_) => Err(wrong(k, "true or false")),
    }
}

pub(super) fn counts(f: &Map<String, Value>, k: &str) -> Result<Vec<(String, i64)>, String> {
    match f.get(k) {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::Object(m)) => m
            .iter()
            .map(|(key, v)| match v.as_i64() {
                Some(n) => Ok((key.clone(), n)),
                None => Err(format!("field {k}: the count of {key:?} is not an integer")),
            })
            .collect(),
        Some(_) => Err(wrong(k, "an object of counts")),
    }
}

/// Python's `str()` of a JSON value as pydantic gives it (`None`, `15`, `15.0`, text).
pub(super) fn py_str(v: Option<&Value>) -> String {
    match v {
        None | Some(Value::Null) => "None".into(),
        Some(Value::String(s)) => s.clone(),
        Some(Value::Bool(b)) => if *b { "True" } else { "False" }.into(),
        Some(Value::Number(n)) => match (n.as_i64(), n.as_f64()) {
            (Some(i), _) => i.to_string(),
            (None, Some(x)) if x.fract() == 0.0 && x.abs() < 1e16 => format!("{x:.1}"),
            (None, Some(x)) => format!("{x}"),
            _ => n.to_string(),
        },
        Some(v) => v.to_string(),
    }
}

/// A list field (null or absent as empty): strings as written, other values as their JSON.
pub(super) fn string_list(f: &Map<String, Value>, k: &str) -> Result<Vec<String>, String> {
    match f.get(k) {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::Array(a)) => Ok(a
            .iter()
            .map(|v| match v {
                Value::String(s) => s.clone(),
                v => v.to_string(),
            })
            .collect()),
        Some(_) => Err(wrong(k, "a list")),
    }
}

/// `table_anchor_cells`, a [`string_list`].
pub(super) fn anchor_cells(f: &Map<String, Value>) -> Result<Vec<String>, String> {
    string_list(f, "table_anchor_cells")
}
