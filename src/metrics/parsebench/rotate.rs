//! `rotate_check` (ParseBench's `rules_chart.py`, `RotateCheckRule`) and its per-angle rates
//! (`evaluation/evaluators/parse.py`).
//!
//! The rule compares its `value` (the page's expected orientation angle) with the
//! `original_orientation_angle` a provider reported for the first page (ParseBench reads it
//! from the parse output's layout pages, else from the raw output's `pages`); it never reads
//! the Markdown. Corpus's outputs carry no such angle, so the rule fails as the evaluator's
//! does when none is found ("No original_orientation_angle found in output metadata"); the
//! comparison is here for an angle a caller can give.
//!
//! Per test case, the rules are grouped by `int(value)`: `rule_rotate_check_<angle>deg_pass_rate`
//! each, and, when any of 0, 90, 180, 270 is there, `rule_rotate_check_normalized_pass_rate` =
//! (0° × 10 + 90° + 180° + 270°) / 13, a missing angle counting 0.

use std::collections::BTreeMap;

use serde_json::Value;

use super::Outcome;

/// Python's `==` between two angles (a number equals a number of the same value; a string
/// only the same string).
fn same_angle(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        (Value::String(x), Value::String(y)) => x == y,
        _ => false,
    }
}

/// Runs the rule: `expected` its `value`, `actual` the angle the provider reported.
pub fn rotate_check(expected: &Value, actual: Option<&Value>) -> Outcome {
    if expected.is_null() {
        return Outcome::error("rotate_check rule must have a 'value' field (expected angle)");
    }
    match actual {
        None | Some(Value::Null) => {
            Outcome::fail("No original_orientation_angle found in output metadata")
        }
        Some(a) if same_angle(a, expected) => Outcome::pass(),
        Some(a) => Outcome::fail(format!("Expected orientation angle {expected}, got {a}")),
    }
}

/// Python's `int()` of a rule's `value`: a number truncated, a string of an integer read;
/// `None` where Python would raise (the evaluator then stops; corpus leaves the rule out of
/// the per-angle rates).
pub fn angle_key(v: &Value) -> Option<i64> {
    match v {
        Value::Number(n) => {
            n.as_i64().or_else(|| n.as_f64().filter(|x| x.is_finite()).map(|x| x.trunc() as i64))
        }
        Value::String(s) => s.trim().replace('_', "").parse::<i64>().ok(),
        Value::Bool(b) => Some(i64::from(*b)),
        _ => None,
    }
}

/// The per-angle rates of a case's `rotate_check` results: `(angle, score)` each.
pub fn angle_rates(results: &[(i64, f64)]) -> BTreeMap<String, f64> {
    let mut groups: BTreeMap<i64, Vec<f64>> = BTreeMap::new();
    for (a, s) in results {
        groups.entry(*a).or_default().push(*s);
    }
    let mut out = BTreeMap::new();
    let rate = |v: &Vec<f64>| v.iter().sum::<f64>() / v.len() as f64;
    for (a, v) in &groups {
        out.insert(format!("rule_rotate_check_{a}deg_pass_rate"), rate(v));
    }
    if [0, 90, 180, 270].iter().any(|a| groups.contains_key(a)) {
        let pr = |a: i64| groups.get(&a).map_or(0.0, rate);
        let v = (pr(0) * 10.0 + pr(90) + pr(180) + pr(270)) / 13.0;
        out.insert("rule_rotate_check_normalized_pass_rate".into(), v);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn without_a_reported_angle_the_rule_fails_and_with_one_it_compares() {
        let o = rotate_check(&json!(90), None);
        assert!(!o.passed && o.score == 0.0);
        assert_eq!(o.explanation, "No original_orientation_angle found in output metadata");
        assert!(rotate_check(&json!(90), Some(&json!(90.0))).passed);
        assert!(!rotate_check(&json!(90), Some(&json!(180))).passed);
        // Python: 90 != "90".
        assert!(!rotate_check(&json!(90), Some(&json!("90"))).passed);
        assert!(rotate_check(&Value::Null, None).error);
    }

    #[test]
    fn angles_group_by_their_integer_and_zero_weighs_ten() {
        assert_eq!(angle_key(&json!(90.7)), Some(90));
        assert_eq!(angle_key(&json!("270")), Some(270));
        assert_eq!(angle_key(&json!("up")), None);
        let r = angle_rates(&[(0, 1.0), (0, 0.0), (90, 1.0), (45, 0.0)]);
        assert_eq!(r["rule_rotate_check_0deg_pass_rate"], 0.5);
        assert_eq!(r["rule_rotate_check_90deg_pass_rate"], 1.0);
        assert_eq!(r["rule_rotate_check_45deg_pass_rate"], 0.0);
        // (0.5 * 10 + 1 + 0 + 0) / 13
        assert_eq!(r["rule_rotate_check_normalized_pass_rate"], 6.0 / 13.0);
        assert!(!angle_rates(&[(45, 1.0)]).contains_key("rule_rotate_check_normalized_pass_rate"));
    }
}
