//! Fuzzy string matching used by olmOCR-bench, reproduced from its two Python dependencies:
//!
//! * RapidFuzz 3.14 (`rapidfuzz/fuzz_py.py` and `rapidfuzz-cpp/rapidfuzz/fuzz_impl.hpp`):
//!   [`ratio`] is the normalized Indel similarity ×100 (`fuzz.ratio`), and [`partial_ratio`] is
//!   `fuzz.partial_ratio`: the best `ratio` of the shorter string against every window of the
//!   longer one (full-length windows, plus the prefixes and suffixes of the longer string that are
//!   shorter than the needle), with the swap that also tries the other direction when both strings
//!   have the same length. The C++ build of RapidFuzz prunes the full-length windows by branch and
//!   bound for needles of up to 64 characters; the pruning never changes the maximum, so one
//!   exhaustive scan gives the same score for every needle length (checked against the PyPI wheel,
//!   see `bench/fuzz_reference.sh`).
//! * fuzzysearch 0.8.1 (`fuzzysearch/__init__.py`, `levenshtein.py`, `levenshtein_ngram.py`,
//!   `search_exact.py`, `common.py`): [`find_near_matches`] with only `max_l_dist` given, i.e.
//!   exact search for distance 0, otherwise the n-gram or the candidate-list ("linear
//!   programming") Levenshtein search followed by `consolidate_overlapping_matches`.
//!
//! All positions and lengths count Unicode scalar values, as Python's `str` does.

use std::collections::HashMap;

/// Bit masks of the positions of each character in a pattern, for Hyyrö's bit-parallel LCS.
struct PatternMasks {
    words: usize,
    len: usize,
    ascii: Vec<u64>,
    other: HashMap<char, Vec<u64>>,
}

impl PatternMasks {
    fn new(pattern: &[char]) -> Self {
        let words = pattern.len().div_ceil(64).max(1);
        let mut ascii = vec![0u64; 128 * words];
        let mut other: HashMap<char, Vec<u64>> = HashMap::new();
        for (i, &c) in pattern.iter().enumerate() {
            let (w, bit) = (i / 64, 1u64 << (i % 64));
            if (c as u32) < 128 {
                ascii[(c as usize) * words + w] |= bit;
            } else {
                other.entry(c).or_insert_with(|| vec![0u64; words])[w] |= bit;
            }
        }
        PatternMasks { words, len: pattern.len(), ascii, other }
    }

    fn get(&self, c: char) -> Option<&[u64]> {
        if (c as u32) < 128 {
            let start = (c as usize) * self.words;
            let m = &self.ascii[start..start + self.words];
            if m.iter().all(|&x| x == 0) {
                None
            } else {
                Some(m)
            }
        } else {
            self.other.get(&c).map(Vec::as_slice)
        }
    }

    /// Length of the longest common subsequence of the pattern and `text`.
    fn lcs(&self, text: &[char], state: &mut Vec<u64>) -> usize {
        if self.len == 0 || text.is_empty() {
            return 0;
        }
        state.clear();
        state.resize(self.words, u64::MAX);
        for &c in text {
            let Some(mask) = self.get(c) else { continue };
            let mut carry = 0u64;
            for (v, &m) in state.iter_mut().zip(mask) {
                let u = *v & m;
                let (sum1, c1) = v.overflowing_add(u);
                let (sum2, c2) = sum1.overflowing_add(carry);
                carry = u64::from(c1 || c2);
                // u is a subset of v, so v - u never borrows.
                *v = sum2 | (*v - u);
            }
        }
        let mut zeros = 0usize;
        for (w, &v) in state.iter().enumerate() {
            let bits = (self.len - w * 64).min(64);
            let mask = if bits == 64 { u64::MAX } else { (1u64 << bits) - 1 };
            zeros += (!v & mask).count_ones() as usize;
        }
        zeros
    }
}

/// Normalized Indel similarity exactly as RapidFuzz computes it: `1 - dist / (len1 + len2)`,
/// and 1 for two empty sequences.
fn indel_similarity(lcs: usize, len1: usize, len2: usize) -> f64 {
    let total = len1 + len2;
    if total == 0 {
        return 1.0;
    }
    let dist = total - 2 * lcs;
    1.0 - dist as f64 / total as f64
}

