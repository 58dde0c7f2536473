//! Text presence, absence, order and baseline rules (ParseBench's `rules_text.py`:
//! `TextPresenceRule`, `TextOrderRule`, `BaselineRule`).
//!
//! - **present / absent**: the rule's text, normalized ([`normalize_text`], or
//!   [`normalize_text_light`] lower-cased with `keep_formatting_text_normalisation`), is looked
//!   for in the output normalized the same way, cut to its first `first_n` and/or last `last_n`
//!   characters. The best `partial_ratio` (RapidFuzz) must reach the threshold
//!   `max(0.7, min(1, 1 − max_diffs / len(text)))` for `present` and stay below it for
//!   `absent`. A `present` rule with a `count` other than 0 instead counts occurrences (exact
//!   non-overlapping ones when `max_diffs` is 0, else non-overlapping fuzzysearch matches with
//!   distance up to `min(max_diffs, 15)`) and needs exactly `count`.
//! - **order**: both texts and the output have LaTeX simplified, are normalized, dot runs made
//!   spaces and space runs one space; it passes when the first exact occurrence of `before`
//!   starts before the last exact occurrence of `after`; otherwise the missing side(s) are
//!   searched with fuzzysearch at distance `min(max(len // 20, max_diffs), 15)` and the first
//!   `before` match must start before the last `after` match.
//! - **baseline**: blank-page, repetition and disallowed-character checks.

use super::normalize::{
    count_substr, find_chars, normalize_text, normalize_text_light, rfind_chars,
    strip_and_replace_latex,
};
use super::Outcome;
use crate::metrics::fuzz::{find_near_matches, partial_ratio};

/// Python slicing `s[:n]` / `s[-n:]` on characters.
fn head(chars: &[char], n: i64) -> &[char] {
    let len = chars.len() as i64;
    let end = if n < 0 { (len + n).max(0) } else { n.min(len) };
    &chars[..end as usize]
}

fn tail(chars: &[char], n: i64) -> &[char] {
    let len = chars.len() as i64;
    // `s[-n:]`: n > 0 keeps the last n; n <= 0 is `s[0:]` or `s[k:]` for -n = k.
    let start = if n > 0 { (len - n).max(0) } else { (-n).min(len) };
    &chars[start as usize..]
}

/// A `present` or `absent` rule.
#[derive(Debug, Clone, PartialEq)]
pub struct Presence {
    /// `present` (true) or `absent`.
    pub present: bool,
    /// The text as written.
    pub text: String,
    /// Light normalization, formatting kept.
    pub keep_formatting: bool,
    /// Case matters (the default normalization lower-cases anyway).
    pub case_sensitive: bool,
    /// Only the first characters of the output.
    pub first_n: Option<i64>,
    /// Only the last characters of the output.
    pub last_n: Option<i64>,
    /// Exact number of occurrences (`None` or 0: presence only).
    pub count: Option<i64>,
    /// Allowed edit distance.
    pub max_diffs: f64,
}

fn py_float(x: f64) -> String {
    if x.fract() == 0.0 && x.abs() < 1e16 {
        format!("{x:.1}")
    } else {
        format!("{x}")
    }
}

fn preview(s: &str, n: usize) -> String {
    s.chars().take(n).collect()
}

impl Presence {
    /// Runs the rule on the output's Markdown (`normalized`: [`normalize_text`] of it).
    pub fn run(&self, md: &str, normalized: &str) -> Outcome {
        let norm = if self.keep_formatting { normalize_text_light } else { normalize_text };
        let query = norm(&self.text);
        if query.trim().is_empty() {
            return Outcome::error("Text field cannot be empty");
        }
        if self.count.is_some_and(|c| c < 0) {
            return Outcome::error("Count field cannot be negative");
        }
        let (mut query, mut content) = if self.keep_formatting {
            (query.to_lowercase(), normalize_text_light(md).to_lowercase())
        } else {
            (query, normalized.to_string())
        };
        if !self.case_sensitive {
            query = query.to_lowercase();
            content = content.to_lowercase();
        }
        let chars: Vec<char> = content.chars().collect();
        let first = self.first_n.filter(|&n| n != 0);
        let last = self.last_n.filter(|&n| n != 0);
        let content: String = match (first, last) {
            (Some(f), Some(l)) => head(&chars, f).iter().chain(tail(&chars, l)).collect(),
            (Some(f), None) => head(&chars, f).iter().collect(),
            (None, Some(l)) => tail(&chars, l).iter().collect(),
            (None, None) => content,
        };
        let qlen = query.chars().count();
        let raw = 1.0 - self.max_diffs / (if qlen > 0 { qlen as f64 } else { 1.0 });
        let threshold = raw.clamp(f64::NEG_INFINITY, 1.0).max(0.7);
        let best = partial_ratio(&query, &content) / 100.0;
        let q40 = preview(&query, 40);
        if self.present {
            if let Some(want) = self.count.filter(|&c| c != 0) {
                let found = if self.max_diffs == 0.0 {
                    count_substr(&content, &query)
                } else {
                    let dist = self.max_diffs.clamp(0.0, 15.0) as usize;
                    let mut ms = find_near_matches(&query, &content, dist);
                    ms.sort_by_key(|m| (m.start, m.end));
                    let (mut n, mut last_end) = (0, None);
                    for m in ms {
                        if last_end.is_none_or(|e| m.start >= e) {
                            n += 1;
                            last_end = Some(m.end);
                        }
                    }
                    n
                };
                return if found as i64 == want {
                    Outcome::pass()
                } else {
                    Outcome::fail(format!(
                        "Expected '{q40}...' exactly {want} time(s), but found {found}"
                    ))
                };
            }
            if best >= threshold {
                Outcome::pass()
            } else {
                Outcome::fail(format!(
                    "Expected '{q40}...' with threshold {} but best match ratio was {best:.3}",
                    py_float(threshold)
                ))
                .with_best(&query, &content)
            }
        } else if best < threshold {
            Outcome::pass()
        } else {
            Outcome::fail(format!(
                "Expected absence of '{q40}...' with threshold {} but best match ratio was {best:.3}",
                py_float(threshold)
            ))
            .with_best(&query, &content)
        }
    }
}

