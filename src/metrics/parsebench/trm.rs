//! TableRecordMatch (ParseBench's `table_record_match_metric.py`: `normalize_table`,
//! `_score_table_pair`, `compute_extracted`); rules in `docs/parsebench.md` ("The table
//! dimension").
//!
//! A table becomes records: one per data row (not in the header block, a bottom title row of
//! a multi-row block counted as data), keyed by its column's key (the column's header texts
//! of the block, title rows left out, joined by spaces; `col_<i>` where there are none;
//! duplicates suffixed `_0`, `_1`, …), rows whose every value is empty dropped. Columns are
//! aligned by `fuzz.ratio` of their keys (lower-cased, a spaced dash as a space; a synthetic
//! key only meets a synthetic one) with SciPy's linear assignment, a pair kept at ≥ 0.9;
//! records are paired the same way on their similarity (matching cells over all columns of
//! both sides), and the table's score is the paired similarities' sum over the larger record
//! count.

use std::collections::{BTreeSet, HashMap};
use std::sync::LazyLock;

use regex::Regex;

use super::normalize::{normalize_text, py_strip};
use super::table_data::{sub_sup_to_ascii, TableData};
use super::title_strip::HeaderHints;
use crate::metrics::fuzz::ratio;

const SYNTHETIC: &str = "col_";
const MATCH: f64 = 0.9;
const EMPTY: [&str; 10] = ["", "nan", "NaN", "NAN", "none", "None", "-", "—", "n/a", "N/A"];

fn re(p: &str) -> Regex {
    Regex::new(p).expect("a fixed pattern")
}

static SPACED_DOTS: LazyLock<Regex> = LazyLock::new(|| re(r"(?:\.\s){2,}\.?"));
static DOTS: LazyLock<Regex> = LazyLock::new(|| re(r"\.{2,}"));
static SPACES2: LazyLock<Regex> = LazyLock::new(|| re(r"  +"));
static DOLLAR: LazyLock<Regex> = LazyLock::new(|| re(r"\$\s+"));
static PERCENT: LazyLock<Regex> = LazyLock::new(|| re(r"\s+%"));
static OPEN: LazyLock<Regex> = LazyLock::new(|| re(r"\s+\("));
static CLOSE: LazyLock<Regex> = LazyLock::new(|| re(r"\s+\)"));
static REGISTERED: LazyLock<Regex> = LazyLock::new(|| re(r"\s+®"));
static THOUSANDS: LazyLock<Regex> = LazyLock::new(|| re(r"(\d),(\d)"));
static KEY_DASH: LazyLock<Regex> =
    LazyLock::new(|| re("\\s+[-\u{2010}\u{2011}\u{2012}\u{2013}\u{2014}\u{2015}\u{2212}]\\s+"));

fn is_empty_value(v: &str) -> bool {
    EMPTY.contains(&py_strip(v))
}

/// `_normalize_trm_cell_text`: dot leaders out, spaces before `%`, `(`, `)`, `®` and after
/// `$` out, thousands commas between digits out.
pub(super) fn trm_cell(text: &str) -> String {
    let s = SPACED_DOTS.replace_all(text, "");
    let s = DOTS.replace_all(&s, "");
    let s = SPACES2.replace_all(&s, " ");
    let s = py_strip(&s);
    let s = DOLLAR.replace_all(s, "$");
    let s = PERCENT.replace_all(&s, "%");
    let s = OPEN.replace_all(&s, "(");
    let s = CLOSE.replace_all(&s, ")");
    let s = REGISTERED.replace_all(&s, "®");
    THOUSANDS.replace_all(&s, "$1$2").into_owned()
}

fn norm_cell(s: &str) -> String {
    trm_cell(&normalize_text(&sub_sup_to_ascii(s)))
}

