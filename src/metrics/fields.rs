//! GROBID-style field scores (rules in `docs/paper-suite.md`, "Field scores"): the header
//! fields and the citation fields of a prediction against a truth, each under four matchings,
//! counted as GROBID's end-to-end evaluation counts them so that results can be held next to
//! its published tables.
//!
//! * Values are normalized by `basic_normalization` (trim, line breaks and tabs to spaces,
//!   runs of spaces collapsed, `&apos;` to `'`, lowercase); multi-valued fields (authors,
//!   keywords) are their values joined by spaces.
//! * Matchings: `strict` (equal), `soft` (equal after `remove_full_punct`, for textual
//!   fields), `lev` (`(max len − Levenshtein) / max len ≥ 0.8`) and `ro` (Ratcliff/Obershelp
//!   similarity ≥ 0.95); non-textual fields (date, volume, issue, page) are compared strictly
//!   under every matching. Lengths are in UTF-16 code units, as Java counts them.
//! * Per field: a gold value counts as expected; an equal prediction is a true positive, any
//!   other non-empty prediction a false positive (a missing one a false negative).
//!   `precision = tp / (tp + fp)`, `recall = tp / expected`, F1 their harmonic mean (0 where
//!   both are 0). Micro averages sum the counts, macro averages the per-field values, both over
//!   the fields with an expected value.
//! * Citations are aligned first: each predicted citation, in order, takes the first
//!   remaining gold citation with the same signature — soft title + date, else soft authors +
//!   date, else soft venue + volume + first page, else soft first author + soft title (or
//!   venue) — and a citation with none of these, the first remaining gold one whose values are
//!   all equal (added here, so that a truth scored against itself aligns fully). An unaligned
//!   prediction counts a false positive on each of its non-empty fields. An exact match counts
//!   under every matching, even for a value whose soft form is empty.

use std::collections::HashMap;
use std::sync::LazyLock;

use serde_json::{json, Value};

use crate::paper::references::{find_doi, last_name, split_venue};
use crate::paper::{Paper, Reference};

/// GROBID's Levenshtein threshold.
pub const MIN_LEVENSHTEIN: f64 = 0.8;
/// GROBID's Ratcliff/Obershelp threshold.
pub const MIN_RATCLIFF_OBERSHELP: f64 = 0.95;

/// The four matchings, by their metric-id part.
pub const MATCHINGS: [&str; 4] = ["strict", "soft", "lev", "ro"];

/// The header fields.
pub const HEADER_FIELDS: [&str; 5] = ["title", "authors", "first_author", "abstract", "keywords"];

/// The citation fields (`venue` is GROBID's `inTitle`, `page` the first page).
pub const CITATION_FIELDS: [&str; 9] =
    ["title", "authors", "first_author", "date", "venue", "volume", "issue", "page", "doi"];

/// The two field groups, by their metric-id prefix.
pub const SECTIONS: [&str; 2] = ["hdr", "cit"];

fn is_textual(field: &str) -> bool {
    !matches!(field, "date" | "volume" | "issue" | "page")
}

fn fields_of(section: &str) -> &'static [&'static str] {
    if section == "hdr" {
        &HEADER_FIELDS
    } else {
        &CITATION_FIELDS
    }
}

/// Every field metric id, in the order [`score`] returns them: per group, per field, per
/// matching `p`, `r`, `f` (`hdr_title_strict_p`, ...), then the group's `micro` and `macro`
/// (`cit_micro_soft_f`, ...).
pub fn metric_ids() -> &'static [&'static str] {
    static IDS: LazyLock<Vec<&'static str>> = LazyLock::new(|| {
        let mut v = Vec::new();
        for s in SECTIONS {
            for f in fields_of(s).iter().copied().chain(["micro", "macro"]) {
                for m in MATCHINGS {
                    for k in ["p", "r", "f"] {
                        // Built once for the process: the ids live as long as it does.
                        v.push(&*Box::leak(format!("{s}_{f}_{m}_{k}").into_boxed_str()));
                    }
                }
            }
        }
        v
    });
    &IDS
}

