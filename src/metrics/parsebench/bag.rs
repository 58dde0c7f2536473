//! Bag-of-sentence, bag-of-word and bag-of-digit rules (ParseBench's `rules_bag.py`).
//!
//! **Sentences.** A bag key is normalized ([`normalize_text`], outer dots stripped, dot runs
//! as spaces, HTML entities decoded, autolinks unwrapped, tags as spaces, leading Markdown
//! marks (`#`, `>`, list bullets and numbers) and outer punctuation removed, spaces collapsed)
//! and dropped when shorter than 7 characters. The output's sentences come from its Markdown
//! with `mermaid`/`description` fences removed, LaTeX simplified, images removed, HTML tables
//! removed (or, for the `missing_*` rules, table cells appended), split on newlines, periods
//! not between digits, `!`/`?` runs and CJK sentence marks; a chunk too short once normalized
//! is joined to the next. The "full text" is the whole output normalized the same way (table
//! cells appended) for substring counts, with word edges for sentences under 20 characters.
//!
//! - `missing_sentence` / `missing_sentence_percent`: each key's count in the output (the
//!   larger of the split bag's and the substring count; the percent form uses the substring
//!   count only) against its required count; the percent score is Σ min(found, required) /
//!   Σ required.
//! - `unexpected_sentence` / `_percent`: output sentences that are neither a key nor a
//!   substring of the keys joined by spaces (nor, with `original_md`, of that Markdown's full
//!   text); score = expected output sentences / output sentences (1 when there are none).
//! - `too_many_sentence_occurence` / `_percent`: a key found more often than allowed; score =
//!   1 − Σ excess / Σ max(found, allowed).
//! - `missing_specific_sentence`: one sentence, a substring of the full text.
//! - `extra_content`: an output sentence more often than its key allows (a substring of the
//!   keys counts as allowed once).
//!
//! **Words** are runs of letters, digits and `_` of at least 2 characters (CJK runs kept
//! together whatever their length) in the normalized output (HTML entities decoded, tags as
//! spaces); a key is the first such word of its normalized text; counts are the larger of
//! the token bag's and the word-edged substring count in the full text. The `word` rules
//! mirror the sentence rules; `missing_specific_word` takes the longest token of its word
//! (or its tokens joined, for `can't`) and also looks in the output without apostrophes.
//!
//! **Digits**: `bag_of_digit_percent` counts each digit outside HTML tags (cells appended):
//! Σ min(found, expected) / Σ expected.

use std::collections::BTreeMap;
use std::sync::LazyLock;

use regex::Regex;

use super::normalize::{
    count_bounded, is_decimal, is_word, normalize_text, py_strip, strip_and_replace_latex,
    strip_autolinks, strip_fenced_code_blocks, strip_html_tables, unescape_html_entities,
};
use super::tables::augment_with_cells;
use super::Outcome;

fn re(p: &str) -> Regex {
    Regex::new(p).expect("a fixed pattern")
}

/// `\.(?:\s*\.)+`: runs of dots (spaces between them allowed).
pub static MULTI_DOT: LazyLock<Regex> = LazyLock::new(|| re(r"\.(?:\s*\.)+"));
/// ` +`.
pub static SPACE_RUNS: LazyLock<Regex> = LazyLock::new(|| re(r" +"));
/// Markdown images, removed before sentences are split.
static MARKDOWN_IMAGE: LazyLock<Regex> = LazyLock::new(|| re(r"!\[[^\]]*\]\([^)]*\)"));
/// Markdown images as the baseline rule finds them.
pub static MARKDOWN_IMAGE_LAZY: LazyLock<Regex> = LazyLock::new(|| re(r"!\[.*?\]\(.*?\)"));
static LEADING_MARKDOWN: LazyLock<Regex> =
    LazyLock::new(|| re(r"^(?:\s*(?:#{1,6}\s+|>\s+|[*+-]\s+|\d+[.)]\s+))+"));
static HTML_TAG: LazyLock<Regex> = LazyLock::new(|| re(r"</?[^>]+>"));
static HTML_TAG_ATTRS: LazyLock<Regex> = LazyLock::new(|| re(r"<[^>]+>"));
static BOUNDARY_PUNCT: LazyLock<Regex> = LazyLock::new(|| re(r"^[^\w]+|[^\w]+$"));
static SPACES: LazyLock<Regex> = LazyLock::new(|| re(r"\s+"));

