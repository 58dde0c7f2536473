//! Text normalization and the fuzzy-matching tests (`present`, `absent`, `order`): `tests.py`.

use super::*;

static_regex!(re_br, r"<br/?>");
static_regex!(re_bold_star, r"\*\*(.*?)\*\*");
static_regex!(re_bold_under, r"__(.*?)__");
static_regex!(re_b_tag, r"</?b>");
static_regex!(re_i_tag, r"</?i>");
// `(\*\*|__)(.*?)\1` and `(\*|_)(.*?)\1`: Rust's regex has no back-references, so each becomes an
// alternation of its two delimiters (same leftmost-first result).
static_regex!(re_bold_pair, r"\*\*(.*?)\*\*|__(.*?)__");
static_regex!(re_italic_pair, r"\*(.*?)\*|_(.*?)_");

/// `tests.py::normalize_text`: drop `<br>`, Markdown bold/italic markers and `<b>`/`<i>` tags,
/// collapse whitespace to one space, NFC, then fold typographic quotes, dashes, the fullwidth
/// low line and the micro sign.
pub(crate) fn normalize_text(md: &str) -> String {
    let s = re_br().replace_all(md, " ");
    let s = re_bold_star().replace_all(&s, "$1");
    let s = re_bold_under().replace_all(&s, "$1");
    let s = re_b_tag().replace_all(&s, "");
    let s = re_i_tag().replace_all(&s, "");
    let s = re_bold_pair().replace_all(&s, "${1}${2}");
    let s = re_italic_pair().replace_all(&s, "${1}${2}");
    let s = re_space().replace_all(&s, " ");
    let s: String = s.nfc().collect();
    s.chars()
        .map(|c| match c {
            '\u{2018}' | '\u{2019}' | '\u{201a}' => '\'',
            '\u{201c}' | '\u{201d}' | '\u{201e}' => '"',
            '\u{ff3f}' => '_',
            '\u{2013}' | '\u{2014}' | '\u{2011}' | '\u{2012}' | '\u{2212}' => '-',
            '\u{00b5}' => '\u{03bc}',
            c => c,
        })
        .collect()
}

impl TextPresenceTest {
    pub(super) fn run(&self, md: &str, present: bool) -> (bool, String) {
        let mut query = self.text.clone();
        let mut content = normalize_text(md);
        if !self.case_sensitive {
            query = query.to_lowercase();
            content = content.to_lowercase();
        }
        let chars: Vec<char> = content.chars().collect();
        let first_n = self.first_n.filter(|&n| n != 0);
        let last_n = self.last_n.filter(|&n| n != 0);
        let window: Vec<char> = match (first_n, last_n) {
            (Some(f), Some(l)) => {
                let mut w = py_head(&chars, f).to_vec();
                w.extend_from_slice(py_tail(&chars, l));
                w
            }
            (Some(f), None) => py_head(&chars, f).to_vec(),
            (None, Some(l)) => py_tail(&chars, l).to_vec(),
            (None, None) => chars,
        };
        let qchars: Vec<char> = query.chars().collect();
        // No length guard at this snapshot: later upstream versions fail `present` (pass
        // `absent`) when the page is shorter than `len(query) - max_diffs`.
        let threshold = diff_threshold(self.base.max_diffs, qchars.len());
        let best = fuzz::partial_ratio_chars(&qchars, &window) / 100.0;
        if present {
            if best >= threshold {
                (true, String::new())
            } else {
                (
                    false,
                    format!(
                        "Expected '{}...' with threshold {} but best match ratio was {best:.3}",
                        prefix(&query, 40),
                        py_float(threshold)
                    ),
                )
            }
        } else if best < threshold {
            (true, String::new())
        } else {
            (
                false,
                format!(
                    "Expected absence of '{}...' with threshold {} but best match ratio was {best:.3}",
                    prefix(&query, 40),
                    py_float(threshold)
                ),
            )
        }
    }
}