// ---------------------------------------------------------------------------------------------
// Normalization and similarity

/// GROBID's `basicNormalization`: trim, `\n` and `\t` to spaces, runs of spaces to one,
/// `&apos;` to `'`, trim, lowercase.
pub(crate) fn basic_normalization(s: &str) -> String {
    let s = java_trim(s).replace(['\n', '\t'], " ");
    let mut out = String::with_capacity(s.len());
    let mut space = false;
    for c in s.chars() {
        if c == ' ' {
            if !space {
                out.push(' ');
            }
            space = true;
        } else {
            out.push(c);
            space = false;
        }
    }
    java_trim(&out.replace("&apos;", "'")).to_lowercase()
}

/// Java's `String.trim`: strips chars up to U+0020 at both ends.
fn java_trim(s: &str) -> &str {
    s.trim_matches(|c: char| c <= ' ')
}

/// The characters GROBID's soft matching ignores: `TextUtilities.fullPunctuations`, white
/// space, and the placeholder glyphs of OCR'd text.
const FULL_PUNCT: &str =
    "(（[ •*,:;?.!/)）-−–‐«»„\"“”‘’'`$#@]*♦♥♣♠\u{a0}。、，・‐ \t\n\r\u{a0}·◼▲►◆○◇●◎◽◸◹◺";

/// GROBID's `removeFullPunct`: lowercase, then every char of [`FULL_PUNCT`] removed.
pub(crate) fn remove_full_punct(s: &str) -> String {
    s.to_lowercase().chars().filter(|c| !FULL_PUNCT.contains(*c)).collect()
}

/// GROBID's `identifierNormalization` (DOIs, PMIDs): basic normalization, `pmc` dropped, a
/// leading `doi` or `pmid` with its `:` dropped.
pub(crate) fn identifier_normalization(s: &str) -> String {
    let mut s = basic_normalization(s);
    if s.starts_with("pmcpmc") {
        s = s.replace("pmcpmc", "");
    }
    s = s.replace("pmc", "");
    for p in ["doi", "pmid"] {
        if s.starts_with(p) {
            s = s.replacen(p, "", 1).trim().to_string();
            if let Some(r) = s.strip_prefix(':') {
                s = r.trim().to_string();
            }
        }
    }
    s.trim().to_lowercase()
}

