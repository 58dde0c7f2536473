//! Text normalization shared by the metric suites (`docs/paper-suite.md` §3 and §4.1).
//!
//! Every function here is pure and line-based. The rules are part of every metric's meaning:
//! change one and bump [`NORMALIZE_VERSION`], which is part of the metric cache keys.

use unicode_normalization::UnicodeNormalization;

pub mod latex;
pub use latex::latex_to_plain;

/// The version of these rules. Bump it whenever any function here changes its output.
pub const NORMALIZE_VERSION: u32 = 1;

/// Returns whether a line holds only ASCII digits and white space (review line numbers, page
/// numbers). An empty or blank line counts as such a line.
pub(crate) fn is_number_line(line: &str) -> bool {
    line.chars().all(|c| c.is_ascii_digit() || c.is_whitespace())
}

/// Folds one line to ASCII lowercase: NFKD, then every non-ASCII char dropped, then lowercase.
pub(crate) fn fold_line(line: &str, out: &mut String) {
    if line.is_ascii() {
        out.extend(line.chars().map(|c| c.to_ascii_lowercase()));
        return;
    }
    for c in line.nfkd() {
        if c.is_ascii() {
            out.push(c.to_ascii_lowercase());
        }
    }
}

/// Returns `loose(text)`: number-only lines dropped, the rest folded to ASCII and lowercased,
/// lines joined by `\n`.
pub(crate) fn loose(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for line in text.lines() {
        if is_number_line(line) {
            continue;
        }
        if !out.is_empty() {
            out.push('\n');
        }
        fold_line(line, &mut out);
    }
    out
}

/// Returns `squash(text)`: `loose` with all white space removed.
pub fn squash(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for line in text.lines() {
        if !is_number_line(line) {
            squash_line(line, &mut out);
        }
    }
    out
}

/// Appends one line folded as by [`fold_line`] with its white space removed.
pub(crate) fn squash_line(line: &str, out: &mut String) {
    if line.is_ascii() {
        out.extend(
            line.bytes()
                .filter(|b| !b.is_ascii_whitespace())
                .map(|b| b.to_ascii_lowercase() as char),
        );
        return;
    }
    for c in line.nfkd() {
        if c.is_ascii() && !c.is_ascii_whitespace() {
            out.push(c.to_ascii_lowercase());
        }
    }
}

/// Calls `f` on every token of an already loose (ASCII lowercase) string: the maximal runs of
/// `[a-z0-9]`.
pub(crate) fn for_each_token<'a>(loose_text: &'a str, mut f: impl FnMut(&'a str)) {
    let b = loose_text.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if is_tok_byte(b[i]) {
            let s = i;
            while i < b.len() && is_tok_byte(b[i]) {
                i += 1;
            }
            f(&loose_text[s..i]);
        } else {
            i += 1;
        }
    }
}

fn is_tok_byte(c: u8) -> bool {
    c.is_ascii_lowercase() || c.is_ascii_digit()
}

/// Returns `tokens(text)`: the maximal runs of `[a-z0-9]` in `loose(text)`.
pub fn tokens(text: &str) -> Vec<String> {
    let l = loose(text);
    let mut v = Vec::new();
    for_each_token(&l, |t| v.push(t.to_string()));
    v
}

/// Returns the heading comparison key: `tokens(heading)` joined by single spaces, so that
/// `1. Introduction` and `1 Introduction` compare equal.
pub(crate) fn heading_key(heading: &str) -> String {
    tokens(heading).join(" ")
}

/// Returns whether a char is CJK (ideographs, kana, Hangul, CJK punctuation and forms).
pub(crate) fn is_cjk(c: char) -> bool {
    matches!(c as u32,
        0x2E80..=0x9FFF | 0xAC00..=0xD7AF | 0xF900..=0xFAFF | 0xFE30..=0xFE4F
        | 0xFF00..=0xFFEF | 0x20000..=0x2FA1F)
}

