//! A metric's trace (its JSON) as HTML, with the differences marked: lists under `missing*`
//! or `unmatched_gt` are what the truth has and the prediction lacks (red); `extra*` and
//! `unmatched_pred` what the prediction adds (blue); an object holding both `gt` and `pred`
//! is shown as the two side by side, marked when they differ; `passed` is a verdict badge
//! (`docs/html-report.md`, "Traces").

use std::fmt::Write as _;

use serde_json::Value;

use super::escape::esc;

/// At most this many items of one array are shown.
const MAX_ITEMS: usize = 200;
/// At most this many characters of one string are shown.
const MAX_CHARS: usize = 4000;

/// How a list is marked, from its key.
fn mark_of(key: &str) -> Option<&'static str> {
    if key.starts_with("missing") || key == "unmatched_gt" {
        Some("miss")
    } else if key.starts_with("extra") || key == "unmatched_pred" {
        Some("extra")
    } else {
        None
    }
}

/// Renders a trace (JSON text; a trace that does not parse is shown as text).
pub fn render(trace: &str) -> String {
    let mut s = String::new();
    match serde_json::from_str::<Value>(trace) {
        Ok(v) => value(&mut s, &v, None, 0),
        Err(_) => {
            let _ = write!(s, "<pre>{}</pre>", esc(&clip(trace)));
        }
    }
    s
}

fn clip(s: &str) -> String {
    if s.chars().count() <= MAX_CHARS {
        return s.to_string();
    }
    let mut out: String = s.chars().take(MAX_CHARS).collect();
    let _ = write!(out, "… ({} characters in all)", s.chars().count());
    out
}

fn scalar(s: &mut String, v: &Value, mark: Option<&str>) {
    let text = match v {
        Value::String(t) => clip(t),
        other => other.to_string(),
    };
    match mark {
        Some(m) => {
            let _ = write!(s, r#"<span class="{m}">{}</span>"#, esc(&text));
        }
        None => s.push_str(&esc(&text)),
    }
}

fn value(s: &mut String, v: &Value, mark: Option<&str>, depth: usize) {
    if depth > 12 {
        s.push('…');
        return;
    }
    match v {
        Value::Array(items) => {
            if items.is_empty() {
                s.push_str("[]");
                return;
            }
            let cls = mark.map_or(String::new(), |m| format!(r#" class="l-{m}""#));
            let _ = write!(s, "<ol{cls}>");
            for it in items.iter().take(MAX_ITEMS) {
                s.push_str("<li>");
                value(s, it, mark, depth + 1);
                s.push_str("</li>");
            }
            s.push_str("</ol>");
            if items.len() > MAX_ITEMS {
                let _ = write!(s, "<p class=\"more\">… {} more</p>", items.len() - MAX_ITEMS);
            }
        }
        Value::Object(map) => {
            if let (Some(gt), Some(pred)) = (map.get("gt"), map.get("pred")) {
                if !gt.is_object() && !pred.is_object() {
                    let differs = gt != pred;
                    let _ = write!(
                        s,
                        r#"<div class="pair{}"><div class="gt"><b>truth</b> "#,
                        if differs { " differs" } else { "" }
                    );
                    value(s, gt, None, depth + 1);
                    s.push_str(r#"</div><div class="pred"><b>prediction</b> "#);
                    value(s, pred, None, depth + 1);
                    s.push_str("</div></div>");
                }
            }
            s.push_str("<dl>");
            for (k, x) in map {
                if map.contains_key("gt") && map.contains_key("pred") && (k == "gt" || k == "pred")
                {
                    let (g, p) = (&map["gt"], &map["pred"]);
                    if !g.is_object() && !p.is_object() {
                        continue;
                    }
                }
                let _ = write!(s, "<dt>{}</dt><dd>", esc(k));
                if k == "passed" {
                    match x.as_bool() {
                        Some(true) => s.push_str(r#"<span class="pass">pass</span>"#),
                        Some(false) => s.push_str(r#"<span class="fail">fail</span>"#),
                        None => scalar(s, x, None),
                    }
                } else {
                    value(s, x, mark_of(k).or(mark), depth + 1);
                }
                s.push_str("</dd>");
            }
            s.push_str("</dl>");
        }
        other => scalar(s, other, mark),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn differences_are_marked_and_text_escaped() {
        let t = r#"{"hit":1,"total":2,"missing":[{"token":"<script>","count":1}],"extra":["x"]}"#;
        let h = render(t);
        assert!(h.contains(r#"<ol class="l-miss">"#) && h.contains(r#"<ol class="l-extra">"#));
        assert!(h.contains(r#"<span class="miss">&lt;script&gt;</span>"#), "{h}");
        assert!(!h.contains("<script>"));
        let pair = render(r#"{"cells":[{"row":0,"col":1,"gt":"4.5","pred":"45"}]}"#);
        assert!(pair.contains(r#"<div class="pair differs">"#), "{pair}");
        assert!(render(r#"{"passed":false}"#).contains(r#"class="fail""#));
        assert_eq!(render("not json <b>"), "<pre>not json &lt;b&gt;</pre>");
    }
}