/// Indel distance (insertions and deletions only) between two character sequences.
#[cfg(test)]
pub(crate) fn indel_distance(a: &[char], b: &[char]) -> usize {
    let masks = PatternMasks::new(a);
    let lcs = masks.lcs(b, &mut Vec::new());
    a.len() + b.len() - 2 * lcs
}

/// `rapidfuzz.fuzz.ratio(s1, s2)`: normalized Indel similarity in `[0, 100]`.
pub fn ratio(s1: &str, s2: &str) -> f64 {
    let a: Vec<char> = s1.chars().collect();
    let b: Vec<char> = s2.chars().collect();
    ratio_chars(&a, &b)
}

/// [`ratio`] over character slices.
pub(crate) fn ratio_chars(a: &[char], b: &[char]) -> f64 {
    let masks = PatternMasks::new(a);
    let lcs = masks.lcs(b, &mut Vec::new());
    indel_similarity(lcs, a.len(), b.len()) * 100.0
}

/// rapidfuzz's `score_cutoff`: 0 when the cutoff is above 100 (not computed) or the score is
/// below it.
#[cfg(test)]
fn with_cutoff(cutoff: f64, score: impl FnOnce() -> f64) -> f64 {
    if cutoff > 100.0 {
        return 0.0;
    }
    let r = score();
    if r >= cutoff {
        r
    } else {
        0.0
    }
}

/// `rapidfuzz.fuzz.ratio(s1, s2, score_cutoff=cutoff)`: the ratio, or 0 when it is below `cutoff`.
#[cfg(test)]
pub(crate) fn ratio_with_cutoff(s1: &str, s2: &str, cutoff: f64) -> f64 {
    with_cutoff(cutoff, || ratio(s1, s2))
}

/// `rapidfuzz.fuzz.partial_ratio(s1, s2)`: best [`ratio`] of the shorter string against any
/// window of the longer one, in `[0, 100]`.
pub fn partial_ratio(s1: &str, s2: &str) -> f64 {
    let a: Vec<char> = s1.chars().collect();
    let b: Vec<char> = s2.chars().collect();
    partial_ratio_chars(&a, &b)
}

/// `rapidfuzz.fuzz.partial_ratio(s1, s2, score_cutoff=cutoff)`: the score, or 0 when it is below
/// `cutoff` (a cutoff never changes which window wins, only whether the best one is reported).
#[cfg(test)]
pub(crate) fn partial_ratio_with_cutoff(s1: &str, s2: &str, cutoff: f64) -> f64 {
    with_cutoff(cutoff, || partial_ratio(s1, s2))
}

/// [`partial_ratio`] over character slices.
pub(crate) fn partial_ratio_chars(s1: &[char], s2: &[char]) -> f64 {
    if s1.is_empty() || s2.is_empty() {
        return if s1.is_empty() && s2.is_empty() { 100.0 } else { 0.0 };
    }
    let (shorter, longer) = if s1.len() <= s2.len() { (s1, s2) } else { (s2, s1) };
    let mut best = partial_ratio_impl(shorter, longer);
    if best != 100.0 && s1.len() == s2.len() {
        let other = partial_ratio_impl(longer, shorter);
        if other > best {
            best = other;
        }
    }
    best
}

/// One direction of `partial_ratio`; requires `needle.len() <= haystack.len()`, both non-empty.
/// Visits the windows in RapidFuzz's order: growing prefixes shorter than the needle, full-length
/// windows, then shrinking suffixes, skipping windows whose new boundary character does not occur
/// in the needle (such a window can never beat its neighbour).
fn partial_ratio_impl(needle: &[char], haystack: &[char]) -> f64 {
    let len1 = needle.len();
    let len2 = haystack.len();
    let masks = PatternMasks::new(needle);
    let in_needle = |c: char| masks.get(c).is_some();
    let mut state = Vec::new();
    let mut best = 0.0f64;
    let mut consider = |window: &[char], best: &mut f64| -> bool {
        let lcs = masks.lcs(window, &mut state);
        let sim = indel_similarity(lcs, len1, window.len());
        if sim > *best {
            *best = sim;
            if sim == 1.0 {
                return true;
            }
        }
        false
    };
    for i in 1..len1 {
        if !in_needle(haystack[i - 1]) {
            continue;
        }
        if consider(&haystack[..i], &mut best) {
            return 100.0;
        }
    }
    for i in 0..(len2 - len1) {
        if !in_needle(haystack[i + len1 - 1]) {
            continue;
        }
        if consider(&haystack[i..i + len1], &mut best) {
            return 100.0;
        }
    }
    for i in (len2 - len1)..len2 {
        if !in_needle(haystack[i]) {
            continue;
        }
        if consider(&haystack[i..], &mut best) {
            return 100.0;
        }
    }
    best * 100.0
}

