//! Ratcliff/Obershelp "gestalt" matching exactly as CPython's `difflib.SequenceMatcher`
//! (`Lib/difflib.py`: `__chain_b`, `find_longest_match`, `get_matching_blocks`, `ratio`).
//!
//! GriTS_Con (table-transformer `src/grits.py::lcs_similarity`, `docs/table-metrics.md` §2) scores
//! two cell texts with `SequenceMatcher(None, a, b)`, so this module reproduces that call: no
//! `isjunk` predicate, and the default **autojunk** heuristic. When `b` has at least 200 items,
//! every element that occurs more than `len(b) / 100 + 1` times in `b` is "popular": it is dropped
//! from the index used to *seed* matches, but a found match is still extended over equal popular
//! elements on both ends (CPython extends over everything that is not junk, and with no `isjunk`
//! nothing is junk). Ties are broken as CPython does: the longest block whose end comes first in
//! `a`, then first in `b`.
//!
//! For `b` shorter than 200 items there are no popular elements, and the longest match is found
//! by direct comparison of `a[i]` with `b[j]` in the same `(i, j)` order CPython visits through
//! its `b2j` index, which gives identical blocks without building a hash map.
//!
//! Strings are compared as sequences of Unicode scalar values (`&[char]`), the same units as
//! Python's `str` indexing. [`CharMatcher`] is a bit-parallel equivalent for a `b` of at most 64
//! chars (GriTS compares tens of thousands of short cell texts per table pair); it returns the
//! same matched count as [`SequenceMatcher`].

use std::collections::HashMap;
#[cfg(test)]
use std::collections::HashSet;
use std::hash::Hash;

/// Length of `b` from which the autojunk heuristic applies (CPython: `n >= 200`).
pub const AUTOJUNK_MIN_LEN: usize = 200;

/// One matching block: `a[a..a + size] == b[b..b + size]` (CPython's `Match(a, b, size)`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Match {
    /// Start of the block in `a`.
    pub a: usize,
    /// Start of the block in `b`.
    pub b: usize,
    /// Number of matching items.
    pub size: usize,
}

/// Compares two sequences the way `difflib.SequenceMatcher(None, a, b, autojunk)` does.
///
/// Like CPython, the index over `b` is built once; `SequenceMatcher::set_seq1` swaps `a` and
/// keeps it, so one `b` can be compared against many `a` cheaply.
#[derive(Debug, Clone)]
pub struct SequenceMatcher<'s, T> {
    a: &'s [T],
    b: &'s [T],
    /// Positions of each non-popular element of `b`, ascending; `None` when `b` is shorter than
    /// [`AUTOJUNK_MIN_LEN`] (the direct-comparison path is used then).
    b2j: Option<HashMap<&'s T, Vec<usize>>>,
}

/// Reusable working memory for `SequenceMatcher::matched_with`: the rows of the
/// longest-match DP and the queue of sub-ranges, so that scoring many pairs allocates once.
#[derive(Debug, Default)]
pub struct Scratch {
    prev: Vec<usize>,
    cur: Vec<usize>,
    prev_touched: Vec<usize>,
    cur_touched: Vec<usize>,
    queue: Vec<(usize, usize, usize, usize)>,
    runs: Vec<u64>,
    next: Vec<u64>,
}

impl<'s, T: Eq + Hash> SequenceMatcher<'s, T> {
    /// Returns a matcher with autojunk on, as `SequenceMatcher(None, a, b)`.
    pub fn new(a: &'s [T], b: &'s [T]) -> Self {
        Self::with_autojunk(a, b, true)
    }

    /// Returns a matcher with the given autojunk setting, as
    /// `SequenceMatcher(None, a, b, autojunk=autojunk)`.
    pub(crate) fn with_autojunk(a: &'s [T], b: &'s [T], autojunk: bool) -> Self {
        let b2j = (b.len() >= AUTOJUNK_MIN_LEN).then(|| index_b(b, autojunk));
        SequenceMatcher { a, b, b2j }
    }