/// `normalize_table`: every cell and header text normalized (`normalize_text` and the TRM
/// cell rules), columns empty in every cell and header dropped.
pub fn normalize_table(t: &TableData) -> TableData {
    if t.is_empty() {
        return t.clone();
    }
    let data: Vec<Vec<String>> =
        t.data.iter().map(|row| row.iter().map(|c| norm_cell(c)).collect()).collect();
    let norm = |v: &Vec<(usize, String)>| v.iter().map(|(i, s)| (*i, norm_cell(s))).collect();
    let col_headers: std::collections::BTreeMap<usize, Vec<(usize, String)>> =
        t.col_headers.iter().map(|(c, v)| (*c, norm(v))).collect();
    let row_headers: std::collections::BTreeMap<usize, Vec<(usize, String)>> =
        t.row_headers.iter().map(|(r, v)| (*r, norm(v))).collect();
    let keep: Vec<usize> = (0..t.cols)
        .filter(|&c| {
            data.iter().any(|row| !row[c].is_empty())
                || col_headers.get(&c).into_iter().flatten().any(|(_, s)| !s.is_empty())
        })
        .collect();
    if keep.len() == t.cols {
        return TableData { data, col_headers, row_headers, ..t.clone() };
    }
    let new: HashMap<usize, usize> = keep.iter().enumerate().map(|(n, o)| (*o, n)).collect();
    TableData {
        cols: keep.len(),
        data: data.iter().map(|row| keep.iter().map(|c| row[*c].clone()).collect()).collect(),
        header_rows: t.header_rows.clone(),
        header_cols: t.header_cols.iter().filter_map(|c| new.get(c).copied()).collect(),
        col_headers: col_headers
            .into_iter()
            .filter_map(|(c, v)| Some((*new.get(&c)?, v)))
            .collect(),
        row_headers: row_headers
            .into_iter()
            .map(|(r, v)| {
                (r, v.into_iter().filter_map(|(c, s)| Some((*new.get(&c)?, s))).collect())
            })
            .collect(),
        header_cells: t.header_cells.iter().filter_map(|(r, c)| Some((*r, *new.get(c)?))).collect(),
    }
}

/// A table's header analysis (`HeaderInfo`).
#[derive(Debug, Clone, PartialEq)]
struct Header {
    keys: Vec<String>,
    synthetic: BTreeSet<String>,
    block: BTreeSet<usize>,
    th_titles: BTreeSet<usize>,
    titles: BTreeSet<String>,
}

/// `_disambiguate_keys`.
fn disambiguate(raw: &[String]) -> Vec<String> {
    let mut seen: HashMap<&str, usize> = HashMap::new();
    let mut first: HashMap<&str, usize> = HashMap::new();
    let mut out = Vec::with_capacity(raw.len());
    for (i, k) in raw.iter().enumerate() {
        first.entry(k).or_insert(i);
        match seen.get_mut(k.as_str()) {
            Some(n) => {
                *n += 1;
                out.push(format!("{k}_{n}"));
            }
            None => {
                seen.insert(k, 0);
                out.push(k.clone());
            }
        }
    }
    for (k, n) in &seen {
        if *n > 0 {
            out[first[k]] = format!("{k}_0");
        }
    }
    out
}

/// `_build_column_keys`.
fn column_keys(
    t: &TableData,
    block: &BTreeSet<usize>,
    titles: &BTreeSet<usize>,
) -> (Vec<String>, BTreeSet<String>) {
    let mut raw = Vec::with_capacity(t.cols);
    let mut synth = BTreeSet::new();
    for c in 0..t.cols {
        let mut parts: Vec<&(usize, String)> = t
            .col_headers
            .get(&c)
            .into_iter()
            .flatten()
            .filter(|(r, _)| block.contains(r) && !titles.contains(r))
            .collect();
        parts.sort_by_key(|p| p.0);
        let key: Vec<&str> =
            parts.iter().map(|p| p.1.as_str()).filter(|s| !py_strip(s).is_empty()).collect();
        let key = key.join(" ");
        if key.is_empty() {
            raw.push(format!("{SYNTHETIC}{c}"));
            synth.insert(c);
        } else {
            raw.push(key);
        }
    }
    let keys = disambiguate(&raw);
    let synthetic = synth.iter().map(|c| keys[*c].clone()).collect();
    (keys, synthetic)
}

