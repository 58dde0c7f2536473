//! The label/value pairs of the Markdown's text (`**Label:** value`, `Label: value`,
//! `Label <u>value</u>`, `Label ____`) and the label-on-its-own-line fallback.

use std::sync::LazyLock;

use regex::Regex;

use super::super::normalize::{is_py_space, normalize_text, py_strip};
use super::{clen, py_re, strip_chars, STRICT};

static HTML_TAG: LazyLock<Regex> =
    LazyLock::new(|| py_re(r"<\s*/?\s*[a-zA-Z][a-zA-Z0-9]*(?:\s[^<>]*)?\s*/?\s*>"));
static TAG_PREFIX: LazyLock<Regex> = LazyLock::new(|| py_re(r"^\s*\[[^\]\n]+\]\s+"));
static PIPE_SPLIT: LazyLock<Regex> = LazyLock::new(|| py_re(r"\s+\|\s+"));
static SEGMENT: LazyLock<Regex> =
    LazyLock::new(|| py_re(r"^[ \t]*([^:\n*][^:\n]{0,200}?)[ \t]*:[ \t]*(.+?)[ \t]*$"));
pub(super) static MARKER: LazyLock<Regex> =
    LazyLock::new(|| py_re(r"[☑☒▣✓✔◉●⦿⊠⊗☐□○◯⊙]|\\?\[[ xX]\\?\]"));
pub(super) static MARKER_GLYPH: LazyLock<Regex> = LazyLock::new(|| py_re(r"[☑☒▣✓✔◉●⦿⊠⊗☐□○◯⊙]"));
static BULLET: LazyLock<Regex> = LazyLock::new(|| py_re(r"^\\?[-*+]\s+"));
// The evaluator's lookahead `(?=[ \t]*\*\*|$)` is the last group here: the match ends where
// group 2 ends.
static BOLD_COLON: LazyLock<Regex> = LazyLock::new(|| {
    py_re(r"(?m)\*\*[ \t]*([^*\n]+?)[ \t]*\*\*[ \t]*:?[ \t]*([^\n*]*?)(?:[ \t]*\*\*|$)")
});
// Python's IGNORECASE also matches `ı` and `İ` for `i`.
static BOLD_CONNECTOR: LazyLock<Regex> = LazyLock::new(|| {
    py_re(
        r"(?mi)\A[ \t]*\*\*[ \t]*(to|and|or|&|thru|through|unt[iıİ]l)[ \t]*\*\*[ \t]*:?[ \t]*([^\n*]*?)(?:[ \t]*\*\*|$)",
    )
});
static PLAIN_COLON: LazyLock<Regex> =
    LazyLock::new(|| py_re(r"(?m)^[ \t]*([^:\n*][^:\n]{0,200}?)[ \t]*:[ \t]*(.+?)[ \t]*$"));
static UNDERSCORE_BLANK: LazyLock<Regex> =
    LazyLock::new(|| py_re(r"(?m)^\s*([^_\n]+?)\s+_{3,}\s*$"));
static UNDERLINE: LazyLock<Regex> = LazyLock::new(|| py_re(r"<u>([^<\n]+)</u>"));
static LEFT_NOISE: LazyLock<Regex> = LazyLock::new(|| py_re(r"^[\s\\*_#>\-]+"));
static STRIKE: LazyLock<Regex> = LazyLock::new(|| py_re(r"~~[^~\n]+~~"));
static ITALIC_STAR: LazyLock<Regex> = LazyLock::new(|| py_re(r"^\s*\*\s*(\S.*?\S)\s*\*[\s)\\]*\z"));
static ITALIC_UNDERSCORE: LazyLock<Regex> =
    LazyLock::new(|| py_re(r"^\s*_\s*(\S.*?\S)\s*_[\s)\\]*\z"));
static TRAIL_PAREN: LazyLock<Regex> = LazyLock::new(|| py_re(r"\s*[)\\]+\s*\z"));

/// `_strip_html_tags`.
pub(super) fn strip_html_tags(s: &str) -> String {
    HTML_TAG.replace_all(s, "").into_owned()
}

/// A label with its HTML tags and a leading `[tag]` dropped.
fn clean_label(s: &str) -> String {
    let s = strip_html_tags(s);
    let s = py_strip(&s);
    py_strip(&TAG_PREFIX.replace(s, "")).to_string()
}

/// `_strip_strikethrough_spans`.
pub(super) fn strip_strikethrough(s: &str) -> String {
    py_strip(&STRIKE.replace_all(s, "")).to_string()
}

/// `_trim_value_at_next_field`: cut at ` | ` when what follows holds a colon.
fn trim_at_next_field(v: &str) -> String {
    let parts: Vec<&str> = PIPE_SPLIT.splitn(v, 2).collect();
    if parts.len() == 2 && parts[1].contains(':') {
        return py_strip(parts[0]).to_string();
    }
    v.to_string()
}

