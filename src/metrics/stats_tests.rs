//! Tests of `stats.rs`.

use super::*;

fn close(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol
}

#[test]
fn rng_is_reproducible_and_below_stays_in_range() {
    let (mut a, mut b) = (Rng::new(7), Rng::new(7));
    for _ in 0..100 {
        assert_eq!(a.next_u64(), b.next_u64());
    }
    assert_ne!(Rng::new(7).next_u64(), Rng::new(8).next_u64());
    let mut rng = Rng::new(1);
    let mut seen = [0u32; 3];
    for _ in 0..30_000 {
        seen[rng.below(3) as usize] += 1;
        let f = rng.next_f64();
        assert!((0.0..1.0).contains(&f));
    }
    // Each of 3 outcomes ≈ 10,000 ± 82 (one standard deviation).
    assert!(seen.iter().all(|&c| (9_600..10_400).contains(&c)), "{seen:?}");
    assert_eq!(rng.below(0), 0);
    assert_eq!(rng.below(1), 0);
}

/// Exact p-value of `diffs` through [`paired`] (baseline 0, candidate = diffs).
fn exact_p(diffs: &[f64]) -> f64 {
    let baseline = vec![0.0; diffs.len()];
    let r = paired(&baseline, diffs, 200, 0.95, 1).expect("pairs");
    assert!(r.exact);
    // Zero differences do not change a sign flip: only the non-zero ones are enumerated.
    assert_eq!(r.permutations, 1 << diffs.iter().filter(|d| **d != 0.0).count());
    r.p
}

// The exact p-values below were confirmed with SciPy 1.17.1:
// `scipy.stats.permutation_test((b, a), lambda x, y, axis: np.mean(x - y, axis=axis),
// vectorized=True, permutation_type='samples', alternative='two-sided',
// n_resamples=np.inf)` with `a = 0`, `b = diffs`; the values are identical.

#[test]
fn exact_sign_flip_five_pairs() {
    // Observed mean 3 (sum 15). Only the all-positive (+15) and all-negative (-15)
    // assignments reach |sum| >= 15, the next largest flips the 1 (sum 13):
    // p = 2 · 1/32 = 0.0625. SciPy: 0.0625.
    assert_eq!(exact_p(&[1.0, 2.0, 3.0, 4.0, 5.0]), 0.0625);
}

#[test]
fn exact_sign_flip_four_pairs_with_a_negative() {
    // |d| = {1, 1, 2, 3}, observed sum 1 - 1 + 2 + 3 = 5. Assignments with sum >= 5:
    // 7 (all +), 5 (flip either 1): 3 of 16, and 3 mirror ones <= -5:
    // p = 2 · 3/16 = 0.375. SciPy: 0.375.
    assert_eq!(exact_p(&[1.0, -1.0, 2.0, 3.0]), 0.375);
}

#[test]
fn exact_sign_flip_six_pairs() {
    // |d| = {2, 2, 2, 1, 3, 1}, total 11, observed sum 9. An assignment flipping a subset
    // of total F sums to 11 - 2F >= 9 iff F <= 1: {}, {1}, {1'}: 3 of 64; mirrored, 3 more:
    // p = 2 · 3/64 = 0.09375. SciPy: 0.09375.
    assert_eq!(exact_p(&[2.0, 2.0, 2.0, -1.0, 3.0, 1.0]), 0.09375);
}

#[test]
fn exact_sign_flip_ten_equal_pairs() {
    // Ten differences of 1: only all-positive and all-negative reach |mean| 1:
    // p = 2/1024 = 0.001953125. SciPy: 0.001953125.
    assert_eq!(exact_p(&[1.0; 10]), 0.001953125);
}

#[test]
fn exact_sign_flip_counts_ties_that_differ_only_by_rounding() {
    // d = [0.1, 0.2, -0.3, 0.5], observed sum 0.5. With 0.5 positive, ±0.1 ±0.2 ±0.3 adds
    // 0.6, 0, 0.2, -0.4, 0.4, -0.2, 0, -0.6, giving sums 1.1, 0.5, 0.7, 0.1, 0.9, 0.3, 0.5,
    // -0.1: five reach 0.5, two of them (0.1 + 0.2 - 0.3 + 0.5 and -0.1 - 0.2 + 0.3 + 0.5)
    // only in exact arithmetic (in floating point 0.1 + 0.2 != 0.3), which the 100 ε
    // tolerance restores. p = 2 · 5/16 = 0.625. SciPy: 0.625.
    assert_eq!(exact_p(&[0.1, 0.2, -0.3, 0.5]), 0.625);
}

