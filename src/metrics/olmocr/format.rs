//! Format and footnote tests: `tests.py::FormatTest` and `FootnoteTest`.

use super::*;

static_regex!(re_md_heading, r"(?m)^#{1,6}\s+(.+?)$");
static_regex!(re_html_heading, r"(?is)<h[1-6][^>]*>(.*?)</h[1-6]>");
static_regex!(re_md_bold, r"(?s)\*\*(.*?)\*\*");
static_regex!(re_md_bold_u, r"(?s)__(.*?)__");
static_regex!(re_html_b, r"(?is)<b[^>]*>(.*?)</b>");
static_regex!(re_html_strong, r"(?is)<strong[^>]*>(.*?)</strong>");
static_regex!(re_html_i, r"(?is)<i[^>]*>(.*?)</i>");
static_regex!(re_html_em, r"(?is)<em[^>]*>(.*?)</em>");

fn captures(re: &Regex, text: &str) -> Vec<String> {
    re.captures_iter(text).map(|c| c.get(1).map_or("", |m| m.as_str()).to_string()).collect()
}

/// `findall` of `(?<!d)d(?!d)(.*?)(?<!d)d(?!d)` with DOTALL, where `d` is `*` or `_`: a single
/// delimiter (not part of a double one), the shortest text, then a single delimiter whose
/// preceding character is not a delimiter.
fn single_delimited(text: &[char], d: char) -> Vec<String> {
    let single =
        |i: usize| text[i] == d && (i == 0 || text[i - 1] != d) && text.get(i + 1) != Some(&d);
    let mut out = Vec::new();
    let mut i = 0usize;
    while i < text.len() {
        if single(i) {
            if let Some(j) = ((i + 1)..text.len()).find(|&j| single(j)) {
                out.push(text[i + 1..j].iter().collect());
                i = j + 1;
                continue;
            }
        }
        i += 1;
    }
    out
}

impl FormatTest {
    pub(super) fn run(&self, md: &str) -> (bool, String) {
        let mut found: Vec<String> = Vec::new();
        match self.format.as_str() {
            "heading" => {
                found.extend(captures(re_md_heading(), md));
                found.extend(captures(re_html_heading(), md));
            }
            "bold" => {
                found.extend(captures(re_md_bold(), md));
                found.extend(captures(re_md_bold_u(), md));
                found.extend(captures(re_html_b(), md));
                found.extend(captures(re_html_strong(), md));
            }
            _ => {
                let chars: Vec<char> = md.chars().collect();
                found.extend(single_delimited(&chars, '*'));
                found.extend(single_delimited(&chars, '_'));
                found.extend(captures(re_html_i(), md));
                found.extend(captures(re_html_em(), md));
            }
        }
        let mut norm: Vec<String> = found.iter().map(|t| normalize_text(t)).collect();
        let mut search = self.text.clone();
        if !self.case_sensitive {
            search = search.to_lowercase();
            norm = norm.iter().map(|t| t.to_lowercase()).collect();
        }
        let threshold = diff_threshold(self.base.max_diffs, search.chars().count());
        if norm.iter().any(|t| fuzz::partial_ratio(&search, t) / 100.0 >= threshold) {
            return (true, String::new());
        }
        let detail = if norm.is_empty() {
            format!("No {} formatted text found", self.format)
        } else {
            let sample: Vec<String> = norm
                .iter()
                .take(3)
                .map(|t| {
                    if t.chars().count() > 20 {
                        format!("'{}...'", prefix(t, 20))
                    } else {
                        format!("'{t}'")
                    }
                })
                .collect();
            format!("Found {} text: {}", self.format, sample.join(", "))
        };
        (
            false,
            format!(
                "Text '{}...' not found with {} formatting. {detail}",
                prefix(&self.text, 40),
                self.format
            ),
        )
    }
}

/// Code-point offsets of the non-overlapping matches of `re` in `text`.
fn match_spans(re: &Regex, text: &str) -> Vec<(usize, usize)> {
    let to_char = |byte: usize| text[..byte].chars().count();
    re.find_iter(text).map(|m| (to_char(m.start()), to_char(m.end()))).collect()
}