fn header_of(t: &TableData, h: &HeaderHints) -> Header {
    if t.is_empty() {
        return Header {
            keys: vec![],
            synthetic: BTreeSet::new(),
            block: BTreeSet::new(),
            th_titles: BTreeSet::new(),
            titles: BTreeSet::new(),
        };
    }
    let (keys, synthetic) = column_keys(t, &h.col_header_rows, &h.th_title_rows);
    Header {
        keys,
        synthetic,
        block: h.col_header_rows.clone(),
        th_titles: h.th_title_rows.clone(),
        titles: h.stripped_titles.iter().filter(|s| !s.is_empty()).cloned().collect(),
    }
}

/// `_data_row_indices`.
fn data_rows(h: &Header, n: usize) -> Vec<usize> {
    let last = h.block.iter().max().copied();
    let emit = match last {
        Some(l) if h.block.len() > 1 && h.th_titles.contains(&l) => Some(l),
        _ => None,
    };
    (0..n).filter(|r| !h.block.contains(r) || Some(*r) == emit).collect()
}

fn records(t: &TableData, h: &Header) -> Vec<HashMap<String, String>> {
    if t.is_empty() {
        return vec![];
    }
    data_rows(h, t.rows())
        .into_iter()
        .map(|r| h.keys.iter().cloned().zip(t.data[r].iter().cloned()).collect::<HashMap<_, _>>())
        .filter(|rec| !rec.values().all(|v| py_strip(v).is_empty()))
        .collect()
}

/// SciPy's `linear_sum_assignment(-sim)`: the (row, column) pairs of the best assignment.
pub(super) fn assign(sim: &[f64], rows: usize, cols: usize) -> Vec<(usize, usize)> {
    let cost: Vec<f64> = sim.iter().map(|x| -x).collect();
    match lsap::solve(rows, cols, &cost, false) {
        Ok((r, c)) => r.into_iter().zip(c).collect(),
        Err(_) => Vec::new(),
    }
}

type Mapping = Vec<(String, String)>;

/// Python's `dict[k] = v`: overwrite in place, else append.
fn put(m: &mut Mapping, k: String, v: String) {
    match m.iter_mut().find(|e| e.0 == k) {
        Some(e) => e.1 = v,
        None => m.push((k, v)),
    }
}

fn align_core(
    gt: &[String],
    pred: &[String],
    gs: &BTreeSet<String>,
    ps: &BTreeSet<String>,
) -> (Mapping, f64) {
    let key = |k: &str| KEY_DASH.replace_all(k, " ").to_lowercase();
    let gn: Vec<String> = gt.iter().map(|k| key(k)).collect();
    let pn: Vec<String> = pred.iter().map(|k| key(k)).collect();
    let mut sim = vec![0.0; gt.len() * pred.len()];
    for (i, g) in gt.iter().enumerate() {
        for (j, p) in pred.iter().enumerate() {
            let ge = is_empty_value(g) || gs.contains(g);
            let pe = is_empty_value(p) || ps.contains(p);
            if ge == pe {
                sim[i * pred.len() + j] = ratio(&gn[i], &pn[j]) / 100.0;
            }
        }
    }
    let mut m = Mapping::new();
    let mut scores = Vec::new();
    for (r, c) in assign(&sim, gt.len(), pred.len()) {
        let s = sim[r * pred.len() + c];
        if s >= MATCH {
            put(&mut m, gt[r].clone(), pred[c].clone());
            scores.push(s);
        }
    }
    let mean =
        if scores.is_empty() { 0.0 } else { scores.iter().sum::<f64>() / scores.len() as f64 };
    (m, mean)
}