#[test]
fn exact_sign_flip_eight_small_differences() {
    // SciPy: 0.203125 (= 52/256).
    assert_eq!(exact_p(&[0.05, -0.02, 0.1, 0.0, 0.03, -0.04, 0.07, 0.01]), 0.203125);
}

#[test]
fn all_equal_pairs_give_p_one() {
    // Observed mean 0 and every assignment's mean is 0: both one-sided proportions are 1,
    // 2 · 1 clipped to 1. SciPy: 1.0. Forty of them have no non-zero difference to flip:
    // exact, over the one assignment; the Monte Carlo path gives 1 too.
    assert_eq!(exact_p(&[0.0; 5]), 1.0);
    let same = vec![0.25; 40];
    let r = paired(&same, &same, 999, 0.95, 3).expect("pairs");
    assert!(r.exact && r.permutations == 1);
    assert_eq!((r.p, r.mean_diff, r.ci), (1.0, 0.0, Interval { lo: 0.0, hi: 0.0 }));
    // No non-zero difference: one assignment, exact whatever the limit.
    assert_eq!(sign_flip_p(&[0.0; 40], 0, 999, 3), (1.0, true, 1));
}

#[test]
fn only_non_zero_differences_count_for_the_exact_switch() {
    // 10 non-zero differences among 50: exact over 2^10 assignments, and the same p as the
    // ten alone (the zeros double every count and the total alike). SciPy on the 10:
    // two-sided 2 · 1/1024.
    let mut diffs = vec![0.0; 50];
    for (i, d) in diffs.iter_mut().enumerate().take(10) {
        *d = -0.1 - 0.01 * i as f64;
    }
    let r = paired(&vec![0.0; 50], &diffs, 2_000, 0.95, 0).expect("pairs");
    assert!(r.exact, "10 non-zero of 50 is exact");
    assert_eq!(r.permutations, 1024);
    assert_eq!(r.p, 2.0 / 1024.0);
    assert_eq!(exact_p(&diffs[..10]), r.p);
    // 21 non-zero: Monte Carlo.
    let mut more = diffs.clone();
    for d in more.iter_mut().skip(10).take(11) {
        *d = 0.05;
    }
    assert!(!paired(&vec![0.0; 50], &more, 2_000, 0.95, 0).unwrap().exact);
}

/// 30 integer differences whose exact one-sided `P(null <= obs)` is 0.046315 (counted by a
/// convolution of the signed integers; `scipy.stats.permutation_test(..., alternative='less')`
/// with `n_resamples=inf` agrees, docs/statistics.md §4).
const NEAR_ALPHA: [f64; 30] = [
    -12.0, 5.0, -3.0, 1.0, -5.0, -11.0, -10.0, -7.0, -6.0, -9.0, 6.0, -6.0, -8.0, 11.0, 6.0, -9.0,
    -4.0, 1.0, 12.0, 2.0, -4.0, -3.0, 3.0, 1.0, -4.0, -5.0, -9.0, -5.0, 6.0, 3.0,
];
const NEAR_ALPHA_P: f64 = 0.046_314_721_927_046_78;

#[test]
fn sequential_flips_give_one_verdict_where_two_thousand_do_not() {
    // 2,000 random flips put p on either side of 0.05 depending on the seed ...
    let fixed: Vec<bool> = (0..20)
        .map(|seed| {
            let mut f = SignFlips::new(&NEAR_ALPHA, 30.0, seed);
            f.draw(2_000);
            (f.less + 1) as f64 / 2_001.0 < 0.05
        })
        .collect();
    assert!(fixed.contains(&true) && fixed.contains(&false), "{fixed:?}");
    // ... the sequential draws settle it: every seed below 0.05, as the exact p.
    for seed in 0..20 {
        let t = one_sided_less(&NEAR_ALPHA, &[0.05], seed).unwrap();
        assert!(!t.exact && t.settled, "seed {seed}: {t:?}");
        assert!(t.p < 0.05, "seed {seed}: {t:?}");
        assert!(close(t.p, NEAR_ALPHA_P, 0.002), "seed {seed}: {t:?}");
        assert!(t.flips < SEQUENTIAL_MAX_FLIPS);
    }
    // Far from every threshold the first look settles it.
    let t = one_sided_less(&[-1.0; 30], &[0.05, 0.025], 0).unwrap();
    assert_eq!((t.flips, t.settled), (SEQUENTIAL_FIRST_FLIPS, true));
    // Few non-zero differences are enumerated: 2^3 assignments, one reaches −3.
    let t = one_sided_less(&[-1.0, 0.0, -1.0, -1.0, 0.0], &[0.05], 0).unwrap();
    assert_eq!((t.p, t.exact, t.flips), (0.125, true, 8));
    assert!(one_sided_less(&[], &[0.05], 0).is_none());
}