/// Shortest sentence kept.
pub const MIN_SENTENCE_LENGTH: usize = 7;
/// Shortest word kept.
pub const MIN_WORD_LENGTH: usize = 2;

/// A multiset of strings, in first-insertion order.
pub type Bag = Vec<(String, i64)>;

fn bag_add(bag: &mut Bag, key: String, n: i64) {
    match bag.iter_mut().find(|(k, _)| *k == key) {
        Some((_, c)) => *c += n,
        None => bag.push((key, n)),
    }
}

fn bag_get(bag: &Bag, key: &str) -> i64 {
    bag.iter().find(|(k, _)| k == key).map_or(0, |(_, c)| *c)
}

/// `_normalize_sentence_fragment`: a sentence as bag keys and output sentences are compared,
/// or empty when shorter than [`MIN_SENTENCE_LENGTH`].
pub fn normalize_sentence(text: &str) -> String {
    let n = normalize_text(text);
    let n = py_strip(&n).trim_matches('.');
    let n = MULTI_DOT.replace_all(n, " ");
    let n = unescape_html_entities(&n);
    let n = strip_autolinks(&n);
    let n = HTML_TAG.replace_all(&n, " ");
    let n = LEADING_MARKDOWN.replace_all(&n, "");
    let n = BOUNDARY_PUNCT.replace_all(py_strip(&n), "");
    let n = SPACES.replace_all(py_strip(&n), " ").into_owned();
    if n.chars().count() < MIN_SENTENCE_LENGTH {
        String::new()
    } else {
        n
    }
}

/// `_normalize_full_text`: the whole output normalized for substring counts.
pub fn sentence_full_text(md: &str) -> String {
    let s = strip_fenced_code_blocks(md);
    let s = strip_and_replace_latex(&s);
    let s = MARKDOWN_IMAGE.replace_all(&s, " ");
    let s = augment_with_cells(&s);
    let s = normalize_text(&s);
    let s = MULTI_DOT.replace_all(&s, " ");
    let s = unescape_html_entities(&s);
    let s = strip_autolinks(&s);
    let s = HTML_TAG.replace_all(&s, " ");
    SPACES.replace_all(&s, " ").into_owned()
}

/// `_count_sentence_in_full_text`: word-edged occurrences for sentences under 20 characters,
/// plain non-overlapping ones otherwise.
pub fn count_sentence(sentence: &str, full: &str) -> usize {
    if sentence.chars().count() < 20 {
        count_bounded(sentence, full)
    } else {
        full.matches(sentence).count()
    }
}

fn is_cjk_split(c: char) -> bool {
    matches!(
        c,
        '\u{3002}'
            | '\u{3001}'
            | '\u{ff0c}'
            | '\u{ff01}'
            | '\u{ff1f}'
            | '\u{ff1b}'
            | '\u{2026}'
            | '\u{2025}'
            | '\u{22ef}'
    )
}

/// `_SENTENCE_SPLIT_PATTERN.split`: newline runs, periods not next to a digit, `!`/`?` runs
/// and CJK sentence-mark runs end a chunk.
fn split_sentences(s: &str) -> Vec<String> {
    let c: Vec<char> = s.chars().collect();
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut i = 0;
    while i < c.len() {
        let run = |i: usize, f: &dyn Fn(char) -> bool| {
            let mut j = i;
            while j < c.len() && f(c[j]) {
                j += 1;
            }
            j
        };
        let end = match c[i] {
            '\n' => Some(run(i, &|x| x == '\n')),
            '.' if (i == 0 || !is_decimal(c[i - 1]))
                && !c.get(i + 1).is_some_and(|&x| is_decimal(x)) =>
            {
                Some(i + 1)
            }
            '!' | '?' => Some(run(i, &|x| x == '!' || x == '?')),
            x if is_cjk_split(x) => Some(run(i, &is_cjk_split)),
            _ => None,
        };
        match end {
            Some(j) => {
                out.push(std::mem::take(&mut cur));
                i = j;
            }
            None => {
                cur.push(c[i]);
                i += 1;
            }
        }
    }
    out.push(cur);
    out
}