/// `align_columns` (with its prefix-stripping retry when under half the columns match).
fn align(g: &Header, p: &Header) -> (Mapping, f64) {
    if g.keys.is_empty() || p.keys.is_empty() {
        return (Mapping::new(), 0.0);
    }
    let (m, s) = align_core(&g.keys, &p.keys, &g.synthetic, &p.synthetic);
    let min = g.keys.len().min(p.keys.len());
    if min <= 1 || m.len() as f64 >= min as f64 * 0.5 {
        return (m, s);
    }
    let mut best = (m, s);
    let strip = |keys: &[String], synth: &BTreeSet<String>, prefix: &str| {
        let stripped: Vec<String> =
            keys.iter().map(|k| k.strip_prefix(prefix).unwrap_or(k).to_string()).collect();
        let ss: BTreeSet<String> = stripped
            .iter()
            .zip(keys)
            .filter(|(_, o)| synth.contains(*o))
            .map(|(s, _)| s.clone())
            .collect();
        let back: HashMap<String, String> =
            stripped.iter().cloned().zip(keys.iter().cloned()).collect();
        (stripped, ss, back)
    };
    for title in &p.titles {
        let prefix = format!("{title} ");
        if !g.keys.iter().any(|k| k.starts_with(&prefix)) {
            continue;
        }
        let (sg, ss, back) = strip(&g.keys, &g.synthetic, &prefix);
        let (tm, ts) = align_core(&sg, &p.keys, &ss, &p.synthetic);
        let mut remapped = Mapping::new();
        for (k, v) in tm {
            put(&mut remapped, back[&k].clone(), v);
        }
        if remapped.len() > best.0.len() {
            best = (remapped, ts);
        }
    }
    for title in &g.titles {
        let prefix = format!("{title} ");
        if !p.keys.iter().any(|k| k.starts_with(&prefix)) {
            continue;
        }
        let (sp, ss, back) = strip(&p.keys, &p.synthetic, &prefix);
        let (tm, ts) = align_core(&g.keys, &sp, &g.synthetic, &ss);
        let remapped: Mapping = tm.into_iter().map(|(k, v)| (k, back[&v].clone())).collect();
        if remapped.len() > best.0.len() {
            best = (remapped, ts);
        }
    }
    best
}

/// `_try_section_header_promotion`: the row under the block, when one value spans it.
fn promote(t: &TableData, h: &Header) -> Option<Header> {
    let cand = h.block.iter().max()? + 1;
    if cand >= t.rows() {
        return None;
    }
    let uniq: BTreeSet<&str> =
        (0..t.cols).map(|c| py_strip(&t.data[cand][c])).filter(|v| !v.is_empty()).collect();
    if uniq.len() != 1 {
        return None;
    }
    let mut block = h.block.clone();
    block.insert(cand);
    let (keys, synthetic) = column_keys(t, &block, &h.th_titles);
    Some(Header { keys, synthetic, block, ..h.clone() })
}

fn all_synthetic(h: &Header) -> bool {
    h.keys.iter().all(|k| h.synthetic.contains(k))
}

/// `_try_recover_pred_header`: the prediction's first data row as its header when the truth
/// has real headers, the prediction none, and a value of that row matches one.
fn recover(g: &Header, t: &TableData, p: &Header) -> Option<Header> {
    if all_synthetic(g) || !all_synthetic(p) {
        return None;
    }
    let first = *data_rows(p, t.rows()).first()?;
    let vals: Vec<&str> = (0..t.cols).map(|c| py_strip(&t.data[first][c])).collect();
    let real: BTreeSet<String> =
        g.keys.iter().filter(|k| !g.synthetic.contains(*k)).map(|k| k.to_lowercase()).collect();
    let hit = vals
        .iter()
        .filter(|v| !v.is_empty())
        .any(|v| real.iter().any(|k| ratio(&v.to_lowercase(), k) / 100.0 >= MATCH));
    if !hit {
        return None;
    }
    let mut block = p.block.clone();
    block.insert(first);
    let raw: Vec<String> = vals
        .iter()
        .enumerate()
        .map(|(c, v)| if v.is_empty() { format!("{SYNTHETIC}{c}") } else { v.to_string() })
        .collect();
    let keys = disambiguate(&raw);
    let synthetic = keys
        .iter()
        .enumerate()
        .filter(|(c, _)| vals[*c].is_empty())
        .map(|(_, k)| k.clone())
        .collect();
    Some(Header { keys, synthetic, block, ..p.clone() })
}

