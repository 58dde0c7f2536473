//! Levenshtein distance with the bit-parallel algorithm of Myers (1999) in Hyyrö's block form
//! (2003), restricted to an Ukkonen band whose width doubles until it holds the answer (the
//! scheme edlib uses).
//!
//! Cost: about `d * n / 32` 64-bit block steps for two strings of length about `n` at distance
//! `d`, plus the common prefix and suffix, which are stripped first. Two 70,000-char texts that
//! differ by a few percent take milliseconds; two unrelated ones take a full `n * m / 64`.
//!
//! Why the band is exact: every cell on an optimal path to a cell of value `v` has value at most
//! `v` and so lies within `|i - j| <= v` of the diagonal. Cells outside the computed blocks are
//! given values that are never below the true ones (vertical steps of +1 below the band,
//! horizontal steps of +1 above it), so a result `<= k` is exact and a larger one is only an
//! upper bound, which triggers a wider band.

use std::collections::HashMap;

/// Returns the Levenshtein distance between two strings, counted in chars.
pub fn levenshtein(a: &str, b: &str) -> usize {
    if a == b {
        return 0;
    }
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    levenshtein_chars(&a, &b)
}

/// Returns `1 - levenshtein(a, b) / max(len)`, or 1.0 when both are empty.
pub fn similarity(a: &str, b: &str) -> f64 {
    let la = a.chars().count();
    let lb = b.chars().count();
    let m = la.max(lb);
    if m == 0 {
        return 1.0;
    }
    1.0 - levenshtein(a, b) as f64 / m as f64
}

/// Returns the Levenshtein distance between two char slices.
pub fn levenshtein_chars(a: &[char], b: &[char]) -> usize {
    let pre = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    let (a, b) = (&a[pre..], &b[pre..]);
    let suf = a.iter().rev().zip(b.iter().rev()).take_while(|(x, y)| x == y).count();
    let (a, b) = (&a[..a.len() - suf], &b[..b.len() - suf]);
    // The shorter string is the pattern (fewer blocks per column).
    let (p, t) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    if p.is_empty() {
        return t.len();
    }
    let peq = Peq::new(p);
    let text: Vec<u32> = t.iter().map(|c| peq.id(*c)).collect();
    let mut k = (t.len() - p.len()).max(64);
    loop {
        let d = banded(&peq, p.len(), &text, k);
        if d <= k || k >= t.len() {
            return d;
        }
        k = k.saturating_mul(2);
    }
}

/// Per-symbol match masks of the pattern, block by block.
struct Peq {
    /// `masks[sym * blocks + b]`: bit `r` set where pattern row `64 b + r` is `sym`. Symbol 0
    /// stands for every char absent from the pattern (no bits set).
    masks: Vec<u64>,
    blocks: usize,
    ascii: [u32; 128],
    other: HashMap<char, u32>,
}

impl Peq {
    fn new(p: &[char]) -> Peq {
        let mut ascii = [0u32; 128];
        let mut other = HashMap::new();
        let mut next = 1u32;
        for &c in p {
            let slot =
                if (c as u32) < 128 { &mut ascii[c as usize] } else { other.entry(c).or_insert(0) };
            if *slot == 0 {
                *slot = next;
                next += 1;
            }
        }
        let blocks = p.len().div_ceil(64);
        let mut peq = Peq { masks: vec![0; next as usize * blocks], blocks, ascii, other };
        for (i, &c) in p.iter().enumerate() {
            let s = peq.id(c) as usize;
            peq.masks[s * blocks + i / 64] |= 1u64 << (i % 64);
        }
        peq
    }

    fn id(&self, c: char) -> u32 {
        if (c as u32) < 128 {
            self.ascii[c as usize]
        } else {
            self.other.get(&c).copied().unwrap_or(0)
        }
    }
}

/// One 64-row block step (Hyyrö). `hin` is the horizontal delta entering at the block's top
/// (-1, 0 or +1); returns the new vertical deltas and the horizontal delta leaving its bottom.
#[inline(always)]
fn block_step(pv: u64, mv: u64, eq: u64, hin: i32) -> (u64, u64, i32) {
    let hin_neg = (hin < 0) as u64;
    let hin_pos = (hin > 0) as u64;
    let xv = eq | mv;
    let eq = eq | hin_neg;
    let xh = ((eq & pv).wrapping_add(pv) ^ pv) | eq;
    let mut ph = mv | !(xh | pv);
    let mut mh = pv & xh;
    let hout = (ph >> 63) as i32 - (mh >> 63) as i32;
    ph = (ph << 1) | hin_pos;
    mh = (mh << 1) | hin_neg;
    (mh | !(xv | ph), ph & xv, hout)
}

