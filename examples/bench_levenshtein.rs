//! Times `levenshtein` on realistic text pairs, next to a copy of the previous implementation.
//!
//! Usage: `bench_levenshtein [REPS]` (default 15). The pairs are built deterministically: a
//! ~28,000-char whitespace-free pseudo-paper from a fixed word list, and a "parser output" of
//! it with paragraphs moved, ~5% words dropped and inserted, ~1% chars changed and some extra
//! text (running heads, captions) added; also a near-identical pair and an unrelated pair.

use std::time::Instant;

use corpus::metrics::levenshtein::levenshtein_chars;

const WORDS: &[&str] = &[
    "the",
    "of",
    "and",
    "to",
    "in",
    "a",
    "is",
    "that",
    "for",
    "we",
    "with",
    "as",
    "on",
    "by",
    "this",
    "are",
    "be",
    "model",
    "data",
    "results",
    "method",
    "which",
    "from",
    "our",
    "an",
    "learning",
    "network",
    "training",
    "each",
    "figure",
    "table",
    "set",
    "performance",
    "can",
    "using",
    "two",
    "based",
    "where",
    "these",
    "between",
    "approach",
    "proposed",
    "section",
    "algorithm",
    "function",
    "number",
    "time",
    "error",
    "loss",
    "layer",
    "input",
    "output",
    "feature",
    "features",
    "value",
    "values",
    "parameter",
    "parameters",
    "distribution",
    "probability",
    "estimate",
    "sample",
    "samples",
    "experiment",
    "experiments",
    "dataset",
    "baseline",
    "accuracy",
    "evaluation",
    "task",
    "tasks",
    "language",
    "word",
    "sentence",
    "representation",
    "semantic",
    "structure",
    "graph",
    "node",
    "edge",
    "matrix",
    "vector",
    "σ",
    "α",
    "β",
    "λ",
    "θ",
    "naïve",
    "régime",
    "≤",
    "×",
    "–",
    "equation",
    "theorem",
    "proof",
    "lemma",
    "however",
    "therefore",
    "respectively",
    "significantly",
    "compared",
    "shown",
    "previous",
    "work",
    "recent",
    "also",
    "not",
    "it",
    "has",
    "have",
    "been",
    "more",
    "than",
    "all",
    "one",
    "first",
    "second",
    "used",
    "show",
    "given",
    "large",
    "small",
    "high",
    "low",
    "1",
    "2",
    "3",
    "10",
    "0.5",
    "95.2",
    "(",
    ")",
    "[",
    "]",
    ",",
    ".",
    ";",
    ":",
    "%",
    "=",
];

/// A tiny deterministic LCG.
struct Lcg(u64);
impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        self.0 >> 33
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn chance(&mut self, per_mille: usize) -> bool {
        self.below(1000) < per_mille
    }
    fn word(&mut self) -> &'static str {
        // Skewed towards the frequent words at the front of the list.
        let r = self.below(WORDS.len());
        WORDS[self.below(r + 1)]
    }
}

/// Paragraphs of words, about `chars` chars in all.
fn paper(rng: &mut Lcg, chars: usize) -> Vec<Vec<&'static str>> {
    let mut paras = Vec::new();
    let mut total = 0;
    while total < chars {
        let n = 40 + rng.below(120);
        let para: Vec<&str> = (0..n).map(|_| rng.word()).collect();
        total += para.iter().map(|w| w.chars().count()).sum::<usize>();
        paras.push(para);
    }
    paras
}

fn squash(paras: &[Vec<&str>]) -> Vec<char> {
    paras.iter().flatten().flat_map(|w| w.chars()).collect()
}