#[test]
fn kl_is_zero_on_equal_rates_and_grows_apart() {
    assert_eq!(kl(0.05, 0.05), 0.0);
    assert!(kl(0.04, 0.05) > 0.0 && kl(0.01, 0.05) > kl(0.04, 0.05));
    assert!((kl(0.0, 0.5) - 2f64.ln()).abs() < 1e-15);
}

#[test]
fn monte_carlo_p_follows_scipys_plus_one_convention() {
    // 21 equal differences: exact p would be 2/2^21, but no random assignment of 9,999
    // reaches the observed mean except by drawing all signs equal (chance ≈ 1e-6 each),
    // so p = 2 · (0 + 1) / (9,999 + 1) = 0.0002.
    let baseline = vec![0.0; EXACT_MAX_PAIRS + 1];
    let candidate = vec![1.0; EXACT_MAX_PAIRS + 1];
    let r = paired(&baseline, &candidate, 9_999, 0.95, 5).expect("pairs");
    assert!(!r.exact);
    assert_eq!(r.permutations, 9_999);
    assert_eq!(r.p, 0.0002);
}

#[test]
fn monte_carlo_p_agrees_with_exact_within_its_error() {
    let mut rng = Rng::new(11);
    let diffs: Vec<f64> = (0..14).map(|_| rng.next_f64() - 0.35).collect();
    let (exact, is_exact, total) = sign_flip_p(&diffs, EXACT_MAX_PAIRS, 0, 0);
    assert!(is_exact && total == 1 << 14);
    let resamples = 20_000;
    let (mc, is_exact, _) = sign_flip_p(&diffs, 0, resamples, 9);
    assert!(!is_exact);
    let se = (exact * (1.0 - exact) / resamples as f64).sqrt();
    assert!(close(mc, exact, 4.0 * se + 2.0 / resamples as f64), "{mc} vs {exact}");
}

#[test]
fn paired_reports_candidate_minus_baseline_and_drops_missing_pairs() {
    let baseline = [0.5, 0.6, f64::NAN, 0.7, 0.4, 0.5];
    let candidate = [0.6, 0.8, 0.9, 0.7, 0.5, f64::NAN];
    let r = paired(&baseline, &candidate, 2_000, 0.95, 1).expect("pairs");
    assert_eq!((r.n, r.dropped), (4, 2));
    // Differences 0.1, 0.2, 0, 0.1.
    assert!(close(r.mean_diff, 0.1, 1e-12));
    assert!(r.ci.lo <= r.mean_diff && r.mean_diff <= r.ci.hi);
    assert!(r.ci.lo >= 0.0 - 1e-12 && r.ci.hi <= 0.2 + 1e-12);
    // The same differences read the other way round: same p, mirrored interval.
    let back = paired(&candidate, &baseline, 2_000, 0.95, 1).expect("pairs");
    assert_eq!(back.p, r.p);
    assert!(close(back.mean_diff, -r.mean_diff, 1e-15));
    assert_eq!(paired(&[1.0], &[1.0, 2.0], 10, 0.95, 1), None);
    assert_eq!(paired(&[f64::NAN], &[1.0], 10, 0.95, 1), None);
    assert_eq!(paired(&[1.0], &[2.0], 0, 0.95, 1), None);
}

// Holm values confirmed with statsmodels 0.15.0:
// `statsmodels.stats.multitest.multipletests(p, method='holm')[1]`; identical.