/// One approximate occurrence found by [`find_near_matches`] (fuzzysearch's `Match` without the
/// `matched` text): `sequence[start..end]` is within `dist` edits of the pattern.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Match {
    /// Start index (characters) in the searched sequence.
    pub start: usize,
    /// End index (exclusive, characters).
    pub end: usize,
    /// Levenshtein distance between the pattern and `sequence[start..end]`.
    pub dist: usize,
}

/// `fuzzysearch.find_near_matches(subsequence, sequence, max_l_dist=max_l_dist)`.
///
/// Returns no match for an empty `subsequence` (fuzzysearch raises `ValueError` there).
pub fn find_near_matches(subsequence: &str, sequence: &str, max_l_dist: usize) -> Vec<Match> {
    let sub: Vec<char> = subsequence.chars().collect();
    let seq: Vec<char> = sequence.chars().collect();
    find_near_matches_chars(&sub, &seq, max_l_dist)
}

/// [`find_near_matches`] over character slices.
pub(crate) fn find_near_matches_chars(sub: &[char], seq: &[char], max_l_dist: usize) -> Vec<Match> {
    if sub.is_empty() {
        return Vec::new();
    }
    if max_l_dist == 0 {
        // ExactSearch: every (overlapping) occurrence, not consolidated.
        return search_exact(sub, seq, 0, seq.len())
            .into_iter()
            .map(|i| Match { start: i, end: i + sub.len(), dist: 0 })
            .collect();
    }
    consolidate_overlapping_matches(&levenshtein_search_chars(sub, seq, max_l_dist))
}

/// The matches fuzzysearch's Levenshtein search generates before consolidation
/// (`find_near_matches_levenshtein`), in generation order; `max_l_dist` must be at least 1.
pub fn levenshtein_search_chars(sub: &[char], seq: &[char], max_l_dist: usize) -> Vec<Match> {
    if sub.is_empty() {
        return Vec::new();
    }
    if sub.len() / (max_l_dist + 1) >= 3 {
        levenshtein_ngrams(sub, seq, max_l_dist)
    } else {
        levenshtein_linear(sub, seq, max_l_dist)
    }
}

/// All start indices of `sub` inside `seq[start..end]` (overlapping), like repeated `str.find`.
fn search_exact(sub: &[char], seq: &[char], start: usize, end: usize) -> Vec<usize> {
    let start = start.min(seq.len());
    let end = end.clamp(start, seq.len());
    let mut out = Vec::new();
    if sub.is_empty() || end - start < sub.len() {
        return out;
    }
    for i in start..=(end - sub.len()) {
        if seq[i..i + sub.len()] == *sub {
            out.push(i);
        }
    }
    out
}