/// `_split_pipe_concatenated_pairs`: the `Label: value` segments of a ` | `-joined value.
fn pipe_pairs(v: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    if !v.contains(" | ") {
        return out;
    }
    for seg in PIPE_SPLIT.split(v) {
        if !seg.contains(':') {
            continue;
        }
        let Some(m) = SEGMENT.captures(seg) else { continue };
        let label = clean_label(py_strip(&m[1]));
        let value = py_strip(&strip_html_tags(py_strip(&m[2]))).to_string();
        if !label.is_empty() {
            out.push((label, value));
        }
    }
    out
}

/// `_AGGREGATE_BULLET_RE` (`^\\?[-*+]\s+(?!\\?\[)`) matches `s`.
fn aggregate_bullet(s: &str) -> bool {
    let rest = s.strip_prefix('\\').filter(|r| r.starts_with(['-', '*', '+'])).unwrap_or(s);
    let Some(rest) = rest.strip_prefix(['-', '*', '+']) else { return false };
    let n = rest.chars().take_while(|c| is_py_space(*c)).count();
    if n == 0 {
        return false;
    }
    // With more than one space the pattern backtracks to a shorter run, which the lookahead
    // accepts.
    let after = rest.trim_start_matches(is_py_space);
    n >= 2 || !(after.starts_with('[') || after.starts_with("\\["))
}

/// `_aggregate_following_lines`: two or more plain bullet lines after the header, joined.
fn aggregate_following_lines(md: &str, after: usize) -> String {
    let tail = &md[after..];
    let lines = super::super::format::splitlines(tail);
    let start = usize::from(!lines.is_empty());
    let mut got = Vec::new();
    for raw in lines.iter().skip(start).take(8) {
        let s = py_strip(raw);
        if s.is_empty() || s.starts_with(['#', '>', '|', '<']) {
            break;
        }
        if s.contains("**") && s.contains(':') {
            break;
        }
        if !aggregate_bullet(s) || MARKER.is_match(s) {
            return String::new();
        }
        let c = BULLET.replace(s, "");
        let c = strip_html_tags(py_strip(&c));
        let c = py_strip(&c);
        if !c.is_empty() {
            got.push(c.to_string());
        }
    }
    if got.len() < 2 {
        return String::new();
    }
    got.join(", ")
}

/// `_extend_value_across_bold_connectors`.
fn extend_across_connectors(md: &str, end: usize, base: String) -> String {
    if base.is_empty() {
        return base;
    }
    let (mut cursor, mut joined) = (end, base);
    while let Some(m) = BOLD_CONNECTOR.captures(&md[cursor..]) {
        let extra = py_strip(&m[2]);
        joined = py_strip(&format!("{joined} {} {extra}", &m[1])).to_string();
        cursor += m.get(2).map_or(0, |g| g.end());
    }
    joined
}

/// `_iter_bold_colon_pairs`.
pub(super) fn bold_colon_pairs(md: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut pos = 0;
    while pos <= md.len() {
        let Some(m) = BOLD_COLON.captures_at(md, pos) else { break };
        let g2 = m.get(2).expect("group 2");
        let end = g2.end();
        let label = py_strip(strip_chars(&m[1], ": ")).to_string();
        let raw = py_strip(g2.as_str());
        let raw = py_strip(raw.trim_end_matches('\\')).to_string();
        let raw = extend_across_connectors(md, end, raw);
        let label = clean_label(&label);
        let value = py_strip(&strip_html_tags(&raw)).to_string();
        let mut value = trim_at_next_field(&value);
        if value.is_empty() {
            value = aggregate_following_lines(md, end);
        }
        if !label.is_empty() {
            out.push((label, value));
        }
        out.extend(pipe_pairs(&raw));
        pos = end;
    }
    out
}

/// `_iter_plain_colon_pairs`.
pub(super) fn plain_colon_pairs(md: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for m in PLAIN_COLON.captures_iter(md) {
        let mut label = py_strip(&m[1]).to_string();
        let raw = py_strip(&m[2]);
        if cell_tag_count(&m[0]) > 1 {
            continue;
        }
        if label.starts_with(['#', '`', '>']) || label.contains("**") {
            continue;
        }
        if label.starts_with("\\-") || label.starts_with(['-', '*', '+']) {
            let stripped = py_strip(&BULLET.replace(&label, "")).to_string();
            if stripped.starts_with("\\[") || stripped.starts_with('[') || stripped.is_empty() {
                continue;
            }
            label = stripped;
        }
        let label = clean_label(&label);
        let value = trim_at_next_field(py_strip(&strip_html_tags(raw)));
        if !label.is_empty() {
            out.push((label, value));
        }
        out.extend(pipe_pairs(raw));
    }
    out
}

