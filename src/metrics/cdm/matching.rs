//! CDM's matching, as `visual_matcher.py` and the evaluation loop of the official code do it:
//! a cost per (truth token, predicted token) from token identity, box position and token
//! order; SciPy's linear assignment over it (`lsap`, a line-by-line translation of SciPy's
//! solver, ties included); then RANSAC rounds (scikit-image 0.20's `ransac` with numpy's
//! `default_rng(42)`, [`super::rng`]) keep the matches that one translation-and-scale moves
//! onto each other; a kept match whose tokens differ outright is dropped. The rules and where
//! the two variants differ are in `docs/cdm.md`.

use super::rng::Pcg64;
use super::Variant;

/// One rendered formula: every token with the box its colour covered (`None`: no pixel of its
/// colour), and the size of the cropped image the boxes are in.
#[derive(Debug, Clone, PartialEq)]
pub struct Rendered {
    /// Tokens in order, with their boxes `[x_min, y_min, x_max, y_max]` in pixels.
    pub tokens: Vec<(String, Option<[i32; 4]>)>,
    /// Width of the cropped image.
    pub width: u32,
    /// Height of the cropped image.
    pub height: u32,
}

impl Rendered {
    /// The tokens that got a box, as the official code keeps them (`if info['bbox']`).
    pub fn boxed(&self) -> Vec<(&str, [i32; 4])> {
        self.tokens.iter().filter_map(|(t, b)| b.map(|b| (t.as_str(), b))).collect()
    }
}

/// The RANSAC settings of a variant.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RansacParams {
    /// Rounds of RANSAC over the matches not yet inliers.
    pub max_iter: usize,
    /// Points per sample.
    pub min_samples: usize,
    /// A match is an inlier when its residual is below this (pixels).
    pub residual_threshold: f64,
    /// Trials per round.
    pub max_trials: usize,
}

impl Variant {
    /// `cdm_metric.py` (OmniDocBench): 3 / 3 / 25 / 50; `evaluation.py` (UniMERNet): 5 / 2 / 20 / 50.
    pub(crate) fn ransac_params(self) -> RansacParams {
        match self {
            Variant::OmniDocBench => RansacParams {
                max_iter: 3,
                min_samples: 3,
                residual_threshold: 25.0,
                max_trials: 50,
            },
            Variant::UniMERNet => RansacParams {
                max_iter: 5,
                min_samples: 2,
                residual_threshold: 20.0,
                max_trials: 50,
            },
        }
    }

    /// The token cost of two tokens that differ but normalize alike (`norm_same_token`).
    fn near_token_cost(self) -> f64 {
        match self {
            Variant::OmniDocBench => 0.05,
            Variant::UniMERNet => 0.005,
        }
    }
}

/// `norm_same_token` of the variant's `visual_matcher.py`: tokens that look alike when drawn.
pub fn norm_same_token(token: &str, variant: Variant) -> String {
    match variant {
        Variant::UniMERNet => norm_unimernet(token),
        Variant::OmniDocBench => norm_omnidocbench(token),
    }
}

/// `token[4:]` handling of `\big…`/`\Big…` tokens, shared by both variants.
fn strip_big(token: &str) -> String {
    let rest: String = token.chars().skip(4).collect();
    if rest.contains('\\') {
        format!("\\{}", rest.rsplit('\\').next().unwrap_or(""))
    } else {
        token.chars().last().map(String::from).unwrap_or_default()
    }
}

