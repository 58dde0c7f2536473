//! COCO-style detection evaluation, computed as pycocotools' `COCOeval` computes it for
//! `iouType='bbox'` with its default parameters (`docs/detection.md` §2 lists every rule and
//! the places where corpus departs from it).
//!
//! The evaluation has the reference's two halves. [`evaluate_image`] matches one image's
//! detections of one category to its ground truths at every IoU threshold and area range
//! (`COCOeval.evaluateImg`); the result, an [`ImageEval`], is self-contained, so a suite can
//! store it per page and [`accumulate`] any set of pages later (`COCOeval.accumulate`), which
//! is how a report pools AP over the documents it selects. [`summarize`] gives the twelve
//! figures `COCOeval.summarize` prints, and per category AP, AP50, AP75 and AR@100.
//!
//! What is reproduced exactly: the IoU of two boxes as `maskApi.c`'s `bbIou` computes it
//! (intersection over the detection's own area when the ground truth is a crowd), the
//! thresholds as `numpy.linspace` computes them (`0.5 + i·step`, the last one exactly 0.95),
//! the greedy matching in descending score order (a stable sort: equal scores keep the order
//! the detections were given in, image by image), crowds matched any number of times and
//! ignored, detections outside an area range ignored only when unmatched, the 101-point
//! interpolated precision with `searchsorted(…, side='left')`, `np.spacing(1)` in the
//! precision's denominator, −1 for a category without any ground truth that counts, and means
//! taken over the entries that are not −1.

use serde::{Deserialize, Serialize};

/// A ground-truth box: `[x, y, width, height]`.
#[derive(Debug, Clone, PartialEq)]
pub struct GtBox {
    /// Its category.
    pub category: u32,
    /// `[x, y, w, h]`.
    pub bbox: [f64; 4],
    /// Its area as the ground truth states it (COCO's `area`; `w·h` where the source gives
    /// none).
    pub area: f64,
    /// A crowd region (COCO's `iscrowd`): it may match any number of detections, and a
    /// detection matched to it is ignored.
    pub crowd: bool,
}

/// A detection: `[x, y, width, height]` and its confidence.
#[derive(Debug, Clone, PartialEq)]
pub struct DtBox {
    /// Its category.
    pub category: u32,
    /// `[x, y, w, h]`; its area is `w·h`, as `COCO.loadRes` sets it.
    pub bbox: [f64; 4],
    /// Its confidence.
    pub score: f64,
}

/// The evaluation's parameters (`COCOeval.Params.setDetParams`).
#[derive(Debug, Clone, PartialEq)]
pub struct Params {
    /// IoU thresholds (default 0.50:0.05:0.95).
    pub iou_thrs: Vec<f64>,
    /// Recall thresholds of the interpolated precision (default 0:0.01:1).
    pub rec_thrs: Vec<f64>,
    /// Detections kept per image, ascending (default 1, 10, 100).
    pub max_dets: Vec<usize>,
    /// Area ranges, `[lo, hi]` inclusive (default all, small, medium, large).
    pub area_rngs: Vec<[f64; 2]>,
}

/// The names of the default area ranges, in [`Params::area_rngs`]'s order.
pub const AREA_LABELS: [&str; 4] = ["all", "small", "medium", "large"];

/// `numpy.linspace(start, stop, num)`: `i·step + start`, the last value exactly `stop`.
pub fn linspace(start: f64, stop: f64, num: usize) -> Vec<f64> {
    let step = (stop - start) / (num - 1) as f64;
    let mut y: Vec<f64> = (0..num).map(|i| i as f64 * step + start).collect();
    if num > 1 {
        y[num - 1] = stop;
    }
    y
}

impl Default for Params {
    fn default() -> Params {
        Params {
            iou_thrs: linspace(0.5, 0.95, 10),
            rec_thrs: linspace(0.0, 1.0, 101),
            max_dets: vec![1, 10, 100],
            area_rngs: vec![
                [0.0, 1e5 * 1e5],
                [0.0, 32.0 * 32.0],
                [32.0 * 32.0, 96.0 * 96.0],
                [96.0 * 96.0, 1e5 * 1e5],
            ],
        }
    }
}