/// fuzzysearch `find_near_matches_levenshtein_linear_programming`: candidates advance through the
/// pattern, spending edits on skipped sequence and/or pattern characters.
fn levenshtein_linear(sub: &[char], seq: &[char], max_l_dist: usize) -> Vec<Match> {
    #[derive(Clone, Copy)]
    struct Cand {
        start: usize,
        subseq_index: usize,
        dist: usize,
    }
    let n = sub.len();
    let mut out = Vec::new();
    if max_l_dist >= n {
        for i in 0..=seq.len() {
            out.push(Match { start: i, end: i, dist: n });
        }
        return out;
    }
    // First index of each character among the first max_l_dist + 1 pattern characters.
    let mut first_index: HashMap<char, usize> = HashMap::new();
    for (i, &c) in sub.iter().enumerate().take(max_l_dist + 1).rev() {
        first_index.insert(c, i);
    }
    let mut candidates: Vec<Cand> = Vec::new();
    for (index, &ch) in seq.iter().enumerate() {
        let mut next: Vec<Cand> = Vec::new();
        if let Some(&idx) = first_index.get(&ch) {
            if idx + 1 == n {
                out.push(Match { start: index, end: index + 1, dist: idx });
            } else {
                next.push(Cand { start: index, subseq_index: idx + 1, dist: idx });
            }
        }
        for cand in &candidates {
            if sub[cand.subseq_index] == ch {
                if cand.subseq_index + 1 == n {
                    out.push(Match { start: cand.start, end: index + 1, dist: cand.dist });
                } else {
                    next.push(Cand { subseq_index: cand.subseq_index + 1, ..*cand });
                }
            } else {
                if cand.dist == max_l_dist {
                    continue;
                }
                next.push(Cand { dist: cand.dist + 1, ..*cand });
                if index + 1 < seq.len() && cand.subseq_index + 1 < n {
                    next.push(Cand {
                        dist: cand.dist + 1,
                        subseq_index: cand.subseq_index + 1,
                        ..*cand
                    });
                }
                for skipped in 1..=(max_l_dist - cand.dist) {
                    if cand.subseq_index + skipped == n {
                        out.push(Match {
                            start: cand.start,
                            end: index + 1,
                            dist: cand.dist + skipped,
                        });
                        break;
                    } else if sub[cand.subseq_index + skipped] == ch {
                        if cand.subseq_index + skipped + 1 == n {
                            out.push(Match {
                                start: cand.start,
                                end: index + 1,
                                dist: cand.dist + skipped,
                            });
                        } else {
                            next.push(Cand {
                                start: cand.start,
                                dist: cand.dist + skipped,
                                subseq_index: cand.subseq_index + 1 + skipped,
                            });
                        }
                        break;
                    }
                }
            }
        }
        candidates = next;
    }
    for cand in &candidates {
        let dist = cand.dist + n - cand.subseq_index;
        if dist <= max_l_dist {
            out.push(Match { start: cand.start, end: seq.len(), dist });
        }
    }
    out
}

/// fuzzysearch `_expand`: best edit distance of `sub` against a prefix of `seq`, and the length
/// of that prefix (the longest one among equally good prefixes), if within `max_l_dist`.
fn expand(sub: &[char], seq: &[char], max_l_dist: usize) -> Option<(usize, usize)> {
    if sub.len() > (max_l_dist * 2).max(10) {
        expand_long(sub, seq, max_l_dist)
    } else {
        expand_short(sub, seq, max_l_dist)
    }
}

fn expand_short(sub: &[char], seq: &[char], max_l_dist: usize) -> Option<(usize, usize)> {
    let n = sub.len();
    if n == 0 {
        return Some((0, 0));
    }
    let mut scores: Vec<usize> = (1..=n).collect();
    let mut min_score = n;
    let mut min_score_end = 0usize;
    for (seq_index, &ch) in seq.iter().enumerate() {
        let mut a = seq_index;
        let mut c = a + 1;
        for (j, score) in scores.iter_mut().enumerate() {
            let b = *score;
            c = (a + usize::from(ch != sub[j])).min(b + 1).min(c + 1);
            *score = c;
            a = b;
        }
        if c <= min_score {
            min_score = c;
            min_score_end = seq_index + 1;
        } else if scores.iter().min().is_some_and(|&m| m >= min_score) {
            break;
        }
    }
    (min_score <= max_l_dist).then_some((min_score, min_score_end))
}

