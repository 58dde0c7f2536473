//! The banded mode of the Levenshtein core: one pass over the text that finds the distance if
//! it is at most `k`, computing only the blocks of each column that an alignment of cost
//! `<= k` may cross (the band of edlib).
//!
//! Why the band is exact: every cell on a path of cost `<= k` satisfies
//! `D(i, j) + |(m - i) - (n - j)| <= k`, so only blocks holding such cells are computed, with
//! the cut-off cells given values never below the true ones. A result `<= k` is then exact and
//! a larger one only an upper bound, which [`Peq::banded`] uses to set the next band's width.
//! When the band is wide, two text columns are stepped together block by block, so that the
//! CPU overlaps their carry chains.

use super::{block_step, Peq};

/// What one pass found.
pub(super) enum Pass {
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
pub(super) fn pass(peq: &Peq, text: &[u32], k: usize) -> Pass {
    let nb = peq.blocks;
    let mut band = Band::new(peq.len(), text.len(), nb, k as isize);
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