/// The IoU of a detection and a ground truth as `bbIou` computes it.
pub fn iou(d: &[f64; 4], g: &[f64; 4], crowd: bool) -> f64 {
    let w = (d[2] + d[0]).min(g[2] + g[0]) - d[0].max(g[0]);
    if w <= 0.0 {
        return 0.0;
    }
    let h = (d[3] + d[1]).min(g[3] + g[1]) - d[1].max(g[1]);
    if h <= 0.0 {
        return 0.0;
    }
    let i = w * h;
    let da = d[2] * d[3];
    let u = if crowd { da } else { da + g[2] * g[3] - i };
    i / u
}

/// One image's evaluation for one category and area range (`evaluateImg`'s dict, with the
/// matches kept as flags: a match is all that `accumulate` reads of them).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ImageEval {
    /// The detections' scores, highest first (at most the largest `max_dets`).
    pub scores: Vec<f64>,
    /// Per IoU threshold, per detection: matched to a ground truth.
    pub matched: Vec<Vec<bool>>,
    /// Per IoU threshold, per detection: ignored.
    pub ignored: Vec<Vec<bool>>,
    /// How many ground truths count (not crowd, inside the area range).
    pub gt_counted: usize,
    /// Per IoU threshold, per counted ground truth in the truth's order: the index of the
    /// detection (in `scores`' order) it was matched to. Not read by [`accumulate`]; the HTML
    /// report draws true positives, false positives and misses from it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub gt_match: Vec<Vec<Option<usize>>>,
}

/// Evaluates one image's detections of one category against its ground truths of that
/// category, in one area range (`COCOeval.evaluateImg`). `None` where the image has neither.
/// `gts` and `dts` are in the order the ground truth and the results give them.
pub fn evaluate_image(
    gts: &[&GtBox],
    dts: &[&DtBox],
    area: [f64; 2],
    p: &Params,
) -> Option<ImageEval> {
    if gts.is_empty() && dts.is_empty() {
        return None;
    }
    let max_det = *p.max_dets.last().expect("at least one max_dets");
    let out_of = |a: f64| a < area[0] || a > area[1];
    let gt_ignore_raw: Vec<bool> = gts.iter().map(|g| g.crowd || out_of(g.area)).collect();
    // Ground truths that count first, ignored last; a stable sort keeps their order.
    let mut gind: Vec<usize> = (0..gts.len()).collect();
    gind.sort_by_key(|&i| gt_ignore_raw[i]);
    let mut dind: Vec<usize> = (0..dts.len()).collect();
    dind.sort_by(|&a, &b| dts[b].score.partial_cmp(&dts[a].score).expect("scores are numbers"));
    dind.truncate(max_det);
    let gt: Vec<&GtBox> = gind.iter().map(|&i| gts[i]).collect();
    let dt: Vec<&DtBox> = dind.iter().map(|&i| dts[i]).collect();
    let gt_ig: Vec<bool> = gind.iter().map(|&i| gt_ignore_raw[i]).collect();
    let ious: Vec<Vec<f64>> =
        dt.iter().map(|d| gt.iter().map(|g| iou(&d.bbox, &g.bbox, g.crowd)).collect()).collect();
    let t_n = p.iou_thrs.len();
    let mut matched = vec![vec![false; dt.len()]; t_n];
    let mut ignored = vec![vec![false; dt.len()]; t_n];
    let mut gt_match = vec![vec![None; gt.len()]; t_n];
    if !gt.is_empty() && !dt.is_empty() {
        for (ti, &t) in p.iou_thrs.iter().enumerate() {
            let mut gt_taken = vec![false; gt.len()];
            for di in 0..dt.len() {
                let mut best = t.min(1.0 - 1e-10);
                let mut m: Option<usize> = None;
                for gi in 0..gt.len() {
                    if gt_taken[gi] && !gt[gi].crowd {
                        continue;
                    }
                    if let Some(mm) = m {
                        if !gt_ig[mm] && gt_ig[gi] {
                            break;
                        }
                    }
                    if ious[di][gi] < best {
                        continue;
                    }
                    best = ious[di][gi];
                    m = Some(gi);
                }
                if let Some(mm) = m {
                    ignored[ti][di] = gt_ig[mm];
                    matched[ti][di] = true;
                    gt_taken[mm] = true;
                    gt_match[ti][mm] = Some(di);
                }
            }
        }
    }
    for (ti, row) in ignored.iter_mut().enumerate() {
        for (di, d) in dt.iter().enumerate() {
            if !matched[ti][di] && out_of(d.bbox[2] * d.bbox[3]) {
                row[di] = true;
            }
        }
    }
    // Keep the counted ground truths' matches in the truth's own order.
    let counted: Vec<usize> = (0..gt.len()).filter(|&i| !gt_ig[i]).collect();
    let mut by_truth: Vec<(usize, usize)> = counted.iter().map(|&i| (gind[i], i)).collect();
    by_truth.sort();
    let gt_match =
        gt_match.iter().map(|row| by_truth.iter().map(|&(_, i)| row[i]).collect()).collect();
    Some(ImageEval {
        scores: dt.iter().map(|d| d.score).collect(),
        matched,
        ignored,
        gt_counted: counted.len(),
        gt_match,
    })
}