fn expand_long(sub: &[char], seq: &[char], max_l_dist: usize) -> Option<(usize, usize)> {
    let n = sub.len();
    if n == 0 {
        return Some((0, 0));
    }
    let mut scores: Vec<usize> = (1..=n).collect();
    let mut min_score = n;
    let mut min_score_end = 0usize;
    let mut max_good = max_l_dist;
    let mut new_range_start: Option<usize> = Some(0);
    let mut new_range_end: isize = n as isize - 1;
    for (seq_index, &ch) in seq.iter().enumerate() {
        let range_start = new_range_start.unwrap_or(0);
        let range_end = n.min((new_range_end + 1).max(0) as usize);
        let mut a = seq_index;
        let mut c = a + 1;
        if c <= max_good {
            new_range_start = Some(0);
            new_range_end = 0;
        } else {
            new_range_start = None;
            new_range_end = -1;
        }
        for j in range_start..range_end {
            let b = scores[j];
            c = (a + usize::from(ch != sub[j])).min(b + 1).min(c + 1);
            scores[j] = c;
            a = b;
            if c <= max_good {
                if new_range_start.is_none() {
                    new_range_start = Some(j);
                }
                new_range_end = new_range_end.max((j + 1 + (max_good - c)) as isize);
            }
        }
        if new_range_start.is_none() {
            break;
        }
        if range_end == n && c <= min_score {
            min_score = c;
            min_score_end = seq_index + 1;
            if min_score < max_good {
                max_good = min_score;
            }
        }
    }
    (min_score <= max_l_dist).then_some((min_score, min_score_end))
}

/// fuzzysearch `find_near_matches_levenshtein_ngrams`: exact hits of one of `max_l_dist + 1`
/// pattern pieces, expanded to the right and then to the left.
fn levenshtein_ngrams(sub: &[char], seq: &[char], max_l_dist: usize) -> Vec<Match> {
    let n = sub.len();
    let seq_len = seq.len();
    let ngram_len = n / (max_l_dist + 1);
    let mut out = Vec::new();
    if ngram_len == 0 {
        return out;
    }
    let mut ngram_start = 0usize;
    while ngram_start + ngram_len <= n {
        let ngram_end = ngram_start + ngram_len;
        let before_rev: Vec<char> = sub[..ngram_start].iter().rev().copied().collect();
        let after = &sub[ngram_end..];
        let start_index = ngram_start.saturating_sub(max_l_dist);
        let end_signed = seq_len as i64 - n as i64 + ngram_end as i64 + max_l_dist as i64;
        let end_index = (seq_len as i64).min(end_signed).max(0) as usize;
        for index in search_exact(&sub[ngram_start..ngram_end], seq, start_index, end_index) {
            let r_lo = (index + ngram_len).min(seq_len);
            let r_end = index as i64 - ngram_start as i64 + n as i64 + max_l_dist as i64;
            let r_hi = (r_end.max(0) as usize).min(seq_len).max(r_lo);
            let Some((dist_right, right_size)) = expand(after, &seq[r_lo..r_hi], max_l_dist) else {
                continue;
            };
            let left_budget = max_l_dist - dist_right;
            let l_lo = (index as i64 - ngram_start as i64 - left_budget as i64).max(0) as usize;
            let left: Vec<char> = seq[l_lo.min(index)..index].iter().rev().copied().collect();
            let Some((dist_left, left_size)) = expand(&before_rev, &left, left_budget) else {
                continue;
            };
            out.push(Match {
                start: index - left_size,
                end: index + ngram_len + right_size,
                dist: dist_left + dist_right,
            });
        }
        ngram_start += ngram_len;
    }
    out
}

