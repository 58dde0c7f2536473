//! `utils/match_quick.py::match_gt2pred_quick` (the "adjacency search match",
//! `docs/omnidocbench.md` §4): ignore categories first (cost < 0.25), truncated-prediction merging
//! (`deal_with_truncated`, `judge_pred_merge` with the 0.6 fuzzy rule, `get_final_subset`),
//! Hungarian assignment, rejection above 0.7, the 0.4 substring rescue, recalculation, leftover
//! pairing and the post-processing that builds the reported entries (see the parent module for the
//! quirks kept).

use super::*;

// ---------------------------------------------------------------------------------------------
// Quick match internals

/// `judge_pred_merge` with threshold 0.6: `(merge, continue)`.
fn judge_pred_merge(gt: &[char], pieces: &[&[char]]) -> (bool, bool) {
    const T: f64 = 0.6;
    if pieces.len() == 1 {
        return (false, false);
    }
    let cur = join_chars(&pieces[..pieces.len() - 1], ' ');
    let merged = join_chars(pieces, ' ');
    if norm_dist(gt, &merged) > norm_dist(gt, &cur) {
        return (false, false);
    }
    if !pieces[..pieces.len() - 1].iter().all(|p| window_within(gt, p, T, true)) {
        return (false, false);
    }
    let last = pieces[pieces.len() - 1];
    if last.is_empty() || last.len() > gt.len() {
        return (false, false);
    }
    (window_within(gt, last, T, false), merged.len() <= gt.len())
}

/// `get_final_subset`: resolves overlapping merge candidates, keeping per overlap group the path
/// with the lowest mean cost.
fn get_final_subset(subsets: &[Vec<usize>], costs: &[f64]) -> Vec<Vec<usize>> {
    if subsets.is_empty() {
        return vec![];
    }
    let mut tuples: Vec<(Vec<usize>, f64)> =
        subsets.iter().cloned().zip(costs.iter().copied()).collect();
    tuples.sort_by_key(|t| t.0[0]);
    let mut groups: Vec<Vec<(Vec<usize>, f64)>> = vec![vec![tuples[0].clone()]];
    for item in tuples.into_iter().skip(1) {
        let overlap =
            groups.last().is_some_and(|g| g.iter().any(|s| item.0.iter().any(|i| s.0.contains(i))));
        if overlap {
            if let Some(g) = groups.last_mut() {
                g.push(item);
            }
        } else {
            groups.push(vec![item]);
        }
    }
    let mut out = Vec::new();
    for group in groups {
        if group.len() == 1 {
            out.push(group[0].0.clone());
            continue;
        }
        let mut paths: Vec<Vec<(Vec<usize>, f64)>> = vec![vec![group[0].clone()]];
        for subset in group.iter().skip(1) {
            let mut new_path = true;
            for path in paths.iter_mut() {
                let mut is_dup = false;
                let mut is_same = false;
                // Iterate over a snapshot: the reference mutates the list while looping over it,
                // but only by replacing the current element, which a snapshot reproduces.
                let snapshot = path.clone();
                for item in &snapshot {
                    if item.0 == subset.0 {
                        is_dup = true;
                        is_same = true;
                        if item.1 > subset.1 {
                            if let Some(k) = path.iter().position(|x| x == item) {
                                path.remove(k);
                            }
                            path.push(subset.clone());
                        }
                    } else if item.0.iter().any(|a| subset.0.contains(a)) {
                        is_dup = true;
                    }
                }
                if !is_dup {
                    path.push(subset.clone());
                    new_path = false;
                }
                if is_same {
                    new_path = false;
                }
            }
            if new_path {
                paths.push(vec![subset.clone()]);
            }
        }
        let mut best = f64::INFINITY;
        let mut saved: Vec<Vec<usize>> = vec![];
        for path in &paths {
            let avg = path.iter().map(|x| x.1).sum::<f64>() / path.len() as f64;
            if avg < best {
                best = avg;
                saved = path.iter().map(|x| x.0.clone()).collect();
            }
        }
        out.extend(saved);
    }
    out
}

#[derive(Debug, Clone, PartialEq)]
enum Col {
    One(usize),
    Group(Vec<usize>),
}

