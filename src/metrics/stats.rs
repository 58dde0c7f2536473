//! Resampling statistics for comparing providers on the same documents (issue 35): percentile
//! bootstrap intervals of means, stratified and batched over many series with one set of draws
//! (`bootstrap_means`); a weighted bootstrap for headlines that are not plain means
//! (`bootstrap_statistic`); a paired comparison with a bootstrap interval and a sign-flip
//! permutation p-value ([`paired`]); Holm's correction (`holm`); bootstrap distributions of
//! ranks (`rank_bootstrap`).
//!
//! Pure functions over slices, `std` only, no IO. Every random quantity comes from [`Rng`] seeded
//! by the caller, so a report's intervals and p-values are reproduced from its recorded seed. The
//! conventions are those of the Python tools a user would check us with, so
//! `bench/stats_scipy.py` can compare: percentiles are NumPy's default `linear` method, the
//! p-value is `scipy.stats.permutation_test(..., permutation_type='samples')`'s (exact and
//! randomized), Holm is `statsmodels.stats.multitest.multipletests(method='holm')`'s.
//!
//! Missing values. A NaN (or any non-finite value) in a series is a document without that
//! score. A mean is taken over the documents that have a value; a resample whose drawn
//! documents all lack the value has no mean and is left out of the percentiles.

use std::collections::HashMap;

/// The most NON-ZERO differences [`paired`] enumerates exactly: `2^20` (1,048,576) sign
/// assignments, a few milliseconds. A zero difference does not change a sign-flip test (its
/// flip leaves every sum as it is, doubling each count and the total alike), so only the
/// non-zero ones are counted and enumerated. More get a Monte Carlo p-value from `resamples`
/// random assignments, whose error (≈ `sqrt(p (1 - p) / resamples)`) is far below any
/// threshold a user reads by then; the gate, whose verdict must not depend on the seed, draws
/// sequentially instead ([`one_sided_less`]).
pub const EXACT_MAX_PAIRS: usize = 20;

/// Relative tolerance under which two statistics count as equal: SciPy's `permutation_test`
/// uses `100 * eps` so that a null statistic equal in theory to the observed one, but computed
/// in another order, is counted as reaching it. Also the tolerance for tied means in
/// `rank_bootstrap`.
pub const REL_TOL: f64 = 100.0 * f64::EPSILON;

/// Offset of the seed for [`paired`]'s random sign flips, so they are not the stream its
/// bootstrap draws documents from.
const PERMUTATION_STREAM: u64 = 0x5851_f42d_4c95_7f2d;

/// Resamples drawn and summed together by [`bootstrap_means`]: each pass over a series then
/// serves this many resamples, which keeps the series' memory traffic low.
const RESAMPLE_BLOCK: usize = 64;

/// xoshiro256** seeded through splitmix64: a small, fast generator whose stream is the same on
/// every platform, which is what lets a recorded seed reproduce a report.
#[derive(Debug, Clone)]
pub struct Rng {
    s: [u64; 4],
}

impl Rng {
    /// Seeds the four state words from `seed` with splitmix64 (any seed, 0 included, is fine).
    pub fn new(seed: u64) -> Self {
        let mut x = seed;
        let mut next = || {
            x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = x;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            z ^ (z >> 31)
        };
        Rng { s: [next(), next(), next(), next()] }
    }

    /// Next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        let result = self.s[1].wrapping_mul(5).rotate_left(7).wrapping_mul(9);
        let t = self.s[1] << 17;
        self.s[2] ^= self.s[0];
        self.s[3] ^= self.s[1];
        self.s[1] ^= self.s[2];
        self.s[0] ^= self.s[3];
        self.s[2] ^= t;
        self.s[3] = self.s[3].rotate_left(45);
        result
    }

    /// Uniform integer in `0..n` without modulo bias (Lemire's multiply-and-reject, which needs
    /// a division only on the rare candidate rejection); 0 when `n` is 0.
    pub fn below(&mut self, n: u64) -> u64 {
        if n == 0 {
            return 0;
        }
        let mut m = u128::from(self.next_u64()) * u128::from(n);
        if (m as u64) < n {
            let threshold = n.wrapping_neg() % n;
            while (m as u64) < threshold {
                m = u128::from(self.next_u64()) * u128::from(n);
            }
        }
        (m >> 64) as u64
    }

    /// Uniform `f64` in `[0, 1)` with 53 random bits.
    pub fn next_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }
}