/// Precision and recall of one category, area range and `max_dets`, pooled over images
/// (`COCOeval.accumulate`'s inner loop). `None` where no ground truth counts (the reference's
/// −1).
#[derive(Debug, Clone, PartialEq)]
pub struct Curve {
    /// Per IoU threshold, the interpolated precision at each recall threshold.
    pub precision: Vec<Vec<f64>>,
    /// Per IoU threshold, the recall reached.
    pub recall: Vec<f64>,
}

/// Accumulates the images' evaluations (in image order) for one category, area range and
/// `max_det`.
pub fn accumulate(evals: &[&ImageEval], max_det: usize, p: &Params) -> Option<Curve> {
    if evals.is_empty() {
        return None;
    }
    let npig: usize = evals.iter().map(|e| e.gt_counted).sum();
    if npig == 0 {
        return None;
    }
    // (score, image, detection) in image order, then a stable sort by descending score.
    let mut order: Vec<(f64, usize, usize)> = Vec::new();
    for (ei, e) in evals.iter().enumerate() {
        for (di, &s) in e.scores.iter().take(max_det).enumerate() {
            order.push((s, ei, di));
        }
    }
    order.sort_by(|a, b| b.0.partial_cmp(&a.0).expect("scores are numbers"));
    let eps = f64::EPSILON; // np.spacing(1)
    let mut precision = Vec::with_capacity(p.iou_thrs.len());
    let mut recall = Vec::with_capacity(p.iou_thrs.len());
    for t in 0..p.iou_thrs.len() {
        let (mut tp, mut fp) = (0.0f64, 0.0f64);
        let mut rc = Vec::with_capacity(order.len());
        let mut pr = Vec::with_capacity(order.len());
        for &(_, ei, di) in &order {
            let e = evals[ei];
            if e.ignored[t][di] {
                // Neither a true nor a false positive: the sums carry over.
            } else if e.matched[t][di] {
                tp += 1.0;
            } else {
                fp += 1.0;
            }
            rc.push(tp / npig as f64);
            pr.push(tp / (fp + tp + eps));
        }
        recall.push(rc.last().copied().unwrap_or(0.0));
        for i in (1..pr.len()).rev() {
            if pr[i] > pr[i - 1] {
                pr[i - 1] = pr[i];
            }
        }
        let mut q = vec![0.0; p.rec_thrs.len()];
        for (ri, &r) in p.rec_thrs.iter().enumerate() {
            let pi = rc.partition_point(|&x| x < r);
            if pi >= pr.len() {
                break;
            }
            q[ri] = pr[pi];
        }
        precision.push(q);
    }
    Some(Curve { precision, recall })
}