/// What the line rules (`docs/paper-suite.md` §3, §4.1) say about one line, in one pass.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LineInfo<'a> {
    /// The line is a junk line (see `is_junk_line`).
    pub junk: bool,
    /// The line is a table line (see `is_table_line`).
    pub table: bool,
    /// The line's data values (see `data_values`).
    pub values: Vec<&'a str>,
}

/// Returns the junk flag, table flag and data values of a line.
pub(crate) fn line_info(line: &str) -> LineInfo<'_> {
    let mut junk = false;
    if !line.is_ascii() {
        let mut non_space = 0usize;
        let mut non_ascii = 0usize;
        for c in line.chars() {
            if c.is_whitespace() {
                continue;
            }
            non_space += 1;
            if !c.is_ascii() {
                non_ascii += 1;
                if is_cjk(c) {
                    junk = true;
                }
            }
        }
        junk |= non_ascii * 10 > non_space * 3;
    }
    let mut total = 0usize;
    let mut single = 0usize;
    let mut numeric = 0usize;
    let mut values = Vec::new();
    for t in line.split_whitespace() {
        total += 1;
        if t.chars().nth(1).is_none() {
            single += 1;
        }
        if t.bytes().any(|b| b.is_ascii_digit()) {
            let tt = trim_number_token(t);
            if is_numeric_token(tt) {
                numeric += 1;
            }
            if is_data_value(tt) {
                values.push(tt);
            }
        }
    }
    junk |= single * 2 > total;
    let table = !junk && values.len() >= 2 && numeric * 2 >= total;
    LineInfo { junk, table, values }
}

/// Returns whether a GT line is a junk line: more than 30% of its non-space chars are
/// non-ASCII, or it holds CJK, or more than half of its whitespace-separated tokens are a single
/// char. Blank lines are not junk.
#[cfg(test)]
pub(crate) fn is_junk_line(line: &str) -> bool {
    line_info(line).junk
}

/// Trims the punctuation around a whitespace-separated token before it is matched as a number:
/// leading chars that are neither alphanumeric nor a sign, trailing chars that are neither
/// alphanumeric nor `%`.
fn trim_number_token(t: &str) -> &str {
    let t = t.trim_start_matches(|c: char| !c.is_alphanumeric());
    t.trim_end_matches(|c: char| !(c.is_alphanumeric() || c == '%'))
}

/// Returns whether `t` (already trimmed) is a data value: it fully matches
/// `\d{1,3}(,\d{3})+(\.\d+)?%?`, `\d+\.\d+%?`, `\d+%` or `\d{2,}`.
pub(crate) fn is_data_value(t: &str) -> bool {
    let b = t.as_bytes();
    let b = b.strip_suffix(b"%").map(|s| (s, true)).unwrap_or((b, false));
    let (body, pct) = b;
    if body.is_empty() || !body[0].is_ascii_digit() {
        return false;
    }
    let digits = |s: &[u8]| !s.is_empty() && s.iter().all(u8::is_ascii_digit);
    // Split off a decimal part.
    let (int, frac) = match body.iter().position(|&c| c == b'.') {
        Some(p) => (&body[..p], Some(&body[p + 1..])),
        None => (body, None),
    };
    if let Some(f) = frac {
        if !digits(f) {
            return false;
        }
    }
    if int.contains(&b',') {
        // \d{1,3}(,\d{3})+
        let mut groups = int.split(|&c| c == b',');
        let first = groups.next().unwrap_or_default();
        if !digits(first) || first.len() > 3 {
            return false;
        }
        return groups.all(|g| g.len() == 3 && digits(g));
    }
    if !digits(int) {
        return false;
    }
    frac.is_some() || pct || int.len() >= 2
}