/// A two-sided confidence interval, `lo <= hi`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Interval {
    /// Lower bound: the `(1 - level) / 2` quantile of the bootstrap distribution.
    pub lo: f64,
    /// Upper bound: the `1 - (1 - level) / 2` quantile of the bootstrap distribution.
    pub hi: f64,
}

/// NumPy's `np.percentile(values, q)` with its default `linear` method, `q` in `[0, 100]`:
/// sorts a copy, then interpolates between the two order statistics around `(n - 1) q / 100`.
/// NaN when `values` is empty, holds a NaN (as NumPy), or `q` is outside `[0, 100]`.
pub fn percentile(values: &[f64], q: f64) -> f64 {
    if values.is_empty() || !(0.0..=100.0).contains(&q) || values.iter().any(|v| v.is_nan()) {
        return f64::NAN;
    }
    let mut sorted = values.to_vec();
    sorted.sort_unstable_by(f64::total_cmp);
    quantile_sorted(&sorted, q / 100.0)
}

/// The `p` quantile (`p` in `[0, 1]`) of non-empty sorted values, as NumPy's `linear` method
/// computes it, rounding included (`_lerp` interpolates from the nearer end).
fn quantile_sorted(sorted: &[f64], p: f64) -> f64 {
    let last = sorted.len() - 1;
    let pos = last as f64 * p;
    let below = pos.floor();
    let i = (below as usize).min(last);
    let j = (i + 1).min(last);
    let t = pos - below;
    let (a, b) = (sorted[i], sorted[j]);
    let diff = b - a;
    if t >= 0.5 {
        b - diff * (1.0 - t)
    } else {
        a + diff * t
    }
}

/// The percentile interval of a bootstrap distribution, NaN entries (resamples without a
/// value) left out; `None` when none is left or `level` is not in `(0, 1)`.
fn percentile_interval(distribution: &[f64], level: f64) -> Option<Interval> {
    if !(level > 0.0 && level < 1.0) {
        return None;
    }
    let mut sorted: Vec<f64> = distribution.iter().copied().filter(|v| !v.is_nan()).collect();
    if sorted.is_empty() {
        return None;
    }
    sorted.sort_unstable_by(f64::total_cmp);
    let alpha = (1.0 - level) / 2.0;
    Some(Interval {
        lo: quantile_sorted(&sorted, alpha),
        hi: quantile_sorted(&sorted, 1.0 - alpha),
    })
}

/// Draws stratified bootstrap resamples as count weights: each stratum's documents are drawn
/// with replacement as many times as the stratum has documents, so every resample keeps the
/// strata's sizes (a dataset of 10 documents mixed with one of 1,000 stays 1 % of each).
struct Resampler {
    /// Document indices of each stratum, strata in ascending id, documents in ascending index.
    groups: Vec<Vec<usize>>,
    rng: Rng,
}

impl Resampler {
    fn new(strata: &[usize], seed: u64) -> Self {
        let mut order: Vec<usize> = (0..strata.len()).collect();
        order.sort_by_key(|&doc| strata[doc]);
        let groups =
            order.chunk_by(|&a, &b| strata[a] == strata[b]).map(<[usize]>::to_vec).collect();
        Resampler { groups, rng: Rng::new(seed) }
    }

    /// Fills `counts` (one entry per document) with how often each document is drawn.
    fn draw(&mut self, counts: &mut [u32]) {
        counts.fill(0);
        for group in &self.groups {
            let size = group.len() as u64;
            for _ in 0..group.len() {
                counts[group[self.rng.below(size) as usize]] += 1;
            }
        }
    }
}

