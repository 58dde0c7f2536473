//! The truth audit's pure scoring (`docs/audit.md`): on one truth element, read as tokens by
//! the truth and by several providers, the edit that the providers agree on and the truth
//! does not, and how strongly they agree.
//!
//! - [`edits`]: a provider's reading against the truth as a token-level Levenshtein alignment,
//!   its non-matching operations grouped into runs: truth tokens `start..end` replaced by
//!   `with` (an insertion has `start == end`, a deletion an empty `with`).
//! - [`agreement`]: how alike two edits are, `1 − lev(sig a, sig b) / max(|sig a|, |sig b|)`
//!   over their signatures (the truth tokens removed, each as `-t`, then the tokens put in,
//!   each as `+t`), 0 when their truth spans neither overlap nor touch.
//! - [`judge`]: every edit any provider makes is a candidate; a provider's agreement with a
//!   candidate is the best [`agreement`] of its own edits with it; the candidate with the
//!   largest sum of agreements is the consensus edit. A provider *supports* it when its
//!   agreement is at least ½ (its edit is more alike than not); a finding needs two
//!   supporters. `support` = the sum of all providers' agreements / the providers that read
//!   the element; `coherence` = the supporters' mean pairwise token similarity over the whole
//!   element (supporters that read the element alike outside the edit are a stronger witness);
//!   `score = support × coherence`, in [0, 1].
//!
//! - [`evidence`]: what the consensus edit says about the page: `content` (the readers put in
//!   content the truth lacks or has otherwise), `omission` (they only lack some of the truth's
//!   characters) or `form` (no content differs: the same characters cut into other words, or
//!   the same words in another order). Findings are ranked by it first, then by score.
//!
//! Tokenizers: [`text_tokens`] (runs of letters and digits, each CJK character alone),
//! [`latex_tokens`] (commands and single characters, without braces, spacing and font
//! commands).

use std::collections::BTreeSet;

use serde::Serialize;

/// One edit of a reading against the truth: truth tokens `start..end` replaced by `with`.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Edit {
    /// First truth token replaced (or the insertion point).
    pub start: usize,
    /// One past the last truth token replaced (`start` for an insertion).
    pub end: usize,
    /// The tokens the reading has there instead.
    pub with: Vec<String>,
}

/// What [`judge`] finds on one element.
#[derive(Debug, Clone, PartialEq)]
pub struct Verdict {
    /// The consensus edit.
    pub edit: Edit,
    /// Index (into the readings) of each supporting provider, ascending.
    pub supporters: Vec<usize>,
    /// Each reading's agreement with the consensus edit, in reading order.
    pub agreements: Vec<f64>,
    /// Sum of agreements / readings.
    pub support: f64,
    /// Mean pairwise token similarity of the supporters' whole readings.
    pub coherence: f64,
    /// `support × coherence`.
    pub score: f64,
}

/// What a consensus edit says about the page, strongest evidence of a wrong truth first
/// (`docs/audit.md`, "Evidence").
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Evidence {
    /// The readers put in characters the truth lacks or has otherwise (a substitution or an
    /// insertion): content they each saw on the page.
    Content,
    /// The readers' characters there are a subsequence of the truth's: they only lack
    /// something the truth has, which a blind spot they share explains as well as a wrong
    /// truth does.
    Omission,
    /// No content differs: the same characters cut into other words, or the same words in
    /// another order.
    Form,
}

impl Evidence {
    /// The name in the output.
    pub fn as_str(self) -> &'static str {
        match self {
            Evidence::Content => "content",
            Evidence::Omission => "omission",
            Evidence::Form => "form",
        }
    }
}

/// A token's characters as the page shows them whatever their case and compatibility form:
/// NFKC (`ℓ` is `l`, `ϑ` is `θ`, `ﬁ` is `fi`), then lower case.
fn folded(t: &[String]) -> Vec<char> {
    use unicode_normalization::UnicodeNormalization;
    t.iter().flat_map(|s| s.nfkc().flat_map(char::to_lowercase).collect::<Vec<_>>()).collect()
}