    /// Replaces `a`, keeping the index over `b` (CPython's `set_seq1`).
    pub(crate) fn set_seq1(&mut self, a: &'s [T]) {
        self.a = a;
    }

    /// Returns the number of distinct elements of `b` that autojunk treats as popular.
    #[cfg(test)]
    pub(crate) fn popular_count(&self) -> usize {
        match &self.b2j {
            None => 0,
            Some(b2j) => {
                self.b.iter().filter(|x| !b2j.contains_key(x)).collect::<HashSet<_>>().len()
            }
        }
    }

    /// Returns the longest matching block in `a[alo..ahi]` and `b[blo..bhi]`, as CPython's
    /// `find_longest_match(alo, ahi, blo, bhi)`; `size == 0` (at `(alo, blo)`) when none.
    ///
    /// Bounds are clamped to the sequence lengths.
    #[cfg(test)]
    pub(crate) fn find_longest_match(
        &self,
        alo: usize,
        ahi: usize,
        blo: usize,
        bhi: usize,
    ) -> Match {
        let ahi = ahi.min(self.a.len());
        let bhi = bhi.min(self.b.len());
        let mut scratch = Scratch::default();
        self.longest(alo.min(ahi), ahi, blo.min(bhi), bhi, &mut scratch)
    }

    fn longest(&self, alo: usize, ahi: usize, blo: usize, bhi: usize, s: &mut Scratch) -> Match {
        let (a, b) = (self.a, self.b);
        let (mut besti, mut bestj, mut bestsize) = (alo, blo, 0usize);
        // Slot `j + 1` holds the length of the match ending at a[i - 1], b[j]; slot `blo` is the
        // "j - 1 < blo" sentinel and stays 0.
        let need = b.len() + 1;
        if s.prev.len() < need {
            s.prev.resize(need, 0);
            s.cur.resize(need, 0);
        }
        match &self.b2j {
            None => {
                // Both rows are all zero between calls (see the end of this arm).
                for (i, ai) in a.iter().enumerate().take(ahi).skip(alo) {
                    for (j, bj) in b.iter().enumerate().take(bhi).skip(blo) {
                        let k = if ai == bj { s.prev[j] + 1 } else { 0 };
                        s.cur[j + 1] = k;
                        if k > bestsize {
                            (besti, bestj, bestsize) = (i + 1 - k, j + 1 - k, k);
                        }
                    }
                    std::mem::swap(&mut s.prev, &mut s.cur);
                }
                // Restore the all-zero rows that the sparse arm below relies on.
                s.prev[blo..=bhi].fill(0);
                s.cur[blo..=bhi].fill(0);
            }
            Some(b2j) => {
                // Sparse rows: only the slots listed in `*_touched` are non-zero.
                for (i, ai) in a.iter().enumerate().take(ahi).skip(alo) {
                    if let Some(js) = b2j.get(ai) {
                        for &j in js {
                            if j < blo {
                                continue;
                            }
                            if j >= bhi {
                                break;
                            }
                            let k = s.prev[j] + 1;
                            s.cur[j + 1] = k;
                            s.cur_touched.push(j + 1);
                            if k > bestsize {
                                (besti, bestj, bestsize) = (i + 1 - k, j + 1 - k, k);
                            }
                        }
                    }
                    for &t in &s.prev_touched {
                        s.prev[t] = 0;
                    }
                    s.prev_touched.clear();
                    std::mem::swap(&mut s.prev, &mut s.cur);
                    std::mem::swap(&mut s.prev_touched, &mut s.cur_touched);
                }
                for &t in &s.prev_touched {
                    s.prev[t] = 0;
                }
                s.prev_touched.clear();
            }
        }
        // Extend over equal elements on both ends. Popular elements are not junk, so this
        // crosses them; CPython's two further loops over junk elements never fire without an
        // `isjunk` predicate.
        extend(a, b, (alo, ahi), (blo, bhi), Match { a: besti, b: bestj, size: bestsize })
    }