/// An `order` rule.
#[derive(Debug, Clone, PartialEq)]
pub struct Order {
    /// The text that must come first.
    pub before: String,
    /// The text that must come after.
    pub after: String,
    /// Light normalization, formatting kept.
    pub keep_formatting: bool,
    /// Allowed edit distance.
    pub max_diffs: f64,
}

/// LaTeX simplified, normalized, dot runs as spaces, space runs as one space.
fn order_text(s: &str, keep_formatting: bool) -> String {
    let norm = if keep_formatting { normalize_text_light } else { normalize_text };
    let s = norm(&strip_and_replace_latex(s));
    let s = super::bag::MULTI_DOT.replace_all(&s, " ");
    super::bag::SPACE_RUNS.replace_all(&s, " ").into_owned()
}

impl Order {
    /// Runs the rule on the output's Markdown.
    pub fn run(&self, md: &str) -> Outcome {
        let before = order_text(&self.before, self.keep_formatting);
        let after = order_text(&self.after, self.keep_formatting);
        if before.trim().is_empty() {
            return Outcome::error("Before field cannot be empty");
        }
        if after.trim().is_empty() {
            return Outcome::error("After field cannot be empty");
        }
        let (bl, al) = (before.chars().count(), after.chars().count());
        if self.max_diffs > (bl / 2) as f64 || self.max_diffs > (al / 2) as f64 {
            return Outcome::error(
                "Max diffs is too large for this test, greater than 50% of the search string",
            );
        }
        let content = order_text(md, self.keep_formatting);
        let bpos = find_chars(&content, &before);
        let apos = rfind_chars(&content, &after);
        if let (Some(b), Some(a)) = (bpos, apos) {
            if b < a {
                return Outcome::pass();
            }
        }
        let dist = |len: usize| ((len / 20) as f64).max(self.max_diffs).clamp(0.0, 15.0) as usize;
        let (bd, ad) = (dist(bl), dist(al));
        let bstarts: Vec<usize> = match bpos {
            Some(b) => vec![b],
            None => find_near_matches(&before, &content, bd).iter().map(|m| m.start).collect(),
        };
        let astarts: Vec<usize> = match apos {
            Some(a) => vec![a],
            None => find_near_matches(&after, &content, ad).iter().map(|m| m.start).collect(),
        };
        let Some(&first_before) = bstarts.iter().min() else {
            return Outcome::fail(format!(
                "'before' text '{}...' not found with max_l_dist {bd}",
                preview(&before, 40)
            ))
            .with_best(&before, &content);
        };
        let Some(&last_after) = astarts.iter().max() else {
            return Outcome::fail(format!(
                "'after' text '{}...' not found with max_l_dist {ad}",
                preview(&after, 40)
            ))
            .with_best(&after, &content);
        };
        if first_before < last_after {
            return Outcome::pass();
        }
        Outcome::fail(format!(
            "Could not find a location where '{before}...' appears before '{after}...'. \
             First 'before' at position {first_before}, last 'after' at position {last_after}."
        ))
    }
}

/// A `baseline` rule.
#[derive(Debug, Clone, PartialEq)]
pub struct Baseline {
    /// The most alphanumeric characters a page expected blank may have.
    pub max_length: Option<i64>,
    /// Markdown images are left out of that count.
    pub max_length_skips_image_alt_tags: bool,
    /// Whether CJK, kana and emoji characters fail the output.
    pub check_disallowed_characters: bool,
}

fn alnum_len(s: &str) -> usize {
    s.chars().filter(|c| c.is_alphanumeric()).count()
}