/// Classifies an edit that replaces the truth tokens `removed` by `with` ([`Evidence`]).
pub fn evidence(removed: &[String], with: &[String]) -> Evidence {
    let chars = |t: &[String]| -> Vec<char> { t.iter().flat_map(|s| s.chars()).collect() };
    let (r, w) = (chars(removed), chars(with));
    let sorted = |t: &[String]| -> Vec<String> {
        let mut v = t.to_vec();
        v.sort();
        v
    };
    // Only word boundaries, word order, letter case or a compatibility form differ: small
    // capitals and capitalised headings look the same to every reader, and a text layer's
    // `ℓ` or `ϑ` is the `l` or `θ` the truth writes.
    if r == w || sorted(removed) == sorted(with) || folded(removed) == folded(with) {
        return Evidence::Form;
    }
    let mut rest = r.iter();
    if w.iter().all(|c| rest.any(|x| x == c)) {
        return Evidence::Omission;
    }
    Evidence::Content
}

/// [`evidence`] of an edit of `truth` that a supporter reads as `reading`, where the tokens
/// are words (`reading` is `None` for formulas, whose single-character tokens a real
/// substitution shares with the rest of the formula). A substitution (it removes words and
/// puts words in) is `form` when every word it removes or puts in occurs as often in the
/// whole reading as in the whole truth: the words were placed elsewhere, none changed (a
/// header's words read in another order or into the neighbouring cell). A value changed into
/// another that the element also has (`3` for `4`) changes the counts, and stays content; so
/// does a pure insertion (a line the truth dropped may consist of words it has elsewhere).
pub fn evidence_in(truth: &[String], edit: &Edit, reading: Option<&[String]>) -> Evidence {
    let removed = &truth[edit.start..edit.end];
    let base = evidence(removed, &edit.with);
    let Some(reading) = reading else { return base };
    if base != Evidence::Content || edit.with.is_empty() || removed.is_empty() {
        return base;
    }
    let count = |v: &[String], t: &str| v.iter().filter(|x| x.as_str() == t).count();
    if removed.iter().chain(&edit.with).all(|t| count(truth, t) == count(reading, t)) {
        return Evidence::Form;
    }
    base
}

/// The lowest agreement at which a provider supports an edit: more alike than not.
pub const SUPPORTS: f64 = 0.5;

/// Providers needed to call a truth element contradicted.
pub const MIN_SUPPORTERS: usize = 2;

fn is_cjk(c: char) -> bool {
    matches!(c as u32,
        0x3040..=0x30ff | 0x3400..=0x4dbf | 0x4e00..=0x9fff | 0xac00..=0xd7af | 0xf900..=0xfaff)
}