/// `deal_with_truncated` + `linear_sum_assignment`: returns per assigned GT row the column
/// (single prediction or merged range) and its cost.
fn cal_final_match(
    cost: &Matrix,
    gt: &[Vec<char>],
    pred: &[Vec<char>],
) -> (Vec<Col>, Vec<usize>, Vec<f64>) {
    let first = cost.below(0.25);
    let masked_gt: BTreeSet<usize> = first.iter().map(|x| x.0).collect();
    let masked_pred: BTreeSet<usize> = first.iter().map(|x| x.1).collect();
    let unmasked_gt: Vec<usize> = (0..cost.rows).filter(|i| !masked_gt.contains(i)).collect();
    let unmasked_pred: Vec<usize> = (0..cost.cols).filter(|i| !masked_pred.contains(i)).collect();
    let mut subset_certain: Vec<Vec<usize>> = Vec::new();
    let mut subset_cost: Vec<f64> = Vec::new();
    for &g in &unmasked_gt {
        let mut best: Option<(f64, Vec<usize>)> = None;
        for &p in &unmasked_pred {
            let mut step = 1;
            loop {
                if masked_pred.contains(&(p + step)) || p + step >= pred.len() {
                    break;
                }
                let pieces: Vec<&[char]> = (p..=p + step).map(|k| pred[k].as_slice()).collect();
                let (merge, cont) = judge_pred_merge(&gt[g], &pieces);
                if !merge {
                    break;
                }
                step += 1;
                if !cont {
                    break;
                }
            }
            let pieces: Vec<&[char]> = (p..p + step).map(|k| pred[k].as_slice()).collect();
            let d = norm_dist(&gt[g], &join_chars(&pieces, ' '));
            if best.as_ref().is_none_or(|b| d < b.0) {
                best = Some((d, (p..p + step).collect()));
            }
        }
        if let Some((d, s)) = best {
            subset_certain.push(s);
            subset_cost.push(d);
        }
    }
    let final_subsets = get_final_subset(&subset_certain, &subset_cost);
    let (matrix, cols) = if final_subsets.is_empty() {
        (None, (0..pred.len()).map(Col::One).collect::<Vec<_>>())
    } else {
        let mut list: Vec<Col> = (0..pred.len()).map(Col::One).collect();
        for sub in &final_subsets {
            let Some(pop) = list.iter().position(|c| *c == Col::One(sub[0])) else { continue };
            for _ in 0..sub.len() {
                if pop < list.len() {
                    list.remove(pop);
                }
            }
            list.insert(pop, Col::Group(sub.clone()));
        }
        let lines: Vec<Vec<char>> = list
            .iter()
            .map(|c| match c {
                Col::One(i) => pred[*i].clone(),
                Col::Group(g) => {
                    let pieces: Vec<&[char]> =
                        (g[0]..=g[g.len() - 1]).map(|k| pred[k].as_slice()).collect();
                    join_chars(&pieces, ' ')
                }
            })
            .collect();
        (Some(Matrix::new(gt, &lines)), list)
    };
    let m = matrix.as_ref().unwrap_or(cost);
    let pairs = hungarian(m);
    let rows = pairs.iter().map(|p| p.0).collect();
    let costs = pairs.iter().map(|p| m.at(p.0, p.1)).collect();
    let matched = pairs.iter().map(|p| cols[p.1].clone()).collect();
    (matched, rows, costs)
}

struct FinalMatch {
    key: Vec<usize>,
    gt_indices: Vec<usize>,
    edit: Option<f64>,
}

/// `merge_matches`: groups GT by identical prediction key, then adds the fuzzy matches.
fn merge_matches(
    matches: &[(usize, Vec<usize>, f64)],
    fuzzy: &[(usize, Vec<usize>)],
) -> Vec<FinalMatch> {
    let mut out: Vec<FinalMatch> = Vec::new();
    let mut processed: BTreeSet<usize> = BTreeSet::new();
    for (g, preds, edit) in matches {
        let mut key = preds.clone();
        key.sort_unstable();
        if let Some(f) = out.iter_mut().find(|f| f.key == key) {
            if processed.insert(*g) {
                f.gt_indices.push(*g);
            }
        } else {
            out.push(FinalMatch { key, gt_indices: vec![*g], edit: Some(*edit) });
            processed.insert(*g);
        }
    }
    for (p, gts) in fuzzy {
        let key = vec![*p];
        if let Some(f) = out.iter_mut().find(|f| f.key == key) {
            for g in gts {
                if processed.insert(*g) {
                    f.gt_indices.push(*g);
                }
            }
        } else {
            let fresh: Vec<usize> =
                gts.iter().copied().filter(|g| !processed.contains(g)).collect();
            processed.extend(fresh.iter().copied());
            out.push(FinalMatch { key, gt_indices: fresh, edit: None });
        }
    }
    out
}

