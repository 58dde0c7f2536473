//! Correlation of metric values with human ratings: Pearson's r, Spearman's ρ (Pearson on
//! average ranks, so ties share their mean rank) and Kendall's τ-b (tie-corrected, as
//! `scipy.stats.kendalltau`'s default). Each returns `None` when it is undefined: fewer than
//! two pairs, or a side without variance.

/// Pearson's correlation coefficient.
pub fn pearson(x: &[f64], y: &[f64]) -> Option<f64> {
    let n = x.len().min(y.len());
    if n < 2 {
        return None;
    }
    let mx = x[..n].iter().sum::<f64>() / n as f64;
    let my = y[..n].iter().sum::<f64>() / n as f64;
    let (mut sxy, mut sxx, mut syy) = (0.0, 0.0, 0.0);
    for i in 0..n {
        let (dx, dy) = (x[i] - mx, y[i] - my);
        sxy += dx * dy;
        sxx += dx * dx;
        syy += dy * dy;
    }
    (sxx > 0.0 && syy > 0.0).then(|| (sxy / (sxx * syy).sqrt()).clamp(-1.0, 1.0))
}

/// Ranks from 1, ties given their average rank.
pub(crate) fn average_ranks(v: &[f64]) -> Vec<f64> {
    let mut idx: Vec<usize> = (0..v.len()).collect();
    idx.sort_by(|&a, &b| v[a].total_cmp(&v[b]));
    let mut ranks = vec![0.0; v.len()];
    let mut i = 0;
    while i < idx.len() {
        let mut j = i;
        while j + 1 < idx.len() && v[idx[j + 1]] == v[idx[i]] {
            j += 1;
        }
        let r = (i + j) as f64 / 2.0 + 1.0;
        for &k in &idx[i..=j] {
            ranks[k] = r;
        }
        i = j + 1;
    }
    ranks
}

/// Spearman's rank correlation coefficient.
pub fn spearman(x: &[f64], y: &[f64]) -> Option<f64> {
    let n = x.len().min(y.len());
    pearson(&average_ranks(&x[..n]), &average_ranks(&y[..n]))
}

/// Kendall's τ-b: `(concordant − discordant) / sqrt((n0 − n1)(n0 − n2))`, with `n1`, `n2` the
/// pairs tied in `x`, in `y`.
pub fn kendall_tau_b(x: &[f64], y: &[f64]) -> Option<f64> {
    let n = x.len().min(y.len());
    if n < 2 {
        return None;
    }
    let (mut c, mut d, mut tx, mut ty) = (0i64, 0i64, 0i64, 0i64);
    for i in 0..n {
        for j in i + 1..n {
            let (a, b) = (x[i] - x[j], y[i] - y[j]);
            if a == 0.0 && b == 0.0 {
                tx += 1;
                ty += 1;
            } else if a == 0.0 {
                tx += 1;
            } else if b == 0.0 {
                ty += 1;
            } else if (a > 0.0) == (b > 0.0) {
                c += 1;
            } else {
                d += 1;
            }
        }
    }
    let n0 = (n * (n - 1) / 2) as i64;
    let den = ((n0 - tx) as f64 * (n0 - ty) as f64).sqrt();
    (den > 0.0).then(|| (c - d) as f64 / den)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn perfect_and_reversed_orders() {
        let x = [1.0, 2.0, 3.0, 4.0];
        let y = [10.0, 20.0, 30.0, 40.0];
        let r = [4.0, 3.0, 2.0, 1.0];
        assert_eq!(pearson(&x, &y), Some(1.0));
        assert_eq!(spearman(&x, &r), Some(-1.0));
        assert_eq!(kendall_tau_b(&x, &y), Some(1.0));
        assert_eq!(kendall_tau_b(&x, &r), Some(-1.0));
        assert_eq!(pearson(&[1.0], &[2.0]), None);
        assert_eq!(pearson(&[1.0, 1.0], &[2.0, 3.0]), None);
    }

    #[test]
    fn hand_computed_values_with_ties() {
        // x = 1 2 3 4 5, y = 2 1 4 3 5.
        let x = [1.0, 2.0, 3.0, 4.0, 5.0];
        let y = [2.0, 1.0, 4.0, 3.0, 5.0];
        // Σdxdy = 8, Σdx² = Σdy² = 10 → r = 0.8; the ranks are the values, so ρ = 0.8 too.
        assert!((pearson(&x, &y).unwrap() - 0.8).abs() < 1e-12);
        assert!((spearman(&x, &y).unwrap() - 0.8).abs() < 1e-12);
        // 10 pairs: discordant (1,2) and (3,4), so τ = (8 − 2) / 10.
        assert!((kendall_tau_b(&x, &y).unwrap() - 0.6).abs() < 1e-12);
        // Ties: y = 1 1 2. Average ranks 1.5 1.5 3.
        assert_eq!(average_ranks(&[1.0, 1.0, 2.0]), [1.5, 1.5, 3.0]);
        // x = 1 2 3, y = 1 1 2: pairs (1,2) tied in y, (1,3) and (2,3) concordant:
        // τ-b = 2 / sqrt(3 · 2).
        let t = kendall_tau_b(&[1.0, 2.0, 3.0], &[1.0, 1.0, 2.0]).unwrap();
        assert!((t - 2.0 / 6f64.sqrt()).abs() < 1e-12);
    }
}