/// `_merge_short_chunks`: a chunk too short once normalized is carried into the next one.
fn merge_short(chunks: Vec<String>) -> Vec<String> {
    let mut merged: Vec<String> = Vec::new();
    let mut carry = String::new();
    for chunk in chunks {
        let mut text = py_strip(&chunk).to_string();
        if text.is_empty() {
            continue;
        }
        if !carry.is_empty() {
            text = format!("{carry} {text}");
            carry.clear();
        }
        if normalize_sentence(&text).is_empty() && !py_strip(&text).is_empty() {
            carry = text;
        } else {
            merged.push(text);
        }
    }
    if !carry.is_empty() {
        match merged.last_mut() {
            Some(last) => {
                last.push(' ');
                last.push_str(&carry);
            }
            None => merged.push(carry),
        }
    }
    merged
}

/// `_extract_normalized_sentences_static`: the output's sentences with their counts.
pub fn output_sentences(md: &str, include_table_cells: bool) -> Bag {
    let s = strip_fenced_code_blocks(md);
    let s = strip_and_replace_latex(&s);
    let s = MARKDOWN_IMAGE.replace_all(&s, " ").into_owned();
    let s = if include_table_cells { augment_with_cells(&s) } else { strip_html_tables(&s) };
    let s = MULTI_DOT.replace_all(&s, " ");
    let mut bag = Bag::new();
    for chunk in merge_short(split_sentences(&s)) {
        let n = normalize_sentence(&chunk);
        if !n.is_empty() {
            bag_add(&mut bag, n, 1);
        }
    }
    bag
}

fn is_cjk(c: char) -> bool {
    matches!(c,
        '\u{4e00}'..='\u{9fff}' | '\u{3400}'..='\u{4dbf}' | '\u{f900}'..='\u{faff}'
        | '\u{3040}'..='\u{309f}' | '\u{30a0}'..='\u{30ff}' | '\u{ac00}'..='\u{d7af}')
}

/// `_tokenize_unicode_words`: runs of word characters of at least `min` characters; in a run
/// with CJK characters, CJK and other stretches are separate tokens, CJK ones kept whatever
/// their length.
pub fn tokenize_words(text: &str, min: usize) -> Vec<String> {
    let mut out = Vec::new();
    let chars: Vec<char> = text.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        if !is_word(chars[i]) {
            i += 1;
            continue;
        }
        let start = i;
        while i < chars.len() && is_word(chars[i]) {
            i += 1;
        }
        let token = &chars[start..i];
        if token.iter().any(|&c| is_cjk(c)) {
            let mut buf: Vec<char> = Vec::new();
            let mut in_cjk = false;
            for &ch in token {
                let cjk = is_cjk(ch);
                if cjk != in_cjk && !buf.is_empty() {
                    if in_cjk || buf.len() >= min {
                        out.push(buf.iter().collect());
                    }
                    buf.clear();
                }
                buf.push(ch);
                in_cjk = cjk;
            }
            if !buf.is_empty() && (in_cjk || buf.len() >= min) {
                out.push(buf.iter().collect());
            }
        } else if token.len() >= min {
            out.push(token.iter().collect());
        }
    }
    out
}

/// Normalized text as words are taken from it: entities decoded, autolinks unwrapped, tags as
/// spaces.
fn word_clean(s: &str) -> String {
    let n = normalize_text(s);
    let n = unescape_html_entities(&n);
    let n = strip_autolinks(&n);
    HTML_TAG.replace_all(&n, " ").into_owned()
}

/// `_normalize_word_fragment`: the first word of a key, or empty.
pub fn normalize_word(text: &str) -> String {
    let n = word_clean(text);
    let n = LEADING_MARKDOWN.replace_all(&n, "");
    tokenize_words(py_strip(&n), MIN_WORD_LENGTH).into_iter().next().unwrap_or_default()
}

/// `_normalize_full_word_text`.
pub fn word_full_text(md: &str) -> String {
    let s = strip_fenced_code_blocks(md);
    let s = strip_and_replace_latex(&s);
    word_clean(&augment_with_cells(&s))
}