fn recalculate(finals: &mut [FinalMatch], gt: &[Vec<char>], pred: &[Vec<char>]) {
    for f in finals.iter_mut() {
        let gts: BTreeSet<usize> = f.gt_indices.iter().copied().collect();
        if gts.is_empty() {
            f.edit = Some(1.0);
            continue;
        }
        let (a, b) = if gts.len() > 1 {
            let merged: Vec<char> = gts.iter().flat_map(|g| gt[*g].iter().copied()).collect();
            (merged, pred[f.key[0]].clone())
        } else {
            let pieces: Vec<&[char]> = f.key.iter().map(|k| pred[*k].as_slice()).collect();
            (gt[*gts.iter().next().unwrap_or(&0)].clone(), join_chars(&pieces, ' '))
        };
        let m = a.len().max(b.len());
        f.edit = Some(if m == 0 { 1.0 } else { lev_chars(&a, &b) as f64 / m as f64 });
    }
}

#[derive(Debug, Clone)]
struct Converted {
    gt_idx: Option<usize>,
    pred_idx: Option<Vec<usize>>,
    edit: f64,
}

fn convert_final_matches(
    finals: &[FinalMatch],
    n_gt: usize,
    n_pred: usize,
    pred_c: &[Vec<char>],
    gt_c: &[Vec<char>],
) -> Vec<Converted> {
    let mut out = Vec::new();
    for f in finals {
        let gts: BTreeSet<usize> = f.gt_indices.iter().copied().collect();
        for g in gts {
            out.push(Converted {
                gt_idx: Some(g),
                pred_idx: Some(f.key.clone()),
                edit: f.edit.unwrap_or(1.0),
            });
        }
    }
    let matched_gt: BTreeSet<usize> =
        finals.iter().flat_map(|f| f.gt_indices.iter().copied()).collect();
    let unmatched_gt: Vec<usize> = (0..n_gt).filter(|g| !matched_gt.contains(g)).collect();
    let matched_pred: BTreeSet<usize> = finals.iter().flat_map(|f| f.key.iter().copied()).collect();
    let unmatched_pred: Vec<usize> = (0..n_pred).filter(|p| !matched_pred.contains(p)).collect();
    if !unmatched_pred.is_empty() {
        if !unmatched_gt.is_empty() {
            let a: Vec<Vec<char>> = unmatched_gt.iter().map(|g| gt_c[*g].clone()).collect();
            let b: Vec<Vec<char>> = unmatched_pred.iter().map(|p| pred_c[*p].clone()).collect();
            for (i, j) in hungarian(&Matrix::new(&a, &b)) {
                let (g, p) = (unmatched_gt[i], unmatched_pred[j]);
                out.push(Converted { gt_idx: Some(g), pred_idx: Some(vec![p]), edit: 1.0 });
            }
        } else {
            out.push(Converted { gt_idx: None, pred_idx: Some(unmatched_pred.clone()), edit: 1.0 });
        }
    } else {
        for g in unmatched_gt {
            out.push(Converted { gt_idx: Some(g), pred_idx: None, edit: 1.0 });
        }
    }
    out
}

#[derive(Debug, Clone)]
struct Merged {
    gt_idx: Vec<Option<usize>>,
    pred_idx: Option<Vec<usize>>,
    edit: f64,
}

fn merge_duplicates_add_unmatched(conv: &[Converted], n_gt: usize) -> Vec<Merged> {
    let mut out = Vec::new();
    let mut seen_pred: Vec<Vec<usize>> = Vec::new();
    let mut seen_gt: BTreeSet<Option<usize>> = BTreeSet::new();
    for (k, e) in conv.iter().enumerate() {
        let Some(p) = &e.pred_idx else { continue };
        if seen_pred.contains(p) {
            continue;
        }
        let mut m = Merged { gt_idx: vec![e.gt_idx], pred_idx: Some(p.clone()), edit: e.edit };
        for (k2, o) in conv.iter().enumerate() {
            if k2 != k && o.pred_idx.as_ref() == Some(p) {
                m.gt_idx.push(o.gt_idx);
                seen_gt.insert(o.gt_idx);
            }
        }
        out.push(m);
        seen_pred.push(p.clone());
        seen_gt.insert(e.gt_idx);
    }
    for g in 0..n_gt {
        if !seen_gt.contains(&Some(g)) {
            out.push(Merged { gt_idx: vec![Some(g)], pred_idx: None, edit: 1.0 });
        }
    }
    out
}

