//! A small seeded random number generator (SplitMix64), so that the same seed gives the same
//! pages on every machine and every build: no dependency whose stream may change between
//! versions.

/// A SplitMix64 generator.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    /// Returns a generator for `seed`.
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    /// Returns a generator for item `index` of stream `seed` (one per page, independent of
    /// how many numbers the other pages drew).
    pub fn derive(seed: u64, stream: &str, index: u64) -> Rng {
        let mut h = blake3::Hasher::new();
        h.update(&seed.to_le_bytes());
        h.update(&(stream.len() as u64).to_le_bytes());
        h.update(stream.as_bytes());
        h.update(&index.to_le_bytes());
        let b = h.finalize();
        let mut x = [0u8; 8];
        x.copy_from_slice(&b.as_bytes()[..8]);
        Rng(u64::from_le_bytes(x))
    }

    /// Returns the next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Returns a number in `lo..=hi` (`lo` when `hi < lo`).
    pub fn range(&mut self, lo: u64, hi: u64) -> u64 {
        if hi <= lo {
            return lo;
        }
        lo + self.next_u64() % (hi - lo + 1)
    }

    /// Returns an index below `n` (0 when `n` is 0).
    pub fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            return 0;
        }
        (self.next_u64() % n as u64) as usize
    }

    /// Returns true with probability `p`.
    pub fn chance(&mut self, p: f64) -> bool {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64 <= p
    }

    /// Returns one element of a non-empty slice.
    pub fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len())]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streams_are_fixed_and_independent() {
        let mut a = Rng::new(7);
        let mut b = Rng::new(7);
        assert_eq!(a.next_u64(), b.next_u64());
        // SplitMix64's published first output for seed 0.
        assert_eq!(Rng::new(0).next_u64(), 0xE220_A839_7B1D_CDAF);
        assert_ne!(Rng::derive(7, "page", 0).next_u64(), Rng::derive(7, "page", 1).next_u64());
        assert_ne!(Rng::derive(7, "page", 0).next_u64(), Rng::derive(8, "page", 0).next_u64());
        let mut r = Rng::new(1);
        for _ in 0..1000 {
            let x = r.range(3, 5);
            assert!((3..=5).contains(&x));
        }
    }
}
