//! The one Levenshtein core of corpus (unit costs): the bit-parallel algorithm of Myers (1999)
//! in Hyyrö's block form (2003), on token ids. Every edit distance between sequences runs
//! here — the paper suite's character distances, TEDS's cell-token distances and
//! OmniDocBench's matcher — so that there is one implementation to trust and to speed up.
//!
//! A pattern is prepared once as a [`Peq`]: per symbol of `0..symbols`, the bit mask of the
//! pattern positions holding it, 64 positions per block. It is then run against texts of ids
//! in one of three modes, which differ only in the first row of the dynamic program and in how
//! many blocks of each column are computed:
//!
//! * **global** ([`Peq::global`]): `D(0, j) = j`, every block of every column: the distance
//!   between the whole pattern and the whole text in `n · ⌈m/64⌉` block steps, with no set-up
//!   per text. For many comparisons of short sequences against one pattern: TEDS's cells, the
//!   matcher's cost matrices.
//! * **semi-global** (`Peq::semi_global`): `D(0, j) = 0`, so the value at column `j` is the
//!   smallest distance between the pattern and any substring of the text ending at `j`
//!   (approximate search). For the window test of OmniDocBench's matcher.
//! * **banded** ([`Peq::banded`]): global, exact, but only the blocks inside an Ukkonen band
//!   whose width doubles until it holds the answer (the scheme edlib uses); the submodule
//!   `banded` says why that is exact. For long, similar texts: paper-length character strings.
//!
//! Characters become ids through a [`Pattern`] (the pattern's distinct chars get 1, 2, … in
//! order of first appearance; every other char 0, whose mask is empty), or through
//! [`levenshtein_chars`], which also strips the common prefix and suffix and takes the shorter
//! side as the pattern before a banded run.
//!
//! Cost of the banded mode: at most about `d * n / 32` block steps for two strings of length
//! about `n` at distance `d` (usually far fewer: blocks that cannot lie on a path of cost
//! `<= k` are pruned column by column, as edlib does), plus the common prefix and suffix. Two
//! 70,000-char texts that differ by a few percent take milliseconds; two unrelated ones
//! approach the full `n * m / 64`.

mod banded;

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

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
fn trim_common<'a, T: PartialEq>(a: &'a [T], b: &'a [T]) -> (&'a [T], &'a [T]) {
    let pre = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    let (a, b) = (&a[pre..], &b[pre..]);
    let suf = a.iter().rev().zip(b.iter().rev()).take_while(|(x, y)| x == y).count();
    (&a[..a.len() - suf], &b[..b.len() - suf])
}

/// Returns the Levenshtein distance between two char slices (banded mode, after stripping the
/// common prefix and suffix; the shorter side is the pattern, which means fewer blocks per
/// column).
pub fn levenshtein_chars(a: &[char], b: &[char]) -> usize {
    let (a, b) = trim_common(a, b);
    let (p, t) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    if p.is_empty() {
        return t.len();
    }
    let pattern = Pattern::new(p);
    let text: Vec<u32> = t.iter().map(|c| pattern.id(*c)).collect();
    pattern.peq.banded(&text)
}

/// A pattern's match masks over the token ids `0..symbols` (Myers' `Peq`), and the pattern.
///
/// Bit `r` of `masks[s * blocks + b]` is set where pattern position `64 b + r` holds symbol
/// `s`. Ids in a pattern or a text must be below `symbols` (a larger one panics).
#[derive(Clone, Debug)]
pub struct Peq {
    masks: Vec<u64>,
    blocks: usize,
    symbols: usize,
    pattern: Vec<u32>,
}

impl Peq {
    /// Prepares `pattern` (the vertical side of the dynamic program) over ids `0..symbols`.
    pub fn new(pattern: Vec<u32>, symbols: usize) -> Peq {
        let blocks = pattern.len().div_ceil(64);
        let mut masks = vec![0u64; symbols * blocks];
        for (i, &s) in pattern.iter().enumerate() {
            masks[s as usize * blocks + i / 64] |= 1u64 << (i % 64);
        }
        Peq { masks, blocks, symbols, pattern }
    }