/// Most common element, ties broken by first occurrence (`Counter.most_common(1)`).
fn most_common(items: &[&str]) -> String {
    let mut counts: Vec<(&str, usize)> = Vec::new();
    for it in items {
        match counts.iter_mut().find(|c| c.0 == *it) {
            Some(c) => c.1 += 1,
            None => counts.push((it, 1)),
        }
    }
    let mut best: Option<(&str, usize)> = None;
    for c in counts {
        if best.is_none_or(|b| c.1 > b.1) {
            best = Some(c);
        }
    }
    best.map(|b| b.0.to_string()).unwrap_or_default()
}

/// A view of one side of the matching problem: filtered lines plus the unfiltered items that
/// the reference indexes with filtered indices.
struct Side<'a> {
    gt_lines: Vec<String>,
    gt_norm: Vec<String>,
    gt_c: Vec<Vec<char>>,
    gt_cat: Vec<String>,
    gt_items: Vec<&'a GtItem>,
    pred_lines: Vec<String>,
    pred_norm: Vec<String>,
    pred_c: Vec<Vec<char>>,
    pred_items: Vec<&'a PredItem>,
}

fn formula_array(lines: &[&str]) -> String {
    let inner: Vec<String> =
        lines.iter().map(|l| format!("{{{}}}", l.trim_matches('$').trim_matches('\n'))).collect();
    format!("\\begin{{array}}{{l}} {} \\end{{array}}", inner.join(" \\\\ "))
}

/// Runs the post-processing loop of `match_gt2pred_quick` over merged entries of one side
/// (the ignore side when `ignore_side`), including the `list.remove`-while-iterating skip.
fn finish_entries(merged: Vec<Merged>, side: &Side, ignore_side: bool) -> Vec<MatchEntry> {
    let mut out: Vec<(MatchEntry, bool)> = Vec::new();
    let mut i = 0;
    let mut list = merged;
    while i < list.len() {
        let m = list[i].clone();
        let gt_idx: Option<Vec<usize>> =
            if m.gt_idx.iter().all(|g| g.is_none()) && m.gt_idx.len() == 1 {
                None
            } else {
                Some(m.gt_idx.iter().map(|g| g.unwrap_or(0)).collect())
            };
        let pred_idx = m.pred_idx.clone();
        let pred_cat = |p: &Option<Vec<usize>>| -> String {
            p.as_ref()
                .and_then(|v| v.first())
                .and_then(|k| side.pred_items.get(*k))
                .map(|x| x.category_name().to_string())
                .unwrap_or_default()
        };
        let mut removed = false;
        let gt_category = match &gt_idx {
            Some(g) => {
                let cats: Vec<&str> = g.iter().map(|k| side.gt_cat[*k].as_str()).collect();
                let clean: Vec<&str> =
                    cats.iter().copied().filter(|c| !IGNORE_CATEGORIES.contains(c)).collect();
                if clean.is_empty() {
                    most_common(&cats)
                } else {
                    most_common(&clean)
                }
            }
            None => {
                if pred_cat(&pred_idx) == "equation_inline" {
                    removed = true;
                }
                String::new()
            }
        };
        let gt_position = match &gt_idx {
            Some(g) => g.iter().map(|k| side.gt_items.get(*k).and_then(|x| x.position())).collect(),
            None => vec![None],
        };
        let pred_position = pred_idx
            .as_ref()
            .and_then(|v| v.first())
            .and_then(|k| side.pred_items.get(*k))
            .map(|x| x.position.0);
        let pred_category_type = pred_cat(&pred_idx);
        let gt = match &gt_idx {
            Some(g) if !ignore_side && gt_category == "equation_isolated" && g.len() > 1 => {
                formula_array(&g.iter().map(|k| side.gt_lines[*k].as_str()).collect::<Vec<_>>())
            }
            Some(g) => g.iter().map(|k| side.gt_lines[*k].as_str()).collect(),
            None => String::new(),
        };
        let pred = match &pred_idx {
            Some(p) if !ignore_side && pred_category_type.contains("equation") && p.len() > 1 => {
                formula_array(&p.iter().map(|k| side.pred_lines[*k].as_str()).collect::<Vec<_>>())
            }
            Some(p) => p.iter().map(|k| side.pred_lines[*k].as_str()).collect(),
            None => String::new(),
        };
        let gt_attribute = match &gt_idx {
            Some(g) => {
                g.iter().map(|k| side.gt_items.get(*k).and_then(|x| x.attribute.clone())).collect()
            }
            None => vec![None],
        };
        let entry = MatchEntry {
            norm_gt: gt_idx
                .as_ref()
                .map(|g| g.iter().map(|k| side.gt_norm[*k].as_str()).collect())
                .unwrap_or_default(),
            norm_pred: pred_idx
                .as_ref()
                .map(|p| p.iter().map(|k| side.pred_norm[*k].as_str()).collect())
                .unwrap_or_default(),
            gt_idx,
            gt,
            pred_idx,
            pred,
            edit: m.edit,
            gt_category_type: Some(gt_category),
            gt_position,
            pred_position,
            pred_category_type,
            gt_attribute,
        };
        if removed {
            // `list.remove(entry)` inside the `for` loop: the entry disappears and the next one is
            // never visited (it keeps no category and is dropped downstream).
            list.remove(i);
            if i < list.len() {
                let skipped = list[i].clone();
                out.push((
                    MatchEntry {
                        gt_idx: skipped.gt_idx.iter().copied().collect::<Option<Vec<_>>>(),
                        gt: String::new(),
                        pred_idx: skipped.pred_idx.clone(),
                        pred: String::new(),
                        edit: skipped.edit,
                        gt_category_type: None,
                        gt_position: vec![],
                        pred_position: None,
                        pred_category_type: String::new(),
                        gt_attribute: vec![],
                        norm_gt: String::new(),
                        norm_pred: String::new(),
                    },
                    true,
                ));
            }
            i += 1;
            continue;
        }
        out.push((entry, false));
        i += 1;
    }
    out.into_iter().map(|x| x.0).collect()
}

