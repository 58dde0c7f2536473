//! The `formula` suite's pure half (rules in `docs/formula-suite.md`): finding the formulas of
//! a prediction's Markdown (`segment_math`), pairing each ground-truth formula with the
//! predicted formula it corresponds to (`match_formulas`), and the string metrics of a pair
//! ([`normalize`], [`edit_sim`], [`exact`]). CDM, which renders, is in `crate::external::cdm`.
//!
//! Pairing, in two passes:
//! 1. **Delimited math.** Every math span of the prediction (`$…$`, `$$…$$`, `\(…\)`, `\[…\]`,
//!    equation-like environments, ```` ```math ```` / ```` ```latex ```` fences) is a candidate.
//!    GT formulas and candidates are compared on their *match keys* (the LaTeX turned into
//!    plain Unicode, white space dropped: notation-insensitive) and paired one to one by a
//!    linear assignment maximising the summed similarity; a pair counts when its similarity is
//!    at least [`MIN_SIMILARITY`].
//! 2. **Plain text.** A GT formula still unpaired is looked for in the prediction's text
//!    outside the paired math spans (text-layer parsers write formulas as plain Unicode): the
//!    best approximate occurrence of its match key (edit distance, any start and end) counts
//!    when at most [`MAX_TEXT_DISTANCE`] of the key's characters differ
//!    ([`MAX_TEXT_DISTANCE_LONG`] from [`LONG_TEXT_KEY`] characters on) and the key has at
//!    least [`MIN_TEXT_KEY`] characters; the text found is the predicted formula. Found text
//!    is used once.
//!
//! A GT formula found by neither pass is missed.

use crate::metrics::levenshtein::{levenshtein, levenshtein_chars};
use crate::normalize::latex_to_plain;

/// The least match-key similarity for a delimited candidate to be a GT formula's prediction.
pub const MIN_SIMILARITY: f64 = 0.5;

/// The largest share of a match key's characters that may differ in a plain-text occurrence,
/// for keys shorter than [`LONG_TEXT_KEY`].
pub const MAX_TEXT_DISTANCE: f64 = 0.25;

/// Keys at least this long may differ in up to [`MAX_TEXT_DISTANCE_LONG`] of their characters:
/// a text layer loses more of a long formula's markup (`(mod n)`, big operators' limits),
/// and a long key is unlikely to meet prose that close by chance.
pub const LONG_TEXT_KEY: usize = 8;

/// See [`LONG_TEXT_KEY`].
pub const MAX_TEXT_DISTANCE_LONG: f64 = 0.4;

/// The shortest match key looked for in plain text (shorter ones match anywhere).
pub const MIN_TEXT_KEY: usize = 3;

/// One math span of a prediction.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Segment {
    /// Byte offset of the span's first delimiter.
    pub start: usize,
    /// Byte offset after its last delimiter.
    pub end: usize,
    /// The formula without its delimiters, trimmed; an `align`-like environment becomes the
    /// matching `aligned`-like one, which renders inside display math.
    pub latex: String,
    /// Displayed (`$$`, `\[`, an environment, a fence) rather than inline (`$`, `\(`).
    pub display: bool,
}

/// Environments that are display math of their own.
const ENVIRONMENTS: [&str; 10] = [
    "equation",
    "displaymath",
    "math",
    "align",
    "gather",
    "multline",
    "eqnarray",
    "flalign",
    "alignat",
    "dmath",
];