/// `_extract_normalized_words_static`: the output's words with their counts.
pub fn output_words(md: &str, include_table_cells: bool) -> Bag {
    let s = strip_fenced_code_blocks(md);
    let s = strip_and_replace_latex(&s);
    let s = if include_table_cells { augment_with_cells(&s) } else { strip_html_tables(&s) };
    let mut bag = Bag::new();
    for w in tokenize_words(&word_clean(&s), MIN_WORD_LENGTH) {
        bag_add(&mut bag, w, 1);
    }
    bag
}

/// `_word_boundary_count`: raw occurrences for CJK words, word-edged ones otherwise.
pub fn count_word(word: &str, full: &str) -> usize {
    if word.chars().any(is_cjk) {
        full.matches(word).count()
    } else {
        count_bounded(word, full)
    }
}

/// Which comparison a bag rule makes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BagCheck {
    /// Required occurrences missing.
    Missing,
    /// Output items not in the bag.
    Unexpected,
    /// Items found more often than allowed.
    TooMany,
}

/// Sentences or words.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unit {
    /// `bag_of_sentence`.
    Sentence,
    /// `bag_of_word`.
    Word,
}

/// A bag rule: `{missing,unexpected,too_many}_{sentence,word}[_percent]`.
#[derive(Debug, Clone, PartialEq)]
pub struct BagRule {
    /// What it checks.
    pub check: BagCheck,
    /// Sentences or words.
    pub unit: Unit,
    /// The graduated (`_percent`) form.
    pub percent: bool,
    /// The bag as written: (key, count).
    pub bag: Vec<(String, i64)>,
    /// `unexpected_sentence_percent`: the truth's Markdown, whose text also counts as expected.
    pub original_md: Option<String>,
}

/// A sentence's debug form (ParseBench prints a SHA-1 prefix too; the length is enough here).
fn show_sentence(s: &str) -> String {
    let n = s.chars().count();
    let compact = if n <= 96 {
        s.to_string()
    } else {
        let a: String = s.chars().take(48).collect();
        let b: String = s.chars().skip(n - 48).collect();
        format!("{a}…{b}")
    };
    format!("'{compact}' [len={n}]")
}

impl BagRule {
    /// The bag's keys normalized, counts summed, empty keys dropped; an error for a bag that
    /// is empty as written, has a negative count, or (words) nothing left.
    fn normalized_bag(&self) -> Result<Bag, String> {
        let name = match self.unit {
            Unit::Sentence => "bag_of_sentence",
            Unit::Word => "bag_of_word",
        };
        if self.bag.is_empty() {
            return Err(format!("{name} must be a non-empty dictionary"));
        }
        let mut out = Bag::new();
        for (k, n) in &self.bag {
            if py_strip(k).is_empty() {
                return Err(format!("{name} keys must be non-empty strings"));
            }
            if *n < 0 {
                return Err(format!("{name} values cannot be negative"));
            }
            let key = match self.unit {
                Unit::Sentence => normalize_sentence(k),
                Unit::Word => normalize_word(k),
            };
            if !key.is_empty() {
                bag_add(&mut out, key, *n);
            }
        }
        if out.is_empty() && self.unit == Unit::Word {
            return Err(format!(
                "bag_of_word has no valid word after normalization (words must be >= {MIN_WORD_LENGTH} characters)"
            ));
        }
        Ok(out)
    }

    fn show(&self, s: &str) -> String {
        match self.unit {
            Unit::Sentence => show_sentence(s),
            Unit::Word => format!("'{s}'"),
        }
    }

