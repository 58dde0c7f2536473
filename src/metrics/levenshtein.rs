//! Levenshtein distance with the bit-parallel algorithm of Myers (1999) in Hyyrö's block form
//! (2003), restricted to an Ukkonen band whose width doubles until it holds the answer (the
//! scheme edlib uses).
//!
//! Cost: at most about `d * n / 32` 64-bit block steps for two strings of length about `n` at
//! distance `d` (usually far fewer: blocks that cannot lie on a path of cost `<= k` are pruned
//! column by column, as edlib does), plus the common prefix and suffix, which are stripped
//! first. Two 70,000-char texts that differ by a few percent take milliseconds; two unrelated
//! ones approach the full `n * m / 64`.
//!
//! Why the band is exact: every cell on a path of cost `<= k` satisfies
//! `D(i, j) + |(m - i) - (n - j)| <= k`, so only blocks holding such cells are computed (see
//! `banded`), with the cut-off cells given values never below the true ones. A result `<= k`
//! is then exact and a larger one only an upper bound, which sets the next band's width.
//! When the band is wide, two text columns are stepped together block by block, so that the
//! CPU overlaps their carry chains.

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

/// Returns both sequences without their common prefix and suffix, which never change an edit
/// distance.
pub(crate) fn trim_common<'a, T: PartialEq>(a: &'a [T], b: &'a [T]) -> (&'a [T], &'a [T]) {
    let pre = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    let (a, b) = (&a[pre..], &b[pre..]);
    let suf = a.iter().rev().zip(b.iter().rev()).take_while(|(x, y)| x == y).count();
    (&a[..a.len() - suf], &b[..b.len() - suf])
}