/// Percentile bootstrap intervals of the means of many series over the same documents, at
/// confidence `level` (e.g. 0.95), from `resamples` stratified resamples of the documents.
///
/// `strata[d]` is document `d`'s stratum (e.g. its dataset); each series holds one value per
/// document, in the same order. Documents are resampled with replacement within each stratum,
/// keeping its size, and the SAME resampled document sets serve every series, so the intervals
/// of all metrics and providers come from one set of draws (and agree with
/// [`bootstrap_statistic`] and [`rank_bootstrap`] for the same `strata` and `seed`).
///
/// A series' resampled mean is over its documents with a value (see the module's note on
/// missing values): `Σ count·value / Σ count·present`. A resample in which no drawn document
/// has a value is left out of that series' percentiles. The result is `None` for a series
/// with no value at all, of another length than `strata`, or when `resamples` is 0 or `level`
/// is not in `(0, 1)`.
///
/// Cost: one dot product of count weights with each series per resample, taken in blocks of
/// resamples and tiles of documents; series sharing a pattern of missing documents share its
/// presence sums.
pub(crate) fn bootstrap_means(
    series: &[&[f64]],
    strata: &[usize],
    resamples: usize,
    level: f64,
    seed: u64,
) -> Vec<Option<Interval>> {
    resampled_means(series, strata, resamples, seed)
        .iter()
        .map(|means| percentile_interval(means, level))
        .collect()
}

/// Each series' mean on each resample (`[series][resample]`, NaN where a resample has no
/// value), or an empty vector for a series without values or of the wrong length.
fn resampled_means(
    series: &[&[f64]],
    strata: &[usize],
    resamples: usize,
    seed: u64,
) -> Vec<Vec<f64>> {
    let n = strata.len();
    // Rows to weight: each usable series' values (missing as 0; as a list of its present
    // documents where they are few), then each distinct presence pattern of the series that
    // miss some documents: as the list of its present documents, or of its absent ones (the
    // present count is then `n` less their weights) when those are fewer.
    let sparse = |k: usize| k * SPARSE_FRACTION <= n;
    let mut rows: Vec<Row> = Vec::new();
    let mut patterns: HashMap<Vec<bool>, (usize, bool)> = HashMap::new();
    let mut plan: Vec<Option<Plan>> = Vec::with_capacity(series.len());
    for values in series {
        let present: Vec<bool> = values.iter().map(|v| v.is_finite()).collect();
        let count = present.iter().filter(|&&p| p).count();
        if values.len() != n || count == 0 {
            plan.push(None);
            continue;
        }
        rows.push(if sparse(count) {
            Row::Sparse(
                values
                    .iter()
                    .enumerate()
                    .filter(|(_, v)| v.is_finite())
                    .map(|(i, &v)| (i, v))
                    .collect(),
            )
        } else {
            Row::Dense(values.iter().map(|&v| if v.is_finite() { v } else { 0.0 }).collect())
        });
        let value_row = rows.len() - 1;
        let presence = if count < n {
            let next = rows.len();
            let complement = !sparse(count);
            let entry = *patterns.entry(present).or_insert((next, complement));
            if entry.0 == next {
                let wanted = !complement;
                rows.push(Row::Sparse(
                    values
                        .iter()
                        .enumerate()
                        .filter(|(_, v)| v.is_finite() == wanted)
                        .map(|(i, _)| (i, 1.0))
                        .collect(),
                ));
            }
            Some(entry)
        } else {
            None
        };
        plan.push(Some((value_row, presence)));
    }
    let sums = weighted_sums(&rows, strata, resamples, seed);
    let row_sums = |row: usize| &sums[row * resamples..(row + 1) * resamples];
    plan.iter()
        .map(|entry| match *entry {
            None => Vec::new(),
            // Every resample draws `n` documents in all, so a series with every value has
            // `n` present draws.
            Some((value_row, None)) => row_sums(value_row).iter().map(|s| s / n as f64).collect(),
            Some((value_row, Some((presence_row, complement)))) => row_sums(value_row)
                .iter()
                .zip(row_sums(presence_row))
                .map(|(&s, &p)| {
                    let present = if complement { n as f64 - p } else { p };
                    if present > 0.0 {
                        s / present
                    } else {
                        f64::NAN
                    }
                })
                .collect(),
        })
        .collect()
}

/// How one series' resampled means are read off the weighted sums: its value row, and its
/// presence row with whether that lists the absent documents (`n` less its sum is the present
/// count) rather than the present ones; no presence row where every document has a value.
type Plan = (usize, Option<(usize, bool)>);

/// A row resampled documents are weighted with: one value per document, or only the
/// documents listed (the others 0).
enum Row {
    Dense(Vec<f64>),
    Sparse(Vec<(usize, f64)>),
}

/// A row with at most `1 / SPARSE_FRACTION` of the documents is kept as a list.
const SPARSE_FRACTION: usize = 8;

