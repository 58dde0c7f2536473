//! The `paper` suite's metrics (`docs/paper-suite.md` §3–§5): six headline metrics, the detail
//! metrics, each with a JSON trace that says what was missed.
//!
//! Both sides are normalized alike (§3). A metric whose GT side is empty, or whose GT lacks the
//! field (`None`, e.g. a header-only truth has no sections), is `null`. Mentions are rebuilt
//! from both papers here with the one extractor, whatever the papers carry.
//!
//! Two of the detail metrics exist so that a header-only truth scores something:
//! `title_chr` (char similarity of the squashed titles) and `abstract_r` (token recall of the GT
//! abstract against the predicted abstract). After them come GROBID's field scores
//! ([`super::fields`]): header and citation fields under four matchings, with micro and macro
//! averages.

use std::collections::{HashMap, HashSet};

use serde_json::{json, Value};

use super::levenshtein::levenshtein;
use crate::normalize::{
    data_values, fold_line, for_each_token, heading_key, is_number_line, line_info, squash,
    squash_line,
};
use crate::paper::{mentions, Paper, Reference};

/// The version of the suite's rules. Bump it when any metric changes its meaning (2: truths are
/// scored as the linearizer reads them back, and GROBID's field scores are added; the 19
/// metrics of version 1 keep their values; 3: references are keyed in every common style,
/// organisations and untitled works by their names, and unkeyable ones left out of the key
/// sets, `docs/paper-suite.md` §2.1; 4: Vancouver entries with hyphenated initials
/// (`Martin J-P,`) or a single author with one initial (`Nyström Å. Title`) are keyed by the
/// surname).
pub const PAPER_SUITE_VERSION: u32 = 4;

/// The headline metric ids, in column order (Text, Table, Formula, Order, Refs, Mentions).
pub const HEADLINE: [&str; 6] = ["text_r", "tbl_num_cov", "formula", "order", "ref_r", "men_r"];

/// The suite's own metric ids (version 1's): the headline, then the details. [`metric_ids`]
/// adds the field scores after them.
pub const METRIC_IDS: [&str; 19] = [
    "text_r",
    "tbl_num_cov",
    "formula",
    "order",
    "ref_r",
    "men_r",
    "text_p",
    "text_f",
    "text_chr",
    "tbl_p",
    "tbl_r",
    "tbl_f",
    "tbl_txt",
    "ref_p",
    "ref_f",
    "men_p",
    "men_f",
    "title_chr",
    "abstract_r",
];

/// Every metric id [`score`] returns, in its order: [`METRIC_IDS`], then the field scores
/// ([`super::fields::metric_ids`]).
pub fn metric_ids() -> &'static [&'static str] {
    static IDS: std::sync::LazyLock<Vec<&'static str>> = std::sync::LazyLock::new(|| {
        METRIC_IDS.iter().copied().chain(super::fields::metric_ids().iter().copied()).collect()
    });
    &IDS
}

/// How many items a trace lists at most; totals are always given.
pub const TRACE_CAP: usize = 50;

/// One metric of one paper.
#[derive(Debug, Clone, PartialEq)]
pub struct Metric {
    /// The metric id (one of [`METRIC_IDS`]).
    pub id: &'static str,
    /// The value in 0..=1, or `None` where the GT side is empty.
    pub value: Option<f64>,
    /// Why: the counts and what was missed.
    pub trace: Value,
}

fn metric(id: &'static str, value: Option<f64>, trace: Value) -> Metric {
    Metric { id, value, trace }
}

fn ratio(num: usize, den: usize) -> f64 {
    if den == 0 {
        0.0
    } else {
        num as f64 / den as f64
    }
}

/// A precision: `hit` of the prediction's `total` found in the GT; null when the prediction
/// has nothing (0 of 0 is no evidence either way), the trace saying so (docs/paper-suite.md §5).
fn precision(hit: usize, total: usize) -> Option<f64> {
    (total > 0).then(|| ratio(hit, total))
}