/// Returns the data values of a text (`docs/paper-suite.md` §4.1), in order, with repeats: every
/// whitespace-separated token that, with its surrounding punctuation trimmed, is a data value.
/// Single digits never count.
pub(crate) fn data_values(text: &str) -> Vec<&str> {
    text.split_whitespace()
        .filter(|t| t.bytes().any(|b| b.is_ascii_digit()))
        .map(trim_number_token)
        .filter(|t| is_data_value(t))
        .collect()
}

/// Returns whether a trimmed token is numeric: it starts with a digit and holds only digits,
/// `.`, `,` and `%`.
fn is_numeric_token(t: &str) -> bool {
    t.starts_with(|c: char| c.is_ascii_digit())
        && t.chars().all(|c| c.is_ascii_digit() || matches!(c, '.' | ',' | '%'))
}

/// Returns whether a GT line is a table line (for text-only GT): a non-junk line with at least
/// 2 data values in which numeric tokens are at least half of all whitespace-separated tokens.
pub(crate) fn is_table_line(line: &str) -> bool {
    // Two data values need at least two digits.
    line.bytes().filter(u8::is_ascii_digit).nth(1).is_some() && line_info(line).table
}

/// Returns `text` with every HTML comment (`<!-- ... -->`) removed; an unterminated comment
/// runs to the end of the text.
pub(crate) fn strip_html_comments(text: &str) -> String {
    if !text.contains("<!--") {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(p) = rest.find("<!--") {
        out.push_str(&rest[..p]);
        match rest[p + 4..].find("-->") {
            Some(e) => rest = &rest[p + 4 + e + 3..],
            None => rest = "",
        }
    }
    out.push_str(rest);
    out
}

/// Returns `text` with every run of white space replaced by one space, trimmed.
pub(crate) fn collapse_ws(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for w in text.split_whitespace() {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(w);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loose_drops_number_lines_folds_and_lowercases() {
        assert_eq!(loose("011\n012\nThe Café σ\n  7 \nEnd"), "the cafe \nend");
        assert_eq!(loose("Ï â1"), "i a1");
        assert_eq!(squash("A b\n12\nC\td"), "abcd");
    }

    #[test]
    fn tokens_are_alnum_runs() {
        assert_eq!(tokens("1. Introduction"), vec!["1", "introduction"]);
        assert_eq!(tokens("54,088 (x_i)"), vec!["54", "088", "x", "i"]);
        assert_eq!(heading_key("1. Introduction"), heading_key("1 Introduction"));
    }

    #[test]
    fn junk_lines() {
        assert!(is_junk_line("ÏÏÏ abc"));
        assert!(is_junk_line("图 1 results"));
        assert!(is_junk_line("a b c dd"));
        assert!(!is_junk_line("a b cc dd"));
        assert!(!is_junk_line("The model reaches 0.5 accuracy."));
        assert!(!is_junk_line(""));
    }

    #[test]
    fn data_values_follow_the_four_patterns() {
        for v in ["54,088", "1,812.5", "1,000%", "0.5", "12.25%", "50%", "34", "2014"] {
            assert!(is_data_value(v), "{v}");
        }
        for v in ["7", "5,1", "1.", ".5", "a12", "12a", "1,0000", "1234,567"] {
            assert!(!is_data_value(v), "{v}");
        }
        assert_eq!(
            data_values("Test 54,088 - 1,812 (0.34), 7 dfki07"),
            vec!["54,088", "1,812", "0.34"]
        );
    }

    #[test]
    fn table_lines() {
        assert!(is_table_line("Test 54,088 - 1,812"));
        assert!(is_table_line("dfki08run1 (EN) 0.78 0.54 0.64 0.34 0.24"));
        assert!(!is_table_line("We ran 12 tests on 40 papers in total."));
        assert!(!is_table_line("only 12 one"));
    }

    #[test]
    fn html_comments_are_removed() {
        assert_eq!(strip_html_comments("a<!-- image -->b<!-- x"), "ab");
        assert_eq!(strip_html_comments("plain"), "plain");
    }
}