    /// Runs the rule on the output's Markdown.
    pub fn run(&self, md: &str) -> Outcome {
        let bag = match self.normalized_bag() {
            Ok(b) => b,
            Err(e) => return Outcome::error(e),
        };
        let cells = self.check == BagCheck::Missing;
        let actual = match self.unit {
            Unit::Sentence => output_sentences(md, cells),
            Unit::Word => output_words(md, cells),
        };
        let full = || match self.unit {
            Unit::Sentence => sentence_full_text(md),
            Unit::Word => word_full_text(md),
        };
        let count = |k: &str, full: &str| match self.unit {
            Unit::Sentence => count_sentence(k, full),
            Unit::Word => count_word(k, full),
        } as i64;
        match self.check {
            BagCheck::Missing => {
                let full = full();
                let total: i64 = bag.iter().map(|(_, n)| n).sum();
                let (mut matched, mut missing) = (0, Vec::new());
                for (k, req) in &bag {
                    let sub = count(k, &full);
                    // The sentence percent form counts substrings only.
                    let found = if self.percent && self.unit == Unit::Sentence {
                        sub
                    } else {
                        sub.max(bag_get(&actual, k))
                    };
                    matched += found.min(*req);
                    if found < *req {
                        missing.push((k.clone(), req - found, found, *req));
                    }
                }
                let score =
                    if total == 0 { 1.0 } else { (matched as f64 / total as f64).clamp(0.0, 1.0) };
                missing.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
                let list = |n: usize| {
                    missing
                        .iter()
                        .take(n)
                        .map(|(k, _, f, r)| format!("{} ({f}<{r})", self.show(k)))
                        .collect::<Vec<_>>()
                        .join("; ")
                };
                self.finish(missing.is_empty(), score, "missing", list)
            }
            BagCheck::Unexpected => {
                let joined = bag.iter().map(|(k, _)| k.as_str()).collect::<Vec<_>>().join(" ");
                let original = match (&self.original_md, self.unit, self.percent) {
                    (Some(o), Unit::Sentence, true) => Some(sentence_full_text(o)),
                    _ => None,
                };
                let expected = |s: &str| match self.unit {
                    Unit::Sentence => {
                        bag.iter().any(|(k, _)| k == s)
                            || joined.contains(s)
                            || original.as_deref().is_some_and(|o| o.contains(s))
                    }
                    Unit::Word => bag.iter().any(|(k, _)| k == s),
                };
                let total: i64 = actual.iter().map(|(_, n)| n).sum();
                if total == 0 {
                    return Outcome::scored(true, 1.0, String::new());
                }
                let hits: i64 = actual.iter().filter(|(s, _)| expected(s)).map(|(_, n)| n).sum();
                let score = (hits as f64 / total as f64).clamp(0.0, 1.0);
                let mut unexpected: Vec<(String, i64)> =
                    actual.iter().filter(|(s, _)| !expected(s)).cloned().collect();
                unexpected.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
                let list = |n: usize| {
                    unexpected
                        .iter()
                        .take(n)
                        .map(|(s, c)| format!("{} ({c}x)", self.show(s)))
                        .collect::<Vec<_>>()
                        .join("; ")
                };
                self.finish(unexpected.is_empty(), score, "unexpected", list)
            }
            BagCheck::TooMany => {
                let full = full();
                let (mut excess_sum, mut denom) = (0i64, 0i64);
                let mut over = Vec::new();
                for (k, allowed) in &bag {
                    let found = count(k, &full).max(bag_get(&actual, k));
                    let excess = (found - allowed).max(0);
                    excess_sum += excess;
                    denom += found.max(*allowed);
                    if excess > 0 {
                        over.push((k.clone(), excess, found, *allowed));
                    }
                }
                let score = if denom == 0 {
                    1.0
                } else {
                    (1.0 - excess_sum as f64 / denom as f64).clamp(0.0, 1.0)
                };
                over.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
                let list = |n: usize| {
                    over.iter()
                        .take(n)
                        .map(|(k, _, f, a)| format!("{} ({f}>{a})", self.show(k)))
                        .collect::<Vec<_>>()
                        .join("; ")
                };
                self.finish(over.is_empty(), score, "over-limit", list)
            }
        }
    }

    /// The outcome: the binary forms pass or fail (score 1 or 0), the percent forms keep
    /// their score and fail whenever one item is off.
    fn finish(&self, ok: bool, score: f64, what: &str, list: impl Fn(usize) -> String) -> Outcome {
        if ok {
            return Outcome::scored(true, if self.percent { score } else { 1.0 }, String::new());
        }
        if self.percent {
            Outcome::scored(false, score, format!("score={score:.3}; {what}: {}", list(5)))
        } else {
            Outcome::scored(false, 0.0, format!("{what}: {}", list(usize::MAX)))
        }
    }
}