/// `Σ count·row` of each row on each resample: `[row * resamples + resample]`.
///
/// Resamples are drawn [`RESAMPLE_BLOCK`] at a time as a block of count weights; the dense
/// rows' sums of a block are one matrix product (weights × rows, ndarray's `dot`, which picks
/// the CPU's vector instructions at run time), the sparse rows' are sums over their listed
/// documents.
fn weighted_sums(rows: &[Row], strata: &[usize], resamples: usize, seed: u64) -> Vec<f64> {
    use ndarray::{Array2, ArrayView2};
    let n = strata.len();
    let mut out = vec![0.0; rows.len() * resamples];
    let mut resampler = Resampler::new(strata, seed);
    let mut counts = vec![0u32; n];
    let mut weights = vec![0.0f64; RESAMPLE_BLOCK * n];
    // The dense rows as the columns of one `n × dense` matrix.
    let dense: Vec<(usize, &Vec<f64>)> = rows
        .iter()
        .enumerate()
        .filter_map(|(r, row)| match row {
            Row::Dense(v) => Some((r, v)),
            Row::Sparse(_) => None,
        })
        .collect();
    let mut x = Array2::<f64>::zeros((n, dense.len()));
    for (j, (_, v)) in dense.iter().enumerate() {
        for (i, &value) in v.iter().enumerate() {
            x[(i, j)] = value;
        }
    }
    let mut first = 0;
    while first < resamples {
        let block = RESAMPLE_BLOCK.min(resamples - first);
        for w in weights.chunks_exact_mut(n.max(1)).take(block) {
            resampler.draw(&mut counts);
            for (dst, &c) in w.iter_mut().zip(&counts) {
                *dst = f64::from(c);
            }
        }
        for (r, row) in rows.iter().enumerate() {
            if let Row::Sparse(entries) = row {
                let acc = &mut out[r * resamples + first..r * resamples + first + block];
                for (b, a) in acc.iter_mut().enumerate() {
                    let w = &weights[b * n..(b + 1) * n];
                    *a += entries.iter().map(|&(i, x)| w[i] * x).sum::<f64>();
                }
            }
        }
        if !dense.is_empty() && n > 0 {
            let w = ArrayView2::from_shape((block, n), &weights[..block * n])
                .expect("the weights block holds block × n values");
            let sums = w.dot(&x);
            for (j, (r, _)) in dense.iter().enumerate() {
                for b in 0..block {
                    out[r * resamples + first + b] += sums[(b, j)];
                }
            }
        }
        first += block;
    }
    out
}

/// Percentile bootstrap interval of any statistic that can be computed from count weights,
/// for headlines that are not plain means (olmOCR's mean of group pass rates, OmniDocBench's
/// `overall`): the suite recomputes its headline with each document counted `weights[d]`
/// times.
///
/// Resamples are drawn exactly as in [`bootstrap_means`] (same `strata` and `seed`, same
/// documents drawn), so this interval and the per-metric ones describe the same resamples.
/// `stat` returns `None` (or a NaN) for a resample where the statistic is undefined; those are
/// left out. `None` when no resample gives a value, `resamples` is 0 or `level` is not in
/// `(0, 1)`.
pub(crate) fn bootstrap_statistic(
    strata: &[usize],
    resamples: usize,
    level: f64,
    seed: u64,
    mut stat: impl FnMut(&[u32]) -> Option<f64>,
) -> Option<Interval> {
    if !(level > 0.0 && level < 1.0) {
        return None;
    }
    let mut resampler = Resampler::new(strata, seed);
    let mut counts = vec![0u32; strata.len()];
    let mut values = Vec::with_capacity(resamples);
    for _ in 0..resamples {
        resampler.draw(&mut counts);
        values.push(stat(&counts).unwrap_or(f64::NAN));
    }
    percentile_interval(&values, level)
}

/// A paired comparison of a candidate with a baseline on the same documents.
#[derive(Debug, Clone, PartialEq)]
pub struct Paired {
    /// Pairs compared: documents where both sides have a value.
    pub n: usize,
    /// Pairs left out because one side (or both) had no value (NaN).
    pub dropped: usize,
    /// Mean of `candidate - baseline` over the `n` pairs: positive when the candidate scores
    /// higher.
    pub mean_diff: f64,
    /// Paired percentile bootstrap interval of `mean_diff` (pairs resampled together).
    pub ci: Interval,
    /// Two-sided sign-flip permutation p-value of `mean_diff`, SciPy's convention (see
    /// [`paired`]).
    pub p: f64,
    /// Whether `p` enumerated every sign assignment (at most [`EXACT_MAX_PAIRS`] non-zero
    /// differences) or is Monte Carlo.
    pub exact: bool,
    /// Sign assignments behind `p`: `2^k` for `k` non-zero differences when exact,
    /// `resamples` otherwise.
    pub permutations: u64,
}