impl Baseline {
    /// Runs the rule on the output's Markdown.
    pub fn run(&self, md: &str) -> Outcome {
        let mut len = alnum_len(md);
        if let Some(max) = self.max_length {
            if self.max_length_skips_image_alt_tags {
                len = alnum_len(&super::bag::MARKDOWN_IMAGE_LAZY.replace_all(md, ""));
            }
            return if len as i64 > max {
                Outcome::fail(format!(
                    "{len} characters were output for a page we expected to be blank"
                ))
            } else {
                Outcome::pass()
            };
        }
        if len == 0 {
            return Outcome::fail("The text contains no alpha numeric characters");
        }
        let chars: Vec<char> = md.chars().collect();
        if chars.len() > 50 {
            let size = chars.len().min(200);
            let samples = (chars.len() / size).clamp(1, 5);
            let step = if samples > 1 { ((chars.len() - size) / (samples - 1)).max(1) } else { 0 };
            let mut repetitive = 0;
            for i in 0..samples {
                let start = (i * step).min(chars.len());
                let end = (start + size).min(chars.len());
                let set: std::collections::HashSet<char> =
                    chars[start..end].iter().copied().collect();
                if set.len() < 3 {
                    repetitive += 1;
                }
            }
            if repetitive > samples / 2 {
                return Outcome::fail("Text appears to be excessively repetitive");
            }
        }
        if self.check_disallowed_characters {
            let bad: Vec<char> = chars
                .iter()
                .copied()
                .filter(|c| {
                    matches!(c,
                        '\u{4e00}'..='\u{9fff}' | '\u{3040}'..='\u{309f}' | '\u{30a0}'..='\u{30ff}'
                        | '\u{1f600}'..='\u{1f64f}' | '\u{1f300}'..='\u{1f5ff}'
                        | '\u{1f680}'..='\u{1f6ff}' | '\u{1f1e0}'..='\u{1f1ff}')
                })
                .take(5)
                .collect();
            if !bad.is_empty() {
                return Outcome::fail(format!("Text contains disallowed characters: {bad:?}"));
            }
        }
        Outcome::pass()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn present(text: &str) -> Presence {
        Presence {
            present: true,
            text: text.into(),
            keep_formatting: false,
            case_sensitive: true,
            first_n: None,
            last_n: None,
            count: None,
            max_diffs: 0.0,
        }
    }

    fn run(p: &Presence, md: &str) -> bool {
        p.run(md, &normalize_text(md)).passed
    }

    #[test]
    fn presence_is_fuzzy_with_a_floor_of_point_seven() {
        let md = "# Title\n\nThe quick **brown** fox jumps.";
        assert!(run(&present("quick brown fox"), md));
        assert!(!run(&present("a slow green turtle"), md));
        // One character off in 15: ratio about 0.93 < 1.0 without max_diffs...
        assert!(!run(&present("quick brown fax"), md));
        // ... and enough with max_diffs 2 (threshold 1 - 2/15).
        assert!(run(&Presence { max_diffs: 2.0, ..present("quick brown fax") }, md));
        let absent = Presence { present: false, ..present("slow turtle") };
        assert!(run(&absent, md));
        assert!(!run(&Presence { present: false, ..present("brown fox") }, md));
    }

    #[test]
    fn counts_first_n_and_last_n() {
        let md = "alpha beta alpha gamma alpha";
        assert!(run(&Presence { count: Some(3), ..present("alpha") }, md));
        assert!(!run(&Presence { count: Some(2), ..present("alpha") }, md));
        assert!(run(&Presence { first_n: Some(10), ..present("alpha beta") }, md));
        assert!(!run(&Presence { first_n: Some(10), ..present("gamma alpha") }, md));
        assert!(run(&Presence { last_n: Some(11), ..present("gamma alpha") }, md));
        let p = present("");
        assert!(p.run(md, md).error);
    }

    #[test]
    fn order_uses_first_before_and_last_after() {
        let o = |b: &str, a: &str| Order {
            before: b.into(),
            after: a.into(),
            keep_formatting: false,
            max_diffs: 0.0,
        };
        let md = "Introduction. Methods follow. Results last. Introduction again.";
        assert!(o("Introduction", "Results").run(md).passed);
        assert!(!o("Results", "Methods").run(md).passed);
        // "Introduction" also comes last: first before < last after either way.
        assert!(o("Methods", "Introduction").run(md).passed);
        assert!(o("$x^2$ grows", "Results").run("x2 grows. Results.").passed);
        assert!(!o("Introductoin", "Results last and more text here").run(md).passed);
    }

    #[test]
    fn baseline_checks_blank_pages_and_characters() {
        let b = Baseline {
            max_length: None,
            max_length_skips_image_alt_tags: false,
            check_disallowed_characters: true,
        };
        assert!(b.run("Some text").passed);
        assert!(!b.run("   ").passed);
        assert!(!b.run("text 漢字").passed);
        let blank = Baseline { max_length: Some(3), ..b };
        assert!(blank.run("ab").passed && !blank.run("abcd").passed);
    }
}
