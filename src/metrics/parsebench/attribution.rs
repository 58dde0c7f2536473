//! The layout dimension's attribution check (ParseBench's `metrics/attribution/text_utils.py`
//! and the attribution helpers of `evaluators/layoutdet.py`), written from its description;
//! rules in `docs/parsebench.md` ("The layout dimension").
//!
//! An element's text (its `content`) and each prediction's text are normalized
//! ([`normalize_attribution_text`]) and cut into tokens (runs of `a-z0-9`). The element is
//! matched with the overlapping predictions (IoA of the element ≥ 0.30): each one's tokens,
//! less those that belong only to other elements it overlaps, scored by token F1 (recall for
//! an `explicit` element); the best passes at ≥ 0.80. A page header or footer is matched with
//! the best contiguous run, in reading order, of the predictions inside its band.

use std::collections::HashMap;
use std::sync::LazyLock;

use fancy_regex::Regex as Fancy;
use regex::{Captures, Regex};
use unicode_normalization::char::canonical_combining_class;
use unicode_normalization::UnicodeNormalization;

use super::normalize::unescape_html_entities;

/// `ATTRIBUTION_OVERLAP_IOA_THRESHOLD`.
pub const OVERLAP_IOA: f64 = 0.30;
/// `ATTRIBUTION_TOKEN_F1_THRESHOLD`.
pub const TOKEN_THRESHOLD: f64 = 0.80;

fn re(p: &str) -> Regex {
    Regex::new(p).expect("a fixed pattern")
}

static DISPLAY_MATH: LazyLock<Regex> = LazyLock::new(|| re(r"(?s)\$\$.*?\$\$"));
static INLINE_MATH: LazyLock<Regex> = LazyLock::new(|| re(r"\$[^$]+\$"));
static LATEXISH: LazyLock<Regex> = LazyLock::new(|| re(r"[\\^_{}]"));
// The evaluator writes these four as raw strings with doubled backslashes, so they look for
// doubled (or tripled) backslashes, not for `\[`, `\(`, `\begin` or `\alpha`: copied as
// they behave (`{` and `}` escaped where Python reads them as literals).
static BRACKET_MATH: LazyLock<Regex> = LazyLock::new(|| re(r"(?s)\\\\\\[.*?\\\\\\]"));
static PAREN_MATH: LazyLock<Regex> = LazyLock::new(|| re(r"(?s)\\\\\\(.*?\\\\\\)"));
static ENVIRONMENT: LazyLock<Regex> =
    LazyLock::new(|| re(r"(?s)\\\\begin\\\{.*?\\\}.*?\\\\end\\\{.*?\\\}"));