impl TextOrderTest {
    pub(super) fn run(&self, md: &str) -> (bool, String) {
        let content: Vec<char> = normalize_text(md).chars().collect();
        let k = self.base.max_diffs.max(0) as usize;
        let before: Vec<char> = self.before.chars().collect();
        let after: Vec<char> = self.after.chars().collect();
        let bm = fuzz::find_near_matches_chars(&before, &content, k);
        let am = fuzz::find_near_matches_chars(&after, &content, k);
        if bm.is_empty() {
            return (
                false,
                format!(
                    "'before' text '{}...' not found with max_l_dist {}",
                    prefix(&self.before, 40),
                    self.base.max_diffs
                ),
            );
        }
        if am.is_empty() {
            return (
                false,
                format!(
                    "'after' text '{}...' not found with max_l_dist {}",
                    prefix(&self.after, 40),
                    self.base.max_diffs
                ),
            );
        }
        if bm.iter().any(|b| am.iter().any(|a| b.start < a.start)) {
            return (true, String::new());
        }
        (
            false,
            format!(
                "Could not find a location where '{}...' appears before '{}...'.",
                prefix(&self.before, 40),
                prefix(&self.after, 40)
            ),
        )
    }
}

/// The best fuzzy match of one of a test's texts in a page: what `corpus show` explains a
/// failing `present`, `absent` or `order` test with.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BestMatch {
    /// Which of the test's fields was searched (`text`, `before`, `after`).
    pub field: &'static str,
    /// `partial_ratio` of the field against the (normalized, windowed) page, in `[0, 1]`: the
    /// number the test compares with its threshold.
    pub score: f64,
    /// The stretch of the normalized page that scores best (the first, on ties).
    pub text: String,
}

/// Returns the best fuzzy matches of a test's texts in a page's Markdown: for `present` and
/// `absent` the `text` (in the searched window, case-folded as the test does), for `order` the
/// `before` and `after` texts; nothing for other types, whose explanations say enough.
pub(crate) fn best_matches(test: &Test, md: &str) -> Vec<BestMatch> {
    let search = |field: &'static str, query: &str, content: &[char]| {
        let q: Vec<char> = query.chars().collect();
        let score = fuzz::partial_ratio_chars(&q, content) / 100.0;
        BestMatch { field, score, text: best_window(&q, content).iter().collect() }
    };
    match test {
        Test::Present(t) | Test::Absent(t) => {
            let mut query = t.text.clone();
            let mut content = normalize_text(md);
            if !t.case_sensitive {
                query = query.to_lowercase();
                content = content.to_lowercase();
            }
            let chars: Vec<char> = content.chars().collect();
            let window: Vec<char> =
                match (t.first_n.filter(|&n| n != 0), t.last_n.filter(|&n| n != 0)) {
                    (Some(f), Some(l)) => {
                        let mut w = py_head(&chars, f).to_vec();
                        w.extend_from_slice(py_tail(&chars, l));
                        w
                    }
                    (Some(f), None) => py_head(&chars, f).to_vec(),
                    (None, Some(l)) => py_tail(&chars, l).to_vec(),
                    (None, None) => chars,
                };
            vec![search("text", &query, &window)]
        }
        Test::Order(t) => {
            let content: Vec<char> = normalize_text(md).chars().collect();
            vec![search("before", &t.before, &content), search("after", &t.after, &content)]
        }
        _ => Vec::new(),
    }
}

