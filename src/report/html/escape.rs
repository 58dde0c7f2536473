//! The one HTML escaping function of the HTML report. Every string that did not come from
//! this crate's own code (document names, PDF text, truths, outputs, traces, provider ids,
//! metric ids) goes through `esc` before it is written, in text and in attribute values
//! alike (`docs/html-report.md`, "Escaping").

use std::fmt::Write as _;

/// Escapes `s` for HTML text and for double- or single-quoted attribute values: `&`, `<`,
/// `>`, `"` and `'` become character references; control characters other than tab and
/// newline (which HTML cannot carry) become U+FFFD.
pub(crate) fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + s.len() / 8);
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            '\t' | '\n' => out.push(c),
            c if c.is_control() => out.push('\u{FFFD}'),
            c => out.push(c),
        }
    }
    out
}

/// A piece of a file name or URL path made from an outside string: ASCII letters, digits,
/// `-`, `_` and `.` kept, anything else `_`, at most 80 characters; never empty, never `.`
/// or `..`. (Document pages are named by hash; this is for the few other names.)
pub fn slug(s: &str) -> String {
    let mut out: String = s
        .chars()
        .take(80)
        .map(|c| if c.is_ascii_alphanumeric() || "-_.".contains(c) { c } else { '_' })
        .collect();
    if out.is_empty() || out.chars().all(|c| c == '.') {
        out = format!("_{}", out.len());
    }
    out
}

/// Formats a metric value as the text report does: 3 decimals, `–` for none.
pub fn num(v: Option<f64>) -> String {
    let mut s = String::new();
    match v {
        Some(x) if x.is_finite() => {
            let _ = write!(s, "{x:.3}");
        }
        Some(x) => s.push_str(&x.to_string()),
        None => s.push('–'),
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_markup_quotes_and_ampersands() {
        assert_eq!(esc("<script>alert(1)</script>"), "&lt;script&gt;alert(1)&lt;/script&gt;");
        assert_eq!(
            esc("\"><img src=x onerror=alert(1)>"),
            "&quot;&gt;&lt;img src=x onerror=alert(1)&gt;"
        );
        assert_eq!(esc("a & b 'c'"), "a &amp; b &#39;c&#39;");
        assert_eq!(esc("&amp;"), "&amp;amp;", "escaping is not idempotent: no double meaning");
        assert_eq!(esc("x\u{0}y\u{7}z\tw\n"), "x\u{FFFD}y\u{FFFD}z\tw\n");
        assert_eq!(esc("naïve – ∑ 漢字"), "naïve – ∑ 漢字");
        // Nothing that can end an attribute value or open a tag survives.
        let hostile = "' onmouseover='x' \" onload=\"y\" </title><svg onload=z>";
        let e = esc(hostile);
        assert!(!e.contains(['<', '>', '"', '\'']), "{e}");
    }

    #[test]
    fn slugs_are_plain_names() {
        assert_eq!(slug("acl/P17-1001"), "acl_P17-1001");
        assert_eq!(slug(".."), "_2");
        assert_eq!(slug(""), "_0");
        assert_eq!(slug("<x>"), "_x_");
    }

    #[test]
    fn numbers_print_like_the_text_report() {
        assert_eq!(num(Some(0.12345)), "0.123");
        assert_eq!(num(None), "–");
        assert_eq!(num(Some(1.0)), "1.000");
    }
}
