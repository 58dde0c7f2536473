//! Oracle tests of the Levenshtein core: every mode against the textbook dynamic program, on
//! chars (the paper suite's entry) and on token ids (TEDS's cells, the matcher's patterns).

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

/// The dynamic program on token ids.
fn dp_ids(a: &[u32], b: &[u32]) -> usize {
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, &x) in a.iter().enumerate() {
        let mut diag = row[0];
        row[0] = i + 1;
        for (j, &y) in b.iter().enumerate() {
            let up = row[j + 1];
            row[j + 1] = (diag + usize::from(x != y)).min(up + 1).min(row[j] + 1);
            diag = up;
        }
    }
    row[b.len()]
}

/// Moved from `metrics::teds` with the cell distance it checks: TEDS now re-targets one
/// [`Peq`] per cell content and runs it in global mode. The banded mode is checked on the same
/// pairs in both directions (the pattern longer than the text included).
#[test]
fn bit_parallel_levenshtein_matches_dp() {
    let mut seed = 12345u64;
    let mut next = |k: u64| {
        seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (seed >> 33) % k
    };
    let dp = dp_ids;
    let mut peq = Peq::new(Vec::new(), 4);
    for round in 0..600 {
        let max = if round % 3 == 0 { 140 } else { 70 };
        let a: Vec<u32> = (0..next(max)).map(|_| next(4) as u32).collect();
        let b: Vec<u32> = (0..next(max)).map(|_| next(4) as u32).collect();
        peq.set(&a);
        assert_eq!(peq.global(b.iter().copied()), dp(&a, &b), "{a:?} {b:?}");
        assert_eq!(Peq::new(a.clone(), 4).banded(&b), dp(&a, &b), "{a:?} {b:?}");
        assert_eq!(Peq::new(b.clone(), 4).banded(&a), dp(&a, &b), "{a:?} {b:?}");
    }
}

#[test]
fn semi_global_is_min_over_substrings() {
    let mut rng = Rng(0x5E41);
    for round in 0..150 {
        let m = rng.below(if round % 3 == 0 { 150 } else { 70 });
        let n = rng.below(90);
        let a: Vec<u32> = (0..m).map(|_| rng.below(3) as u32).collect();
        let b: Vec<u32> = (0..n).map(|_| rng.below(3) as u32).collect();
        let mut got = Vec::new();
        Peq::new(a.clone(), 3).semi_global(b.iter().copied(), |s| got.push(s));
        let want: Vec<usize> =
            (0..n).map(|j| (0..=j + 1).map(|s| dp_ids(&a, &b[s..=j])).min().unwrap()).collect();
        assert_eq!(got, want, "{a:?} {b:?}");
    }
}

#[test]
fn banded_with_the_longer_side_as_pattern() {
    // `levenshtein_chars` always puts the shorter side in the pattern; the mode itself must not
    // depend on it.
    let mut rng = Rng(0xB1D);
    for (m, n) in [(1usize, 0usize), (65, 1), (200, 64), (700, 130), (129, 128), (1000, 900)] {
        let a: Vec<u32> = (0..m).map(|_| rng.below(5) as u32).collect();
        let mut b: Vec<u32> = a.iter().copied().step_by(m.div_ceil(n.max(1))).collect();
        b.truncate(n);
        for _ in 0..rng.below(20) {
            if !b.is_empty() {
                let p = rng.below(b.len());
                b[p] = rng.below(5) as u32;
            }
        }
        assert_eq!(Peq::new(a.clone(), 5).banded(&b), dp_ids(&a, &b), "{m} x {n}");
        assert_eq!(Peq::new(a.clone(), 5).global(b.iter().copied()), dp_ids(&a, &b));
    }
}

#[test]
fn char_pattern_ids() {
    let p = Pattern::new(&['a', 'σ', 'a', 'b']);
    assert_eq!(p.ids(), &[1, 2, 1, 3]);
    assert_eq!(p.symbols(), 4);
    assert_eq!((p.id('σ'), p.id('z'), p.id('中')), (2, 0, 0));
    assert_eq!(p.distance(&['a', 'b']), 2);
    assert_eq!(Pattern::new(&[]).distance(&['a', 'b']), 2);
}