/// `missing_specific_sentence`.
pub fn missing_specific_sentence(sentence: &str, md: &str) -> Outcome {
    if py_strip(sentence).is_empty() {
        return Outcome::error("sentence must be a non-empty string");
    }
    let n = normalize_sentence(sentence);
    if n.is_empty() {
        return Outcome::error(format!(
            "sentence is too short or empty after normalization: {sentence:?}"
        ));
    }
    let full = sentence_full_text(md);
    if full.contains(&n) {
        Outcome::pass()
    } else {
        Outcome::fail(format!("Missing specific sentence: {}", show_sentence(&n)))
            .with_best(&n, &full)
    }
}

/// `missing_specific_word`; `normalized` is [`normalize_text`] of the output.
pub fn missing_specific_word(word: &str, md: &str, normalized: &str) -> Outcome {
    if py_strip(word).is_empty() {
        return Outcome::error("word must be a non-empty string");
    }
    let cleaned = word_clean(word);
    let cleaned = LEADING_MARKDOWN.replace_all(&cleaned, "");
    let frags = tokenize_words(py_strip(&cleaned), 1);
    // Python's max(key=len) keeps the first of equal lengths.
    fn longest(v: &[String]) -> Option<&String> {
        v.iter().fold(None::<&String>, |b, f| match b {
            Some(b) if b.chars().count() >= f.chars().count() => Some(b),
            _ => Some(f),
        })
    }
    let valid: Vec<String> =
        frags.iter().filter(|f| f.chars().count() >= MIN_WORD_LENGTH).cloned().collect();
    let target = if let Some(w) = longest(&valid) {
        w.clone()
    } else if !frags.is_empty() {
        let joined: String = frags.concat();
        if joined.chars().count() >= MIN_WORD_LENGTH {
            joined
        } else {
            longest(&frags).cloned().unwrap_or_default()
        }
    } else {
        return Outcome::error(format!("word is empty after normalization: {word:?}"));
    };
    if bag_get(&output_words(md, true), &target) > 0 {
        return Outcome::pass();
    }
    let stripped: String = normalized.chars().filter(|&c| c != '\'' && c != '\u{2019}').collect();
    if count_bounded(&target, &stripped) > 0 {
        return Outcome::pass();
    }
    Outcome::fail(format!("Missing specific word: '{target}'"))
}

/// `extra_content`.
pub fn extra_content(bag: &[(String, i64)], md: &str) -> Outcome {
    let rule = BagRule {
        check: BagCheck::Unexpected,
        unit: Unit::Sentence,
        percent: false,
        bag: bag.to_vec(),
        original_md: None,
    };
    let keys = match rule.normalized_bag() {
        Ok(b) => b,
        Err(e) => return Outcome::error(e),
    };
    let joined = keys.iter().map(|(k, _)| k.as_str()).collect::<Vec<_>>().join(" ");
    let mut extras: Vec<(String, i64)> = Vec::new();
    for (s, n) in output_sentences(md, false) {
        let exact = bag_get(&keys, &s);
        let allowed = if exact > 0 {
            exact
        } else if joined.contains(&s) {
            1
        } else {
            0
        };
        if n > allowed {
            extras.push((s, n - allowed));
        }
    }
    if extras.is_empty() {
        return Outcome::pass();
    }
    extras.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    let list: Vec<String> =
        extras.iter().take(5).map(|(s, n)| format!("{} (+{n})", show_sentence(s))).collect();
    Outcome::fail(format!("Found extra content sentences: {}", list.join("; ")))
}

