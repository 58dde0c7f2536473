//! The state of the checkbox next to a label (`_find_checkbox_state_for_label`): task-list
//! lines (`- [x] Label`), label-first bullets (`- Label [x]`), bare `[x] Label` lines and the
//! glyph or bracket groups of any line (`☐ Single ☑ Married`, `Single ☐ Married ☑`).

use std::sync::LazyLock;

use regex::Regex;

use super::super::normalize::py_strip;
use super::pairs::MARKER;
use super::{label_match_score, py_re};

const CHECKED: &str = "☑☒▣✓✔◉●⦿⊠⊗";

static TASKLIST: LazyLock<Regex> =
    LazyLock::new(|| py_re(r"(?m)^\s*\\?(?:[-*+]|\d+\.)\s*\\?\[([ xX])\\?\]\s*(.+?)\s*$"));
static LABEL_FIRST: LazyLock<Regex> =
    LazyLock::new(|| py_re(r"(?m)^\s*\\?(?:[-*+]|\d+\.)\s+(.+?)\s+\\?\[([ xX])\\?\]\s*$"));
static BARE: LazyLock<Regex> =
    LazyLock::new(|| py_re(r"(?m)^\s*\\?\[([ xX])\\?\]\s*([^\[\n]+?)\s*$"));

/// `_marker_is_checked`.
fn checked(token: &str) -> bool {
    let mut cs = token.chars();
    match (cs.next(), cs.next()) {
        (Some(c), None) => CHECKED.contains(c),
        _ => token.contains(['x', 'X']),
    }
}

/// `_tokenize_checkbox_line`: every marker of the line with its label (after the marker when
/// the line starts with one, else before it).
pub(super) fn tokenize_line(line: &str) -> Vec<(String, bool)> {
    let ms: Vec<regex::Match<'_>> = MARKER.find_iter(line).collect();
    let Some(first) = ms.first() else { return Vec::new() };
    let mut out = Vec::new();
    if py_strip(&line[..first.start()]).is_empty() {
        for (i, m) in ms.iter().enumerate() {
            let end = ms.get(i + 1).map_or(line.len(), |n| n.start());
            let l = py_strip(&line[m.end()..end]);
            if !l.is_empty() {
                out.push((l.to_string(), checked(m.as_str())));
            }
        }
    } else {
        let mut prev = 0;
        for m in &ms {
            let l = py_strip(&line[prev..m.start()]);
            prev = m.end();
            if !l.is_empty() {
                out.push((l.to_string(), checked(m.as_str())));
            }
        }
    }
    out
}

/// `_find_checkbox_state_for_label`: the state of the best-matching checkbox label, `None`
/// when no checkbox label matches.
pub(super) fn state_for_label(md: &str, label: &str) -> Option<bool> {
    // (score, priority, index, state)
    let mut cands: Vec<(f64, i32, usize, bool)> = Vec::new();
    let mut add = |l: &str, state: bool, prio: i32, idx: usize| {
        let s = label_match_score(l, label);
        if s > 0.0 {
            cands.push((s, prio, idx, state));
        }
    };
    let is_x = |s: &str| s.trim().eq_ignore_ascii_case("x");
    for (i, m) in TASKLIST.captures_iter(md).enumerate() {
        add(py_strip(&m[2]), is_x(&m[1]), 4, i);
    }
    for (i, m) in LABEL_FIRST.captures_iter(md).enumerate() {
        add(py_strip(&m[1]), is_x(&m[2]), 3, i);
    }
    for (i, m) in BARE.captures_iter(md).enumerate() {
        add(py_strip(&m[2]), is_x(&m[1]), 2, i);
    }
    let mut idx = 0;
    for line in super::super::format::splitlines(md) {
        if !MARKER.is_match(line) {
            continue;
        }
        for (l, state) in tokenize_line(line) {
            add(&l, state, 1, idx);
            idx += 1;
        }
    }
    cands.sort_by(|a, b| {
        b.0.total_cmp(&a.0).then(b.1.cmp(&a.1)).then(a.2.cmp(&b.2)).then(a.3.cmp(&b.3))
    });
    cands.first().map(|c| c.3)
}