/// Compares `candidate` with `baseline`, paired by index (`baseline[d]` and `candidate[d]` are
/// the same document), on `d = candidate - baseline`.
///
/// * Interval: a percentile bootstrap of the mean difference, `resamples` resamples of the
///   pairs (unstratified; seeded with `seed`), at confidence `level`.
/// * p-value: the paired permutation test of `scipy.stats.permutation_test(data=(candidate,
///   baseline), statistic=mean(x - y), permutation_type='samples', alternative='two-sided')`.
///   Under the null hypothesis each pair's two values are exchangeable, so each difference's
///   sign can flip. With at most `EXACT_MAX_PAIRS` non-zero differences (`k`; a zero one
///   flips to itself and changes no proportion) all `2^k` sign assignments of the non-zero
///   ones are enumerated (the observed one included) and, as SciPy does over all `2^n`,
///   `p = min(1, 2 min(P_less, P_greater))` where `P_less = #{null <= obs + γ} / 2^k`,
///   `P_greater = #{null >= obs - γ} / 2^k` and
///   `γ = 100 ε |obs|` ([`REL_TOL`]). With more, `resamples` random assignments
///   (seeded with `seed ^` a fixed stream offset) give SciPy's randomized p-value, each
///   one-sided proportion `(count + 1) / (resamples + 1)`, which counts the observed
///   assignment as one of the null's and is never 0. All differences zero gives `p = 1`.
///
/// `None` when the slices differ in length, no pair has both values, `resamples` is 0 or
/// `level` is not in `(0, 1)`.
pub fn paired(
    baseline: &[f64],
    candidate: &[f64],
    resamples: usize,
    level: f64,
    seed: u64,
) -> Option<Paired> {
    if baseline.len() != candidate.len() || resamples == 0 {
        return None;
    }
    let diffs: Vec<f64> = baseline
        .iter()
        .zip(candidate)
        .filter(|(a, b)| a.is_finite() && b.is_finite())
        .map(|(a, b)| b - a)
        .collect();
    let n = diffs.len();
    if n == 0 {
        return None;
    }
    let mean_diff = diffs.iter().sum::<f64>() / n as f64;
    let distribution = resampled_means(&[&diffs], &vec![0; n], resamples, seed);
    let ci = percentile_interval(distribution.first()?, level)?;
    let (p, exact, permutations) =
        sign_flip_p(&diffs, EXACT_MAX_PAIRS, resamples, seed ^ PERMUTATION_STREAM);
    Some(Paired { n, dropped: baseline.len() - n, mean_diff, ci, p, exact, permutations })
}

/// The two-sided sign-flip p-value of the mean of `diffs` (see [`paired`]): exact when at most
/// `exact_limit` differences are non-zero, else from `resamples` random assignments. Returns
/// `(p, exact, assignments)`.
fn sign_flip_p(diffs: &[f64], exact_limit: usize, resamples: usize, seed: u64) -> (f64, bool, u64) {
    let count = diffs.len() as f64;
    let nonzero: Vec<f64> = diffs.iter().copied().filter(|&d| d != 0.0).collect();
    if nonzero.len() <= exact_limit {
        let (_, less, greater, total) = enumerate_signs(&nonzero, count);
        let p = (2.0 * less.min(greater) as f64 / total as f64).min(1.0);
        return (p, true, total);
    }
    let mut flips = SignFlips::new(&nonzero, count, seed);
    flips.draw(resamples as u64);
    let p = (2.0 * (flips.less.min(flips.greater) + 1) as f64 / (resamples as f64 + 1.0)).min(1.0);
    (p, false, resamples as u64)
}

