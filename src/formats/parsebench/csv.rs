//! The chart CSV of ParseBench's sidecar layout: `<stem>.csv` beside the PDF, which the
//! sidecar loader names on every `chart_data_array_labels` / `chart_data_array_data` rule and
//! the rule reads with pandas in place of its `data` (`rules_chart.py`, `rules_base.py`'s
//! `_detect_csv_skip_rows`). corpus stores the sidecar with that table written into each such
//! rule's `data`, every value as the text Python's `str()` gives the value pandas read:
//!
//! - leading rows with at most one non-empty field (titles) are skipped; the next row is the
//!   header (an empty name is `Unnamed: <i>`, a repeated one `<name>.<n>`); blank lines are
//!   skipped; a short row is padded with missing values;
//! - a column whose values are all integers is read as integers (`12`), as floats when some
//!   are missing (`12.0`, `nan`) or some are decimals (Python's float text: `0.5`, `1e+16`); a
//!   column of `True`/`False` as booleans; any other column as text, a missing value `nan`.
//!   Missing values are pandas's defaults (`""`, `NA`, `N/A`, `NaN`, `null`, `None`, ...).
//!
//! Quoted fields (with `""` for a quote and line breaks inside) are read as RFC 4180 says.

use serde_json::Value;

/// pandas's default missing-value markers.
const NA: [&str; 19] = [
    "", "#N/A", "#N/A N/A", "#NA", "-1.#IND", "-1.#QNAN", "-NaN", "-nan", "1.#IND", "1.#QNAN",
    "<NA>", "N/A", "NA", "NULL", "NaN", "None", "n/a", "nan", "null",
];

/// The records of a CSV text (a UTF-8 byte-order mark dropped); a blank line is no fields.
fn records(text: &str) -> Vec<Vec<String>> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut out = Vec::new();
    let mut row: Vec<String> = Vec::new();
    let mut field = String::new();
    let (mut quoted, mut any) = (false, false);
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if quoted {
            match c {
                '"' if chars.peek() == Some(&'"') => {
                    chars.next();
                    field.push('"');
                }
                '"' => quoted = false,
                c => field.push(c),
            }
            continue;
        }
        match c {
            '"' => {
                quoted = true;
                any = true;
            }
            ',' => {
                row.push(std::mem::take(&mut field));
                any = true;
            }
            '\r' | '\n' => {
                if c == '\r' && chars.peek() == Some(&'\n') {
                    chars.next();
                }
                if any || !field.is_empty() {
                    row.push(std::mem::take(&mut field));
                }
                out.push(std::mem::take(&mut row));
                any = false;
            }
            c => {
                field.push(c);
                any = true;
            }
        }
    }
    if any || !field.is_empty() {
        row.push(field);
        out.push(row);
    }
    out
}

/// Python's `repr` of a float.
pub fn py_float(x: f64) -> String {
    if x.is_nan() {
        return "nan".into();
    }
    if x.is_infinite() {
        return if x > 0.0 { "inf" } else { "-inf" }.into();
    }
    let e = format!("{x:e}");
    let (mant, exp) = e.split_once('e').expect("an exponent");
    let exp: i32 = exp.parse().expect("an integer exponent");
    if (-4..16).contains(&exp) {
        let s = format!("{x}");
        return if s.contains('.') { s } else { format!("{s}.0") };
    }
    let sign = if exp < 0 { '-' } else { '+' };
    format!("{mant}e{sign}{:02}", exp.abs())
}

fn as_int(s: &str) -> Option<i64> {
    let t = s.trim();
    let digits = t.strip_prefix(['+', '-']).unwrap_or(t);
    if digits.is_empty() || !digits.chars().all(|c| c.is_ascii_digit()) {
        return None;
    }
    t.parse().ok()
}

fn as_float(s: &str) -> Option<f64> {
    let t = s.trim();
    if t.is_empty() || t.contains('_') {
        return None;
    }
    t.parse().ok()
}

/// How pandas reads a column.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Kind {
    Int,
    Float,
    Bool,
    Text,
}

/// One column's kind and values as `str()` of what pandas reads; `as_float` renders an
/// integer column as floats (numpy's common type of an all-numeric frame).
fn column(values: &[Option<&str>], as_floats: bool) -> (Kind, Vec<String>) {
    let present: Vec<&str> = values.iter().flatten().copied().collect();
    let missing = present.len() < values.len();
    if present.iter().all(|v| as_int(v).is_some()) && !present.is_empty() && !missing {
        let ints = present.iter().map(|v| as_int(v).unwrap_or(0));
        return match as_floats {
            true => (Kind::Int, ints.map(|i| py_float(i as f64)).collect()),
            false => (Kind::Int, ints.map(|i| i.to_string()).collect()),
        };
    }
    if present.iter().all(|v| as_float(v).is_some()) {
        let floats =
            values.iter().map(|v| py_float(v.and_then(as_float).unwrap_or(f64::NAN))).collect();
        return (Kind::Float, floats);
    }
    let bools = ["True", "TRUE", "true", "False", "FALSE", "false"];
    if !missing && present.iter().all(|v| bools.contains(v)) {
        let b = present
            .iter()
            .map(|v| if v.eq_ignore_ascii_case("true") { "True" } else { "False" }.to_string());
        return (Kind::Bool, b.collect());
    }
    (
        Kind::Text,
        values.iter().map(|v| v.map_or_else(|| "nan".to_string(), str::to_string)).collect(),
    )
}