/// `match_gt2pred_quick` on one page's text pool.
pub fn match_quick(gt_items: &[GtItem], pred_items: &[PredItem]) -> Vec<MatchEntry> {
    let gt_items = split_gt_equation_arrays(gt_items);
    let mut order: Vec<usize> = (0..pred_items.len()).collect();
    order.sort_by_key(|&k| {
        (pred_items[k].fine == Some("equation_inline"), pred_items[k].position.0, k)
    });
    let sorted: Vec<PredItem> = order.iter().map(|&k| pred_items[k].clone()).collect();
    let pred_items = split_pred_equation_arrays(sorted);
    let lines = get_gt_pred_lines(&gt_items, &pred_items, LineType::Text);
    let n_gt = lines.gt_norm.len();
    let n_pred = lines.pred_norm.len();
    let gt_pos = |k: usize| gt_items.get(k).and_then(|x| x.position());
    let gt_attr = |k: usize| gt_items.get(k).and_then(|x| x.attribute.clone());
    if n_gt == 0 {
        return (0..n_pred)
            .map(|p| MatchEntry {
                gt_idx: None,
                gt: String::new(),
                pred_idx: Some(vec![p]),
                pred: lines.pred_lines[p].clone(),
                edit: 1.0,
                gt_category_type: Some(String::new()),
                gt_position: vec![None],
                pred_position: pred_items.get(p).map(|x| x.position.0),
                pred_category_type: pred_items
                    .get(p)
                    .map(|x| x.category_name().to_string())
                    .unwrap_or_default(),
                gt_attribute: vec![None],
                norm_gt: String::new(),
                norm_pred: lines.pred_norm[p].clone(),
            })
            .collect();
    }
    if n_pred == 0 || (n_gt == 1 && n_pred == 1) {
        return (0..n_gt)
            .map(|g| {
                let has = n_pred == 1;
                MatchEntry {
                    gt_idx: Some(vec![g]),
                    gt: lines.gt_lines[g].clone(),
                    pred_idx: if has { Some(vec![0]) } else { None },
                    pred: if has { lines.pred_lines[0].clone() } else { String::new() },
                    edit: if has {
                        norm_dist(&lines.gt_norm_c[0], &lines.pred_norm_c[0])
                    } else {
                        1.0
                    },
                    gt_category_type: Some(lines.gt_cat[g].clone()),
                    gt_position: vec![gt_pos(g)],
                    pred_position: if has {
                        pred_items.first().map(|x| x.position.0)
                    } else {
                        None
                    },
                    pred_category_type: if has {
                        pred_items
                            .first()
                            .map(|x| x.category_name().to_string())
                            .unwrap_or_default()
                    } else {
                        String::new()
                    },
                    gt_attribute: vec![gt_attr(g)],
                    norm_gt: lines.gt_norm[g].clone(),
                    norm_pred: if has { lines.pred_norm[0].clone() } else { String::new() },
                }
            })
            .collect();
    }

    // Split GT into ignore / regular categories (filtered index -> unfiltered item, as the
    // reference does).
    let (mut ig, mut reg): (Vec<usize>, Vec<usize>) = (vec![], vec![]);
    for g in 0..n_gt {
        if IGNORE_CATEGORIES.contains(&lines.gt_cat[g].as_str()) {
            ig.push(g);
        } else {
            reg.push(g);
        }
    }
    let mut results_ignore: Vec<MatchEntry> = Vec::new();
    let mut ignore_pred_idxs: Vec<usize> = Vec::new();
    if !ig.is_empty() {
        let ig_c: Vec<Vec<char>> = ig.iter().map(|g| lines.gt_norm_c[*g].clone()).collect();
        let m = Matrix::new(&ig_c, &lines.pred_norm_c);
        let hits = m.below(0.25);
        ignore_pred_idxs = hits.iter().map(|h| h.1).collect();
        let side = Side {
            gt_lines: ig.iter().map(|g| lines.gt_lines[*g].clone()).collect(),
            gt_norm: ig.iter().map(|g| lines.gt_norm[*g].clone()).collect(),
            gt_c: ig_c.clone(),
            gt_cat: ig.iter().map(|g| lines.gt_cat[*g].clone()).collect(),
            gt_items: ig.iter().filter_map(|g| gt_items.get(*g)).collect(),
            pred_lines: ignore_pred_idxs.iter().map(|p| lines.pred_lines[*p].clone()).collect(),
            pred_norm: ignore_pred_idxs.iter().map(|p| lines.pred_norm[*p].clone()).collect(),
            pred_c: ignore_pred_idxs.iter().map(|p| lines.pred_norm_c[*p].clone()).collect(),
            pred_items: ignore_pred_idxs.iter().filter_map(|p| pred_items.get(*p)).collect(),
        };
        // ignore_matches_dict[gt] = {pred_indices: [k]}: later hits overwrite earlier ones but
        // keep the first insertion position.
        let mut dict: Vec<(usize, usize, f64)> = Vec::new();
        for (k, (i, j)) in hits.iter().enumerate() {
            let e = m.at(*i, *j);
            match dict.iter_mut().find(|d| d.0 == *i) {
                Some(d) => {
                    d.1 = k;
                    d.2 = e;
                }
                None => dict.push((*i, k, e)),
            }
        }
        let matches: Vec<(usize, Vec<usize>, f64)> =
            dict.iter().map(|d| (d.0, vec![d.1], d.2)).collect();
        let mut finals = merge_matches(&matches, &[]);
        recalculate(&mut finals, &side.gt_c, &side.pred_c);
        let conv = convert_final_matches(
            &finals,
            side.gt_norm.len(),
            side.pred_norm.len(),
            &side.pred_c,
            &side.gt_c,
        );
        let merged = merge_duplicates_add_unmatched(&conv, side.gt_norm.len());
        results_ignore = finish_entries(merged, &side, true);
        for e in results_ignore.iter_mut() {
            if let Some(g) = e.gt_idx.as_mut() {
                for x in g.iter_mut() {
                    *x = ig[*x];
                }
            }
            if let Some(p) = e.pred_idx.as_mut() {
                for x in p.iter_mut() {
                    *x = ignore_pred_idxs[*x];
                }
            }
        }
    }

    let keep_pred: Vec<usize> = (0..n_pred).filter(|p| !ignore_pred_idxs.contains(p)).collect();
    let side = Side {
        gt_lines: reg.iter().map(|g| lines.gt_lines[*g].clone()).collect(),
        gt_norm: reg.iter().map(|g| lines.gt_norm[*g].clone()).collect(),
        gt_c: reg.iter().map(|g| lines.gt_norm_c[*g].clone()).collect(),
        gt_cat: reg.iter().map(|g| lines.gt_cat[*g].clone()).collect(),
        gt_items: reg.iter().filter_map(|g| gt_items.get(*g)).collect(),
        pred_lines: keep_pred.iter().map(|p| lines.pred_lines[*p].clone()).collect(),
        pred_norm: keep_pred.iter().map(|p| lines.pred_norm[*p].clone()).collect(),
        pred_c: keep_pred.iter().map(|p| lines.pred_norm_c[*p].clone()).collect(),
        pred_items: keep_pred.iter().filter_map(|p| pred_items.get(*p)).collect(),
    };
    let cost = Matrix::new(&side.gt_c, &side.pred_c);
    let (cols, rows, costs) = cal_final_match(&cost, &side.gt_c, &side.pred_c);

    // process_matches: reject costs above 0.7.
    let mut matches: Vec<(usize, Vec<usize>, f64)> = Vec::new();
    let mut unmatched_gt: Vec<usize> = Vec::new();
    for g in 0..side.gt_norm.len() {
        if let Some(k) = rows.iter().position(|r| *r == g) {
            let range: Vec<usize> = match &cols[k] {
                Col::One(p) => vec![*p],
                Col::Group(v) => (v[0]..=v[v.len() - 1]).collect(),
            };
            if costs[k] > 0.7 {
                unmatched_gt.push(g);
            } else {
                matches.push((g, range, costs[k]));
            }
        } else {
            unmatched_gt.push(g);
        }
    }
    // fuzzy_match_unmatched_items: a leftover GT found (< 0.4) inside any prediction.
    let mut fuzzy: Vec<(usize, Vec<usize>)> = Vec::new();
    for (p, pc) in side.pred_c.iter().enumerate() {
        let hits: Vec<usize> = unmatched_gt
            .iter()
            .copied()
            .filter(|g| window_within(pc, &side.gt_c[*g], 0.4, false))
            .collect();
        if !hits.is_empty() {
            fuzzy.push((p, hits));
        }
    }
    let mut finals = merge_matches(&matches, &fuzzy);
    recalculate(&mut finals, &side.gt_c, &side.pred_c);
    let conv = convert_final_matches(
        &finals,
        side.gt_norm.len(),
        side.pred_norm.len(),
        &side.pred_c,
        &side.gt_c,
    );
    let merged = merge_duplicates_add_unmatched(&conv, side.gt_norm.len());
    let mut results = finish_entries(merged, &side, false);
    for e in results.iter_mut() {
        if let Some(g) = e.gt_idx.as_mut() {
            for x in g.iter_mut() {
                *x = reg[*x];
            }
        }
        if let Some(p) = e.pred_idx.as_mut() {
            for x in p.iter_mut() {
                *x = keep_pred[*x];
            }
        }
    }
    results.extend(results_ignore);
    results
}