/// A page set's ground truths and detections, image by image, with the categories to
/// evaluate (the ground truth's categories, ascending, as `COCOeval` takes them).
#[derive(Debug, Clone, Default)]
pub struct Images {
    /// Per image: its ground truths and its detections, each in their given order.
    pub images: Vec<(Vec<GtBox>, Vec<DtBox>)>,
    /// The categories evaluated.
    pub categories: Vec<u32>,
}

/// Every image's evaluation: `[category][area range][image]`.
pub type Evals = Vec<Vec<Vec<Option<ImageEval>>>>;

/// Runs [`evaluate_image`] over every category, area range and image (`COCOeval.evaluate`).
/// Detections of categories not in `categories` are left out, as the reference leaves them.
pub fn evaluate(set: &Images, p: &Params) -> Evals {
    set.categories
        .iter()
        .map(|&c| {
            let per_image: Vec<(Vec<&GtBox>, Vec<&DtBox>)> = set
                .images
                .iter()
                .map(|(g, d)| {
                    (
                        g.iter().filter(|x| x.category == c).collect(),
                        d.iter().filter(|x| x.category == c).collect(),
                    )
                })
                .collect();
            p.area_rngs
                .iter()
                .map(|&a| per_image.iter().map(|(g, d)| evaluate_image(g, d, a, p)).collect())
                .collect()
        })
        .collect()
}

/// The twelve figures `COCOeval.summarize` prints, and per category AP, AP50, AP75 and
/// AR@100 (area `all`). `None` where the reference prints −1.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Summary {
    /// AP, AP50, AP75, AP small/medium/large, AR@1, AR@10, AR@100, AR small/medium/large.
    pub stats: [Option<f64>; 12],
    /// Per category, in [`Images::categories`]' order.
    pub per_category: Vec<CategorySummary>,
}

/// One category's figures.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CategorySummary {
    /// The category.
    pub category: u32,
    /// AP at IoU 0.50:0.95 (area all, 100 detections).
    pub ap: Option<f64>,
    /// AP at IoU 0.50.
    pub ap50: Option<f64>,
    /// AP at IoU 0.75.
    pub ap75: Option<f64>,
    /// AR at 100 detections.
    pub ar100: Option<f64>,
}

/// The names of [`Summary::stats`], in order.
pub const STAT_NAMES: [&str; 12] = [
    "map",
    "ap50",
    "ap75",
    "ap_small",
    "ap_medium",
    "ap_large",
    "ar1",
    "ar10",
    "ar100",
    "ar_small",
    "ar_medium",
    "ar_large",
];

/// Every curve: `[category][area range][max_dets]`.
pub type Curves = Vec<Vec<Vec<Option<Curve>>>>;

/// Accumulates every category, area range and `max_dets` from [`evaluate`]'s output, or from
/// stored per-image evaluations laid out the same way.
pub fn accumulate_all(evals: &Evals, p: &Params) -> Curves {
    evals
        .iter()
        .map(|per_area| {
            per_area
                .iter()
                .map(|imgs| {
                    let present: Vec<&ImageEval> = imgs.iter().flatten().collect();
                    p.max_dets.iter().map(|&m| accumulate(&present, m, p)).collect()
                })
                .collect()
        })
        .collect()
}

/// The mean of the entries that are not −1, or `None` where all are.
fn mean_defined(values: impl Iterator<Item = f64>) -> Option<f64> {
    let (mut sum, mut n) = (0.0, 0usize);
    for v in values {
        sum += v;
        n += 1;
    }
    (n > 0).then(|| sum / n as f64)
}