    /// Returns the matching blocks in increasing order, adjacent blocks merged, ending with the
    /// sentinel `Match { a: len(a), b: len(b), size: 0 }` (CPython's `get_matching_blocks`).
    pub fn matching_blocks(&self) -> Vec<Match> {
        let (la, lb) = (self.a.len(), self.b.len());
        let mut scratch = Scratch::default();
        let mut queue = vec![(0, la, 0, lb)];
        let mut blocks = Vec::new();
        while let Some((alo, ahi, blo, bhi)) = queue.pop() {
            let m = self.longest(alo, ahi, blo, bhi, &mut scratch);
            if m.size > 0 {
                blocks.push(m);
                if alo < m.a && blo < m.b {
                    queue.push((alo, m.a, blo, m.b));
                }
                if m.a + m.size < ahi && m.b + m.size < bhi {
                    queue.push((m.a + m.size, ahi, m.b + m.size, bhi));
                }
            }
        }
        blocks.sort_unstable();
        let mut out: Vec<Match> = Vec::with_capacity(blocks.len() + 1);
        let mut cur = Match { a: 0, b: 0, size: 0 };
        for m in blocks {
            if cur.a + cur.size == m.a && cur.b + cur.size == m.b {
                cur.size += m.size;
            } else {
                if cur.size > 0 {
                    out.push(cur);
                }
                cur = m;
            }
        }
        if cur.size > 0 {
            out.push(cur);
        }
        out.push(Match { a: la, b: lb, size: 0 });
        out
    }

    /// Returns the number of matched items, the sum of the sizes of [`Self::matching_blocks`].
    pub fn matched(&self) -> usize {
        self.matched_with(&mut Scratch::default())
    }

    /// [`Self::matched`] with caller-owned working memory (no allocation once `scratch` has
    /// grown). The recursion is `get_matching_blocks`'; merging adjacent blocks does not change
    /// the total, so the blocks are only counted.
    pub(crate) fn matched_with(&self, scratch: &mut Scratch) -> usize {
        let mut queue = std::mem::take(&mut scratch.queue);
        queue.clear();
        queue.push((0, self.a.len(), 0, self.b.len()));
        let mut total = 0;
        while let Some((alo, ahi, blo, bhi)) = queue.pop() {
            let m = self.longest(alo, ahi, blo, bhi, scratch);
            if m.size > 0 {
                total += m.size;
                if alo < m.a && blo < m.b {
                    queue.push((alo, m.a, blo, m.b));
                }
                if m.a + m.size < ahi && m.b + m.size < bhi {
                    queue.push((m.a + m.size, ahi, m.b + m.size, bhi));
                }
            }
        }
        scratch.queue = queue;
        total
    }

    /// Returns `2 * M / (len(a) + len(b))`, or 1.0 when both are empty (CPython's `ratio`).
    pub fn ratio(&self) -> f64 {
        let total = self.a.len() + self.b.len();
        if total == 0 {
            return 1.0;
        }
        (2 * self.matched()) as f64 / total as f64
    }
}

/// A bit-parallel matcher for a short string `b` (at most [`CharMatcher::MAX_LEN`] chars):
/// the same blocks as [`SequenceMatcher`] (no autojunk applies below 200 items), found with one
/// 64-bit mask of positions per character of `b`.
///
/// Row `i` keeps, for every run length `k`, the set `R_k` of positions `j` where a common run of
/// at least `k` items ends at `(i, j)`: `R_1 = mask(a[i])`, `R_k = mask(a[i]) & (R_{k-1}(i − 1) << 1)`.
/// The longest run of the row and its smallest end `j` reproduce CPython's first-found tie-break.
#[derive(Debug, Clone)]
pub struct CharMatcher<'s> {
    b: &'s [char],
    ascii: Vec<u64>,
    other: Vec<(char, u64)>,
}