#[test]
fn holm_hand_examples() {
    // Sorted 0.005, 0.01, 0.03, 0.04 times 4, 3, 2, 1: 0.02, 0.03, 0.06, 0.04; the running
    // maximum makes the last 0.06. statsmodels: [0.03, 0.06, 0.06, 0.02].
    assert_eq!(holm(&[0.01, 0.04, 0.03, 0.005]), vec![0.03, 0.06, 0.06, 0.02]);
    // 0.5 · 2 = 1, 0.6 · 1 < 1 raised to 1 by the running maximum. statsmodels: [1, 1].
    assert_eq!(holm(&[0.5, 0.6]), vec![1.0, 1.0]);
    // Ties: 0.001 · 5, 0.02 · 4, 0.02 · 3 → 0.08, 0.2 · 2, 0.9 · 1.
    // statsmodels: [0.08, 0.08, 0.4, 0.005, 0.9].
    assert_eq!(holm(&[0.02, 0.02, 0.2, 0.001, 0.9]), vec![0.08, 0.08, 0.4, 0.005, 0.9]);
    let with_nan = holm(&[0.01, f64::NAN, 0.04]);
    assert_eq!((with_nan[0], with_nan[2]), (0.02, 0.04));
    assert!(with_nan[1].is_nan());
    assert!(holm(&[]).is_empty());
}

#[test]
fn percentile_hand_example_matches_numpy() {
    // Sorted: 1 1 2 3 4 5 6 9 (n = 8). q = 25: position 7 · 0.25 = 1.75, between 1 and 2:
    // 1 + 0.75 = 1.75. q = 90: position 6.3, 6 + 0.3 · 3 = 6.9 (NumPy interpolates from
    // 9 when the fraction is >= 0.5, here from 6: 6.8999999999999995, as printed by
    // `np.percentile([3, 1, 4, 1, 5, 9, 2, 6], 90)`, NumPy 2.4.6).
    let v = [3.0, 1.0, 4.0, 1.0, 5.0, 9.0, 2.0, 6.0];
    assert_eq!(percentile(&v, 0.0), 1.0);
    assert_eq!(percentile(&v, 2.5), 1.0);
    assert_eq!(percentile(&v, 25.0), 1.75);
    assert_eq!(percentile(&v, 50.0), 3.5);
    assert_eq!(percentile(&v, 90.0), 6.8999999999999995);
    assert_eq!(percentile(&v, 97.5), 8.475000000000001);
    assert_eq!(percentile(&v, 100.0), 9.0);
    assert_eq!(percentile(&[4.0], 30.0), 4.0);
    assert!(percentile(&[], 50.0).is_nan());
    assert!(percentile(&v, 101.0).is_nan());
    assert!(percentile(&[1.0, f64::NAN], 50.0).is_nan());
}

fn uniform(n: usize, seed: u64) -> Vec<f64> {
    let mut rng = Rng::new(seed);
    (0..n).map(|_| rng.next_f64()).collect()
}

fn mean(v: &[f64]) -> f64 {
    v.iter().sum::<f64>() / v.len() as f64
}

#[test]
fn bootstrap_interval_contains_the_mean_and_shrinks_with_n() {
    let small = uniform(50, 1);
    let large = uniform(5_000, 2);
    let width = |v: &[f64]| {
        let ci = bootstrap_means(&[v], &vec![0; v.len()], 2_000, 0.95, 7)[0].expect("ci");
        assert!(ci.lo < mean(v) && mean(v) < ci.hi, "{ci:?} vs {}", mean(v));
        ci.hi - ci.lo
    };
    let (w_small, w_large) = (width(&small), width(&large));
    // Width ≈ 2 · 1.96 · 0.289 / sqrt(n): ≈ 0.16 for 50, ≈ 0.016 for 5,000.
    assert!(close(w_small, 0.16, 0.04), "{w_small}");
    assert!(close(w_large, 0.016, 0.003), "{w_large}");
}

#[test]
fn bootstrap_is_deterministic_for_a_seed() {
    let v = uniform(300, 4);
    let strata: Vec<usize> = (0..300).map(|d| d % 2).collect();
    let a = bootstrap_means(&[&v], &strata, 500, 0.9, 42);
    assert_eq!(a, bootstrap_means(&[&v], &strata, 500, 0.9, 42));
    assert_ne!(a, bootstrap_means(&[&v], &strata, 500, 0.9, 43));
}

