//! Edit distances used by the matcher and the metrics: python-`Levenshtein.distance` semantics
//! (unit costs, code points), computed with the bit-parallel algorithm of Myers (1999) in the
//! block form of Hyyrö (2003), plus the fixed-window substring test behind the reference's
//! `sub_pred_fuzzy_matching` / `sub_gt_fuzzy_matching` (`utils/match_quick.py`).
//!
//! All results equal the textbook dynamic program (checked by the tests); only speed differs.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// A multiplicative hasher for `char` keys (SipHash dominated the profile).
#[derive(Default)]
struct CharHasher(u64);

impl Hasher for CharHasher {
    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.0 = (self.0.rotate_left(5) ^ u64::from(*b)).wrapping_mul(0x517c_c1b7_2722_0a95);
        }
    }
    fn write_u32(&mut self, i: u32) {
        self.0 = u64::from(i).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    }
    fn finish(&self) -> u64 {
        self.0
    }
}

type CharMap<V> = HashMap<char, V, BuildHasherDefault<CharHasher>>;

/// Dense ids for the distinct characters of a pattern.
struct Alphabet {
    ascii: [u32; 128],
    other: CharMap<u32>,
    len: u32,
}

const ABSENT: u32 = u32::MAX;

impl Alphabet {
    fn new(p: &[char]) -> Self {
        let mut a = Alphabet { ascii: [ABSENT; 128], other: CharMap::default(), len: 0 };
        for c in p {
            if a.id(*c) == ABSENT {
                let id = a.len;
                a.len += 1;
                if c.is_ascii() {
                    a.ascii[*c as usize] = id;
                } else {
                    a.other.insert(*c, id);
                }
            }
        }
        a
    }

    #[inline]
    fn id(&self, c: char) -> u32 {
        if c.is_ascii() {
            self.ascii[c as usize]
        } else {
            self.other.get(&c).copied().unwrap_or(ABSENT)
        }
    }
}

/// A pattern prepared for bit-parallel Levenshtein: `O(n · ⌈m/64⌉)` per comparison.
pub struct Pattern {
    m: usize,
    blocks: usize,
    alphabet: Alphabet,
    /// `peq[id * blocks + b]`: bit i set where pattern[64·b + i] has that id.
    peq: Vec<u64>,
}

impl Pattern {
    /// Prepares `p` (the vertical side of the dynamic program).
    pub fn new(p: &[char]) -> Self {
        let blocks = p.len().div_ceil(64).max(1);
        let alphabet = Alphabet::new(p);
        let mut peq = vec![0u64; alphabet.len as usize * blocks];
        for (i, c) in p.iter().enumerate() {
            let id = alphabet.id(*c) as usize;
            peq[id * blocks + i / 64] |= 1u64 << (i % 64);
        }
        Pattern { m: p.len(), blocks, alphabet, peq }
    }

    /// Levenshtein distance between the pattern and `text`.
    pub fn distance(&self, text: &[char]) -> usize {
        self.run(text, true, |_, _| ())
    }

    /// For every prefix end `j` of `text`, the smallest distance between the pattern and any
    /// substring of `text` ending at `j` (approximate search; a lower bound of any window).
    fn search_profile(&self, text: &[char]) -> Vec<usize> {
        let mut out = Vec::with_capacity(text.len());
        self.run(text, false, |_, s| out.push(s));
        out
    }

    fn run(&self, text: &[char], global: bool, mut each: impl FnMut(usize, usize)) -> usize {
        if self.m == 0 {
            return if global { text.len() } else { 0 };
        }
        let high_last = 1u64 << ((self.m - 1) % 64);
        let mut score = self.m;
        if self.blocks == 1 {
            let (mut pv, mut mv) = (!0u64, 0u64);
            for (j, c) in text.iter().enumerate() {
                let id = self.alphabet.id(*c);
                let eq = if id == ABSENT { 0 } else { self.peq[id as usize] };
                let xv = eq | mv;
                let xh = ((eq & pv).wrapping_add(pv) ^ pv) | eq;
                let mut ph = mv | !(xh | pv);
                let mut mh = pv & xh;
                if ph & high_last != 0 {
                    score += 1;
                } else if mh & high_last != 0 {
                    score -= 1;
                }
                ph <<= 1;
                mh <<= 1;
                if global {
                    ph |= 1;
                }
                pv = mh | !(xv | ph);
                mv = ph & xv;
                each(j, score);
            }
            return score;
        }
        let mut pv = vec![!0u64; self.blocks];
        let mut mv = vec![0u64; self.blocks];
        let last = self.blocks - 1;
        for (j, c) in text.iter().enumerate() {
            let id = self.alphabet.id(*c);
            let mut hin: i32 = if global { 1 } else { 0 };
            for b in 0..self.blocks {
                let high = if b == last { high_last } else { 1u64 << 63 };
                let mut eq = if id == ABSENT { 0 } else { self.peq[id as usize * self.blocks + b] };
                let (p, m) = (pv[b], mv[b]);
                let xv = eq | m;
                if hin < 0 {
                    eq |= 1;
                }
                let xh = ((eq & p).wrapping_add(p) ^ p) | eq;
                let mut ph = m | !(xh | p);
                let mut mh = p & xh;
                let hout = if ph & high != 0 {
                    1
                } else if mh & high != 0 {
                    -1
                } else {
                    0
                };
                ph <<= 1;
                mh <<= 1;
                if hin < 0 {
                    mh |= 1;
                } else if hin > 0 {
                    ph |= 1;
                }
                pv[b] = mh | !(xv | ph);
                mv[b] = ph & xv;
                hin = hout;
            }
            score = (score as i64 + i64::from(hin)) as usize;
            each(j, score);
        }
        score
    }
}

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
    let ids: Vec<u32> = hay.iter().map(|c| pat.alphabet.id(*c)).collect();
    let mut want = vec![0i32; pat.alphabet.len as usize];
    for c in needle {
        want[pat.alphabet.id(*c) as usize] += 1;
    }
    let mut have = vec![0i32; want.len()];
    let mut overlap = 0usize;
    for id in &ids[..n] {
        if *id != ABSENT {
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
            if out != ABSENT {
                let k = out as usize;
                have[k] -= 1;
                if have[k] < want[k] {
                    overlap -= 1;
                }
            }
            let inc = ids[i + n - 1];
            if inc != ABSENT {
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