/// Levenshtein distance over UTF-16 code units.
pub(crate) fn levenshtein_utf16(a: &[u16], b: &[u16]) -> usize {
    if a.is_empty() {
        return b.len();
    }
    if b.is_empty() {
        return a.len();
    }
    let mut prev: Vec<usize> = (0..=a.len()).collect();
    let mut cur = vec![0; a.len() + 1];
    for (j, &tj) in b.iter().enumerate() {
        cur[0] = j + 1;
        for i in 1..=a.len() {
            let cost = usize::from(a[i - 1] != tj);
            cur[i] = (cur[i - 1] + 1).min(prev[i] + 1).min(prev[i - 1] + cost);
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    prev[a.len()]
}

/// The Ratcliff/Obershelp similarity as the `stringmetric` library computes it (the one GROBID
/// calls): `2 × matched / (|a| + |b|)`, where the matched characters are the longest common
/// substring (the first one found, scanning `a` then `b`) and, recursively, those left of it
/// and right of it. `None` when either side is empty.
pub(crate) fn ratcliff_obershelp(a: &str, b: &str) -> Option<f64> {
    let (a, b): (Vec<u16>, Vec<u16>) = (a.encode_utf16().collect(), b.encode_utf16().collect());
    if a.is_empty() || b.is_empty() {
        return None;
    }
    if a == b {
        return Some(1.0);
    }
    Some(2.0 * common(&a, &b) as f64 / (a.len() + b.len()) as f64)
}

/// Characters of `a` and `b` matched by the Ratcliff/Obershelp recursion.
fn common(a: &[u16], b: &[u16]) -> usize {
    let (len, ea, eb) = longest_common_substring(a, b);
    if len == 0 {
        return 0;
    }
    len + common(&a[..ea - len], &b[..eb - len]) + common(&a[ea..], &b[eb..])
}

/// The longest common substring's length and end positions in `a` and `b`; the first one in
/// row-major order wins ties.
fn longest_common_substring(a: &[u16], b: &[u16]) -> (usize, usize, usize) {
    let mut prev = vec![0usize; b.len() + 1];
    let mut cur = vec![0usize; b.len() + 1];
    let mut best = (0, 0, 0);
    for (r, &x) in a.iter().enumerate() {
        for (c, &y) in b.iter().enumerate() {
            cur[c + 1] = if x == y { prev[c] + 1 } else { 0 };
            if cur[c + 1] > best.0 {
                best = (cur[c + 1], r + 1, c + 1);
            }
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    best
}

// ---------------------------------------------------------------------------------------------
// Field values

/// A paper's authors' surnames: as its source marks them, else each author's last name.
fn surnames(authors: &[String], marked: &Option<Vec<String>>) -> Vec<String> {
    match marked {
        Some(s) => s.clone(),
        None => authors.iter().map(|a| last_name(a)).collect(),
    }
    .into_iter()
    .filter(|s| !s.trim().is_empty())
    .collect()
}

/// The header fields' values, in [`HEADER_FIELDS`] order.
fn header_values(p: &Paper) -> Vec<Vec<String>> {
    let names = surnames(&p.authors, &p.surnames);
    vec![
        p.title.iter().cloned().collect(),
        names.clone(),
        names.into_iter().take(1).collect(),
        p.abstract_text.iter().cloned().collect(),
        p.keywords.clone(),
    ]
}

/// A reference's citation fields' values, in [`CITATION_FIELDS`] order. Locators that the
/// reference does not hold as fields are read from its venue's tail ([`split_venue`]).
fn citation_values(r: &Reference) -> Vec<Vec<String>> {
    let names = surnames(&r.authors, &r.surnames);
    let structured = r.volume.is_some() || r.issue.is_some() || r.first_page.is_some();
    let venue = r.venue.as_deref().map(|v| match find_doi(v) {
        Some((a, b, _)) => format!("{} {}", &v[..a], &v[b..]),
        None => v.to_string(),
    });
    let (name, volume, issue, page) = match venue {
        Some(v) if !structured => {
            let s = split_venue(&v);
            (s.name, s.volume, s.issue, s.first_page)
        }
        v => (v, r.volume.clone(), r.issue.clone(), r.first_page.clone()),
    };
    let one = |v: Option<String>| v.into_iter().filter(|s| !s.trim().is_empty()).collect();
    vec![
        one(r.title.clone()),
        names.clone(),
        names.into_iter().take(1).collect(),
        one(r.year_digits().map(str::to_string)),
        one(name),
        one(volume),
        one(issue),
        one(page),
        one(r.doi.clone()),
    ]
}

/// A field's comparison value: its values joined by spaces, normalized.
fn joined(field: &str, values: &[String]) -> String {
    let mut s = String::new();
    for v in values {
        s.push(' ');
        s.push_str(v);
    }
    if field == "doi" {
        identifier_normalization(&s)
    } else {
        basic_normalization(&s)
    }
}

/// GROBID strips the heading that PMC keeps at the start of an abstract; done on both sides
/// here, so that a truth scored against itself matches.
fn strip_abstract_heading(s: &str) -> String {
    for w in ["abstract", "summary"] {
        if let Some(r) = s.strip_prefix(w) {
            return r.strip_prefix(' ').unwrap_or(r).to_string();
        }
    }
    s.to_string()
}

// ---------------------------------------------------------------------------------------------
// Counting

/// The counts of one field under one matching, with the values that missed.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Counts {
    /// True positives.
    pub tp: usize,
    /// False positives.
    pub fp: usize,
    /// False negatives.
    pub fn_: usize,
    /// Expected (gold) values.
    pub expected: usize,
    /// Gold values not matched, with what was predicted in their place.
    pub missing: Vec<Value>,
    /// Predicted values counted false positive, with the gold value they were held against.
    pub extra: Vec<Value>,
}

impl Counts {
    fn add(&mut self, o: &Counts) {
        self.tp += o.tp;
        self.fp += o.fp;
        self.fn_ += o.fn_;
        self.expected += o.expected;
    }

    /// GROBID's precision: `tp / (tp + fp)`, 0 without true positives.
    pub fn precision(&self) -> f64 {
        if self.tp == 0 {
            0.0
        } else {
            self.tp as f64 / (self.tp + self.fp) as f64
        }
    }

    /// GROBID's recall: `tp / expected`, 0 without expected values.
    pub fn recall(&self) -> f64 {
        if self.expected == 0 {
            0.0
        } else {
            self.tp as f64 / self.expected as f64
        }
    }

    /// GROBID's F1: the harmonic mean, 0 when precision and recall are both 0.
    pub fn f1(&self) -> f64 {
        f1(self.precision(), self.recall())
    }
}

fn f1(p: f64, r: f64) -> f64 {
    if p == 0.0 && r == 0.0 {
        0.0
    } else {
        2.0 * p * r / (p + r)
    }
}

/// How many of a group's values a trace lists at most.
const CAP: usize = crate::metrics::paper::TRACE_CAP;

/// Compares one field's gold and predicted (normalized) values under every matching, as
/// GROBID compares an aligned field; `expected` is counted by the caller.
fn compare(field: &str, gold: &str, pred: &str, counts: &mut [Counts; 4], at: impl Fn() -> Value) {
    let textual = is_textual(field);
    let (gs, ps) = if textual {
        (remove_full_punct(gold), remove_full_punct(pred))
    } else {
        (gold.to_string(), pred.to_string())
    };
    let equal = !gold.is_empty() && gold == pred;
    let lev = || {
        if textual {
            let (a, b): (Vec<u16>, Vec<u16>) =
                (gold.encode_utf16().collect(), pred.encode_utf16().collect());
            let bigger = a.len().max(b.len());
            if bigger == 0 {
                0.0
            } else {
                (bigger - levenshtein_utf16(&a, &b)) as f64 / bigger as f64
            }
        } else if equal {
            1.0
        } else {
            0.0
        }
    };
    let ro = || {
        if textual {
            ratcliff_obershelp(gold, pred).unwrap_or(if equal { 1.0 } else { 0.0 })
        } else if equal {
            1.0
        } else {
            0.0
        }
    };
    // An exact match is a match under every matching, even where the soft form of the value
    // is empty (a title `...`), which GROBID would count as missed.
    let hits = [
        equal,
        equal || (!gs.is_empty() && gs == ps),
        equal || (!gs.is_empty() && lev() >= MIN_LEVENSHTEIN),
        equal || (!gs.is_empty() && ro() >= MIN_RATCLIFF_OBERSHELP),
    ];
    for (k, hit) in hits.into_iter().enumerate() {
        let c = &mut counts[k];
        // The strict matching compares the normalized values, the others their soft forms.
        let (g, p) = if k == 0 { (gold, pred) } else { (gs.as_str(), ps.as_str()) };
        if hit {
            c.tp += 1;
        } else if !p.is_empty() {
            c.fp += 1;
            if c.extra.len() < CAP {
                c.extra.push(json!({"pred": pred, "gold": gold, "at": at()}));
            }
            if !g.is_empty() && c.missing.len() < CAP {
                c.missing.push(json!({"gold": gold, "pred": pred, "at": at()}));
            }
        } else if !g.is_empty() {
            c.fn_ += 1;
            if c.missing.len() < CAP {
                c.missing.push(json!({"gold": gold, "pred": pred, "at": at()}));
            }
        }
    }
}

/// The counts of one field group: per field, per matching.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct GroupCounts {
    /// Per field (in the group's field order), per matching (in [`MATCHINGS`] order).
    pub fields: Vec<[Counts; 4]>,
    /// Citations only: aligned pairs per rule (1–4 GROBID's, 5 the all-fields rule), gold and
    /// predicted citations.
    pub alignment: Option<Value>,
}

impl GroupCounts {
    fn new(n: usize) -> GroupCounts {
        GroupCounts { fields: vec![Default::default(); n], alignment: None }
    }
}

/// Counts the header fields of `pred` against `gt`.
pub(crate) fn header_counts(gt: &Paper, pred: &Paper) -> GroupCounts {
    let mut out = GroupCounts::new(HEADER_FIELDS.len());
    let (g, p) = (header_values(gt), header_values(pred));
    for (i, field) in HEADER_FIELDS.iter().enumerate() {
        let mut gold = joined(field, &g[i]);
        let mut got = joined(field, &p[i]);
        if *field == "abstract" {
            gold = strip_abstract_heading(&gold);
            got = strip_abstract_heading(&got);
        }
        if gold.is_empty() && got.is_empty() {
            continue;
        }
        let c = &mut out.fields[i];
        if !gold.is_empty() {
            for x in c.iter_mut() {
                x.expected += 1;
            }
        }
        compare(field, &gold, &got, c, || Value::Null);
    }
    out
}

/// One citation's normalized values and alignment signatures.
struct Cite {
    values: Vec<String>,
    signatures: [Option<String>; 5],
}

fn cite(r: &Reference) -> Cite {
    let raw = citation_values(r);
    let values: Vec<String> = CITATION_FIELDS.iter().zip(&raw).map(|(f, v)| joined(f, v)).collect();
    let soft = |i: usize| remove_full_punct(&values[i]);
    let (title, date, venue, volume, page) =
        (soft(0), values[3].clone(), soft(4), values[5].clone(), values[7].clone());
    // GROBID joins the authors without spaces for the signature; the soft form drops them anyway.
    let authors = remove_full_punct(&basic_normalization(&raw[1].concat()));
    let first = soft(2);
    let sig = |ok: bool, s: String| ok.then_some(s);
    let s1 = sig(!title.is_empty() && !date.is_empty(), format!("{title}{date}"));
    let s2 = sig(!authors.is_empty() && !date.is_empty(), format!("{authors}{date}"));
    let s3 = sig(
        !venue.is_empty() && !volume.is_empty() && !page.is_empty(),
        format!("{venue}{volume}{page}"),
    );
    let s4 = sig(
        !first.is_empty() && (!title.is_empty() || !venue.is_empty()),
        if title.is_empty() { format!("{first}{venue}") } else { format!("{first}{title}") },
    );
    let s5 = sig(values.iter().any(|v| !v.is_empty()), values.join("\u{1f}"));
    Cite { values, signatures: [s1, s2, s3, s4, s5] }
}

/// Aligns the predicted citations with the gold ones and counts the citation fields (nothing
/// where the truth has no reference list).
pub(crate) fn citation_counts(gt: &Paper, pred: &Paper) -> GroupCounts {
    let mut out = GroupCounts::new(CITATION_FIELDS.len());
    // A truth without a reference list (a header-only one) says nothing about citations: the
    // prediction's are not false positives.
    let Some(gold_refs) = &gt.references else {
        return out;
    };
    let gold: Vec<Cite> = gold_refs.iter().map(cite).collect();
    let got: Vec<Cite> = pred.references.iter().flatten().map(cite).collect();
    for g in &gold {
        for (i, v) in g.values.iter().enumerate() {
            if !v.trim().is_empty() {
                for x in out.fields[i].iter_mut() {
                    x.expected += 1;
                }
            }
        }
    }
    // Remaining gold citations, by index, in order.
    let mut left: Vec<usize> = (0..gold.len()).collect();
    let mut by_rule = [0usize; 5];
    let mut unaligned = 0;
    for (pi, p) in got.iter().enumerate() {
        let has_grobid_signature = p.signatures[..4].iter().any(Option::is_some);
        let rules = if has_grobid_signature { 0..4 } else { 4..5 };
        let found = rules.into_iter().find_map(|k| {
            let s = p.signatures[k].as_ref()?;
            let at = left.iter().position(|&g| gold[g].signatures[k].as_ref() == Some(s))?;
            Some((k, at))
        });
        match found {
            Some((k, at)) => {
                by_rule[k] += 1;
                let gi = left.remove(at);
                for (i, field) in CITATION_FIELDS.iter().enumerate() {
                    let (g, v) = (&gold[gi].values[i], &p.values[i]);
                    if g.is_empty() && v.is_empty() {
                        continue;
                    }
                    compare(field, g, v, &mut out.fields[i], || json!({"gold": gi, "pred": pi}));
                }
            }
            None => {
                unaligned += 1;
                for (i, v) in p.values.iter().enumerate() {
                    if v.is_empty() {
                        continue;
                    }
                    for c in out.fields[i].iter_mut() {
                        c.fp += 1;
                        if c.extra.len() < CAP {
                            c.extra
                                .push(json!({"pred": v, "gold": Value::Null, "at": {"pred": pi}}));
                        }
                    }
                }
            }
        }
    }
    // Gold values of gold citations nothing aligned with are missed, without a false negative
    // (GROBID counts them only as expected).
    for &gi in &left {
        for (i, v) in gold[gi].values.iter().enumerate() {
            if v.is_empty() {
                continue;
            }
            for c in out.fields[i].iter_mut() {
                if c.missing.len() < CAP {
                    c.missing.push(json!({"gold": v, "pred": Value::Null, "at": {"gold": gi}}));
                }
            }
        }
    }
    out.alignment = Some(json!({
        "gold": gold.len(), "pred": got.len(),
        "aligned": by_rule.iter().sum::<usize>(), "by_rule": by_rule,
        "unaligned_pred": unaligned, "unaligned_gold": left.len(),
    }));
    out
}

// ---------------------------------------------------------------------------------------------
// Metrics

/// One field metric: id, value (null where the truth has no value for the field), trace.
pub type FieldMetric = (&'static str, Option<f64>, Value);

fn counts_json(c: &Counts) -> Value {
    json!({"tp": c.tp, "fp": c.fp, "fn": c.fn_, "expected": c.expected})
}

/// Scores the field groups of `pred` against `gt`: one metric per id of [`metric_ids`], in that
/// order. Pure and deterministic.
pub fn score(gt: &Paper, pred: &Paper) -> Vec<FieldMetric> {
    let groups = [header_counts(gt, pred), citation_counts(gt, pred)];
    let ids = metric_ids();
    let mut out = Vec::with_capacity(ids.len());
    let mut next = ids.iter();
    for g in &groups {
        for c in g.fields.iter() {
            for x in c {
                let none = x.expected == 0;
                let (p, r) = (x.precision(), x.recall());
                let v = |v: f64| (!none).then_some(v);
                let mut tp = counts_json(x);
                tp["extra"] = Value::Array(x.extra.clone());
                out.push((*next.next().unwrap_or(&""), v(p), tp));
                let mut tr = counts_json(x);
                tr["missing"] = Value::Array(x.missing.clone());
                out.push((*next.next().unwrap_or(&""), v(r), tr));
                let mut tf = counts_json(x);
                tf["p"] = json!(p);
                tf["r"] = json!(r);
                if let Some(a) = &g.alignment {
                    tf["alignment"] = a.clone();
                }
                out.push((*next.next().unwrap_or(&""), v(x.f1()), tf));
            }
        }
        for avg in ["micro", "macro"] {
            for k in 0..MATCHINGS.len() {
                let valid: Vec<&Counts> =
                    g.fields.iter().map(|f| &f[k]).filter(|c| c.expected > 0).collect();
                let (p, r, f) = average(avg, &valid);
                let mut sum = Counts::default();
                for c in &valid {
                    sum.add(c);
                }
                let mut t = counts_json(&sum);
                t["fields"] = json!(valid.len());
                let none = valid.is_empty();
                for v in [p, r, f] {
                    out.push((*next.next().unwrap_or(&""), (!none).then_some(v), t.clone()));
                }
            }
        }
    }
    out
}

/// GROBID's micro (summed counts) or macro (mean of per-field values) precision, recall and
/// F1 over fields that have an expected value.
pub fn average(kind: &str, fields: &[&Counts]) -> (f64, f64, f64) {
    if fields.is_empty() {
        return (0.0, 0.0, 0.0);
    }
    if kind == "micro" {
        let mut s = Counts::default();
        for c in fields {
            s.add(c);
        }
        let p = if s.tp + s.fp == 0 { 0.0 } else { s.tp as f64 / (s.tp + s.fp) as f64 };
        let r = s.recall();
        (p, r, f1(p, r))
    } else {
        let n = fields.len() as f64;
        let mean = |g: fn(&Counts) -> f64| fields.iter().map(|c| g(c)).sum::<f64>() / n;
        (mean(Counts::precision), mean(Counts::recall), mean(Counts::f1))
    }
}

/// Pooled counts over many papers: per group, per field, per matching (tp, fp, expected), read
/// back from the `_f` metrics' traces.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Pooled {
    /// Papers pooled.
    pub papers: usize,
    counts: HashMap<(String, String, String), Counts>,
}

impl Pooled {
    /// Adds one paper's field metrics (id, trace) to the pool.
    pub fn add<'a>(&mut self, metrics: impl IntoIterator<Item = (&'a str, &'a Value)>) {
        self.papers += 1;
        for (id, trace) in metrics {
            let Some(rest) = id.strip_suffix("_f") else { continue };
            let Some((s, rest)) = rest.split_once('_') else { continue };
            let Some((field, m)) = rest.rsplit_once('_') else { continue };
            if !SECTIONS.contains(&s) || matches!(field, "micro" | "macro") {
                continue;
            }
            let n = |k: &str| trace.get(k).and_then(Value::as_u64).unwrap_or(0) as usize;
            let c = Counts {
                tp: n("tp"),
                fp: n("fp"),
                fn_: n("fn"),
                expected: n("expected"),
                ..Counts::default()
            };
            self.counts
                .entry((s.to_string(), field.to_string(), m.to_string()))
                .or_default()
                .add(&c);
        }
    }

    /// The pooled counts of one field under one matching.
    pub fn get(&self, section: &str, field: &str, matching: &str) -> Counts {
        self.counts
            .get(&(section.to_string(), field.to_string(), matching.to_string()))
            .cloned()
            .unwrap_or_default()
    }

    /// The GROBID-style report of the pool: per group, per matching, per field precision,
    /// recall, F1 and support, then micro and macro averages (percentages as GROBID prints
    /// them are these × 100).
    pub fn report(&self) -> Value {
        let mut groups = serde_json::Map::new();
        for s in SECTIONS {
            let mut by_m = serde_json::Map::new();
            for m in MATCHINGS {
                let mut rows = Vec::new();
                let mut valid = Vec::new();
                let cs: Vec<(&str, Counts)> =
                    fields_of(s).iter().map(|f| (*f, self.get(s, f, m))).collect();
                for (f, c) in &cs {
                    rows.push(json!({"field": f, "precision": c.precision(), "recall": c.recall(),
                        "f1": c.f1(), "support": c.expected, "tp": c.tp, "fp": c.fp}));
                    if c.expected > 0 {
                        valid.push(c);
                    }
                }
                let (mp, mr, mf) = average("micro", &valid);
                let (ap, ar, af) = average("macro", &valid);
                by_m.insert(
                    m.to_string(),
                    json!({"fields": rows,
                        "micro": {"precision": mp, "recall": mr, "f1": mf},
                        "macro": {"precision": ap, "recall": ar, "f1": af}}),
                );
            }
            groups.insert(
                if s == "hdr" { "header" } else { "citations" }.to_string(),
                Value::Object(by_m),
            );
        }
        json!({"papers": self.papers, "groups": groups})
    }
}

#[cfg(test)]
#[path = "fields_tests.rs"]
mod tests;