impl<'s> CharMatcher<'s> {
    /// Longest `b` this matcher takes.
    pub const MAX_LEN: usize = 64;

    /// Indexes `b`; `None` when it is longer than [`Self::MAX_LEN`].
    pub fn new(b: &'s [char]) -> Option<Self> {
        if b.len() > Self::MAX_LEN {
            return None;
        }
        let mut ascii = vec![0u64; 128];
        let mut other: Vec<(char, u64)> = Vec::new();
        for (j, &ch) in b.iter().enumerate() {
            let bit = 1u64 << j;
            if ch.is_ascii() {
                ascii[ch as usize] |= bit;
            } else if let Some(e) = other.iter_mut().find(|e| e.0 == ch) {
                e.1 |= bit;
            } else {
                other.push((ch, bit));
            }
        }
        Some(CharMatcher { b, ascii, other })
    }

    fn mask(&self, ch: char) -> u64 {
        if ch.is_ascii() {
            self.ascii[ch as usize]
        } else {
            self.other.iter().find(|e| e.0 == ch).map_or(0, |e| e.1)
        }
    }

    /// Returns the number of items of `a` and `b` in matching blocks, as
    /// `SequenceMatcher(None, a, b)` would find them.
    pub fn matched(&self, a: &[char], scratch: &mut Scratch) -> usize {
        let mut queue = std::mem::take(&mut scratch.queue);
        queue.clear();
        queue.push((0, a.len(), 0, self.b.len()));
        let mut total = 0;
        while let Some((alo, ahi, blo, bhi)) = queue.pop() {
            let m = self.longest(a, (alo, ahi), (blo, bhi), scratch);
            if m.size > 0 {
                total += m.size;
                if alo < m.a && blo < m.b {
                    queue.push((alo, m.a, blo, m.b));
                }
                if m.a + m.size < ahi && m.b + m.size < bhi {
                    queue.push((m.a + m.size, ahi, m.b + m.size, bhi));
                }
            }
        }
        scratch.queue = queue;
        total
    }

    fn longest(
        &self,
        a: &[char],
        (alo, ahi): (usize, usize),
        (blo, bhi): (usize, usize),
        s: &mut Scratch,
    ) -> Match {
        let width = bhi - blo;
        let range = if width >= 64 { u64::MAX } else { ((1u64 << width) - 1) << blo };
        let (mut besti, mut bestj, mut bestsize) = (alo, blo, 0usize);
        s.runs.clear();
        for (i, &ai) in a.iter().enumerate().take(ahi).skip(alo) {
            let m = self.mask(ai) & range;
            s.next.clear();
            if m != 0 {
                s.next.push(m);
                for &r in &s.runs {
                    let r = m & (r << 1);
                    if r == 0 {
                        break;
                    }
                    s.next.push(r);
                }
            }
            if s.next.len() > bestsize {
                bestsize = s.next.len();
                let jend = s.next[bestsize - 1].trailing_zeros() as usize;
                (besti, bestj) = (i + 1 - bestsize, jend + 1 - bestsize);
            }
            std::mem::swap(&mut s.runs, &mut s.next);
        }
        // As in `SequenceMatcher::longest`; without junk these never extend a maximal run.
        let b = self.b;
        extend(a, b, (alo, ahi), (blo, bhi), Match { a: besti, b: bestj, size: bestsize })
    }
}

/// Builds CPython's `b2j` (element → ascending positions), minus the popular elements when
/// `autojunk` is on (`__chain_b`: more than `n / 100 + 1` occurrences with `n >= 200`).
/// Extends a match over equal elements on both ends, within `a[alo..ahi]` and `b[blo..bhi]`.
fn extend<T: PartialEq>(
    a: &[T],
    b: &[T],
    (alo, ahi): (usize, usize),
    (blo, bhi): (usize, usize),
    mut m: Match,
) -> Match {
    while m.a > alo && m.b > blo && a[m.a - 1] == b[m.b - 1] {
        m.a -= 1;
        m.b -= 1;
        m.size += 1;
    }
    while m.a + m.size < ahi && m.b + m.size < bhi && a[m.a + m.size] == b[m.b + m.size] {
        m.size += 1;
    }
    m
}