/// The window of `haystack` (as long as the needle, or a shorter prefix or suffix) with the
/// highest `ratio` to `needle`; the whole haystack when it is the shorter.
fn best_window<'a>(needle: &[char], haystack: &'a [char]) -> &'a [char] {
    let n = needle.len();
    if n == 0 || haystack.len() <= n {
        return haystack;
    }
    let mut best = (-1.0f64, &haystack[..0]);
    let mut consider = |w: &'a [char]| {
        let r = fuzz::ratio_chars(needle, w);
        if r > best.0 {
            best = (r, w);
        }
    };
    for i in 1..n {
        consider(&haystack[..i]);
    }
    for i in 0..=(haystack.len() - n) {
        consider(&haystack[i..i + n]);
    }
    for i in (haystack.len() - n + 1)..haystack.len() {
        consider(&haystack[i..]);
    }
    best.1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn best_matches_show_the_closest_stretch_of_the_page() {
        let test =
            t(r#"{"pdf":"a.pdf","page":1,"id":"p","type":"present","text":"quick brown fox"}"#);
        let m = best_matches(&test, "The quick brwn fox jumps.");
        assert_eq!(m.len(), 1);
        assert_eq!(m[0].text, " quick brwn fox");
        assert!(m[0].score > 0.9 && m[0].score < 1.0, "{m:?}");
        let order = t(
            r#"{"pdf":"a.pdf","page":1,"id":"o","type":"order","before":"alpha","after":"omega"}"#,
        );
        let m = best_matches(&order, "omega then alpha");
        assert_eq!((m[0].field, m[0].text.as_str(), m[0].score), ("before", "alpha", 1.0));
        assert_eq!(m[1].text, "omega");
    }

    #[test]
    fn normalize_rules() {
        assert_eq!(normalize_text("a<br>b<br/>c"), "a b c");
        assert_eq!(normalize_text("**bold** and __b__ <b>x</b> <i>y</i>"), "bold and b x y");
        assert_eq!(normalize_text("*it* _u_"), "it u");
        assert_eq!(normalize_text("a \n\t b\u{1f}c"), "a b c");
        assert_eq!(normalize_text("e\u{301}"), "\u{e9}");
        assert_eq!(normalize_text("‘a’ “b” –—−‑‒ ＿ µ"), "'a' \"b\" ----- _ μ");
        // Emphasis does not span a newline (it is removed before whitespace is collapsed).
        assert_eq!(normalize_text("*a\nb*"), "*a b*");
        assert_eq!(normalize_text("snake_case_name"), "snakecasename");
    }

    #[test]
    fn present_threshold_by_one_char() {
        // "abcdefghij" (10 chars), max_diffs 1: threshold 0.9. One substitution in the page gives
        // partial_ratio 0.9 (pass); two give 0.8 (fail).
        let test = t(
            r#"{"pdf":"a.pdf","page":1,"id":"p","type":"present","text":"abcdefghij","max_diffs":1}"#,
        );
        assert!(passes(&test, "xx abcdefghij yy"));
        assert!(passes(&test, "xx abcdefghiX yy"));
        assert!(!passes(&test, "xx abcdefghXX yy"));
        let exact = t(r#"{"pdf":"a.pdf","page":1,"id":"p","type":"present","text":"abcdefghij"}"#);
        assert!(passes(&exact, "abcdefghij"));
        assert!(!passes(&exact, "abcdefghiX"));
        // No length guard at this snapshot: partial_ratio is symmetric, so a one-space page
        // "contains" any query with a space in it.
        let spaced =
            t(r#"{"pdf":"a.pdf","page":1,"id":"p","type":"present","text":"a long phrase"}"#);
        assert!(passes(&spaced, "\n"));
        assert!(!passes(&exact, " "));
    }

    #[test]
    fn absent_threshold_and_windows() {
        let test = t(
            r#"{"pdf":"a.pdf","page":1,"id":"a","type":"absent","text":"Header Text","last_n":20}"#,
        );
        assert!(!passes(&test, "body body body Header Text"));
        assert!(passes(&test, "body body body Header Tex_"));
        // Only the last 20 characters are searched.
        assert!(passes(&test, &format!("Header Text{}", " body".repeat(10))));
        let ci = t(
            r#"{"pdf":"a.pdf","page":1,"id":"a","type":"absent","text":"HEADER","case_sensitive":false}"#,
        );
        assert!(!passes(&ci, "a header b"));
        // A page shorter than the query is matched the other way round (no length guard).
        assert!(!passes(&ci, "hea"));
        assert!(passes(&ci, "hex"));
    }

    #[test]
    fn order_decisions() {
        let test = t(
            r#"{"pdf":"a.pdf","page":1,"id":"o","type":"order","before":"first part","after":"second part","max_diffs":1}"#,
        );
        assert!(passes(&test, "first part then second part"));
        assert!(!passes(&test, "second part then first part"));
        // One edit allowed on each.
        assert!(passes(&test, "firs part then secnd part"));
        // Two edits in "before": not found.
        let (ok, why) = test.run("fist prt then second part");
        assert!(!ok);
        assert!(why.starts_with("'before' text"));
        assert!(load_test(r#"{"pdf":"a.pdf","page":1,"id":"o","type":"order","before":"ab","after":"cd","max_diffs":2}"#).is_err());
    }
}