/// Finds every math span of a Markdown (or LaTeX-flavoured) text, in order. Escaped dollars
/// (`\$`) are text; an inline `$…$` does not cross a blank line; code fences other than
/// `math` and `latex` are skipped.
pub(crate) fn segment_math(text: &str) -> Vec<Segment> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    let at_line_start = |i: usize| i == 0 || b[i - 1] == b'\n';
    while i < b.len() {
        let rest = &text[i..];
        if at_line_start(i) && rest.starts_with("```") {
            let line_end = rest.find('\n').map_or(text.len(), |n| i + n);
            let lang = text[i + 3..line_end].trim().to_ascii_lowercase();
            let body_start = (line_end + 1).min(text.len());
            let close = text[body_start..].find("\n```").map(|n| body_start + n);
            let (body_end, end) = match close {
                Some(c) => (c, text[c + 1..].find('\n').map_or(text.len(), |n| c + 1 + n)),
                None => (text.len(), text.len()),
            };
            if lang == "math" || lang == "latex" {
                let latex = text[body_start..body_end].trim();
                if !latex.is_empty() {
                    out.push(Segment { start: i, end, latex: unwrap(latex), display: true });
                }
            }
            i = end.max(i + 1);
            continue;
        }
        if rest.starts_with("\\$") {
            i += 2;
            continue;
        }
        if rest.starts_with("$$") {
            if let Some(n) = find_unescaped(&text[i + 2..], "$$") {
                let inner = &text[i + 2..i + 2 + n];
                push(&mut out, i, i + 2 + n + 2, inner, true);
                i += n + 4;
                continue;
            }
            i += 2;
            continue;
        }
        if b[i] == b'$' {
            if let Some(n) = find_unescaped(&text[i + 1..], "$") {
                let inner = &text[i + 1..i + 1 + n];
                if !inner.trim().is_empty() && !inner.contains("\n\n") {
                    push(&mut out, i, i + 1 + n + 1, inner, false);
                    i += n + 2;
                    continue;
                }
            }
            i += 1;
            continue;
        }
        if rest.starts_with("\\[") || rest.starts_with("\\(") {
            let (close, display) =
                if rest.starts_with("\\[") { ("\\]", true) } else { ("\\)", false) };
            if let Some(n) = text[i + 2..].find(close) {
                push(&mut out, i, i + 2 + n + 2, &text[i + 2..i + 2 + n], display);
                i += n + 4;
                continue;
            }
            i += 2;
            continue;
        }
        if rest.starts_with("\\begin{") {
            if let Some((name, body, len)) = environment(rest) {
                let latex = match name.trim_end_matches('*') {
                    "equation" | "displaymath" | "math" | "dmath" => unwrap(body),
                    base => {
                        let aligned = match base {
                            "gather" => "gathered",
                            "alignat" => "alignedat",
                            _ => "aligned",
                        };
                        format!("\\begin{{{aligned}}}{}\\end{{{aligned}}}", body.trim())
                    }
                };
                if !latex.trim().is_empty() {
                    out.push(Segment { start: i, end: i + len, latex, display: true });
                }
                i += len;
                continue;
            }
        }
        i += rest.chars().next().map_or(1, char::len_utf8);
    }
    out
}

fn push(out: &mut Vec<Segment>, start: usize, end: usize, inner: &str, display: bool) {
    let latex = unwrap(inner);
    if !latex.is_empty() {
        out.push(Segment { start, end, latex, display });
    }
}

/// The formula inside a span, trimmed, without an `equation`-like wrapper left inside it.
fn unwrap(inner: &str) -> String {
    let t = inner.trim();
    if t.starts_with("\\begin{") {
        if let Some((name, body, len)) = environment(t) {
            let base = name.trim_end_matches('*');
            if len == t.len() && matches!(base, "equation" | "displaymath" | "math") {
                return body.trim().to_string();
            }
        }
    }
    t.to_string()
}

/// Reads `\begin{name}…\end{name}` at the start of `s` for a math environment: (name, body,
/// length of the whole).
fn environment(s: &str) -> Option<(&str, &str, usize)> {
    let open_end = s.find('}')?;
    let name = &s["\\begin{".len()..open_end];
    if !ENVIRONMENTS.contains(&name.trim_end_matches('*')) {
        return None;
    }
    let close = format!("\\end{{{name}}}");
    let body_start = open_end + 1;
    let n = s[body_start..].find(&close)?;
    Some((name, &s[body_start..body_start + n], body_start + n + close.len()))
}

fn find_unescaped(s: &str, pat: &str) -> Option<usize> {
    let mut from = 0;
    while let Some(n) = s[from..].find(pat) {
        let at = from + n;
        if at > 0 && s.as_bytes()[at - 1] == b'\\' {
            from = at + 1;
            continue;
        }
        return Some(at);
    }
    None
}