/// The F1 metric `id` of a precision (null when the prediction had nothing) and a recall: with
/// a null precision it is 0 when the recall is 0 (nothing found, whatever the precision), else
/// null.
fn f_metric(id: &'static str, p: Option<f64>, r: f64) -> Metric {
    match p {
        Some(p) => metric(id, Some(f1(p, r)), json!({"p": p, "r": r})),
        None if r == 0.0 => metric(id, Some(0.0), json!({"p": null, "r": r})),
        None => metric(
            id,
            None,
            json!({"p": null, "r": r, "reason": "precision undefined: the prediction has none"}),
        ),
    }
}

/// The trace of a precision metric: its counts, and the reason where it is null.
fn p_trace(mut trace: Value, total: usize) -> Value {
    if total == 0 {
        trace["reason"] = json!("the prediction has none: precision undefined, left out of means");
    }
    trace
}

fn f1(p: f64, r: f64) -> f64 {
    if p + r == 0.0 {
        0.0
    } else {
        2.0 * p * r / (p + r)
    }
}

fn cap<T: Into<Value>>(items: impl IntoIterator<Item = T>) -> Value {
    Value::Array(items.into_iter().take(TRACE_CAP).map(Into::into).collect())
}

/// One paper, prepared once for all metrics.
struct Side {
    has_body: bool,
    /// Loose prose: abstract and section lines minus table, junk and number-only lines.
    prose: String,
    /// Loose text of everything: title, abstract, headings, all section lines.
    all: String,
    /// `=` signs on non-junk lines of abstract and sections.
    equals: usize,
    /// Non-junk table lines.
    table_lines: Vec<String>,
    /// Distinct data values in all text.
    values: HashSet<String>,
    /// Heading keys with the headings as printed.
    headings: Vec<(String, String)>,
    /// Squashed abstract + sections.
    body_squash: String,
}

fn push_loose(out: &mut String, line: &str) {
    if !out.is_empty() {
        out.push('\n');
    }
    fold_line(line, out);
}

impl Side {
    fn new(p: &Paper) -> Side {
        let table_set: Option<HashSet<&str>> =
            p.tables.as_ref().map(|t| t.iter().map(|s| s.trim()).collect());
        let mut s = Side {
            has_body: p.sections.is_some(),
            prose: String::new(),
            all: String::new(),
            equals: 0,
            table_lines: Vec::new(),
            values: HashSet::new(),
            headings: Vec::new(),
            body_squash: String::new(),
        };
        for extra in p.title.iter().map(String::as_str).chain(p.headings()) {
            push_loose(&mut s.all, extra);
            s.values.extend(data_values(extra).into_iter().map(str::to_string));
        }
        for h in p.headings() {
            let k = heading_key(h);
            if !k.is_empty() {
                s.headings.push((k, h.to_string()));
            }
        }
        let texts = p.abstract_text.iter().chain(p.sections.iter().flatten().map(|x| &x.text));
        for text in texts {
            for line in text.lines() {
                if is_number_line(line) {
                    continue;
                }
                squash_line(line, &mut s.body_squash);
                push_loose(&mut s.all, line);
                let info = line_info(line);
                for v in &info.values {
                    if !s.values.contains(*v) {
                        s.values.insert(v.to_string());
                    }
                }
                if !info.junk {
                    s.equals += line.bytes().filter(|&b| b == b'=').count();
                }
                let table = match &table_set {
                    Some(set) => set.contains(line.trim()),
                    None => info.table,
                };
                if table && table_set.is_none() {
                    s.table_lines.push(line.to_string());
                }
                if !table && !info.junk {
                    push_loose(&mut s.prose, line);
                }
            }
        }
        // A number-only line is dropped by §3's first rule wherever it stands, a table's too.
        if let Some(t) = &p.tables {
            s.table_lines =
                t.iter().filter(|l| !line_info(l).junk && !is_number_line(l)).cloned().collect();
        }
        s
    }
}