    /// Makes `pattern` the pattern, reusing the memory: only the words the previous pattern
    /// set are cleared, so re-targeting costs `O(m)`, not `O(symbols)`.
    pub fn set(&mut self, pattern: &[u32]) {
        for (i, &s) in self.pattern.iter().enumerate() {
            self.masks[s as usize * self.blocks + i / 64] = 0;
        }
        // Every mask is zero now, so a change of layout only needs the right length.
        self.blocks = pattern.len().div_ceil(64);
        self.masks.resize(self.symbols * self.blocks, 0);
        for (i, &s) in pattern.iter().enumerate() {
            self.masks[s as usize * self.blocks + i / 64] |= 1u64 << (i % 64);
        }
        self.pattern.clear();
        self.pattern.extend_from_slice(pattern);
    }

    /// The pattern's length in tokens.
    pub fn len(&self) -> usize {
        self.pattern.len()
    }

    /// Whether the pattern is empty.
    pub fn is_empty(&self) -> bool {
        self.pattern.is_empty()
    }

    /// The pattern, as ids.
    pub fn pattern(&self) -> &[u32] {
        &self.pattern
    }

    /// Global mode: the Levenshtein distance between the pattern and `text`, every block of
    /// every column.
    pub fn global(&self, text: impl IntoIterator<Item = u32>) -> usize {
        self.run(text, 1, |_| ())
    }

    /// Semi-global mode: calls `each` once per text position `j`, in order, with the smallest
    /// distance between the pattern and any substring of `text` ending at `j` (an empty
    /// pattern gives 0 everywhere).
    pub(crate) fn semi_global(&self, text: impl IntoIterator<Item = u32>, each: impl FnMut(usize)) {
        self.run(text, 0, each);
    }

    /// Banded mode: the Levenshtein distance between the pattern and `text`, computing only
    /// the blocks of an Ukkonen band whose width starts at `max(|m - n|, 64)` and doubles (or
    /// jumps to an upper bound found on the way) until it holds the answer.
    pub fn banded(&self, text: &[u32]) -> usize {
        let (m, n) = (self.len(), text.len());
        if m == 0 || n == 0 {
            return m.max(n);
        }
        // The distance is at least the length difference and at most the longer length.
        let longest = m.max(n);
        let mut k = m.abs_diff(n).max(64).min(longest);
        loop {
            match banded::pass(self, text, k) {
                banded::Pass::Exact(d) => return d,
                // A pass at `k >= longest` always succeeds; the guard only keeps the loop finite.
                _ if k >= longest => unreachable!("a full-width pass holds the answer"),
                // An upper bound: a pass at that width is certain to hold the answer.
                banded::Pass::Above(u) if u <= 2 * k => k = u.min(longest),
                _ => k = (2 * k).min(longest),
            }
        }
    }