/// `_demote_pred_headers`: a truth without headers makes the prediction's data.
fn demote(g: &Header, t: &TableData, p: Header) -> Header {
    if !all_synthetic(g) || all_synthetic(&p) {
        return p;
    }
    let keys: Vec<String> = (0..t.cols).map(|c| format!("{SYNTHETIC}{c}")).collect();
    Header {
        synthetic: keys.iter().cloned().collect(),
        keys,
        block: BTreeSet::new(),
        th_titles: BTreeSet::new(),
        titles: BTreeSet::new(),
    }
}

fn cell_score(a: &str, b: &str) -> f64 {
    match (is_empty_value(a), is_empty_value(b)) {
        (true, true) => 1.0,
        (false, false) if a == b => 1.0,
        _ => 0.0,
    }
}

/// `match_records`: the paired records' similarity sum over the larger record count.
fn match_records(
    g: &[HashMap<String, String>],
    p: &[HashMap<String, String>],
    m: &Mapping,
    (gk, pk): (usize, usize),
    zero: &BTreeSet<String>,
) -> f64 {
    if g.is_empty() && p.is_empty() {
        return 1.0;
    }
    if g.is_empty() || p.is_empty() {
        return 0.0;
    }
    // Matched columns, plus each side's unmatched ones.
    let total = (gk + pk) as i64 - m.len() as i64;
    let sim_of = |a: &HashMap<String, String>, b: &HashMap<String, String>| {
        if m.is_empty() || total <= 0 {
            return 0.0;
        }
        let mut s = 0.0;
        for (gk, pk) in m {
            if zero.contains(gk) {
                continue;
            }
            let empty = String::new();
            s += cell_score(a.get(gk).unwrap_or(&empty), b.get(pk).unwrap_or(&empty));
        }
        s / total as f64
    };
    let sim: Vec<f64> = g.iter().flat_map(|a| p.iter().map(move |b| sim_of(a, b))).collect();
    let sum: f64 = assign(&sim, g.len(), p.len()).iter().map(|(r, c)| sim[r * p.len() + c]).sum();
    sum / g.len().max(p.len()) as f64
}

/// `_score_table_pair`: one truth table against its paired prediction (both trimmed).
pub fn score_pair(gt: &TableData, gh: &HeaderHints, pred: &TableData, ph: &HeaderHints) -> f64 {
    let (gt, pred) = (normalize_table(gt), normalize_table(pred));
    let mut g = header_of(&gt, gh);
    let mut p = header_of(&pred, ph);
    if let Some(r) = recover(&g, &pred, &p) {
        p = r;
    }
    p = demote(&g, &pred, p);
    let (mut m, mut score) = align(&g, &p);
    let p_before = p.clone();
    for is_gt in [true, false] {
        let promoted = if is_gt { promote(&gt, &g) } else { promote(&pred, &p_before) };
        let Some(pr) = promoted else { continue };
        let (tm, ts) = if is_gt { align(&pr, &p) } else { align(&g, &pr) };
        if tm.len() > m.len() || (tm.len() == m.len() && ts > score) {
            (m, score) = (tm, ts);
            if is_gt {
                g = pr;
            } else {
                p = pr;
            }
        }
    }
    if m.is_empty() {
        return 0.0;
    }
    let zero: BTreeSet<String> = m
        .iter()
        .filter(|(gk, pk)| {
            !g.synthetic.contains(gk)
                && !is_empty_value(gk)
                && (p.synthetic.contains(pk) || is_empty_value(pk))
        })
        .map(|(gk, _)| gk.clone())
        .collect();
    let gr = records(&gt, &g);
    let pr = records(&pred, &p);
    if gr.is_empty() {
        return 0.0;
    }
    match_records(&gr, &pr, &m, (g.keys.len(), p.keys.len()), &zero)
}