fn norm_unimernet(token: &str) -> String {
    // Python's dict literal keeps the last of a repeated key: `\neq` maps to `\not=`.
    const SPECIAL: &[(&str, &str)] = &[
        ("\\dot", "."),
        ("\\Dot", "."),
        ("\\cdot", "."),
        ("\\cdotp", "."),
        ("\\ldotp", "."),
        ("\\mid", "|"),
        ("\\rightarrow", "\\to"),
        ("\\top", "T"),
        ("\\Tilde", "\\tilde"),
        ("\\prime", "'"),
        ("\\ast", "*"),
        ("\\left<", "\\langle"),
        ("\\right>", "\\rangle"),
        ("\\lbrace", "\\{"),
        ("\\rbrace", "\\}"),
        ("\\lbrack", "["),
        ("\\rbrack", "]"),
        ("\\blackslash", "/"),
        ("\\slash", "/"),
        ("\\leq", "\\le"),
        ("\\geq", "\\ge"),
        ("\\neq", "\\not="),
        ("\\Vert", "\\|"),
        ("\\lVert", "\\|"),
        ("\\rVert", "\\|"),
        ("\\vert", "|"),
        ("\\lvert", "|"),
        ("\\rvert", "|"),
        ("\\colon", ":"),
        ("\\Ddot", "\\ddot"),
        ("\\Bar", "\\bar"),
        ("\\Vec", "\\vec"),
        ("\\parallel", "\\|"),
        ("\\dag", "\\dagger"),
        ("\\ddag", "\\ddagger"),
        ("\\textlangle", "<"),
        ("\\textrangle", ">"),
        ("\\textgreater", ">"),
        ("\\textless", "<"),
        ("\\textbackslash", "n"),
        ("\\textunderscore", "_"),
        ("\\=", "_"),
        ("\\neg", "\\lnot"),
    ];
    let mut token = token.to_string();
    if (token.starts_with("\\left") || token.starts_with("\\right"))
        && !["arrow", "<", ">", "harpoon"].iter().any(|s| token.contains(s))
    {
        token = token.replace("\\left", "").replace("\\right", "");
    }
    if token.starts_with("\\big") || token.starts_with("\\Big") {
        token = strip_big(&token);
    }
    if let Some((_, to)) = SPECIAL.iter().find(|(from, _)| *from == token) {
        token = to.to_string();
    }
    if token.starts_with("\\wide") {
        return token.replace("wide", "");
    }
    if token.starts_with("\\var") {
        return token.replace("var", "");
    }
    if token.starts_with("\\string") {
        return token.replace("\\string", "");
    }
    token
}

fn norm_omnidocbench(token: &str) -> String {
    const SPECIAL: &[(&str, &str)] = &[
        ("\\cdot", "."),
        ("\\mid", "|"),
        ("\\to", "\\rightarrow"),
        ("\\top", "T"),
        ("\\Tilde", "\\tilde"),
        ("\\cdots", "\\dots"),
        ("\\prime", "'"),
        ("\\ast", "*"),
        ("\\left<", "\\langle"),
        ("\\right>", "\\rangle"),
    ];
    let mut token = token.to_string();
    if let Some((_, to)) = SPECIAL.iter().find(|(from, _)| *from == token) {
        token = to.to_string();
    }
    if token.starts_with("\\left") || token.starts_with("\\right") {
        token = token.replace("\\left", "").replace("\\right", "");
    }
    if token.starts_with("\\big") || token.starts_with("\\Big") {
        token = strip_big(&token);
    }
    match token.as_str() {
        "\\leq" | "\\geq" => return token[..token.len() - 1].to_string(),
        "\\lVert" | "\\rVert" | "\\Vert" => return "\\|".to_string(),
        "\\lvert" | "\\rvert" | "\\vert" => return "|".to_string(),
        _ => {}
    }
    if token.ends_with("rightarrow") {
        return "\\rightarrow".to_string();
    }
    if token.ends_with("leftarrow") {
        return "\\leftarrow".to_string();
    }
    if token.starts_with("\\wide") {
        return token.replace("wide", "");
    }
    if token.starts_with("\\var") {
        return token.replace("\\var", "");
    }
    token
}

/// The outcome of matching one pair.
#[derive(Debug, Clone, PartialEq)]
pub struct MatchOutcome {
    /// Matches kept (RANSAC inliers whose tokens are not outright different).
    pub matched: usize,
    /// Truth tokens with a box.
    pub gt_boxes: usize,
    /// Predicted tokens with a box.
    pub pred_boxes: usize,
    /// The assignment: (truth box index, predicted box index, kept), indices into the boxed
    /// tokens.
    pub pairs: Vec<(usize, usize, bool)>,
    /// matched / |gt|, rounded to 3 decimals.
    pub recall: f64,
    /// matched / |pred|, rounded to 3 decimals.
    pub precision: f64,
    /// 2·matched / (|gt| + |pred|), rounded to 3 decimals.
    pub f1: f64,
}

/// Python's `round(x, 3)`: the double nearest the correctly rounded decimal.
pub fn round3(x: f64) -> f64 {
    format!("{x:.3}").parse().unwrap_or(x)
}