/// Strips a formula's outer delimiters as the truth writes them (`$$…$$`, `$…$`, `\[…\]`,
/// `\(…\)`, an `equation`-like environment), trimmed.
pub(crate) fn strip_delimiters(src: &str) -> String {
    let t = src.trim();
    for (open, close) in [("$$", "$$"), ("\\[", "\\]"), ("\\(", "\\)"), ("$", "$")] {
        if t.len() >= open.len() + close.len() && t.starts_with(open) && t.ends_with(close) {
            return unwrap(&t[open.len()..t.len() - close.len()]);
        }
    }
    unwrap(t)
}

/// The normal form the string metrics compare (`docs/formula-suite.md`): delimiters stripped,
/// spacing commands (`\,` `\;` `\:` `\!` `\ ` `~` `\quad` `\qquad`) and white space dropped,
/// except one space after a control word followed by a letter (`\alpha x` stays apart).
pub fn normalize(latex: &str) -> String {
    let s = strip_delimiters(latex);
    let chars: Vec<char> = s.chars().collect();
    let mut out = String::with_capacity(s.len());
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c == '\\' && i + 1 < chars.len() {
            let n = chars[i + 1];
            if matches!(n, ',' | ';' | ':' | '!' | ' ') {
                i += 2;
                continue;
            }
            if n.is_ascii_alphabetic() {
                let mut j = i + 1;
                while j < chars.len() && chars[j].is_ascii_alphabetic() {
                    j += 1;
                }
                let word: String = chars[i + 1..j].iter().collect();
                if word == "quad" || word == "qquad" {
                    i = j;
                    continue;
                }
                out.push('\\');
                out.push_str(&word);
                // Keep a control word apart from a letter that follows after white space.
                let mut k = j;
                while k < chars.len() && chars[k].is_whitespace() {
                    k += 1;
                }
                if k > j && k < chars.len() && chars[k].is_ascii_alphabetic() {
                    out.push(' ');
                }
                i = k;
                continue;
            }
            out.push(c);
            out.push(n);
            i += 2;
            continue;
        }
        if c == '~' || c.is_whitespace() {
            i += 1;
            continue;
        }
        out.push(c);
        i += 1;
    }
    out
}

/// `1 − Levenshtein(normalize(gt), normalize(pred)) / max length` (1 when both are empty).
pub fn edit_sim(gt: &str, pred: &str) -> f64 {
    crate::metrics::levenshtein::similarity(&normalize(gt), &normalize(pred))
}

/// Whether the two are equal after [`normalize`].
pub fn exact(gt: &str, pred: &str) -> bool {
    normalize(gt) == normalize(pred)
}

/// The key formulas are paired on: the LaTeX as plain Unicode, white space dropped.
pub(crate) fn match_key(latex: &str) -> String {
    latex_to_plain(&strip_delimiters(latex)).chars().filter(|c| !c.is_whitespace()).collect()
}

/// Where a GT formula's prediction was found.
#[derive(Debug, Clone, PartialEq)]
pub enum Found {
    /// The `index`-th math span of `segment_math`.
    Math {
        /// Index among the spans.
        index: usize,
        /// Displayed or inline in the prediction.
        display: bool,
    },
    /// Plain text at these byte offsets of the prediction.
    Text {
        /// Start.
        start: usize,
        /// End.
        end: usize,
    },
}

/// A GT formula's prediction.
#[derive(Debug, Clone, PartialEq)]
pub struct Matched {
    /// The predicted formula: a span's LaTeX, or the plain text found.
    pub pred: String,
    /// Where it was found.
    pub found: Found,
    /// The match-key similarity (1 − distance / key length for plain text).
    pub similarity: f64,
}