#[cfg(test)]
mod tests {
    use super::super::tests::{gt, pred};
    use super::*;

    #[test]
    fn quick_match_pairs_identical_blocks_and_drops_extra_preds() {
        let g = vec![
            gt("text_block", 1.0, "The quick brown fox"),
            gt("text_block", 2.0, "jumps over the lazy dog"),
        ];
        let p = vec![
            pred(0, "The quick brown fox"),
            pred(20, "jumps over the lazy dog"),
            pred(50, "Completely unrelated words here"),
        ];
        let m = match_quick(&g, &p);
        let with_gt: Vec<_> = m.iter().filter(|e| e.gt_idx.is_some()).collect();
        assert_eq!(with_gt.len(), 2);
        assert!(with_gt.iter().all(|e| e.norm_gt == e.norm_pred));
        let extra: Vec<_> = m.iter().filter(|e| e.gt_idx.is_none()).collect();
        assert_eq!(extra.len(), 1);
        assert_eq!(extra[0].pred_idx, Some(vec![2]));
        assert_eq!(extra[0].gt_category_type.as_deref(), Some(""));
    }

    #[test]
    fn split_prediction_is_merged() {
        let g = vec![
            gt("text_block", 1.0, "alpha beta gamma delta epsilon zeta"),
            gt("title", 2.0, "Another title"),
        ];
        let p = vec![
            pred(0, "alpha beta gamma"),
            pred(20, "delta epsilon zeta"),
            pred(40, "Another title"),
        ];
        let m = match_quick(&g, &p);
        let first = m.iter().find(|e| e.gt_idx == Some(vec![0])).unwrap();
        assert_eq!(first.pred_idx, Some(vec![0, 1]));
        // Reported norm_pred joins the pieces without separator.
        assert_eq!(first.norm_pred, "alphabetagammadeltaepsilonzeta");
    }