impl FootnoteTest {
    pub(super) fn run(&self, md: &str) -> (bool, String) {
        let esc = regex::escape(&self.marker);
        let mut spans: Vec<(usize, usize)> = Vec::new();
        // `\[\^m\](?!:)`: the reference (not the definition `[^m]:`).
        if let Ok(re) = Regex::new(&format!(r"\[\^{esc}\]")) {
            for m in re.find_iter(md) {
                if !md[m.end()..].starts_with(':') {
                    let start = md[..m.start()].chars().count();
                    spans.push((start, start + m.as_str().chars().count()));
                }
            }
        }
        if let Ok(re) = Regex::new(&format!(r"(?i)<sup[^>]*>{esc}</sup>")) {
            spans.extend(match_spans(&re, md));
        }
        let sup = |c: char| match c {
            '0' => Some('⁰'),
            '1' => Some('¹'),
            '2' => Some('²'),
            '3' => Some('³'),
            '4' => Some('⁴'),
            '5' => Some('⁵'),
            '6' => Some('⁶'),
            '7' => Some('⁷'),
            '8' => Some('⁸'),
            '9' => Some('⁹'),
            _ => None,
        };
        if let Some(s) = self.marker.chars().map(sup).collect::<Option<String>>() {
            if let Ok(re) = Regex::new(&regex::escape(&s)) {
                spans.extend(match_spans(&re, md));
            }
        }
        if spans.is_empty() {
            let m = &self.marker;
            return (
                false,
                format!(
                    "Footnote marker '{m}' not found as [^{m}], <sup>{m}</sup>, or superscript"
                ),
            );
        }
        let before = self.appears_before_marker.as_deref().filter(|s| !s.is_empty());
        let after = self.appears_after_marker.as_deref().filter(|s| !s.is_empty());
        if before.is_none() && after.is_none() {
            return (true, String::new());
        }
        let chars: Vec<char> = md.chars().collect();
        let clean = |t: &str| -> Vec<char> {
            normalize_text(t)
                .chars()
                .filter(|&c| py_isalnum(c))
                .collect::<String>()
                .to_lowercase()
                .chars()
                .collect()
        };
        let mut failures = Vec::new();
        if let Some(target) = before {
            let want = clean(target);
            let thr = diff_threshold(self.base.max_diffs, target.chars().count());
            let found = spans.iter().any(|&(s, _)| {
                let ctx: String = chars[s.saturating_sub(200)..s].iter().collect();
                let have = clean(&ctx);
                if have.is_empty() {
                    return false;
                }
                let n = have.len().min(want.len() * 2);
                let window = if n > 0 { &have[have.len() - n..] } else { &have[..] };
                fuzz::partial_ratio_chars(&want, window) / 100.0 >= thr
            });
            if !found {
                failures.push(format!(
                    "Text '{}...' not found before any occurrence of marker '{}'",
                    prefix(target, 40),
                    self.marker
                ));
            }
        }
        if let Some(target) = after {
            let want = clean(target);
            let thr = diff_threshold(self.base.max_diffs, target.chars().count());
            let found = spans.iter().any(|&(_, e)| {
                let ctx: String = chars[e..(e + 200).min(chars.len())].iter().collect();
                let have = clean(&ctx);
                if have.is_empty() {
                    return false;
                }
                let n = have.len().min(want.len() * 2);
                let window = if n > 0 { &have[..n] } else { &have[..] };
                fuzz::partial_ratio_chars(&want, window) / 100.0 >= thr
            });
            if !found {
                failures.push(format!(
                    "Text '{}...' not found after any occurrence of marker '{}'",
                    prefix(target, 40),
                    self.marker
                ));
            }
        }
        if failures.is_empty() {
            (true, String::new())
        } else {
            (false, failures.join("; "))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn format_and_footnote() {
        let h = t(
            r#"{"pdf":"a.pdf","page":1,"id":"f","type":"format","text":"Intro","format":"heading"}"#,
        );
        assert!(passes(&h, "# Intro\ntext"));
        assert!(!passes(&h, "Intro\ntext"));
        let i = t(
            r#"{"pdf":"a.pdf","page":1,"id":"f","type":"format","text":"word","format":"italic"}"#,
        );
        assert!(passes(&i, "an *word* here"));
        assert!(!passes(&i, "an **word** here"));
        let f = t(
            r#"{"pdf":"a.pdf","page":1,"id":"n","type":"footnote","marker":"2","appears_before_marker":"the end"}"#,
        );
        assert!(passes(&f, "this is the end[^2] of it"));
        assert!(passes(&f, "this is the end² of it"));
        assert!(!passes(&f, "this is the end[^2]: def"));
        assert!(!passes(&f, "something else[^2] here"));
    }

    #[test]
    fn format_and_footnote_thresholds() {
        // "abcdefghij" bold, max_diffs 1: threshold 0.9; one changed character passes, two fail.
        let b = t(
            r#"{"pdf":"a.pdf","page":1,"id":"f","type":"format","text":"abcdefghij","format":"bold","max_diffs":1}"#,
        );
        assert!(passes(&b, "x **abcdefghiX** y"));
        assert!(!passes(&b, "x **abcdefghXX** y"));
        assert!(passes(&b, "x <strong>abcdefghij</strong> y"));
        assert!(!passes(&b, "x abcdefghij y"));
        let f = t(
            r#"{"pdf":"a.pdf","page":1,"id":"n","type":"footnote","marker":"3","appears_after_marker":"Footnote text"}"#,
        );
        assert!(passes(&f, "body <sup>3</sup> Footnote text follows"));
        // A definition `[^3]:` is not a marker.
        assert!(!passes(&f, "body [^3]: Footnote text"));
        assert!(passes(&f, "body[^3] Footnote text\n\n[^3]: def"));
        // (A truncated "Footnote tex" would pass: partial_ratio is symmetric.)
        assert!(!passes(&f, "body [^3] Footnote tixt"));
        assert!(!passes(&f, "body [^4] Footnote text"));
        assert!(load_test(r#"{"pdf":"a.pdf","page":1,"id":"n","type":"footnote","marker":"a b"}"#)
            .is_err());
    }
}