/// `_summarize(ap, iouThr, areaRng, maxDets)` over the categories `ks`: the mean of every
/// defined precision (or recall) entry. A category whose curve is absent contributes −1s,
/// which the mean leaves out.
fn pick(
    curves: &Curves,
    ks: &[usize],
    ap: bool,
    iou: Option<f64>,
    area: usize,
    max_det: usize,
    p: &Params,
) -> Option<f64> {
    let m = p.max_dets.iter().position(|&x| x == max_det)?;
    let ts: Vec<usize> = match iou {
        // `np.where(iouThr == p.iouThrs)`: exact float equality, as the reference compares.
        Some(v) => (0..p.iou_thrs.len()).filter(|&t| p.iou_thrs[t] == v).collect(),
        None => (0..p.iou_thrs.len()).collect(),
    };
    let mut values = Vec::new();
    for &k in ks {
        let Some(c) = &curves[k][area][m] else { continue };
        for &t in &ts {
            if ap {
                values.extend(c.precision[t].iter().copied());
            } else {
                values.push(c.recall[t]);
            }
        }
    }
    mean_defined(values.into_iter())
}

/// The summary of accumulated curves (default parameters: three `max_dets`, four areas).
pub fn summarize(curves: &Curves, categories: &[u32], p: &Params) -> Summary {
    let all: Vec<usize> = (0..categories.len()).collect();
    let last = *p.max_dets.last().expect("at least one max_dets");
    let s = |ap, iou, area, md| pick(curves, &all, ap, iou, area, md, p);
    let m = &p.max_dets;
    let first = m[0];
    let second = *m.get(1).unwrap_or(&last);
    let stats = [
        s(true, None, 0, 100),
        s(true, Some(0.5), 0, last),
        s(true, Some(0.75), 0, last),
        s(true, None, 1, last),
        s(true, None, 2, last),
        s(true, None, 3, last),
        s(false, None, 0, first),
        s(false, None, 0, second),
        s(false, None, 0, last),
        s(false, None, 1, last),
        s(false, None, 2, last),
        s(false, None, 3, last),
    ];
    let per_category = categories
        .iter()
        .enumerate()
        .map(|(k, &category)| CategorySummary {
            category,
            ap: pick(curves, &[k], true, None, 0, last, p),
            ap50: pick(curves, &[k], true, Some(0.5), 0, last, p),
            ap75: pick(curves, &[k], true, Some(0.75), 0, last, p),
            ar100: pick(curves, &[k], false, None, 0, last, p),
        })
        .collect();
    Summary { stats, per_category }
}

/// Evaluates, accumulates and summarizes a page set in one call.
pub fn coco_eval(set: &Images, p: &Params) -> Summary {
    let evals = evaluate(set, p);
    let curves = accumulate_all(&evals, p);
    summarize(&curves, &set.categories, p)
}

/// docling-eval's normalised average relative distance of a reading order and its
/// box-area-weighted form (`ReadingOrderEvaluator._compute_ard`, as its code computes them,
/// not as its docstring says): `pred_order[k]` is the truth index of the element read k-th;
/// `1 − Σ|k − pred_order[k]| / n²`, and the weighted form with each term weighted by
/// `areas[k] / Σ areas` — the weight of the element whose truth index is the position k, as
/// the code indexes it. `(0, 0)` for no elements, as the code returns.
pub fn ard(pred_order: &[usize], areas: &[f64]) -> (f64, f64) {
    let n = areas.len();
    if n == 0 {
        return (0.0, 0.0);
    }
    let total: f64 = areas.iter().sum();
    let weights: Vec<f64> = areas.iter().map(|a| a / total).collect();
    let (mut ard, mut w_ard) = (0.0, 0.0);
    for (k, &pred) in pred_order.iter().enumerate() {
        let dist = (k as f64 - pred as f64).abs();
        ard += dist;
        w_ard += dist * weights[k];
    }
    let n_sq = (n * n) as f64;
    (1.0 - ard / n_sq, 1.0 - w_ard / n_sq)
}

#[cfg(test)]
#[path = "coco_tests.rs"]
mod tests;