/// Word tokens of a text: maximal runs of letters and digits (CJK characters one each);
/// everything else separates.
pub fn text_tokens(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    for c in s.chars() {
        if is_cjk(c) {
            if !cur.is_empty() {
                out.push(std::mem::take(&mut cur));
            }
            out.push(c.to_string());
        } else if c.is_alphanumeric() {
            cur.push(c);
        } else if !cur.is_empty() {
            out.push(std::mem::take(&mut cur));
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// Commands a LaTeX reading may add or leave out without changing the formula.
const LATEX_DROPPED: [&str; 22] = [
    "\\,",
    "\\;",
    "\\:",
    "\\!",
    "\\ ",
    "\\quad",
    "\\qquad",
    "\\left",
    "\\right",
    "\\mathrm",
    "\\mathbf",
    "\\mathit",
    "\\mathsf",
    "\\mathtt",
    "\\rm",
    "\\bf",
    "\\it",
    "\\text",
    "\\textrm",
    "\\operatorname",
    "\\displaystyle",
    "\\boldsymbol",
];

/// Tokens of a LaTeX formula: `\command`s and single characters, without whitespace, braces,
/// `$` and the spacing and font commands of `LATEX_DROPPED`.
pub fn latex_tokens(s: &str) -> Vec<String> {
    let chars: Vec<char> = s.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c == '\\' && i + 1 < chars.len() {
            let mut j = i + 1;
            if chars[j].is_ascii_alphabetic() {
                while j < chars.len() && chars[j].is_ascii_alphabetic() {
                    j += 1;
                }
            } else {
                j += 1;
            }
            let t: String = chars[i..j].iter().collect();
            if !LATEX_DROPPED.contains(&t.as_str()) {
                out.push(t);
            }
            i = j;
            continue;
        }
        if !(c.is_whitespace() || matches!(c, '{' | '}' | '$')) {
            out.push(c.to_string());
        }
        i += 1;
    }
    out
}

/// Whether `text` is, as a whole, one math span: `$$…$$`, `\\[…\\]`, `\\(…\\)` or `$…$`
/// around a non-empty formula with no other delimiter of its kind inside (so a paragraph with
/// two inline formulas, `$x$ and $y$`, is none). A matcher may take such a reading for text
/// (OmniDocBench's extraction leaves some display formulas in their paragraph), but what it
/// holds is LaTeX, and it compares as LaTeX tokens (`docs/audit.md` §1).
pub fn is_math_span(text: &str) -> bool {
    let t = text.trim();
    for (open, close) in [("$$", "$$"), ("\\[", "\\]"), ("\\(", "\\)"), ("$", "$")] {
        let Some(inner) = t.strip_prefix(open).and_then(|r| r.strip_suffix(close)) else {
            continue;
        };
        return !inner.trim().is_empty() && !inner.contains(open) && !inner.contains(close);
    }
    false
}

/// Token-level Levenshtein distance.
pub fn distance(a: &[String], b: &[String]) -> usize {
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut cur = vec![0; b.len() + 1];
    for (i, x) in a.iter().enumerate() {
        cur[0] = i + 1;
        for (j, y) in b.iter().enumerate() {
            let sub = prev[j] + usize::from(x != y);
            cur[j + 1] = sub.min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    prev[b.len()]
}

/// `1 − distance / longer length` (1 for two empty sequences).
pub fn similarity(a: &[String], b: &[String]) -> f64 {
    let n = a.len().max(b.len());
    if n == 0 {
        return 1.0;
    }
    1.0 - distance(a, b) as f64 / n as f64
}

/// The edits that turn `truth` into `reading`: a token-level Levenshtein alignment (ties
/// prefer a match, then a substitution, then a deletion), its non-matching steps grouped
/// into maximal runs.
pub fn edits(truth: &[String], reading: &[String]) -> Vec<Edit> {
    let (n, m) = (truth.len(), reading.len());
    let w = m + 1;
    let mut d = vec![0u32; (n + 1) * w];
    for i in 0..=n {
        d[i * w] = i as u32;
    }
    for (j, cell) in d.iter_mut().take(m + 1).enumerate() {
        *cell = j as u32;
    }
    for i in 1..=n {
        for j in 1..=m {
            let sub = d[(i - 1) * w + j - 1] + u32::from(truth[i - 1] != reading[j - 1]);
            d[i * w + j] = sub.min(d[(i - 1) * w + j] + 1).min(d[i * w + j - 1] + 1);
        }
    }
    // Walk back; `ops` holds (truth start, truth end, reading token, matched), from the end.
    let (mut i, mut j) = (n, m);
    let mut ops: Vec<(usize, usize, Option<usize>, bool)> = Vec::new(); // (i0, i1, j, matched)
    while i > 0 || j > 0 {
        let here = d[i * w + j];
        if i > 0 && j > 0 && truth[i - 1] == reading[j - 1] && here == d[(i - 1) * w + j - 1] {
            ops.push((i - 1, i, Some(j - 1), true));
            i -= 1;
            j -= 1;
        } else if i > 0 && j > 0 && here == d[(i - 1) * w + j - 1] + 1 {
            ops.push((i - 1, i, Some(j - 1), false));
            i -= 1;
            j -= 1;
        } else if i > 0 && here == d[(i - 1) * w + j] + 1 {
            ops.push((i - 1, i, None, false));
            i -= 1;
        } else {
            ops.push((i, i, Some(j - 1), false));
            j -= 1;
        }
    }
    ops.reverse();
    let mut out: Vec<Edit> = Vec::new();
    let mut open: Option<Edit> = None;
    for (i0, i1, j, matched) in ops {
        if matched {
            if let Some(e) = open.take() {
                out.push(e);
            }
            continue;
        }
        let e = open.get_or_insert(Edit { start: i0, end: i0, with: Vec::new() });
        e.end = e.end.max(i1);
        if let Some(j) = j {
            e.with.push(reading[j].clone());
        }
    }
    out.extend(open);
    out
}

fn signature(truth: &[String], e: &Edit) -> Vec<String> {
    truth[e.start..e.end]
        .iter()
        .map(|t| format!("-{t}"))
        .chain(e.with.iter().map(|t| format!("+{t}")))
        .collect()
}

/// How alike two edits of the same truth are: the similarity of their signatures, 0 when
/// their spans neither overlap nor touch.
pub fn agreement(truth: &[String], a: &Edit, b: &Edit) -> f64 {
    if a.end < b.start || b.end < a.start {
        return 0.0;
    }
    similarity(&signature(truth, a), &signature(truth, b))
}

/// The strongest contradiction of `truth` that at least [`MIN_SUPPORTERS`] of `readings`
/// share, or `None`.
pub fn judge(truth: &[String], readings: &[Vec<String>]) -> Option<Verdict> {
    let per: Vec<Vec<Edit>> = readings.iter().map(|r| edits(truth, r)).collect();
    let candidates: BTreeSet<&Edit> = per.iter().flatten().collect();
    let mut best: Option<(f64, usize, Edit, Vec<f64>)> = None;
    for c in candidates {
        let ag: Vec<f64> = per
            .iter()
            .map(|es| es.iter().map(|e| agreement(truth, e, c)).fold(0.0, f64::max))
            .collect();
        let sum: f64 = ag.iter().sum();
        let size = c.end - c.start + c.with.len();
        let better = match &best {
            None => true,
            Some((s, z, _, _)) => sum > *s + 1e-12 || ((sum - *s).abs() <= 1e-12 && size > *z),
        };
        if better {
            best = Some((sum, size, c.clone(), ag));
        }
    }
    let (sum, _, edit, agreements) = best?;
    let supporters: Vec<usize> =
        (0..readings.len()).filter(|&i| agreements[i] >= SUPPORTS).collect();
    if supporters.len() < MIN_SUPPORTERS {
        return None;
    }
    let mut pair = Vec::new();
    for (k, &a) in supporters.iter().enumerate() {
        for &b in &supporters[k + 1..] {
            pair.push(similarity(&readings[a], &readings[b]));
        }
    }
    let coherence = pair.iter().sum::<f64>() / pair.len() as f64;
    let support = sum / readings.len() as f64;
    Some(Verdict { edit, supporters, agreements, support, coherence, score: support * coherence })
}

/// The contradiction of a reading order that at least [`MIN_SUPPORTERS`] readers share, or
/// `None` (`docs/audit.md`, "Reading order"). `truth` lists the element's blocks in the
/// truth's order; each reading lists the blocks a reader matched, in its order (a block it did
/// not read is absent, which says nothing about the order).
///
/// Every pair of blocks that a reader read both of is a verdict on their order. A pair is
/// *contradicted* when at least two readers put it the other way round and they are at least
/// half of those that read both. A reader's agreement is the share of the contradicted pairs
/// it read that it reverses; it supports at ½. Support is the sum of the agreements over the
/// readers that read at least one contradicted pair (a reader that read none says nothing
/// about them); coherence is as in [`judge`], the share of the pairs two supporters both read
/// that they order alike. The edit spans the truth from the first to the last block of a
/// contradicted pair and puts in the blocks of that span in the order of the supporter that
/// orders the page most like the others.
pub fn judge_order(truth: &[String], readings: &[Vec<String>]) -> Option<Verdict> {
    let pos: std::collections::HashMap<&str, usize> =
        truth.iter().enumerate().rev().map(|(i, t)| (t.as_str(), i)).collect();
    // Per reader: truth position -> its place in the reading.
    let ranks: Vec<std::collections::HashMap<usize, usize>> = readings
        .iter()
        .map(|r| {
            let mut m = std::collections::HashMap::new();
            for t in r {
                if let Some(&p) = pos.get(t.as_str()) {
                    let k = m.len();
                    m.entry(p).or_insert(k);
                }
            }
            m
        })
        .collect();
    let n = truth.len();
    let mut contradicted: Vec<(usize, usize)> = Vec::new();
    for a in 0..n {
        for b in a + 1..n {
            let (mut read, mut reversed) = (0usize, 0usize);
            for r in &ranks {
                if let (Some(x), Some(y)) = (r.get(&a), r.get(&b)) {
                    read += 1;
                    reversed += usize::from(x > y);
                }
            }
            if reversed >= MIN_SUPPORTERS && reversed as f64 >= SUPPORTS * read as f64 {
                contradicted.push((a, b));
            }
        }
    }
    if contradicted.is_empty() {
        return None;
    }
    // Per reader: (contradicted pairs it read, of them those it reverses).
    let counts: Vec<(usize, usize)> = ranks
        .iter()
        .map(|r| {
            let (mut had, mut rev) = (0usize, 0usize);
            for (a, b) in &contradicted {
                if let (Some(x), Some(y)) = (r.get(a), r.get(b)) {
                    had += 1;
                    rev += usize::from(x > y);
                }
            }
            (had, rev)
        })
        .collect();
    let agreements: Vec<f64> = counts
        .iter()
        .map(|&(had, rev)| if had == 0 { 0.0 } else { rev as f64 / had as f64 })
        .collect();
    // A reader that read none of the contradicted pairs says nothing about them.
    let witnesses = counts.iter().filter(|c| c.0 > 0).count();
    let supporters: Vec<usize> =
        (0..readings.len()).filter(|&i| agreements[i] >= SUPPORTS).collect();
    if supporters.len() < MIN_SUPPORTERS {
        return None;
    }
    let alike = |p: &std::collections::HashMap<usize, usize>,
                 q: &std::collections::HashMap<usize, usize>| {
        let common: Vec<usize> = p.keys().filter(|k| q.contains_key(k)).copied().collect();
        let (mut pairs, mut same) = (0usize, 0usize);
        for (i, a) in common.iter().enumerate() {
            for b in &common[i + 1..] {
                pairs += 1;
                same += usize::from((p[a] < p[b]) == (q[a] < q[b]));
            }
        }
        if pairs == 0 {
            0.0
        } else {
            same as f64 / pairs as f64
        }
    };
    let mut pair = Vec::new();
    for (k, &a) in supporters.iter().enumerate() {
        for &b in &supporters[k + 1..] {
            pair.push(alike(&ranks[a], &ranks[b]));
        }
    }
    let coherence = pair.iter().sum::<f64>() / pair.len() as f64;
    let support = agreements.iter().sum::<f64>() / witnesses as f64;
    // The span of the truth from the first to the last block of a contradicted pair.
    let start = contradicted.iter().map(|p| p.0).min()?;
    let end = contradicted.iter().map(|p| p.1).max()? + 1;
    let medoid = *supporters.iter().max_by(|&&a, &&b| {
        let s = |i: usize| -> f64 {
            supporters.iter().filter(|&&j| j != i).map(|&j| alike(&ranks[i], &ranks[j])).sum()
        };
        s(a).total_cmp(&s(b)).then(b.cmp(&a))
    })?;
    let mut span: Vec<(usize, usize)> =
        (start..end).filter_map(|p| ranks[medoid].get(&p).map(|&k| (k, p))).collect();
    span.sort();
    let with = span.into_iter().map(|(_, p)| truth[p].clone()).collect();
    Some(Verdict {
        edit: Edit { start, end, with },
        supporters,
        agreements,
        support,
        coherence,
        score: support * coherence,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(s: &str) -> Vec<String> {
        text_tokens(s)
    }

    #[test]
    fn evidence_tells_content_from_omission_and_form() {
        let v = |x: &[&str]| -> Vec<String> { x.iter().map(|s| s.to_string()).collect() };
        // A misspelt truth word, a changed digit, a line the truth dropped: content.
        assert_eq!(evidence(&v(&["wtih"]), &v(&["with"])), Evidence::Content);
        assert_eq!(evidence(&v(&["2567"]), &v(&["2067"])), Evidence::Content);
        assert_eq!(evidence(&v(&[]), &v(&["are", "presented"])), Evidence::Content);
        // The readers only lack something: a caption row, a Greek letter, a digit.
        assert_eq!(evidence(&v(&["Pearson", "r"]), &v(&[])), Evidence::Omission);
        assert_eq!(evidence(&v(&["ΔM"]), &v(&["M"])), Evidence::Omission);
        assert_eq!(evidence(&v(&["60"]), &v(&["6"])), Evidence::Omission);
        // Word boundaries or word order only: form.
        assert_eq!(evidence(&v(&["ETT"]), &v(&["ET", "T"])), Evidence::Form);
        assert_eq!(
            evidence(&v(&["Speaker", "Across"]), &v(&["Across", "Speaker"])),
            Evidence::Form
        );
        assert!(Evidence::Content < Evidence::Omission && Evidence::Omission < Evidence::Form);
    }

    #[test]
    fn case_and_compatibility_forms_are_form_and_placed_words_too() {
        let v = |x: &[&str]| -> Vec<String> { x.iter().map(|s| s.to_string()).collect() };
        // Small capitals, a capitalised word, the text layer's script l and theta symbol.
        assert_eq!(evidence(&v(&["Cloak"]), &v(&["CLOAK"])), Evidence::Form);
        assert_eq!(evidence(&v(&["poems"]), &v(&["Poems"])), Evidence::Form);
        assert_eq!(evidence(&v(&["ℓf"]), &v(&["lf"])), Evidence::Form);
        assert_eq!(evidence(&v(&["ϑ"]), &v(&["θ"])), Evidence::Form);
        // A swap of two letters is content, whatever the case.
        assert_eq!(evidence(&v(&["wtih"]), &v(&["With"])), Evidence::Content);
        // A substitution of words both have, placed otherwise: form (for words only).
        let truth = t("Hypervolume HV Generational Distance GD Time");
        let moved = Edit { start: 1, end: 3, with: v(&["Generational", "Time", "HV"]) };
        let read = t("Hypervolume Generational Time HV Distance GD");
        assert_eq!(evidence_in(&truth, &moved, Some(&read)), Evidence::Form);
        assert_eq!(evidence_in(&truth, &moved, None), Evidence::Content);
        // A pure insertion stays content, even of words the truth has elsewhere; so does a
        // word the truth lacks, a truth word the readers replace, or a value changed into
        // another the element has too.
        let repeat = Edit { start: 3, end: 3, with: v(&["GD", "Time"]) };
        assert_eq!(evidence_in(&truth, &repeat, Some(&read)), Evidence::Content);
        let cells = t("3 4 4 5");
        let value = Edit { start: 2, end: 3, with: v(&["3"]) };
        assert_eq!(evidence_in(&cells, &value, Some(&t("3 4 3 5"))), Evidence::Content);
        let new_word = Edit { start: 1, end: 2, with: v(&["Ithaca"]) };
        let read = t("Hypervolume Ithaca Generational Distance GD Time");
        assert_eq!(evidence_in(&truth, &new_word, Some(&read)), Evidence::Content);
        let truth = t("associated wtih the first with");
        let fix = Edit { start: 1, end: 2, with: v(&["with"]) };
        let read = t("associated with the first with");
        assert_eq!(evidence_in(&truth, &fix, Some(&read)), Evidence::Content);
    }

    #[test]
    fn tokens_split_words_and_cjk_characters() {
        assert_eq!(t("Hello, wor-ld 42!"), ["Hello", "wor", "ld", "42"]);
        assert_eq!(t("比较a文学"), ["比", "较", "a", "文", "学"]);
        assert_eq!(
            latex_tokens("\\mathrm{d} x^{2} \\, + \\alpha_1 \\left( y \\right)"),
            ["d", "x", "^", "2", "+", "\\alpha", "_", "1", "(", "y", ")"]
        );
    }

    #[test]
    fn a_reading_that_is_one_math_span_is_latex() {
        assert!(is_math_span("\\[ (\\gamma^U, A_k) = 0. \\]"));
        assert!(is_math_span("  $$\na + b\n$$ "));
        assert!(is_math_span("\\( x^2 \\)"));
        assert!(is_math_span("$x$"));
        // Text, two inline formulas, an empty span, a lone delimiter: none.
        assert!(!is_math_span("From (10) and (14) it is evident"));
        assert!(!is_math_span("$x$ and $y$"));
        assert!(!is_math_span("\\[ a \\] and \\[ b \\]"));
        assert!(!is_math_span("$$ $$"));
        assert!(!is_math_span("$"));
        assert!(!is_math_span("$$"));
    }

    #[test]
    fn edits_group_runs_of_changes() {
        let e = edits(&t("a b c d e"), &t("a x c d e f"));
        assert_eq!(
            e,
            vec![
                Edit { start: 1, end: 2, with: vec!["x".into()] },
                Edit { start: 5, end: 5, with: vec!["f".into()] },
            ]
        );
        // A dropped run of words is one insertion; a swap one run.
        assert_eq!(
            edits(&t("a b e"), &t("a b c d e")),
            vec![Edit { start: 2, end: 2, with: vec!["c".into(), "d".into()] }]
        );
        assert!(edits(&t("a b"), &t("a b")).is_empty());
    }

    #[test]
    fn agreement_by_hand() {
        let truth = t("the cat sat on teh mat");
        let a = Edit { start: 4, end: 5, with: vec!["the".into()] };
        // Same edit: 1. Signatures [-teh,+the] vs [-teh,+tha]: one of two differs → 0.5.
        assert_eq!(agreement(&truth, &a, &a), 1.0);
        let b = Edit { start: 4, end: 5, with: vec!["tha".into()] };
        assert!((agreement(&truth, &a, &b) - 0.5).abs() < 1e-12);
        // Far apart: 0.
        let c = Edit { start: 0, end: 1, with: vec!["a".into()] };
        assert_eq!(agreement(&truth, &a, &c), 0.0);
    }

    #[test]
    fn three_providers_agreeing_on_a_misspelling_score_by_hand() {
        let truth = t("the cat sat on teh mat");
        let r1 = t("the cat sat on the mat");
        let r2 = t("the cat sat on the mat");
        // The third also reads "cat" as "cot": its agreement with the consensus edit is 1
        // (its own edit at "teh" is the same), but it reads 5 of 6 tokens like the others.
        let r3 = t("the cot sat on the mat");
        let v = judge(&truth, &[r1, r2, r3]).unwrap();
        assert_eq!(v.edit, Edit { start: 4, end: 5, with: vec!["the".into()] });
        assert_eq!(v.supporters, vec![0, 1, 2]);
        assert_eq!(v.support, 1.0);
        // Pairwise similarities: 1, 5/6, 5/6 → mean 8/9.
        assert!((v.coherence - 8.0 / 9.0).abs() < 1e-12, "{v:?}");
        assert!((v.score - 8.0 / 9.0).abs() < 1e-12);
    }

    #[test]
    fn one_provider_alone_or_providers_that_disagree_find_nothing() {
        let truth = t("a b c d");
        assert!(judge(&truth, &[t("a b x d"), t("a b c d"), t("a b c d")]).is_none());
        // Two providers change the same token to different words: agreement 0.5 each with
        // the other's edit, so both support either (½ ≥ ½) ...
        let v = judge(&truth, &[t("a b x d"), t("a b y d")]).unwrap();
        assert_eq!(v.support, (1.0 + 0.5) / 2.0);
        // ... and with a third that agrees with the truth, support is (1 + ½ + 0) / 3.
        let v = judge(&truth, &[t("a b x d"), t("a b y d"), t("a b c d")]).unwrap();
        assert!((v.support - 0.5).abs() < 1e-12);
        // Exact truth: nothing.
        assert!(judge(&truth, &[t("a b c d"), t("a b c d")]).is_none());
    }

    #[test]
    fn a_swap_of_two_blocks_in_the_order_is_a_shared_edit() {
        let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
        let truth = s(&["1", "2", "3", "4", "5"]);
        let read = s(&["1", "4", "3", "2", "5"]);
        // Two substitutions around the unmoved 3; both shared, the first is reported.
        assert_eq!(edits(&truth, &read).len(), 2);
        let v = judge(&truth, &[read.clone(), read]).unwrap();
        assert_eq!(v.edit, Edit { start: 1, end: 2, with: s(&["4"]) });
        assert_eq!(v.score, 1.0);
    }

    #[test]
    fn two_readers_that_agree_on_a_swap_of_two_blocks_contradict_the_order() {
        let s = |x: &str| x.split(' ').map(str::to_string).collect::<Vec<_>>();
        let truth = s("1 2 3 4 5 6");
        // The truth has blocks 2 and 5 exchanged: both readers read 1 5 3 4 2 6; the second
        // did not match block 6, the third reader agrees with the truth.
        let v = judge_order(&truth, &[s("1 5 3 4 2 6"), s("1 5 3 4 2"), s("1 2 3 4 5 6")]).unwrap();
        // Reversed pairs (2,3) (2,4) (2,5) (3,5) (4,5), each by 2 of 3 readers: contradicted.
        // They span blocks 2 to 5 (positions 1 to 4).
        assert_eq!(v.edit, Edit { start: 1, end: 5, with: s("5 3 4 2") });
        assert_eq!(v.supporters, vec![0, 1]);
        assert_eq!(v.agreements, vec![1.0, 1.0, 0.0]);
        assert!((v.support - 2.0 / 3.0).abs() < 1e-12);
        // A fourth reader that matched only blocks 1 and 6 read none of those pairs: it
        // leaves the support as it is.
        let w =
            judge_order(&truth, &[s("1 5 3 4 2 6"), s("1 5 3 4 2"), s("1 2 3 4 5 6"), s("1 6")])
                .unwrap();
        assert_eq!((w.support, w.agreements[3]), (v.support, 0.0));
        // The two supporters order every pair they share alike.
        assert_eq!(v.coherence, 1.0);
        // One reader alone, or readers that each reverse other pairs: nothing.
        assert!(judge_order(&truth, &[s("1 5 3 4 2 6"), s("1 2 3 4 5 6")]).is_none());
        assert!(judge_order(&truth, &[s("2 1 3 4 5 6"), s("1 2 3 4 6 5")]).is_none());
        // A reader that misses a block says nothing about it.
        assert!(judge_order(&truth, &[s("1 2 4"), s("1 3 4")]).is_none());
    }
}