#[test]
fn series_share_the_same_draws() {
    // Two series equal up to an affine map give intervals related by the same map, which
    // only holds when both were resampled with the same documents; and a series' interval
    // does not depend on which other series are computed with it.
    let v = uniform(200, 5);
    let w: Vec<f64> = v.iter().map(|x| 3.0 * x + 1.0).collect();
    let strata = vec![0; 200];
    let both = bootstrap_means(&[&v, &w], &strata, 1_000, 0.95, 9);
    let (cv, cw) = (both[0].expect("ci"), both[1].expect("ci"));
    assert!(close(cw.lo, 3.0 * cv.lo + 1.0, 1e-12) && close(cw.hi, 3.0 * cv.hi + 1.0, 1e-12));
    assert_eq!(bootstrap_means(&[&v], &strata, 1_000, 0.95, 9)[0], both[0]);
}

#[test]
fn stratified_resamples_keep_stratum_sizes() {
    // Strata ids need not be contiguous or sorted.
    let strata = [5, 1, 5, 5, 9, 1, 5, 9, 9, 9, 9, 5];
    let mut draws = 0;
    let ci = bootstrap_statistic(&strata, 300, 0.95, 1, |counts| {
        draws += 1;
        for id in [1, 5, 9] {
            let drawn: u32 =
                strata.iter().zip(counts).filter(|(s, _)| **s == id).map(|(_, c)| c).sum();
            assert_eq!(drawn as usize, strata.iter().filter(|s| **s == id).count());
        }
        Some(0.0)
    });
    assert_eq!(draws, 300);
    assert_eq!(ci, Some(Interval { lo: 0.0, hi: 0.0 }));
}

#[test]
fn stratification_narrows_the_interval_when_strata_differ() {
    // Half the documents score about 0 and half about 1: unstratified resamples vary the
    // mix, stratified ones cannot.
    let v: Vec<f64> = (0..400).map(|d| if d < 200 { 0.0 } else { 1.0 }).collect();
    let by_half: Vec<usize> = (0..400).map(|d| usize::from(d >= 200)).collect();
    let plain = bootstrap_means(&[&v], &[0; 400], 500, 0.95, 1)[0].expect("ci");
    let strat = bootstrap_means(&[&v], &by_half, 500, 0.95, 1)[0].expect("ci");
    assert!(plain.hi - plain.lo > 0.05);
    assert_eq!(strat, Interval { lo: 0.5, hi: 0.5 });
}

#[test]
fn bootstrap_statistic_draws_as_bootstrap_means() {
    let v = uniform(1_000, 6);
    let strata: Vec<usize> = (0..1_000).map(|d| d % 4).collect();
    let means = bootstrap_means(&[&v], &strata, 400, 0.95, 77)[0].expect("ci");
    let weighted = bootstrap_statistic(&strata, 400, 0.95, 77, |counts| {
        let total: u32 = counts.iter().sum();
        let sum: f64 = counts.iter().zip(&v).map(|(&c, x)| f64::from(c) * x).sum();
        Some(sum / f64::from(total))
    })
    .expect("ci");
    // Equal up to summation order.
    assert!(close(means.lo, weighted.lo, 1e-12) && close(means.hi, weighted.hi, 1e-12));
    assert_eq!(bootstrap_statistic(&strata, 10, 0.95, 1, |_| None), None);
    assert_eq!(bootstrap_statistic(&strata, 10, 1.0, 1, |_| Some(1.0)), None);
}

#[test]
fn missing_values_are_left_out_of_means() {
    // NaN documents are skipped: a series with NaNs where another has values gives the
    // interval of its present values' mean; resamples that draw no present document are
    // left out; all-NaN, wrong-length and zero-resample cases give None.
    let n = 600;
    let strata = vec![0; n];
    let v = uniform(n, 8);
    let holes: Vec<f64> =
        v.iter().enumerate().map(|(d, &x)| if d % 3 == 0 { f64::NAN } else { x }).collect();
    let present: Vec<f64> = holes.iter().copied().filter(|x| !x.is_nan()).collect();
    let out = bootstrap_means(&[&holes, &v, &[f64::NAN; 600], &v[..10]], &strata, 1_000, 0.95, 3);
    let ci = out[0].expect("ci");
    assert!(ci.lo < mean(&present) && mean(&present) < ci.hi);
    assert!(out[1].is_some());
    assert_eq!((out[2], out[3]), (None, None));
    // One present document among 50: most resamples draw it at least once (1 - (49/50)^50
    // ≈ 64 %); those give exactly its value.
    let mut lonely = vec![f64::NAN; 50];
    lonely[7] = 0.3;
    let ci = bootstrap_means(&[&lonely], &[0; 50], 500, 0.95, 1)[0].expect("ci");
    assert_eq!(ci, Interval { lo: 0.3, hi: 0.3 });
    assert_eq!(bootstrap_means(&[&v], &strata, 0, 0.95, 1), vec![None]);
    assert_eq!(bootstrap_means(&[&v], &strata, 10, 0.0, 1), vec![None]);
}