    #[test]
    fn cost_above_point_seven_is_rejected() {
        // d("abcdefghij", "abcxyzuvwq") = 7/10 -> kept; 8/10 -> rejected.
        let keep = match_quick(
            &[
                gt("text_block", 1.0, "abcdefghij"),
                gt("text_block", 2.0, "zzzzzzzzzzzzzzzzzzzzzzzzz"),
            ],
            &[pred(0, "abcxyzuvwq"), pred(9, "qqqqq")],
        );
        assert_eq!(
            keep.iter().find(|e| e.gt_idx == Some(vec![0])).unwrap().pred_idx,
            Some(vec![0])
        );
        let reject = match_quick(
            &[
                gt("text_block", 1.0, "abcdefghij"),
                gt("text_block", 2.0, "zzzzzzzzzzzzzzzzzzzzzzzzz"),
            ],
            &[pred(0, "abxyzuvwqr"), pred(9, "qqqqq")],
        );
        let e = reject.iter().find(|e| e.gt_idx == Some(vec![0])).unwrap();
        // Rejected, then re-paired by the final leftover Hungarian with recorded edit 1.
        assert_eq!(e.edit, 1.0);
    }

    #[test]
    fn ignore_category_matched_below_quarter() {
        let g = vec![
            gt("header", 1.0, "Journal of Things 2024"),
            gt("text_block", 2.0, "Body text of the page"),
            gt("text_block", 3.0, "More body text"),
        ];
        let p = vec![
            pred(0, "Journal of Things 2024"),
            pred(30, "Body text of the page"),
            pred(60, "More body text"),
        ];
        let m = match_quick(&g, &p);
        let h = m.iter().find(|e| e.gt_category_type.as_deref() == Some("header")).unwrap();
        assert_eq!(h.pred_idx, Some(vec![0]));
        assert_eq!(h.norm_pred, "JournalofThings2024");
    }