/// Returns the Levenshtein distance between two char slices.
pub fn levenshtein_chars(a: &[char], b: &[char]) -> usize {
    let (a, b) = trim_common(a, b);
    // The shorter string is the pattern (fewer blocks per column).
    let (p, t) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    if p.is_empty() {
        return t.len();
    }
    let peq = Peq::new(p);
    let text: Vec<u32> = t.iter().map(|c| peq.id(*c)).collect();
    // The distance is at least the length difference and at most the longer length.
    let mut k = (t.len() - p.len()).max(64).min(t.len());
    loop {
        match banded(&peq, p.len(), &text, k) {
            Pass::Exact(d) => return d,
            // A pass at `k >= t.len()` always succeeds; the guard only keeps the loop finite.
            _ if k >= t.len() => unreachable!("a full-width pass holds the answer"),
            // An upper bound: a pass at that width is certain to hold the answer.
            Pass::Above(u) if u <= 2 * k => k = u.min(t.len()),
            _ => k = (2 * k).min(t.len()),
        }
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

/// One 64-row block step (Hyyrö). `hp`/`hm` (0 or 1) say whether the horizontal delta entering
/// at the block's top is +1 or -1. Returns the new vertical deltas (Pv, Mv) and the horizontal
/// deltas (Ph, Mh) of every row, before the shift, whose bit 63 leaves the block's bottom.
#[inline(always)]
fn block_step(pv: u64, mv: u64, eq: u64, hp: u64, hm: u64) -> (u64, u64, u64, u64) {
    let xv = eq | mv;
    let eq = eq | hm;
    let xh = ((eq & pv).wrapping_add(pv) ^ pv) | eq;
    let ph = mv | !(xh | pv);
    let mh = pv & xh;
    let phs = (ph << 1) | hp;
    let mhs = (mh << 1) | hm;
    (mhs | !(xv | phs), phs & xv, ph, mh)
}

enum Pass {
    /// The distance, known to be at most `k`.
    Exact(usize),
    /// The distance exceeds `k` and is at most this.
    Above(usize),
    /// The distance exceeds `k`.
    Unknown,
}

/// One pass that finds the distance if it is at most `k`.
///
/// Only blocks that may hold a cell of an alignment of cost `<= k` are computed (the band of
/// edlib): a cell `(i, j)` on such a path has `D(i, j) + |(m - i) - (n - j)| <= k`, since the
/// rest of the path costs at least the remaining length difference. Blocks whose cells all fail
/// that test are dropped from the top and bottom of the band; a block is added below the band
/// when the bottom cell of the band, in this column or the previous one, passes it. Cells never
/// computed are treated as the +1 steps next to the band, which never undercuts the true
/// values, so every cell of a path of cost `<= k` comes out exact and the rest no lower than
/// the truth.
fn banded(peq: &Peq, m: usize, text: &[u32], k: usize) -> Pass {
    let nb = peq.blocks;
    let mut band = Band::new(m, text.len(), nb, k as isize);
    let mut cols = text.iter().enumerate();
    while let Some((j0, &sym)) = cols.next() {
        let j = j0 as isize + 1;
        let ma = &peq.masks[sym as usize * nb..][..nb];
        // Two columns at once when the band is wide: their block chains are independent
        // enough for the CPU to overlap them.
        let alive = if band.last > band.first + 1 && j0 + 1 < text.len() {
            let (_, &sym_b) = cols.next().unwrap_or((0, &0));
            band.pair(j, ma, &peq.masks[sym_b as usize * nb..][..nb])
        } else {
            band.single(j, ma)
        };
        if !alive {
            return Pass::Unknown;
        }
    }
    if band.last + 1 < nb {
        return Pass::Unknown;
    }
    let d = band.score_last as usize;
    if d <= k {
        Pass::Exact(d)
    } else {
        Pass::Above(d)
    }
}

/// The computed blocks `first..=last` of the current column, with the values at the bottom
/// rows of the first and last block.
struct Band {
    /// (Pv, Mv) per block; meaningful for `first..=last` only.
    state: Vec<(u64, u64)>,
    first: usize,
    last: usize,
    score_first: isize,
    score_last: isize,
    m: isize,
    nb: usize,
    delta: isize,
    k: isize,
    valid_last: u64,
    bit_last: u32,
}

impl Band {
    fn new(m: usize, n: usize, nb: usize, k: isize) -> Band {
        let mut band = Band {
            state: vec![(!0u64, 0u64); nb],
            first: 0,
            last: 0,
            score_first: 0,
            score_last: 0,
            m: m as isize,
            nb,
            delta: m as isize - n as isize,
            k,
            valid_last: if m % 64 == 0 { !0u64 } else { (1u64 << (m % 64)) - 1 },
            bit_last: ((m - 1) % 64) as u32,
        };
        band.score_first = band.bottom(0);
        band.score_last = band.bottom(0);
        // Column 0 is exact (D(i, 0) = i): take every block up to the last passing cell.
        while band.last + 1 < nb && band.passes(0, band.bottom(band.last), band.score_last) {
            band.last += 1;
            band.score_last = band.bottom(band.last);
        }
        band
    }

    /// Rows of block b: `top(b) ..= bottom(b)`; the last block's padding rows are ignored.
    fn bottom(&self, b: usize) -> isize {
        ((b as isize + 1) * 64).min(self.m)
    }

    fn top(b: usize) -> isize {
        b as isize * 64 + 1
    }

    /// The bit of block b that holds its bottom row.
    fn bot_bit(&self, b: usize) -> u32 {
        if b + 1 == self.nb {
            self.bit_last
        } else {
            63
        }
    }

    /// Whether cell (row, j) of value `score` may lie on a path of cost `<= k`.
    fn passes(&self, j: isize, row: isize, score: isize) -> bool {
        score + (self.delta + j - row).abs() <= self.k
    }

    /// Sum of the vertical deltas of block b: D(bottom(b)) - D(top(b) - 1).
    fn sum(&self, b: usize) -> isize {
        let v = if b + 1 == self.nb { self.valid_last } else { !0u64 };
        let st = self.state[b];
        (st.0 & v).count_ones() as isize - (st.1 & v).count_ones() as isize
    }

    /// Lower bound of D(i, j) + |(m - i) - (n - j)| over block b at column j, given the value
    /// `score` at the block's bottom row.
    fn lower(&self, b: usize, j: isize, score: isize) -> isize {
        let (r0, r1) = (Band::top(b), self.bottom(b));
        let c = self.delta + j;
        let min_off = if c < r0 {
            r0 - c
        } else if c > r1 {
            c - r1
        } else {
            0
        };
        let ukk = |i: isize| (i - j).abs() + (c - i).abs();
        let band = ukk(r0).min(ukk(r1)).min(ukk(j.clamp(r0, r1))).min(ukk(c.clamp(r0, r1)));
        (score - (r1 - r0) + min_off).max(band)
    }

    /// Steps blocks `lo..hi` of one column; returns the carry out of the bottom.
    #[inline(always)]
    fn run(&mut self, lo: usize, hi: usize, masks: &[u64], mut hp: u64, mut hm: u64) -> (u64, u64) {
        for (st, &eq) in self.state[lo..hi].iter_mut().zip(&masks[lo..hi]) {
            let (p, q, ph, mh) = block_step(st.0, st.1, eq, hp, hm);
            *st = (p, q);
            hp = ph >> 63;
            hm = mh >> 63;
        }
        (hp, hm)
    }

    /// Steps block b of a column and returns (carry out, change of the bottom row's value).
    #[inline(always)]
    fn step_one(&mut self, b: usize, eq: u64, hp: u64, hm: u64) -> (u64, u64, isize) {
        let st = self.state[b];
        let (p, q, ph, mh) = block_step(st.0, st.1, eq, hp, hm);
        self.state[b] = (p, q);
        let s = self.bot_bit(b);
        (ph >> 63, mh >> 63, ((ph >> s) & 1) as isize - ((mh >> s) & 1) as isize)
    }

    /// Column j over `first..=last`, then the band update. Returns false once the band is empty.
    fn single(&mut self, j: isize, masks: &[u64]) -> bool {
        let prev_last = self.score_last;
        let (f, l) = (self.first, self.last);
        let (mut hp, mut hm) = (1u64, 0u64);
        if f < l {
            let (p, q, dh) = self.step_one(f, masks[f], hp, hm);
            self.score_first += dh;
            (hp, hm) = self.run(f + 1, l, masks, p, q);
        }
        let (p, q, dh) = self.step_one(l, masks[l], hp, hm);
        self.score_last += dh;
        self.extend(j, masks, p, q, prev_last);
        self.prune(j)
    }

    /// Columns j and j + 1 over `first..=last` (with `first + 1 < last`), interleaved block by
    /// block, then column j's growth, column j + 1's remaining blocks and the band update.
    /// Column j is not pruned, which only leaves the band wider than needed.
    fn pair(&mut self, j: isize, ma: &[u64], mb: &[u64]) -> bool {
        let prev_last = self.score_last;
        let (f, l) = (self.first, self.last);
        let (hpa, hma, da) = self.step_one(f, ma[f], 1, 0);
        let (hpb, hmb, db) = self.step_one(f, mb[f], 1, 0);
        self.score_first += da + db;
        let (mut hpa, mut hma, mut hpb, mut hmb) = (hpa, hma, hpb, hmb);
        for ((st, &ea), &eb) in
            self.state[f + 1..l].iter_mut().zip(&ma[f + 1..l]).zip(&mb[f + 1..l])
        {
            let (p, q, ph, mh) = block_step(st.0, st.1, ea, hpa, hma);
            hpa = ph >> 63;
            hma = mh >> 63;
            let (p, q, ph, mh) = block_step(p, q, eb, hpb, hmb);
            hpb = ph >> 63;
            hmb = mh >> 63;
            *st = (p, q);
        }
        // Column j's last block and growth; the states of blocks l.. then hold column j.
        let (p, q, dh) = self.step_one(l, ma[l], hpa, hma);
        self.score_last += dh;
        self.extend(j, ma, p, q, prev_last);
        // Column j + 1 over l..=last.
        let mid = self.score_last;
        let last = self.last;
        let (hp, hm) = self.run(l, last, mb, hpb, hmb);
        let (p, q, dh) = self.step_one(last, mb[last], hp, hm);
        self.score_last += dh;
        self.extend(j + 1, mb, p, q, mid);
        self.prune(j + 1)
    }

    /// Grows the band downwards while its bottom cell may lie on a cheap path: in this column
    /// (a vertical run) or the previous one, where it had value `prev_last` (a diagonal step
    /// into the next block). `hp`/`hm` is the carry out of the last block.
    fn extend(&mut self, j: isize, masks: &[u64], mut hp: u64, mut hm: u64, prev_last: isize) {
        let mut prev_ok = self.passes(j - 1, self.bottom(self.last), prev_last);
        let mut prev_score = prev_last;
        while self.last + 1 < self.nb
            && (prev_ok || self.passes(j, self.bottom(self.last), self.score_last))
        {
            self.last += 1;
            let b = self.last;
            // The block enters with +1 steps under the one above, in the previous column.
            prev_score += self.bottom(b) - Band::top(b) + 1;
            self.state[b] = (!0, 0);
            let (p, q, dh) = self.step_one(b, masks[b], hp, hm);
            self.score_last = prev_score + dh;
            (hp, hm) = (p, q);
            prev_ok = false;
        }
    }

    /// Drops blocks that no cheap path crosses; returns false if none is left.
    fn prune(&mut self, j: isize) -> bool {
        while self.last > self.first && self.lower(self.last, j, self.score_last) > self.k {
            self.score_last -= self.sum(self.last);
            self.last -= 1;
        }
        if self.first == self.last {
            self.score_first = self.score_last;
        }
        while self.first < self.last && self.lower(self.first, j, self.score_first) > self.k {
            self.first += 1;
            self.score_first += self.sum(self.first);
        }
        self.first < self.last || self.lower(self.last, j, self.score_last) <= self.k
    }
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

    fn random(rng: &mut Rng, alpha: &[char], len: usize) -> Vec<char> {
        (0..len).map(|_| alpha[rng.below(alpha.len())]).collect()
    }

    fn check(a: &[char], b: &[char], what: &str) {
        let want = dp(a, b);
        assert_eq!(levenshtein_chars(a, b), want, "{what}: {} vs {} chars", a.len(), b.len());
        assert_eq!(levenshtein_chars(b, a), want, "{what} (swapped)");
    }

    #[test]
    fn empty_and_equal() {
        let e: Vec<char> = Vec::new();
        check(&e, &e, "both empty");
        let mut rng = Rng(7);
        for len in [1, 5, 63, 64, 65, 200] {
            let a = random(&mut rng, &['a', 'b', 'é'], len);
            check(&a, &e, "one empty");
            check(&a, &a, "equal");
        }
        assert_eq!(levenshtein("", ""), 0);
        assert_eq!(levenshtein("σσσ", "σσσ"), 0);
    }

    #[test]
    fn block_boundary_lengths() {
        let mut rng = Rng(0xB10C);
        let lens = [1, 2, 63, 64, 65, 127, 128, 129, 191, 192, 193, 255, 256, 257, 320];
        let alphas: [&[char]; 3] = [&['a', 'b'], &['a', 'b', 'c', 'd', 'σ', 'é', '中'], &['x']];
        for &la in &lens {
            for &lb in &lens {
                for alpha in alphas {
                    let a = random(&mut rng, alpha, la);
                    let b = random(&mut rng, alpha, lb);
                    check(&a, &b, "independent");
                    // A mutation of a, so the distance is small.
                    let mut c = a.clone();
                    for _ in 0..rng.below(6) {
                        let pos = rng.below(c.len());
                        c[pos] = alpha[rng.below(alpha.len())];
                    }
                    c.truncate(lb.min(c.len()));
                    check(&a, &c, "mutated");
                }
            }
        }
    }

    #[test]
    fn band_edges() {
        // `x` substitutions by a char absent from `a` cost exactly `x`; `extra` appended such
        // chars add exactly `extra`. The first band is max(length difference, 64) wide, so this
        // walks the distance across k, k + 1 and the later, doubled widths.
        let mut rng = Rng(0xED6E);
        let alpha = ['a', 'b', 'c', 'd'];
        for len in [64, 65, 128, 129, 300, 700] {
            for extra in [0, 1, 63, 64, 65, 70] {
                for x in [0, 1, 2, 63, 64, 65, 66, 127, 128, 129, 130, 200, 257] {
                    if x > len {
                        continue;
                    }
                    let a = random(&mut rng, &alpha, len);
                    let mut b = a.clone();
                    let mut pos: Vec<usize> = (0..len).collect();
                    for i in 0..x {
                        let r = i + rng.below(len - i);
                        pos.swap(i, r);
                        b[pos[i]] = 'Z';
                    }
                    b.extend(std::iter::repeat_n('Y', extra));
                    assert_eq!(levenshtein_chars(&a, &b), x + extra, "len {len} x {x} +{extra}");
                    assert_eq!(levenshtein_chars(&b, &a), x + extra);
                    if len <= 300 {
                        check(&a, &b, "band edge");
                    }
                }
            }
        }
    }

    #[test]
    fn big_distances_and_long_gaps() {
        let mut rng = Rng(0xD15);
        let abc = ['a', 'b', 'c'];
        let xyz = ['x', 'y', 'ζ'];
        for (la, lb) in [(100, 100), (64, 640), (500, 130), (1000, 1000)] {
            // Disjoint alphabets: the distance is the longer length.
            let a = random(&mut rng, &abc, la);
            let b = random(&mut rng, &xyz, lb);
            assert_eq!(levenshtein_chars(&a, &b), la.max(lb));
            check(&a, &random(&mut rng, &abc, lb), "unrelated");
        }
        // Long deletions, insertions and moved chunks (vertical and horizontal runs spanning
        // several blocks in one column or row).
        for round in 0..40 {
            let len = 200 + rng.below(900);
            let a = random(&mut rng, &['a', 'b', 'c', 'd', 'e', 'f', 'σ'], len);
            let mut b = a.clone();
            for _ in 0..1 + round % 3 {
                let s = rng.below(b.len());
                let l = (1 + rng.below(300)).min(b.len() - s);
                let chunk: Vec<char> = b.drain(s..s + l).collect();
                match rng.below(3) {
                    0 => {}
                    1 => {
                        let at = rng.below(b.len() + 1);
                        b.splice(at..at, chunk);
                    }
                    _ => {
                        let at = rng.below(b.len() + 1);
                        let n = rng.below(250);
                        let ins = random(&mut rng, &['a', 'b', 'q'], n);
                        b.splice(at..at, ins);
                    }
                }
            }
            for _ in 0..rng.below(30) {
                let pos = rng.below(b.len().max(1));
                if pos < b.len() {
                    b[pos] = 'z';
                }
            }
            check(&a, &b, "gaps");
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