/// The CSV as the rule's `data`: the header row, then the data rows, every value a string.
pub fn chart_data(text: &str) -> Vec<Value> {
    let mut recs = records(text);
    let skip =
        recs.iter().take_while(|r| r.iter().filter(|f| !f.trim().is_empty()).count() <= 1).count();
    recs.drain(..skip.min(recs.len()));
    recs.retain(|r| !r.is_empty());
    let Some(header) = recs.first().cloned() else { return Vec::new() };
    let mut names: Vec<String> = Vec::new();
    for (i, h) in header.iter().enumerate() {
        let base = if h.is_empty() { format!("Unnamed: {i}") } else { h.clone() };
        let mut name = base.clone();
        let mut n = 0;
        while names.contains(&name) {
            n += 1;
            name = format!("{base}.{n}");
        }
        names.push(name);
    }
    let rows = &recs[1..];
    let vals: Vec<Vec<Option<&str>>> = (0..names.len())
        .map(|c| {
            rows.iter().map(|r| r.get(c).map(String::as_str).filter(|v| !NA.contains(v))).collect()
        })
        .collect();
    // `df.values`: a frame of only numbers is one float array when any column is floats.
    let kinds: Vec<Kind> = vals.iter().map(|v| column(v, false).0).collect();
    let as_floats =
        kinds.iter().all(|k| matches!(k, Kind::Int | Kind::Float)) && kinds.contains(&Kind::Float);
    let cols: Vec<Vec<String>> = vals.iter().map(|v| column(v, as_floats).1).collect();
    let mut out = vec![Value::Array(names.into_iter().map(Value::String).collect())];
    for r in 0..rows.len() {
        out.push(Value::Array(cols.iter().map(|c| Value::String(c[r].clone())).collect()));
    }
    out
}

/// A sidecar's text with the CSV's table as the `data` of each chart array rule; `None` when
/// it has none (or is not a JSON object with `test_rules`).
pub fn with_chart_data(sidecar: &str, csv: &str) -> Option<String> {
    let mut v: Value = serde_json::from_str(sidecar).ok()?;
    let rules = v.get_mut("test_rules")?.as_array_mut()?;
    let data = Value::Array(chart_data(csv));
    let mut any = false;
    for r in rules.iter_mut().filter_map(Value::as_object_mut) {
        if matches!(
            r.get("type").and_then(Value::as_str),
            Some("chart_data_array_labels" | "chart_data_array_data")
        ) {
            r.insert("data".into(), data.clone());
            any = true;
        }
    }
    any.then(|| v.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn titles_are_skipped_and_columns_typed_as_pandas_reads_them() {
        let csv = "\u{feff}Visitors,\nper season,,\nSeason,2023,2023,,ok\nSummer,1500,0.5,\"a, b\",True\nWinter,800,,x,False\n";
        let d = chart_data(csv);
        assert_eq!(d[0], json!(["Season", "2023", "2023.1", "Unnamed: 3", "ok"]));
        assert_eq!(d[1], json!(["Summer", "1500", "0.5", "a, b", "True"]));
        assert_eq!(d[2], json!(["Winter", "800", "nan", "x", "False"]));
        // Integers with a missing value are floats, and then every number of an all-number
        // table is (pandas's `df.values`).
        let d = chart_data("a,b\n1,2\n3,\n");
        assert_eq!(d[1], json!(["1.0", "2.0"]));
        assert_eq!(d[2], json!(["3.0", "nan"]));
        let d = chart_data("x,y\n1e16,0.00001\n2,NA\n");
        assert_eq!(d[1..], [json!(["1e+16", "1e-05"]), json!(["2.0", "nan"])]);
        assert_eq!(chart_data("a,b\n1,2\n")[1], json!(["1", "2"]));
    }

    #[test]
    fn floats_print_as_python_does() {
        assert_eq!(py_float(12.0), "12.0");
        assert_eq!(py_float(0.1 + 0.2), "0.30000000000000004");
        assert_eq!(py_float(1e16), "1e+16");
        assert_eq!(py_float(1.5e-5), "1.5e-05");
        assert_eq!(py_float(0.0001), "0.0001");
    }

    #[test]
    fn the_csv_becomes_the_chart_rules_data() {
        let s = r#"{"test_rules":[{"type":"present","text":"x"},{"type":"chart_data_array_data","data":[]}]}"#;
        let out: Value = serde_json::from_str(&with_chart_data(s, "a,b\n1,2\n").unwrap()).unwrap();
        assert_eq!(out["test_rules"][1]["data"], json!([["a", "b"], ["1", "2"]]));
        assert!(out["test_rules"][0].get("data").is_none());
        assert_eq!(with_chart_data(r#"{"test_rules":[]}"#, "a\n"), None);
    }
}