    #[test]
    fn get_final_subset_keeps_lowest_mean_path() {
        let subsets = vec![vec![0, 1], vec![1, 2], vec![3]];
        let costs = vec![0.5, 0.2, 0.1];
        assert_eq!(get_final_subset(&subsets, &costs), vec![vec![1, 2], vec![3]]);
    }

    #[test]
    fn judge_merge_threshold() {
        let g = chars("abcdefghij");
        assert_eq!(judge_pred_merge(&g, &[&chars("abcde"), &chars("fghij")]), (true, false));
        // A piece that does not occur in the GT (distance > 0.6) stops the merge.
        assert!(!judge_pred_merge(&g, &[&chars("abcde"), &chars("xyzzy")]).0);
        // Last piece: best window "fghij" vs "fgxyz" = 3/5 = 0.6 is not < 0.6.
        assert!(!judge_pred_merge(&g, &[&chars("abcde"), &chars("fgxyz")]).0);
        // Earlier pieces may sit exactly at 0.6 ("abxyz" vs "abcde" = 3/5).
        let g2 = chars("abcdefghijklmno");
        assert!(judge_pred_merge(&g2, &[&chars("abxyz"), &chars("fghij"), &chars("klmno")]).0);
    }

    /// Ignore categories are paired in their own pass when the cost is below 0.25.
    #[test]
    fn ignore_pass_threshold_quarter() {
        let run = |header_pred: &str| {
            let g = vec![
                gt("header", 1.0, "abcdefghijklmnopqrst"),
                gt("text_block", 2.0, "Some body text here"),
            ];
            let p = vec![pred(0, header_pred), pred(30, "Some body text here")];
            let m = match_quick(&g, &p);
            m.into_iter().find(|e| e.gt_category_type.as_deref() == Some("header")).unwrap()
        };
        // 4 edits / 20 = 0.2 < 0.25: matched.
        assert_eq!(run("abcdefghijklmnopWXYZ").pred_idx, Some(vec![0]));
        // 5 edits / 20 = 0.25: not matched in the ignore pass; the GT stays unmatched.
        assert_eq!(run("abcdefghijklmnoVWXYZ").pred_idx, None);
    }

    /// A GT rejected by the assignment is attached to a prediction containing it (< 0.4).
    #[test]
    fn substring_rescue_threshold_point_four() {
        let run = |tail: &str| {
            let g = vec![
                gt("text_block", 1.0, "Lorem ipsum dolor sit amet"),
                gt("text_block", 2.0, "abcde"),
            ];
            let p = vec![
                pred(0, &format!("Lorem ipsum dolor sit amet {tail}")),
                pred(40, "zzzzzzzzzz"),
            ];
            match_quick(&g, &p)
                .into_iter()
                .find(|e| e.gt_idx.as_ref().is_some_and(|g| g.contains(&1)))
                .unwrap()
        };
        // Window "abcdy": 1/5 = 0.2 -> rescued into prediction 0, sharing it with GT 0.
        let e = run("abcdy");
        assert_eq!((e.gt_idx, e.pred_idx), (Some(vec![0, 1]), Some(vec![0])));
        // Window "abcxy": 2/5 = 0.4 is not < 0.4 -> left over, paired with prediction 1 (edit 1).
        let e = run("abcxy");
        assert_eq!(e.pred_idx, Some(vec![1]));
        assert_eq!(e.edit, 1.0);
    }
}