/// Every sign assignment of `values` (non-zero differences), each sum divided by `count` (all
/// the pairs): `(observed mean, #{null <= obs + γ}, #{null >= obs - γ}, 2^len)`.
///
/// Meet in the middle: every assignment's sum is a sum over the first half plus one over the
/// second, each computed directly (no running update, so no drift), and the observed mean is
/// the all-positive assignment computed the same way.
fn enumerate_signs(values: &[f64], count: f64) -> (f64, u64, u64, u64) {
    let (first, second) = values.split_at(values.len() / 2);
    let (low, high) = (signed_sums(first), signed_sums(second));
    let observed = (low[0] + high[0]) / count;
    let gamma = (REL_TOL * observed).abs();
    let (mut less, mut greater) = (0u64, 0u64);
    for &h in &high {
        for &l in &low {
            let null = (l + h) / count;
            less += u64::from(null <= observed + gamma);
            greater += u64::from(null >= observed - gamma);
        }
    }
    (observed, less, greater, 1u64 << values.len())
}

/// Random sign assignments of the non-zero differences, counted as [`enumerate_signs`] counts
/// all of them.
struct SignFlips<'a> {
    values: &'a [f64],
    count: f64,
    observed: f64,
    gamma: f64,
    rng: Rng,
    drawn: u64,
    less: u64,
    greater: u64,
}

impl<'a> SignFlips<'a> {
    fn new(values: &'a [f64], count: f64, seed: u64) -> Self {
        let observed = values.iter().sum::<f64>() / count;
        let gamma = (REL_TOL * observed).abs();
        let rng = Rng::new(seed);
        SignFlips { values, count, observed, gamma, rng, drawn: 0, less: 0, greater: 0 }
    }

    /// Draws `k` more assignments.
    fn draw(&mut self, k: u64) {
        for _ in 0..k {
            let mut sum = 0.0;
            for chunk in self.values.chunks(64) {
                let bits = self.rng.next_u64();
                for (i, &d) in chunk.iter().enumerate() {
                    sum += flip(d, (bits >> i) & 1);
                }
            }
            let null = sum / self.count;
            self.less += u64::from(null <= self.observed + self.gamma);
            self.greater += u64::from(null >= self.observed - self.gamma);
        }
        self.drawn += k;
    }
}

/// A one-sided sign-flip test ([`one_sided_less`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct OneSided {
    /// `P(null <= observed)`: exact, or SciPy's randomized `(count + 1) / (draws + 1)`.
    pub p: f64,
    /// Whether every assignment of the non-zero differences was enumerated.
    pub exact: bool,
    /// Assignments behind `p`: `2^k` when exact, the random draws otherwise.
    pub flips: u64,
    /// With random draws: whether they stopped because `p`'s side of every threshold was
    /// settled (false: [`SEQUENTIAL_MAX_FLIPS`] reached first, `p` within its Monte Carlo
    /// error of a threshold). Always true when exact.
    pub settled: bool,
}

/// Random assignments [`one_sided_less`] draws at first, then doubles at each look.
pub const SEQUENTIAL_FIRST_FLIPS: u64 = 1 << 12;

/// The most random assignments [`one_sided_less`] draws (2^24, 16.8 million).
pub const SEQUENTIAL_MAX_FLIPS: u64 = 1 << 24;

/// The chance, per test, that [`one_sided_less`]'s sequential draws put `p` on the wrong side
/// of a threshold (that another seed could give another verdict).
pub const SEQUENTIAL_RISK: f64 = 1e-9;