/// Pairs each GT formula (LaTeX, with or without delimiters) with its prediction in `text` (a
/// prediction's Markdown): `out[g]` is GT formula `g`'s, or `None` for a miss (see the module
/// doc).
pub(crate) fn match_formulas(gt: &[String], text: &str) -> Vec<Option<Matched>> {
    let segs = segment_math(text);
    let gt_keys: Vec<String> = gt.iter().map(|g| match_key(g)).collect();
    let seg_keys: Vec<String> = segs.iter().map(|s| match_key(&s.latex)).collect();
    let mut out: Vec<Option<Matched>> = vec![None; gt.len()];
    if !gt.is_empty() && !segs.is_empty() {
        let sims: Vec<f64> = gt_keys
            .iter()
            .flat_map(|g| seg_keys.iter().map(move |s| key_similarity(g, s)))
            .collect();
        let weights: Vec<f64> =
            sims.iter().map(|&x| if x >= MIN_SIMILARITY { x } else { 0.0 }).collect();
        if let Ok((rows, cols)) = lsap::solve(gt.len(), segs.len(), &weights, true) {
            for (g, s) in rows.into_iter().zip(cols) {
                let sim = sims[g * segs.len() + s];
                if sim >= MIN_SIMILARITY {
                    out[g] = Some(Matched {
                        pred: segs[s].latex.clone(),
                        found: Found::Math { index: s, display: segs[s].display },
                        similarity: sim,
                    });
                }
            }
        }
    }
    // Plain text: everything outside the paired spans, searched without white space.
    let mut used = vec![false; text.len()];
    for m in out.iter().flatten() {
        if let Found::Math { index, .. } = m.found {
            used[segs[index].start..segs[index].end].iter_mut().for_each(|u| *u = true);
        }
    }
    for g in 0..gt.len() {
        if out[g].is_some() {
            continue;
        }
        let key: Vec<char> = gt_keys[g].chars().collect();
        if key.len() < MIN_TEXT_KEY {
            continue;
        }
        // The free characters, without white space, with their byte offsets.
        let (hay, offsets): (Vec<char>, Vec<usize>) = text
            .char_indices()
            .filter(|(i, c)| !used[*i] && !c.is_whitespace())
            .map(|(i, c)| (c, i))
            .unzip();
        let Some((s, e, dist)) = best_occurrence(&key, &hay) else { continue };
        let share =
            if key.len() >= LONG_TEXT_KEY { MAX_TEXT_DISTANCE_LONG } else { MAX_TEXT_DISTANCE };
        if dist as f64 > share * key.len() as f64 {
            continue;
        }
        let start = offsets[s];
        let end = offsets[e - 1] + text[offsets[e - 1]..].chars().next().map_or(1, char::len_utf8);
        used[start..end].iter_mut().for_each(|u| *u = true);
        out[g] = Some(Matched {
            pred: text[start..end].trim().to_string(),
            found: Found::Text { start, end },
            similarity: 1.0 - dist as f64 / key.len() as f64,
        });
    }
    out
}

fn key_similarity(a: &str, b: &str) -> f64 {
    let (la, lb) = (a.chars().count(), b.chars().count());
    let m = la.max(lb);
    if m == 0 {
        return 0.0;
    }
    1.0 - levenshtein(a, b) as f64 / m as f64
}