/// Returns the distance if it is at most `k`, else some value above `k` (an upper bound).
fn banded(peq: &Peq, m: usize, text: &[u32], k: usize) -> usize {
    let n = text.len();
    let nb = peq.blocks;
    // Vertical deltas (Pv, Mv) per block; only the last block's bottom value is tracked, which
    // is all that initialising a block entering the band, and the answer, need.
    let mut state = vec![(!0u64, 0u64); nb];
    let mut last = 0usize;
    let mut last_score = 64isize; // the value at row 64 (last + 1) in column 0
                                  // Rows i (1-based) are needed at column j while i - j lies in [lo, hi].
    let delta = m as isize - n as isize;
    let k = k as isize;
    let lo = (-k).max(delta - k);
    let hi = k.min(delta + k);
    for (j0, &sym) in text.iter().enumerate() {
        let j = j0 as isize + 1;
        let top_row = (j + lo).max(1);
        let bot_row = (j + hi).min(m as isize);
        if bot_row < 1 || top_row > m as isize {
            // The band has left the pattern: the distance exceeds k.
            return k as usize + 1;
        }
        let first = ((top_row - 1) / 64) as usize;
        let lastb = ((bot_row - 1) / 64) as usize;
        while last < lastb {
            // A block entering the band from below: +1 steps under the block above.
            last += 1;
            state[last] = (!0, 0);
            last_score += 64;
        }
        let masks = &peq.masks[sym as usize * nb..sym as usize * nb + nb];
        let mut hin = 1i32;
        for (st, &eq) in state[first..=lastb].iter_mut().zip(&masks[first..=lastb]) {
            let (p, q, h) = block_step(st.0, st.1, eq, hin);
            *st = (p, q);
            hin = h;
        }
        last_score += hin as isize;
    }
    if last < nb - 1 {
        return k as usize + 1;
    }
    // Row m sits in the last block; undo the padded rows below it.
    let pad = nb * 64 - m;
    let mut s = last_score;
    if pad > 0 {
        let mask = !0u64 << (64 - pad);
        s -= (state[nb - 1].0 & mask).count_ones() as isize;
        s += (state[nb - 1].1 & mask).count_ones() as isize;
    }
    s as usize
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dp(a: &[char], b: &[char]) -> usize {
        let mut prev: Vec<usize> = (0..=b.len()).collect();
        for (i, ca) in a.iter().enumerate() {
            let mut cur = vec![i + 1; b.len() + 1];
            for (j, cb) in b.iter().enumerate() {
                let sub = prev[j] + usize::from(ca != cb);
                cur[j + 1] = sub.min(prev[j + 1] + 1).min(cur[j] + 1);
            }
            prev = cur;
        }
        prev[b.len()]
    }

    /// A small deterministic xorshift generator, so the test needs no crate.
    struct Rng(u64);
    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }
        fn below(&mut self, n: usize) -> usize {
            (self.next() % n as u64) as usize
        }
    }

    #[test]
    fn known_values() {
        assert_eq!(levenshtein("kitten", "sitting"), 3);
        assert_eq!(levenshtein("", "abc"), 3);
        assert_eq!(levenshtein("abc", ""), 3);
        assert_eq!(levenshtein("σ", "Ï"), 1);
        assert_eq!(similarity("", ""), 1.0);
        assert!((similarity("abcd", "abce") - 0.75).abs() < 1e-12);
    }

    #[test]
    fn matches_plain_dp_on_random_strings() {
        let mut rng = Rng(0x9E3779B97F4A7C15);
        let alpha: Vec<char> = "abcdσé ".chars().collect();
        for round in 0..400 {
            let la = rng.below(if round % 4 == 0 { 400 } else { 150 });
            let a: Vec<char> = (0..la).map(|_| alpha[rng.below(alpha.len())]).collect();
            // Half the time b is a mutation of a (small distance), else independent.
            let b: Vec<char> = if round % 2 == 0 {
                let mut b = a.clone();
                for _ in 0..rng.below(20) {
                    let op = rng.below(3);
                    let pos = if b.is_empty() { 0 } else { rng.below(b.len()) };
                    match op {
                        0 if !b.is_empty() => {
                            b.remove(pos);
                        }
                        1 => b.insert(pos, alpha[rng.below(alpha.len())]),
                        _ if !b.is_empty() => b[pos] = alpha[rng.below(alpha.len())],
                        _ => {}
                    }
                }
                b
            } else {
                let lb = rng.below(300);
                (0..lb).map(|_| alpha[rng.below(alpha.len())]).collect()
            };
            assert_eq!(levenshtein_chars(&a, &b), dp(&a, &b), "round {round}");
        }
    }

    #[test]
    fn long_similar_texts_are_fast() {
        let mut rng = Rng(42);
        let a: Vec<char> = (0..70_000).map(|_| (b'a' + rng.below(26) as u8) as char).collect();
        let mut b = a.clone();
        for _ in 0..500 {
            let p = rng.below(b.len());
            b[p] = 'z';
        }
        let t = std::time::Instant::now();
        let d = levenshtein_chars(&a, &b);
        let el = t.elapsed();
        assert!(d <= 500);
        assert!(el.as_millis() < 2000, "took {el:?}");
    }
}