    /// The unbanded recurrence over every column of `text`; `top` is the horizontal delta
    /// entering each column at row 0: 1 for global, 0 for semi-global. Calls `each` with the
    /// value at the last row of every column and returns the last one (`m` for an empty text).
    #[inline(always)]
    fn run(
        &self,
        text: impl IntoIterator<Item = u32>,
        top: u64,
        mut each: impl FnMut(usize),
    ) -> usize {
        let m = self.len();
        if m == 0 {
            let mut score = 0;
            for _ in text {
                score += top as usize;
                each(score);
            }
            return score;
        }
        let bit = ((m - 1) % 64) as u32;
        let mut score = m;
        if self.blocks == 1 {
            let (mut pv, mut mv) = (!0u64, 0u64);
            for s in text {
                let (p, q, ph, mh) = block_step(pv, mv, self.masks[s as usize], top, 0);
                (pv, mv) = (p, q);
                score = score + ((ph >> bit) & 1) as usize - ((mh >> bit) & 1) as usize;
                each(score);
            }
            return score;
        }
        let nb = self.blocks;
        let mut state = vec![(!0u64, 0u64); nb];
        let (head, tail) = state.split_at_mut(nb - 1);
        let last = &mut tail[0];
        for s in text {
            let masks = &self.masks[s as usize * nb..][..nb];
            let (mut hp, mut hm) = (top, 0u64);
            for (st, &eq) in head.iter_mut().zip(masks) {
                let (p, q, ph, mh) = block_step(st.0, st.1, eq, hp, hm);
                *st = (p, q);
                hp = ph >> 63;
                hm = mh >> 63;
            }
            let (p, q, ph, mh) = block_step(last.0, last.1, masks[nb - 1], hp, hm);
            *last = (p, q);
            score = score + ((ph >> bit) & 1) as usize - ((mh >> bit) & 1) as usize;
            each(score);
        }
        score
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

/// A multiplicative hasher for `char` keys (SipHash dominated the matcher's profile).
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

/// Dense ids for the distinct chars of a pattern: 1, 2, … in order of first appearance, and 0
/// for every char absent from it.
struct Alphabet {
    ascii: [u32; 128],
    other: HashMap<char, u32, BuildHasherDefault<CharHasher>>,
    /// The number of ids, 0 included.
    symbols: usize,
}

impl Alphabet {
    /// Returns the alphabet of `p` and `p` as ids.
    fn new(p: &[char]) -> (Alphabet, Vec<u32>) {
        let mut a = Alphabet { ascii: [0; 128], other: HashMap::default(), symbols: 1 };
        let mut ids = Vec::with_capacity(p.len());
        for &c in p {
            let slot =
                if c.is_ascii() { &mut a.ascii[c as usize] } else { a.other.entry(c).or_insert(0) };
            if *slot == 0 {
                *slot = a.symbols as u32;
                a.symbols += 1;
            }
            ids.push(*slot);
        }
        (a, ids)
    }

    #[inline]
    fn id(&self, c: char) -> u32 {
        if c.is_ascii() {
            self.ascii[c as usize]
        } else {
            self.other.get(&c).copied().unwrap_or(0)
        }
    }
}

/// A char pattern prepared for many comparisons: its chars as ids, and their [`Peq`].
pub struct Pattern {
    alphabet: Alphabet,
    peq: Peq,
}

impl Pattern {
    /// Prepares `p` (the vertical side of the dynamic program).
    pub fn new(p: &[char]) -> Pattern {
        let (alphabet, ids) = Alphabet::new(p);
        let peq = Peq::new(ids, alphabet.symbols);
        Pattern { alphabet, peq }
    }

    /// The id of `c`: 1.. for the pattern's chars, 0 for any other.
    #[inline]
    pub fn id(&self, c: char) -> u32 {
        self.alphabet.id(c)
    }

    /// The number of ids, 0 (absent chars) included.
    pub(crate) fn symbols(&self) -> usize {
        self.alphabet.symbols
    }

    /// The pattern, as ids.
    pub fn ids(&self) -> &[u32] {
        self.peq.pattern()
    }

    /// Global mode: the Levenshtein distance between the pattern and `text`.
    pub fn distance(&self, text: &[char]) -> usize {
        self.peq.global(text.iter().map(|c| self.alphabet.id(*c)))
    }

    /// Semi-global mode: for every end `j` of a prefix of `text`, the smallest distance between
    /// the pattern and any substring of `text` ending at `j` (approximate search; a lower bound
    /// for any window ending there).
    pub(crate) fn search_profile(&self, text: &[char]) -> Vec<usize> {
        let mut out = Vec::with_capacity(text.len());
        self.peq.semi_global(text.iter().map(|c| self.alphabet.id(*c)), |s| out.push(s));
        out
    }
}

#[cfg(test)]
mod tests;