/// The one-sided sign-flip p-value `P(null <= observed)` of the mean of `diffs`, as
/// `scipy.stats.permutation_test(..., permutation_type='samples', alternative='less')`
/// computes it, for a verdict against each of `thresholds` (the gate's Holm thresholds
/// `α/m, α/(m − 1), …, α`) that does not depend on the seed (`docs/statistics.md` §4).
///
/// Zero differences are left out (they change no proportion). With at most
/// [`EXACT_MAX_PAIRS`] non-zero differences every assignment is enumerated. With more,
/// assignments are drawn sequentially: [`SEQUENTIAL_FIRST_FLIPS`], doubling at each look,
/// until for every threshold `t` the Chernoff bound `exp(−N·KL(p̂ ‖ t))` of observing the
/// proportion `p̂` of `N` draws were the true `p` on the other side of `t` is below the look's
/// share of [`SEQUENTIAL_RISK`] (`risk / (thresholds · 2^look)`, so all looks and thresholds
/// together stay below it), or until [`SEQUENTIAL_MAX_FLIPS`]. `None` when `diffs` is empty.
pub fn one_sided_less(diffs: &[f64], thresholds: &[f64], seed: u64) -> Option<OneSided> {
    if diffs.is_empty() {
        return None;
    }
    let count = diffs.len() as f64;
    let nonzero: Vec<f64> = diffs.iter().copied().filter(|&d| d != 0.0).collect();
    if nonzero.len() <= EXACT_MAX_PAIRS {
        let (_, less, _, total) = enumerate_signs(&nonzero, count);
        let p = less as f64 / total as f64;
        return Some(OneSided { p, exact: true, flips: total, settled: true });
    }
    let mut flips = SignFlips::new(&nonzero, count, seed ^ PERMUTATION_STREAM);
    let mut batch = SEQUENTIAL_FIRST_FLIPS;
    let mut look = 0i32;
    loop {
        flips.draw(batch.min(SEQUENTIAL_MAX_FLIPS - flips.drawn));
        look += 1;
        let n = flips.drawn as f64;
        let share = flips.less as f64 / n;
        let bound = (SEQUENTIAL_RISK / (thresholds.len().max(1) as f64 * 2f64.powi(look))).ln();
        let settled = thresholds.iter().all(|&t| share != t && -n * kl(share, t) <= bound);
        if settled || flips.drawn >= SEQUENTIAL_MAX_FLIPS {
            let p = (flips.less + 1) as f64 / (n + 1.0);
            return Some(OneSided { p, exact: false, flips: flips.drawn, settled });
        }
        batch = flips.drawn;
    }
}

/// The Bernoulli relative entropy `KL(q ‖ p)` (nats), `q` and `p` in `[0, 1]`.
fn kl(q: f64, p: f64) -> f64 {
    let term = |x: f64, y: f64| if x == 0.0 { 0.0 } else { x * (x / y).ln() };
    term(q, p) + term(1.0 - q, 1.0 - p)
}

/// `value` with its sign flipped when `bit` is 1 (exactly `-value`, without a branch).
#[inline]
fn flip(value: f64, bit: u64) -> f64 {
    f64::from_bits(value.to_bits() ^ (bit << 63))
}

/// The sums of `values` under all `2^len` sign assignments; bit `i` of the index set flips
/// `values[i]`, index 0 is the plain sum. Each sum is taken in index order.
fn signed_sums(values: &[f64]) -> Vec<f64> {
    (0..1u64 << values.len())
        .map(|mask| values.iter().enumerate().map(|(i, &v)| flip(v, (mask >> i) & 1)).sum())
        .collect()
}

/// Holm–Bonferroni adjusted p-values, as `statsmodels.stats.multitest.multipletests(p,
/// method='holm')[1]`: with the `m` p-values sorted ascending, the `k`-th (from 0) becomes
/// `min(1, max_{j <= k} (m - j) p_(j))`, so the adjusted values keep the order of the raw ones
/// and a family of tests keeps its error rate. Returned in the input's order. A NaN stays NaN
/// and does not count in `m` (statsmodels would propagate it).
pub(crate) fn holm(p: &[f64]) -> Vec<f64> {
    let mut order: Vec<usize> = (0..p.len()).filter(|&i| !p[i].is_nan()).collect();
    order.sort_by(|&i, &j| p[i].total_cmp(&p[j]));
    let m = order.len();
    let mut adjusted = vec![f64::NAN; p.len()];
    let mut running = 0.0f64;
    for (k, &i) in order.iter().enumerate() {
        running = running.max(p[i] * (m - k) as f64);
        adjusted[i] = running.min(1.0);
    }
    adjusted
}

/// Providers' ranks on the full data and their bootstrap distribution (see `rank_bootstrap`).
/// Places count from 1 (the best); tied providers share the average of the places they span.
#[derive(Debug, Clone, PartialEq)]
pub struct Ranks {
    /// Each provider's rank on the full data (e.g. 1.5 for two providers tied for first).
    pub rank: Vec<f64>,
    /// Each provider's mean rank over the resamples (NaN when there are none).
    pub mean_rank: Vec<f64>,
    /// `place[p][k]`: the fraction of resamples in which provider `p` takes place `k + 1`. A tie
    /// over `g` places gives each tied provider `1 / g` of each of them, so every row and every
    /// column sums to 1.
    pub place: Vec<Vec<f64>>,
    /// Groups (ascending indices, best group first) of providers whose full-data means are
    /// tied: within [`REL_TOL`] of the group's best mean, or all without a value.
    pub ties: Vec<Vec<usize>>,
    /// Resamples behind `mean_rank` and `place`.
    pub resamples: usize,
}