static COMMAND: LazyLock<Regex> = LazyLock::new(|| re(r"\\\\[a-zA-Z]+(\\s*\\\{[^}]*\\\})*"));
static SCRIPT_GROUP: LazyLock<Regex> = LazyLock::new(|| re(r"[_^]\\\{[^}]*\\\}"));
static SCRIPT_RUN: LazyLock<Regex> = LazyLock::new(|| re(r"[_^][a-zA-Z0-9]+"));
static MD_IMAGE: LazyLock<Regex> = LazyLock::new(|| re(r"!\[([^\]]*)\]\([^)]*\)"));
static HTML_IMG: LazyLock<Regex> = LazyLock::new(|| re(r"(?i)<img\b[^>]*>"));
static IMG_ALT: LazyLock<Regex> =
    LazyLock::new(|| re(r#"(?i)\balt\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+))"#));
static INLINE_TAGS: LazyLock<Regex> =
    LazyLock::new(|| re(r"(?i)</?(?:sup|sub|b|i|u|ins|mark|span|div|br/?)\b[^>]*>"));
static STYLE_ATTR: LazyLock<Regex> = LazyLock::new(|| re(r#"\bstyle\s*=\s*"[^"]*""#));
static BOLD_STARS: LazyLock<Regex> = LazyLock::new(|| re(r"\*\*(.*?)\*\*"));
static BOLD_UNDERSCORES: LazyLock<Regex> = LazyLock::new(|| re(r"__(.*?)__"));
static ITALIC_STAR: LazyLock<Regex> = LazyLock::new(|| re(r"\*(.*?)\*"));
static ITALIC_UNDERSCORE: LazyLock<Regex> = LazyLock::new(|| re(r"_(.*?)_"));
static HEADING_MARKS: LazyLock<Regex> = LazyLock::new(|| re(r"#{1,6}\s*"));
static DOLLARS: LazyLock<Regex> = LazyLock::new(|| re(r"\$\$?"));
static LINK: LazyLock<Fancy> =
    LazyLock::new(|| Fancy::new(r"(?<!!)\[([^\]]*)\]\([^)]*\)").expect("a fixed pattern"));
static HYPHEN_BREAK: LazyLock<Regex> = LazyLock::new(|| re(r"(\w)-\s*\n\s*(\w)"));
static ANGLE_BREAK: LazyLock<Regex> = LazyLock::new(|| re(r"(\w)\x{203a}\s*\n\s*(\w)"));
static SPACES: LazyLock<Regex> = LazyLock::new(|| re(r"\s+"));
static NOT_KEPT: LazyLock<Regex> = LazyLock::new(|| re(r#"[^a-z0-9\s\.,;:!\?\-\(\)\[\]\{\}/'"%]"#));
static TOKEN: LazyLock<Regex> = LazyLock::new(|| re(r"[a-z0-9]+"));
static TAG: LazyLock<Regex> = LazyLock::new(|| re(r"<[^>]*>"));
static THEAD: LazyLock<Regex> = LazyLock::new(|| re(r"(?is)<thead\b[^>]*>.*?</thead>"));

const LIGATURES: [(char, &str); 7] = [
    ('\u{fb00}', "ff"),
    ('\u{fb01}', "fi"),
    ('\u{fb02}', "fl"),
    ('\u{fb03}', "ffi"),
    ('\u{fb04}', "ffl"),
    ('\u{fb05}', "st"),
    ('\u{fb06}', "st"),
];

const REPLACEMENTS: [(char, &str); 16] = [
    ('\u{2018}', "'"),
    ('\u{2019}', "'"),
    ('\u{201a}', "'"),
    ('\u{201c}', "\""),
    ('\u{201d}', "\""),
    ('\u{201e}', "\""),
    ('\u{ff3f}', "_"),
    ('\u{2013}', "-"),
    ('\u{2014}', "-"),
    ('\u{2011}', "-"),
    ('\u{2012}', "-"),
    ('\u{2212}', "-"),
    ('\u{2026}', "..."),
    ('\u{00b5}', "\u{03bc}"),
    ('\u{203a}', ">"),
    ('\u{2039}', "<"),
];

/// `normalize_attribution_text`: NFKC, accents dropped, math removed, ligatures expanded,
/// (images to their alt text), inline tags and Markdown emphasis, headings and links
/// unwrapped, line-break hyphens joined, quotes and dashes to ASCII, lower case, whitespace
/// runs to one space, every other character but `a-z0-9` and common punctuation to a space.
pub fn normalize_attribution_text(text: &str, strip_image_markup: bool) -> String {
    if text.is_empty() {
        return String::new();
    }
    let t: String = text.nfkc().collect();
    let t: String = t.nfkd().filter(|c| canonical_combining_class(*c) == 0).collect();
    let mut t = t.replace('ß', "ss");
    t = DISPLAY_MATH.replace_all(&t, " ").into_owned();
    t = INLINE_MATH
        .replace_all(&t, |c: &Captures| {
            let m = &c[0];
            if LATEXISH.is_match(&m[1..m.len() - 1]) {
                " ".to_string()
            } else {
                m.to_string()
            }
        })
        .into_owned();
    for r in [&*BRACKET_MATH, &*PAREN_MATH, &*ENVIRONMENT, &*COMMAND, &*SCRIPT_GROUP, &*SCRIPT_RUN]
    {
        t = r.replace_all(&t, " ").into_owned();
    }
    for (l, r) in LIGATURES {
        t = t.replace(l, r);
    }
    if strip_image_markup {
        t = MD_IMAGE.replace_all(&t, "${1}").into_owned();
        t = HTML_IMG
            .replace_all(&t, |c: &Captures| match IMG_ALT.captures(&c[0]) {
                None => " ".to_string(),
                Some(a) => (1..=3).find_map(|i| a.get(i)).map_or("", |m| m.as_str()).to_string(),
            })
            .into_owned();
    }
    t = INLINE_TAGS.replace_all(&t, " ").into_owned();
    t = STYLE_ATTR.replace_all(&t, " ").into_owned();
    for r in [&*BOLD_STARS, &*BOLD_UNDERSCORES, &*ITALIC_STAR, &*ITALIC_UNDERSCORE] {
        t = r.replace_all(&t, "${1}").into_owned();
    }
    t = HEADING_MARKS.replace_all(&t, "").into_owned();
    t = DOLLARS.replace_all(&t, "").into_owned();
    t = LINK.replace_all(&t, "${1}").into_owned();
    t = HYPHEN_BREAK.replace_all(&t, "${1}${2}").into_owned();
    t = ANGLE_BREAK.replace_all(&t, "${1}${2}").into_owned();
    for (c, r) in REPLACEMENTS {
        t = t.replace(c, r);
    }
    let t = t.to_lowercase();
    let t = SPACES.replace_all(&t, " ");
    let t = NOT_KEPT.replace_all(&t, " ");
    t.trim_matches(super::normalize::is_py_space).to_string()
}

/// `tokenize`: the runs of `a-z0-9`.
pub fn tokenize(normalized: &str) -> Vec<String> {
    TOKEN.find_iter(normalized).map(|m| m.as_str().to_string()).collect()
}

/// `extract_text_from_html`: the text between tags (entities decoded), joined by spaces;
/// `ignore_thead` drops `<thead>` sections first.
pub fn html_text(html: &str, ignore_thead: bool) -> String {
    let html = if ignore_thead { THEAD.replace_all(html, " ").into_owned() } else { html.into() };
    let parts: Vec<String> =
        TAG.split(&html).filter(|s| !s.is_empty()).map(unescape_html_entities).collect();
    parts.join(" ")
}

fn counts(tokens: &[String]) -> HashMap<&str, usize> {
    let mut m = HashMap::new();
    for t in tokens {
        *m.entry(t.as_str()).or_insert(0) += 1;
    }
    m
}

/// `multiset(a - b)`, in `a`'s order.
pub fn difference(a: &[String], b: &[String]) -> Vec<String> {
    let mut left = counts(b);
    a.iter()
        .filter(|t| match left.get_mut(t.as_str()) {
            Some(n) if *n > 0 => {
                *n -= 1;
                false
            }
            _ => true,
        })
        .cloned()
        .collect()
}

/// `_compute_token_metrics`: (precision, recall, F1) of the predicted tokens.
pub fn token_metrics(gt: &[String], pred: &[String]) -> (f64, f64, f64) {
    if gt.is_empty() && pred.is_empty() {
        return (1.0, 1.0, 1.0);
    }
    if gt.is_empty() {
        return (0.0, 1.0, 0.0);
    }
    if pred.is_empty() {
        return (0.0, 0.0, 0.0);
    }
    let (a, b) = (counts(gt), counts(pred));
    let matched: usize = a.iter().map(|(k, n)| (*n).min(b.get(k).copied().unwrap_or(0))).sum();
    let p = matched as f64 / pred.len() as f64;
    let r = matched as f64 / gt.len() as f64;
    let f1 = if p + r <= 0.0 { 0.0 } else { 2.0 * p * r / (p + r) };
    (p, r, f1)
}

/// One prediction as attribution sees it.
#[derive(Debug, Clone, PartialEq)]
pub struct Block {
    /// Its box.
    pub bbox: super::layout::Xyxy,
    /// Its tokens.
    pub tokens: Vec<String>,
}

/// One element as attribution sees it.
#[derive(Debug, Clone, PartialEq)]
pub struct Gt {
    /// Its box.
    pub bbox: super::layout::Xyxy,
    /// Its tokens.
    pub tokens: Vec<String>,
}

/// `_merge_aware_pred_tokens`: the prediction's tokens less those found only in the other
/// elements it overlaps (IoA of the element ≥ 0.30).
fn merge_aware(g: usize, p: usize, gts: &[Gt], blocks: &[Block]) -> Vec<String> {
    let pred = &blocks[p].tokens;
    if pred.is_empty() {
        return pred.clone();
    }
    let mut other = Vec::new();
    for (o, e) in gts.iter().enumerate() {
        if o != g && super::layout::ioa(&e.bbox, &blocks[p].bbox) >= OVERLAP_IOA {
            other.extend(e.tokens.iter().cloned());
        }
    }
    if other.is_empty() {
        return pred.clone();
    }
    let only_other = difference(&other, &gts[g].tokens);
    if only_other.is_empty() {
        return pred.clone();
    }
    difference(pred, &only_other)
}

/// The best attribution of element `g`: (overlapping predictions, (precision, recall, F1) of
/// the best, where there is one).
pub fn best_match(
    g: usize,
    gts: &[Gt],
    blocks: &[Block],
    recall: bool,
) -> (usize, Option<(f64, f64, f64)>) {
    let gt = &gts[g];
    let overlapping: Vec<usize> = (0..blocks.len())
        .filter(|&p| super::layout::ioa(&gt.bbox, &blocks[p].bbox) >= OVERLAP_IOA)
        .collect();
    let (mut best, mut best_score, mut best_iou) = (None, -1.0, -1.0);
    for &p in &overlapping {
        let m = token_metrics(&gt.tokens, &merge_aware(g, p, gts, blocks));
        let score = if recall { m.1 } else { m.2 };
        let iou = super::layout::iou(&gt.bbox, &blocks[p].bbox);
        if score > best_score || (score == best_score && iou > best_iou) {
            (best, best_score, best_iou) = (Some(m), score, iou);
        }
    }
    (overlapping.len(), best)
}

/// `_select_page_furniture_attribution_match`: the best contiguous run, in block order, of
/// the predictions inside the band (ties: the other score, then the shorter run, then the
/// higher IoU of its best member).
pub fn furniture_match(
    g: usize,
    gts: &[Gt],
    blocks: &[Block],
    recall: bool,
) -> (usize, Option<(f64, f64, f64)>) {
    let boxes: Vec<super::layout::Xyxy> = blocks.iter().map(|b| b.bbox).collect();
    let group = super::layout::furniture_group(&gts[g].bbox, &boxes);
    let ordered = group.members;
    if ordered.is_empty() {
        return (0, None);
    }
    let tokens: Vec<Vec<String>> =
        ordered.iter().map(|&p| merge_aware(g, p, gts, blocks)).collect();
    let mut best: Option<(f64, f64, f64)> = None;
    let (mut b_score, mut b_second, mut b_len, mut b_iou) = (-1.0, -1.0, usize::MAX, -1.0);
    for start in 0..ordered.len() {
        let mut span: Vec<String> = Vec::new();
        let mut rep_iou = -1.0;
        for (k, &p) in ordered.iter().enumerate().skip(start) {
            span.extend(tokens[k].iter().cloned());
            let iou = super::layout::iou(&gts[g].bbox, &blocks[p].bbox);
            if iou > rep_iou {
                rep_iou = iou;
            }
            let m = token_metrics(&gts[g].tokens, &span);
            let (score, second) = if recall { (m.1, m.2) } else { (m.2, m.1) };
            let len = k - start + 1;
            let better = score > b_score
                || (score == b_score && second > b_second)
                || (score == b_score && second == b_second && len < b_len)
                || (score == b_score && second == b_second && len == b_len && rep_iou > b_iou);
            if better {
                best = Some(m);
                (b_score, b_second, b_len, b_iou) = (score, second, len, rep_iou);
            }
        }
    }
    (ordered.len(), best)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn toks(s: &str) -> Vec<String> {
        tokenize(&normalize_attribution_text(s, false))
    }

    #[test]
    fn normalization_by_hand() {
        // NFKC makes U+2011 a U+2010 hyphen, which no line-break rule joins: a space at the end.
        assert_eq!(
            normalize_attribution_text(
                "Café **Prices** — “up” ﬁve\u{2011}\nfold $x^2$ $100",
                false
            ),
            "cafe prices - \"up\" five  fold 100"
        );
        // `\alpha` and `\(…\)` are not LaTeX to these patterns (they want doubled backslashes):
        // only their backslashes go, as characters outside the kept set.
        assert_eq!(
            normalize_attribution_text("five-\n fold a_b c\\alpha{x} \\(q\\) end", false),
            "fivefold a c alpha{x}  (q ) end"
        );
        // A doubled backslash command is removed, its `{y}` (no backslash before it) is not.
        assert_eq!(normalize_attribution_text("x \\\\alpha{y} z", false), "x {y} z");
        assert_eq!(
            normalize_attribution_text("## See [the site](http://a.b) <sup>1</sup>", false),
            "see the site 1"
        );
        assert_eq!(normalize_attribution_text("![A chart](c.png)", true), "a chart");
        assert_eq!(toks("Straße, 3.5%"), ["strasse", "3", "5"]);
        assert_eq!(html_text("<table><tr><td>a&amp;b</td><td>2</td></tr></table>", false), "a&b 2");
    }

    #[test]
    fn token_scores_and_matches_by_hand() {
        let gt = toks("revenue grew in every region");
        // 4 of 5 ground-truth tokens, 4 of 6 predicted: P 2/3, R 0.8, F1 8/11.
        let (p, r, f) = token_metrics(&gt, &toks("revenue grew in every year again"));
        assert!((p - 2.0 / 3.0).abs() < 1e-12 && (r - 0.8).abs() < 1e-12);
        assert!((f - 8.0 / 11.0).abs() < 1e-12);
        let gts = vec![
            Gt { bbox: [0.0, 0.0, 1.0, 0.5], tokens: gt.clone() },
            Gt { bbox: [0.0, 0.5, 1.0, 1.0], tokens: toks("costs were flat") },
        ];
        // One block over both elements: the other element's tokens are taken out first.
        let merged = Block {
            bbox: [0.0, 0.0, 1.0, 1.0],
            tokens: toks("revenue grew in every region costs were flat"),
        };
        let (n, m) = best_match(0, &gts, std::slice::from_ref(&merged), false);
        assert_eq!(n, 1);
        assert_eq!(m, Some((1.0, 1.0, 1.0)));
        // A block covering under 30 % of the element does not overlap.
        let small = Block { bbox: [0.0, 0.0, 0.2, 0.5], tokens: gt.clone() };
        assert_eq!(best_match(0, &gts, &[small], false), (0, None));
        // A header band read as two pieces: the two together recover it.
        let band = vec![Gt { bbox: [0.0, 0.0, 1.0, 0.1], tokens: toks("acme annual report") }];
        let pieces = [
            Block { bbox: [0.0, 0.0, 0.4, 0.1], tokens: toks("acme annual") },
            Block { bbox: [0.5, 0.0, 0.9, 0.1], tokens: toks("report") },
        ];
        assert_eq!(furniture_match(0, &band, &pieces, false), (2, Some((1.0, 1.0, 1.0))));
    }
}