/// The substring of `hay` nearest to `pat` in edit distance (Sellers' algorithm: free start
/// and end): (start, end, distance), the shortest among equals; `None` for an empty side.
fn best_occurrence(pat: &[char], hay: &[char]) -> Option<(usize, usize, usize)> {
    if pat.is_empty() || hay.is_empty() {
        return None;
    }
    let m = pat.len();
    // Column per hay position: cost and start of the best alignment ending there.
    let mut cost: Vec<usize> = (0..=m).collect();
    let mut start: Vec<usize> = vec![0; m + 1];
    let mut best: Option<(usize, usize, usize)> = None;
    for (j, &h) in hay.iter().enumerate() {
        let (mut diag, mut diag_start) = (0usize, j);
        cost[0] = 0;
        start[0] = j + 1;
        for i in 1..=m {
            let (up, up_start) = (cost[i], start[i]);
            let sub = diag + usize::from(pat[i - 1] != h);
            let del = up + 1;
            let ins = cost[i - 1] + 1;
            let (c, s) = if sub <= del && sub <= ins {
                (sub, diag_start)
            } else if ins <= del {
                (ins, start[i - 1])
            } else {
                (del, up_start)
            };
            diag = up;
            diag_start = up_start;
            cost[i] = c;
            start[i] = s;
        }
        let cand = (start[m], j + 1, cost[m]);
        if best.is_none_or(|b| cand.2 < b.2) {
            best = Some(cand);
        }
    }
    // Tighten: the reported span is a real occurrence; recheck its distance exactly.
    best.map(|(s, e, _)| (s, e, levenshtein_chars(pat, &hay[s..e])))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spans(t: &str) -> Vec<(String, bool)> {
        segment_math(t).into_iter().map(|s| (s.latex, s.display)).collect()
    }

    #[test]
    fn every_delimiter_is_a_span() {
        let t = "Let $a+b$ and \\(c\\) hold.\n\n$$x^2$$\n\n\\[ y \\]\n\n\\begin{equation}z=1\\end{equation}\n\
                 \\begin{align*}p&=q\\\\r&=s\\end{align*}\n```math\nk\n```\n```python\n$no$\n```\nCost \\$5 and $6.";
        assert_eq!(
            spans(t),
            [
                ("a+b".into(), false),
                ("c".into(), false),
                ("x^2".into(), true),
                ("y".into(), true),
                ("z=1".into(), true),
                ("\\begin{aligned}p&=q\\\\r&=s\\end{aligned}".into(), true),
                ("k".into(), true),
            ]
        );
        // Offsets cover the delimiters.
        let s = &segment_math("ab $x$ cd")[0];
        assert_eq!((s.start, s.end), (3, 6));
        // An inline dollar does not cross a blank line; $$ wrapping an equation unwraps.
        assert_eq!(spans("$a\n\nb$"), []);
        assert_eq!(spans("$$\\begin{equation}q\\end{equation}$$"), [("q".into(), true)]);
    }

    #[test]
    fn normal_form_drops_spacing_but_keeps_control_words_apart() {
        assert_eq!(normalize("$$ \\alpha x + \\, y\\quad $$"), "\\alpha x+y");
        assert_eq!(normalize("\\(\\alpha{x}\\)"), "\\alpha{x}");
        assert_eq!(normalize("a ~ b \\! c"), "abc");
        assert!(exact("$x ^ {2}$", "x^{2}"));
        assert!(!exact("x^2", "x^{2}"));
        // Hand-computed: "a+b" vs "a-b": one substitution over 3.
        assert!((edit_sim("$a + b$", "a-b") - 2.0 / 3.0).abs() < 1e-12);
        assert_eq!(edit_sim("", ""), 1.0);
        assert_eq!(strip_delimiters(" $$ \\[x\\] $$ "), "\\[x\\]");
        assert_eq!(strip_delimiters("\\begin{equation*} e \\end{equation*}"), "e");
    }

    #[test]
    fn formulas_pair_by_content_not_order_and_misses_stay_unpaired() {
        let gt: Vec<String> =
            ["$\\alpha+\\beta$", "$$\\frac{a}{b}=c$$", "$zzzz_{q}$"].map(String::from).to_vec();
        let md = "First $$\\frac{a}{b} = c$$ then $\\alpha + \\beta$ and $w$.";
        let m = match_formulas(&gt, md);
        let got: Vec<Option<&str>> =
            m.iter().map(|x| x.as_ref().map(|x| x.pred.as_str())).collect();
        assert_eq!(got, [Some("\\alpha + \\beta"), Some("\\frac{a}{b} = c"), None]);
        assert_eq!(m[0].as_ref().unwrap().found, Found::Math { index: 1, display: false });
        assert_eq!(m[1].as_ref().unwrap().similarity, 1.0);
    }

    #[test]
    fn plain_text_formulas_are_found_outside_math() {
        // A text layer: no delimiters, subscripts flattened, Greek as symbols.
        let gt: Vec<String> =
            ["$\\alpha \\wedge \\beta \\in \\Omega ^{k+l}(M)$", "$x$"].map(String::from).to_vec();
        let text = "Push put show modern. α ∧ β ∈ Ωk+l(M) Thought green x";
        let m = match_formulas(&gt, text);
        let first = m[0].as_ref().unwrap();
        assert_eq!(first.pred, "α ∧ β ∈ Ωk+l(M)");
        assert_eq!(first.similarity, 1.0);
        assert!(matches!(first.found, Found::Text { .. }));
        // Too short to look for in text.
        assert_eq!(m[1], None);
        // Far from anything: a miss.
        let m = match_formulas(&gt[..1], "Nothing like it here at all.");
        assert_eq!(m[0], None);
    }

    #[test]
    fn found_text_is_used_once() {
        let gt: Vec<String> = ["$abc+d$", "$abc+d$"].map(String::from).to_vec();
        let m = match_formulas(&gt, "x abc+d y");
        assert!(m[0].is_some());
        assert_eq!(m[1], None);
    }
}