/// A fast non-cryptographic hasher for the token maps (FxHash's multiply-rotate).
#[derive(Default, Clone, Copy)]
struct Fx(u64);

impl std::hash::Hasher for Fx {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut w = [0u8; 8];
            w[..chunk.len()].copy_from_slice(chunk);
            self.0 = (self.0.rotate_left(5) ^ u64::from_le_bytes(w))
                .wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
        }
    }
    fn write_u8(&mut self, i: u8) {
        self.0 = (self.0.rotate_left(5) ^ u64::from(i)).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
    fn write_usize(&mut self, i: usize) {
        self.0 = (self.0.rotate_left(5) ^ i as u64).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
}

type FxMap<K, V> = HashMap<K, V, std::hash::BuildHasherDefault<Fx>>;

fn counts(loose: &str) -> FxMap<&str, usize> {
    let mut m = FxMap::default();
    for_each_token(loose, |t| *m.entry(t).or_insert(0) += 1);
    m
}

/// Σ_t min(a(t), b(t)), and the tokens of `a` short in `b` with how many are short, most first.
fn overlap<'a>(
    a: &FxMap<&'a str, usize>,
    b: &FxMap<&str, usize>,
) -> (usize, Vec<(&'a str, usize)>) {
    let mut hit = 0;
    let mut short = Vec::new();
    for (t, &n) in a {
        let m = b.get(t).copied().unwrap_or(0);
        hit += n.min(m);
        if n > m {
            short.push((*t, n - m));
        }
    }
    short.sort_by(|x, y| y.1.cmp(&x.1).then(x.0.cmp(y.0)));
    (hit, short)
}

fn short_list(short: &[(&str, usize)]) -> Value {
    cap(short.iter().map(|(t, n)| json!({"token": t, "count": n})))
}

fn text_metrics(g: &Side, p: &Side) -> [Metric; 4] {
    let gt = counts(&g.prose);
    let gt_total: usize = gt.values().sum();
    if !g.has_body || gt_total == 0 {
        let t =
            json!({"reason": if g.has_body { "GT prose has no tokens" } else { "GT has no body" }});
        return [
            metric("text_r", None, t.clone()),
            metric("text_p", None, t.clone()),
            metric("text_f", None, t.clone()),
            text_chr(g, p),
        ];
    }
    let all = counts(&p.all);
    let (hit, missing) = overlap(&gt, &all);
    let r = ratio(hit, gt_total);
    let pp = counts(&p.prose);
    let pp_total: usize = pp.values().sum();
    let (phit, extra) = overlap(&pp, &gt);
    let prec = precision(phit, pp_total);
    [
        metric(
            "text_r",
            Some(r),
            json!({"hit": hit, "total": gt_total, "missing_distinct": missing.len(),
                   "missing": short_list(&missing)}),
        ),
        metric(
            "text_p",
            prec,
            p_trace(
                json!({"hit": phit, "total": pp_total, "extra_distinct": extra.len(),
                       "extra": short_list(&extra)}),
                pp_total,
            ),
        ),
        f_metric("text_f", prec, r),
        text_chr(g, p),
    ]
}

fn text_chr(g: &Side, p: &Side) -> Metric {
    if !g.has_body || g.body_squash.is_empty() {
        return metric("text_chr", None, json!({"reason": "GT has no body text"}));
    }
    let d = levenshtein(&g.body_squash, &p.body_squash);
    let m = g.body_squash.len().max(p.body_squash.len());
    metric(
        "text_chr",
        Some(1.0 - ratio(d, m)),
        json!({"distance": d, "gt_chars": g.body_squash.len(), "pred_chars": p.body_squash.len()}),
    )
}

fn value_counts(lines: &[String]) -> FxMap<&str, usize> {
    let mut m = FxMap::default();
    for l in lines {
        for v in data_values(l) {
            *m.entry(v).or_insert(0) += 1;
        }
    }
    m
}

fn table_metrics(g: &Side, p: &Side) -> [Metric; 5] {
    let gv = value_counts(&g.table_lines);
    let g_total: usize = gv.values().sum();
    if !g.has_body || g_total == 0 {
        let t =
            json!({"reason": "GT has no table data values", "gt_table_lines": g.table_lines.len()});
        return ["tbl_num_cov", "tbl_p", "tbl_r", "tbl_f", "tbl_txt"]
            .map(|id| metric(id, None, t.clone()));
    }
    let mut distinct: Vec<&str> = gv.keys().copied().collect();
    distinct.sort_unstable();
    let missing: Vec<&str> = distinct.iter().copied().filter(|v| !p.values.contains(*v)).collect();
    let cov_hit = distinct.len() - missing.len();
    let pv = value_counts(&p.table_lines);
    let p_total: usize = pv.values().sum();
    let (hit, short) = overlap(&gv, &pv);
    let (_, extra) = overlap(&pv, &gv);
    let r = ratio(hit, g_total);
    let prec = precision(hit, p_total);
    let gsq = squash(&g.table_lines.join("\n"));
    let psq = squash(&p.table_lines.join("\n"));
    let d = levenshtein(&gsq, &psq);
    let m = gsq.len().max(psq.len());
    let txt = if m == 0 { 1.0 } else { 1.0 - ratio(d, m) };
    let values = |s: &[(&str, usize)]| cap(s.iter().map(|(v, n)| json!({"value": v, "count": n})));
    [
        metric(
            "tbl_num_cov",
            Some(ratio(cov_hit, distinct.len())),
            json!({"hit": cov_hit, "total": distinct.len(), "missing": cap(missing.iter().copied()),
                   "gt_table_lines": g.table_lines.len()}),
        ),
        metric(
            "tbl_p",
            prec,
            p_trace(
                json!({"hit": hit, "total": p_total, "pred_table_lines": p.table_lines.len(),
                       "extra": values(&extra)}),
                p_total,
            ),
        ),
        metric("tbl_r", Some(r), json!({"hit": hit, "total": g_total, "missing": values(&short)})),
        f_metric("tbl_f", prec, r),
        metric(
            "tbl_txt",
            Some(txt),
            json!({"distance": d, "gt_chars": gsq.len(), "pred_chars": psq.len()}),
        ),
    ]
}

fn formula_metric(g: &Side, p: &Side) -> Metric {
    if !g.has_body || g.equals == 0 {
        return metric("formula", None, json!({"gt": g.equals, "pred": p.equals}));
    }
    let hit = p.equals.min(g.equals);
    metric("formula", Some(ratio(hit, g.equals)), json!({"gt": g.equals, "pred": p.equals}))
}

fn order_metric(g: &Side, p: &Side) -> Metric {
    if !g.has_body || g.headings.is_empty() {
        return metric("order", None, json!({"total": 0}));
    }
    let a = &g.headings;
    let b = &p.headings;
    // LCS table, (n+1) x (m+1); headings are few.
    let w = b.len() + 1;
    let mut t = vec![0u32; (a.len() + 1) * w];
    for i in (0..a.len()).rev() {
        for j in (0..b.len()).rev() {
            t[i * w + j] = if a[i].0 == b[j].0 {
                t[(i + 1) * w + j + 1] + 1
            } else {
                t[(i + 1) * w + j].max(t[i * w + j + 1])
            };
        }
    }
    let mut unmatched = Vec::new();
    let (mut i, mut j) = (0, 0);
    while i < a.len() {
        if j < b.len() && a[i].0 == b[j].0 {
            i += 1;
            j += 1;
        } else if j < b.len() && t[i * w + j + 1] >= t[(i + 1) * w + j] {
            j += 1;
        } else {
            unmatched.push(a[i].1.clone());
            i += 1;
        }
    }
    let lcs = t[0] as usize;
    metric(
        "order",
        Some(ratio(lcs, a.len())),
        json!({"matched": lcs, "total": a.len(), "pred_headings": b.len(),
               "unmatched": cap(unmatched)}),
    )
}

fn key_str((last, year): &(String, String)) -> String {
    format!("{last} {year}")
}

/// Splits a reference list into its key set and the references no key can be formed for
/// (`docs/paper-suite.md` §2.1), each named by its ACL rendering.
fn reference_keys(p: &Paper) -> (HashSet<(String, String)>, Vec<String>) {
    let mut keys = HashSet::new();
    let mut unkeyable = Vec::new();
    for r in p.references.iter().flatten() {
        match r.key() {
            Some(k) => {
                keys.insert(k);
            }
            None => unkeyable.push(crate::paper::references::format_reference(r)),
        }
    }
    (keys, unkeyable)
}

/// Adds the unkeyable references to a trace, where there are any: their number and their
/// renderings (capped).
fn with_unkeyable(mut trace: Value, unkeyable: &[String]) -> Value {
    if !unkeyable.is_empty() {
        trace["unkeyable"] = json!(unkeyable.len());
        trace["unkeyable_refs"] = cap(unkeyable.iter().cloned());
    }
    trace
}

fn reference_metrics(gt: &Paper, pred: &Paper) -> [Metric; 3] {
    let (g, g_unkeyable) = reference_keys(gt);
    if g.is_empty() {
        let reason = if g_unkeyable.is_empty() {
            "GT has no references"
        } else {
            "GT has no keyable reference"
        };
        let t = with_unkeyable(json!({ "reason": reason }), &g_unkeyable);
        return ["ref_r", "ref_p", "ref_f"].map(|id| metric(id, None, t.clone()));
    }
    let (p, p_unkeyable) = reference_keys(pred);
    let hit = g.intersection(&p).count();
    let mut missing: Vec<String> = g.difference(&p).map(key_str).collect();
    let mut extra: Vec<String> = p.difference(&g).map(key_str).collect();
    missing.sort();
    extra.sort();
    let r = ratio(hit, g.len());
    let prec = precision(hit, p.len());
    [
        metric(
            "ref_r",
            Some(r),
            with_unkeyable(
                json!({"hit": hit, "total": g.len(), "missing": cap(missing.iter().cloned())}),
                &g_unkeyable,
            ),
        ),
        metric(
            "ref_p",
            prec,
            with_unkeyable(
                p_trace(json!({"hit": hit, "total": p.len(), "extra": cap(extra)}), p.len()),
                &p_unkeyable,
            ),
        ),
        f_metric("ref_f", prec, r),
    ]
}

fn mention_keys(p: &Paper) -> HashMap<String, usize> {
    let refs = p.references.as_deref().unwrap_or_default();
    let mut m = HashMap::new();
    for x in mentions::cited(p) {
        // A mention of an unkeyable reference has no key to count (§2.1).
        if let Some(k) = refs.get(x).and_then(Reference::key) {
            *m.entry(key_str(&k)).or_insert(0) += 1;
        }
    }
    m
}

fn mention_metrics(gt: &Paper, pred: &Paper) -> [Metric; 3] {
    let g = mention_keys(gt);
    let g_total: usize = g.values().sum();
    if g_total == 0 {
        let t = json!({"reason": "GT has no mentions"});
        return ["men_r", "men_p", "men_f"].map(|id| metric(id, None, t.clone()));
    }
    let p = mention_keys(pred);
    let p_total: usize = p.values().sum();
    let gr: FxMap<&str, usize> = g.iter().map(|(k, v)| (k.as_str(), *v)).collect();
    let pr: FxMap<&str, usize> = p.iter().map(|(k, v)| (k.as_str(), *v)).collect();
    let (hit, missing) = overlap(&gr, &pr);
    let (_, extra) = overlap(&pr, &gr);
    let r = ratio(hit, g_total);
    let prec = precision(hit, p_total);
    let list = |s: &[(&str, usize)]| cap(s.iter().map(|(k, n)| json!({"key": k, "count": n})));
    [
        metric("men_r", Some(r), json!({"hit": hit, "total": g_total, "missing": list(&missing)})),
        metric(
            "men_p",
            prec,
            p_trace(json!({"hit": hit, "total": p_total, "extra": list(&extra)}), p_total),
        ),
        f_metric("men_f", prec, r),
    ]
}

fn header_metrics(gt: &Paper, pred: &Paper) -> [Metric; 2] {
    let title = match gt.title.as_deref().map(squash).filter(|s| !s.is_empty()) {
        None => metric("title_chr", None, json!({"reason": "GT has no title"})),
        Some(g) => {
            let p = squash(pred.title.as_deref().unwrap_or(""));
            let d = levenshtein(&g, &p);
            let m = g.len().max(p.len());
            metric(
                "title_chr",
                Some(1.0 - ratio(d, m)),
                json!({"distance": d, "gt": gt.title, "pred": pred.title}),
            )
        }
    };
    let gl = crate::normalize::loose(gt.abstract_text.as_deref().unwrap_or(""));
    let g = counts(&gl);
    let g_total: usize = g.values().sum();
    let abs = if g_total == 0 {
        metric("abstract_r", None, json!({"reason": "GT has no abstract"}))
    } else {
        let pl = crate::normalize::loose(pred.abstract_text.as_deref().unwrap_or(""));
        let (hit, missing) = overlap(&g, &counts(&pl));
        metric(
            "abstract_r",
            Some(ratio(hit, g_total)),
            json!({"hit": hit, "total": g_total, "missing": short_list(&missing)}),
        )
    };
    [title, abs]
}

/// Scores a prediction against a ground truth: one [`Metric`] per id of [`metric_ids`], in that
/// order. Pure and deterministic; a few milliseconds for a typical paper.
pub fn score(gt: &Paper, pred: &Paper) -> Vec<Metric> {
    let g = Side::new(gt);
    let p = Side::new(pred);
    let [text_r, text_p, text_f, text_chr] = text_metrics(&g, &p);
    let [cov, tbl_p, tbl_r, tbl_f, tbl_txt] = table_metrics(&g, &p);
    let [ref_r, ref_p, ref_f] = reference_metrics(gt, pred);
    let [men_r, men_p, men_f] = mention_metrics(gt, pred);
    let [title, abs] = header_metrics(gt, pred);
    let fields = super::fields::score(gt, pred).into_iter().map(|(id, v, t)| metric(id, v, t));
    let mut out = vec![
        text_r,
        cov,
        formula_metric(&g, &p),
        order_metric(&g, &p),
        ref_r,
        men_r,
        text_p,
        text_f,
        text_chr,
        tbl_p,
        tbl_r,
        tbl_f,
        tbl_txt,
        ref_p,
        ref_f,
        men_p,
        men_f,
        title,
        abs,
    ];
    out.extend(fields);
    out
}

/// Returns the suite's summary row (`AVG`): per metric id, the unweighted mean over papers of
/// the non-null values (`None` where every paper is null); the trace gives the counts.
pub fn average(rows: &[Vec<Metric>]) -> Vec<Metric> {
    metric_ids()
        .iter()
        .map(|&id| {
            let vals: Vec<f64> = rows
                .iter()
                .flat_map(|r| r.iter())
                .filter(|m| m.id == id)
                .filter_map(|m| m.value)
                .collect();
            let value = (!vals.is_empty()).then(|| vals.iter().sum::<f64>() / vals.len() as f64);
            metric(id, value, json!({"papers": vals.len(), "null": rows.len() - vals.len()}))
        })
        .collect()
}

#[cfg(test)]
#[path = "paper_tests.rs"]
mod tests;