/// `bag_of_digit_percent`: `bag` maps digit characters to counts.
pub fn bag_of_digit_percent(bag: &BTreeMap<String, i64>, md: &str) -> Outcome {
    if bag.is_empty() {
        return Outcome::error("bag_of_digit must be a non-empty dictionary");
    }
    let mut want: BTreeMap<char, i64> = BTreeMap::new();
    for (k, n) in bag {
        let mut cs = k.chars();
        let (Some(d), None) = (cs.next(), cs.next()) else {
            return Outcome::error(format!(
                "bag_of_digit keys must be single digit characters (0-9), got: {k:?}"
            ));
        };
        if !d.is_ascii_digit() {
            return Outcome::error(format!(
                "bag_of_digit keys must be single digit characters (0-9), got: {k:?}"
            ));
        }
        if *n < 0 {
            return Outcome::error("bag_of_digit values cannot be negative");
        }
        *want.entry(d).or_default() += n;
    }
    let text = HTML_TAG_ATTRS.replace_all(&augment_with_cells(md), " ").into_owned();
    let total: i64 = want.values().sum();
    if total == 0 {
        return Outcome::scored(true, 1.0, String::new());
    }
    let mut matched = 0;
    let mut missing = Vec::new();
    for (d, n) in &want {
        let found = text.chars().filter(|c| c == d).count() as i64;
        matched += found.min(*n);
        if found < *n {
            missing.push((*d, n - found, found, *n));
        }
    }
    let score = (matched as f64 / total as f64).clamp(0.0, 1.0);
    if missing.is_empty() {
        return Outcome::scored(true, score, String::new());
    }
    missing.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    let list: Vec<String> =
        missing.iter().take(5).map(|(d, _, f, n)| format!("'{d}' ({f}<{n})")).collect();
    Outcome::scored(
        false,
        score,
        format!("Bag of digit percent score={score:.3}; missing: {}", list.join("; ")),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rule(check: BagCheck, unit: Unit, percent: bool, bag: &[(&str, i64)]) -> BagRule {
        BagRule {
            check,
            unit,
            percent,
            bag: bag.iter().map(|(k, n)| (k.to_string(), *n)).collect(),
            original_md: None,
        }
    }

    const MD: &str =
        "# Annual report\n\nRevenue grew strongly this year. Costs fell by 3.5 percent!\n\n\
                      | Item | Value |\n|---|---|\n| Revenue | 120 |\n";

    #[test]
    fn sentences_split_on_periods_not_decimals_and_merge_short_chunks() {
        let s = output_sentences(MD, false);
        let keys: Vec<&str> = s.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(
            keys,
            [
                "annual report",
                "revenue grew strongly this year",
                "costs fell by 3.5 percent",
                "item | value",
                "revenue | 120"
            ]
        );
    }

    #[test]
    fn missing_sentences_are_found_as_substrings_and_in_cells() {
        let r = rule(
            BagCheck::Missing,
            Unit::Sentence,
            true,
            &[("Revenue grew strongly this year.", 1), ("Profits doubled in spring.", 1)],
        );
        let o = r.run(MD);
        assert!(!o.passed);
        assert_eq!(o.score, 0.5);
        let w = rule(BagCheck::Missing, Unit::Word, false, &[("Revenue", 2), ("costs", 1)]);
        assert!(w.run(MD).passed, "{:?}", w.run(MD));
        let w3 = rule(BagCheck::Missing, Unit::Word, false, &[("Revenue", 5)]);
        assert!(!w3.run(MD).passed);
    }

    #[test]
    fn unexpected_and_too_many_words() {
        let u = rule(
            BagCheck::Unexpected,
            Unit::Word,
            true,
            &[("annual", 1), ("report", 1), ("revenue", 1), ("grew", 1)],
        );
        let o = u.run("Annual report. Revenue grew. Extra words");
        assert!(!o.passed);
        assert!((o.score - 4.0 / 6.0).abs() < 1e-12, "{o:?}");
        let t = rule(BagCheck::TooMany, Unit::Word, true, &[("alpha", 1)]);
        let o = t.run("alpha alpha alpha");
        assert!((o.score - (1.0 - 2.0 / 3.0)).abs() < 1e-12);
    }

    #[test]
    fn specific_words_digits_and_extra_content() {
        let md = "We can't stop. Item 42 costs 7.";
        assert!(missing_specific_word("can't", md, &normalize_text(md)).passed);
        assert!(missing_specific_word("costs", md, &normalize_text(md)).passed);
        assert!(!missing_specific_word("price", md, &normalize_text(md)).passed);
        assert!(missing_specific_sentence("Item 42 costs 7", md).passed);
        let digits: BTreeMap<String, i64> =
            [("4".to_string(), 1), ("2".to_string(), 1), ("9".to_string(), 2)].into();
        assert_eq!(bag_of_digit_percent(&digits, md).score, 0.5);
        let bag = vec![("We can't stop".to_string(), 1)];
        assert!(!extra_content(&bag, md).passed);
    }
}