/// `HungarianMatcher.__call__`: the cost matrix (truth rows, predicted columns) and the
/// assignment, as (truth, prediction) index pairs in truth order. Also returns the token cost
/// matrix, which the final filter reads.
pub(crate) fn assign(
    gt: &[(&str, [i32; 4])],
    gt_size: (u32, u32),
    pred: &[(&str, [i32; 4])],
    pred_size: (u32, u32),
    variant: Variant,
) -> (Vec<(usize, usize)>, Vec<f64>) {
    let (n, m) = (gt.len(), pred.len());
    if n == 0 || m == 0 {
        return (Vec::new(), Vec::new());
    }
    let norm = |b: [i32; 4], (w, h): (u32, u32)| {
        let (w, h) = (f64::from(w), f64::from(h));
        [f64::from(b[0]) / w, f64::from(b[1]) / h, f64::from(b[2]) / w, f64::from(b[3]) / h]
    };
    let gt_pos: Vec<[f64; 4]> = gt.iter().map(|(_, b)| norm(*b, gt_size)).collect();
    let pred_pos: Vec<[f64; 4]> = pred.iter().map(|(_, b)| norm(*b, pred_size)).collect();
    // UniMERNet divides both orders by the longer list; OmniDocBench each by its own length.
    let (gt_len, pred_len) = match variant {
        Variant::UniMERNet => (n.max(m) as f64, n.max(m) as f64),
        Variant::OmniDocBench => (n as f64, m as f64),
    };
    let gt_norm: Vec<String> = gt.iter().map(|(t, _)| norm_same_token(t, variant)).collect();
    let pred_norm: Vec<String> = pred.iter().map(|(t, _)| norm_same_token(t, variant)).collect();
    let mut token_cost = vec![0.0; n * m];
    let mut cost = vec![0.0; n * m];
    for i in 0..n {
        for j in 0..m {
            let tc = if gt[i].0 == pred[j].0 {
                0.0
            } else if gt_norm[i] == pred_norm[j] {
                variant.near_token_cost()
            } else {
                1.0
            };
            // cdist(..., 'minkowski', p=1) sums |a_k - b_k| in order, then / 4 columns.
            let mut l1 = 0.0;
            for k in 0..4 {
                l1 += (gt_pos[i][k] - pred_pos[j][k]).abs();
            }
            let position = l1 / 4.0;
            let order = (i as f64 / gt_len - j as f64 / pred_len).abs();
            token_cost[i * m + j] = tc;
            let c = 1.0 * tc + 0.05 * position + 0.15 * order;
            cost[i * m + j] = if c.is_finite() { c } else { 100.0 };
        }
    }
    let pairs = match lsap::solve(n, m, &cost, false) {
        Ok((rows, cols)) => rows.into_iter().zip(cols).collect(),
        // Every entry is finite, so SciPy's solver cannot fail.
        Err(_) => Vec::new(),
    };
    (pairs, token_cost)
}

/// `SimpleAffineTransform.estimate` then `.residuals(src, dst)` over all points: translation
/// between the samples' centres, scale between their mean spreads.
fn residuals(
    sample_src: &[[f64; 2]],
    sample_dst: &[[f64; 2]],
    src: &[[f64; 2]],
    dst: &[[f64; 2]],
) -> Vec<f64> {
    let mean = |pts: &[[f64; 2]]| {
        let (mut a, mut b) = (0.0, 0.0);
        for p in pts {
            a += p[0];
            b += p[1];
        }
        [a / pts.len() as f64, b / pts.len() as f64]
    };
    let spread = |pts: &[[f64; 2]], c: [f64; 2]| {
        let mut s = 0.0;
        for p in pts {
            s += ((p[0] - c[0]).powi(2) + (p[1] - c[1]).powi(2)).sqrt();
        }
        s / pts.len() as f64
    };
    let sc = mean(sample_src);
    let dc = mean(sample_dst);
    let translation = [dc[0] - sc[0], dc[1] - sc[1]];
    let scale = spread(sample_dst, dc) / (spread(sample_src, sc) + 1e-10);
    let all_c = mean(src);
    src.iter()
        .zip(dst)
        .map(|(s, d)| {
            let mut sum = 0.0;
            for k in 0..2 {
                let moved = scale * (s[k] - all_c[k]) + all_c[k] + translation[k];
                sum += (moved - d[k]).powi(2);
            }
            sum.sqrt()
        })
        .collect()
}