/// Ranks providers by their mean over the same documents (`scores[p][d]`: provider `p` on
/// document `d`), best first (`higher_is_better` says which way), and bootstraps the ranking:
/// `resamples` stratified resamples of the documents, drawn as in [`bootstrap_means`] (same
/// `strata` and `seed`, same resamples), each ranking the providers' resampled means.
///
/// Ties: means within [`REL_TOL`] (relative) of the best mean of their group are tied and
/// share the average of their places; the full data's tied groups are listed in
/// [`Ranks::ties`]. A provider without a value (all NaN, or a series of another length than
/// `strata`) or without one in a resample ranks after all others, tied with any other such.
pub(crate) fn rank_bootstrap(
    scores: &[&[f64]],
    strata: &[usize],
    higher_is_better: bool,
    resamples: usize,
    seed: u64,
) -> Ranks {
    let providers = scores.len();
    let full: Vec<f64> = scores
        .iter()
        .map(|values| {
            let present: Vec<f64> = if values.len() == strata.len() {
                values.iter().copied().filter(|v| v.is_finite()).collect()
            } else {
                Vec::new()
            };
            present.iter().sum::<f64>() / present.len() as f64
        })
        .collect();
    let groups = tie_groups(&full, higher_is_better);
    let mut rank = vec![f64::NAN; providers];
    for (start, members) in &groups {
        for &p in members {
            rank[p] = average_place(*start, members.len());
        }
    }
    let ties: Vec<Vec<usize>> = groups
        .into_iter()
        .filter(|(_, members)| members.len() > 1)
        .map(|(_, mut members)| {
            members.sort_unstable();
            members
        })
        .collect();

    let distribution = resampled_means(scores, strata, resamples, seed);
    let mut mean_rank = vec![0.0; providers];
    let mut place = vec![vec![0.0; providers]; providers];
    let mut means = vec![f64::NAN; providers];
    for k in 0..resamples {
        for (m, d) in means.iter_mut().zip(&distribution) {
            *m = d.get(k).copied().unwrap_or(f64::NAN);
        }
        for (start, members) in tie_groups(&means, higher_is_better) {
            let g = members.len();
            for &p in &members {
                mean_rank[p] += average_place(start, g);
                for share in &mut place[p][start..start + g] {
                    *share += 1.0 / g as f64;
                }
            }
        }
    }
    let total = resamples as f64;
    for r in &mut mean_rank {
        *r /= total;
    }
    for share in place.iter_mut().flatten() {
        *share = if resamples == 0 { 0.0 } else { *share / total };
    }
    Ranks { rank, mean_rank, place, ties, resamples }
}

/// The average of places `start + 1 ..= start + g`.
fn average_place(start: usize, g: usize) -> f64 {
    start as f64 + (g as f64 + 1.0) / 2.0
}

/// Providers grouped by tied means, best group first, each as `(places before it, members)`.
/// Members of a group are within [`REL_TOL`] of its first (best) mean; NaN means form the last
/// group.
fn tie_groups(means: &[f64], higher_is_better: bool) -> Vec<(usize, Vec<usize>)> {
    let mut order: Vec<usize> = (0..means.len()).collect();
    order.sort_by(|&a, &b| {
        let (x, y) = (means[a], means[b]);
        match (x.is_nan(), y.is_nan()) {
            (false, false) if higher_is_better => y.total_cmp(&x),
            (false, false) => x.total_cmp(&y),
            (nan_x, nan_y) => nan_x.cmp(&nan_y),
        }
    });
    let mut groups: Vec<(usize, Vec<usize>)> = Vec::new();
    for (position, &p) in order.iter().enumerate() {
        let joins = groups.last().is_some_and(|(_, members)| {
            let (head, x) = (means[members[0]], means[p]);
            (head.is_nan() && x.is_nan()) || (head - x).abs() <= REL_TOL * head.abs().max(x.abs())
        });
        match groups.last_mut() {
            Some((_, members)) if joins => members.push(p),
            _ => groups.push((position, vec![p])),
        }
    }
    groups
}

#[cfg(test)]
#[path = "stats_tests.rs"]
mod tests;
