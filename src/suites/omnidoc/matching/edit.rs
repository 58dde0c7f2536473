//! Edit distances used by the matcher and the metrics: python-`Levenshtein.distance` semantics
//! (unit costs, code points), computed by the bit-parallel core of `metrics::levenshtein`
//! (global and semi-global modes), plus the fixed-window substring test behind the reference's
//! `sub_pred_fuzzy_matching` / `sub_gt_fuzzy_matching` (`utils/match_quick.py`).
//!
//! All results equal the textbook dynamic program (checked by the tests); only speed differs.

use crate::metrics::levenshtein::Pattern;

/// Levenshtein distance over any comparable sequence (python-`Levenshtein.distance`), by the
/// two-row dynamic program. Used for integer lists (reading order) and as the test oracle.
pub fn levenshtein<T: PartialEq>(a: &[T], b: &[T]) -> usize {
    if a.is_empty() {
        return b.len();
    }
    if b.is_empty() {
        return a.len();
    }
    let (a, b) = if a.len() < b.len() { (b, a) } else { (a, b) };
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, x) in a.iter().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, y) in b.iter().enumerate() {
            let cur = row[j + 1];
            row[j + 1] = if x == y { prev } else { 1 + prev.min(cur).min(row[j]) };
            prev = cur;
        }
    }
    row[b.len()]
}

/// Levenshtein distance of two character sequences.
pub fn lev_chars(a: &[char], b: &[char]) -> usize {
    let (p, t) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    if p.len() < 4 {
        return levenshtein(a, b);
    }
    Pattern::new(p).distance(t)
}

/// `dist / max(len)`, 0 for two empty strings (`compute_edit_distance_matrix_new`).
pub fn norm_dist(a: &[char], b: &[char]) -> f64 {
    let m = a.len().max(b.len());
    if m == 0 {
        return 0.0;
    }
    lev_chars(a, b) as f64 / m as f64
}

/// Whether some window of `hay` with `needle.len()` characters is within `t · len` edits of
/// `needle` (`≤` when `inclusive`, else `<`): the threshold test the reference applies to the
/// minimum of `sub_pred_fuzzy_matching` (0.6) and `sub_gt_fuzzy_matching` (0.4). False when the
/// needle is empty or longer than `hay`.
///
/// Windows are skipped when a lower bound already fails: the approximate-search distance of the
/// needle ending at the window's last character, and the multiset difference of equal-length
/// strings. The remaining windows get the exact distance.
pub fn window_within(hay: &[char], needle: &[char], t: f64, inclusive: bool) -> bool {
    let n = needle.len();
    if n == 0 || hay.len() < n {
        return false;
    }
    let ok = |d: usize| {
        let r = d as f64 / n as f64;
        if inclusive {
            r <= t
        } else {
            r < t
        }
    };
    let pat = Pattern::new(needle);
    let profile = pat.search_profile(hay);
    if !profile[n - 1..].iter().any(|d| ok(*d)) {
        return false;
    }
    // Id 0 stands for every char absent from the needle: it is skipped, as it never overlaps.
    let ids: Vec<u32> = hay.iter().map(|c| pat.id(*c)).collect();
    let mut want = vec![0i32; pat.symbols()];
    for id in pat.ids() {
        want[*id as usize] += 1;
    }
    let mut have = vec![0i32; want.len()];
    let mut overlap = 0usize;
    for id in &ids[..n] {
        if *id != 0 {
            let k = *id as usize;
            if have[k] < want[k] {
                overlap += 1;
            }
            have[k] += 1;
        }
    }
    for i in 0..=hay.len() - n {
        if i > 0 {
            let out = ids[i - 1];
            if out != 0 {
                let k = out as usize;
                have[k] -= 1;
                if have[k] < want[k] {
                    overlap -= 1;
                }
            }
            let inc = ids[i + n - 1];
            if inc != 0 {
                let k = inc as usize;
                if have[k] < want[k] {
                    overlap += 1;
                }
                have[k] += 1;
            }
        }
        if ok(profile[i + n - 1]) && ok(n - overlap) && ok(pat.distance(&hay[i..i + n])) {
            return true;
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(s: &str) -> Vec<char> {
        s.chars().collect()
    }

    /// Reference: the minimum over fixed windows with the plain dynamic program.
    fn window_min(hay: &[char], needle: &[char]) -> Option<f64> {
        if needle.is_empty() || hay.len() < needle.len() {
            return None;
        }
        (0..=hay.len() - needle.len())
            .map(|i| levenshtein(&hay[i..i + needle.len()], needle) as f64 / needle.len() as f64)
            .min_by(f64::total_cmp)
    }

    const WORDS: &[&str] = &[
        "",
        "a",
        "kitten",
        "sitting",
        "abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnopqrstuvwxyz0123456789xyz",
        "中文文本测试",
        "zyxwvutsrqponmlkjihgfedcba9876543210zyxwvutsrqponmlkjihgfedcba9876543210abc",
        "the quick brown fox jumps over the lazy dog while the cat sleeps in the warm afternoon sun",
    ];

    #[test]
    fn bit_parallel_matches_dp() {
        for a in WORDS {
            for b in WORDS {
                let (a, b) = (c(a), c(b));
                assert_eq!(Pattern::new(&a).distance(&b), levenshtein(&a, &b));
                assert_eq!(lev_chars(&a, &b), levenshtein(&a, &b));
            }
        }
    }

    #[test]
    fn search_profile_is_min_over_substrings() {
        let hay = c("xxkitxtenyy");
        let p = Pattern::new(&c("kitten"));
        let prof = p.search_profile(&hay);
        for (j, d) in prof.iter().enumerate() {
            let best = (0..=j + 1).map(|s| levenshtein(&hay[s..=j], &c("kitten"))).min().unwrap();
            assert_eq!(*d, best, "end {j}");
        }
    }

    #[test]
    fn window_test_agrees_with_exhaustive_minimum() {
        for hay in WORDS {
            for needle in WORDS {
                let (h, n) = (c(hay), c(needle));
                for t in [0.0, 0.25, 0.4, 0.6, 0.7] {
                    let want_incl = window_min(&h, &n).is_some_and(|m| m <= t);
                    let want_strict = window_min(&h, &n).is_some_and(|m| m < t);
                    assert_eq!(window_within(&h, &n, t, true), want_incl, "{hay:?} {needle:?} {t}");
                    assert_eq!(
                        window_within(&h, &n, t, false),
                        want_strict,
                        "{hay:?} {needle:?} {t}"
                    );
                }
            }
        }
    }

    #[test]
    fn window_threshold_inclusive_vs_strict() {
        // Best window "abcxy" vs "abcde": 2/5 = 0.4.
        let hay = c("zzabcxyzz");
        assert!(window_within(&hay, &c("abcde"), 0.4, true));
        assert!(!window_within(&hay, &c("abcde"), 0.4, false));
        assert!(window_within(&hay, &c("abcde"), 0.41, false));
        assert!(!window_within(&c("ab"), &c("abc"), 0.9, true));
    }

    #[test]
    fn levenshtein_on_lists() {
        assert_eq!(levenshtein(&[1.0, 2.0, 3.0], &[1.0, 3.0]), 1);
        assert_eq!(levenshtein::<u8>(&[], &[1, 2]), 2);
    }
}