/// `compute_extracted`: (the mean over the truth's tables of each one's score against its
/// paired prediction, 0 unpaired; the share of tables scoring 1); `None` without truth tables.
pub fn table_record_match(
    gt: &[(TableData, HeaderHints)],
    pred: &[(TableData, HeaderHints)],
    pairing: &[(usize, Option<usize>)],
) -> Option<(f64, f64)> {
    if gt.is_empty() {
        return None;
    }
    if pred.is_empty() {
        return Some((0.0, 0.0));
    }
    let scores: Vec<f64> = pairing
        .iter()
        .map(|&(g, p)| match p {
            Some(p) if p < pred.len() && g < gt.len() => {
                score_pair(&gt[g].0, &gt[g].1, &pred[p].0, &pred[p].1)
            }
            _ => 0.0,
        })
        .collect();
    if scores.is_empty() {
        return Some((0.0, 0.0));
    }
    let n = scores.len() as f64;
    let perfect = scores.iter().filter(|s| **s == 1.0).count() as f64;
    Some((scores.iter().sum::<f64>() / n, perfect / n))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metrics::parsebench::table_data::parse_table;
    use crate::metrics::parsebench::title_strip::strip_title_rows;

    fn trm(gt: &str, pred: &str) -> f64 {
        let (g, gh) = strip_title_rows(&parse_table(gt).unwrap(), 1);
        let (p, ph) = strip_title_rows(&parse_table(pred).unwrap(), 1);
        score_pair(&g, &gh, &p, &ph)
    }

    const GT: &str =
        "<table><tr><th>Fruit</th><th>Price</th></tr><tr><td>Apple</td><td>$ 1,000</td></tr>\
                      <tr><td>Pear</td><td>2</td></tr></table>";

    #[test]
    fn cells_normalize_for_records() {
        assert_eq!(trm_cell("Item . . . . 5"), "Item 5");
        assert_eq!(trm_cell("$ 1,000,000 %"), "$1000000%");
        assert_eq!(norm_cell("H<sub>2</sub>O"), "h2o");
        assert_eq!(disambiguate(&["a".into(), "b".into(), "a".into()]), ["a_0", "b", "a_1"]);
    }

    #[test]
    fn records_match_by_header_and_value() {
        assert_eq!(trm(GT, GT), 1.0);
        // Same records in another order and column order: still 1.
        let swapped =
            "<table><tr><th>Price</th><th>Fruit</th></tr><tr><td>2</td><td>Pear</td></tr>\
                       <tr><td>$1000</td><td>Apple</td></tr></table>";
        assert_eq!(trm(GT, swapped), 1.0);
        // One wrong price: (2 + 1) / 2 records / 2 columns -> 0.75.
        let wrong =
            "<table><tr><th>Fruit</th><th>Price</th></tr><tr><td>Apple</td><td>$1000</td></tr>\
                     <tr><td>Pear</td><td>3</td></tr></table>";
        assert_eq!(trm(GT, wrong), 0.75);
        // No header matches: 0.
        let other = "<table><tr><th>X</th><th>Y</th></tr><tr><td>Apple</td><td>2</td></tr></table>";
        assert_eq!(trm(GT, other), 0.0);
        // Headers as a data row are recovered: 1.
        let td =
            "<table><tr><td>Fruit</td><td>Price</td></tr><tr><td>Apple</td><td>$1,000</td></tr>\
                  <tr><td>Pear</td><td>2</td></tr></table>";
        assert_eq!(trm(GT, td), 1.0);
    }
}