/// A parser's view of the paper: some paragraphs moved, words dropped and inserted, running
/// heads and captions interleaved, a few chars changed.
fn parsed(rng: &mut Lcg, gt: &[Vec<&'static str>], moves: usize, extra: usize) -> Vec<char> {
    let mut paras: Vec<Vec<&str>> = gt.to_vec();
    for _ in 0..moves {
        let from = rng.below(paras.len());
        let p = paras.remove(from);
        let to = rng.below(paras.len() + 1);
        paras.insert(to, p);
    }
    let mut out: Vec<Vec<&str>> = Vec::new();
    for p in &paras {
        let mut q = Vec::new();
        for &w in p {
            if rng.chance(50) {
                continue;
            }
            q.push(w);
            if rng.chance(50) {
                q.push(rng.word());
            }
        }
        out.push(q);
    }
    // Extra text (headers, footers, figure labels) in a few places.
    let mut added = 0;
    while added < extra {
        let n = 20 + rng.below(60);
        let junk: Vec<&str> = (0..n).map(|_| rng.word()).collect();
        added += junk.iter().map(|w| w.chars().count()).sum::<usize>();
        let at = rng.below(out.len() + 1);
        out.insert(at, junk);
    }
    let mut s = squash(&out);
    let alpha: Vec<char> = "abcdefghijklmnopqrstuvwxyz0123456789".chars().collect();
    for c in s.iter_mut() {
        if rng.chance(10) {
            *c = alpha[rng.below(alpha.len())];
        }
    }
    s
}

fn median_ms(reps: usize, mut f: impl FnMut() -> usize) -> (f64, usize) {
    let mut times = Vec::with_capacity(reps);
    let mut d = 0;
    for _ in 0..reps {
        let t = Instant::now();
        d = std::hint::black_box(f());
        times.push(t.elapsed().as_secs_f64() * 1e3);
    }
    times.sort_by(f64::total_cmp);
    (times[reps / 2], d)
}

fn main() {
    let reps: usize = std::env::args().nth(1).map(|r| r.parse().expect("REPS")).unwrap_or(15);
    let mut rng = Lcg(0x5EED_1234_ABCD_0001);
    let gt = paper(&mut rng, 28_000);
    let g = squash(&gt);
    let mut pairs: Vec<(&str, Vec<char>, Vec<char>)> = vec![
        ("paper, 3 moves", g.clone(), parsed(&mut rng, &gt, 3, 5_500)),
        ("paper, 8 moves", g.clone(), parsed(&mut rng, &gt, 8, 5_500)),
        ("paper, 20 moves", g.clone(), parsed(&mut rng, &gt, 20, 5_500)),
        ("paper, no extra", g.clone(), parsed(&mut rng, &gt, 4, 0)),
    ];
    let mut near = g.clone();
    for c in near.iter_mut() {
        if rng.chance(10) {
            *c = 'x';
        }
    }
    pairs.push(("near-identical", g.clone(), near));
    let other = squash(&paper(&mut rng, 30_000));
    pairs.push(("unrelated", g.clone(), other));
    println!(
        "{:<18} {:>7} {:>7} {:>7} {:>6} {:>9} {:>9} {:>7}",
        "pair", "a", "b", "dist", "d/max", "new ms", "old ms", "ratio"
    );
    for (name, a, b) in &pairs {
        let (t_new, d_new) = median_ms(reps, || levenshtein_chars(a, b));
        let (t_old, d_old) = median_ms(reps.div_ceil(3), || old::levenshtein_chars(a, b));
        assert_eq!(d_new, d_old, "{name}: new and old disagree");
        let m = a.len().max(b.len());
        println!(
            "{:<18} {:>7} {:>7} {:>7} {:>5.1}% {:>9.3} {:>9.3} {:>6.1}x",
            name,
            a.len(),
            b.len(),
            d_new,
            100.0 * d_new as f64 / m as f64,
            t_new,
            t_old,
            t_old / t_new
        );
    }
}

/// The previous implementation (doubling Ukkonen band, one block at a time), for comparison.
mod old {
    use std::collections::HashMap;

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
                let slot = if (c as u32) < 128 {
                    &mut ascii[c as usize]
                } else {
                    other.entry(c).or_insert(0)
                };
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
}