/// `len(re.findall(r"<t[hd]\b", line))`.
fn cell_tag_count(line: &str) -> usize {
    let mut n = 0;
    for (i, _) in line.match_indices("<t") {
        let rest = &line[i + 2..];
        let mut cs = rest.chars();
        if matches!(cs.next(), Some('h' | 'd'))
            && !cs.next().is_some_and(super::super::normalize::is_word)
        {
            n += 1;
        }
    }
    n
}

/// `_iter_underline_fill_pairs`: the (up to 6) words before each `<u>value</u>`.
pub(super) fn underline_fill_pairs(md: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for m in UNDERLINE.captures_iter(md) {
        let value = py_strip(&m[1]);
        if value.is_empty() {
            continue;
        }
        let start = m.get(0).expect("match").start();
        let n_before = md[..start].chars().count();
        let from =
            md[..start].char_indices().nth(n_before.saturating_sub(100)).map_or(start, |(i, _)| i);
        let before = &md[from..start];
        let cut = before.rfind(['.', ',', ';', ':', '(', ')', '\n', '>']).map_or(0, |i| i + 1);
        let chunk = LEFT_NOISE.replace(&before[cut..], "");
        let chunk = TAG_PREFIX.replace(&chunk, "");
        let chunk = strip_html_tags(&chunk);
        let chunk = py_strip(strip_chars(py_strip(&chunk), "*_ \t"));
        if chunk.is_empty() {
            continue;
        }
        let words: Vec<&str> = chunk.split(is_py_space).filter(|w| !w.is_empty()).collect();
        if words.is_empty() {
            continue;
        }
        let label = words[words.len().saturating_sub(6)..].join(" ");
        out.push((label, value.to_string()));
    }
    out
}

/// `_iter_underscore_blank_pairs`: the labels of `Label ____` blanks.
pub(super) fn underscore_blank_labels(md: &str) -> Vec<String> {
    let mut out = Vec::new();
    for m in UNDERSCORE_BLANK.captures_iter(md) {
        let l = py_strip(&m[1]);
        if l.is_empty() || l.starts_with(['#', '-', '*', '`', '>', '|']) {
            continue;
        }
        if l.contains("**") || l.contains(':') {
            continue;
        }
        out.push(l.to_string());
    }
    out
}

/// A line's text without a trailing `)`/`\\`, a leading bullet and `*`/`_` around it
/// (`bullet_first`: the bullet is dropped before the trailing marks, as for a value line).
fn bare_line(s: &str, bullet_first: bool) -> String {
    let v = if bullet_first {
        let v = BULLET.replace(s, "");
        py_strip(&TRAIL_PAREN.replace(py_strip(&v), "")).to_string()
    } else {
        let v = TRAIL_PAREN.replace(s, "");
        py_strip(&BULLET.replace(&v, "")).to_string()
    };
    py_strip(strip_chars(&v, "*_ \t")).to_string()
}

/// `_find_text_value_adjacent_line`: a short line that is the label (strict ratio), its value
/// the nearest non-blank line below (above first for an italic caption) within 3 lines.
pub(super) fn adjacent_line_value(md: &str, label: &str) -> Option<String> {
    let lines = super::super::format::splitlines(md);
    let lbl = normalize_text(label);
    if lbl.is_empty() {
        return None;
    }
    for (i, raw) in lines.iter().enumerate() {
        let s = py_strip(raw);
        if s.is_empty() || clen(s) > 100 || s.starts_with(['#', '>', '|', '<', '`']) {
            continue;
        }
        if s.contains("**") || s.contains(':') {
            continue;
        }
        let italic = match s.chars().next() {
            Some('*') => ITALIC_STAR.captures(raw),
            Some('_') => ITALIC_UNDERSCORE.captures(raw),
            _ => None,
        };
        let cleaned = match &italic {
            Some(m) => py_strip(&m[1]).to_string(),
            None => bare_line(s, false),
        };
        if cleaned.is_empty() || clen(&cleaned) > 80 {
            continue;
        }
        let cand = normalize_text(&cleaned);
        if cand.is_empty() || crate::metrics::fuzz::ratio(&cand, &lbl) / 100.0 < STRICT {
            continue;
        }
        let above: Vec<usize> = (i.saturating_sub(3)..i).rev().collect();
        let below: Vec<usize> = (i + 1..(i + 4).min(lines.len())).collect();
        let orders = if italic.is_some() { [above, below] } else { [below, above] };
        for order in orders {
            for j in order {
                let c = py_strip(lines[j]);
                if c.is_empty() {
                    continue;
                }
                if c.starts_with(['#', '|', '>']) || (c.contains("**") && c.contains(':')) {
                    break;
                }
                let v = bare_line(c, true);
                if !v.is_empty() {
                    return Some(v);
                }
            }
        }
        return Some(String::new());
    }
    None
}