#[test]
fn batched_sums_equal_plain_sums() {
    // Sizes that leave partial blocks, tiles and lanes; each mean against a direct
    // computation from the same counts.
    let n = 263;
    let strata: Vec<usize> = (0..n).map(|d| d % 2).collect();
    let dense = [uniform(n, 1), uniform(n, 2)];
    // A sparse row: every 9th document's value of the second row, the others 0.
    let listed: Vec<(usize, f64)> = (0..n).step_by(9).map(|i| (i, dense[1][i])).collect();
    let mut third = vec![0.0; n];
    for &(i, x) in &listed {
        third[i] = x;
    }
    let rows =
        vec![Row::Dense(dense[0].clone()), Row::Dense(dense[1].clone()), Row::Sparse(listed)];
    let plain = [&dense[0], &dense[1], &third];
    let resamples = RESAMPLE_BLOCK + 6;
    let sums = weighted_sums(&rows, &strata, resamples, 5);
    let mut resampler = Resampler::new(&strata, 5);
    let mut counts = vec![0; n];
    for k in 0..resamples {
        resampler.draw(&mut counts);
        for (r, row) in plain.iter().enumerate() {
            let direct: f64 = counts.iter().zip(row.iter()).map(|(&c, x)| f64::from(c) * x).sum();
            assert!(close(sums[r * resamples + k], direct, 1e-9), "row {r} resample {k}");
        }
    }
}

#[test]
fn sparse_and_dense_presence_give_the_same_means() {
    // A series with few values (kept as a list), one with few gaps (its gaps listed) and
    // one with half missing (dense): each resampled mean against a direct computation.
    let n = 400;
    let strata: Vec<usize> = (0..n).map(|d| d % 3).collect();
    let base = uniform(n, 3);
    let few: Vec<f64> = (0..n).map(|i| if i % 20 == 0 { base[i] } else { f64::NAN }).collect();
    let gaps: Vec<f64> = (0..n).map(|i| if i % 20 == 0 { f64::NAN } else { base[i] }).collect();
    let half: Vec<f64> = (0..n).map(|i| if i % 2 == 0 { f64::NAN } else { base[i] }).collect();
    let series = [few.as_slice(), gaps.as_slice(), half.as_slice()];
    let resamples = 40;
    let means = resampled_means(&series, &strata, resamples, 9);
    let mut resampler = Resampler::new(&strata, 9);
    let mut counts = vec![0; n];
    for k in 0..resamples {
        resampler.draw(&mut counts);
        for (j, (v, got)) in series.iter().zip(means.iter().map(|m| m[k])).enumerate() {
            let (mut s, mut m) = (0.0, 0.0);
            for (&c, &x) in counts.iter().zip(v.iter()) {
                if x.is_finite() {
                    s += f64::from(c) * x;
                    m += f64::from(c);
                }
            }
            let want = if m > 0.0 { s / m } else { f64::NAN };
            assert!(
                got == want || close(got, want, 1e-9) || (got.is_nan() && want.is_nan()),
                "series {j} resample {k}: {got} {want}"
            );
        }
    }
}

#[test]
fn ranks_place_probabilities_sum_to_one() {
    let n = 80;
    let strata = vec![0; n];
    let base = uniform(n, 1);
    let a: Vec<f64> = base.iter().map(|x| x + 0.30).collect();
    let b: Vec<f64> = base.iter().zip(uniform(n, 2)).map(|(x, y)| x + 0.1 * y).collect();
    let c: Vec<f64> = base.iter().zip(uniform(n, 3)).map(|(x, y)| x + 0.1 * y).collect();
    let r = rank_bootstrap(&[&a, &b, &c], &strata, true, 1_000, 4);
    for row in &r.place {
        assert!(close(row.iter().sum::<f64>(), 1.0, 1e-9));
    }
    for k in 0..3 {
        assert!(close(r.place.iter().map(|row| row[k]).sum::<f64>(), 1.0, 1e-9));
    }
    // a is 0.3 above both on every document: always first.
    assert_eq!((r.rank[0], r.place[0][0], r.mean_rank[0]), (1.0, 1.0, 1.0));
    assert!(close(r.mean_rank.iter().sum::<f64>(), 6.0, 1e-9));
    assert!(r.ties.is_empty());
    // Lower is better reverses the order.
    let low = rank_bootstrap(&[&a, &b, &c], &strata, false, 200, 4);
    assert_eq!((low.rank[0], low.place[0][2]), (3.0, 1.0));
}