fn index_b<T: Eq + Hash>(b: &[T], autojunk: bool) -> HashMap<&T, Vec<usize>> {
    let mut b2j: HashMap<&T, Vec<usize>> = HashMap::new();
    for (j, x) in b.iter().enumerate() {
        b2j.entry(x).or_default().push(j);
    }
    if autojunk && b.len() >= AUTOJUNK_MIN_LEN {
        let ntest = b.len() / 100 + 1;
        b2j.retain(|_, js| js.len() <= ntest);
    }
    b2j
}

/// Returns `SequenceMatcher(None, a, b).ratio()` for two strings, compared by `char`.
pub(crate) fn ratio_str(a: &str, b: &str) -> f64 {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    SequenceMatcher::new(&a, &b).ratio()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chars(s: &str) -> Vec<char> {
        s.chars().collect()
    }

    fn blocks(a: &str, b: &str, autojunk: bool) -> Vec<(usize, usize, usize)> {
        let (a, b) = (chars(a), chars(b));
        SequenceMatcher::with_autojunk(&a, &b, autojunk)
            .matching_blocks()
            .iter()
            .map(|m| (m.a, m.b, m.size))
            .collect()
    }

    fn ratio(a: &str, b: &str, autojunk: bool) -> f64 {
        let (a, b) = (chars(a), chars(b));
        SequenceMatcher::with_autojunk(&a, &b, autojunk).ratio()
    }

    // Expected values below were printed by CPython 3.11.7's difflib:
    //   m = difflib.SequenceMatcher(None, a, b, autojunk=...)
    //   [tuple(x) for x in m.get_matching_blocks()], repr(m.ratio()), m.find_longest_match(...)
    // with the same inputs built by the same expressions (see bench/difflib_expected.py).

    #[test]
    fn docs_examples() {
        // The examples in CPython's difflib documentation.
        assert_eq!(blocks("abxcd", "abcd", true), vec![(0, 0, 2), (3, 2, 2), (5, 4, 0)]);
        let (a, b) = (chars(" abcd"), chars("abcd abcd"));
        let m = SequenceMatcher::new(&a, &b);
        assert_eq!(m.find_longest_match(0, 5, 0, 9), Match { a: 0, b: 4, size: 5 });
        assert_eq!(ratio("abcd", "bcde", true), 0.75);
    }

    #[test]
    fn empty_inputs() {
        assert_eq!(blocks("", "", true), vec![(0, 0, 0)]);
        assert_eq!(ratio("", "", true), 1.0);
        assert_eq!(blocks("abc", "", true), vec![(3, 0, 0)]);
        assert_eq!(ratio("abc", "", true), 0.0);
        assert_eq!(ratio("", "x", true), 0.0);
    }

    #[test]
    fn ties_take_first_in_a_then_b() {
        // "ab" occurs twice in b: the first (b = 0) wins; then "ab" at a = 0 vs a = 3.
        assert_eq!(blocks("abxab", "ab", true), vec![(0, 0, 2), (5, 2, 0)]);
        assert_eq!(blocks("ab", "abxab", true), vec![(0, 0, 2), (2, 5, 0)]);
        // Not an LCS: Ratcliff/Obershelp takes the longest block first.
        assert_eq!(blocks("abcdxyz", "xyzabcd", true), vec![(0, 3, 4), (7, 7, 0)]);
    }

    #[test]
    fn short_strings_ratio() {
        assert_eq!(ratio("0.881", "0.818", true), 0.8);
        assert_eq!(blocks("0.881", "0.818", true), vec![(0, 0, 3), (3, 4, 1), (5, 5, 0)]);
        assert_eq!(ratio("Precision", "Precison", true), 0.9411764705882353);
        assert_eq!(ratio("12.5 ± 0.3", "12.5±0.3", true), 0.8888888888888888);
        assert_eq!(
            blocks("12.5 ± 0.3", "12.5±0.3", true),
            vec![(0, 0, 4), (5, 4, 1), (7, 5, 3), (10, 8, 0)]
        );
    }

    fn long_a() -> String {
        "The quick brown fox jumps over the lazy dog. ".repeat(5) + "END"
    }

    fn long_b() -> String {
        "The quick brown fox jumps over the lazy cat! ".repeat(5) + "END"
    }

    #[test]
    fn autojunk_changes_long_inputs() {
        let (a, b) = (long_a(), long_b());
        assert_eq!(b.chars().count(), 228);
        // With autojunk, every letter occurring more than 3 times in b is popular.
        let (ca, cb) = (chars(&a), chars(&b));
        assert_eq!(SequenceMatcher::new(&ca, &cb).popular_count(), 27);
        assert_eq!(ratio(&a, &b, true), 0.19298245614035087);
        assert_eq!(blocks(&a, &b, true), vec![(0, 0, 40), (224, 224, 4), (228, 228, 0)]);
        assert_eq!(ratio(&a, &b, false), 0.9122807017543859);
        assert_eq!(blocks(&a, &b, false)[..3], [(0, 0, 40), (44, 44, 41), (89, 89, 41)]);
    }

    #[test]
    fn autojunk_threshold_at_200() {
        // b of 199 chars: no popular elements; b of 200 chars: 'a' (200 > 3) is popular.
        let a = "a".repeat(10);
        let b199 = "a".repeat(199);
        let b200 = "a".repeat(200);
        assert_eq!(blocks(&a, &b199, true), vec![(0, 0, 10), (10, 199, 0)]);
        // Popular 'a' seeds nothing, but the empty match at (0, 0) is extended over equal items.
        assert_eq!(blocks(&a, &b200, true), vec![(0, 0, 10), (10, 200, 0)]);
        let a = "xa".repeat(5);
        // 200 items: 'a' is popular, only the 'x' seeds a match; nothing to extend over.
        let b = "a".repeat(199) + "x";
        assert_eq!(blocks(&a, &b, true), vec![(0, 199, 1), (10, 200, 0)]);
        let b = "a".repeat(200) + "x";
        assert_eq!(blocks(&a, &b, true), vec![(0, 200, 1), (10, 201, 0)]);
        // 199 items: no autojunk, the block "ax" is found.
        let b = "a".repeat(198) + "x";
        assert_eq!(blocks(&a, &b, true), vec![(1, 197, 2), (10, 199, 0)]);
    }

    #[test]
    fn popular_rule_uses_n_over_100_plus_1() {
        // n = 300: ntest = 4. 'q' 4 times stays indexed, 'z' 5 times is popular.
        let b = "q".repeat(4) + &"z".repeat(5) + &"-".repeat(291);
        let a = "zzzzzqqqq";
        let (ca, cb) = (chars(a), chars(&b));
        let m = SequenceMatcher::new(&ca, &cb);
        assert_eq!(m.popular_count(), 2);
        assert_eq!(blocks(a, &b, true), vec![(5, 0, 4), (9, 300, 0)]);
        assert_eq!(blocks(a, &b, false), vec![(0, 4, 5), (9, 300, 0)]);
    }

    #[test]
    fn generic_items() {
        let a = [1u32, 2, 3, 4, 5];
        let b = [9u32, 2, 3, 7, 5];
        let m = SequenceMatcher::new(&a, &b);
        assert_eq!(
            m.matching_blocks(),
            vec![
                Match { a: 1, b: 1, size: 2 },
                Match { a: 4, b: 4, size: 1 },
                Match { a: 5, b: 5, size: 0 }
            ]
        );
        assert_eq!(m.ratio(), 0.6);
    }

    #[test]
    fn set_seq1_keeps_b_index() {
        let b = chars(&long_b());
        let a1 = chars(&long_a());
        let a2 = chars("lazy cat! END");
        let mut m = SequenceMatcher::new(&a1, &b);
        let r1 = m.ratio();
        m.set_seq1(&a2);
        assert_eq!(r1, 0.19298245614035087);
        assert_eq!(m.matching_blocks()[0], Match { a: 0, b: 215, size: 13 });
        assert_eq!(m.ratio(), 0.1078838174273859);
        assert_eq!(m.ratio(), SequenceMatcher::new(&a2, &b).ratio());
        // The scratch-reusing count agrees with the blocks, across different pairs.
        let mut scratch = Scratch::default();
        assert_eq!(m.matched_with(&mut scratch), 13);
        m.set_seq1(&a1);
        // 0.19298245614035087 = 2 · 44 / 456.
        assert_eq!(m.matched_with(&mut scratch), 44);
        let (x, y) = (chars("abxcd"), chars("abcd"));
        assert_eq!(SequenceMatcher::new(&x, &y).matched_with(&mut scratch), 4);
        // Short pair (dense rows) then long pair (sparse rows) on the same scratch.
        let long = SequenceMatcher::new(&a1, &b);
        assert_eq!(long.matched_with(&mut scratch), 44);
        let (x, y) = (chars(&"ab".repeat(90)), chars(&"ab".repeat(95)));
        assert_eq!(SequenceMatcher::new(&x, &y).matched_with(&mut scratch), 180);
        assert_eq!(long.matched_with(&mut scratch), 44);
    }

    #[test]
    fn char_matcher_agrees_with_sequence_matcher() {
        // Deterministic pseudo-random strings over small alphabets (LCG), lengths 0..=64.
        let mut state = 12345u64;
        let mut next = |n: u64| {
            state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (state >> 33) % n
        };
        let alphabets: [&[char]; 4] =
            [&['a', 'b'], &['0', '1', '.', ' '], &['x', 'é', '±', 'y', 'z'], &['a'; 1]];
        let mut scratch = Scratch::default();
        for round in 0..3000 {
            let alpha = alphabets[round % alphabets.len()];
            let la = next(70) as usize;
            let lb = next(65) as usize;
            let a: Vec<char> = (0..la).map(|_| alpha[next(alpha.len() as u64) as usize]).collect();
            let b: Vec<char> = (0..lb).map(|_| alpha[next(alpha.len() as u64) as usize]).collect();
            let want = SequenceMatcher::new(&a, &b).matched();
            let cm = CharMatcher::new(&b).unwrap();
            assert_eq!(cm.matched(&a, &mut scratch), want, "{a:?} {b:?}");
        }
        let long = chars(&"a".repeat(65));
        assert!(CharMatcher::new(&long).is_none());
        // Hand-checked: "abxcd"/"abcd" → 4, "abcdxyz"/"xyzabcd" → 4.
        let (x, y) = (chars("abxcd"), chars("abcd"));
        assert_eq!(CharMatcher::new(&y).unwrap().matched(&x, &mut scratch), 4);
        let (x, y) = (chars("abcdxyz"), chars("xyzabcd"));
        assert_eq!(CharMatcher::new(&y).unwrap().matched(&x, &mut scratch), 4);
    }

    #[test]
    fn ratio_str_counts_code_points() {
        // Precomposed 'é' is one item; 'e' + U+0301 is two, and neither matches it.
        assert_eq!(blocks("é", "e\u{301}", true), vec![(1, 2, 0)]);
        assert_eq!(ratio_str("é", "e\u{301}"), 0.0);
        assert_eq!(ratio_str("abcd", "bcde"), 0.75);
    }
}