/// fuzzysearch `consolidate_overlapping_matches`: group overlapping matches, keep the best of each
/// group (smallest distance, then longest), sorted by (start, end, dist).
///
/// Python keeps each group in a `set`, so among equally good matches the survivor depends on the
/// process's hash seed (`attrs` hashes include a per-process string hash); here the earliest
/// (then shortest-ending) one wins.
fn consolidate_overlapping_matches(matches: &[Match]) -> Vec<Match> {
    struct Group {
        start: usize,
        end: usize,
        members: Vec<Match>,
    }
    let overlaps = |g: &Group, m: &Match| !(m.end <= g.start || m.start >= g.end);
    let mut groups: Vec<Group> = Vec::new();
    for m in matches {
        let hits: Vec<usize> =
            groups.iter().enumerate().filter(|(_, g)| overlaps(g, m)).map(|(i, _)| i).collect();
        match hits.len() {
            0 => groups.push(Group { start: m.start, end: m.end, members: vec![*m] }),
            1 => {
                let g = &mut groups[hits[0]];
                if !g.members.contains(m) {
                    g.members.push(*m);
                }
                g.start = g.start.min(m.start);
                g.end = g.end.max(m.end);
            }
            _ => {
                let mut merged = Group { start: m.start, end: m.end, members: vec![*m] };
                for &gi in &hits {
                    for mm in &groups[gi].members {
                        if !merged.members.contains(mm) {
                            merged.members.push(*mm);
                        }
                        merged.start = merged.start.min(mm.start);
                        merged.end = merged.end.max(mm.end);
                    }
                }
                let mut k = 0usize;
                groups.retain(|_| {
                    let keep = !hits.contains(&k);
                    k += 1;
                    keep
                });
                groups.push(merged);
            }
        }
    }
    let mut best: Vec<Match> = groups
        .iter()
        .filter_map(|g| {
            g.members
                .iter()
                .copied()
                .min_by_key(|m| (m.dist, std::cmp::Reverse(m.end - m.start), m.start, m.end))
        })
        .collect();
    best.sort();
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-9
    }

    #[test]
    fn ratio_hand_values() {
        // "abc" vs "abd": lcs 2, dist 2, total 6 -> (1 - 2/6) * 100.
        assert!(close(ratio("abc", "abd"), (1.0 - 2.0 / 6.0) * 100.0));
        assert!(close(ratio("", ""), 100.0));
        assert!(close(ratio("a", ""), 0.0));
        assert!(close(ratio("this is a test", "this is a test!"), (1.0 - 1.0 / 29.0) * 100.0));
        assert!(close(ratio("ü", "u"), 0.0));
    }

    #[test]
    fn lcs_multiword() {
        let a: Vec<char> = "ab".repeat(70).chars().collect();
        let b: Vec<char> = "a".repeat(70).chars().collect();
        assert_eq!(indel_distance(&a, &b), 70);
        assert_eq!(indel_distance(&b, &a), 70);
        assert_eq!(indel_distance(&a, &a), 0);
    }

    #[test]
    fn partial_ratio_hand_values() {
        assert!(close(partial_ratio("this is a test", "this is a test!"), 100.0));
        assert!(close(partial_ratio("abc", "xxabcxx"), 100.0));
        // needle "abcd", best window "abxd": lcs 3 -> 1 - 2/8.
        assert!(close(partial_ratio("abcd", "zzabxdzz"), 75.0));
        // A one-character haystack matching one character of the needle scores 100 (the
        // symmetric behaviour olmOCR's length guard works around).
        assert!(close(partial_ratio("a long phrase", " "), 100.0));
        assert!(close(partial_ratio("", ""), 100.0));
        assert!(close(partial_ratio("abc", ""), 0.0));
        // Needle overlapping the start of the haystack: the prefix window "cd" (lcs 2, 1 - 2/6)
        // beats every full window (at best 1 - 4/8).
        assert!(close(partial_ratio("abcd", "cdxxxxxx"), (1.0 - 2.0 / 6.0) * 100.0));
        assert!(close(partial_ratio("abcd", "xxxxxxab"), (1.0 - 2.0 / 6.0) * 100.0));
        // Equal lengths: both directions are tried.
        assert!(close(partial_ratio("ab", "ba"), 2.0 / 3.0 * 100.0));
    }

    #[test]
    fn partial_ratio_cutoff() {
        assert!(close(partial_ratio_with_cutoff("abcd", "zzabxdzz", 75.0), 75.0));
        assert!(close(partial_ratio_with_cutoff("abcd", "zzabxdzz", 75.1), 0.0));
        assert!(close(ratio_with_cutoff("abc", "abd", 101.0), 0.0));
    }

    #[test]
    fn near_matches_exact() {
        let m = find_near_matches("aa", "aaaa", 0);
        assert_eq!(m.len(), 3);
        assert_eq!(m[2], Match { start: 2, end: 4, dist: 0 });
    }

    #[test]
    fn near_matches_fuzzy() {
        // PATTERN in ---PATERN--- with one deletion (fuzzysearch's docstring example).
        let m = find_near_matches("PATTERN", "---PATERN---", 1);
        assert_eq!(m, vec![Match { start: 3, end: 9, dist: 1 }]);
        // Linear-programming path (len // (k+1) < 3).
        let m = find_near_matches("abc", "xxabdxx", 1);
        assert!(m.iter().any(|x| x.start == 2 && x.dist == 1));
        assert!(find_near_matches("abc", "xxxxxxx", 1).is_empty());
        assert!(find_near_matches("", "abc", 1).is_empty());
    }
}