#[test]
fn tied_providers_share_places() {
    // b and c are identical: tied on the full data and in every resample, each 1/2 in
    // places 2 and 3 and rank 2.5; d has no value and is last.
    let n = 30;
    let a = uniform(n, 1).iter().map(|x| x + 2.0).collect::<Vec<_>>();
    let b = uniform(n, 2);
    let r = rank_bootstrap(&[&a, &b, &b, &[f64::NAN; 30]], &vec![0; n], true, 100, 1);
    assert_eq!(r.rank, vec![1.0, 2.5, 2.5, 4.0]);
    assert_eq!(r.ties, vec![vec![1, 2]]);
    assert_eq!(r.place[1], vec![0.0, 0.5, 0.5, 0.0]);
    assert_eq!(r.place[3], vec![0.0, 0.0, 0.0, 1.0]);
    assert_eq!(r.mean_rank, vec![1.0, 2.5, 2.5, 4.0]);
    // Two providers without values are tied for last.
    let none = rank_bootstrap(&[&[f64::NAN; 3], &[f64::NAN; 3]], &[0; 3], true, 10, 1);
    assert_eq!((none.rank, none.ties), (vec![1.5, 1.5], vec![vec![0, 1]]));
}

/// 100 series (10 metrics × 10 providers) × 10,000 documents in 3 strata, 2,000 resamples;
/// the speed target is ≤ 2 s on one core. Run with
/// `--ignored --nocapture bootstrap_means_timing`.
#[test]
#[ignore]
fn bootstrap_means_timing() {
    let (docs, series_count, resamples) = (10_000, 100, 2_000);
    let strata: Vec<usize> = (0..docs).map(|d| d % 3).collect();
    let mut rng = Rng::new(3);
    let mut full: Vec<Vec<f64>> =
        (0..series_count).map(|_| (0..docs).map(|_| rng.next_f64()).collect()).collect();
    let refs: Vec<&[f64]> = full.iter().map(Vec::as_slice).collect();
    let start = std::time::Instant::now();
    let out = bootstrap_means(&refs, &strata, resamples, 0.95, 42);
    let all_present = start.elapsed();
    assert!(out.iter().all(Option::is_some));
    // Each provider (10 series) misses its own 1 % of the documents.
    for (s, values) in full.iter_mut().enumerate() {
        for (d, v) in values.iter_mut().enumerate() {
            if (d * 7 + s / 10 * 13) % 100 == 0 {
                *v = f64::NAN;
            }
        }
    }
    let refs: Vec<&[f64]> = full.iter().map(Vec::as_slice).collect();
    let start = std::time::Instant::now();
    let out = bootstrap_means(&refs, &strata, resamples, 0.95, 42);
    let with_missing = start.elapsed();
    assert!(out.iter().all(Option::is_some));
    println!(
        "bootstrap_means {series_count} series x {docs} docs x {resamples} resamples: \
             {all_present:.2?} all present, {with_missing:.2?} with 10 missing patterns"
    );
    let start = std::time::Instant::now();
    let ranks = rank_bootstrap(&refs[..10], &strata, true, resamples, 42);
    println!("rank_bootstrap 10 providers x {docs} docs x {resamples}: {:.2?}", start.elapsed());
    assert_eq!(ranks.place.len(), 10);
    let start = std::time::Instant::now();
    let r = paired(&full[0][..EXACT_MAX_PAIRS], &full[1][..EXACT_MAX_PAIRS], 2_000, 0.95, 1);
    println!("paired, exact, {EXACT_MAX_PAIRS} pairs: {:.2?}", start.elapsed());
    assert!(r.is_some_and(|r| r.exact));
    let start = std::time::Instant::now();
    let r = paired(&full[0], &full[1], 10_000, 0.95, 1);
    println!("paired, Monte Carlo, {docs} pairs x 10,000: {:.2?}", start.elapsed());
    assert!(r.is_some_and(|r| !r.exact));
}