/// scikit-image 0.20's `ransac(data, SimpleAffineTransform, min_samples, residual_threshold,
/// max_trials, random_state=42)`: the best trial's inliers, or `None` where none was found.
pub fn ransac(
    src: &[[f64; 2]],
    dst: &[[f64; 2]],
    min_samples: usize,
    residual_threshold: f64,
    max_trials: usize,
) -> Option<Vec<bool>> {
    let n = src.len();
    if !(0 < min_samples && min_samples < n) {
        return None;
    }
    let mut rng = Pcg64::seed42();
    let mut best_num = 0usize;
    let mut best_sum = f64::INFINITY;
    let mut best: Vec<bool> = Vec::new();
    let mut max_trials = max_trials as f64;
    let mut spl = rng.choice(n, min_samples);
    let mut trials = 0usize;
    while (trials as f64) < max_trials {
        trials += 1;
        let s_src: Vec<[f64; 2]> = spl.iter().map(|&i| src[i]).collect();
        let s_dst: Vec<[f64; 2]> = spl.iter().map(|&i| dst[i]).collect();
        spl = rng.choice(n, min_samples);
        let res = residuals(&s_src, &s_dst, src, dst);
        let inliers: Vec<bool> = res.iter().map(|&r| r < residual_threshold).collect();
        let sum: f64 = res.iter().map(|r| r * r).sum();
        let count = inliers.iter().filter(|&&b| b).count();
        if count > best_num || (count == best_num && sum < best_sum) {
            best_num = count;
            best_sum = sum;
            best = inliers;
            max_trials = max_trials.min(dynamic_max_trials(best_num, n, min_samples));
            // stop_sample_num is infinite; stop_residuals_sum is 0.
            if best_sum <= 0.0 {
                break;
            }
        }
    }
    if best.iter().any(|&b| b) {
        Some(best)
    } else {
        None
    }
}

/// `_dynamic_max_trials` with `stop_probability=1`.
fn dynamic_max_trials(n_inliers: usize, n_samples: usize, min_samples: usize) -> f64 {
    if n_inliers == 0 {
        return f64::INFINITY;
    }
    let eps = f64::EPSILON;
    let ratio = n_inliers as f64 / n_samples as f64;
    // max(eps, 1 - stop_probability), stop_probability = 1.
    let nom = eps;
    let denom = eps.max(1.0 - ratio.powf(min_samples as f64));
    (nom.ln() / denom.ln()).ceil()
}

/// The evaluation loop of the variant over boxed tokens (both lists non-empty, or F1 is 0).
pub fn match_boxes(
    gt: &[(&str, [i32; 4])],
    gt_size: (u32, u32),
    pred: &[(&str, [i32; 4])],
    pred_size: (u32, u32),
    variant: Variant,
) -> MatchOutcome {
    let p = variant.ransac_params();
    let (pairs, token_cost) = assign(gt, gt_size, pred, pred_size, variant);
    let centre = |b: [i32; 4]| [f64::from(b[1] + b[3]) / 2.0, f64::from(b[0] + b[2]) / 2.0];
    let src: Vec<[f64; 2]> = pairs.iter().map(|&(a, _)| centre(gt[a].1)).collect();
    let dst: Vec<[f64; 2]> = pairs.iter().map(|&(_, b)| centre(pred[b].1)).collect();
    let mut inliers;
    if src.len() <= p.min_samples {
        inliers = vec![true; pairs.len()];
    } else {
        inliers = vec![false; pairs.len()];
        for _ in 0..p.max_iter {
            let rest: Vec<usize> = (0..pairs.len()).filter(|&i| !inliers[i]).collect();
            if rest.len() <= p.min_samples {
                break;
            }
            let r_src: Vec<[f64; 2]> = rest.iter().map(|&i| src[i]).collect();
            let r_dst: Vec<[f64; 2]> = rest.iter().map(|&i| dst[i]).collect();
            match ransac(&r_src, &r_dst, p.min_samples, p.residual_threshold, p.max_trials) {
                Some(sub) => {
                    for (k, &i) in rest.iter().enumerate() {
                        if sub[k] {
                            inliers[i] = true;
                        }
                    }
                }
                None => break,
            }
            if inliers.iter().filter(|&&b| b).count() >= pairs.len() {
                break;
            }
        }
    }
    let m = pred.len();
    for (k, &(a, b)) in pairs.iter().enumerate() {
        if inliers[k] && token_cost[a * m + b] == 1.0 {
            inliers[k] = false;
        }
    }
    let matched = inliers.iter().filter(|&&b| b).count();
    let ratio =
        |num: usize, den: usize| if den == 0 { 0.0 } else { round3(num as f64 / den as f64) };
    MatchOutcome {
        matched,
        gt_boxes: gt.len(),
        pred_boxes: pred.len(),
        pairs: pairs.iter().zip(&inliers).map(|(&(a, b), &k)| (a, b, k)).collect(),
        recall: ratio(matched, gt.len()),
        precision: ratio(matched, pred.len()),
        f1: ratio(2 * matched, gt.len() + pred.len()),
    }
}

/// ExpRate@CDM: the share of pairs whose F1 is exactly 1.
pub fn exp_rate(f1s: &[f64]) -> f64 {
    if f1s.is_empty() {
        return 0.0;
    }
    f1s.iter().filter(|&&f| f == 1.0).count() as f64 / f1s.len() as f64
}
